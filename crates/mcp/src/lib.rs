//! `dsh-mcp`: serves the dsh terminal tools to any MCP client.
//!
//! [`compose`] builds the root [`dsh_context::Context`] from [`Options`] (invariants, system
//! prompt, tools, terminals, the bash backend, the six terminal tools and every package's
//! invariant companion). [`McpServer`] serves MCP connections over that context with rmcp: each
//! connection is one [`dsh_context::Agent`], its `instructions` are the assembled system
//! prompt, `tools/list` and `tools/call` go to the [`dsh_tools::Tools`] registry, and when the
//! connection ends its sessions are closed and every process they started is gone.
//! [`HttpServer`] serves the same over MCP Streamable HTTP, one agent per MCP session, behind a
//! bearer token and Origin / Host allowlists.
//! [`tool_catalog_markdown`] renders the generated tool catalog.
//!
//! **Invariant:** this is the only crate that knows MCP and the only one that writes to
//! stdout; the binary writes nothing but the protocol there (logs go to stderr).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use dsh_mcp::{compose, McpServer, Options};
//! use tokio_util::sync::CancellationToken;
//!
//! let options = Options::default();
//! let ctx = compose(&options)?;
//! let server = McpServer::new(&ctx)?.with_teardown_deadline(options.teardown_deadline());
//! let shutdown = CancellationToken::new();
//! // The connection ends with its input: calls still running are cancelled, not waited for.
//! let connection = shutdown.child_token();
//! // Calls to one terminal session take effect in the order they were written.
//! let transport = dsh_mcp::stdio_transport(options.max_message_bytes)
//!     .cancel_on_eof(connection.clone())
//!     .ordering_calls(server.arrival_order());
//! let end = server.serve_connection(transport, &connection).await;
//! dsh_mcp::dispose_with_deadline(&ctx, options.teardown_deadline()).await;
//! assert!(!end.is_failure());
//! # Ok(()) }
//! ```

#[cfg(not(target_os = "linux"))]
compile_error!(
    "dsh-mcp supports Linux only: its terminal sessions rely on /proc, pidfds and cgroup v2"
);

mod catalog;
mod compose;
mod elicitation;
mod http;
mod in_flight;
mod inbound;
mod lifecycle;
mod notices;
mod options;
mod server;
mod transport;

pub use catalog::tool_catalog_markdown;
pub use compose::{ComposeError, bash_config, compose, sandbox_config, tool_terminal_config};
pub use http::{HEALTH_PATH, HttpEnd, HttpError, HttpServer, MCP_PATH};
pub use notices::NOTICE_LOGGER;
pub use options::{HttpOptions, Options, TOKEN_ENV};
pub use server::{
    ConnectionEnd, EndCause, McpServer, SERVER_NAME, call_tool_result, dispose_with_deadline,
    mcp_output_schema, mcp_tool,
};
pub use transport::{DEFAULT_MAX_MESSAGE_BYTES, LineTransport, MIN_MAX_MESSAGE_BYTES};

/// The server's stdio transport: a [`LineTransport`] with lines of at most
/// `max_message_bytes` over rmcp's non-blocking stdin/stdout (when they are pipes). Call it
/// within a tokio runtime.
pub fn stdio_transport(max_message_bytes: usize) -> LineTransport<rmcp::transport::StdioReader> {
    let (read, write) = rmcp::transport::stdio_pipes();
    LineTransport::with_max_message_bytes(read, write, max_message_bytes)
}

/// This crate's invariant companion. No runtime invariant: the server keeps no state of its
/// own beyond a connection counter and, over HTTP, the map from MCP session to agent; each
/// connection's sessions are owned (and checked) by
/// `dsh-terminal-core` through the connection's agent.
pub fn invariant_companion() -> dsh_invariants::Companion {
    dsh_invariants::Companion::none(
        "dsh-mcp",
        "no runtime invariant: the server keeps no state beyond a connection counter and, over HTTP, the map from MCP session to agent; terminal sessions are owned and checked by dsh-terminal-core through each connection's agent",
    )
}
