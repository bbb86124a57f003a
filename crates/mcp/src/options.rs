//! Command-line options of `dsh-mcp`, also used to compose the root context.
//!
//! One definition serves both: `clap` parses it (so `--help` lists every option with its
//! default) and [`crate::compose`] turns it into plugin configs. [`Options::default`] equals
//! parsing an empty command line. Every default comes from the layer that owns the knob:
//! [`BashConfig::default`] (itself built on the engine's `PtySessionConfig::DEFAULT`) and
//! [`ToolTerminalConfig::default`]; nothing is restated here.

use std::path::PathBuf;
use std::time::Duration;

use dsh_sandbox::{DEFAULT_BWRAP, LimitMechanism, SandboxMode};
use dsh_terminal_bash::{BashConfig, EnvPass};
use dsh_terminal_core::SilenceRule;
use dsh_tool_terminal::ToolTerminalConfig;

mod http;

pub use http::{HttpOptions, TOKEN_ENV};

/// Default sandbox mode: `workspace-write` (see `docs/security.md` for why).
pub(crate) const DEFAULT_SANDBOX: SandboxMode = SandboxMode::WorkspaceWrite;
/// Default cap on the processes (and threads) of one session.
pub(crate) const DEFAULT_MAX_SESSION_PIDS: u64 = 1024;
/// Default cap on the memory of one session, in MiB.
pub(crate) const DEFAULT_MAX_SESSION_MEMORY_MIB: u64 = 4096;
/// Default most terminal sessions one agent may have open at once.
pub(crate) const DEFAULT_MAX_TERMINALS_PER_AGENT: usize = 16;
/// Default warm sessions kept per agent (the library's default is none).
pub(crate) const DEFAULT_WARM_SESSIONS: usize = 1;

/// The `--help` footer before the host-specific limits line.
const HELP_FOOTER: &str = "Logs go to stderr only; set RUST_LOG (e.g. RUST_LOG=info or \
    RUST_LOG=dsh_terminal_core=debug) to change the level (default: warn); rmcp's debug logs print \
    every call's arguments (text typed at password prompts too) and stay off unless RUST_LOG names \
    rmcp. Invalid options exit with status 2.";

/// Fixed part of the shutdown deadline, on top of twice the dispose grace.
const TEARDOWN_BASE: Duration = Duration::from_secs(10);

/// Options of the `dsh-mcp` server (the CLI). See the crate README for the table.
#[derive(Debug, Clone, PartialEq, Eq, clap::Parser)]
#[command(
    name = "dsh-mcp",
    version,
    about = "Serves persistent, owner-isolated terminal sessions to MCP clients over stdio or HTTP.",
    long_about = "Serves persistent, owner-isolated terminal sessions to MCP clients over stdio or HTTP.\n\n\
        With no arguments, dsh-mcp speaks MCP (JSON-RPC, one message per line) on stdin/stdout and \
        offers nine tools: terminal_open, terminal_send, terminal_read, terminal_signal, \
        terminal_close, terminal_list, and job_output, job_list, job_kill for sends run in the \
        background. The server's instructions are the assembled system prompt. Each MCP \
        connection is one agent; its jobs and sessions are ended, with every process they \
        started, when the client disconnects or the server receives SIGINT, SIGTERM or SIGHUP. \
        A finished background job's notice is appended to the connection's next tool result \
        and sent as a log notification. With --listen, dsh-mcp serves MCP Streamable HTTP \
        instead, and each MCP session is one agent.",
    after_help = HELP_FOOTER
)]
pub struct Options {
    /// Shell that `terminal_open {"type":"shell"}` launches (bash).
    #[arg(long, value_name = "PATH", default_value_os_t = BashConfig::default().shell_path)]
    pub shell: PathBuf,

    /// Initial working directory of new sessions when terminal_open gives no cwd; with
    /// --workspace, it must lie inside it [default: --workspace, else the server's current
    /// directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Cap on the text of every tool result, in bytes (minimum 64).
    #[arg(long, value_name = "BYTES", default_value_t = ToolTerminalConfig::default().max_result_bytes)]
    pub max_result_bytes: usize,

    /// Cap on the `text` of one terminal_send, in bytes (minimum 1); larger input is refused
    /// with an error telling the model how to proceed.
    #[arg(long, value_name = "BYTES", default_value_t = ToolTerminalConfig::default().max_input_bytes)]
    pub max_input_bytes: usize,

    /// Largest `timeoutMs` one terminal_send may ask for, in milliseconds (minimum 1); a larger
    /// value is refused with an error naming this cap.
    #[arg(long, value_name = "MS", default_value_t = ToolTerminalConfig::default().max_send_timeout_ms)]
    pub max_send_timeout_ms: u64,

    /// Remove `run_in_background` from terminal_send, and with it the job tools (job_output,
    /// job_list, job_kill) and their guidance: background sends are this server's only jobs.
    #[arg(long, default_value_t = false)]
    pub disable_run_in_background: bool,

    /// Most terminal sessions one agent may have open (or being opened) at once, an exited one
    /// counting until terminal_close; terminal_open beyond it fails with an error telling the
    /// model to close one; 0 = no cap.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TERMINALS_PER_AGENT)]
    pub max_terminals_per_agent: usize,

    /// Sessions kept started per agent, unlisted, for its next terminal_open with the same type
    /// and cwd (which then returns at once instead of waiting for the shell to start; the first,
    /// a shell with no cwd, starts as the agent connects): each is an idle shell, not counted in
    /// --max-terminals-per-agent, closed with its agent; 0 = off.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_WARM_SESSIONS)]
    pub warm_sessions: usize,

    /// Live background jobs one connection may run at once (at least 1).
    #[arg(long, value_name = "N", default_value_t = dsh_jobs::JobsConfig::default().max_concurrent_jobs_per_owner)]
    pub max_concurrent_jobs_per_owner: usize,

    /// Longest pause between readiness probes of the foreground job, in milliseconds (probes
    /// run as soon as output goes quiet, then back off up to this).
    #[arg(long, value_name = "MS", default_value_t = BashConfig::default().poll_interval_ms)]
    pub poll_interval_ms: u64,

    /// Earliest time after a write that the exact "blocked reading the terminal" probe may
    /// settle a send, in milliseconds (0: the kernel's evidence alone decides).
    #[arg(long, value_name = "MS", default_value_t = BashConfig::default().exact_probe_after_ms)]
    pub exact_probe_after_ms: u64,

    /// Output silence after which a send settles as `inferred_idle`, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = BashConfig::default().idle_silence_ms)]
    pub idle_silence_ms: u64,

    /// Settle a send on output silence alone (the seed's rule), even while the kernel says the
    /// foreground job is computing or sleeping on a timer [default: off: such a job keeps the
    /// send waiting up to its timeout, unless it shows a full-screen program's alternate
    /// screen].
    #[arg(long, default_value_t = false)]
    pub idle_on_silence_alone: bool,

    /// Extra output silence required for `inferred_idle` once a prompt mark was seen during the
    /// send (the shell handing the terminal back), in milliseconds; at least the poll interval.
    #[arg(long, value_name = "MS", default_value_t = BashConfig::default().handoff_grace_ms)]
    pub handoff_grace_ms: u64,

    /// Absolute deadline of one send, in milliseconds (the send settles as `timeout`).
    #[arg(long, value_name = "MS", default_value_t = BashConfig::default().timeout_ms)]
    pub timeout_ms: u64,

    /// Grace between the polite signals and SIGKILL when a session closes, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = BashConfig::default().dispose_grace_ms)]
    pub dispose_grace_ms: u64,

    /// Terminal height of new sessions, in rows (at most 1000).
    #[arg(long, value_name = "N", default_value_t = BashConfig::default().rows)]
    pub rows: u16,

    /// Terminal width of new sessions, in columns (at most 1000).
    #[arg(long, value_name = "N", default_value_t = BashConfig::default().cols)]
    pub cols: u16,

    /// How far every session is confined: `read-only` (the host's files are read-only, /tmp
    /// is private and empty, the workspace is visible read-only), `workspace-write` (the same,
    /// but the workspace is writable) or `danger-full-access` (no confinement: sessions can
    /// do anything the server can). Confined modes also give each session private /dev/pts,
    /// process, IPC and host-name namespaces, no admin capabilities (even under root) and, unless
    /// --allow-network, no network; they need bubblewrap (--bwrap).
    #[arg(long, value_name = "MODE", default_value_t = DEFAULT_SANDBOX)]
    pub sandbox: SandboxMode,

    /// The workspace root: writable in workspace-write, read-only in read-only, and the
    /// working directory of sessions opened without a cwd unless --cwd names one inside it
    /// [default: --cwd, else the server's current directory].
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,

    /// Let confined sessions use the host's network; without it they get a private network
    /// namespace with only a loopback device. With --listen, sessions then reach this
    /// server's own address too: serve HTTP with a token from DSH_MCP_TOKEN (sessions can read
    /// a --token-file, as every host file) [default: off].
    #[arg(long, default_value_t = false)]
    pub allow_network: bool,

    /// The bubblewrap program that confines sessions: a path, or a bare name looked up in
    /// PATH as a shell would.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_BWRAP)]
    pub bwrap: PathBuf,

    /// Most processes (and threads) one session may have at once; 0 = no cap. Enforced per
    /// session with the host's mechanism (shown at the end of this help).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SESSION_PIDS)]
    pub max_session_pids: u64,

    /// Most memory one session's processes may use together, in MiB; 0 = no cap.
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_MAX_SESSION_MEMORY_MIB)]
    pub max_session_memory_mib: u64,

    /// Refuse terminal_send input with a line matching this regular expression (repeatable;
    /// searched anywhere in each line, anchor with ^; a guard rail, not a boundary: it checks
    /// the line typed, with its editing keys applied, not text recalled from history, aliases
    /// or scripts) [default: none].
    #[arg(long, value_name = "REGEX")]
    pub deny_command: Vec<String>,

    /// Ask the human to approve terminal_send input with a line matching this regular
    /// expression (repeatable), through MCP elicitation; clients without elicitation get a
    /// denial; a question left unanswered past the approval deadline, or whose session closes
    /// meanwhile, is withdrawn and the send denied [default: none].
    #[arg(long, value_name = "REGEX", long_help = ask_command_long_help())]
    pub ask_command: Vec<String>,

    /// Exempt lines matching this regular expression from --ask-command (repeatable; never
    /// from --deny-command) [default: none].
    #[arg(long, value_name = "REGEX")]
    pub allow_command: Vec<String>,

    /// Longest incoming JSON-RPC message (one line) served, in bytes (minimum 1024); a longer
    /// line is discarded and answered with an error naming this limit.
    #[arg(long, value_name = "BYTES", default_value_t = crate::transport::DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_message_bytes: usize,

    /// Pass an environment variable to sessions: NAME copies the server's value, NAME=VALUE
    /// sets one. Repeatable; overrides the defaults.
    #[arg(long = "env", value_name = "NAME[=VALUE]", long_help = env_long_help())]
    pub env: Vec<EnvPass>,

    /// Sessions inherit the server's whole environment minus what looks like a credential
    /// [default: off: only the allowlist and --env].
    #[arg(long, default_value_t = false, long_help = inherit_env_long_help())]
    pub inherit_env: bool,

    /// Serving over HTTP.
    #[command(flatten)]
    pub http: HttpOptions,
}

/// `--ask-command`'s long help, with the approval deadline from the pipeline's own constant.
fn ask_command_long_help() -> String {
    format!(
        "Ask the human to approve terminal_send input with a line matching this regular \
         expression (repeatable), through MCP elicitation; clients without elicitation get a \
         denial. A question unanswered for {} minutes, or whose session closes meanwhile, is \
         withdrawn (the client is sent notifications/cancelled) and the send denied; nothing \
         runs [default: none]",
        dsh_tools::APPROVAL_TIMEOUT.as_secs() / 60
    )
}

/// `--env`'s long help: the rule and the default allowlist, from the backend's own lists.
fn env_long_help() -> String {
    let allowed: Vec<String> = dsh_terminal_bash::env::ALLOWED_HOST_VARS
        .iter()
        .map(|name| (*name).to_owned())
        .collect();
    format!(
        "Pass an environment variable to sessions: NAME copies the server's value (nothing when \
         it has none), NAME=VALUE sets one. Repeatable; a later --env of the same name wins, and \
         it overrides the defaults. DSH_* names are refused: the backend sets them.\n\n\
         By default sessions see only these server variables (no credentials reach a command): \
         {}. Sessions always get a UTF-8 character locale: when the server's is not UTF-8 and \
         not passed with --env, LC_CTYPE (or LC_ALL, if the server sets it) becomes {}.\n\n\
         [default: none]",
        allowed.join(", "),
        dsh_terminal_bash::env::FALLBACK_UTF8_LOCALE
    )
}

fn inherit_env_long_help() -> String {
    use dsh_terminal_bash::env::{SCRUBBED_NAME_PARTS, SCRUBBED_NAME_WORDS};
    format!(
        "Sessions inherit the server's whole environment minus what looks like a credential: \
         names containing {} (case-insensitively), or with a word (between _s) {} (DB_PASS, \
         LDAP_BIND_PW, GH_PAT, STRIPE_SK; not PWD alone), names ending in PASS (PGPASS) or \
         _SESSION or starting with OP_SESSION_ (a password manager's session), and values holding a URL with a \
         user or password (postgres://u:pw@db, http://token@proxy), a connection string's, \
         query's or option's secret (Server=db;Password=…, AccountKey=…, ?api_key=…, a SAS \
         sig=…, X-Amz-Signature=…, --password=…), an Authorization header or a Bearer or \
         Basic credential, a JSON field whose name holds token, secret, password, api key, \
         credential or auth (\"access_token\"), a netrc password, a private key, a chat \
         webhook URL, or a token of a well-known issuer's shape (ghp_…, glpat-…, xoxb-…, \
         sk-ant-…, hf_…, AKIA…). A name rule misses some: prefer --env.\n\n\
         [default: off: only the allowlist and --env]",
        SCRUBBED_NAME_PARTS.join("|"),
        SCRUBBED_NAME_WORDS.join("|"),
    )
}

impl Default for Options {
    fn default() -> Self {
        let bash = BashConfig::default();
        let tools = ToolTerminalConfig::default();
        Self {
            shell: bash.shell_path,
            cwd: None,
            max_result_bytes: tools.max_result_bytes,
            max_input_bytes: tools.max_input_bytes,
            max_send_timeout_ms: tools.max_send_timeout_ms,
            disable_run_in_background: false,
            max_terminals_per_agent: DEFAULT_MAX_TERMINALS_PER_AGENT,
            warm_sessions: DEFAULT_WARM_SESSIONS,
            max_concurrent_jobs_per_owner: dsh_jobs::JobsConfig::default()
                .max_concurrent_jobs_per_owner,
            poll_interval_ms: bash.poll_interval_ms,
            exact_probe_after_ms: bash.exact_probe_after_ms,
            idle_silence_ms: bash.idle_silence_ms,
            idle_on_silence_alone: bash.silence_rule == SilenceRule::PureSilence,
            handoff_grace_ms: bash.handoff_grace_ms,
            timeout_ms: bash.timeout_ms,
            dispose_grace_ms: bash.dispose_grace_ms,
            rows: bash.rows,
            cols: bash.cols,
            sandbox: DEFAULT_SANDBOX,
            workspace: None,
            allow_network: false,
            bwrap: PathBuf::from(DEFAULT_BWRAP),
            max_session_pids: DEFAULT_MAX_SESSION_PIDS,
            max_session_memory_mib: DEFAULT_MAX_SESSION_MEMORY_MIB,
            deny_command: Vec::new(),
            ask_command: Vec::new(),
            allow_command: Vec::new(),
            max_message_bytes: crate::transport::DEFAULT_MAX_MESSAGE_BYTES,
            env: Vec::new(),
            inherit_env: false,
            http: HttpOptions::default(),
        }
    }
}

impl Options {
    /// The clap command with this host's facts in the `--help` footer (which mechanism
    /// enforces the per-session limits here). Parse with it instead of `Options::parse`.
    pub fn command_for_this_host() -> clap::Command {
        <Self as clap::CommandFactory>::command().after_help(format!(
            "{HELP_FOOTER}\n\nPer-session limits on this host: {}.",
            LimitMechanism::detect().describe()
        ))
    }

    /// How long shutdown waits for one teardown step (an agent's sessions, then the root
    /// context) before it gives up, logs, and moves on: 10 s plus twice `dispose_grace_ms`.
    pub fn teardown_deadline(&self) -> Duration {
        TEARDOWN_BASE.saturating_add(Duration::from_millis(
            self.dispose_grace_ms.saturating_mul(2),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn default_equals_an_empty_command_line() {
        assert_eq!(Options::parse_from(["dsh-mcp"]), Options::default());
    }

    #[test]
    fn clap_definition_is_consistent() {
        <Options as clap::CommandFactory>::command().debug_assert();
    }

    #[test]
    fn env_options_parse_and_refuse_bad_names() {
        let options =
            Options::try_parse_from(["dsh-mcp", "--env", "A", "--env", "B=1=2", "--inherit-env"])
                .unwrap_or_else(|e| panic!("{e}"));
        let passed: Vec<(&str, Option<&str>)> =
            options.env.iter().map(|p| (p.name(), p.value())).collect();
        assert_eq!(passed, vec![("A", None), ("B", Some("1=2"))]);
        assert!(options.inherit_env);
        let e = Options::try_parse_from(["dsh-mcp", "--env", "DSH_SHELL=0"])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("DSH_SHELL is reserved"), "{e}");
    }

    #[test]
    fn warm_sessions_default_to_one_and_parse() {
        assert_eq!(Options::default().warm_sessions, 1);
        let options = Options::try_parse_from(["dsh-mcp", "--warm-sessions", "0"])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(options.warm_sessions, 0);
    }

    #[test]
    fn teardown_deadline_grows_with_the_dispose_grace() {
        let mut options = Options::default();
        assert_eq!(options.teardown_deadline(), Duration::from_secs(16));
        options.dispose_grace_ms = u64::MAX;
        assert!(options.teardown_deadline() > Duration::from_secs(16));
    }
}
