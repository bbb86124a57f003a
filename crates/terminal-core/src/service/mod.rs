//! The `Terminals` service (the seed's §2): owner-fenced PTY sessions over registered
//! backends.
//!
//! # Responsibilities
//!
//! - **Backend registry**: backends are keyed by their non-empty type; removing one never
//!   affects sessions it already created.
//! - **Ids**: `pty-N` from one per-service counter starting at 1, shared by every owner and
//!   backend. A published id is never reused. A spawn that fails (in the backend, or rolled
//!   back after a cancellation) gives its number back, and the next spawn takes the smallest
//!   number given back, so the ids a model sees stay consecutive; preflight rejections take
//!   none. A discarded warm session keeps its number (the open that discarded it already took
//!   a later one): ids never go backwards.
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
//! - **Warm pool** (off unless [`Terminals::set_warm_sessions`]): after an open, one more
//!   session for the same owner, backend type and requested cwd starts in the background,
//!   unpublished; the next matching open takes it (step 3) instead of starting a process.
//!
//! # Spawn flow
//!
//! 1. Preflight, under the state lock: the service is not disposing (`SERVICE_DISPOSING`), the
//!    owner is live (`OWNER_NOT_LIVE`), the backend exists (`NO_BACKEND`), the name is non-empty
//!    (`INVALID_REQUEST`) and not used by a published or pending session of the owner
//!    (`DUPLICATE_NAME`), and the owner is under its session cap, if one is set
//!    (`SESSION_LIMIT`).
//! 2. On the owner's first spawn, one owner cleanup is registered on the agent's scope. If the
//!    agent refuses it (already disposed) the spawn fails with `OWNER_NOT_LIVE`.
//! 3. A matching warm session of the owner is taken, if there is one (see `warm.rs`). Else
//!    the id is minted and a pending record reserves the name. Its cancellation token is a
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
//!
//! # Files
//! `mod.rs`: the service and its state; `calls.rs`: the per-session calls (send, read, signal,
//! kill, list); `spawn.rs`: the spawn flow;
//! `teardown.rs`: close fences and the one teardown path shared by [`Terminals::kill`], owner
//! cleanup and [`Terminals::dispose`]; `warm.rs`: the warm pool; `invariants.rs`:
//! [`Terminals::check_invariants`].

mod calls;
mod invariants;
mod spawn;
mod teardown;
mod warm;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Weak};

use parking_lot::{Mutex, MutexGuard};

use dsh_context::{Agent, BoxError, Plugin, Registrar, ServiceKey};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::backend::{BackendSession, SendOperation, TerminalBackend};
use crate::error::{TerminalError, TerminalErrorCode};
use crate::types::SessionId;

use teardown::CloseFence;
use warm::{WarmKey, WarmSession};

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

/// Whether `text` has the shape of a session id: [`ID_PREFIX`] and a number (`pty-3`).
fn is_session_id_shaped(text: &str) -> bool {
    text.strip_prefix(ID_PREFIX)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The terminal service (the seed's §2). Create with [`Terminals::new`] or provide it to a
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
            .field("warm", &st.warm.len())
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
    /// Numbers up to `last_id` that failed spawns gave back; minted again first.
    returned_ids: BTreeSet<u64>,
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
    /// Most sessions (published or being spawned) one owner may have; `None`: no cap.
    max_sessions_per_owner: Option<usize>,
    /// Warm sessions: started, at their first prompt, not yet taken by an open (never listed,
    /// never reachable by id).
    warm: Vec<WarmSession>,
    /// Most warm sessions (ready or starting) kept per owner; 0: no warm pool.
    warm_sessions: usize,
    /// Opens served by a warm session.
    warm_taken: u64,
    /// The runtime warm sessions were started on (their discards are closed on it).
    runtime: Option<tokio::runtime::Handle>,
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
    /// `Some` for a warm spawn no open has taken yet (also while a discarded warm session is
    /// being closed): not counted against the cap nor as owner activity.
    warm: Option<WarmKey>,
    /// The spawn's cancellation token (a child of the owner's token).
    cancel: CancellationToken,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("id", &self.id)
            .field("owner", &self.owner)
            .field("name", &self.name)
            .field("abort", &self.abort)
            .field("failed", &self.failure.is_some())
            .field("warm", &self.warm)
            .finish()
    }
}

/// A settled spawn whose cleanup failed; disposal retries the close (when there is a session)
/// and reports the outcome.
struct RetainedFailure {
    error: TerminalError,
    session: Option<Arc<dyn BackendSession>>,
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
                returned_ids: BTreeSet::new(),
                backends: Vec::new(),
                records: Vec::new(),
                pending: Vec::new(),
                owners: HashMap::new(),
                cleaning: HashSet::new(),
                next_owner_serial: 0,
                max_sessions_per_owner: None,
                warm: Vec::new(),
                warm_sessions: 0,
                warm_taken: 0,
                runtime: None,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock()
    }

    /// Caps the sessions one owner may have at once, counting published sessions and spawns in
    /// flight (`None`, the default: no cap). A spawn over the cap fails with `SessionLimit`;
    /// sessions already open are never closed by a lower cap.
    pub fn set_max_sessions_per_owner(&self, max: Option<usize>) {
        self.lock().max_sessions_per_owner = max;
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

    /// Whether `owner` has a published session, a spawn in flight, or a spawn whose cleanup
    /// failure has not yet been consumed by owner or service disposal. There is no gap between
    /// a spawn in flight and its publication. Warm sessions (see
    /// [`Terminals::set_warm_sessions`]) are not activity.
    pub fn has_owner_activity(&self, owner: &Agent) -> bool {
        owner_activity(&self.lock(), owner)
    }

    /// Number of published sessions (all owners, closing ones included).
    pub fn session_count(&self) -> usize {
        self.lock().records.len()
    }
}

/// See [`Terminals::has_owner_activity`]. Called under the lock.
fn owner_activity(st: &State, owner: &Agent) -> bool {
    st.records.iter().any(|r| r.owner == *owner)
        || st
            .pending
            .iter()
            .any(|p| p.owner == *owner && p.warm.is_none())
}

/// Finds a published session and checks the exact owner.
fn find_owned<'a>(
    records: &'a mut [Record],
    owner: &Agent,
    id: &SessionId,
) -> Result<&'a mut Record, TerminalError> {
    let Some(i) = records.iter().position(|r| r.id == *id) else {
        // A model may pass a session's name where its id goes: say which id it is (only for
        // the caller's own sessions).
        let named = records
            .iter()
            .find(|r| r.owner == *owner && r.name.as_deref() == Some(id.as_str()));
        return Err(match named {
            Some(r) => TerminalError::name_not_id(id.as_str(), &r.id),
            None if !is_session_id_shaped(id.as_str()) => {
                TerminalError::not_a_session_id(id, ID_PREFIX)
            }
            None => TerminalError::no_session(id),
        });
    };
    let rec = &mut records[i];
    if rec.owner != *owner {
        return Err(TerminalError::foreign_session(id));
    }
    Ok(rec)
}

impl State {
    /// The backend registered under `backend_type`.
    fn backend(&self, backend_type: &str) -> Option<Arc<dyn TerminalBackend>> {
        self.backends
            .iter()
            .find(|b| b.backend_type() == backend_type)
            .cloned()
    }

    /// A new session id: the smallest number a failed spawn gave back, else the next one.
    fn mint_id(&mut self) -> SessionId {
        let n = self.returned_ids.pop_first().unwrap_or_else(|| {
            self.last_id += 1;
            self.last_id
        });
        SessionId::new(format!("{ID_PREFIX}{n}"))
    }

    /// Gives back the id of a spawn that failed before it was published.
    fn return_id(&mut self, id: &SessionId) {
        if let Some(n) = parse_id(id)
            && n <= self.last_id
        {
            self.returned_ids.insert(n);
        }
    }
}

/// The `N` of a `pty-N` id this service minted (`None` for anything else).
fn parse_id(id: &SessionId) -> Option<u64> {
    let n: u64 = id.as_str().strip_prefix(ID_PREFIX)?.parse().ok()?;
    (format!("{ID_PREFIX}{n}") == id.as_str()).then_some(n)
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
