//! The six model-facing terminal tools: `terminal_open`, `terminal_send`, `terminal_read`,
//! `terminal_signal`, `terminal_close` and `terminal_list` (the seed's §4).
//!
//! [`ToolTerminalPlugin`] registers them on the `Tools` registry (`dsh-tools`) over the
//! `Terminals` service (`dsh-terminal-core`) and adds the `tool:pty` system-prompt section.
//! Every operation requires the exact initiating agent, so a model cannot reach another
//! agent's terminal even if it learns the id. Every single-text result — success, tool error,
//! invalid arguments, policy denial — is bounded by `max_result_bytes` exactly once in
//! `finalize_content` (seed §4.4).
//!
//! Renders live in [`render`] and are snapshot tested; argument and output types in [`schema`]
//! are the single source of the JSON Schemas the model sees.

#[cfg(not(target_os = "linux"))]
compile_error!(
    "dsh-tool-terminal supports Linux only: it drives dsh-terminal-core's Linux PTY sessions"
);

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use dsh_context::{Agent, BoxError, Plugin, Registrar, ServiceKey};
use dsh_invariants::Companion;
use dsh_jobs::JobRegistry;
use dsh_system_prompt::SystemPrompt;
use dsh_terminal_core::{
    CloseOutcome, DEFAULT_PAGE_LINES, ReadRequest, SendRequest, SessionId, SpawnRequest,
    TerminalError, TerminalErrorCode, TerminalSignal, Terminals,
};
use dsh_tools::{Card, CardKind, Content, Tool, ToolCall, ToolError, ToolResult, Tools};

fn generic_card(title: String, kind: &str) -> Card {
    Card {
        card: CardKind::Generic,
        title: Some(title),
        kind: Some(kind.to_owned()),
        ..Card::default()
    }
}

mod approval_wait;
mod background;
mod close_tool;
mod config;
mod fit;
mod progress;
mod queued_answer;
mod read_tool;
pub mod render;
pub mod schema;
mod send_starts;
mod send_tool;
mod signal_tool;

pub use background::JOB_KIND;
pub use config::{
    BACKGROUND_PROMPT_TEXT, DEFAULT_MAX_INPUT_BYTES, DEFAULT_MAX_RESULT_BYTES,
    DEFAULT_MAX_SEND_TIMEOUT_MS, MIN_MAX_RESULT_BYTES, PROMPT_SECTION_NAME, PROMPT_SECTION_ORDER,
    PROMPT_TEXT, STANDALONE_PROMPT_TEXT, ToolTerminalConfig,
};
pub use progress::PROGRESS_INTERVAL;

use close_tool::CloseTool;
use read_tool::ReadTool;
use schema::*;
use send_tool::SendTool;
use signal_tool::SignalTool;

struct Shared {
    terminals: Arc<Terminals>,
    config: ToolTerminalConfig,
    background: Option<background::Background>,
    send_starts: send_starts::SendStarts,
    queued_answers: queued_answer::QueuedAnswers,
}

impl Shared {
    fn finalize(&self, content: &[Content]) -> Option<Vec<Content>> {
        match content {
            [only] => only.as_text().map(|text| {
                vec![Content::text(render::bound_terminal_text(
                    text,
                    self.config.max_result_bytes,
                ))]
            }),
            _ => None,
        }
    }
}

/// Bounds text that goes into structured content to the same cap as the rendered text, so a
/// client that shows `structuredContent` to the model gets no more than `max_result_bytes`.
/// Returns the kept newest part and whether anything was cut.
fn bound_structured(text: String, max_bytes: usize) -> (String, bool) {
    if text.len() <= max_bytes {
        (text, false)
    } else {
        (render::tail_lines(&text, max_bytes), true)
    }
}

fn require_agent(call: &ToolCall) -> Result<Agent, ToolError> {
    call.agent
        .clone()
        .ok_or_else(|| ToolError::new("terminal tools require an initiating agent"))
}

/// Longest accepted session display name, in characters.
pub const MAX_NAME_CHARS: usize = 64;

/// A display name is shown on one line in every list: printable, not blank, bounded.
fn check_name(name: &str) -> Result<(), ToolError> {
    if name.trim().is_empty() || unicode_width::UnicodeWidthStr::width(name) == 0 {
        return Err(ToolError::new(
            "name must be a non-empty, visible string; omit it to open an unnamed session",
        ));
    }
    if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(ToolError::new(format!(
            "name must be at most {MAX_NAME_CHARS} printable characters (no newlines or control characters), such as \"main\" or \"gdb\""
        )));
    }
    Ok(())
}

/// Longest accepted `cwd`, in bytes: Linux's `PATH_MAX`, which no usable path exceeds.
pub const MAX_CWD_BYTES: usize = 4096;

/// `terminal_open`'s `type` and `cwd`: an empty (or blank) `cwd` is refused as an empty
/// `sessionId` is (it names no directory; omitting it is how the default is asked for); a
/// `cwd` longer than any path, or with control characters (a NUL ends a path early, a newline
/// splits the error), is refused without echoing it (it could fill the result and push out
/// the advice); an unknown type's error quotes it cut.
fn check_open_args(backend_type: &str, cwd: Option<&str>) -> Result<(), ToolError> {
    if backend_type.is_empty() {
        return Err(ToolError::new(
            "type must be a non-empty string; use \"shell\"",
        ));
    }
    // As an empty sessionId is: a cwd that names no directory is a mistake, not the default.
    if cwd.is_some_and(|cwd| cwd.trim().is_empty()) {
        return Err(ToolError::new(
            "cwd must be a non-empty path; pass an existing directory as cwd (absolute, or relative to where sessions start), or omit it to start in the host's working directory",
        ));
    }
    if cwd.is_some_and(|cwd| cwd.chars().any(char::is_control)) {
        return Err(ToolError::new(
            "cwd contains control characters (a NUL, a newline or an escape), which no usable path here has; pass an existing directory as cwd (absolute, or relative to where sessions start), or omit it",
        ));
    }
    if let Some(cwd) = cwd.filter(|cwd| cwd.len() > MAX_CWD_BYTES) {
        return Err(ToolError::new(format!(
            "cwd is {} bytes long, and a path is at most {MAX_CWD_BYTES}; pass an existing directory as cwd (absolute, or relative to where sessions start), or omit it",
            cwd.len()
        )));
    }
    Ok(())
}

/// The deadline a send asked for with `timeoutMs`, checked against the server's cap.
fn send_timeout(timeout_ms: Option<u64>, max_ms: u64) -> Result<Option<Duration>, ToolError> {
    match timeout_ms {
        None => Ok(None),
        Some(0) => Err(ToolError::new(
            "timeoutMs must be a positive number of milliseconds; omit it to use the server's default timeout",
        )),
        // A number past u64 never arrives here (validation refuses it), so `ms` is as sent.
        Some(ms) if ms > max_ms => Err(ToolError::new(format!(
            "timeoutMs is {ms}, above this server's cap of {max_ms} ms; send again with timeoutMs of at most {max_ms} (a send that times out leaves its command running; a later terminal_send or terminal_read shows what it printed)"
        ))),
        Some(ms) => Ok(Some(Duration::from_millis(ms))),
    }
}

fn session_id(raw: &str) -> Result<SessionId, ToolError> {
    if raw.trim().is_empty() {
        return Err(ToolError::new(
            "sessionId must be a non-empty string; use an id from terminal_open or terminal_list",
        ));
    }
    // No session has a longer id: refused without echoing it (it could fill the result).
    if raw.chars().count() > MAX_SESSION_ID_CHARS {
        return Err(ToolError::new(format!(
            "sessionId is {} characters long, and session ids are at most {MAX_SESSION_ID_CHARS} (such as \"pty-1\"); use an id from terminal_open or terminal_list",
            raw.chars().count()
        )));
    }
    // Refused without echoing it (see `id_argument`).
    let Some(id) = dsh_tools::id_argument(raw) else {
        return Err(ToolError::new(
            "sessionId contains control characters (a newline, a tab or an escape), which no session id has; use an id from terminal_open or terminal_list, such as \"pty-1\"",
        ));
    };
    Ok(SessionId::new(id))
}

/// How a call naming a session takes its place among the calls to that session when the host
/// orders them ([`dsh_tools::ArrivalOrder`]): a read, a signal or a close.
pub(crate) const SESSION_CALL: dsh_tools::Arrival = dsh_tools::Arrival {
    target_argument: "sessionId",
    queued: false,
};

/// [`SESSION_CALL`] for a send, which also waits for the sends before it still running, as a
/// command typed ahead waits for the one before it.
pub(crate) const QUEUED_SEND: dsh_tools::Arrival = dsh_tools::Arrival {
    queued: true,
    ..SESSION_CALL
};

/// Longest `sessionId` a call may name, in chars (the ids sessions get are like `pty-1`).
pub const MAX_SESSION_ID_CHARS: usize = 128;

/// The seed's error code name for a terminal error.
pub fn error_code_name(code: TerminalErrorCode) -> &'static str {
    match code {
        TerminalErrorCode::DuplicateBackend => "DUPLICATE_BACKEND",
        TerminalErrorCode::DuplicateName => "DUPLICATE_NAME",
        TerminalErrorCode::ForeignSession => "FOREIGN_SESSION",
        TerminalErrorCode::NoBackend => "NO_BACKEND",
        TerminalErrorCode::NoSession => "NO_SESSION",
        TerminalErrorCode::OwnerNotLive => "OWNER_NOT_LIVE",
        TerminalErrorCode::SendActive => "SEND_ACTIVE",
        TerminalErrorCode::InputPending => "INPUT_PENDING",
        TerminalErrorCode::ServiceDisposing => "SERVICE_DISPOSING",
        TerminalErrorCode::Closing => "CLOSING",
        TerminalErrorCode::Exited => "EXITED",
        TerminalErrorCode::InvalidRequest => "INVALID_REQUEST",
        TerminalErrorCode::Signal => "SIGNAL",
        TerminalErrorCode::Spawn => "SPAWN",
        TerminalErrorCode::Transport => "TRANSPORT",
        TerminalErrorCode::Cleanup => "CLEANUP",
        TerminalErrorCode::SessionLimit => "SESSION_LIMIT",
        _ => "TERMINAL",
    }
}

/// The error of a `terminal_open` whose call was cancelled before the session started.
const OPEN_ABORTED: &str = "terminal open aborted: the call was cancelled (or the server is shutting down) before the session started; no session was opened";

/// Pause between attempts to take a send slot that is still being released.
const SLOT_RETRY: std::time::Duration = std::time::Duration::from_millis(10);

/// Starts a send, retrying for up to `wait` while the session's previous send still holds the
/// slot (it is settling, or was just cancelled); any other error, or the slot still held at
/// the end, is returned.
async fn start_send_when_free(
    terminals: &Terminals,
    owner: &Agent,
    id: &SessionId,
    request: SendRequest,
    wait: std::time::Duration,
) -> Result<dsh_terminal_core::SendOperation, TerminalError> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match terminals.start_send(owner, id, request.clone()) {
            Err(e)
                if matches!(
                    e.code(),
                    TerminalErrorCode::SendActive | TerminalErrorCode::InputPending
                ) && tokio::time::Instant::now() < deadline =>
            {
                tokio::time::sleep(SLOT_RETRY).await;
            }
            other => return other,
        }
    }
}

fn terminal_error(e: TerminalError) -> ToolError {
    let code = error_code_name(e.code());
    ToolError::new(e.to_string()).with_code(code)
}

/// `terminal_open`.
struct OpenTool(Arc<Shared>);

impl Tool for OpenTool {
    type Args = OpenArgs;
    type Output = OpenOutput;

    fn name(&self) -> &'static str {
        "terminal_open"
    }
    fn description(&self) -> String {
        "Create a persistent, owner-isolated terminal session from a registered backend type. Use this for shell or REPL state that must survive across tool calls.".to_owned()
    }
    async fn execute(&self, args: OpenArgs, call: ToolCall) -> Result<OpenOutput, ToolError> {
        let owner = require_agent(&call)?;
        check_open_args(&args.backend_type, args.cwd.as_deref())?;
        if let Some(name) = &args.name {
            check_name(name)?;
        }
        let request = SpawnRequest {
            backend_type: args.backend_type,
            name: args.name,
            cwd: args.cwd.map(PathBuf::from),
        };
        let spawn = self.0.terminals.spawn(&owner, request);
        let result = tokio::select! {
            r = spawn => r.map_err(terminal_error)?,
            () = call.cancel.cancelled() => return Err(ToolError::new(OPEN_ABORTED).with_code("ABORTED")),
        };
        let mut result = result;
        (result.motd, _) = bound_structured(result.motd, self.0.config.max_result_bytes);
        Ok(OpenOutput::from(result))
    }
    fn render(&self, _args: &OpenArgs, out: &OpenOutput) -> String {
        render::render_spawn(out, self.0.config.max_result_bytes)
    }
    fn finalize_content(&self, content: &[Content]) -> Option<Vec<Content>> {
        self.0.finalize(content)
    }
    fn present_call(&self, args: &OpenArgs) -> Option<Card> {
        Some(generic_card(
            format!(
                "Open terminal {}",
                args.name.as_deref().unwrap_or(&args.backend_type)
            ),
            "execute",
        ))
    }
}

/// `terminal_list`.
struct ListTool(Arc<Shared>);

impl Tool for ListTool {
    type Args = ListArgs;
    type Output = ListOutput;

    fn name(&self) -> &'static str {
        "terminal_list"
    }
    fn description(&self) -> String {
        "List persistent terminal sessions owned by the current agent.".to_owned()
    }
    async fn execute(&self, _args: ListArgs, call: ToolCall) -> Result<ListOutput, ToolError> {
        let owner = require_agent(&call)?;
        let sessions = self.0.terminals.list(&owner);
        Ok(ListOutput {
            sessions: sessions.iter().map(SessionOutput::from).collect(),
        })
    }
    fn render(&self, _args: &ListArgs, out: &ListOutput) -> String {
        render::render_list(&out.sessions, self.0.config.max_result_bytes)
    }
    fn finalize_content(&self, content: &[Content]) -> Option<Vec<Content>> {
        self.0.finalize(content)
    }
    fn present_call(&self, _args: &ListArgs) -> Option<Card> {
        Some(generic_card("List terminal sessions".to_owned(), "read"))
    }
}

/// Registers the six tools with `tools`, over `terminals`; background sends run on `jobs` when
/// given.
///
/// # Errors
/// A registration error from the registry (e.g. a tool of the same name already exists).
pub fn register_tools(
    tools: &Tools,
    terminals: Arc<Terminals>,
    jobs: Option<Arc<dyn JobRegistry>>,
    config: ToolTerminalConfig,
) -> Result<(), BoxError> {
    let background = jobs
        .filter(|_| config.enable_run_in_background)
        .map(background::Background::new);
    let shared = Arc::new(Shared {
        terminals,
        config,
        background,
        send_starts: send_starts::SendStarts::default(),
        queued_answers: queued_answer::QueuedAnswers::default(),
    });
    tools.register(OpenTool(shared.clone()))?;
    tools.register(SendTool(shared.clone()))?;
    tools.register(ReadTool(shared.clone()))?;
    tools.register(SignalTool(shared.clone()))?;
    tools.register(CloseTool(shared.clone()))?;
    tools.register(ListTool(shared))?;
    Ok(())
}

/// Names of the six tools, in catalog (lexicographic) order.
pub const TOOL_NAMES: [&str; 6] = [
    "terminal_close",
    "terminal_list",
    "terminal_open",
    "terminal_read",
    "terminal_send",
    "terminal_signal",
];

/// The plugin: requires `Terminals`, `Tools` and `SystemPrompt` and uses the jobs service
/// (`dyn JobRegistry`) for background sends when present; registers the six tools and the
/// `tool:pty` prompt section, and removes them on dispose.
#[derive(Clone, Debug, Default)]
pub struct ToolTerminalPlugin {
    /// Validated at apply time.
    pub config: ToolTerminalConfig,
}

impl Plugin for ToolTerminalPlugin {
    fn name(&self) -> &str {
        "tool-terminal"
    }
    fn requires(&self) -> Vec<ServiceKey> {
        vec![
            ServiceKey::of::<Terminals>(),
            ServiceKey::of::<Tools>(),
            ServiceKey::of::<SystemPrompt>(),
        ]
    }
    fn optional(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<dyn JobRegistry>()]
    }
    fn validate_config(&self) -> Result<(), String> {
        self.config.validate()
    }
    fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
        let terminals = r.require::<Terminals>()?;
        let jobs = r.get::<dyn JobRegistry>();
        let tools = r.require::<Tools>()?;
        let prompt = r.require::<SystemPrompt>()?;
        register_tools(&tools, terminals, jobs, self.config.clone())?;
        prompt.section(
            PROMPT_SECTION_NAME,
            PROMPT_SECTION_ORDER,
            self.config.prompt_section(),
        )?;
        r.on_dispose(move || {
            Box::pin(async move {
                for name in TOOL_NAMES {
                    tools.unregister(name);
                }
                prompt.remove(PROMPT_SECTION_NAME);
            })
        });
        Ok(())
    }
}

/// This package's invariant companion. No runtime invariant: the adapter is stateless; session
/// state belongs to the `Terminals` service, which has its own companion.
pub fn invariant_companion() -> Companion {
    Companion::none(
        "dsh-tool-terminal",
        "no runtime invariant: this stateless adapter contributes tools and prompt guidance, while PTY lifecycle belongs to the Terminals service it composes",
    )
}
