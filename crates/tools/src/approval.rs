//! The approval seam of the pipeline (the seed's §6.4 step 3) and the around-execute stage
//! (step 8).
//!
//! A pre-execute policy that answers [`Decision::Ask`](crate::Decision::Ask) sends the call to
//! the [`Approval`] service of the call ([`ToolCall::with_approval`](crate::ToolCall)); the
//! host decides who answers (our MCP host asks the human through MCP elicitation). Approved
//! once → the call runs; rejected, cancelled or unavailable → a denial with a distinct reason,
//! and nothing runs.

use std::sync::Arc;

use dsh_context::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::policy::ToolCallInfo;
use crate::tool::ToolResult;

/// What the approver is asked about.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    /// The tool name.
    pub tool: String,
    /// The call's arguments (not yet validated).
    pub args: Value,
    /// Why approval is needed (from the policy; may be empty).
    pub reason: String,
    /// The calling agent's id, if any.
    pub agent_id: Option<String>,
}

/// The approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalOutcome {
    /// Allowed, for this call only.
    Approved,
    /// Explicitly refused.
    Rejected,
    /// Dismissed without a decision (or the call was cancelled while waiting).
    Cancelled,
    /// Nobody can answer (e.g. the client has no way to ask a human); `why` completes
    /// "approval is unavailable: …".
    Unavailable {
        /// Why nobody can answer.
        why: String,
    },
}

/// Answers approval requests (seed `ctx.approval`).
pub trait Approval: Send + Sync + 'static {
    /// Asks for approval of one call; `cancel` fires when the caller gives up.
    fn request_approval(
        &self,
        request: ApprovalRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, ApprovalOutcome>;
}

/// The denial text for an `ask` that was not approved; `None` when it was.
pub(crate) fn denial(name: &str, reason: &str, outcome: Option<ApprovalOutcome>) -> Option<String> {
    let because = if reason.is_empty() {
        String::new()
    } else {
        format!(" ({reason})")
    };
    let text = match outcome? {
        ApprovalOutcome::Approved => return None,
        ApprovalOutcome::Rejected => format!(
            "the user rejected this call of tool {name}{because}; nothing ran. Do not retry it unchanged: ask the user how to proceed or do something else"
        ),
        ApprovalOutcome::Cancelled => {
            format!("approval of this call of tool {name}{because} was cancelled; nothing ran")
        }
        ApprovalOutcome::Unavailable { why } => format!(
            "tool {name} requires approval{because}, and approval is unavailable: {why}; nothing ran. Do something that needs no approval, or ask the operator to allow it"
        ),
    };
    Some(text)
}

/// The rest of the pipeline, handed to an [`AroundExecute`] wrapper.
pub struct Next<'a> {
    run: Box<dyn FnOnce() -> BoxFuture<'a, ToolResult> + Send + 'a>,
}

impl<'a> Next<'a> {
    pub(crate) fn new(run: impl FnOnce() -> BoxFuture<'a, ToolResult> + Send + 'a) -> Self {
        Self { run: Box::new(run) }
    }

    /// Runs the inner stages (further wrappers, then validation and the tool) and returns
    /// their result.
    pub fn run(self) -> BoxFuture<'a, ToolResult> {
        (self.run)()
    }
}

impl std::fmt::Debug for Next<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Next")
    }
}

/// A wrapper around dispatch (seed `tools/execute` around-waterfall): runs after the
/// pre-execute policies allowed the call, may short-circuit with its own result, or call
/// [`Next::run`] and inspect or replace what it returns. Wrappers nest in the order added
/// (the first added is outermost).
pub trait AroundExecute: Send + Sync + 'static {
    /// Wraps one call.
    fn around<'a>(&'a self, call: &'a ToolCallInfo, next: Next<'a>) -> BoxFuture<'a, ToolResult>;
}

/// Nests `wrappers` (first = outermost) around `body`.
pub(crate) fn wrap<'a>(
    wrappers: &'a [Arc<dyn AroundExecute>],
    info: &'a ToolCallInfo,
    body: Next<'a>,
) -> BoxFuture<'a, ToolResult> {
    match wrappers.split_first() {
        None => body.run(),
        Some((outer, rest)) => outer.around(info, Next::new(move || wrap(rest, info, body))),
    }
}
