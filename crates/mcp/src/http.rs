//! Serving MCP Streamable HTTP (`dsh-mcp --listen ADDR:PORT`).
//!
//! [`HttpServer::bind`] checks the security settings (a bearer token is required on a
//! non-loopback address) and binds the listener; [`HttpServer::serve`] accepts connections
//! (HTTP/1.1, hyper) until `shutdown` is cancelled, then closes every MCP session with its
//! agent and waits for their teardown, answering every request 503 meanwhile.
//!
//! Each request passes [`front`] (health, path, [`host`], the [`headers`] acted on given at
//! most once, token, session liveness and activity, session limit, the body read within its
//! limits by [`body`] and classified like a stdio line, JSON error answers) on its way to
//! rmcp's [`StreamableHttpService`], whose session manager ([`sessions`]) gives each MCP
//! session its own [`dsh_context::Agent`] and closes idle sessions.

mod body;
mod front;
mod headers;
mod host;
mod sessions;
mod unanswered;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::options::{HttpOptions, TOKEN_ENV};
use crate::server::McpServer;
use front::{BearerToken, Front};
use host::AllowedHosts;

pub use front::{HEALTH_PATH, MCP_PATH};
pub(crate) use sessions::SessionAgent;

/// How long a client may take to send a request's headers.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a client may take to send a request's body, counted from the end of its headers
/// (the whole body, not each chunk); 408 beyond it.
const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// How long open HTTP connections get to finish once shutdown began (sessions are already
/// closed by then).
const CONNECTION_DRAIN: Duration = Duration::from_secs(5);

/// Why the HTTP server could not start. Every variant but [`HttpError::Bind`] is a
/// configuration problem (exit status 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// A non-loopback address without a token.
    #[error(
        "--listen {addr} is not a loopback address: refusing to serve without a bearer token; pass --token-file <PATH> or set {TOKEN_ENV}"
    )]
    TokenRequired {
        /// The address given.
        addr: SocketAddr,
    },
    /// The token file could not be read.
    #[error("--token-file {}: {source}", path.display())]
    TokenFile {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The token is empty.
    #[error("the bearer token from {0} is empty; put the token in it")]
    EmptyToken(String),
    /// `--max-sessions 0`.
    #[error("--max-sessions must be at least 1")]
    NoSessions,
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address given.
        addr: SocketAddr,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl HttpError {
    /// Whether this is a configuration problem (as opposed to a failure to bind).
    pub fn is_config(&self) -> bool {
        !matches!(self, Self::Bind { .. })
    }
}

/// How serving over HTTP ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpEnd {
    /// Whether every session's teardown finished within the deadline.
    pub teardown_complete: bool,
}

/// A bound MCP Streamable HTTP server (see the module docs).
pub struct HttpServer {
    listener: TcpListener,
    front: Front,
    sessions: Arc<sessions::AgentSessions>,
    addr: SocketAddr,
    /// Ends rmcp's event streams once every session was closed at shutdown: ended before,
    /// the answer a request still running gets when its session closes (see `unanswered`)
    /// never reached its stream.
    streams_end: CancellationToken,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("addr", &self.addr)
            .field("token", &self.front.token)
            .finish_non_exhaustive()
    }
}

impl HttpServer {
    /// Checks `options` and binds `options.listen`. `max_request_bytes` bounds each request
    /// body, in bytes (413 beyond it, from a declared `Content-Length` alone when far over).
    ///
    /// # Errors
    /// [`HttpError`]: a missing token on a non-loopback address, an unreadable or empty token,
    /// no session allowed, or the address cannot be bound.
    ///
    /// # Panics
    /// When `options.listen` is `None`.
    pub async fn bind(
        server: McpServer,
        options: &HttpOptions,
        max_request_bytes: usize,
    ) -> Result<Self, HttpError> {
        let Some(addr) = options.listen else {
            panic!("HttpServer::bind needs options.listen")
        };
        let token = read_token(options)?;
        if token.is_none() && !addr.ip().is_loopback() {
            return Err(HttpError::TokenRequired { addr });
        }
        if options.max_sessions == 0 {
            return Err(HttpError::NoSessions);
        }
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| HttpError::Bind { addr, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| HttpError::Bind { addr, source })?;
        if token.is_none() {
            // After binding, so the warning names the port actually served.
            tracing::warn!(
                %addr,
                "serving without a bearer token: every local user and process can run commands through this server; pass --token-file or set {TOKEN_ENV}"
            );
        }

        let server = Arc::new(server);
        let shutdown = CancellationToken::new();
        let streams_end = CancellationToken::new();
        let sessions = sessions::AgentSessions::new(
            server.context().clone(),
            server.teardown_deadline(),
            options.max_sessions,
            options.session_idle_timeout(),
        );
        // The Host check is the front's (`host`), which also answers a missing, repeated or
        // malformed Host; rmcp's would replace the loopback names instead of adding to them.
        let config = StreamableHttpServerConfig::default()
            .with_cancellation_token(streams_end.child_token())
            .with_max_request_body_bytes(max_request_bytes)
            .with_allowed_origins(options.allowed_origin.iter().cloned())
            .enforce_origin_validation()
            .disable_allowed_hosts();
        let handlers = server.clone();
        let mcp = StreamableHttpService::new(
            move || Ok(handlers.handler(None)),
            sessions.clone(),
            config,
        );
        Ok(Self {
            listener,
            front: Front {
                mcp,
                sessions: sessions.clone(),
                hosts: AllowedHosts::new(addr, &options.allowed_host),
                token,
                shutdown,
                max_body_bytes: max_request_bytes,
                body_read_timeout: BODY_READ_TIMEOUT,
            },
            sessions,
            addr,
            streams_end,
        })
    }

    /// The bound address (with the port picked when `--listen` gave port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Whether requests must carry a bearer token.
    pub fn has_token(&self) -> bool {
        self.front.token.is_some()
    }

    /// Serves until `shutdown` is cancelled; then closes every session (its jobs and
    /// terminals, with every process they started), answering every request 503 (`/healthz`:
    /// `{"status":"shutting_down"}`) until the teardowns ended (bounded by the teardown
    /// deadline), and waits briefly for open connections.
    pub async fn serve(self, shutdown: &CancellationToken) -> HttpEnd {
        let connections = TaskTracker::new();
        // Connections are taken and served until the sessions are closed: from the shutdown
        // on, every request is answered 503 (a health probe learns the server is going,
        // where a closed listener refused it, and a probe's connection open at the signal
        // was closed without an answer).
        let closing = CancellationToken::new();
        let accepting = {
            let (listener, front) = (self.listener, self.front.clone());
            let (connections, closing) = (connections.clone(), closing.clone());
            tokio::spawn(async move {
                accept_until(&listener, &front, &connections, &closing).await;
            })
        };
        shutdown.cancelled().await;
        tracing::info!("shutting down: closing every MCP session");
        self.front.shutdown.cancel();
        let teardown_complete = self.sessions.close_all().await;
        closing.cancel();
        if let Err(e) = accepting.await {
            tracing::debug!(error = %e, "the accept loop ended abnormally");
        }
        // The requests that were running have their answers on their streams by now.
        self.streams_end.cancel();
        connections.close();
        if tokio::time::timeout(CONNECTION_DRAIN, connections.wait())
            .await
            .is_err()
        {
            tracing::warn!("some HTTP connections were still open at shutdown");
        }
        HttpEnd { teardown_complete }
    }
}

/// Accepts connections on `listener` until `until` is cancelled, serving each on a task of
/// `connections` until it closes or `until` is cancelled (see [`serve_connection`]).
async fn accept_until(
    listener: &TcpListener,
    front: &Front,
    connections: &TaskTracker,
    until: &CancellationToken,
) {
    loop {
        let accepted = tokio::select! {
            () = until.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, peer)) => {
                connections.spawn(serve_connection(stream, peer, front.clone(), until.clone()));
            }
            Err(e) => {
                // Out of descriptors and the like: keep serving the open connections.
                tracing::warn!(error = %e, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Serves one TCP connection until it closes; on shutdown, lets the request in flight finish.
async fn serve_connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    front: Front,
    shutdown: CancellationToken,
) {
    let service = service_fn(move |request| {
        let front = front.clone();
        async move { Ok::<_, Infallible>(front.handle(request, peer).await) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = shutdown.cancelled() => {
            connection.as_mut().graceful_shutdown();
            match tokio::time::timeout(CONNECTION_DRAIN, connection.as_mut()).await {
                Ok(result) => result,
                Err(_) => return,
            }
        }
    };
    if let Err(e) = result {
        tracing::debug!(%peer, error = %e, "HTTP connection ended with an error");
    }
}

/// The bearer token: `--token-file`, else `DSH_MCP_TOKEN`, else none.
fn read_token(options: &HttpOptions) -> Result<Option<BearerToken>, HttpError> {
    let (token, source) = match &options.token_file {
        Some(path) => (
            std::fs::read_to_string(path).map_err(|source| HttpError::TokenFile {
                path: path.clone(),
                source,
            })?,
            format!("--token-file {}", path.display()),
        ),
        None => match std::env::var(TOKEN_ENV) {
            Ok(token) => (token, TOKEN_ENV.to_owned()),
            Err(_) => return Ok(None),
        },
    };
    let token = token.trim();
    if token.is_empty() {
        return Err(HttpError::EmptyToken(source));
    }
    Ok(Some(BearerToken::new(token)))
}
