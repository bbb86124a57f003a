//! The options of serving over HTTP (`--listen` and the settings that only apply with it).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Default most MCP sessions (agents) one HTTP server serves at once.
pub(crate) const DEFAULT_MAX_SESSIONS: usize = 32;
/// Default idle time after which an HTTP session is closed: 30 minutes. A request in flight
/// (a long send) keeps its session from idling out, so this only bounds how long the session of
/// a client that went away lives on.
pub(crate) const DEFAULT_SESSION_IDLE_TIMEOUT_MS: u64 = 30 * 60 * 1000;
/// Least `--session-idle-timeout-ms`: a session must outlive the pause between a client's
/// initialize and its first call (0 closed every session before its first call).
const MIN_SESSION_IDLE_TIMEOUT_MS: u64 = 1000;
/// The environment variable that may carry the bearer token (instead of `--token-file`).
pub const TOKEN_ENV: &str = "DSH_MCP_TOKEN";

/// Options of serving MCP Streamable HTTP (`--listen`).
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
#[command(next_help_heading = "Serving over HTTP (with --listen)")]
pub struct HttpOptions {
    /// Serve MCP Streamable HTTP on this address (e.g. 127.0.0.1:8080; port 0 picks a free
    /// port) at the path /mcp, instead of stdio. The bound address is printed on stderr as
    /// "dsh-mcp: listening on http://ADDR/mcp". Each MCP session (Mcp-Session-Id) is one agent;
    /// its terminals and jobs are closed, with every process they started, when the client
    /// deletes the session, when it stays idle for --session-idle-timeout-ms, or when the server
    /// stops. GET /healthz answers 200 while serving, 503 while shutting down [default: off:
    /// serve stdio].
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<SocketAddr>,

    /// File holding the bearer token every HTTP request must carry ("Authorization: Bearer
    /// TOKEN"; surrounding whitespace is ignored). Without it the token is read from the
    /// DSH_MCP_TOKEN environment variable. The server refuses to listen on a non-loopback
    /// address without a token [default: none: no token needed on a loopback address].
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,

    /// Browser origin allowed to call the server, as scheme://host or scheme://host:port
    /// (port * for any port, e.g. http://localhost:*; repeatable). A request with an Origin header not on this list is refused with 403;
    /// requests without Origin (non-browser clients) are served [default: none: every Origin is
    /// refused].
    #[arg(long, value_name = "ORIGIN")]
    pub allowed_origin: Vec<String>,

    /// Host header value (host or host:port; a host alone matches any port) the server answers
    /// to, against DNS rebinding (repeatable; * allows any host, e.g. behind a proxy that
    /// checks it). On a loopback address localhost, 127.0.0.1 and ::1 are always served and the
    /// values given add to them; on another address only the values given are served. A Host
    /// not served gets 403; a missing, repeated or malformed Host gets 400 [default: localhost,
    /// 127.0.0.1 and ::1 on a loopback address; any host on another address].
    #[arg(long, value_name = "HOST")]
    pub allowed_host: Vec<String>,

    /// Most MCP sessions served at once; an initialize beyond it is answered with 503.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SESSIONS)]
    pub max_sessions: usize,

    /// An HTTP session with no request for this long is closed with its terminals and jobs, in
    /// milliseconds (minimum 1000). A request in flight (e.g. a long send) or a background job
    /// still running keeps the session: the idle time counts from the end of its last request
    /// or job.
    #[arg(
        long,
        value_name = "MS",
        default_value_t = DEFAULT_SESSION_IDLE_TIMEOUT_MS,
        value_parser = clap::value_parser!(u64).range(MIN_SESSION_IDLE_TIMEOUT_MS..)
    )]
    pub session_idle_timeout_ms: u64,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            listen: None,
            token_file: None,
            allowed_origin: Vec::new(),
            allowed_host: Vec::new(),
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle_timeout_ms: DEFAULT_SESSION_IDLE_TIMEOUT_MS,
        }
    }
}

impl HttpOptions {
    /// The idle timeout as a duration.
    pub fn session_idle_timeout(&self) -> Duration {
        Duration::from_millis(self.session_idle_timeout_ms)
    }
}
