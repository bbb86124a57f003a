//! Command-line options of `dsh-mcp`, also used to compose the root context.
//!
//! One definition serves both: `clap` parses it (so `--help` lists every option with its
//! default) and [`crate::compose`] turns it into plugin configs. [`Options::default`] equals
//! parsing an empty command line. Every default comes from the layer that owns the knob:
//! [`BashConfig::default`] (itself built on the engine's `PtySessionConfig::DEFAULT`) and
//! [`ToolTerminalConfig::default`]; nothing is restated here.

use std::path::PathBuf;
use std::time::Duration;

use dsh_terminal_bash::BashConfig;
use dsh_terminal_core::SilenceRule;
use dsh_tool_terminal::ToolTerminalConfig;

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
    #[arg(long, value_name = "PATH", default_value_os_t = BashConfig::default().shell_path)]
    pub shell: PathBuf,

    /// Initial working directory of new sessions when terminal_open gives no cwd
    /// [default: the server's current directory].
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Cap on the text of every tool result, in bytes (minimum 64).
    #[arg(long, value_name = "BYTES", default_value_t = ToolTerminalConfig::default().max_result_bytes)]
    pub max_result_bytes: usize,

    /// Cap on the `text` of one terminal_send, in bytes (minimum 1); larger input is refused
    /// with an error telling the model how to proceed.
    #[arg(long, value_name = "BYTES", default_value_t = ToolTerminalConfig::default().max_input_bytes)]
    pub max_input_bytes: usize,

    /// Offer `run_in_background` on terminal_send. Off by default: this server does not ship
    /// the jobs service (job_output / job_kill) yet, so a background send would fail with an
    /// error telling the model so [default: off].
    #[arg(long, default_value_t = false)]
    pub enable_run_in_background: bool,

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
    /// send waiting up to its timeout].
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

    /// Terminal height of new sessions, in rows.
    #[arg(long, value_name = "N", default_value_t = BashConfig::default().rows)]
    pub rows: u16,

    /// Terminal width of new sessions, in columns.
    #[arg(long, value_name = "N", default_value_t = BashConfig::default().cols)]
    pub cols: u16,
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
            // This host's own default (the tool layer's is on): no jobs service ships yet.
            enable_run_in_background: false,
            poll_interval_ms: bash.poll_interval_ms,
            exact_probe_after_ms: bash.exact_probe_after_ms,
            idle_silence_ms: bash.idle_silence_ms,
            idle_on_silence_alone: bash.silence_rule == SilenceRule::PureSilence,
            handoff_grace_ms: bash.handoff_grace_ms,
            timeout_ms: bash.timeout_ms,
            dispose_grace_ms: bash.dispose_grace_ms,
            rows: bash.rows,
            cols: bash.cols,
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
    fn teardown_deadline_grows_with_the_dispose_grace() {
        let mut options = Options::default();
        assert_eq!(options.teardown_deadline(), Duration::from_secs(16));
        options.dispose_grace_ms = u64::MAX;
        assert!(options.teardown_deadline() > Duration::from_secs(16));
    }
}
