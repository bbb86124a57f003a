//! Command-line options of `dsh-mcp`, also used to compose the root context.
//!
//! One definition serves both: `clap` parses it (so `--help` lists every option with its
//! default) and [`crate::compose`] turns it into plugin configs. [`Options::default`] equals
//! parsing an empty command line.

use std::path::PathBuf;
use std::time::Duration;

use dsh_terminal_bash::EnvPass;

/// Default shell for the `shell` backend.
pub const DEFAULT_SHELL: &str = "/bin/bash";
/// Default cap on every tool result's text, in bytes (seed `maxResultBytes`).
pub const DEFAULT_MAX_RESULT_BYTES: usize = dsh_tool_terminal::DEFAULT_MAX_RESULT_BYTES;
/// Default cap on the `text` of one `terminal_send`, in bytes.
pub const DEFAULT_MAX_INPUT_BYTES: usize = dsh_tool_terminal::DEFAULT_MAX_INPUT_BYTES;
/// Default readiness poll interval, in milliseconds.
pub const DEFAULT_POLL_INTERVAL_MS: u64 = 50;
/// Default delay before the exact stdin-read probe, in milliseconds.
pub const DEFAULT_EXACT_PROBE_AFTER_MS: u64 = 150;
/// Default output-silence window that settles a send as `inferred_idle`, in milliseconds.
pub const DEFAULT_IDLE_SILENCE_MS: u64 = 3_000;
/// Default grace after the write before a program that was already reading counts, in ms.
pub const DEFAULT_HANDOFF_GRACE_MS: u64 = 500;
/// Default absolute deadline of one send, in milliseconds.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// Default grace between SIGHUP/SIGTERM and SIGKILL when a session closes, in milliseconds.
pub const DEFAULT_DISPOSE_GRACE_MS: u64 = 3_000;
/// Default terminal height, in rows.
pub const DEFAULT_ROWS: u16 = 40;
/// Default terminal width, in columns.
pub const DEFAULT_COLS: u16 = 160;

/// Fixed part of the shutdown deadline, on top of twice the dispose grace.
const TEARDOWN_BASE: Duration = Duration::from_secs(10);

/// Options of the `dsh-mcp` server (the CLI). See the crate README for the table.
#[derive(Debug, Clone, PartialEq, Eq, clap::Parser)]
#[command(
    name = "dsh-mcp",
    version,
    about = "Serves persistent, owner-isolated terminal sessions to MCP clients over stdio.",
    long_about = "Serves persistent, owner-isolated terminal sessions to MCP clients over stdio.\n\n\
        With no arguments, dsh-mcp speaks MCP (JSON-RPC, one message per line) on stdin/stdout and \
        offers six tools: terminal_open, terminal_send, terminal_read, terminal_signal, \
        terminal_close and terminal_list. The server's instructions are the assembled system \
        prompt. Each MCP connection is one agent; its sessions are closed, with every process \
        they started, when the client disconnects or the server receives SIGINT, SIGTERM or SIGHUP.",
    after_help = "Logs go to stderr only; set RUST_LOG (e.g. RUST_LOG=info or \
        RUST_LOG=dsh_terminal_core=debug) to change the level (default: warn). Invalid options exit with status 2."
)]
pub struct Options {
    /// Shell that `terminal_open {"type":"shell"}` launches (bash).
    #[arg(long, value_name = "PATH", default_value = DEFAULT_SHELL)]
    pub shell: PathBuf,

    /// Initial working directory of new sessions when terminal_open gives no cwd
    /// [default: the server's current directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Cap on the text of every tool result, in bytes (minimum 64).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_RESULT_BYTES)]
    pub max_result_bytes: usize,

    /// Cap on the `text` of one terminal_send, in bytes (minimum 1); larger input is refused
    /// with an error telling the model how to proceed.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_INPUT_BYTES)]
    pub max_input_bytes: usize,

    /// Offer `run_in_background` on terminal_send. Off by default: this server does not ship
    /// the jobs service (job_output / job_kill) yet, so a background send would fail with an
    /// error telling the model so [default: off].
    #[arg(long, default_value_t = false)]
    pub enable_run_in_background: bool,

    /// Readiness poll interval, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_POLL_INTERVAL_MS)]
    pub poll_interval_ms: u64,

    /// Delay after a write before the exact "blocked reading the terminal" probe, in
    /// milliseconds.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_EXACT_PROBE_AFTER_MS)]
    pub exact_probe_after_ms: u64,

    /// Output silence after which a send settles as `inferred_idle`, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_IDLE_SILENCE_MS)]
    pub idle_silence_ms: u64,

    /// Extra output silence required for `inferred_idle` once a prompt mark was seen during the
    /// send (the shell handing the terminal back), in milliseconds; at least the poll interval.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_HANDOFF_GRACE_MS)]
    pub handoff_grace_ms: u64,

    /// Absolute deadline of one send, in milliseconds (the send settles as `timeout`).
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_TIMEOUT_MS)]
    pub timeout_ms: u64,

    /// Grace between the polite signals and SIGKILL when a session closes, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_DISPOSE_GRACE_MS)]
    pub dispose_grace_ms: u64,

    /// Terminal height of new sessions, in rows.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_ROWS)]
    pub rows: u16,

    /// Terminal width of new sessions, in columns.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_COLS)]
    pub cols: u16,

    /// Longest incoming JSON-RPC message (one line) served, in bytes (minimum 1024); a longer
    /// line is discarded and answered with an error naming this limit.
    #[arg(long, value_name = "BYTES", default_value_t = crate::transport::DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_message_bytes: usize,

    /// Pass an environment variable to sessions: NAME copies the server's value, NAME=VALUE
    /// sets one. Repeatable; overrides the defaults.
    #[arg(long = "env", value_name = "NAME[=VALUE]", long_help = env_long_help())]
    pub env: Vec<EnvPass>,

    /// Sessions inherit the server's whole environment minus names matching
    /// KEY|PASSWORD|SECRET|TOKEN (the behaviour before the allowlist) [default: off: only the
    /// allowlist and --env].
    #[arg(long, default_value_t = false)]
    pub inherit_env: bool,
}

/// `--env`'s long help: the rule and the default allowlist, from the backend's own lists.
fn env_long_help() -> String {
    let mut allowed: Vec<String> = dsh_terminal_bash::env::ALLOWED_HOST_VARS
        .iter()
        .map(|name| (*name).to_owned())
        .collect();
    allowed.extend(
        dsh_terminal_bash::env::ALLOWED_HOST_PREFIXES
            .iter()
            .map(|prefix| format!("{prefix}*")),
    );
    format!(
        "Pass an environment variable to sessions: NAME copies the server's value (nothing when \
         it has none), NAME=VALUE sets one. Repeatable; a later --env of the same name wins, and \
         it overrides the defaults (but not the DSH_* variables the backend sets).\n\n\
         By default sessions see only these server variables (no credentials reach a command): \
         {}. Sessions always get a UTF-8 character locale: when the server's is not UTF-8 and \
         not passed with --env, LC_CTYPE (or LC_ALL, if the server sets it) becomes {}.\n\n\
         [default: none]",
        allowed.join(", "),
        dsh_terminal_bash::env::FALLBACK_UTF8_LOCALE
    )
}

impl Default for Options {
    fn default() -> Self {
        Self {
            shell: PathBuf::from(DEFAULT_SHELL),
            cwd: None,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            enable_run_in_background: false,
            poll_interval_ms: DEFAULT_POLL_INTERVAL_MS,
            exact_probe_after_ms: DEFAULT_EXACT_PROBE_AFTER_MS,
            idle_silence_ms: DEFAULT_IDLE_SILENCE_MS,
            handoff_grace_ms: DEFAULT_HANDOFF_GRACE_MS,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            dispose_grace_ms: DEFAULT_DISPOSE_GRACE_MS,
            rows: DEFAULT_ROWS,
            cols: DEFAULT_COLS,
            max_message_bytes: crate::transport::DEFAULT_MAX_MESSAGE_BYTES,
            env: Vec::new(),
            inherit_env: false,
        }
    }
}

impl Options {
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
    fn teardown_deadline_grows_with_the_dispose_grace() {
        let mut options = Options::default();
        assert_eq!(options.teardown_deadline(), Duration::from_secs(16));
        options.dispose_grace_ms = u64::MAX;
        assert!(options.teardown_deadline() > Duration::from_secs(16));
    }
}
