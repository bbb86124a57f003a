//! Test doubles: small tools exercising every pipeline branch.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use dsh_tools::{Card, CardKind, Content, Tool, ToolCall, ToolError, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Signal names accepted by `send`.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub(crate) enum Signal {
    Sigint,
    Sigterm,
    Sigkill,
}

/// Terminal size.
#[expect(dead_code, reason = "declared for the schema; the double ignores it")]
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Size {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

/// Arguments of the `send` test tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct SendArgs {
    /// Session id returned by open, e.g. "pty-1".
    pub session_id: String,
    /// Text to write.
    pub text: String,
    /// Append a carriage return; default true.
    pub submit: Option<bool>,
    /// How long to wait for output, in ms; default 10000; clamped to 250-30000.
    #[expect(dead_code, reason = "declared for the schema; the double ignores it")]
    pub yield_time_ms: Option<u64>,
    /// Signal to send first.
    #[expect(dead_code, reason = "declared for the schema; the double ignores it")]
    pub signal: Option<Signal>,
    /// Resize before writing.
    #[expect(dead_code, reason = "declared for the schema; the double ignores it")]
    pub size: Option<Size>,
}

/// Result of a send.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SendOutput {
    /// The session.
    pub session_id: String,
    /// Bytes written.
    pub written_bytes: u64,
    /// Exit code, when the command finished.
    pub exit_code: Option<i32>,
}

/// Counts `finalize_content` calls; optionally replaces the content.
#[derive(Default, Clone)]
pub(crate) struct Counter(pub Arc<AtomicUsize>);

impl Counter {
    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// What the `send` double does in its body.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Succeed,
    Fail,
    /// Cancels its own token, then succeeds (the registry must turn that into ABORTED).
    CancelThenSucceed,
    /// Panics in the body.
    Panic,
    /// Succeeds, then panics in `finalize_content`.
    PanicInFinalize,
}

pub(crate) struct SendTool {
    pub finalized: Counter,
    pub mode: Mode,
    /// Wrap every final content in `[final] ...`.
    pub tag_final: bool,
}

impl SendTool {
    pub(crate) fn new(mode: Mode) -> Self {
        Self {
            finalized: Counter::default(),
            mode,
            tag_final: true,
        }
    }
}

impl Tool for SendTool {
    type Args = SendArgs;
    type Output = SendOutput;

    fn name(&self) -> &'static str {
        "send"
    }

    fn arrival(&self) -> Option<dsh_tools::Arrival> {
        Some(dsh_tools::Arrival {
            target_argument: "sessionId",
            queued: true,
        })
    }

    fn description(&self) -> String {
        "Write text to a terminal session and return what the screen shows.".into()
    }

    async fn execute(&self, args: SendArgs, call: ToolCall) -> Result<SendOutput, ToolError> {
        match self.mode {
            Mode::Succeed | Mode::PanicInFinalize => {}
            Mode::Fail => {
                return Err(ToolError::new(format!(
                    "unknown terminal session {}; call list to see open sessions",
                    args.session_id
                ))
                .with_code("UNKNOWN_SESSION"));
            }
            Mode::CancelThenSucceed => call.cancel.cancel(),
            Mode::Panic => panic!("tool body exploded"),
        }
        Ok(SendOutput {
            session_id: args.session_id,
            written_bytes: args.text.len() as u64,
            exit_code: Some(0),
        })
    }

    fn render(&self, args: &SendArgs, output: &SendOutput) -> String {
        format!(
            "sent {} bytes to {} (submit: {})",
            output.written_bytes,
            args.session_id,
            args.submit.unwrap_or(true)
        )
    }

    fn finalize_content(&self, content: &[Content]) -> Option<Vec<Content>> {
        self.finalized.0.fetch_add(1, Ordering::SeqCst);
        if self.mode == Mode::PanicInFinalize {
            panic!("finalizer exploded");
        }
        if !self.tag_final {
            return None;
        }
        Some(
            content
                .iter()
                .map(|c| Content::text(format!("[final] {}", c.as_text().unwrap_or_default())))
                .collect(),
        )
    }

    fn present_call(&self, args: &SendArgs) -> Option<Card> {
        Some(Card {
            card: CardKind::Terminal,
            title: Some(format!("Send to {}", args.session_id)),
            kind: Some("execute".into()),
            ..Card::default()
        })
    }

    fn present_result(&self, _args: &SendArgs, result: &ToolResult) -> Option<Card> {
        Some(Card {
            output: Some(result.text()),
            ..Card::default()
        })
    }
}

/// A tool with no arguments, used for list order and empty schemas.
pub(crate) struct Named(pub &'static str);

/// No arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoArgs {}

/// Empty output.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Empty {}

impl Tool for Named {
    type Args = NoArgs;
    type Output = Empty;
    fn name(&self) -> &'static str {
        self.0
    }
    fn description(&self) -> String {
        format!("The {} tool.", self.0)
    }
    async fn execute(&self, _args: NoArgs, _call: ToolCall) -> Result<Empty, ToolError> {
        Ok(Empty {})
    }
    fn render(&self, _args: &NoArgs, _output: &Empty) -> String {
        "done".into()
    }
}

/// A tool whose output lies about its schema (declares an integer, serializes a string).
pub(crate) struct Liar;

/// Output of `liar`.
#[derive(Serialize, JsonSchema)]
pub(crate) struct LiarOutput {
    /// Claimed to be an integer.
    #[schemars(with = "u32")]
    pub count: String,
}

impl Tool for Liar {
    type Args = NoArgs;
    type Output = LiarOutput;
    fn name(&self) -> &'static str {
        "liar"
    }
    fn description(&self) -> String {
        "Returns output that does not match its schema.".into()
    }
    async fn execute(&self, _args: NoArgs, _call: ToolCall) -> Result<LiarOutput, ToolError> {
        Ok(LiarOutput {
            count: "many".into(),
        })
    }
    fn render(&self, _args: &NoArgs, output: &LiarOutput) -> String {
        output.count.clone()
    }
}
