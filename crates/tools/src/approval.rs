//! The approval seam of the pipeline (the seed's §6.4 step 3) and the around-execute stage
//! (step 8).
//!
//! A pre-execute policy that answers [`Decision::Ask`](crate::Decision::Ask) sends the call to
//! the [`Approval`] service of the call ([`ToolCall::with_approval`](crate::ToolCall)); the
//! host decides who answers (our MCP host asks the human through MCP elicitation). Approved
//! once → the call runs; rejected, cancelled, unavailable, not understood, unanswered within
//! [`APPROVAL_TIMEOUT`], or made moot by its target going away (a session closed) → a denial
//! with a distinct reason, and nothing runs.

use std::sync::Arc;
use std::time::Duration;

use dsh_context::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::erased::CatchUnwind;
use crate::policy::ToolCallInfo;
use crate::tool::ToolResult;

/// Longest a call waits for a human's approval: past it the question is withdrawn (the
/// approver is told through its cancellation token) and the call is denied, nothing run. A
/// question nobody answers must not hold a send, and the model's turn, forever.
pub const APPROVAL_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// How long an approver that was told to withdraw its question may take to do so (an MCP
/// client is sent `notifications/cancelled`) before the pipeline stops waiting for it.
const WITHDRAW_GRACE: Duration = Duration::from_secs(2);

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
    /// An answer came, but not one the approver can read as a decision (a client's malformed
    /// form): the user rejected nothing. `why` completes "the client's answer to the approval
    /// request was not understood: …".
    NotUnderstood {
        /// What was wrong with the answer.
        why: String,
    },
    /// No answer within [`APPROVAL_TIMEOUT`] (set by the pipeline; the question was
    /// withdrawn).
    TimedOut,
    /// What the call acts on went away while the human decided (its terminal session
    /// closed; set by the pipeline from [`crate::Tool::approval_moot`]); `why` is the tool's
    /// sentence for it.
    TargetGone {
        /// The tool's sentence, e.g. `session closed while waiting for approval: …`.
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
        ApprovalOutcome::NotUnderstood { why } => format!(
            "the client's answer to the approval request for this call of tool {name}{because} was not understood: {why}; nothing ran (the user rejected nothing). Ask the user how to proceed, or do something that needs no approval"
        ),
        ApprovalOutcome::TimedOut => format!(
            "approval of this call of tool {name}{because} got no answer within {} minutes, so the question was withdrawn; nothing ran. Call it again to ask again once the user can answer, or do something that needs no approval",
            APPROVAL_TIMEOUT.as_secs() / 60
        ),
        ApprovalOutcome::TargetGone { why } => format!("{why}; nothing ran"),
    };
    Some(text)
}

/// Asks `approver` about one call, for at most `timeout`, and gives up early when `moot` ends
/// first (the call's target went away: [`crate::Tool::approval_moot`]). Giving up cancels
/// the token the approver watches (a child of `cancel`, the call's own), so it withdraws its
/// question. `Err(())` when the approver panicked.
pub(crate) async fn ask(
    approver: &dyn Approval,
    request: ApprovalRequest,
    cancel: &CancellationToken,
    moot: Option<BoxFuture<'static, String>>,
    timeout: Duration,
) -> Result<ApprovalOutcome, ()> {
    let asking = cancel.child_token();
    let mut answer = CatchUnwind(Box::pin(approver.request_approval(request, asking.clone())));
    let moot = async move {
        match moot {
            Some(moot) => moot.await,
            None => std::future::pending().await,
        }
    };
    let ended = tokio::select! {
        outcome = &mut answer => return outcome,
        why = moot => ApprovalOutcome::TargetGone { why },
        () = tokio::time::sleep(timeout) => ApprovalOutcome::TimedOut,
    };
    asking.cancel();
    // Whatever it answers now no longer counts.
    let _ = tokio::time::timeout(WITHDRAW_GRACE, answer).await;
    Ok(ended)
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    /// Never answers; records whether it was told to withdraw its question.
    #[derive(Default)]
    struct Silent(Arc<AtomicBool>);

    impl Approval for Silent {
        fn request_approval(
            &self,
            _request: ApprovalRequest,
            cancel: CancellationToken,
        ) -> BoxFuture<'_, ApprovalOutcome> {
            let withdrawn = Arc::clone(&self.0);
            Box::pin(async move {
                cancel.cancelled().await;
                withdrawn.store(true, Ordering::SeqCst);
                ApprovalOutcome::Cancelled
            })
        }
    }

    fn request() -> ApprovalRequest {
        ApprovalRequest {
            tool: "terminal_send".into(),
            args: serde_json::json!({"sessionId": "pty-1", "text": "git push"}),
            reason: String::new(),
            agent_id: None,
        }
    }

    /// An unanswered question ends at the deadline, withdrawn, and the call is denied.
    #[tokio::test]
    async fn an_unanswered_approval_ends_at_its_deadline() {
        let silent = Silent::default();
        let cancel = CancellationToken::new();
        let outcome = ask(&silent, request(), &cancel, None, Duration::from_millis(50)).await;
        assert_eq!(outcome, Ok(ApprovalOutcome::TimedOut));
        assert!(
            silent.0.load(Ordering::SeqCst),
            "the question was not withdrawn"
        );
        assert!(!cancel.is_cancelled(), "the call itself was cancelled");
        assert_eq!(
            denial("\"terminal_send\"", "", Some(ApprovalOutcome::TimedOut)).as_deref(),
            Some(
                "approval of this call of tool \"terminal_send\" got no answer within 10 minutes, so the question was withdrawn; nothing ran. Call it again to ask again once the user can answer, or do something that needs no approval"
            )
        );
    }

    /// A question whose target went away ends at once with the tool's sentence.
    #[tokio::test]
    async fn an_approval_ends_when_its_target_goes_away() {
        let silent = Silent::default();
        let moot: BoxFuture<'static, String> = Box::pin(async {
            "session closed while waiting for approval: terminal session pty-1 was closed"
                .to_owned()
        });
        let outcome = ask(
            &silent,
            request(),
            &CancellationToken::new(),
            Some(moot),
            APPROVAL_TIMEOUT,
        )
        .await;
        let Ok(outcome) = outcome else {
            panic!("the approver panicked");
        };
        assert!(
            silent.0.load(Ordering::SeqCst),
            "the question was not withdrawn"
        );
        assert_eq!(
            denial("\"terminal_send\"", "", Some(outcome)).as_deref(),
            Some(
                "session closed while waiting for approval: terminal session pty-1 was closed; nothing ran"
            )
        );
    }

    #[test]
    fn an_answer_not_understood_is_no_rejection() {
        let text = denial(
            "\"terminal_send\"",
            "ask pattern \"^git\"",
            Some(ApprovalOutcome::NotUnderstood {
                why: "the form came back accepted without a true or false \"approve\"".into(),
            }),
        );
        assert_eq!(
            text.as_deref(),
            Some(
                "the client's answer to the approval request for this call of tool \"terminal_send\" (ask pattern \"^git\") was not understood: the form came back accepted without a true or false \"approve\"; nothing ran (the user rejected nothing). Ask the user how to proceed, or do something that needs no approval"
            )
        );
    }
}
