//! [`LocalJobRegistry`]: the in-memory [`JobRegistry`], with per-owner admission, consuming
//! reads, cancellation-first kill and owner/service teardown.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use dsh_context::Agent;
use parking_lot::Mutex;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::registry::{JobRegistry, OWNER_DISPOSED_REASON, SERVICE_DISPOSED_REASON};
use crate::types::*;

mod disposal;
mod leftover;
mod retention;

use retention::forget_oldest_finished;

struct Record {
    snapshot: JobSnapshot,
    owner: Option<Agent>,
    /// Dropped once the job settled: a finished job has nothing to cancel, and the producer's
    /// state the hook holds (its output, its session's send) is freed.
    cancel: Option<Arc<CancelHook>>,
    /// Dropped after the first read of the settled job, which took all its output: later
    /// reads have nothing new, and the producer's state the hook holds is freed.
    read_output: Option<Arc<ReadOutputHook>>,
    /// Kept after the job settled, for a kill that comes later; taken by the first such kill.
    stop_leftover: Option<StopLeftoverHook>,
    output: Option<String>,
    settled: watch::Sender<bool>,
    waiters: usize,
}

#[derive(Default)]
struct State {
    jobs: BTreeMap<u64, Record>,
    by_id: HashMap<JobId, u64>,
    next_seq: u64,
    counters: HashMap<String, u64>,
    controllers: HashMap<u64, String>,
    done_listeners: Vec<(u64, Arc<DoneListener>)>,
    changed_listeners: Vec<(u64, Arc<ChangedListener>)>,
    seen_listeners: Vec<(u64, Arc<SeenListener>)>,
    /// Owners (by instance key) whose scope already carries our cleanup.
    owner_cleanups: HashSet<usize>,
    /// Ids forgotten under the cap on finished jobs, with their owners' instance keys, oldest
    /// first (see `retention::forgot_for`).
    forgotten: VecDeque<(JobId, Option<usize>)>,
}

struct Inner {
    state: Mutex<State>,
    max_per_owner: usize,
    next_handle: AtomicU64,
    disposing: AtomicBool,
    listeners_closed: AtomicBool,
}

/// The in-memory job registry: the default [`JobRegistry`].
///
/// Admission is limited per exact owner ([`DEFAULT_MAX_CONCURRENT_JOBS_PER_OWNER`](crate::DEFAULT_MAX_CONCURRENT_JOBS_PER_OWNER) live jobs by
/// default; unowned jobs share one bucket). Settlement is observed by a task per job on the
/// current tokio runtime, so [`JobRegistry::start`] must be called inside one.
#[derive(Clone)]
pub struct LocalJobRegistry {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for LocalJobRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.inner.state.lock();
        f.debug_struct("LocalJobRegistry")
            .field("jobs", &state.jobs.len())
            .field("max_per_owner", &self.inner.max_per_owner)
            .finish()
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

fn same_owner(a: Option<&Agent>, b: Option<&Agent>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// The error for an id no job has: [`JobError::NoJobsYet`] before any job started,
/// [`JobError::NotAJobId`] when it has none of the shapes the ids of `counters`' kinds have
/// (`<kind>-N`), else [`JobError::UnknownJob`].
fn unknown_job(counters: &HashMap<String, u64>, id: &JobId) -> JobError {
    let shaped = counters.keys().any(|kind| {
        id.as_str()
            .strip_prefix(kind.as_str())
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    });
    if counters.is_empty() {
        return JobError::NoJobsYet(id.clone());
    }
    if shaped {
        return JobError::UnknownJob(id.clone());
    }
    let mut kinds: Vec<&str> = counters.keys().map(String::as_str).collect();
    kinds.sort_unstable();
    let shapes = kinds
        .iter()
        .map(|kind| format!("{kind}-N"))
        .collect::<Vec<_>>()
        .join(" or ");
    JobError::NotAJobId {
        id: id.clone(),
        shapes,
    }
}

/// Runs a listener, logging (never propagating) a panic.
fn contained(what: &str, f: impl FnOnce()) {
    if std::panic::catch_unwind(AssertUnwindSafe(f)).is_err() {
        tracing::error!(
            listener = what,
            "job listener panicked; the job itself is unaffected"
        );
    }
}

impl LocalJobRegistry {
    /// A registry admitting at most `max_concurrent_jobs_per_owner` live jobs per owner.
    ///
    /// # Errors
    /// `max_concurrent_jobs_per_owner` must be at least 1.
    pub fn new(max_concurrent_jobs_per_owner: usize) -> Result<Self, String> {
        if max_concurrent_jobs_per_owner == 0 {
            return Err(
                "jobs: max_concurrent_jobs_per_owner must be a positive integer (got 0)".to_owned(),
            );
        }
        Ok(Self {
            inner: Arc::new(Inner {
                state: Mutex::new(State::default()),
                max_per_owner: max_concurrent_jobs_per_owner,
                next_handle: AtomicU64::new(1),
                disposing: AtomicBool::new(false),
                listeners_closed: AtomicBool::new(false),
            }),
        })
    }

    fn handle(&self) -> u64 {
        self.inner.next_handle.fetch_add(1, Ordering::Relaxed)
    }

    /// A snapshot of one listener list (empty once listeners are closed), so listeners run
    /// outside the registry lock.
    fn listeners<T: ?Sized>(&self, list: impl Fn(&State) -> &Vec<(u64, Arc<T>)>) -> Vec<Arc<T>> {
        if self.inner.listeners_closed.load(Ordering::SeqCst) {
            return Vec::new();
        }
        let state = self.inner.state.lock();
        list(&state).iter().map(|(_, l)| l.clone()).collect()
    }

    /// Tells the seen listeners that a caller was shown `snapshot`, when it is settled.
    fn notify_seen(&self, snapshot: &JobSnapshot) {
        if snapshot.status.is_live() {
            return;
        }
        for l in self.listeners(|s| &s.seen_listeners) {
            contained("job-seen", || l(snapshot));
        }
    }

    fn notify_changed(&self, owner: Option<&Agent>) {
        for l in self.listeners(|s| &s.changed_listeners) {
            contained("jobs-changed", || l(owner));
        }
    }

    /// Looks a job up and checks the caller against its owner.
    fn with_record<R>(
        &self,
        id: &JobId,
        caller: Option<&Agent>,
        f: impl FnOnce(&mut Record) -> R,
    ) -> Result<R, JobError> {
        let mut state = self.inner.state.lock();
        let Some(&seq) = state.by_id.get(id) else {
            return Err(if retention::forgot_for(&state, id, caller) {
                JobError::Forgotten(id.clone())
            } else {
                unknown_job(&state.counters, id)
            });
        };
        let record = state
            .jobs
            .get_mut(&seq)
            .ok_or_else(|| JobError::UnknownJob(id.clone()))?;
        if let Some(owner) = &record.owner
            && caller != Some(owner)
        {
            return Err(JobError::Foreign(id.clone()));
        }
        Ok(f(record))
    }

    /// Records the first settlement of job `seq`; later ones are ignored.
    fn settle(&self, seq: u64, outcome: Result<JobOutcome, String>) {
        let (snapshot, owner) = {
            let mut state = self.inner.state.lock();
            let Some(record) = state.jobs.get_mut(&seq) else {
                return;
            };
            if !record.snapshot.status.is_live() {
                return;
            }
            let outcome = outcome.unwrap_or_else(|e| {
                tracing::error!(job = %record.snapshot.id, error = %e, "job producer's done failed; marking the job failed");
                JobOutcome::new(FinalStatus::Failed, Some(e))
            });
            record.snapshot.status = outcome.status.into();
            record.snapshot.detail = outcome.detail;
            record.snapshot.finished_at_ms = Some(now_ms().max(record.snapshot.started_at_ms));
            record.output = outcome.output;
            record.cancel = None;
            if record.waiters > 0 {
                record.snapshot.reported = true;
            }
            record.settled.send_replace(true);
            let settled = (record.snapshot.clone(), record.owner.clone());
            forget_oldest_finished(&mut state, settled.1.as_ref());
            settled
        };
        self.notify_changed(owner.as_ref());
        for l in self.listeners(|s| &s.done_listeners) {
            contained("job-done", || l(&snapshot, owner.as_ref()));
        }
    }
}

/// Unregisters a waiter when the wait ends in any way (including abort).
struct WaiterGuard<'a> {
    registry: &'a LocalJobRegistry,
    id: JobId,
}

impl Drop for WaiterGuard<'_> {
    fn drop(&mut self) {
        let mut state = self.registry.inner.state.lock();
        if let Some(seq) = state.by_id.get(&self.id).copied()
            && let Some(record) = state.jobs.get_mut(&seq)
        {
            record.waiters = record.waiters.saturating_sub(1);
        }
    }
}

#[async_trait]
impl JobRegistry for LocalJobRegistry {
    fn attach_controller(&self, name: &str) -> ControllerId {
        let id = self.handle();
        self.inner
            .state
            .lock()
            .controllers
            .insert(id, name.to_owned());
        ControllerId(id)
    }

    fn detach_controller(&self, id: ControllerId) {
        self.inner.state.lock().controllers.remove(&id.0);
    }

    fn start(&self, spec: JobStart) -> Result<JobId, JobError> {
        if self.inner.disposing.load(Ordering::SeqCst) {
            return Err(JobError::Disposing);
        }
        if self.inner.state.lock().controllers.is_empty() {
            return Err(JobError::NoController);
        }
        if spec.kind.trim().is_empty() {
            return Err(JobError::InvalidKind);
        }
        if spec.label.trim().is_empty() {
            return Err(JobError::InvalidLabel);
        }
        if spec.output_limit_bytes == Some(0) {
            return Err(JobError::InvalidOutputLimit(0));
        }
        if let Some(owner) = &spec.owner
            && !owner.is_live()
        {
            return Err(JobError::OwnerNotLive(owner.id().to_owned()));
        }
        let live = {
            let state = self.inner.state.lock();
            state
                .jobs
                .values()
                .filter(|r| {
                    r.snapshot.status.is_live() && same_owner(r.owner.as_ref(), spec.owner.as_ref())
                })
                .count()
        };
        if live >= self.inner.max_per_owner {
            return Err(JobError::LimitReached(self.inner.max_per_owner));
        }
        if let Some(owner) = &spec.owner {
            self.attach_owner_cleanup(owner)?;
        }
        let hooks = (spec.run)().map_err(JobError::Run)?;
        let (settled, _) = watch::channel(false);
        let seq;
        let id;
        {
            let mut state = self.inner.state.lock();
            let n = state.counters.entry(spec.kind.clone()).or_insert(0);
            *n += 1;
            id = JobId::new(format!("{}-{}", spec.kind, n));
            state.next_seq += 1;
            seq = state.next_seq;
            state.by_id.insert(id.clone(), seq);
            state.jobs.insert(
                seq,
                Record {
                    snapshot: JobSnapshot {
                        id: id.clone(),
                        kind: spec.kind,
                        label: spec.label,
                        output_limit_bytes: spec.output_limit_bytes,
                        owner_id: spec.owner.as_ref().map(|o| o.id().to_owned()),
                        status: JobStatus::Running,
                        detail: None,
                        started_at_ms: now_ms(),
                        finished_at_ms: None,
                        reported: false,
                    },
                    owner: spec.owner.clone(),
                    cancel: Some(Arc::new(hooks.cancel)),
                    read_output: hooks.read_output.map(Arc::new),
                    stop_leftover: hooks.stop_leftover,
                    output: None,
                    settled,
                    waiters: 0,
                },
            );
        }
        let weak = Arc::downgrade(&self.inner);
        let done = hooks.done;
        tokio::spawn(async move {
            let outcome = done.await;
            if let Some(inner) = weak.upgrade() {
                LocalJobRegistry { inner }.settle(seq, outcome);
            }
        });
        self.notify_changed(spec.owner.as_ref());
        Ok(id)
    }

    fn list(&self, caller: Option<&Agent>) -> Vec<JobSnapshot> {
        let state = self.inner.state.lock();
        state
            .jobs
            .values()
            .filter(|r| r.owner.is_none() || r.owner.as_ref() == caller)
            .map(|r| r.snapshot.clone())
            .collect()
    }

    fn get(&self, id: &JobId, caller: Option<&Agent>) -> Result<JobSnapshot, JobError> {
        self.with_record(id, caller, |r| r.snapshot.clone())
    }

    fn read(&self, id: &JobId, caller: Option<&Agent>) -> Result<JobRead, JobError> {
        // The stream hook runs outside the registry lock (it may take the producer's locks).
        let (live, stream) = self.with_record(id, caller, |r| {
            (r.snapshot.status.is_live(), r.read_output.clone())
        })?;
        let streamed = stream.map(|read| read());
        let read = self.with_record(id, caller, |r| {
            let text = match (&streamed, live) {
                (Some(text), _) => text.clone(),
                (None, true) => String::new(),
                (None, false) => r.output.clone().unwrap_or_default(),
            };
            // Reported only when the final status was visible before this read's text was
            // taken, so output produced just before settlement is never skipped. That read
            // took the stream's last output: the hook goes (later reads get nothing new).
            if !live {
                r.snapshot.reported = true;
                if streamed.is_some() {
                    r.read_output = None;
                    r.output = None;
                }
            }
            JobRead {
                text,
                snapshot: r.snapshot.clone(),
            }
        })?;
        self.notify_seen(&read.snapshot);
        Ok(read)
    }

    fn kill(
        &self,
        id: &JobId,
        caller: Option<&Agent>,
        reason: Option<&str>,
    ) -> Result<KillOutcome, JobError> {
        // A live job's cancel hook, or a finished one's stop-leftover hook (taken: it runs once).
        let (cancel, leftover) = self.with_record(id, caller, |r| {
            if r.snapshot.status.is_live() {
                (r.cancel.clone(), None)
            } else {
                r.snapshot.reported = true;
                (None, r.stop_leftover.take())
            }
        })?;
        if let Some(stop) = leftover {
            let outcome = self.stopped_leftover(id, caller, stop());
            self.notify_seen(&self.get(id, caller)?);
            return outcome;
        }
        let Some(cancel) = cancel else {
            // The kill's answer shows the job's final status.
            self.notify_seen(&self.get(id, caller)?);
            return Ok(KillOutcome::AlreadyFinished);
        };
        let reason = reason.unwrap_or("model request");
        tracing::info!(job = %id, reason, "job kill requested");
        cancel(reason).map_err(JobError::CancelFailed)?;
        let owner = self.with_record(id, caller, |r| {
            if r.snapshot.status == JobStatus::Running {
                r.snapshot.status = JobStatus::Stopping;
            }
            r.snapshot.reported = true;
            r.owner.clone()
        })?;
        self.notify_changed(owner.as_ref());
        Ok(KillOutcome::Requested)
    }

    fn amend_detail(
        &self,
        id: &JobId,
        caller: Option<&Agent>,
        detail: String,
    ) -> Result<bool, JobError> {
        self.set_detail_when(id, caller, detail, |status| !status.is_live())
    }

    fn note_unstoppable(
        &self,
        id: &JobId,
        caller: Option<&Agent>,
        detail: String,
    ) -> Result<bool, JobError> {
        self.set_detail_when(id, caller, detail, |status| status == JobStatus::Stopping)
    }

    async fn wait(
        &self,
        id: &JobId,
        timeout_ms: f64,
        caller: Option<&Agent>,
        cancel: &CancellationToken,
    ) -> Result<JobSnapshot, JobError> {
        crate::types::check_wait_timeout(timeout_ms)?;
        let mut rx = self.with_record(id, caller, |r| {
            if r.snapshot.status.is_live() {
                r.waiters += 1;
                Some(r.settled.subscribe())
            } else {
                r.snapshot.reported = true;
                None
            }
        })?;
        let Some(rx) = rx.as_mut() else {
            let snapshot = self.get(id, caller)?;
            self.notify_seen(&snapshot);
            return Ok(snapshot);
        };
        let guard = WaiterGuard {
            registry: self,
            id: id.clone(),
        };
        if cancel.is_cancelled() {
            return Err(JobError::WaitAborted);
        }
        let timeout = Duration::from_secs_f64(timeout_ms / 1000.0);
        let outcome = tokio::select! {
            biased;
            () = cancel.cancelled() => Err(JobError::WaitAborted),
            _ = tokio::time::timeout(timeout, rx.wait_for(|done| *done)) => Ok(()),
        };
        drop(guard);
        outcome?;
        let snapshot = self.with_record(id, caller, |r| {
            if !r.snapshot.status.is_live() {
                r.snapshot.reported = true;
            }
            r.snapshot.clone()
        })?;
        self.notify_seen(&snapshot);
        Ok(snapshot)
    }

    fn on_job_done(&self, listener: DoneListener) -> ListenerId {
        let id = self.handle();
        self.inner
            .state
            .lock()
            .done_listeners
            .push((id, Arc::new(listener)));
        ListenerId(id)
    }

    fn on_jobs_changed(&self, listener: ChangedListener) -> ListenerId {
        let id = self.handle();
        self.inner
            .state
            .lock()
            .changed_listeners
            .push((id, Arc::new(listener)));
        ListenerId(id)
    }

    fn shown(&self, snapshots: &[JobSnapshot]) {
        for snapshot in snapshots {
            self.notify_seen(snapshot);
        }
    }

    fn on_job_seen(&self, listener: SeenListener) -> ListenerId {
        let id = self.handle();
        self.inner
            .state
            .lock()
            .seen_listeners
            .push((id, Arc::new(listener)));
        ListenerId(id)
    }

    fn remove_listener(&self, id: ListenerId) {
        let mut state = self.inner.state.lock();
        state.done_listeners.retain(|(l, _)| *l != id.0);
        state.changed_listeners.retain(|(l, _)| *l != id.0);
        state.seen_listeners.retain(|(l, _)| *l != id.0);
    }

    fn all_snapshots(&self) -> Vec<(JobSnapshot, Option<Agent>)> {
        let state = self.inner.state.lock();
        state
            .jobs
            .values()
            .map(|r| (r.snapshot.clone(), r.owner.clone()))
            .collect()
    }

    async fn dispose_owner(&self, owner: &Agent) {
        self.dispose_owner_key(owner.instance_key()).await;
    }

    async fn dispose(&self) {
        self.inner.disposing.store(true, Ordering::SeqCst);
        self.inner.listeners_closed.store(true, Ordering::SeqCst);
        self.teardown(SERVICE_DISPOSED_REASON, |_| true).await;
        let mut state = self.inner.state.lock();
        state.owner_cleanups.clear();
        state.done_listeners.clear();
        state.changed_listeners.clear();
        state.seen_listeners.clear();
    }
}
