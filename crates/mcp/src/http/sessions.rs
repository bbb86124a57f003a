//! [`AgentSessions`]: rmcp's in-memory session manager with one [`Agent`] per MCP session.
//!
//! Every way a session ends reaches [`SessionManager::close_session`]: an HTTP `DELETE` calls
//! it directly, and when a session's serve loop ends (idle timeout, server shutdown) rmcp calls
//! it too. So that is where the session's agent is disposed (its jobs stopped, its terminals
//! closed with every process they started), exactly once, whichever comes first. A `DELETE`
//! is answered only once the teardown finished.
//!
//! The agent reaches the handler with each message: [`SessionTransport`] tags every incoming
//! request and notification with the session's [`SessionAgent`] (rmcp moves message extensions
//! into the handler's request context).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use dsh_context::{Agent, Context};
use futures_core::Stream;
use parking_lot::Mutex;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions as _, ServerJsonRpcMessage};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};
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
    live: Mutex<HashMap<SessionId, SessionAgent>>,
    accepting: Mutex<bool>,
    next_agent: AtomicU64,
    disposals: TaskTracker,
}

impl AgentSessions {
    /// Sessions whose agents are children of `ctx`, closed after `idle` without a message.
    pub(crate) fn new(
        ctx: Context,
        teardown_deadline: Duration,
        max_sessions: usize,
        idle: Duration,
    ) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        Self {
            inner,
            ctx,
            teardown_deadline,
            max_sessions,
            live: Mutex::new(HashMap::new()),
            accepting: Mutex::new(true),
            next_agent: AtomicU64::new(0),
            disposals: TaskTracker::new(),
        }
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
        let sessions: Vec<(SessionId, SessionAgent)> = self.live.lock().drain().collect();
        for (id, session) in sessions {
            drop(self.dispose(session, "server shutdown"));
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
        let span = tracing::info_span!("mcp_session", session_id = %session.session_id, agent = %session.agent.id());
        self.disposals.spawn(
            async move {
                tracing::info!(reason, "session closing; disposing its agent");
                session.closed.cancel();
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
        };
        tracing::info!(session_id = %id, agent = %session.agent.id(), "session opened");
        crate::compose::prewarm_shell(&self.ctx, &session.agent);
        self.live.lock().insert(id.clone(), session.clone());
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
        Ok(self.live.lock().contains_key(id))
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        // The teardown starts (as a tracked task) in the same step that takes the session out
        // of the live map, so shutdown never misses it.
        let teardown = self
            .live
            .lock()
            .remove(id)
            .map(|session| self.dispose(session, "session ended"));
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
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
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

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
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
