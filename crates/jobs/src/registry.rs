//! The [`JobRegistry`] seam: what every jobs service offers (implemented by
//! [`LocalJobRegistry`](crate::LocalJobRegistry)(crate::LocalJobRegistry)).

use async_trait::async_trait;
use dsh_context::Agent;
use tokio_util::sync::CancellationToken;

use crate::types::*;

/// Default for [`LocalJobRegistry::new`](crate::LocalJobRegistry::new)'s per-owner admission limit.
pub const DEFAULT_MAX_CONCURRENT_JOBS_PER_OWNER: usize = 10;

/// Finished jobs the registry keeps per exact owner (unowned jobs share one bucket): when one
/// more finishes, the oldest finished ones are forgotten (those already reported first), so
/// memory stays bounded however many jobs an owner runs. A forgotten id reads as unknown.
pub const MAX_FINISHED_JOBS_PER_OWNER: usize = 64;

/// Reason passed to `cancel` when the owner is disposed.
pub const OWNER_DISPOSED_REASON: &str = "owner disposed";
/// Reason passed to `cancel` when the service is disposed.
pub const SERVICE_DISPOSED_REASON: &str = "jobs service disposed";

/// The jobs service seam (provided in a `Context` as `dyn JobRegistry`).
///
/// Authorization compares the caller with the job's owner by **exact instance**
/// ([`Agent`] equality), the same rule the terminal service uses: an agent created later with
/// the same id is a different owner and cannot read, list, wait on or kill the first one's jobs.
/// Unowned jobs are visible to every caller.
#[async_trait]
pub trait JobRegistry: Send + Sync {
    /// Registers a controller (the job tools). Without one, [`JobRegistry::start`] refuses:
    /// nobody could read or stop the job.
    fn attach_controller(&self, name: &str) -> ControllerId;
    /// Detaches a controller; detaching the last one re-arms the refusal.
    fn detach_controller(&self, id: ControllerId);

    /// Starts a job. Every check (controller, kind, label, limit, owner liveness, capacity)
    /// runs before `run` is called and before an id is allocated.
    ///
    /// # Errors
    /// The first failed check as a [`JobError`]; [`JobError::Run`] when `run` refused.
    fn start(&self, spec: JobStart) -> Result<JobId, JobError>;

    /// The caller's jobs plus unowned ones, in registration order.
    fn list(&self, caller: Option<&Agent>) -> Vec<JobSnapshot>;

    /// A snapshot that consumes nothing and marks nothing reported.
    ///
    /// # Errors
    /// [`JobError::UnknownJob`], [`JobError::Foreign`].
    fn get(&self, id: &JobId, caller: Option<&Agent>) -> Result<JobSnapshot, JobError>;

    /// Stream jobs: output since the previous read (consuming). Final-output jobs: `""` while
    /// live, then the result on every read. A read of a settled job marks it reported.
    ///
    /// # Errors
    /// [`JobError::UnknownJob`], [`JobError::Foreign`].
    fn read(&self, id: &JobId, caller: Option<&Agent>) -> Result<JobRead, JobError>;

    /// Requests cancellation: calls the producer's cancel first (an error propagates and
    /// changes nothing), then marks the job `stopping` and reported.
    ///
    /// # Errors
    /// [`JobError::UnknownJob`], [`JobError::Foreign`], [`JobError::CancelFailed`].
    fn kill(
        &self,
        id: &JobId,
        caller: Option<&Agent>,
        reason: Option<&str>,
    ) -> Result<KillOutcome, JobError>;

    /// Replaces a finished job's detail with `detail`, for a producer whose job left
    /// something behind (a program waiting at its prompt) that changed after the job ended, so
    /// the detail does not go on claiming what is no longer true. Returns `false` and changes
    /// nothing while the job is live (its settlement sets the detail). Listeners are not
    /// called: the job's status is unchanged.
    ///
    /// # Errors
    /// [`JobError::UnknownJob`], [`JobError::Forgotten`], [`JobError::Foreign`].
    fn amend_detail(
        &self,
        id: &JobId,
        caller: Option<&Agent>,
        detail: String,
    ) -> Result<bool, JobError>;

    /// Sets the detail of a job whose kill was requested and that has not ended (`stopping`),
    /// for a producer whose work outlived everything the kill does (a command that survived
    /// SIGINT, SIGTERM and SIGKILL): its status line then says why it still runs and what
    /// ends it, rather than pointing at `job_kill` again. Returns `false` and changes nothing
    /// unless the job is stopping (its settlement sets the detail). Listeners are not called.
    ///
    /// # Errors
    /// [`JobError::UnknownJob`], [`JobError::Forgotten`], [`JobError::Foreign`].
    fn note_unstoppable(
        &self,
        id: &JobId,
        caller: Option<&Agent>,
        detail: String,
    ) -> Result<bool, JobError>;

    /// Waits until the job settles or `timeout_ms` passes (then returns the live snapshot, not
    /// an error). A job that settles while waited on is marked reported before done-listeners
    /// run.
    ///
    /// # Errors
    /// [`JobError::InvalidTimeout`] unless `timeout_ms` is positive and finite;
    /// [`JobError::WaitAborted`] when `cancel` fires first (the waiter is unregistered at once);
    /// [`JobError::UnknownJob`], [`JobError::Foreign`].
    async fn wait(
        &self,
        id: &JobId,
        timeout_ms: f64,
        caller: Option<&Agent>,
        cancel: &CancellationToken,
    ) -> Result<JobSnapshot, JobError>;

    /// Adds a listener called once per settled job (contained: a panic is logged).
    fn on_job_done(&self, listener: DoneListener) -> ListenerId;
    /// Adds a listener called when an owner's jobs change (contained).
    fn on_jobs_changed(&self, listener: ChangedListener) -> ListenerId;
    /// Adds a listener called when a caller was shown a settled job's status: a
    /// [`read`](Self::read) of it, a [`wait`](Self::wait) that returned it settled, a
    /// [`kill`](Self::kill) of it, or a list a tool showed ([`shown`](Self::shown))
    /// (contained). A producer that amends a finished job's detail later learns so that the
    /// caller saw the amendment.
    fn on_job_seen(&self, listener: SeenListener) -> ListenerId;
    /// Tells the seen listeners (see [`on_job_seen`](Self::on_job_seen)) that a caller was
    /// shown `snapshots` other than by `read`, `wait` or `kill` (a job list); live ones are
    /// skipped.
    fn shown(&self, snapshots: &[JobSnapshot]);
    /// Removes a listener added by any of these methods.
    fn remove_listener(&self, id: ListenerId);

    /// Every job of every owner (diagnostics and invariant checks only).
    fn all_snapshots(&self) -> Vec<(JobSnapshot, Option<Agent>)>;

    /// Owner cleanup: cancels the owner's live jobs with reason `owner disposed` (they are
    /// marked reported, so no notice follows), awaits their settlement, then forgets all of
    /// the owner's jobs. Also runs automatically when the owner [`Agent`] is disposed.
    async fn dispose_owner(&self, owner: &Agent);

    /// Service disposal: silences listeners, cancels every job with `jobs service disposed`,
    /// awaits settlement and clears the store. Later starts fail with [`JobError::Disposing`].
    async fn dispose(&self);
}
