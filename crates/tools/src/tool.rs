//! The tool contract: the [`Tool`] trait and the values that cross it.

use std::fmt;
use std::future::Future;

use std::sync::Arc;

use dsh_context::Agent;
use tokio_util::sync::CancellationToken;

use crate::approval::Approval;

/// Machine-readable error codes used by the registry (tools may use their own).
pub mod codes {
    /// Arguments failed schema validation or deserialization.
    pub const INVALID_ARGS: &str = "INVALID_ARGS";
    /// No tool with that name is registered.
    pub const UNKNOWN_TOOL: &str = "UNKNOWN_TOOL";
    /// The caller cancelled before the tool body started.
    pub const ABORTED_BEFORE_DISPATCH: &str = "ABORTED_BEFORE_DISPATCH";
    /// The caller cancelled while the tool ran; its success was discarded.
    pub const ABORTED: &str = "ABORTED";
    /// A pre-execute policy denied the call.
    pub const DENIED: &str = "DENIED";
    /// The tool's output did not match its own output schema (a tool bug).
    pub const INVALID_TOOL_OUTPUT: &str = "INVALID_TOOL_OUTPUT";
    /// The tool (or a policy or finalizer) panicked (a bug; the host keeps running).
    pub const INTERNAL: &str = "INTERNAL";
}

/// One progress report of a running call: a number that grows as work is done (its unit is
/// the tool's, e.g. bytes of output) and an optional short message (e.g. the last output line).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolProgress {
    /// Grows with every report.
    pub progress: f64,
    /// A short human-readable status.
    pub message: Option<String>,
}

/// Where a call's progress reports go (set by a host whose caller asked for progress).
#[derive(Clone)]
pub struct ProgressSink(Arc<dyn Fn(ToolProgress) + Send + Sync>);

impl ProgressSink {
    /// A sink calling `f` for every report (it must return quickly).
    pub fn new(f: impl Fn(ToolProgress) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// Reports progress.
    pub fn report(&self, progress: ToolProgress) {
        (self.0)(progress);
    }
}

impl fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressSink")
    }
}

/// Per-call context handed to [`Tool::execute`].
#[derive(Clone)]
pub struct ToolCall {
    /// The calling owner, when the host has one (one per MCP connection).
    pub agent: Option<Agent>,
    /// Cancelled when the caller gives up on this call. Tools that wait should observe it.
    pub cancel: CancellationToken,
    /// Cancelled when the call's answer can no longer reach the caller, who did not cancel it
    /// (an HTTP client that disconnected while the call ran: MCP's Streamable HTTP takes a
    /// disconnection for the network's, so the call goes on). A tool whose later calls can
    /// carry what this answer held (a terminal's output) should keep it for them.
    pub answer_lost: CancellationToken,
    /// Cancelled when the connection (or MCP session) the call came on ends: its client went
    /// away or the server shuts down, and the caller's agent, with every job and terminal of
    /// it, is disposed next. A tool that stops because of it says so, not that what it
    /// waited on stays for a later call.
    pub closing: CancellationToken,
    /// The host's id for this call (logging and tracing only).
    pub call_id: String,
    /// Who answers when a policy asks for approval of this call; without it the agent's scope
    /// is searched for an [`Approval`] service, and without one an `ask` is denied.
    pub approval: Option<Arc<dyn Approval>>,
    /// Where long-running tools report progress, when the caller asked for it.
    pub progress: Option<ProgressSink>,
    /// When a policy asked a human to approve this call and the approval came: the moment
    /// it was asked (set by the registry). A tool whose effect depends on state that may have
    /// changed while the human decided (a terminal that took other input meanwhile) can
    /// refuse the call then rather than act on a state nobody approved.
    pub approval_asked_at: Option<std::time::Instant>,
    /// The call's place among the calls the host received for the same target (a terminal
    /// session), when the host orders them: a tool acting on that target waits for its turn
    /// ([`ToolCall::arrival_turn`]) and marks when it started and is done
    /// ([`ToolCall::arrival_started`], [`ToolCall::arrival_done`]; ending marks it done), so
    /// calls written together take effect in the order they arrived (see
    /// [`crate::ArrivalOrder`]).
    pub arrival: Option<Arc<crate::ArrivalTicket>>,
}

impl fmt::Debug for ToolCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCall")
            .field("agent", &self.agent)
            .field("cancel", &self.cancel)
            .field("answer_lost", &self.answer_lost)
            .field("closing", &self.closing)
            .field("call_id", &self.call_id)
            .field("approval", &self.approval.is_some())
            .field("progress", &self.progress.is_some())
            .field("approval_asked_at", &self.approval_asked_at)
            .field("arrival", &self.arrival.is_some())
            .finish()
    }
}

impl ToolCall {
    /// A call with no agent and a fresh (uncancelled) token.
    pub fn new(call_id: impl Into<String>) -> Self {
        Self {
            agent: None,
            cancel: CancellationToken::new(),
            answer_lost: CancellationToken::new(),
            closing: CancellationToken::new(),
            call_id: call_id.into(),
            approval: None,
            progress: None,
            approval_asked_at: None,
            arrival: None,
        }
    }

    /// The same call, with `approval` answering its approval requests.
    #[must_use]
    pub fn with_approval(mut self, approval: Arc<dyn Approval>) -> Self {
        self.approval = Some(approval);
        self
    }

    /// The approval service for this call: its own, else the agent scope's.
    pub(crate) fn approver(&self) -> Option<Arc<dyn Approval>> {
        self.approval.clone().or_else(|| {
            self.agent
                .as_ref()
                .and_then(|a| a.scope().get::<dyn Approval>())
        })
    }

    /// The same call holding `ticket`, its place among the calls to its target (see
    /// [`ToolCall::arrival`]).
    #[must_use]
    pub fn with_arrival(mut self, ticket: Arc<crate::ArrivalTicket>) -> Self {
        self.arrival = Some(ticket);
        self
    }

    /// Waits until the calls to this call's target written before it (see
    /// [`crate::ArrivalOrder`]) are done: at once when the host does not order calls.
    ///
    /// # Errors
    /// `ABORTED` when the caller cancelled the call while it waited.
    pub async fn arrival_turn(&self) -> Result<(), ToolError> {
        match &self.arrival {
            Some(ticket) => self.until_not_cancelled(ticket.turn()).await,
            None => Ok(()),
        }
    }

    /// Whether this call was written before the result of a queued call to its target (a
    /// send) came back (see [`crate::ArrivalTicket::followed_a_queued_call`]); `false` when
    /// the host does not order calls.
    #[must_use]
    pub fn arrival_followed_a_queued_call(&self) -> bool {
        self.arrival
            .as_ref()
            .is_some_and(|ticket| ticket.followed_a_queued_call())
    }

    /// [`ToolCall::arrival_turn`], waiting only until those calls started (a signal for what
    /// the send before it started).
    ///
    /// # Errors
    /// `ABORTED` when the caller cancelled the call while it waited.
    pub async fn arrival_turn_started(&self) -> Result<(), ToolError> {
        match &self.arrival {
            Some(ticket) => self.until_not_cancelled(ticket.turn_started()).await,
            None => Ok(()),
        }
    }

    /// `wait`, unless the caller cancels the call first.
    async fn until_not_cancelled(&self, wait: impl Future<Output = ()>) -> Result<(), ToolError> {
        tokio::select! {
            () = wait => Ok(()),
            () = self.cancel.cancelled() => Err(ToolError::new(
                "tool call aborted while it waited for the calls to the same session written before it",
            )
            .with_code(crate::codes::ABORTED)),
        }
    }

    /// This call started (a send holds its session): calls written after it that wait only for
    /// that may act.
    pub fn arrival_started(&self) {
        if let Some(ticket) = &self.arrival {
            ticket.started();
        }
    }

    /// This call is done: the calls written after it may act (ending does it too).
    pub fn arrival_done(&self) {
        if let Some(ticket) = &self.arrival {
            ticket.done();
        }
    }

    /// The same call reporting progress to `sink`.
    #[must_use]
    pub fn with_progress(mut self, sink: ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }

    /// The same call on behalf of `agent`.
    #[must_use]
    pub fn with_agent(mut self, agent: Agent) -> Self {
        self.agent = Some(agent);
        self
    }

    /// The same call observing `cancel`.
    #[must_use]
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// The same call told by `answer_lost` that its answer can no longer reach the caller
    /// (see [`ToolCall::answer_lost`]).
    #[must_use]
    pub fn with_answer_lost(mut self, answer_lost: CancellationToken) -> Self {
        self.answer_lost = answer_lost;
        self
    }

    /// The same call told by `closing` that its connection ends (see [`ToolCall::closing`]).
    #[must_use]
    pub fn with_closing(mut self, closing: CancellationToken) -> Self {
        self.closing = closing;
        self
    }
}

/// One block of model-visible result content.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Content {
    /// Plain text.
    Text(String),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(text.into())
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(t) => Some(t),
        }
    }
}

/// Machine-readable details of a failed call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorInfo {
    /// The message without the `Error: ` prefix.
    pub message: String,
    /// A code such as [`codes::INVALID_ARGS`], or a tool's own.
    pub code: Option<String>,
}

/// The outcome of [`crate::Tools::execute`]: what the model sees (`content`) plus structured data.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// Whether the call failed (error results are rendered `Error: <message>`).
    pub is_error: bool,
    /// Model-visible content.
    pub content: Vec<Content>,
    /// The serialized output value on success (matches the tool's output schema).
    pub structured: Option<serde_json::Value>,
    /// Failure details; `Some` exactly when `is_error`.
    pub error: Option<ErrorInfo>,
}

impl ToolResult {
    /// A successful result with one text block and structured output.
    pub fn success(text: impl Into<String>, structured: serde_json::Value) -> Self {
        Self {
            is_error: false,
            content: vec![Content::Text(text.into())],
            structured: Some(structured),
            error: None,
        }
    }

    /// A failed result whose content is `Error: <message>`.
    pub fn error(message: impl Into<String>, code: Option<&str>) -> Self {
        let message = message.into();
        Self {
            is_error: true,
            content: vec![Content::Text(format!("Error: {message}"))],
            structured: None,
            error: Some(ErrorInfo {
                message,
                code: code.map(str::to_owned),
            }),
        }
    }

    /// The text blocks joined by `\n`.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(Content::as_text)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The error code, if any.
    pub fn code(&self) -> Option<&str> {
        self.error.as_ref().and_then(|e| e.code.as_deref())
    }
}

impl From<ToolError> for ToolResult {
    fn from(e: ToolError) -> Self {
        ToolResult::error(e.message, e.code.as_deref())
    }
}

/// A model-facing error: rendered as `Error: <message>`; `code` is machine-readable.
///
/// Messages are lowercase, name the bad value and say what to do next, e.g.
/// `unknown terminal session pty-9; call terminal_list to see open sessions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    /// What went wrong and what to do next.
    pub message: String,
    /// Optional machine-readable code.
    pub code: Option<String>,
}

impl ToolError {
    /// An error with no code.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: None,
        }
    }

    /// An [`codes::INVALID_ARGS`] error, for argument checks a schema cannot express.
    pub fn invalid_args(message: impl Into<String>) -> Self {
        Self::new(message).with_code(codes::INVALID_ARGS)
    }

    /// Any displayable error as a model-facing message (uses `Display`, never `Debug`).
    pub fn from_display(e: impl fmt::Display) -> Self {
        Self::new(e.to_string())
    }

    /// Sets the code.
    #[must_use]
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

/// Which card a client should draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CardKind {
    /// A title and optional details.
    #[default]
    Generic,
    /// A terminal transcript.
    Terminal,
}

/// Presentation hints for a client UI (never shown to the model).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Card {
    /// The card type.
    pub card: CardKind,
    /// Short title, e.g. `Open terminal main`.
    pub title: Option<String>,
    /// Action kind: `"execute"`, `"read"`, `"delete"`.
    pub kind: Option<String>,
    /// Longer description.
    pub description: Option<String>,
    /// The raw arguments, when the client should show them.
    pub raw_input: Option<serde_json::Value>,
    /// Output text for the card.
    pub output: Option<String>,
}

/// A model-callable tool with one typed argument struct and one typed output.
///
/// The model-visible parameter schema is generated from `Args` (doc comments become
/// descriptions) and normalised by [`crate::normalize_schema`]; the output schema likewise from
/// `Output`. `Args` should be `#[serde(deny_unknown_fields)]`.
pub trait Tool: Send + Sync + 'static {
    /// The argument type (the single source of truth for the parameter schema).
    type Args: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static;
    /// The structured output type.
    type Output: serde::Serialize + schemars::JsonSchema + Send + 'static;

    /// The model-visible name (`[A-Za-z0-9_-]`, 1–64 chars).
    fn name(&self) -> &'static str;

    /// The model-visible description.
    fn description(&self) -> String;

    /// Hook to reshape the generated parameter schema (e.g. drop an option disabled by config).
    /// Default: unchanged. The result is normalised again and must stay a closed object.
    fn shape_parameters(&self, schema: serde_json::Value) -> serde_json::Value {
        schema
    }

    /// Whether and how this tool's calls take their place among the calls to one target when
    /// the host orders the calls it reads in order (see [`crate::ArrivalOrder`]); a tool that
    /// declares one waits for its turn in `execute` ([`ToolCall::arrival_turn`]) and marks
    /// when it started and is done. Default: `None` (its calls are not ordered).
    fn arrival(&self) -> Option<crate::Arrival> {
        None
    }

    /// While a human decides whether this call may run (a policy asked for approval): a
    /// future that ends, with the sentence to tell the model, once the answer no longer
    /// matters because what the call acts on went away (its terminal session closed). The
    /// question is then withdrawn and the call denied with that sentence. `args` are the
    /// call's arguments, not yet validated (none when they do not deserialize). Default:
    /// `None` (the wait ends with the answer, or at [`crate::APPROVAL_TIMEOUT`]).
    fn approval_moot(
        &self,
        args: &Self::Args,
        call: &ToolCall,
    ) -> Option<dsh_context::BoxFuture<'static, String>> {
        let _ = (args, call);
        None
    }

    /// Runs the tool on validated arguments.
    ///
    /// # Errors
    /// A [`ToolError`] becomes an error result `Error: <message>`.
    ///
    /// # Cancel safety
    /// The registry never drops this future early; the tool observes `call.cancel` itself.
    fn execute(
        &self,
        args: Self::Args,
        call: ToolCall,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;

    /// The model-visible text of a successful result.
    fn render(&self, args: &Self::Args, output: &Self::Output) -> String;

    /// Applied exactly once to EVERY outcome's content (success, tool error, invalid arguments,
    /// denial, cancellation). Return `Some` to replace the content. Default: `None` (unchanged).
    fn finalize_content(&self, content: &[Content]) -> Option<Vec<Content>> {
        let _ = content;
        None
    }

    /// Like [`Tool::finalize_content`], but also sees the call's arguments (`None` when they
    /// do not deserialize) and agent, for tools whose bound depends on what the call names
    /// (e.g. a background job's own output limit). Default: [`Tool::finalize_content`].
    fn finalize_call(
        &self,
        args: Option<&Self::Args>,
        agent: Option<&Agent>,
        content: &[Content],
    ) -> Option<Vec<Content>> {
        let _ = (args, agent);
        self.finalize_content(content)
    }

    /// A card for the call before it runs (arguments already validated).
    fn present_call(&self, args: &Self::Args) -> Option<Card> {
        let _ = args;
        None
    }

    /// A card for the finished call.
    fn present_result(&self, args: &Self::Args, result: &ToolResult) -> Option<Card> {
        let _ = (args, result);
        None
    }
}
