//! [`AgentSessions`]: rmcp's in-memory session manager with one [`Agent`] per MCP session.
//!
//! Every way a session ends takes it out of the live map and disposes its agent (its jobs
//! stopped, its terminals closed with every process they started) exactly once, whichever
//! comes first: an HTTP `DELETE` ([`SessionManager::close_session`], which rmcp also calls when
//! a session's serve loop ends), idle expiry, server shutdown ([`AgentSessions::close_all`]).
//! A `DELETE` is answered only once the teardown finished.
//!
//! Idle expiry is ours, not rmcp's (whose keep-alive counts only messages, so it ended a session
//! while a long tool call was still running): the front marks each request of a session with a
//! [`RequestGuard`] while it is served (a POST until its whole answer was sent), and a session is
//! idle only with no request in flight, no tool call of it running (one whose client dropped the
//! connection goes on) and no background job of its agent running; it expires once it has been
//! idle for the timeout since the last of them ended. Taking it out
//! of the live map happens under the same lock as starting a request, so a request either
//! finds its session live for its whole duration, or finds it gone (404 from the front).
//!
//! The agent reaches the handler with each message: [`SessionTransport`] tags every incoming
//! request and notification with the session's [`SessionAgent`] (rmcp moves message extensions
//! into the handler's request context).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use dsh_context::{Agent, Context};
use dsh_jobs::JobRegistry;
use futures_core::Stream;
use parking_lot::Mutex;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions as _, ServerJsonRpcMessage};

use super::unanswered::AnswerOrEnd;
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionError,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument as _;

/// The agent of the MCP session a message arrived on, as the handler sees it.
#[derive(Clone, Debug)]
pub(crate) struct SessionAgent {
    /// The session's agent (`http-<n>`).
    pub(crate) agent: Agent,
    /// The session's `Mcp-Session-Id` (for logs).
    pub(crate) session_id: SessionId,
    /// Cancelled when the session closes (stops the session's notice forwarder).
    pub(crate) closed: CancellationToken,
    /// Tool calls of the session the handler is running ([`SessionAgent::call_running`]):
    /// one keeps the session from idling out even after its client dropped the connection
    /// (the call goes on, and a command it started with it).
    calls_running: Arc<AtomicU64>,
    /// The session's tool calls being run, told when their answers are lost.
    pub(crate) lost_answers: super::unanswered::LostAnswers,
}

impl SessionAgent {
    /// Counts a tool call as running until the returned guard is dropped.
    pub(crate) fn call_running(&self) -> CallRunning {
        self.calls_running.fetch_add(1, Ordering::AcqRel);
        CallRunning(Arc::clone(&self.calls_running))
    }

    /// Whether a tool call of the session is running.
    fn runs_a_call(&self) -> bool {
        self.calls_running.load(Ordering::Acquire) > 0
    }
}

/// A tool call of an HTTP session being run (see [`SessionAgent::call_running`]).
pub(crate) struct CallRunning(Arc<AtomicU64>);

impl Drop for CallRunning {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Why a session could not be created or served.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionsError {
    /// rmcp's session manager failed.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    /// The server already serves its maximum number of sessions.
    #[error("{}", full_message(*max))]
    Full { max: usize },
    /// The server is shutting down.
    #[error("the server is shutting down; start a new session once it is back")]
    ShuttingDown,
}

/// The message of a server at its session limit.
pub(crate) fn full_message(max: usize) -> String {
    let sessions = if max == 1 { "session" } else { "sessions" };
    format!(
        "this server already serves {max} MCP {sessions}, the most allowed (--max-sessions); end an unused session (HTTP DELETE with its Mcp-Session-Id) or retry later"
    )
}

/// rmcp's [`LocalSessionManager`] plus one agent per session (see the module docs).
pub(crate) struct AgentSessions {
    inner: LocalSessionManager,
    ctx: Context,
    teardown_deadline: Duration,
    max_sessions: usize,
    idle: Duration,
    live: Mutex<HashMap<SessionId, LiveSession>>,
    accepting: Mutex<bool>,
    next_agent: AtomicU64,
    disposals: TaskTracker,
    /// This manager, for the idle watchers of its sessions.
    this: Weak<AgentSessions>,
}

/// A live session and its activity.
struct LiveSession {
    session: SessionAgent,
    /// Requests of the session being served.
    in_flight: usize,
    /// The JSON-RPC ids of the session's requests being served (see
    /// [`RequestGuard::claim_id`]), each as its JSON text.
    request_ids: HashSet<String>,
    /// When the session's last request started or ended (its creation before the first).
    last_active: Instant,
    /// Requests the client cancelled (`notifications/cancelled`), by id as JSON text, until
    /// their event stream ended (see [`AnswerOrEnd`]).
    cancelled: super::unanswered::Cancelled,
}

/// A request of one session being served (see the module docs); the request ends when it is
/// dropped.
pub(crate) struct RequestGuard {
    sessions: Arc<AgentSessions>,
    id: SessionId,
    /// The JSON-RPC id this request claimed (see [`RequestGuard::claim_id`]).
    request_id: Option<String>,
}

impl RequestGuard {
    /// Claims JSON-RPC id `request_id` (as its JSON text) for this request until it ends:
    /// `false`, claiming nothing, when another request of the session being served holds it.
    /// rmcp routes a session's answers by id, so a second request under the same id took the
    /// first one's answer and the first never got one; it is refused instead, as on stdio.
    pub(crate) fn claim_id(&mut self, request_id: String) -> bool {
        let mut live = self.sessions.live.lock();
        let Some(session) = live.get_mut(&self.id) else {
            return true;
        };
        if !session.request_ids.insert(request_id.clone()) {
            return false;
        }
        self.request_id = Some(request_id);
        true
    }
}

impl Drop for RequestGuard {
    fn drop(&mut self) {
        if let Some(live) = self.sessions.live.lock().get_mut(&self.id) {
            live.in_flight = live.in_flight.saturating_sub(1);
            live.last_active = Instant::now();
            if let Some(request_id) = &self.request_id {
                live.request_ids.remove(request_id);
            }
        }
    }
}

/// What an idle watcher found.
enum Idle {
    /// The session ended some other way.
    Gone,
    /// The session was idle for the timeout and is now out of the live map.
    Expired(SessionAgent),
    /// The session is (or may be) active: look again at this time.
    Until(Instant),
}

impl AgentSessions {
    /// Sessions whose agents are children of `ctx`, closed after `idle` without a request in
    /// flight.
    pub(crate) fn new(
        ctx: Context,
        teardown_deadline: Duration,
        max_sessions: usize,
        idle: Duration,
    ) -> Arc<Self> {
        let mut inner = LocalSessionManager::default();
        // Idle expiry is ours (see the module docs).
        inner.session_config.keep_alive = None;
        Arc::new_cyclic(|this| Self {
            inner,
            ctx,
            teardown_deadline,
            max_sessions,
            idle,
            live: Mutex::new(HashMap::new()),
            accepting: Mutex::new(true),
            next_agent: AtomicU64::new(0),
            disposals: TaskTracker::new(),
            this: this.clone(),
        })
    }

    /// Starts a request of session `id`: `None` when no such session is live (it ended, or
    /// never existed).
    pub(crate) fn begin_request(self: &Arc<Self>, id: &SessionId) -> Option<RequestGuard> {
        let mut live = self.live.lock();
        let session = live.get_mut(id)?;
        session.in_flight += 1;
        session.last_active = Instant::now();
        Some(RequestGuard {
            sessions: self.clone(),
            id: id.clone(),
            request_id: None,
        })
    }

    /// Whether session `id` is live.
    pub(crate) fn is_live(&self, id: &SessionId) -> bool {
        self.live.lock().contains_key(id)
    }

    /// The number of live sessions.
    pub(crate) fn len(&self) -> usize {
        self.live.lock().len()
    }

    /// The most sessions served at once.
    pub(crate) fn max_sessions(&self) -> usize {
        self.max_sessions
    }

    /// Refuses new sessions, closes every live one and waits (up to the teardown deadline)
    /// for every session teardown, including those already running. Returns whether they all
    /// finished.
    pub(crate) async fn close_all(&self) -> bool {
        *self.accepting.lock() = false;
        let sessions: Vec<(SessionId, LiveSession)> = self.live.lock().drain().collect();
        for (id, live) in sessions {
            drop(self.dispose(live.session, "server shutdown"));
            if let Err(e) = self.inner.close_session(&id).await {
                tracing::warn!(session_id = %id, error = %e, "closing the session's stream failed");
            }
        }
        self.disposals.close();
        let finished = tokio::time::timeout(self.teardown_deadline, self.disposals.wait())
            .await
            .is_ok();
        if !finished {
            tracing::error!("some session teardowns did not finish within the deadline");
        }
        finished
    }

    /// Disposes `session`'s agent on a tracked task (so shutdown can wait for it) and returns
    /// the task, which reports whether the teardown finished within the deadline.
    fn dispose(
        &self,
        session: SessionAgent,
        reason: &'static str,
    ) -> tokio::task::JoinHandle<bool> {
        let deadline = self.teardown_deadline;
        // Before rmcp's session is closed (each caller closes it after this): from now on the
        // answers its serve loop still sends are dropped quietly (see `SessionTransport`), and
        // the session's calls hear that it ends.
        session.closed.cancel();
        let span = tracing::info_span!("mcp_session", session_id = %session.session_id, agent = %session.agent.id());
        self.disposals.spawn(
            async move {
                tracing::info!(reason, "session closing; disposing its agent");
                let agent = session.agent.clone();
                let label = format!("agent {} teardown", agent.id());
                let complete = crate::server::run_with_deadline(
                    &label,
                    async move { agent.dispose().await },
                    deadline,
                )
                .await;
                tracing::info!(teardown_complete = complete, "session closed");
                complete
            }
            .instrument(span),
        )
    }

    /// Takes session `id` out of the live map if it has had no request in flight for the idle
    /// timeout.
    fn expire_if_idle(&self, id: &SessionId) -> Idle {
        let mut live = self.live.lock();
        let Some(session) = live.get(id) else {
            return Idle::Gone;
        };
        let now = Instant::now();
        if session.in_flight > 0 {
            // Its idle time starts when the last request ends: at least `idle` from now.
            return Idle::Until(later(now, self.idle));
        }
        if session.session.runs_a_call() || self.runs_a_job(&session.session.agent) {
            // A tool call still running (its client may have dropped the connection, which
            // ends the request's guard, not the call) or a background job still running is
            // the agent's work in progress (it is told when a job ends, and need not poll):
            // its idle time starts after them.
            if let Some(session) = live.get_mut(id) {
                session.last_active = now;
            }
            return Idle::Until(later(now, self.idle));
        }
        // A job that ended since its last check (the check before saw it running) counts
        // as activity when it ended: its idle time starts then.
        let active_since = self
            .last_job_end(&session.session.agent)
            .map_or(session.last_active, |ended| ended.max(session.last_active));
        let expires = later(active_since, self.idle);
        if expires > now {
            return Idle::Until(expires);
        }
        live.remove(id)
            .map_or(Idle::Gone, |session| Idle::Expired(session.session))
    }

    /// When the background job of `agent` that ended last ended, if any did (its registry
    /// keeps wall-clock times: one that lies in the future counts as now, one too long ago
    /// to tell as an `Instant` as none).
    fn last_job_end(&self, agent: &Agent) -> Option<Instant> {
        let jobs = self.ctx.get::<dyn JobRegistry>()?;
        let ended_ms = jobs
            .list(Some(agent))
            .iter()
            .filter_map(|job| job.finished_at_ms)
            .max()?;
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_millis();
        let ago = Duration::from_millis(
            u64::try_from(now_ms.saturating_sub(u128::from(ended_ms))).unwrap_or(u64::MAX),
        );
        Instant::now().checked_sub(ago)
    }

    /// Whether a background job of `agent` is still running.
    fn runs_a_job(&self, agent: &Agent) -> bool {
        self.ctx.get::<dyn JobRegistry>().is_some_and(|jobs| {
            jobs.list(Some(agent))
                .iter()
                .any(|job| job.owner_id.is_some() && job.status.is_live())
        })
    }

    /// Watches session `id` until it ends, and ends it once it has been idle for the timeout.
    fn watch_idle(&self, id: SessionId, closed: CancellationToken) {
        let this = self.this.clone();
        let mut deadline = later(Instant::now(), self.idle);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = closed.cancelled() => return,
                    () = tokio::time::sleep_until(deadline) => {}
                }
                let Some(sessions) = this.upgrade() else {
                    return;
                };
                match sessions.expire_if_idle(&id) {
                    Idle::Gone => return,
                    Idle::Until(next) => deadline = next,
                    Idle::Expired(session) => {
                        tracing::info!(session_id = %id, idle_ms = sessions.idle.as_millis(), "session idle: closing it");
                        drop(sessions.dispose(session, "idle timeout"));
                        if let Err(e) = sessions.inner.close_session(&id).await {
                            tracing::warn!(session_id = %id, error = %e, "closing the idle session's stream failed");
                        }
                        return;
                    }
                }
            }
        });
    }

    /// rmcp answered a call about session `id` with `result`: when that says the session's
    /// worker is gone, the session is over (so the front answers its next request with 404,
    /// not rmcp's 500).
    async fn check<T>(
        &self,
        id: &SessionId,
        result: Result<T, LocalSessionManagerError>,
    ) -> Result<T, SessionsError> {
        if let Err(
            LocalSessionManagerError::SessionNotFound(_)
            | LocalSessionManagerError::SessionError(SessionError::SessionServiceTerminated),
        ) = &result
        {
            let session = self.live.lock().remove(id);
            if let Some(live) = session {
                tracing::warn!(session_id = %id, "the session's service ended; closing the session");
                drop(self.dispose(live.session, "session service ended"));
            }
            if let Err(e) = self.inner.close_session(id).await {
                tracing::warn!(session_id = %id, error = %e, "closing the session's stream failed");
            }
        }
        Ok(result?)
    }
}

/// `at + duration`, or a far future when that does not fit.
fn later(at: Instant, duration: Duration) -> Instant {
    at.checked_add(duration)
        .unwrap_or_else(|| at + Duration::from_secs(100 * 365 * 24 * 3600))
}

impl SessionManager for AgentSessions {
    type Error = SessionsError;
    type Transport = SessionTransport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        if !*self.accepting.lock() {
            return Err(SessionsError::ShuttingDown);
        }
        if self.len() >= self.max_sessions {
            return Err(SessionsError::Full {
                max: self.max_sessions,
            });
        }
        let (id, inner) = self.inner.create_session().await?;
        let n = self.next_agent.fetch_add(1, Ordering::Relaxed) + 1;
        let session = SessionAgent {
            agent: Agent::new(&self.ctx, format!("http-{n}")),
            session_id: id.clone(),
            closed: CancellationToken::new(),
            calls_running: Arc::new(AtomicU64::new(0)),
            lost_answers: super::unanswered::LostAnswers::default(),
        };
        tracing::info!(session_id = %id, agent = %session.agent.id(), "session opened");
        crate::compose::prewarm_shell(&self.ctx, &session.agent);
        self.live.lock().insert(
            id.clone(),
            LiveSession {
                session: session.clone(),
                in_flight: 0,
                request_ids: HashSet::new(),
                last_active: Instant::now(),
                cancelled: super::unanswered::Cancelled::default(),
            },
        );
        self.watch_idle(id.clone(), session.closed.clone());
        Ok((id, SessionTransport { inner, session }))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.is_live(id))
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        // The teardown starts (as a tracked task) in the same step that takes the session out
        // of the live map, so shutdown never misses it.
        let teardown = self
            .live
            .lock()
            .remove(id)
            .map(|live| self.dispose(live.session, "session ended"));
        let closed = self.inner.close_session(id).await;
        if let Some(teardown) = teardown {
            // Awaited, so a DELETE is answered once the session's processes are gone; the
            // tracked task finishes even if this request is dropped.
            let _ = teardown.await;
        }
        Ok(closed?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let request_id = crate::in_flight::request_id(&message);
        let (cancelled, lost) = self
            .live
            .lock()
            .get(id)
            .map(|live| (live.cancelled.clone(), live.session.lost_answers.clone()))
            .unwrap_or_default();
        let stream = self
            .check(id, self.inner.create_stream(id, message).await)
            .await?;
        Ok(AnswerOrEnd::new(stream, request_id, cancelled, lost))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        if let Some(live) = self.live.lock().get(id) {
            live.cancelled.note(&message);
        }
        self.check(id, self.inner.accept_message(id, message).await)
            .await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.check(id, self.inner.create_standalone_stream(id).await)
            .await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.check(id, self.inner.resume(id, last_event_id).await)
            .await
    }
}

/// rmcp's session transport, tagging each incoming message with its session's agent.
pub(crate) struct SessionTransport {
    inner: <LocalSessionManager as SessionManager>::Transport,
    session: SessionAgent,
}

impl Transport<RoleServer> for SessionTransport {
    type Error =
        <<LocalSessionManager as SessionManager>::Transport as Transport<RoleServer>>::Error;

    /// Once the session is closed, an answer is dropped (logged at debug), not sent: rmcp's
    /// serve loop still sends the answers of the requests that were running (its drain), to a
    /// session transport already closed, and logged each failure as an error on every ordinary
    /// DELETE or shutdown. Those requests were answered already, on their own streams, that
    /// the session ended (see `unanswered`).
    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let closed = self.session.closed.clone();
        let sending = (!closed.is_cancelled()).then(|| self.inner.send(item));
        async move {
            let Some(sending) = sending else {
                tracing::debug!("dropped a message for a closed session");
                return Ok(());
            };
            match sending.await {
                Err(e) if closed.is_cancelled() => {
                    tracing::debug!(error = %e, "dropped a message for a closed session");
                    Ok(())
                }
                other => other,
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let mut message = self.inner.receive().await?;
        match &mut message {
            ClientJsonRpcMessage::Request(request) => {
                request
                    .request
                    .extensions_mut()
                    .insert(self.session.clone());
            }
            ClientJsonRpcMessage::Notification(notification) => {
                notification
                    .notification
                    .extensions_mut()
                    .insert(self.session.clone());
            }
            _ => {}
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
