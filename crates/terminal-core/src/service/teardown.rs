//! Closing sessions: close fences every caller joins, detached close jobs, and the one teardown
//! path owner cleanup and service disposal share.

use std::sync::{Arc, Weak};

use dsh_context::Agent;
use tokio::sync::watch;
use tracing::Instrument;

use crate::backend::BackendSession;
use crate::error::{TerminalError, TerminalErrorCode};
use crate::types::{CloseReport, SessionId};

use super::{
    CLOSE_REASON_OWNER_DISPOSED, CLOSE_REASON_SERVICE_DISPOSED, Pending, Phase, Record,
    RetainedFailure, State, Terminals,
};

/// A close in flight, shared by every caller that joins it.
#[derive(Debug)]
pub(super) struct CloseFence {
    outcome: watch::Receiver<Option<Result<CloseReport, TerminalError>>>,
}

impl CloseFence {
    /// Waits for the close to finish.
    pub(super) async fn wait(&self, id: &SessionId) -> Result<CloseReport, TerminalError> {
        let mut rx = self.outcome.clone();
        match rx.wait_for(Option::is_some).await {
            Ok(outcome) => outcome
                .clone()
                .unwrap_or_else(|| Err(close_interrupted(id))),
            Err(_) => Err(close_interrupted(id)),
        }
    }
}

fn close_interrupted(id: &SessionId) -> TerminalError {
    TerminalError::new(
        TerminalErrorCode::Cleanup,
        format!("closing PTY session {id} was interrupted before it finished; close it again"),
    )
}

/// A close to run (detached) after the state lock is released.
pub(super) struct CloseJob {
    service: Weak<Terminals>,
    id: SessionId,
    owner_id: String,
    reason: &'static str,
    session: Arc<dyn BackendSession>,
    fence: Arc<CloseFence>,
    tx: watch::Sender<Option<Result<CloseReport, TerminalError>>>,
}

impl CloseJob {
    async fn run(self) {
        let result = self.session.close(self.reason.to_owned()).await;
        match &result {
            Ok(report) => tracing::info!(
                processes_stopped = report.processes_stopped,
                "closed PTY session"
            ),
            Err(error) => tracing::warn!(%error, "closing PTY session failed"),
        }
        if let Some(service) = self.service.upgrade() {
            let mut st = service.lock();
            if let Some(index) = st.records.iter().position(|r| r.id == self.id) {
                if result.is_ok() {
                    st.records.remove(index);
                } else if st.records[index]
                    .closing
                    .as_ref()
                    .is_some_and(|f| Arc::ptr_eq(f, &self.fence))
                {
                    st.records[index].closing = None;
                }
            }
        }
        // Published after the record is updated, so a waiter that sees success also sees the
        // session gone.
        self.tx.send_replace(Some(result));
    }

    /// Starts the close on the current runtime (so dropping the caller cannot abandon it
    /// half-way) or, without a runtime, runs it inline.
    pub(super) async fn launch(self) {
        let span = tracing::info_span!(
            "pty_close",
            session_id = %self.id,
            owner = %self.owner_id,
            reason = self.reason
        );
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => drop(handle.spawn(self.run().instrument(span))),
            Err(_) => self.run().instrument(span).await,
        }
    }
}

/// Which sessions a teardown covers.
#[derive(Clone, Copy)]
enum ScopeFilter<'a> {
    /// Every session (service disposal).
    All,
    /// One owner's sessions (owner cleanup).
    Owner(&'a Agent),
}

impl ScopeFilter<'_> {
    fn matches(self, owner: &Agent) -> bool {
        match self {
            Self::All => true,
            Self::Owner(agent) => owner == agent,
        }
    }
}

impl Terminals {
    /// Disposes the service: rejects new spawns with `SERVICE_DISPOSING`, cancels pending
    /// spawns and waits for them to settle, closes every session with
    /// [`CLOSE_REASON_SERVICE_DISPOSED`] in parallel and waits for the closes, then clears the
    /// backend and owner registries. Calling it again retries closes that failed.
    ///
    /// # Errors
    /// `Cleanup` (`failed to clean up PTY lifecycle: ...`) naming every session whose close or
    /// rollback failed; those sessions stay listed.
    ///
    /// # Cancel safety
    /// Cancel safe in that closes already started keep running on their own tasks; dropping
    /// the future may leave the registries uncleared (call it again).
    pub async fn dispose(&self) -> Result<(), TerminalError> {
        let waits = {
            let mut st = self.lock();
            if st.phase == Phase::Running {
                st.phase = Phase::Disposing;
                tracing::info!(
                    sessions = st.records.len(),
                    pending = st.pending.len(),
                    "disposing PTY service"
                );
            }
            abort_pending(&mut st, ScopeFilter::All, TerminalError::service_disposing)
        };
        self.cancel.cancel();
        let failure = self
            .teardown(waits, ScopeFilter::All, CLOSE_REASON_SERVICE_DISPOSED)
            .await;
        {
            let mut st = self.lock();
            st.backends.clear();
            st.owners.clear();
            st.phase = Phase::Disposed;
        }
        match failure {
            None => {
                tracing::info!("PTY service disposed");
                Ok(())
            }
            Some(error) => {
                tracing::error!(%error, "PTY service disposal failed");
                Err(error)
            }
        }
    }

    /// Owner cleanup, registered on the agent's scope (the seed's §2.10).
    pub(super) async fn owner_cleanup(&self, key: usize, serial: u64) {
        let (owner, waits) = {
            let mut st = self.lock();
            let entry = match st.owners.get(&key) {
                Some(entry) if entry.serial == serial => st.owners.remove(&key),
                _ => None,
            };
            let Some(entry) = entry else {
                // Service disposal already took over.
                return;
            };
            st.cleaning.insert(key);
            let waits = abort_pending(&mut st, ScopeFilter::Owner(&entry.agent), || {
                TerminalError::owner_not_live(entry.agent.id())
            });
            entry.cancel.cancel();
            (entry.agent, waits)
        };
        let span = tracing::info_span!("pty_owner_cleanup", owner = %owner.id());
        async {
            let failure = self
                .teardown(
                    waits,
                    ScopeFilter::Owner(&owner),
                    CLOSE_REASON_OWNER_DISPOSED,
                )
                .await;
            match failure {
                Some(error) => tracing::error!(%error, "PTY owner cleanup failed"),
                None => tracing::debug!("PTY owner cleanup finished"),
            }
        }
        .instrument(span)
        .await;
        self.lock().cleaning.remove(&key);
    }

    /// The one teardown path of owner cleanup and service disposal: waits for the aborted
    /// spawns to settle, closes every session in `scope` (joining closes already running),
    /// retries the close of retained failed spawns, and returns the aggregated failure.
    async fn teardown(
        &self,
        waits: Vec<watch::Receiver<bool>>,
        scope: ScopeFilter<'_>,
        reason: &'static str,
    ) -> Option<TerminalError> {
        wait_settled(waits).await;
        let (jobs, fences, retained) = {
            let mut st = self.lock();
            let mut jobs = Vec::new();
            let mut fences = Vec::new();
            for rec in st.records.iter_mut().filter(|r| scope.matches(&r.owner)) {
                fences.push((rec.id.clone(), self.fence_for(rec, reason, &mut jobs)));
            }
            let (warm, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut st.warm)
                .into_iter()
                .partition(|w| scope.matches(&w.owner));
            st.warm = kept;
            for w in warm {
                let (fence, job) = self.close_job(w.id.clone(), &w.owner, reason, w.session);
                jobs.push(job);
                fences.push((w.id, fence));
            }
            let retained = take_retained(&mut st, |p| scope.matches(&p.owner));
            (jobs, fences, retained)
        };
        let failures = close_all(jobs, fences, retained, reason).await;
        aggregate(&failures)
    }

    /// The record's current close fence, or a new close with `reason` (its job is pushed onto
    /// `jobs`). Called under the lock.
    pub(super) fn fence_for(
        &self,
        rec: &mut Record,
        reason: &'static str,
        jobs: &mut Vec<CloseJob>,
    ) -> Arc<CloseFence> {
        if let Some(fence) = &rec.closing {
            return fence.clone();
        }
        let (fence, job) = self.close_job(rec.id.clone(), &rec.owner, reason, rec.session.clone());
        rec.closing = Some(fence.clone());
        jobs.push(job);
        fence
    }

    /// A new close of `session` with `reason`, and the fence its callers wait on.
    fn close_job(
        &self,
        id: SessionId,
        owner: &Agent,
        reason: &'static str,
        session: Arc<dyn BackendSession>,
    ) -> (Arc<CloseFence>, CloseJob) {
        let (tx, rx) = watch::channel(None);
        let fence = Arc::new(CloseFence { outcome: rx });
        let job = CloseJob {
            service: self.this.clone(),
            id,
            owner_id: owner.id().to_owned(),
            reason,
            session,
            fence: fence.clone(),
            tx,
        };
        (fence, job)
    }
}

/// Marks every pending spawn in `scope` (not already settled with a failure) as aborted with
/// `reason` (unless it already has one) and returns their settle receivers. Called under the
/// lock.
fn abort_pending(
    st: &mut State,
    scope: ScopeFilter<'_>,
    reason: impl Fn() -> TerminalError,
) -> Vec<watch::Receiver<bool>> {
    st.pending
        .iter_mut()
        .filter(|p| scope.matches(&p.owner) && p.failure.is_none())
        .map(|p| {
            p.abort.get_or_insert_with(&reason);
            p.settled.clone()
        })
        .collect()
}

/// Removes and returns the retained failures whose pending record matches.
fn take_retained(
    st: &mut State,
    matches: impl Fn(&Pending) -> bool,
) -> Vec<(SessionId, RetainedFailure)> {
    let mut taken = Vec::new();
    let mut kept = Vec::with_capacity(st.pending.len());
    for mut p in st.pending.drain(..) {
        match p.failure.take() {
            Some(failure) if matches(&p) => taken.push((p.id, failure)),
            failure => {
                p.failure = failure;
                kept.push(p);
            }
        }
    }
    st.pending = kept;
    taken
}

async fn wait_settled(waits: Vec<watch::Receiver<bool>>) {
    for mut rx in waits {
        // An error means the spawn task is gone, which also means it settled.
        let _ = rx.wait_for(|settled| *settled).await;
    }
}

/// Launches `jobs`, waits for every fence, retries the close of retained sessions, and returns
/// every failure as `(id, error)`.
async fn close_all(
    jobs: Vec<CloseJob>,
    fences: Vec<(SessionId, Arc<CloseFence>)>,
    retained: Vec<(SessionId, RetainedFailure)>,
    reason: &'static str,
) -> Vec<(SessionId, TerminalError)> {
    for job in jobs {
        job.launch().await;
    }
    let mut failures = Vec::new();
    for (id, fence) in fences {
        if let Err(error) = fence.wait(&id).await {
            failures.push((id, error));
        }
    }
    for (id, failure) in retained {
        tracing::warn!(session_id = %id, error = %failure.error, "retrying cleanup of a failed PTY spawn");
        match failure.session {
            Some(session) => match session.close(reason.to_owned()).await {
                Ok(_) => tracing::info!(session_id = %id, "failed PTY spawn cleaned up on retry"),
                Err(error) => failures.push((id, error)),
            },
            None => failures.push((id, failure.error)),
        }
    }
    failures
}

fn aggregate(failures: &[(SessionId, TerminalError)]) -> Option<TerminalError> {
    if failures.is_empty() {
        return None;
    }
    let details: Vec<String> = failures
        .iter()
        .map(|(id, error)| format!("{id}: {error}"))
        .collect();
    Some(TerminalError::new(
        TerminalErrorCode::Cleanup,
        format!(
            "failed to clean up PTY lifecycle: {} PTY session(s) could not be closed ({})",
            failures.len(),
            details.join("; ")
        ),
    ))
}
