//! The approval seam (an `ask` goes to the call's approval service) and the around-execute
//! stage.

use std::sync::Arc;

use parking_lot::Mutex;

use dsh_context::{BoxFuture, Context};
use dsh_tools::{
    Approval, ApprovalOutcome, ApprovalRequest, AroundExecute, Decision, Next, PreExecute,
    ToolCall, ToolCallInfo, ToolResult, Tools, codes,
};
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::fixtures::{Mode, SendTool};
use crate::ok;

struct AskAlways;
impl PreExecute for AskAlways {
    fn check(&self, _call: &ToolCallInfo) -> Decision {
        Decision::Ask {
            reason: "matches --ask-command".into(),
        }
    }
}

/// Answers every request with `outcome` and records what it was asked.
struct Answer {
    outcome: ApprovalOutcome,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl Approval for Answer {
    fn request_approval(
        &self,
        request: ApprovalRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'_, ApprovalOutcome> {
        self.asked.lock().push(request);
        let outcome = self.outcome.clone();
        Box::pin(async move { outcome })
    }
}

fn tools_that_ask() -> Tools {
    let tools = Tools::new();
    ok(tools.register(SendTool::new(Mode::Succeed)));
    tools.add_pre_execute(Arc::new(AskAlways));
    tools
}

async fn run_with(outcome: ApprovalOutcome) -> (ToolResult, Vec<ApprovalRequest>) {
    let answer = Arc::new(Answer {
        outcome,
        asked: Mutex::default(),
    });
    let r = send_asking(ToolCall::new("c1").with_approval(answer.clone())).await;
    let asked = answer.asked.lock().clone();
    (r, asked)
}

/// Sends `rm -rf build` through tools that ask about every call, as `call`.
async fn send_asking(call: ToolCall) -> ToolResult {
    tools_that_ask()
        .execute(
            "send",
            json!({"sessionId": "pty-1", "text": "rm -rf build"}),
            call,
        )
        .await
}

#[tokio::test]
async fn an_approved_ask_runs_once() {
    let (r, asked) = run_with(ApprovalOutcome::Approved).await;
    assert!(!r.is_error, "{r:?}");
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].tool, "send");
    assert_eq!(asked[0].reason, "matches --ask-command");
    assert_eq!(asked[0].args["text"], "rm -rf build");
}

#[tokio::test]
async fn rejected_cancelled_and_unavailable_are_distinct_denials() {
    let (r, _) = run_with(ApprovalOutcome::Rejected).await;
    assert!(r.is_error);
    assert_eq!(
        r.error.as_ref().and_then(|e| e.code.as_deref()),
        Some(codes::DENIED)
    );
    assert_eq!(
        r.text(),
        "[final] Error: the user rejected this call of tool \"send\" (matches --ask-command); nothing ran. Do not retry it unchanged: ask the user how to proceed or do something else"
    );
    let (r, _) = run_with(ApprovalOutcome::Cancelled).await;
    assert_eq!(
        r.text(),
        "[final] Error: approval of this call of tool \"send\" (matches --ask-command) was cancelled; nothing ran"
    );
    let (r, _) = run_with(ApprovalOutcome::Unavailable {
        why: "this client cannot ask a human".into(),
    })
    .await;
    assert_eq!(
        r.text(),
        "[final] Error: tool \"send\" requires approval (matches --ask-command), and approval is unavailable: this client cannot ask a human; nothing ran. Do something that needs no approval, or ask the operator to allow it"
    );
}

#[tokio::test]
async fn the_agent_scope_provides_the_approval_service() {
    let ctx = Context::empty();
    let agent = dsh_context::Agent::new(&ctx, "a");
    let answer: Arc<dyn Approval> = Arc::new(Answer {
        outcome: ApprovalOutcome::Approved,
        asked: Mutex::default(),
    });
    agent.scope().provide("test", answer).unwrap();
    let r = tools_that_ask()
        .execute(
            "send",
            json!({"sessionId": "pty-1", "text": "ls"}),
            ToolCall::new("c1").with_agent(agent),
        )
        .await;
    assert!(!r.is_error, "{r:?}");
}

/// Tags results and can short-circuit.
struct Wrapper {
    tag: &'static str,
    short_circuit: bool,
}

impl AroundExecute for Wrapper {
    fn around<'a>(&'a self, _call: &'a ToolCallInfo, next: Next<'a>) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            if self.short_circuit {
                return ToolResult::error(format!("{} refused", self.tag), Some("WRAPPED"));
            }
            let mut r = next.run().await;
            r.content.push(dsh_tools::Content::text(self.tag));
            r
        })
    }
}

#[tokio::test]
async fn around_wrappers_nest_in_order_and_may_short_circuit() {
    let tools = Tools::new();
    let tool = SendTool::new(Mode::Succeed);
    let finalized = tool.finalized.clone();
    ok(tools.register(tool));
    tools.add_around_execute(Arc::new(Wrapper {
        tag: "outer",
        short_circuit: false,
    }));
    tools.add_around_execute(Arc::new(Wrapper {
        tag: "inner",
        short_circuit: false,
    }));
    let r = tools
        .execute(
            "send",
            json!({"sessionId": "pty-1", "text": "ls"}),
            ToolCall::new("c1"),
        )
        .await;
    let texts: Vec<&str> = r.content.iter().filter_map(|c| c.as_text()).collect();
    assert_eq!(
        texts[texts.len() - 2..],
        ["[final] inner", "[final] outer"],
        "{texts:?}"
    );
    assert_eq!(finalized.get(), 1);

    let tools = Tools::new();
    ok(tools.register(SendTool::new(Mode::Succeed)));
    tools.add_around_execute(Arc::new(Wrapper {
        tag: "gate",
        short_circuit: true,
    }));
    let r = tools
        .execute(
            "send",
            json!({"sessionId": "pty-1", "text": "ls"}),
            ToolCall::new("c1"),
        )
        .await;
    assert!(r.is_error);
    assert!(r.text().contains("gate refused"), "{r:?}");
}

/// Approves, after cancelling the call it was asked about (its client went away while the
/// human decided).
struct ApproveAfterCancel(CancellationToken);

impl Approval for ApproveAfterCancel {
    fn request_approval(
        &self,
        _request: ApprovalRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'_, ApprovalOutcome> {
        self.0.cancel();
        Box::pin(async { ApprovalOutcome::Approved })
    }
}

/// A call given up while its approval was pending does not run on the approval that comes
/// later (it ran, typing an abandoned command into the terminal).
#[tokio::test]
async fn an_approval_of_a_call_given_up_meanwhile_runs_nothing() {
    let cancel = CancellationToken::new();
    let call = ToolCall::new("c1")
        .with_cancel(cancel.clone())
        .with_approval(Arc::new(ApproveAfterCancel(cancel)));
    let r = send_asking(call).await;
    assert!(r.is_error, "{r:?}");
    assert_eq!(
        r.text(),
        "[final] Error: approval of this call of tool \"send\" (matches --ask-command) was cancelled; nothing ran"
    );
}
