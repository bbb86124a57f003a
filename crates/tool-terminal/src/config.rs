//! The adapter's configuration and its defaults: the one home of each knob's default, unit
//! and bounds (dsh-mcp's options reuse them).

/// Default cap for one complete model-facing result (32 KiB): room for the command line, the
/// first lines and the newest output of a long run, small enough not to crowd a model's context.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 32 * 1024;
/// Smallest cap: keeps every `pty-N` / job id visible in its acknowledgement.
pub const MIN_MAX_RESULT_BYTES: usize = 64;
/// Default cap for the `text` of one `terminal_send` (64 KiB).
pub const DEFAULT_MAX_INPUT_BYTES: usize = 64 * 1024;
/// Default cap on the `timeoutMs` a `terminal_send` may ask for (10 minutes).
pub const DEFAULT_MAX_SEND_TIMEOUT_MS: u64 = 600_000;

/// The `tool:pty` system-prompt section (seed §4.1 wording).
pub const PROMPT_SECTION_NAME: &str = "tool:pty";
/// Order of the section (tool guidance band, seed §7.3).
pub const PROMPT_SECTION_ORDER: i32 = 106;
/// The guidance both prompt texts end with (one home for it).
macro_rules! guidance_tail {
    () => {
        " Track every terminal session id and close sessions that no longer matter. An inferred_idle or timeout result does not prove the foreground command exited."
    };
}

/// Guidance the `tool:pty` section adds after its text while background sends are enabled
/// (`run_in_background`); without them there are no jobs to speak of.
pub const BACKGROUND_PROMPT_TEXT: &str = "job_kill interrupts a background send's command as Ctrl-C would, then sends it SIGTERM and SIGKILL while it keeps running. A background send's job also ends when its command stops at a prompt of its own (its status then says what waits for input): that program still runs, the next send to that session answers its prompt (or goes to the shell or REPL the job started), and until then job_kill of the job stops it.";

/// The guidance text.
pub const PROMPT_TEXT: &str = concat!(
    "Use a terminal session only when work needs persistent terminal state or interactive stdin; prefer shell/read/write/edit for bounded one-shot operations.",
    guidance_tail!()
);
/// The `tool:pty` section for a host whose only command tools are these (such as `dsh-mcp`):
/// the seed's guidance without its pointer to one-shot shell / read / write / edit tools,
/// which such a host does not have.
pub const STANDALONE_PROMPT_TEXT: &str = concat!(
    "Run commands in terminal sessions: a session keeps its working directory, environment and running programs between sends, and a program waiting for input can be answered. Reuse a session for related steps rather than opening one per command.",
    guidance_tail!()
);

/// Configuration (seed §4.1 keys, snake_case).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolTerminalConfig {
    /// Expose and accept `run_in_background` (default true, as in the seed). Background sends
    /// run as `pty-send` jobs on the jobs service (`dsh-jobs` with `dsh-tool-jobs`); without it
    /// they are answered with an error naming what is missing.
    pub enable_run_in_background: bool,
    /// UTF-8 byte cap for each complete result (default 32768, minimum 64). A send's output
    /// that does not fit keeps its first lines and its newest lines, with a line between them
    /// saying what was left out and how to page it with `terminal_read`.
    pub max_result_bytes: usize,
    /// Byte cap for the `text` of one send (default 65536, minimum 1). Larger input is
    /// refused with an error that says how to proceed.
    pub max_input_bytes: usize,
    /// Largest `timeoutMs` one `terminal_send` may ask for, in milliseconds (default 600000,
    /// minimum 1). A larger value is refused with an error naming this cap; a send without
    /// `timeoutMs` keeps the backend's configured timeout.
    pub max_send_timeout_ms: u64,
    /// The `tool:pty` system-prompt section (default [`PROMPT_TEXT`], the seed's wording, for
    /// hosts that also offer one-shot shell and file tools; [`STANDALONE_PROMPT_TEXT`] for a
    /// host that does not). [`BACKGROUND_PROMPT_TEXT`] follows it while
    /// `enable_run_in_background` is on.
    pub prompt_text: &'static str,
}

impl Default for ToolTerminalConfig {
    fn default() -> Self {
        Self {
            enable_run_in_background: true,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            max_send_timeout_ms: DEFAULT_MAX_SEND_TIMEOUT_MS,
            prompt_text: PROMPT_TEXT,
        }
    }
}

impl ToolTerminalConfig {
    /// The `tool:pty` section's text: [`Self::prompt_text`], then the background guidance
    /// when background sends are enabled.
    pub fn prompt_section(&self) -> String {
        if self.enable_run_in_background {
            format!("{} {BACKGROUND_PROMPT_TEXT}", self.prompt_text)
        } else {
            self.prompt_text.to_owned()
        }
    }

    /// Checks the bounds.
    ///
    /// # Errors
    /// `tool-terminal: max_result_bytes must be an integer of at least 64` (seed §4.1),
    /// `tool-terminal: max_input_bytes must be at least 1`, or
    /// `tool-terminal: max_send_timeout_ms must be at least 1`.
    pub fn validate(&self) -> Result<(), String> {
        if self.max_result_bytes < MIN_MAX_RESULT_BYTES {
            return Err(format!(
                "tool-terminal: max_result_bytes must be an integer of at least {MIN_MAX_RESULT_BYTES} (got {})",
                self.max_result_bytes
            ));
        }
        if self.max_input_bytes == 0 {
            return Err("tool-terminal: max_input_bytes must be at least 1".to_owned());
        }
        if self.max_send_timeout_ms == 0 {
            return Err("tool-terminal: max_send_timeout_ms must be at least 1".to_owned());
        }
        Ok(())
    }
}
