//! The `Terminals` service (seed-contract §2): owner-fenced PTY sessions over registered
//! backends.
//!
//! # Responsibilities
//!
//! - **Backend registry**: backends are keyed by their non-empty type; removing one never
//!   affects sessions it already created.
//! - **Ids**: `pty-N` from one per-service counter starting at 1, shared by every owner and
//!   backend, never reused. A spawn that fails in the backend still consumes its number;
//!   preflight rejections do not.
//! - **Exact-owner fencing**: every operation compares the stored [`Agent`] with the caller by
//!   instance (`==`), never by id or name. Another agent's id gets `FOREIGN_SESSION`, even when
//!   both agents carry the same id string.
//! - **Names**: optional display names, unique per owner across published sessions and spawns
//!   still in flight.
//! - **One active send per session**, reserved synchronously in [`Terminals::start_send`].
//! - **Close fences**: one close per session at a time; [`Terminals::kill`], owner cleanup and
//!   service disposal join a close that is already running. A failed close leaves the session
//!   listed so a later retry can close it.
//! - **Teardown that is awaited**: disposing an owner ([`Agent::dispose`]) or the service
//!   ([`Terminals::dispose`]) cancels pending spawns, waits for them to settle (and roll back),
//!   then closes every affected session and waits for the closes.
//!
//! # Spawn flow
//!
//! 1. Preflight, under the state lock: the service is not disposing (`SERVICE_DISPOSING`), the
//!    owner is live (`OWNER_NOT_LIVE`), the backend exists (`NO_BACKEND`), the name is non-empty
//!    (`INVALID_REQUEST`) and not used by a published or pending session of the owner
//!    (`DUPLICATE_NAME`).
//! 2. On the owner's first spawn, one owner cleanup is registered on the agent's scope. If the
//!    agent refuses it (already disposed) the spawn fails with `OWNER_NOT_LIVE`.
//! 3. The id is minted and a pending record reserves the name. Its cancellation token is a
//!    child of the owner's token, itself a child of the service token.
//! 4. The backend spawn runs on a detached task, so dropping the caller's future cancels the
//!    spawn (through the token) instead of abandoning a half-started session.
//! 5. When the backend resolves, under the lock: if the service is disposing, the owner is no
//!    longer live, or the spawn was cancelled, the new session is closed with
//!    [`CLOSE_REASON_ROLLBACK`] and the spawn fails with the lifecycle reason (which also wins
//!    over the backend's own error). Otherwise the session is published in the same critical
//!    section that drops the pending record, so there is no gap in
//!    [`Terminals::has_owner_activity`].
//! 6. If the rollback close fails (or the backend reports a cleanup failure), the pending record
//!    is kept with the failure: the owner still shows activity until owner or service disposal
//!    retries the close and reports the outcome.
//!
//! # Locking
//!
//! One [`parking_lot::Mutex`] guards all service state. It is never held across an `.await` nor
//! across a call into a backend (backends may call back into the service, e.g.
//! [`Terminals::has_owner_activity`]).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Weak};

use parking_lot::{Mutex, MutexGuard};

use dsh_context::{Agent, BoxError, Plugin, Registrar, ServiceKey};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::backend::{BackendSession, SendOperation, TerminalBackend};
use crate::error::{TerminalError, TerminalErrorCode};
use crate::types::{
    BackendSpawnSpec, CloseOutcome, CloseReport, ReadRequest, ReadResult, SendRequest, SessionId,
    SessionSnapshot, SignalResult, SpawnRequest, SpawnResult, TerminalSignal,
};

/// Close reason passed to the backend by [`Terminals::kill`].
pub const CLOSE_REASON_MODEL_REQUEST: &str = "model request";
/// Close reason used by owner cleanup when an [`Agent`] is disposed.
pub const CLOSE_REASON_OWNER_DISPOSED: &str = "PTY owner disposed";
/// Close reason used by [`Terminals::dispose`].
pub const CLOSE_REASON_SERVICE_DISPOSED: &str = "PTY service disposed";
/// Close reason for a session whose spawn resolved after it was cancelled.
pub const CLOSE_REASON_ROLLBACK: &str = "PTY spawn rolled back";

/// The package name of this crate's invariant companion.
const PACKAGE: &str = "dsh-terminal-core";
/// Prefix of every minted session id.
const ID_PREFIX: &str = "pty-";

/// The terminal service (seed-contract §2). Create with [`Terminals::new`] or provide it to a
/// [`dsh_context::Context`] with [`TerminalsPlugin`].
///
/// Every method is safe to call concurrently. Async methods must run inside a tokio runtime to
/// be cancel safe (without one, their work runs inline in the caller's future).
pub struct Terminals {
    /// Handle to the owning `Arc`, for detached tasks and owner-cleanup closures (which hold a
    /// `Weak`, so agents never keep the service alive).
    this: Weak<Terminals>,
    /// Parent of every owner token and therefore of every pending spawn's token.
    cancel: CancellationToken,
    state: Mutex<State>,
}

impl std::fmt::Debug for Terminals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.lock();
        f.debug_struct("Terminals")
            .field("phase", &st.phase)
            .field("last_id", &st.last_id)
            .field("sessions", &st.records.len())
            .field("pending", &st.pending.len())
            .finish()
    }
}

/// Lifecycle of the service itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Running,
    Disposing,
    Disposed,
}

struct State {
    phase: Phase,
    /// The last minted id number (0 before the first spawn).
    last_id: u64,
    /// Registration order.
    backends: Vec<Arc<dyn TerminalBackend>>,
    /// Published sessions in publication order.
    records: Vec<Record>,
    /// Spawns in flight, and settled spawns retained with a cleanup failure.
    pending: Vec<Pending>,
    /// Owners with a registered cleanup, by [`Agent::instance_key`]. The entry holds the agent,
    /// so the key cannot be reused by another agent while it is present.
    owners: HashMap<usize, OwnerEntry>,
    /// Owners whose cleanup is running.
    cleaning: HashSet<usize>,
    /// Distinguishes successive owner entries (a cleanup only acts on its own entry).
    next_owner_serial: u64,
}

#[derive(Debug)]
struct OwnerEntry {
    agent: Agent,
    serial: u64,
    /// Child of the service token; parent of this owner's pending spawn tokens.
    cancel: CancellationToken,
}

struct Record {
    id: SessionId,
    owner: Agent,
    name: Option<String>,
    backend_type: String,
    session: Arc<dyn BackendSession>,
    send: SendSlot,
    closing: Option<Arc<CloseFence>>,
}

impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Record")
            .field("id", &self.id)
            .field("owner", &self.owner)
            .field("name", &self.name)
            .field("backend_type", &self.backend_type)
            .field("closing", &self.closing.is_some())
            .finish()
    }
}

/// The session's send slot.
#[derive(Debug)]
enum SendSlot {
    Idle,
    /// A `start_send` is calling into the backend right now.
    Starting,
    /// The last started send; active until [`SendOperation::is_finished`].
    Started(SendOperation),
}

struct Pending {
    id: SessionId,
    owner: Agent,
    /// The name reservation; released (set to `None`) when the spawn settles.
    name: Option<String>,
    /// Lifecycle reason set by whoever cancelled the spawn (owner cleanup, service disposal).
    abort: Option<TerminalError>,
    /// Turns `true` (or closes) once the spawn has settled, rollback included.
    settled: watch::Receiver<bool>,
    /// Set when the spawn settled but left something behind.
    failure: Option<RetainedFailure>,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("id", &self.id)
            .field("owner", &self.owner)
            .field("name", &self.name)
            .field("abort", &self.abort)
            .field("failed", &self.failure.is_some())
            .finish()
    }
}

/// A settled spawn whose cleanup failed; disposal retries the close (when there is a session)
/// and reports the outcome.
struct RetainedFailure {
    error: TerminalError,
    session: Option<Arc<dyn BackendSession>>,
}

/// A close in flight, shared by every caller that joins it.
#[derive(Debug)]
struct CloseFence {
    outcome: watch::Receiver<Option<Result<CloseReport, TerminalError>>>,
}

impl CloseFence {
    /// Waits for the close to finish.
    async fn wait(&self, id: &SessionId) -> Result<CloseReport, TerminalError> {
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
struct CloseJob {
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
    async fn launch(self) {
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

/// Everything preflight prepared for one spawn.
struct PreparedSpawn {
    backend: Arc<dyn TerminalBackend>,
    spec: BackendSpawnSpec,
    owner: Agent,
    settled: watch::Sender<bool>,
}

/// Removes a pending record if the spawn task is dropped before it settles (runtime shutdown,
/// or the inline path when the caller's future is dropped).
struct PendingGuard {
    service: Weak<Terminals>,
    id: SessionId,
    armed: bool,
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

/// Resets a `Starting` send slot if the backend's `start_send` unwinds.
struct SendSlotGuard<'a> {
    service: &'a Terminals,
    id: &'a SessionId,
    armed: bool,
}

impl Drop for SendSlotGuard<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let mut st = self.service.lock();
        if let Some(rec) = st.records.iter_mut().find(|r| r.id == *self.id)
            && matches!(rec.send, SendSlot::Starting)
        {
            rec.send = SendSlot::Idle;
        }
    }
}

impl Terminals {
    /// Creates an empty service (no backends, no sessions).
    pub fn new() -> Arc<Self> {
        Arc::new_cyclic(|this| Self {
            this: this.clone(),
            cancel: CancellationToken::new(),
            state: Mutex::new(State {
                phase: Phase::Running,
                last_id: 0,
                backends: Vec::new(),
                records: Vec::new(),
                pending: Vec::new(),
                owners: HashMap::new(),
                cleaning: HashSet::new(),
                next_owner_serial: 0,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock()
    }

    /// Registers a backend under its [`TerminalBackend::backend_type`].
    ///
    /// # Errors
    /// - `InvalidRequest` when the type is empty.
    /// - `DuplicateBackend` when a backend of that type is already registered.
    pub fn register_backend(&self, backend: Arc<dyn TerminalBackend>) -> Result<(), TerminalError> {
        let backend_type = backend.backend_type().to_owned();
        if backend_type.is_empty() {
            return Err(TerminalError::invalid("pty backend type must be non-empty"));
        }
        let mut st = self.lock();
        if st.backends.iter().any(|b| b.backend_type() == backend_type) {
            return Err(TerminalError::new(
                TerminalErrorCode::DuplicateBackend,
                format!(
                    "a PTY backend of type {backend_type:?} is already registered; unregister it first"
                ),
            ));
        }
        st.backends.push(backend);
        tracing::debug!(%backend_type, "registered PTY backend");
        Ok(())
    }

    /// Removes the backend registered under `backend_type` (no-op when absent). Sessions it
    /// already created stay published and keep working.
    pub fn unregister_backend(&self, backend_type: &str) {
        let mut st = self.lock();
        st.backends.retain(|b| b.backend_type() != backend_type);
    }

    /// Registered backend types, in registration order.
    pub fn backend_types(&self) -> Vec<String> {
        let st = self.lock();
        st.backends
            .iter()
            .map(|b| b.backend_type().to_owned())
            .collect()
    }

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
    /// - The backend's error (usually `Spawn`; `Cleanup` when its setup left processes behind).
    /// - `Cleanup` when the session had to be rolled back and the rollback close failed.
    ///
    /// # Cancel safety
    /// Cancel safe. Dropping the future cancels the backend spawn (through
    /// [`BackendSpawnSpec::cancel`]); a session that still comes up is closed with
    /// [`CLOSE_REASON_ROLLBACK`] in the background. The id stays consumed.
    pub async fn spawn(
        &self,
        owner: &Agent,
        request: SpawnRequest,
    ) -> Result<SpawnResult, TerminalError> {
        let Some(service) = self.this.upgrade() else {
            return Err(TerminalError::service_disposing());
        };
        let prepared = self.prepare_spawn(owner, request)?;
        let id = prepared.spec.session_id.clone();
        let span = tracing::info_span!("pty_spawn", session_id = %id, owner = %owner.id());
        let cancel_on_drop = prepared.spec.cancel.clone().drop_guard();
        let job = service.run_spawn(prepared).instrument(span);
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

    /// Steps 1–3 of the spawn flow, under the lock.
    fn prepare_spawn(
        &self,
        owner: &Agent,
        request: SpawnRequest,
    ) -> Result<PreparedSpawn, TerminalError> {
        let mut st = self.lock();
        if st.phase != Phase::Running {
            return Err(TerminalError::service_disposing());
        }
        if !owner.is_live() {
            return Err(TerminalError::owner_not_live(owner.id()));
        }
        let Some(backend) = st
            .backends
            .iter()
            .find(|b| b.backend_type() == request.backend_type)
            .cloned()
        else {
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
            if st
                .records
                .iter()
                .any(|r| r.owner == *owner && r.name.as_ref() == Some(name))
            {
                return Err(TerminalError::new(
                    TerminalErrorCode::DuplicateName,
                    format!(
                        "PTY session name {name:?} already exists for this owner; pick another name or use that session"
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
        let owner_token = self.ensure_owner(&mut st, owner)?;

        st.last_id += 1;
        let session_id = SessionId::new(format!("{ID_PREFIX}{}", st.last_id));
        let cancel = owner_token.child_token();
        let (settled_tx, settled_rx) = watch::channel(false);
        st.pending.push(Pending {
            id: session_id.clone(),
            owner: owner.clone(),
            name: request.name.clone(),
            abort: None,
            settled: settled_rx,
            failure: None,
        });
        Ok(PreparedSpawn {
            backend,
            spec: BackendSpawnSpec {
                cancel,
                session_id,
                owner_id: owner.id().to_owned(),
                name: request.name,
                cwd: request.cwd,
            },
            owner: owner.clone(),
            settled: settled_tx,
        })
    }

    /// Returns the owner's token, registering the owner cleanup on first use.
    fn ensure_owner(
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

    /// Steps 4–6 of the spawn flow (runs detached).
    async fn run_spawn(
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
        let name = spec.name.clone();
        let backend_type = backend.backend_type().to_owned();
        let mut guard = PendingGuard {
            service: self.this.clone(),
            id: id.clone(),
            armed: true,
        };

        let outcome = backend.spawn(spec).await;
        let result = match outcome {
            Ok(session) => {
                let motd = session.motd();
                let snapshot = SessionSnapshot {
                    session_id: id.clone(),
                    name: name.clone(),
                    backend_type: backend_type.clone(),
                    pid: session.pid(),
                    status: session.status(),
                };
                let abort = {
                    let mut st = self.lock();
                    let abort = abort_reason(&st, &id, &owner, &cancel);
                    if abort.is_none() {
                        st.pending.retain(|p| p.id != id);
                        st.records.push(Record {
                            id: id.clone(),
                            owner: owner.clone(),
                            name,
                            backend_type,
                            session: session.clone(),
                            send: SendSlot::Idle,
                            closing: None,
                        });
                    }
                    abort
                };
                match abort {
                    None => {
                        tracing::info!(pid = ?snapshot.pid, "published PTY session");
                        Ok(SpawnResult { snapshot, motd })
                    }
                    Some(reason) => self.roll_back(&id, session, reason).await,
                }
            }
            Err(error) => {
                let mut st = self.lock();
                let failure =
                    abort_reason(&st, &id, &owner, &cancel).unwrap_or_else(|| error.clone());
                tracing::warn!(%error, "backend spawn failed");
                if error.code() == TerminalErrorCode::Cleanup {
                    retain_failure(&mut st, &id, error, None);
                } else {
                    st.pending.retain(|p| p.id != id);
                }
                Err(failure)
            }
        };
        guard.armed = false;
        settled.send_replace(true);
        result
    }

    /// Closes a session that came up after its spawn was cancelled.
    async fn roll_back(
        &self,
        id: &SessionId,
        session: Arc<dyn BackendSession>,
        reason: TerminalError,
    ) -> Result<SpawnResult, TerminalError> {
        tracing::info!(%reason, "rolling back PTY spawn");
        match session.close(CLOSE_REASON_ROLLBACK.to_owned()).await {
            Ok(_) => {
                self.lock().pending.retain(|p| p.id != *id);
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

    /// Starts a send on one of the owner's sessions. The send slot is reserved before this
    /// returns; await [`SendOperation::done`] for the result.
    ///
    /// # Errors
    /// - `NoSession` for an unknown id, `ForeignSession` for another owner's session.
    /// - `Closing` while the session is being closed.
    /// - `SendActive` while the previous send has not finished.
    /// - The backend's error (`SendActive`, `Closing`, `Exited`, `Transport`).
    pub fn start_send(
        &self,
        owner: &Agent,
        id: &SessionId,
        request: SendRequest,
    ) -> Result<SendOperation, TerminalError> {
        let session = {
            let mut st = self.lock();
            let rec = find_owned(&mut st.records, owner, id)?;
            if rec.closing.is_some() {
                return Err(TerminalError::closing(id));
            }
            match &rec.send {
                SendSlot::Starting => return Err(TerminalError::send_active(id)),
                SendSlot::Started(op) if !op.is_finished() => {
                    return Err(TerminalError::send_active(id));
                }
                SendSlot::Idle | SendSlot::Started(_) => {}
            }
            rec.send = SendSlot::Starting;
            rec.session.clone()
        };
        let mut guard = SendSlotGuard {
            service: self,
            id,
            armed: true,
        };
        let result = session.start_send(request);
        guard.armed = false;
        let mut st = self.lock();
        if let Some(rec) = st.records.iter_mut().find(|r| r.id == *id) {
            rec.send = match &result {
                Ok(op) => SendSlot::Started(op.clone()),
                Err(_) => SendSlot::Idle,
            };
        }
        if let Err(error) = &result {
            tracing::debug!(session_id = %id, owner = %owner.id(), %error, "PTY send rejected");
        }
        result
    }

    /// Reads a scrollback page of one of the owner's sessions. Allowed while closing.
    ///
    /// # Errors
    /// - `NoSession` for an unknown id, `ForeignSession` for another owner's session.
    /// - The backend's error (`InvalidRequest` for a zero count).
    pub fn read(
        &self,
        owner: &Agent,
        id: &SessionId,
        request: ReadRequest,
    ) -> Result<ReadResult, TerminalError> {
        let session = self.owned_session(owner, id)?;
        session.read(request)
    }

    /// Signals the foreground process group of one of the owner's sessions.
    ///
    /// # Errors
    /// - `NoSession` for an unknown id, `ForeignSession` for another owner's session.
    /// - The backend's error (`Closing`, `Signal`).
    pub fn signal(
        &self,
        owner: &Agent,
        id: &SessionId,
        signal: TerminalSignal,
    ) -> Result<SignalResult, TerminalError> {
        let session = self.owned_session(owner, id)?;
        tracing::debug!(session_id = %id, owner = %owner.id(), %signal, "signalling PTY session");
        session.signal(signal)
    }

    /// Closes one of the owner's sessions with reason [`CLOSE_REASON_MODEL_REQUEST`] and waits
    /// until its processes are gone. On success the session is no longer listed.
    ///
    /// Returns [`CloseOutcome::AlreadyClosing`] (after waiting for it) when another close of
    /// the session was already in flight.
    ///
    /// # Errors
    /// - `NoSession` for an unknown id, `ForeignSession` for another owner's session.
    /// - The backend's close error (usually `Cleanup`), also when joining a close that fails.
    ///   The session then stays listed, so the close can be retried.
    ///
    /// # Cancel safety
    /// Cancel safe: the close runs on its own task; dropping the future only stops waiting.
    pub async fn kill(&self, owner: &Agent, id: &SessionId) -> Result<CloseOutcome, TerminalError> {
        let (fence, job) = {
            let mut st = self.lock();
            let rec = find_owned(&mut st.records, owner, id)?;
            match &rec.closing {
                Some(fence) => (fence.clone(), None),
                None => {
                    let job = self.begin_close(rec, CLOSE_REASON_MODEL_REQUEST);
                    (job.fence.clone(), Some(job))
                }
            }
        };
        match job {
            Some(job) => {
                job.launch().await;
                fence.wait(id).await.map(CloseOutcome::Closed)
            }
            None => fence.wait(id).await.map(|_| CloseOutcome::AlreadyClosing),
        }
    }

    /// Snapshots of `owner`'s sessions in creation (id) order (closing ones included); status and
    /// pid are read live from the backend.
    pub fn list(&self, owner: &Agent) -> Vec<SessionSnapshot> {
        let mut items: Vec<_> = {
            let st = self.lock();
            st.records
                .iter()
                .filter(|r| r.owner == *owner)
                .map(|r| {
                    (
                        r.id.clone(),
                        r.name.clone(),
                        r.backend_type.clone(),
                        r.session.clone(),
                    )
                })
                .collect()
        };
        // Creation order (the id counter), even when concurrent opens were published out of
        // order.
        items.sort_by_key(|(id, ..)| id_ordinal(id));
        items
            .into_iter()
            .map(
                |(session_id, name, backend_type, session)| SessionSnapshot {
                    session_id,
                    name,
                    backend_type,
                    pid: session.pid(),
                    status: session.status(),
                },
            )
            .collect()
    }

    /// Whether `owner` has a published session, a spawn in flight, or a spawn whose cleanup
    /// failure has not yet been consumed by owner or service disposal. There is no gap between
    /// a spawn in flight and its publication.
    pub fn has_owner_activity(&self, owner: &Agent) -> bool {
        let st = self.lock();
        st.records.iter().any(|r| r.owner == *owner) || st.pending.iter().any(|p| p.owner == *owner)
    }

    /// Number of published sessions (all owners, closing ones included).
    pub fn session_count(&self) -> usize {
        self.lock().records.len()
    }

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
        let waits: Vec<watch::Receiver<bool>> = {
            let mut st = self.lock();
            if st.phase == Phase::Running {
                st.phase = Phase::Disposing;
                tracing::info!(
                    sessions = st.records.len(),
                    pending = st.pending.len(),
                    "disposing PTY service"
                );
            }
            st.pending
                .iter_mut()
                .filter(|p| p.failure.is_none())
                .map(|p| {
                    p.abort.get_or_insert_with(TerminalError::service_disposing);
                    p.settled.clone()
                })
                .collect()
        };
        self.cancel.cancel();
        wait_settled(waits).await;

        let (jobs, fences, retained) = {
            let mut st = self.lock();
            let mut jobs = Vec::new();
            let mut fences = Vec::new();
            for rec in &mut st.records {
                fences.push((
                    rec.id.clone(),
                    self.fence_for(rec, CLOSE_REASON_SERVICE_DISPOSED, &mut jobs),
                ));
            }
            let retained = take_retained(&mut st, |_| true);
            (jobs, fences, retained)
        };
        let failures = close_all(jobs, fences, retained, CLOSE_REASON_SERVICE_DISPOSED).await;

        {
            let mut st = self.lock();
            st.backends.clear();
            st.owners.clear();
            st.phase = Phase::Disposed;
        }
        match aggregate(&failures) {
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

    /// Owner cleanup, registered on the agent's scope (seed-contract §2.10).
    async fn owner_cleanup(&self, key: usize, serial: u64) {
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
            let waits: Vec<_> = st
                .pending
                .iter_mut()
                .filter(|p| p.owner == entry.agent && p.failure.is_none())
                .map(|p| {
                    let reason = TerminalError::owner_not_live(entry.agent.id());
                    p.abort.get_or_insert(reason);
                    p.settled.clone()
                })
                .collect();
            entry.cancel.cancel();
            (entry.agent, waits)
        };
        let span = tracing::info_span!("pty_owner_cleanup", owner = %owner.id());
        async {
            wait_settled(waits).await;
            let (jobs, fences, retained) = {
                let mut st = self.lock();
                let mut jobs = Vec::new();
                let mut fences = Vec::new();
                for rec in st.records.iter_mut().filter(|r| r.owner == owner) {
                    fences.push((
                        rec.id.clone(),
                        self.fence_for(rec, CLOSE_REASON_OWNER_DISPOSED, &mut jobs),
                    ));
                }
                let retained = take_retained(&mut st, |p| p.owner == owner);
                (jobs, fences, retained)
            };
            let failures = close_all(jobs, fences, retained, CLOSE_REASON_OWNER_DISPOSED).await;
            if let Some(error) = aggregate(&failures) {
                tracing::error!(%error, "PTY owner cleanup failed");
            } else {
                tracing::debug!("PTY owner cleanup finished");
            }
        }
        .instrument(span)
        .await;
        self.lock().cleaning.remove(&key);
    }

    /// The record's current close fence, or a new close with `reason` (its job is pushed onto
    /// `jobs`). Called under the lock.
    fn fence_for(
        &self,
        rec: &mut Record,
        reason: &'static str,
        jobs: &mut Vec<CloseJob>,
    ) -> Arc<CloseFence> {
        if let Some(fence) = &rec.closing {
            return fence.clone();
        }
        let job = self.begin_close(rec, reason);
        let fence = job.fence.clone();
        jobs.push(job);
        fence
    }

    /// Installs a new close fence on the record and returns the job that will resolve it.
    /// Called under the lock.
    fn begin_close(&self, rec: &mut Record, reason: &'static str) -> CloseJob {
        let (tx, rx) = watch::channel(None);
        let fence = Arc::new(CloseFence { outcome: rx });
        rec.closing = Some(fence.clone());
        CloseJob {
            service: self.this.clone(),
            id: rec.id.clone(),
            owner_id: rec.owner.id().to_owned(),
            reason,
            session: rec.session.clone(),
            fence,
            tx,
        }
    }

    fn owned_session(
        &self,
        owner: &Agent,
        id: &SessionId,
    ) -> Result<Arc<dyn BackendSession>, TerminalError> {
        let mut st = self.lock();
        Ok(find_owned(&mut st.records, owner, id)?.session.clone())
    }

    /// Checks the service's observable state; `Err` lists every violation, joined by `; `.
    ///
    /// Checked: every session id (published or pending) is `pty-N` with `1 <= N <= counter`
    /// and unique; names are unique per owner; every published or pending session's owner has
    /// a registered cleanup or its cleanup is running (a session that outlived its owner's
    /// finished cleanup is a leak); after disposal nothing remains; every owner entry is keyed
    /// by its own agent.
    ///
    /// # Errors
    /// A message naming every violated invariant.
    pub fn check_invariants(&self) -> Result<(), String> {
        let st = self.lock();
        let mut problems = Vec::new();
        let mut ids = HashSet::new();
        let mut names = HashSet::new();
        let entries = st
            .records
            .iter()
            .map(|r| (&r.id, &r.owner, r.name.as_ref(), "session"))
            .chain(
                st.pending
                    .iter()
                    .map(|p| (&p.id, &p.owner, p.name.as_ref(), "pending spawn")),
            );
        for (id, owner, name, kind) in entries {
            match parse_id(id) {
                Some(n) if n >= 1 && n <= st.last_id => {}
                _ => problems.push(format!(
                    "{kind} id {id} is not pty-N with 1 <= N <= {}",
                    st.last_id
                )),
            }
            if !ids.insert(id.clone()) {
                problems.push(format!("{kind} id {id} appears twice"));
            }
            if let Some(name) = name
                && !names.insert((owner.instance_key(), name.clone()))
            {
                problems.push(format!(
                    "name {name:?} is used twice by owner {:?}",
                    owner.id()
                ));
            }
            let key = owner.instance_key();
            let covered = st.owners.get(&key).is_some_and(|e| e.agent == *owner)
                || st.cleaning.contains(&key);
            match st.phase {
                Phase::Running if !covered && !owner.is_live() => problems.push(format!(
                    "{kind} {id} outlived the cleanup of its disposed owner {:?}",
                    owner.id()
                )),
                Phase::Running if !covered => problems.push(format!(
                    "{kind} {id} has no owner cleanup registered for owner {:?}",
                    owner.id()
                )),
                Phase::Disposed => {
                    problems.push(format!("{kind} {id} survived service disposal"));
                }
                Phase::Running | Phase::Disposing => {}
            }
        }
        for (key, entry) in &st.owners {
            if entry.agent.instance_key() != *key {
                problems.push(format!(
                    "owner entry for {:?} is filed under another agent",
                    entry.agent.id()
                ));
            }
        }
        if st.phase == Phase::Disposed && !st.backends.is_empty() {
            problems.push("backends are still registered after service disposal".to_owned());
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }
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
        p.failure = Some(RetainedFailure { error, session });
    }
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

/// Finds a published session and checks the exact owner.
fn find_owned<'a>(
    records: &'a mut [Record],
    owner: &Agent,
    id: &SessionId,
) -> Result<&'a mut Record, TerminalError> {
    let rec = records
        .iter_mut()
        .find(|r| r.id == *id)
        .ok_or_else(|| TerminalError::no_session(id))?;
    if rec.owner != *owner {
        return Err(TerminalError::foreign_session(id));
    }
    Ok(rec)
}

fn parse_id(id: &SessionId) -> Option<u64> {
    let n: u64 = id.as_str().strip_prefix(ID_PREFIX)?.parse().ok()?;
    (format!("{ID_PREFIX}{n}") == id.as_str()).then_some(n)
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

/// Provides [`Terminals`] (as `Arc<Terminals>`) and disposes it with the context.
#[derive(Clone, Copy, Debug, Default)]
pub struct TerminalsPlugin;

impl Plugin for TerminalsPlugin {
    fn name(&self) -> &str {
        "terminals"
    }
    fn provides(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<Terminals>()]
    }
    fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
        let terminals = Terminals::new();
        r.provide(terminals.clone());
        let weak = Arc::downgrade(&terminals);
        r.on_dispose(move || {
            Box::pin(async move {
                if let Some(terminals) = weak.upgrade()
                    && let Err(error) = terminals.dispose().await
                {
                    tracing::error!(%error, "disposing the terminals service failed");
                }
            })
        });
        Ok(())
    }
}

/// This crate's invariant companion (package `dsh-terminal-core`): runs
/// [`Terminals::check_invariants`] on the context's [`Terminals`] service, when present.
pub fn invariant_companion() -> dsh_invariants::Companion {
    dsh_invariants::Companion::check(PACKAGE, |ctx| match ctx.get::<Terminals>() {
        Some(terminals) => terminals.check_invariants(),
        None => Ok(()),
    })
}

// Other crates hold the service in an `Arc` shared across tasks.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Terminals>();
};

/// The `N` of a `pty-N` id (ids this service minted always parse).
fn id_ordinal(id: &SessionId) -> u64 {
    id.as_str()
        .strip_prefix("pty-")
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX)
}
