//! The warm pool: after an open, the service starts one more session with the same owner,
//! backend type and requested working directory, unpublished; the next matching open takes it
//! instead of waiting for a process to start.
//!
//! A warm session is a normal spawn with its own minted id (so everything the backend derived
//! from the id, such as the shell's `DSH_PTY_SESSION_ID`, is right once it is taken), whose
//! pending record is marked warm. Until an open takes it, it is never listed, never reachable
//! by id, not counted against the owner's session cap and not owner activity (so it never
//! blocks the sandbox mode fence). A ready one waits in [`super::State::warm`].
//!
//! - **Take** (under the preflight lock, after every check of a cold open passed): a ready warm
//!   session becomes a pending spawn with the request's name and is published after a liveness
//!   check (one that exited while idle is closed and the open runs cold); a warm spawn still
//!   starting is claimed in place (its record takes the name and loses the warm mark) and the
//!   open awaits it, cancelling it if the caller goes away.
//! - **Refill**: every successful open starts the next warm session when the owner has none for
//!   those parameters, discarding its oldest other ones beyond [`Terminals::set_warm_sessions`].
//! - **Discard**: a discarded warm session is closed through the rollback path (its record
//!   stays pending until the close finished, so owner and service disposal wait for it). Owner
//!   and service disposal close ready ones with every other session and abort starting ones.
//! - **Failure**: a warm spawn that fails is dropped (debug log); the next open runs cold.

use std::path::PathBuf;
use std::sync::Arc;

use dsh_context::Agent;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::backend::BackendSession;
use crate::error::{TerminalError, TerminalErrorCode};
use crate::types::{
    BackendSpawnSpec, SessionId, SessionSnapshot, SessionStatus, SpawnRequest, SpawnResult,
};

use super::spawn::{Launch, PendingGuard, PreparedSpawn, push_pending};
use super::{Phase, State, Terminals, owner_activity, parse_id};

/// The open parameters a warm session must match to be taken (the name is display-only and
/// applied when it is taken).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct WarmKey {
    backend_type: String,
    cwd: Option<PathBuf>,
}

impl WarmKey {
    pub(super) fn of(request: &SpawnRequest) -> Self {
        Self {
            backend_type: request.backend_type.clone(),
            cwd: request.cwd.clone(),
        }
    }
}

/// A warm session at its first prompt that no open has taken yet.
pub(super) struct WarmSession {
    pub(super) id: SessionId,
    pub(super) owner: Agent,
    pub(super) key: WarmKey,
    pub(super) session: Arc<dyn BackendSession>,
}

/// A ready warm session taken by an open: published by [`Terminals::run_take`].
pub(super) struct WarmTake {
    pub(super) id: SessionId,
    pub(super) owner: Agent,
    pub(super) cancel: CancellationToken,
    backend_type: String,
    /// The requested working directory, checked again at take time.
    cwd: Option<PathBuf>,
    session: Arc<dyn BackendSession>,
    settled: watch::Sender<bool>,
}

/// A warm spawn still starting, claimed by an open that awaits it.
pub(super) struct ClaimedSpawn {
    id: SessionId,
    settled: watch::Receiver<bool>,
    cancel: CancellationToken,
}

/// A ready warm session being discarded: closed by [`Terminals::launch_discards`].
struct Discarded {
    id: SessionId,
    session: Arc<dyn BackendSession>,
    settled: watch::Sender<bool>,
}

impl Terminals {
    /// Keeps up to `count` warm sessions per owner (0, the default: none). After an owner's
    /// open succeeds, the service starts a session for the same owner, backend type and
    /// requested working directory in the background; the owner's next open with those
    /// parameters takes it (its name applied then) instead of starting a process. Warm
    /// sessions are never listed nor reachable by id, do not count against
    /// [`Terminals::set_max_sessions_per_owner`] or [`Terminals::has_owner_activity`], and are
    /// closed with their owner, with the service, and by
    /// [`Terminals::has_owner_activity_or_discard_warm`]. Needs a tokio runtime (without one,
    /// no warm session is started). A lower count applies to later refills; warm sessions
    /// already started stay until taken or closed with their owner.
    pub fn set_warm_sessions(&self, count: usize) {
        self.lock().warm_sessions = count;
    }

    /// Ready warm sessions of `owner` (started, waiting at their first prompt); none is ever
    /// visible in [`Terminals::list`].
    pub fn warm_session_count(&self, owner: &Agent) -> usize {
        self.lock()
            .warm
            .iter()
            .filter(|w| w.owner == *owner)
            .count()
    }

    /// How many opens were served by a warm session since the service was created.
    pub fn warm_sessions_taken(&self) -> u64 {
        self.lock().warm_taken
    }

    /// [`Terminals::has_owner_activity`], for a caller about to change what the owner's
    /// sessions are started with (the sandbox mode fence): when the owner has no activity, its
    /// warm sessions are stale and discarded (closed in the background) in the same critical
    /// section, so no warm session started before the change can be taken after it.
    pub fn has_owner_activity_or_discard_warm(&self, owner: &Agent) -> bool {
        let (discarded, runtime) = {
            let mut st = self.lock();
            if owner_activity(&st, owner) {
                return true;
            }
            let ids = warm_ids(&st, owner);
            (discard_locked(&mut st, &ids), st.runtime.clone())
        };
        self.launch_discards(discarded, runtime);
        false
    }

    /// Starts `owner`'s warm session for opens like `request` (its backend type and working
    /// directory; the name is ignored) before the owner's first open, so that open is served
    /// at once too. A host calls it when an agent connects. Does nothing when the pool is off
    /// ([`Terminals::set_warm_sessions`] 0), the service is disposing, the owner is disposed,
    /// no backend is registered for the type, there is no tokio runtime, or the owner already
    /// has a warm session for those parameters. A spawn failure is only logged (debug): the
    /// first open then runs cold and reports it.
    pub fn prewarm(&self, owner: &Agent, request: &SpawnRequest) {
        let Some(service) = self.this.upgrade() else {
            return;
        };
        {
            let mut st = self.lock();
            if st.warm_sessions == 0 || st.phase != Phase::Running {
                return;
            }
            if self.ensure_owner(&mut st, owner).is_err() {
                return;
            }
        }
        service.start_warm(owner, WarmKey::of(request));
    }

    /// Starts the owner's next warm session for `key` after a successful open, unless the pool
    /// is off or the owner already has one for `key`.
    pub(super) fn start_warm(self: &Arc<Self>, owner: &Agent, key: WarmKey) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (prepared, discarded) = {
            let mut st = self.lock();
            let max = st.warm_sessions;
            if max == 0 || st.phase != Phase::Running || !owner.is_live() {
                return;
            }
            let Some(owner_token) = st
                .owners
                .get(&owner.instance_key())
                .filter(|e| e.agent == *owner)
                .map(|e| e.cancel.clone())
            else {
                return;
            };
            let has_one = st.warm.iter().any(|w| w.owner == *owner && w.key == key)
                || st
                    .pending
                    .iter()
                    .any(|p| p.owner == *owner && takeable(p) && p.warm.as_ref() == Some(&key));
            if has_one {
                return;
            }
            let Some(backend) = st.backend(&key.backend_type) else {
                return;
            };
            // The oldest other warm sessions go, so the new one fits.
            let mut others = warm_ids(&st, owner);
            others.sort_by_key(|id| parse_id(id).unwrap_or(u64::MAX));
            let excess = (others.len() + 1).saturating_sub(max);
            others.truncate(excess);
            let discarded = discard_locked(&mut st, &others);

            let session_id = st.mint_id();
            let cancel = owner_token.child_token();
            let settled = push_pending(&mut st, &session_id, owner, None, &cancel);
            if let Some(p) = st.pending.last_mut() {
                p.warm = Some(key.clone());
            }
            st.runtime = Some(runtime.clone());
            let prepared = PreparedSpawn {
                backend,
                spec: BackendSpawnSpec {
                    cancel,
                    session_id,
                    owner_id: owner.id().to_owned(),
                    name: None,
                    cwd: key.cwd,
                },
                owner: owner.clone(),
                settled,
            };
            (prepared, discarded)
        };
        self.launch_discards(discarded, Some(runtime.clone()));
        let span = tracing::debug_span!(
            "pty_warm_spawn",
            session_id = %prepared.spec.session_id,
            owner = %owner.id()
        );
        drop(runtime.spawn(self.clone().run_spawn(prepared).instrument(span)));
    }

    /// Publishes a taken ready warm session, or closes it when its program exited while idle
    /// or its requested working directory is gone, also when one was made again under the same
    /// name after the shell entered the old one (`Ok(None)`: the open then runs cold, and
    /// fails as a cold open would). Runs detached, like a backend spawn.
    pub(super) async fn run_take(
        self: Arc<Self>,
        take: WarmTake,
    ) -> Result<Option<SpawnResult>, TerminalError> {
        let WarmTake {
            id,
            owner,
            cancel,
            backend_type,
            cwd,
            session,
            settled,
        } = take;
        let mut guard = PendingGuard {
            service: self.this.clone(),
            id: id.clone(),
            armed: true,
        };
        let usable = session.status() == SessionStatus::Running
            && cwd.as_deref().is_none_or(std::path::Path::is_dir)
            && !session.working_dir_gone();
        let result = if usable {
            let result = self
                .publish_or_roll_back(&id, &owner, &cancel, backend_type, session)
                .await;
            if result.is_ok() {
                self.lock().warm_taken += 1;
            }
            result.map(Some)
        } else {
            tracing::debug!("warm PTY session is stale; opening cold");
            let stale = TerminalError::new(
                TerminalErrorCode::Spawn,
                format!(
                    "warm PTY session {id} exited, or its working directory went away, before an open took it"
                ),
            );
            // A close failure stays retained for disposal to retry; the open still runs cold.
            let _ = self.roll_back(&id, session, stale).await;
            Ok(None)
        };
        guard.armed = false;
        settled.send_replace(true);
        result
    }

    /// Awaits a claimed warm spawn (cancelling it if the caller goes away) and returns the
    /// published session, or `None` when the spawn failed or was rolled back (the open then
    /// runs cold, and its preflight reports a lifecycle reason such as a disposed owner).
    pub(super) async fn await_claimed(
        &self,
        owner: &Agent,
        claimed: ClaimedSpawn,
    ) -> Result<Option<SpawnResult>, TerminalError> {
        let ClaimedSpawn {
            id,
            mut settled,
            cancel,
        } = claimed;
        let cancel_on_drop = cancel.drop_guard();
        // An error means the spawn task is gone, which also means it settled.
        let _ = settled.wait_for(|settled| *settled).await;
        drop(cancel_on_drop.disarm());
        let found = {
            let mut st = self.lock();
            let found = st
                .records
                .iter()
                .find(|r| r.id == id && r.owner == *owner)
                .map(|r| (r.name.clone(), r.backend_type.clone(), r.session.clone()));
            if found.is_some() {
                st.warm_taken += 1;
            }
            found
        };
        Ok(found.map(|(name, backend_type, session)| SpawnResult {
            snapshot: SessionSnapshot {
                session_id: id,
                name,
                backend_type,
                pid: session.pid(),
                status: session.status(),
            },
            motd: session.motd(),
        }))
    }

    /// Closes discarded ready warm sessions on `runtime` through the rollback path.
    fn launch_discards(&self, discarded: Vec<Discarded>, runtime: Option<tokio::runtime::Handle>) {
        if discarded.is_empty() {
            return;
        }
        let (Some(runtime), Some(service)) = (runtime, self.this.upgrade()) else {
            return;
        };
        for Discarded {
            id,
            session,
            settled,
        } in discarded
        {
            let service = service.clone();
            let span = tracing::debug_span!("pty_warm_discard", session_id = %id);
            drop(
                runtime.spawn(
                    async move {
                        let _ = service
                            .roll_back_keeping_id(&id, session, discarded_error(&id), true)
                            .await;
                        settled.send_replace(true);
                    }
                    .instrument(span),
                ),
            );
        }
    }
}

/// Takes a matching warm session of `owner` for `request`, if there is one. Called under the
/// lock after every preflight check passed.
pub(super) fn take_warm_locked(
    st: &mut State,
    owner: &Agent,
    request: &SpawnRequest,
    owner_token: &CancellationToken,
) -> Option<Launch> {
    let key = WarmKey::of(request);
    if let Some(index) = st
        .warm
        .iter()
        .position(|w| w.owner == *owner && w.key == key)
    {
        let warm = st.warm.remove(index);
        let cancel = owner_token.child_token();
        let settled = push_pending(st, &warm.id, owner, request.name.clone(), &cancel);
        return Some(Launch::Ready(WarmTake {
            id: warm.id,
            owner: warm.owner,
            cancel,
            backend_type: key.backend_type,
            cwd: key.cwd,
            session: warm.session,
            settled,
        }));
    }
    let pending = st
        .pending
        .iter_mut()
        .find(|p| p.owner == *owner && takeable(p) && p.warm.as_ref() == Some(&key))?;
    pending.warm = None;
    pending.name.clone_from(&request.name);
    Some(Launch::Starting(ClaimedSpawn {
        id: pending.id.clone(),
        settled: pending.settled.clone(),
        cancel: pending.cancel.clone(),
    }))
}

/// Whether a pending record is a warm spawn an open may still take.
fn takeable(p: &super::Pending) -> bool {
    p.warm.is_some() && p.abort.is_none() && p.failure.is_none()
}

/// Ids of `owner`'s warm sessions, ready or starting (not those being discarded).
fn warm_ids(st: &State, owner: &Agent) -> Vec<SessionId> {
    st.warm
        .iter()
        .filter(|w| w.owner == *owner)
        .map(|w| w.id.clone())
        .chain(
            st.pending
                .iter()
                .filter(|p| p.owner == *owner && takeable(p))
                .map(|p| p.id.clone()),
        )
        .collect()
}

/// Discards the warm sessions `ids`: a starting one is aborted (rolled back when it settles);
/// a ready one goes back to a pending record marked aborted and is returned to be closed.
/// Called under the lock.
fn discard_locked(st: &mut State, ids: &[SessionId]) -> Vec<Discarded> {
    for p in st.pending.iter_mut().filter(|p| ids.contains(&p.id)) {
        p.abort.get_or_insert_with(|| discarded_error(&p.id));
        p.cancel.cancel();
    }
    let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut st.warm)
        .into_iter()
        .partition(|w| ids.contains(&w.id));
    st.warm = kept;
    gone.into_iter()
        .map(|w| {
            let cancel = CancellationToken::new();
            cancel.cancel();
            let settled = push_pending(st, &w.id, &w.owner, None, &cancel);
            if let Some(p) = st.pending.last_mut() {
                p.warm = Some(w.key);
                p.abort = Some(discarded_error(&w.id));
            }
            Discarded {
                id: w.id,
                session: w.session,
                settled,
            }
        })
        .collect()
}

/// The (logged, never shown) reason a discarded warm session is rolled back with.
fn discarded_error(id: &SessionId) -> TerminalError {
    TerminalError::new(
        TerminalErrorCode::Spawn,
        format!("warm PTY session {id} was discarded"),
    )
}
