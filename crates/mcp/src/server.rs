//! The MCP server: one [`rmcp::ServerHandler`] per connection, implemented by hand over the
//! [`Tools`] registry.
//!
//! Responsibilities:
//! - each connection is one [`Agent`] (`mcp-<n>`), disposed (sessions closed, processes gone)
//!   when the connection ends, within a deadline;
//! - `initialize` answers with server name `dsh-mcp`, the crate version, the tools capability,
//!   and the assembled system prompt as `instructions`;
//! - `tools/list` is [`Tools::list`]; `tools/call` is [`Tools::execute`], and every tool failure
//!   (unknown tool, bad arguments, a failing tool) is an `isError` result, never a protocol
//!   error; a call carrying `progressToken` gets `notifications/progress` from tools that
//!   report it (a long foreground `terminal_send`: bytes produced, last line);
//! - background-job completion notices are appended to the connection's next result and sent
//!   as log notifications (`notices`).
//!
//! Flow of one connection ([`McpServer::serve_connection`]):
//! 1. create the agent and the handler, then run rmcp's serve loop until the client disconnects
//!    (EOF) or `shutdown` is cancelled. Cancelling `shutdown` also cancels every in-flight
//!    call's token at once; on EOF, rmcp first lets in-flight calls finish (up to 5 s) and then
//!    cancels them, unless the transport cancels `shutdown` at its end of input
//!    ([`crate::LineTransport::cancel_on_eof`], as `dsh-mcp` does on stdio).
//! 2. dispose the agent (bounded by the teardown deadline) and report how it ended.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use dsh_context::{Agent, Context, ContextError};
use dsh_system_prompt::SystemPrompt;
use dsh_tool_jobs::JobNotices;
use dsh_tools::{ToolCall, Tools};

mod convert;

pub use convert::{call_tool_result, mcp_output_schema, mcp_tool};

use crate::elicitation::ElicitationApproval;
use crate::lifecycle::InitializeOnce;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeRequestParams, InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{QuitReason, RequestContext, RoleServer, ServerInitializeError, ServiceExt};
use rmcp::transport::IntoTransport;
use rmcp::{ErrorData as McpError, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

/// The server name reported in `initialize`.
pub const SERVER_NAME: &str = "dsh-mcp";

/// Serves MCP connections over one root [`Context`]. Each connection gets its own [`Agent`],
/// so sessions opened on one connection are invisible to every other.
pub struct McpServer {
    ctx: Context,
    tools: Arc<Tools>,
    prompt: Arc<SystemPrompt>,
    notices: Option<Arc<JobNotices>>,
    teardown_deadline: Duration,
    next_connection: AtomicU64,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("ctx", &self.ctx)
            .field("teardown_deadline", &self.teardown_deadline)
            .field("connections", &self.next_connection.load(Ordering::Relaxed))
            .finish()
    }
}

/// Why a connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EndCause {
    /// The client closed its side (stdin EOF / stream closed).
    ClientClosed,
    /// The server's `shutdown` token was cancelled (SIGINT, SIGTERM, ...).
    Shutdown,
    /// The MCP handshake failed; the message says how.
    InitializeFailed(String),
    /// rmcp's service task failed (panicked or was aborted); the message says how.
    ServiceFailed(String),
}

/// How a connection ended, after its agent was disposed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConnectionEnd {
    /// The connection's agent id (`mcp-<n>`).
    pub agent_id: String,
    /// Why it ended.
    pub cause: EndCause,
    /// Whether the agent's teardown (closing its sessions) finished within the deadline.
    pub teardown_complete: bool,
}

impl ConnectionEnd {
    /// Whether the connection ended abnormally or left its teardown unfinished.
    pub fn is_failure(&self) -> bool {
        !self.teardown_complete
            || matches!(
                self.cause,
                EndCause::InitializeFailed(_) | EndCause::ServiceFailed(_)
            )
    }
}

impl McpServer {
    /// A server over `ctx`, which must provide [`Tools`] and [`SystemPrompt`] (as
    /// [`crate::compose`] does).
    ///
    /// # Errors
    /// [`ContextError::NotAvailable`] naming the missing service.
    pub fn new(ctx: &Context) -> Result<Self, ContextError> {
        Ok(Self {
            ctx: ctx.clone(),
            tools: ctx.require::<Tools>()?,
            prompt: ctx.require::<SystemPrompt>()?,
            notices: ctx.get::<JobNotices>(),
            teardown_deadline: crate::Options::default().teardown_deadline(),
            next_connection: AtomicU64::new(0),
        })
    }

    /// Sets how long a connection's agent teardown may take before it is abandoned (logged).
    #[must_use]
    pub fn with_teardown_deadline(mut self, deadline: Duration) -> Self {
        self.teardown_deadline = deadline;
        self
    }

    /// An order for the calls one connection reads in order (stdio): each call to a terminal
    /// session takes its place as its tool declares ([`dsh_tools::Tool::arrival`]); give it to
    /// the connection's [`crate::LineTransport::ordering_calls`].
    #[must_use]
    pub fn arrival_order(&self) -> dsh_tools::ArrivalOrder {
        dsh_tools::ArrivalOrder::for_tools(self.tools.clone())
    }

    /// The `initialize` result this server sends: name, version, tools capability and the
    /// assembled system prompt as `instructions` (absent when the prompt is empty).
    pub fn server_config(&self) -> ServerConfig {
        server_config(&self.prompt)
    }

    /// The tools exactly as `tools/list` reports them.
    pub fn mcp_tools(&self) -> Vec<Tool> {
        self.tools.list().iter().map(mcp_tool).collect()
    }

    /// Serves one MCP connection over `transport` until the client disconnects or `shutdown`
    /// is cancelled, then disposes the connection's agent (closing its sessions and awaiting
    /// their teardown, bounded by the teardown deadline).
    ///
    /// Connections may be served concurrently; each is its own agent.
    ///
    /// # Cancel safety
    /// Not cancel safe: dropping the future skips the agent's disposal (the agent is still
    /// disposed with the root context). Cancel `shutdown` instead.
    pub async fn serve_connection<T, E, A>(
        &self,
        transport: T,
        shutdown: &CancellationToken,
    ) -> ConnectionEnd
    where
        T: IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let n = self.next_connection.fetch_add(1, Ordering::Relaxed) + 1;
        let agent = Agent::new(&self.ctx, format!("mcp-{n}"));
        let agent_id = agent.id().to_owned();
        let span = tracing::info_span!("mcp_connection", agent = %agent_id);
        async {
            // Cancelled as the connection ends (EOF with `cancel_on_eof`, or shutdown): its
            // calls hear that their agent goes next.
            let closing = shutdown.child_token();
            let mut handler = self.handler(Some(agent.clone()));
            handler.closing = closing.clone();
            let log_level = handler.log_level.clone();
            tracing::info!("connection opened");
            let forwarder = CancellationToken::new();
            let cause = match handler.serve_with_ct(transport, closing).await {
                Ok(running) => {
                    crate::compose::prewarm_shell(&self.ctx, &agent);
                    if let Some(notices) = &self.notices {
                        crate::notices::spawn_log_forwarder(
                            notices.clone(),
                            agent.clone(),
                            (running.peer().clone(), log_level),
                            forwarder.clone(),
                        );
                    }
                    match running.waiting().await {
                        Ok(QuitReason::Closed) => EndCause::ClientClosed,
                        Ok(QuitReason::Cancelled) => EndCause::Shutdown,
                        Ok(QuitReason::JoinError(e)) | Err(e) => {
                            EndCause::ServiceFailed(e.to_string())
                        }
                        Ok(other) => EndCause::ServiceFailed(format!("{other:?}")),
                    }
                }
                Err(ServerInitializeError::Cancelled) => EndCause::Shutdown,
                Err(ServerInitializeError::ConnectionClosed(_)) => EndCause::ClientClosed,
                Err(e) => EndCause::InitializeFailed(e.to_string()),
            };
            forwarder.cancel();
            tracing::info!(?cause, "connection ended; disposing its agent");
            let teardown_complete = run_with_deadline(
                &format!("agent {agent_id} teardown"),
                async move { agent.dispose().await },
                self.teardown_deadline,
            )
            .await;
            ConnectionEnd {
                agent_id: agent_id.clone(),
                cause,
                teardown_complete,
            }
        }
        .instrument(span)
        .await
    }
}

impl McpServer {
    /// A handler serving as `agent`, or (with `None`) as the agent of the HTTP session each
    /// request arrives on.
    pub(crate) fn handler(&self, agent: Option<Agent>) -> Connection {
        Connection {
            tools: self.tools.clone(),
            agent,
            config: self.server_config(),
            calls: Arc::new(AtomicU64::new(0)),
            notices: self.notices.clone(),
            log_level: Arc::default(),
            initialized: InitializeOnce::default(),
            closing: CancellationToken::new(),
        }
    }

    /// The root context the server's agents are created in.
    pub(crate) fn context(&self) -> &Context {
        &self.ctx
    }

    /// How long one agent's teardown may take.
    pub(crate) fn teardown_deadline(&self) -> Duration {
        self.teardown_deadline
    }
}

/// Disposes `ctx` (every disposer, in reverse order), giving up after `deadline`.
///
/// Returns whether disposal finished in time. On timeout the error is logged and the disposal
/// keeps running in the background until the runtime shuts down.
pub async fn dispose_with_deadline(ctx: &Context, deadline: Duration) -> bool {
    let ctx = ctx.clone();
    run_with_deadline(
        "root context teardown",
        async move { ctx.dispose().await },
        deadline,
    )
    .await
}

/// Runs `work` as its own task (so a timeout never drops it half-way) and waits up to
/// `deadline` for it.
pub(crate) async fn run_with_deadline(
    label: &str,
    work: impl Future<Output = ()> + Send + 'static,
    deadline: Duration,
) -> bool {
    let task = tokio::spawn(work);
    match tokio::time::timeout(deadline, task).await {
        Ok(Ok(())) => true,
        Ok(Err(e)) => {
            tracing::error!(%label, error = %e, "teardown task failed");
            false
        }
        Err(_) => {
            tracing::error!(
                %label,
                deadline_ms = u64::try_from(deadline.as_millis()).unwrap_or(u64::MAX),
                "teardown did not finish within its deadline; continuing shutdown"
            );
            false
        }
    }
}

// Logging carries job notices (see `notices`); rmcp marks it deprecated (SEP-2577).
#[allow(deprecated)]
fn server_config(prompt: &SystemPrompt) -> ServerConfig {
    let capabilities = ServerCapabilities::builder()
        .enable_tools()
        .enable_logging()
        .build();
    let config = ServerConfig::new(capabilities)
        .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")));
    let instructions = prompt.assemble();
    if instructions.is_empty() {
        config
    } else {
        config.with_instructions(instructions)
    }
}

/// The error text of a tool call that arrives outside an MCP session over HTTP.
const NO_SESSION_CALL: &str = "Error: this server keeps terminals per MCP session; send initialize first and repeat the call with the Mcp-Session-Id header it returned";

/// One MCP connection's handler.
#[derive(Clone)]
pub(crate) struct Connection {
    tools: Arc<Tools>,
    /// The connection's agent (stdio, in-process); `None` over HTTP, where each request carries
    /// its session's agent ([`crate::http::SessionAgent`]).
    agent: Option<Agent>,
    config: ServerConfig,
    calls: Arc<AtomicU64>,
    notices: Option<Arc<JobNotices>>,
    /// What `logging/setLevel` asked for on this connection (one per HTTP session too).
    log_level: Arc<crate::notices::LogLevel>,
    /// Whether the connection (one handler per HTTP session too) was initialized.
    initialized: InitializeOnce,
    /// Cancelled when the connection ends (stdio; over HTTP each request carries its session's,
    /// [`crate::http::SessionAgent::closed`]).
    closing: CancellationToken,
}

impl ServerHandler for Connection {
    fn get_info(&self) -> ServerConfig {
        self.config.clone()
    }

    /// The first `initialize` as rmcp's default answers it; a later one is refused and changes
    /// nothing (see [`crate::lifecycle`]).
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        self.initialized.take()?;
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(
            self.tools.list().iter().map(mcp_tool).collect(),
        ))
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if let (Some(notices), Some(session)) = (
            &self.notices,
            context.extensions.get::<crate::http::SessionAgent>(),
        ) {
            crate::notices::spawn_log_forwarder(
                notices.clone(),
                session.agent.clone(),
                (context.peer.clone(), self.log_level.clone()),
                session.closed.clone(),
            );
        }
    }

    // Logging carries job notices (see `notices`); rmcp marks it deprecated (SEP-2577).
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.log_level.set(request.level);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let agent = match &self.agent {
            Some(agent) => agent.clone(),
            None => match context.extensions.get::<crate::http::SessionAgent>() {
                Some(session) => session.agent.clone(),
                None => {
                    return Ok(CallToolResponse::from(CallToolResult::error(vec![
                        ContentBlock::text(NO_SESSION_CALL),
                    ])));
                }
            },
        };
        // Over HTTP, the session does not idle out while the call runs (see
        // `SessionAgent::call_running`).
        let _running = context
            .extensions
            .get::<crate::http::SessionAgent>()
            .map(crate::http::SessionAgent::call_running);
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let call_id = format!("{}-call-{n}", agent.id());
        let name = request.name.to_string();
        let args = request
            .arguments
            .map_or_else(|| Value::Object(JsonObject::new()), Value::Object);
        // Over HTTP, the call hears when its answer can no longer reach the client.
        let answer_watch = context
            .extensions
            .get::<crate::http::SessionAgent>()
            .map(|s| s.lost_answers.watch(&context.id));
        let closing = context
            .extensions
            .get::<crate::http::SessionAgent>()
            .map_or_else(|| self.closing.clone(), |s| s.closed.clone());
        let mut call = ToolCall::new(call_id.clone())
            .with_agent(agent.clone())
            .with_cancel(context.ct.clone())
            .with_closing(closing)
            .with_approval(Arc::new(ElicitationApproval::new(context.peer.clone())));
        if let Some(watch) = &answer_watch {
            call = call.with_answer_lost(watch.token());
        }
        // Its place among the calls to its terminal session (stdio), held by the call alone.
        if let Some(ticket) = context.extensions.remove::<Arc<dsh_tools::ArrivalTicket>>() {
            call = call.with_arrival(ticket);
        }
        if let Some(token) = context.meta.get_progress_token() {
            call = call.with_progress(crate::notices::progress_sink(context.peer.clone(), token));
        }
        let session_id = context
            .extensions
            .get::<crate::http::SessionAgent>()
            .map(|s| s.session_id.clone());
        let span = tracing::debug_span!(
            "tool_call",
            tool = %name,
            %call_id,
            request_id = %context.id,
            session_id = session_id.as_deref().unwrap_or("-"),
        );
        let result = self.tools.execute(&name, args, call).instrument(span).await;
        tracing::debug!(tool = %name, %call_id, is_error = result.is_error, "tool call finished");
        let mut out = call_tool_result(result);
        // A cancelled call's result is never sent: its notices stay for the next result.
        if let Some(notices) = &self.notices
            && !context.ct.is_cancelled()
        {
            crate::notices::append_notices(notices, &agent, &mut out);
        }
        Ok(CallToolResponse::from(out))
    }
}
