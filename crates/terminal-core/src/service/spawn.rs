//! The spawn flow (see the module docs of [`super`]): preflight under the lock, the backend
//! spawn on a detached task, then publication or rollback.

use std::future::Future;
use std::sync::{Arc, Weak};

use dsh_context::Agent;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::backend::{BackendSession, TerminalBackend};
use crate::error::{TerminalError, TerminalErrorCode};
use crate::types::{BackendSpawnSpec, SessionId, SessionSnapshot, SpawnRequest, SpawnResult};

use super::warm::{ClaimedSpawn, WarmKey, WarmSession, WarmTake, take_warm_locked};
use super::{
    CLOSE_REASON_ROLLBACK, OwnerEntry, Pending, Phase, Record, RetainedFailure, SendSlot, State,
    Terminals,
};

/// What preflight decided an open runs.
pub(super) enum Launch {
    /// A new backend spawn.
    Cold(PreparedSpawn),
    /// A ready warm session, taken.
    Ready(WarmTake),
    /// A warm spawn still starting, taken.
    Starting(ClaimedSpawn),
}

/// Everything preflight prepared for one spawn.
pub(super) struct PreparedSpawn {
    pub(super) backend: Arc<dyn TerminalBackend>,
    pub(super) spec: BackendSpawnSpec,
    pub(super) owner: Agent,
    pub(super) settled: watch::Sender<bool>,
}

/// Removes a pending record if the spawn task is dropped before it settles (runtime shutdown,
/// or the inline path when the caller's future is dropped).
pub(super) struct PendingGuard {
    pub(super) service: Weak<Terminals>,
    pub(super) id: SessionId,
    pub(super) armed: bool,
}

impl Drop for PendingGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if let Some(service) = self.service.upgrade() {
            let mut st = service.lock();
            st.pending.retain(|p| p.id != self.id);
            tracing::warn!(session_id = %self.id, "PTY spawn was dropped before it settled");
        }
    }
}

impl Terminals {
    /// Opens a session for `owner` and returns its snapshot and startup screen (see the
    /// module-level spawn flow).
    ///
    /// # Errors
    /// - `ServiceDisposing` when the service is (or becomes, before the backend resolves)
    ///   disposing.
    /// - `OwnerNotLive` when `owner` is disposed, or is disposed before the backend resolves.
    /// - `NoBackend` when no backend is registered for `request.backend_type`.
    /// - `InvalidRequest` for an empty name.
    /// - `DuplicateName` when the owner already has, or is creating, a session with that name.
    /// - `SessionLimit` when the owner already has as many sessions (open or being opened) as
    ///   [`Terminals::set_max_sessions_per_owner`] allows.
    /// - The backend's error (usually `Spawn`; `Cleanup` when its setup left processes behind).
    /// - `Cleanup` when the session had to be rolled back and the rollback close failed.
    ///
    /// # Cancel safety
    /// Cancel safe. Dropping the future cancels the backend spawn (through
    /// [`BackendSpawnSpec::cancel`]); a session that still comes up is closed with
    /// [`CLOSE_REASON_ROLLBACK`] in the background, and its id is given back.
    pub async fn spawn(
        &self,
        owner: &Agent,
        request: SpawnRequest,
    ) -> Result<SpawnResult, TerminalError> {
        let Some(service) = self.this.upgrade() else {
            return Err(TerminalError::service_disposing());
        };
        let key = WarmKey::of(&request);
        let mut take_warm = true;
        loop {
            let launch = self.prepare_spawn(owner, request.clone(), take_warm)?;
            let outcome = match launch {
                Launch::Cold(prepared) => {
                    let id = prepared.spec.session_id.clone();
                    let cancel = prepared.spec.cancel.clone();
                    let span =
                        tracing::info_span!("pty_spawn", session_id = %id, owner = %owner.id());
                    detached(
                        &id,
                        cancel,
                        service.clone().run_spawn(prepared).instrument(span),
                    )
                    .await
                    .map(Some)
                }
                Launch::Ready(take) => {
                    let id = take.id.clone();
                    let cancel = take.cancel.clone();
                    let span =
                        tracing::info_span!("pty_warm_take", session_id = %id, owner = %owner.id());
                    detached(&id, cancel, service.clone().run_take(take).instrument(span)).await
                }
                Launch::Starting(claimed) => self.await_claimed(owner, claimed).await,
            };
            match outcome? {
                Some(result) => {
                    service.start_warm(owner, key);
                    return Ok(result);
                }
                // The warm session it took was gone or unusable: open cold, once.
                None => take_warm = false,
            }
        }
    }

    /// Steps 1–3 of the spawn flow, under the lock.
    /// When `take_warm`, a matching warm session of the owner is taken instead of a new spawn.
    fn prepare_spawn(
        &self,
        owner: &Agent,
        request: SpawnRequest,
        take_warm: bool,
    ) -> Result<Launch, TerminalError> {
        let mut st = self.lock();
        if st.phase != Phase::Running {
            return Err(TerminalError::service_disposing());
        }
        if !owner.is_live() {
            return Err(TerminalError::owner_not_live(owner.id()));
        }
        let Some(backend) = st.backend(&request.backend_type) else {
            let available: Vec<String> = st
                .backends
                .iter()
                .map(|b| b.backend_type().to_owned())
                .collect();
            return Err(TerminalError::no_backend(&request.backend_type, &available));
        };
        if let Some(name) = &request.name {
            if name.is_empty() {
                return Err(TerminalError::invalid("PTY session name must be non-empty"));
            }
            // `pty-2` as a name would be taken for the id of another session, `pty-send-1`
            // for a job's: no name starts as ids do.
            if name.trim_start().starts_with(super::ID_PREFIX) {
                return Err(TerminalError::invalid(format!(
                    "PTY session name {name:?} starts as session ids do ({}N), and would be taken for an id; pick another name, such as \"main\" or \"build\"",
                    super::ID_PREFIX
                )));
            }
            if let Some(existing) = st
                .records
                .iter()
                .find(|r| r.owner == *owner && r.name.as_ref() == Some(name))
            {
                return Err(TerminalError::new(
                    TerminalErrorCode::DuplicateName,
                    format!(
                        "PTY session name {name:?} already exists for this owner (session {}); pick another name or use that session",
                        existing.id
                    ),
                ));
            }
            if st
                .pending
                .iter()
                .any(|p| p.owner == *owner && p.name.as_ref() == Some(name))
            {
                return Err(TerminalError::new(
                    TerminalErrorCode::DuplicateName,
                    format!(
                        "PTY session name {name:?} is already being created; wait for that open to finish or pick another name"
                    ),
                ));
            }
        }
        if let Some(max) = st.max_sessions_per_owner {
            let owned = st.records.iter().filter(|r| r.owner == *owner).count()
                + st.pending
                    .iter()
                    .filter(|p| p.owner == *owner && p.warm.is_none())
                    .count();
            if owned >= max {
                return Err(TerminalError::session_limit(max));
            }
        }
        let owner_token = self.ensure_owner(&mut st, owner)?;
        if take_warm && let Some(launch) = take_warm_locked(&mut st, owner, &request, &owner_token)
        {
            return Ok(launch);
        }

        let session_id = st.mint_id();
        let cancel = owner_token.child_token();
        let settled = push_pending(&mut st, &session_id, owner, request.name.clone(), &cancel);
        Ok(Launch::Cold(PreparedSpawn {
            backend,
            spec: BackendSpawnSpec {
                cancel,
                session_id,
                owner_id: owner.id().to_owned(),
                name: request.name,
                cwd: request.cwd,
            },
            owner: owner.clone(),
            settled,
        }))
    }

    /// Returns the owner's token, registering the owner cleanup on first use.
    pub(super) fn ensure_owner(
        &self,
        st: &mut State,
        owner: &Agent,
    ) -> Result<CancellationToken, TerminalError> {
        let key = owner.instance_key();
        if let Some(entry) = st.owners.get(&key)
            && entry.agent == *owner
        {
            return Ok(entry.cancel.clone());
        }
        st.next_owner_serial += 1;
        let serial = st.next_owner_serial;
        let service = self.this.clone();
        // Registered while holding the state lock so the entry exists iff the cleanup does. The
        // agent scope never calls back into us while holding its own lock.
        let registered = owner.on_dispose("terminals", move || {
            Box::pin(async move {
                if let Some(service) = service.upgrade() {
                    service.owner_cleanup(key, serial).await;
                }
            })
        });
        if !registered {
            return Err(TerminalError::owner_not_live(owner.id()));
        }
        let cancel = self.cancel.child_token();
        st.owners.insert(
            key,
            OwnerEntry {
                agent: owner.clone(),
                serial,
                cancel: cancel.clone(),
            },
        );
        Ok(cancel)
    }

    /// Steps 4–6 of the spawn flow (runs detached). Also runs warm spawns, whose result
    /// nobody awaits: a warm session is filed in the pool instead of published.
    pub(super) async fn run_spawn(
        self: Arc<Self>,
        prepared: PreparedSpawn,
    ) -> Result<SpawnResult, TerminalError> {
        let PreparedSpawn {
            backend,
            spec,
            owner,
            settled,
        } = prepared;
        let id = spec.session_id.clone();
        let cancel = spec.cancel.clone();
        let backend_type = backend.backend_type().to_owned();
        let mut guard = PendingGuard {
            service: self.this.clone(),
            id: id.clone(),
            armed: true,
        };

        let outcome = backend.spawn(spec).await;
        let result = match outcome {
            Ok(session) => {
                self.publish_or_roll_back(&id, &owner, &cancel, backend_type, session)
                    .await
            }
            Err(error) => {
                let mut st = self.lock();
                let aborted = abort_reason(&st, &id, &owner, &cancel);
                let was_aborted = aborted.is_some();
                let failure = aborted.unwrap_or_else(|| error.clone());
                let warm = st.pending.iter().any(|p| p.id == id && p.warm.is_some());
                if warm {
                    tracing::debug!(%error, "warm PTY spawn failed; the next open starts cold");
                } else if was_aborted {
                    // The caller cancelled, its owner ended or the service is shutting down:
                    // no fault to warn about.
                    tracing::debug!(%error, "PTY spawn ended by a cancel or shutdown");
                } else {
                    tracing::warn!(%error, "backend spawn failed");
                }
                if error.code() == TerminalErrorCode::Cleanup {
                    retain_failure(&mut st, &id, error, None);
                } else {
                    st.pending.retain(|p| p.id != id);
                    st.return_id(&id);
                }
                Err(failure)
            }
        };
        guard.armed = false;
        settled.send_replace(true);
        result
    }

    /// Step 5 of the spawn flow for a session that is up: publishes it (or, for a warm spawn
    /// no open has taken, files it in the warm pool) unless a lifecycle reason forbids it,
    /// then the session is rolled back.
    pub(super) async fn publish_or_roll_back(
        &self,
        id: &SessionId,
        owner: &Agent,
        cancel: &CancellationToken,
        backend_type: String,
        session: Arc<dyn BackendSession>,
    ) -> Result<SpawnResult, TerminalError> {
        let motd = session.motd();
        let pid = session.pid();
        let status = session.status();
        let published = {
            let mut st = self.lock();
            match abort_reason(&st, id, owner, cancel) {
                Some(reason) => Err(reason),
                None => {
                    let pending = st
                        .pending
                        .iter()
                        .position(|p| p.id == *id)
                        .map(|index| st.pending.remove(index));
                    let (name, warm) = pending.map_or((None, None), |p| (p.name, p.warm));
                    let is_warm = warm.is_some();
                    match warm {
                        Some(key) => st.warm.push(WarmSession {
                            id: id.clone(),
                            owner: owner.clone(),
                            key,
                            session: session.clone(),
                        }),
                        None => st.records.push(Record {
                            id: id.clone(),
                            owner: owner.clone(),
                            name: name.clone(),
                            backend_type: backend_type.clone(),
                            session: session.clone(),
                            send: SendSlot::Idle,
                            closing: None,
                        }),
                    }
                    Ok((name, is_warm))
                }
            }
        };
        match published {
            Ok((name, warm)) => {
                if warm {
                    tracing::debug!(?pid, "warm PTY session ready");
                } else {
                    tracing::info!(?pid, "published PTY session");
                }
                Ok(SpawnResult {
                    snapshot: SessionSnapshot {
                        session_id: id.clone(),
                        name,
                        backend_type,
                        pid,
                        status,
                    },
                    motd,
                })
            }
            Err(reason) => self.roll_back(id, session, reason).await,
        }
    }

    /// Closes a session that came up after its spawn was cancelled, and gives its id back.
    pub(super) async fn roll_back(
        &self,
        id: &SessionId,
        session: Arc<dyn BackendSession>,
        reason: TerminalError,
    ) -> Result<SpawnResult, TerminalError> {
        self.roll_back_keeping_id(id, session, reason, false).await
    }

    /// [`Terminals::roll_back`]; `keep_id`: the id is not given back (a discarded warm
    /// session's: the open that discarded it already took a later id, so reusing it would make
    /// ids go backwards).
    pub(super) async fn roll_back_keeping_id(
        &self,
        id: &SessionId,
        session: Arc<dyn BackendSession>,
        reason: TerminalError,
        keep_id: bool,
    ) -> Result<SpawnResult, TerminalError> {
        tracing::info!(%reason, "rolling back PTY spawn");
        match session.close(CLOSE_REASON_ROLLBACK.to_owned()).await {
            Ok(_) => {
                let mut st = self.lock();
                st.pending.retain(|p| p.id != *id);
                if !keep_id {
                    st.return_id(id);
                }
                Err(reason)
            }
            Err(close_error) => {
                tracing::error!(%close_error, "PTY spawn rollback failed");
                let combined = TerminalError::new(
                    TerminalErrorCode::Cleanup,
                    format!(
                        "PTY spawn and rollback both failed: {reason}; rollback of {id}: {close_error}"
                    ),
                );
                retain_failure(&mut self.lock(), id, close_error, Some(session));
                Err(combined)
            }
        }
    }
}

/// Adds the pending record of a spawn about to start and returns its settle sender. Called
/// under the lock.
pub(super) fn push_pending(
    st: &mut State,
    id: &SessionId,
    owner: &Agent,
    name: Option<String>,
    cancel: &CancellationToken,
) -> watch::Sender<bool> {
    let (settled, settled_rx) = watch::channel(false);
    st.pending.push(Pending {
        id: id.clone(),
        owner: owner.clone(),
        name,
        abort: None,
        settled: settled_rx,
        failure: None,
        warm: None,
        cancel: cancel.clone(),
    });
    settled
}

/// Runs `job` on a task of the current runtime (so dropping the caller cancels it through
/// `cancel` instead of abandoning it half-way) or, without a runtime, inline.
async fn detached<T: Send + 'static>(
    id: &SessionId,
    cancel: CancellationToken,
    job: impl Future<Output = Result<T, TerminalError>> + Send + 'static,
) -> Result<T, TerminalError> {
    let cancel_on_drop = cancel.drop_guard();
    let result = match tokio::runtime::Handle::try_current() {
        Ok(handle) => handle.spawn(job).await.unwrap_or_else(|join_error| {
            Err(TerminalError::new(
                TerminalErrorCode::Spawn,
                format!("spawning PTY session {id} failed unexpectedly: {join_error}"),
            ))
        }),
        Err(_) => job.await,
    };
    drop(cancel_on_drop.disarm());
    result
}

/// The lifecycle reason that forbids publishing the session, if any. Called under the lock.
fn abort_reason(
    st: &State,
    id: &SessionId,
    owner: &Agent,
    cancel: &CancellationToken,
) -> Option<TerminalError> {
    if let Some(reason) = st
        .pending
        .iter()
        .find(|p| p.id == *id)
        .and_then(|p| p.abort.clone())
    {
        return Some(reason);
    }
    if st.phase != Phase::Running {
        return Some(TerminalError::service_disposing());
    }
    let registered = st
        .owners
        .get(&owner.instance_key())
        .is_some_and(|e| e.agent == *owner);
    if !owner.is_live() || !registered {
        return Some(TerminalError::owner_not_live(owner.id()));
    }
    if cancel.is_cancelled() {
        return Some(TerminalError::new(
            TerminalErrorCode::Spawn,
            format!("opening PTY session {id} was cancelled by the caller"),
        ));
    }
    None
}

/// Keeps a settled spawn's pending record with its failure; releases the name.
fn retain_failure(
    st: &mut State,
    id: &SessionId,
    error: TerminalError,
    session: Option<Arc<dyn BackendSession>>,
) {
    if let Some(p) = st.pending.iter_mut().find(|p| p.id == *id) {
        p.name = None;
        // Something was left behind: count it as the owner's, like any failed spawn.
        p.warm = None;
        p.failure = Some(RetainedFailure { error, session });
    }
}
