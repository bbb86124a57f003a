//! The job seam's types: ids, statuses, start specs, producer hooks, snapshots and errors.

use std::fmt;

use dsh_context::{Agent, BoxFuture};

/// A job id: `<kind>-<N>`, `N` counting from 1 per kind and per registry (`bash-1`,
/// `pty-send-1`, `subagent-1`). Ids are predictable; authorization is the exact owner check,
/// never secrecy.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(String);

impl JobId {
    /// Wraps a string as given (no validation: a lookup of an ill-formed id is simply unknown).
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The id text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Splits a well-formed id into kind and ordinal (`pty-send-3` → `("pty-send", 3)`); `None`
    /// when the id is not `<non-empty kind>-<positive integer>`.
    pub fn parts(&self) -> Option<(&str, u64)> {
        let (kind, n) = self.0.rsplit_once('-')?;
        if kind.is_empty() || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if n.starts_with('0') {
            return None;
        }
        let n: u64 = n.parse().ok()?;
        Some((kind, n))
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a job is in its life. `Running` and `Stopping` are live; the rest are terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobStatus {
    /// The work is in progress.
    Running,
    /// Cancellation was requested; the work has not stopped yet.
    Stopping,
    /// The work finished on its own.
    Completed,
    /// The work stopped after a cancellation request.
    Killed,
    /// The work failed (or its producer broke the contract).
    Failed,
}

impl JobStatus {
    /// The model-visible word (`running`, `stopping`, `completed`, `killed`, `failed`).
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Running => "running",
            JobStatus::Stopping => "stopping",
            JobStatus::Completed => "completed",
            JobStatus::Killed => "killed",
            JobStatus::Failed => "failed",
        }
    }

    /// Whether the job still runs (`running` or `stopping`).
    pub fn is_live(self) -> bool {
        matches!(self, JobStatus::Running | JobStatus::Stopping)
    }
}

impl fmt::Display for JobStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a job's work ended, as reported by its producer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinalStatus {
    /// Finished on its own.
    Completed,
    /// Stopped after cancellation.
    Killed,
    /// Failed.
    Failed,
}

impl From<FinalStatus> for JobStatus {
    fn from(s: FinalStatus) -> Self {
        match s {
            FinalStatus::Completed => JobStatus::Completed,
            FinalStatus::Killed => JobStatus::Killed,
            FinalStatus::Failed => JobStatus::Failed,
        }
    }
}

/// The settled result of a job's work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobOutcome {
    /// How it ended.
    pub status: FinalStatus,
    /// One short line for the status suffix, e.g. `wait: stdin_read` or `exit: 2`.
    pub detail: Option<String>,
    /// The whole result of a final-output job (stream jobs leave this `None`).
    pub output: Option<String>,
}

impl JobOutcome {
    /// An outcome with a status and an optional detail, no final output.
    pub fn new(status: FinalStatus, detail: Option<String>) -> Self {
        Self {
            status,
            detail,
            output: None,
        }
    }
}

/// Checks a wait's timeout: a positive finite number of milliseconds.
///
/// # Errors
/// [`JobError::InvalidTimeout`] naming the value as the caller wrote it (`0`, `-5`; `null` for
/// one that is not finite).
pub fn check_wait_timeout(timeout_ms: f64) -> Result<(), JobError> {
    if timeout_ms.is_finite() && timeout_ms > 0.0 {
        return Ok(());
    }
    // f64's Display drops a `.0`.
    Err(JobError::InvalidTimeout(if timeout_ms.is_finite() {
        timeout_ms.to_string()
    } else {
        "null".to_owned()
    }))
}

/// Requests cancellation; `Err` means nothing changed (the registry propagates it).
pub type CancelHook = Box<dyn Fn(&str) -> Result<(), String> + Send + Sync>;
/// Returns output produced since the previous call (a consuming stream read).
pub type ReadOutputHook = Box<dyn Fn() -> String + Send + Sync>;
/// Stops what a job that already ended left running (a background send that ended at a
/// program's input prompt leaves that program waiting). When it asked something to stop, it
/// returns the job's detail from now on, which says so.
pub type StopLeftoverHook = Box<dyn Fn() -> Option<String> + Send + Sync>;

/// What a producer hands the registry once its work has started.
pub struct JobHooks {
    /// Asks the work to stop (the argument is the reason). Returns quickly; the work reports
    /// `Killed` through `done` once it actually stopped.
    pub cancel: CancelHook,
    /// `Some` for stream jobs: each call returns only output produced since the previous one.
    /// `None` for final-output jobs, whose result is [`JobOutcome::output`].
    pub read_output: Option<ReadOutputHook>,
    /// Called (at most once) by a kill that finds the job already ended: stops what its work
    /// left running, if anything still runs (see [`KillOutcome::LeftoverInterrupted`]). `None`
    /// when the work leaves nothing behind.
    pub stop_leftover: Option<StopLeftoverHook>,
    /// Settles once when the work ends. `Err(message)` is a producer contract violation; the
    /// job becomes `failed` with that message as its detail.
    pub done: BoxFuture<'static, Result<JobOutcome, String>>,
}

impl fmt::Debug for JobHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobHooks")
            .field("stream", &self.read_output.is_some())
            .finish_non_exhaustive()
    }
}

/// Starts the work: called once, synchronously, after every admission check passed and before
/// an id exists. An `Err` registers nothing and consumes no id.
pub type RunFn = Box<dyn FnOnce() -> Result<JobHooks, String> + Send>;

/// A request to start a job.
pub struct JobStart {
    /// Non-empty kind; the id prefix (`pty-send`).
    pub kind: String,
    /// Non-empty one-line label shown in lists and notices (`pty-1: make test`).
    pub label: String,
    /// UTF-8 byte cap for what job tools show of this job (reads, kill acks, notices).
    pub output_limit_bytes: Option<usize>,
    /// The exact owner; `None` for an unowned job (all unowned jobs share one bucket).
    pub owner: Option<Agent>,
    /// Starts the work.
    pub run: RunFn,
}

impl fmt::Debug for JobStart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobStart")
            .field("kind", &self.kind)
            .field("label", &self.label)
            .field("output_limit_bytes", &self.output_limit_bytes)
            .field("owner", &self.owner)
            .finish_non_exhaustive()
    }
}

/// A point-in-time view of one job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSnapshot {
    /// `<kind>-<N>`.
    pub id: JobId,
    /// The kind.
    pub kind: String,
    /// The label.
    pub label: String,
    /// The producer's byte cap for job tool results.
    pub output_limit_bytes: Option<usize>,
    /// The owner's id (display only; authorization compares the owner instance).
    pub owner_id: Option<String>,
    /// Current status.
    pub status: JobStatus,
    /// Short status detail once known (`wait: stdin_read`, `Error: …`).
    pub detail: Option<String>,
    /// Milliseconds since the Unix epoch when the job was registered.
    pub started_at_ms: u64,
    /// Milliseconds since the Unix epoch when it reached a terminal status.
    pub finished_at_ms: Option<u64>,
    /// Whether the owner has already seen the final status (a terminal read, a wait, or a kill);
    /// reported jobs get no completion notice.
    pub reported: bool,
}

/// The result of a read: new text plus the snapshot after the read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRead {
    /// Stream jobs: output since the previous read. Final-output jobs: `""` while live, the
    /// whole result once settled (every time).
    pub text: String,
    /// The job after the read.
    pub snapshot: JobSnapshot,
}

/// What [`crate::JobRegistry::kill`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillOutcome {
    /// Cancellation was requested; the job is `stopping` until its work ends.
    Requested,
    /// The job had already reached a terminal status.
    AlreadyFinished,
    /// The job had already reached a terminal status, leaving something running (a program
    /// waiting at its input prompt), which its [`JobHooks::stop_leftover`] asked to stop (a
    /// pty-send job: SIGINT to the session's foreground, as `terminal_signal` does, and
    /// SIGTERM to a program other than the shell); the job's detail then says what it did
    /// (`… waited for input (job_kill then sent it SIGINT)`).
    LeftoverInterrupted,
}

/// Identifies an attached controller, for [`crate::JobRegistry::detach_controller`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ControllerId(pub(crate) u64);

/// Identifies a listener, for [`crate::JobRegistry::remove_listener`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ListenerId(pub(crate) u64);

/// Called once per job when it settles, with its final snapshot and its owner.
pub type DoneListener = Box<dyn Fn(&JobSnapshot, Option<&Agent>) + Send + Sync>;
/// Called when an owner's set of jobs changes (registration, stopping, settlement, removal).
pub type ChangedListener = Box<dyn Fn(Option<&Agent>) + Send + Sync>;
/// Called when a caller was shown a settled job's status (see
/// [`JobRegistry::on_job_seen`](crate::JobRegistry::on_job_seen)), with that status.
pub type SeenListener = Box<dyn Fn(&JobSnapshot) + Send + Sync>;

/// Model-facing job errors. Messages are lowercase and say what to do next.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JobError {
    /// No controller (job tools) is attached, so nobody could read or stop the job.
    #[error(
        "background jobs unavailable: no job controller serves this agent (load dsh-tool-jobs in its composition)"
    )]
    NoController,
    /// Empty kind.
    #[error("invalid job kind: expected a non-empty string")]
    InvalidKind,
    /// Empty label.
    #[error("invalid job label: expected a non-empty string")]
    InvalidLabel,
    /// `output_limit_bytes` of zero.
    #[error("invalid outputLimitBytes: expected a positive safe integer, got {0}")]
    InvalidOutputLimit(usize),
    /// The owner is not live (already disposed).
    #[error(
        "agent \"{0}\" is not the registered agent instance (background job owner must be live)"
    )]
    OwnerNotLive(String),
    /// The owner already has the maximum number of live jobs.
    #[error(
        "background job limit reached for this owner (limit: {0}); use job_kill to stop an unneeded job, wait for it to finish, then retry"
    )]
    LimitReached(usize),
    /// The producer refused to start (its own message).
    #[error("{0}")]
    Run(String),
    /// No job with that id.
    #[error("unknown job {0}; call job_list to see your jobs")]
    UnknownJob(JobId),
    /// No job with that id, and the id has none of the shapes job ids have (`<kind>-N` for a
    /// kind this service started jobs of, listed in `shapes` as `pty-send-N`): the model likely
    /// passed an id of another kind, such as a terminal session's.
    #[error(
        "unknown job {id}: job ids have the shape {shapes}, as a background start returns them (an id of another kind, such as a terminal session's, goes to that kind's tools); call job_list to see your jobs"
    )]
    NotAJobId {
        /// The id asked for.
        id: JobId,
        /// The shapes of the ids jobs have (`pty-send-N`, or several joined by " or ").
        shapes: String,
    },
    /// No job with that id, and this service has started none yet.
    #[error(
        "unknown job {0}: no background job has been started yet (a job's id is what starting it in the background returns); call job_list to see your jobs"
    )]
    NoJobsYet(JobId),
    /// A job of the caller's with that id existed and is forgotten: it finished and the caller
    /// has newer finished jobs (see `MAX_FINISHED_JOBS_PER_OWNER`). Anyone else asking for it
    /// gets [`JobError::UnknownJob`].
    #[error(
        "job {0} is no longer kept: only {max} finished jobs are kept, and the oldest go first, those whose end was already seen (a job_output read or wait, a job_kill) before the others (read a job's output with job_output before starting many more); call job_list to see your jobs",
        max = crate::MAX_FINISHED_JOBS_PER_OWNER
    )]
    Forgotten(JobId),
    /// The job belongs to another owner (or the caller has none).
    #[error("job {0} belongs to another agent; call job_list to see your own jobs")]
    Foreign(JobId),
    /// A wait timeout that is not a positive finite number of milliseconds.
    #[error("invalid wait timeout: expected a positive number of milliseconds, got {0}")]
    InvalidTimeout(String),
    /// The caller cancelled a wait (the client cancelled the call, or its answer can no longer
    /// reach it); the job goes on.
    #[error(
        "wait aborted: the call was cancelled before the job settled; the job was left as it was: call job_output again to read or wait for it"
    )]
    WaitAborted,
    /// A wait ended because the connection it came on is closing: the job ends with the
    /// connection's agent.
    #[error(
        "wait aborted: the connection this call came on is closing (its client ended it, it idled out, or the server is shutting down), and the job is stopped with it, as every job and terminal of the connection is; a new connection starts without them"
    )]
    ConnectionClosing,
    /// The producer's cancel failed; the job was left as it was.
    #[error("{0}")]
    CancelFailed(String),
    /// The service is being disposed.
    #[error("jobs service is disposing; no new background jobs can start")]
    Disposing,
}
