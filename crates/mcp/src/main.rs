//! The `dsh-mcp` binary: parses the options, composes the root context and serves MCP over
//! stdio until the client disconnects, or over HTTP (`--listen`), until a SIGINT / SIGTERM /
//! SIGHUP arrives; then closes every session (no process outlives the server) and exits.
//!
//! Exit status: 0 after a clean shutdown, 2 for invalid options, 1 when serving failed or a
//! teardown step missed its deadline. Nothing but the MCP protocol is written to stdout; over
//! HTTP, the bound address is printed on stderr ("dsh-mcp: listening on http://ADDR/mcp").

use std::io::IsTerminal as _;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::FromArgMatches as _;
use dsh_mcp::{HttpServer, MCP_PATH, McpServer, Options, compose, dispose_with_deadline};
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

/// How long the runtime waits for leftover blocking work (a blocking stdin read) at exit.
const RUNTIME_SHUTDOWN_GRACE: Duration = Duration::from_millis(250);

fn main() -> ExitCode {
    let options = Options::from_arg_matches(&Options::command_for_this_host().get_matches())
        .unwrap_or_else(|e| e.exit());
    init_tracing();
    match try_main(options) {
        Ok(code) => code,
        Err(e) => {
            tracing::error!("{e:#}");
            eprintln!("dsh-mcp: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn try_main(options: Options) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("dsh-mcp")
        .build()
        .context("cannot start the tokio runtime")?;
    let code = runtime.block_on(serve(options));
    // A blocking stdin read (when stdin is not a pipe) cannot be cancelled; do not wait for it.
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN_GRACE);
    code
}

/// How serving ended.
enum Outcome {
    /// Served until the end; whether every session's teardown finished in time.
    Served { clean: bool },
    /// The HTTP settings are invalid (exit status 2).
    Config(dsh_mcp::HttpError),
    /// Serving could not start.
    Failed(anyhow::Error),
}

async fn serve(options: Options) -> anyhow::Result<ExitCode> {
    let ctx = match compose(&options) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("dsh-mcp: invalid configuration: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let deadline = options.teardown_deadline();
    let server = McpServer::new(&ctx)
        .context("the composed context lacks a service the server needs")?
        .with_teardown_deadline(deadline);
    let shutdown = CancellationToken::new();
    watch_signals(&shutdown);
    let outcome = if options.http.listen.is_some() {
        serve_http(server, &options, &shutdown).await
    } else {
        serve_stdio(server, &options, &shutdown).await
    };
    let root_disposed = dispose_with_deadline(&ctx, deadline).await;
    match outcome {
        Outcome::Config(e) => {
            eprintln!("dsh-mcp: invalid configuration: {e}");
            Ok(ExitCode::from(2))
        }
        Outcome::Failed(e) => Err(e),
        Outcome::Served { clean: true } if root_disposed => Ok(ExitCode::SUCCESS),
        Outcome::Served { clean } => {
            tracing::error!(
                sessions_closed = clean,
                root_disposed,
                "shutdown was not clean"
            );
            Ok(ExitCode::FAILURE)
        }
    }
}

/// Serves the one stdio connection until the client disconnects or `shutdown` is cancelled.
async fn serve_stdio(
    server: McpServer,
    options: &Options,
    shutdown: &CancellationToken,
) -> Outcome {
    // The connection ends with its input: calls still running are cancelled then (their
    // client reads no answer), not waited for.
    let connection = shutdown.child_token();
    let transport = dsh_mcp::stdio_transport(options.max_message_bytes)
        .cancel_on_eof(connection.clone())
        .ordering_calls(server.arrival_order());
    let end = server.serve_connection(transport, &connection).await;
    tracing::info!(?end, "connection finished; disposing the root context");
    Outcome::Served {
        clean: !end.is_failure(),
    }
}

/// Serves MCP Streamable HTTP on `--listen` until `shutdown` is cancelled.
async fn serve_http(server: McpServer, options: &Options, shutdown: &CancellationToken) -> Outcome {
    let http = match HttpServer::bind(server, &options.http, options.max_message_bytes).await {
        Ok(http) => http,
        Err(e) if e.is_config() => return Outcome::Config(e),
        Err(e) => return Outcome::Failed(e.into()),
    };
    eprintln!(
        "dsh-mcp: listening on http://{}{MCP_PATH}",
        http.local_addr()
    );
    tracing::info!(addr = %http.local_addr(), "serving MCP Streamable HTTP");
    if options.allow_network && !http.has_token() {
        // The sessions' own commands reach this server then: one can open an MCP session of
        // its own, an agent no client of ours owns, whose processes outlive the agent that
        // started them.
        tracing::warn!(
            "--allow-network without a bearer token: commands run in the sessions can reach this server and open MCP sessions of their own, whose processes outlive the agent that started them; pass --token-file or set {}",
            dsh_mcp::TOKEN_ENV
        );
    }
    let end = http.serve(shutdown).await;
    tracing::info!(?end, "HTTP server stopped; disposing the root context");
    Outcome::Served {
        clean: end.teardown_complete,
    }
}

/// Cancels `shutdown` on the first SIGINT, SIGTERM or SIGHUP. Later signals are logged; the
/// teardown they interrupt is already bounded by its deadline.
fn watch_signals(shutdown: &CancellationToken) {
    for (kind, name) in [
        (SignalKind::interrupt(), "SIGINT"),
        (SignalKind::terminate(), "SIGTERM"),
        (SignalKind::hangup(), "SIGHUP"),
    ] {
        match signal(kind) {
            Ok(mut stream) => {
                let shutdown = shutdown.clone();
                tokio::spawn(async move {
                    while stream.recv().await.is_some() {
                        if shutdown.is_cancelled() {
                            tracing::warn!(
                                signal = name,
                                "already shutting down; teardown is bounded by its deadline"
                            );
                        } else {
                            tracing::info!(signal = name, "shutting down");
                            shutdown.cancel();
                        }
                    }
                });
            }
            Err(e) => tracing::warn!(signal = name, error = %e, "cannot watch signal"),
        }
    }
}

/// Logs to stderr only, filtered by `RUST_LOG` (default `warn`; invalid directives are
/// ignored). rmcp logs every request's arguments at debug level, text typed at a password
/// prompt included, so a `RUST_LOG` that enables debug or trace in general keeps rmcp at
/// `info` unless it names rmcp.
fn init_tracing() {
    let mut filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::WARN.into())
        .from_env_lossy();
    let wide_debug = std::env::var("RUST_LOG")
        .is_ok_and(|v| !v.contains("rmcp") && (v.contains("debug") || v.contains("trace")));
    if wide_debug && let Ok(quiet) = "rmcp=info".parse() {
        filter = filter.add_directive(quiet);
    }
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}
