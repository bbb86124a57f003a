//! The execute pipeline: order, finalize-once, policies, cancellation, robustness.

use std::sync::Arc;

use parking_lot::Mutex;

use dsh_context::{Agent, Context};
use dsh_invariants::{Invariants, InvariantsPlugin};
use dsh_tools::{
    Card, CardKind, Content, Decision, ErrorInfo, PostExecute, PreExecute, ToolCall, ToolCallInfo,
    ToolResult, Tools, ToolsError, ToolsPlugin, codes, invariant_companion,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::fixtures::{Liar, Mode, Named, SendTool};
use crate::ok;

fn valid_args() -> Value {
    json!({"sessionId": "pty-1", "text": "ls"})
}

/// Registers a `send` double and returns the registry and its finalize counter.
fn registry(mode: Mode) -> (Tools, crate::fixtures::Counter) {
    let tools = Tools::new();
    let tool = SendTool::new(mode);
    let counter = tool.finalized.clone();
    ok(tools.register(tool));
    (tools, counter)
}

struct Always(Decision);
impl PreExecute for Always {
    fn check(&self, _call: &ToolCallInfo) -> Decision {
        self.0.clone()
    }
}

/// Records every call it sees and appends a marker block.
#[derive(Default)]
struct Recorder(Mutex<Vec<(String, bool)>>);
impl PostExecute for Recorder {
    fn after(&self, call: &ToolCallInfo, result: &mut ToolResult) {
        self.0.lock().push((call.name.clone(), result.is_error));
        result.content.push(Content::text("post"));
    }
}

#[tokio::test]
async fn success_renders_sets_structured_and_finalizes_once() {
    let (tools, count) = registry(Mode::Succeed);
    let r = tools
        .execute("send", valid_args(), ToolCall::new("c1"))
        .await;
    assert_eq!(
        r,
        ToolResult {
            is_error: false,
            content: vec![Content::text(
                "[final] sent 2 bytes to pty-1 (submit: true)"
            )],
            structured: Some(json!({"sessionId": "pty-1", "writtenBytes": 2, "exitCode": 0})),
            error: None,
        }
    );
    assert_eq!(count.get(), 1);
}

#[tokio::test]
async fn tool_error_is_rendered_with_its_code_and_finalized_once() {
    let (tools, count) = registry(Mode::Fail);
    let r = tools
        .execute("send", valid_args(), ToolCall::new("c1"))
        .await;
    assert_eq!(
        r,
        ToolResult {
            is_error: true,
            content: vec![Content::text(
                "[final] Error: unknown terminal session pty-1; call list to see open sessions"
            )],
            structured: None,
            error: Some(ErrorInfo {
                message: "unknown terminal session pty-1; call list to see open sessions".into(),
                code: Some("UNKNOWN_SESSION".into()),
            }),
        }
    );
    assert_eq!(count.get(), 1);
}

#[tokio::test]
async fn invalid_args_are_finalized_once() {
    let (tools, count) = registry(Mode::Succeed);
    let r = tools
        .execute("send", json!({"text": "ls"}), ToolCall::new("c1"))
        .await;
    assert_eq!(
        r.text(),
        "[final] Error: invalid arguments: missing required property \"sessionId\" (Session id returned by open, e.g. \"pty-1\".)"
    );
    assert_eq!(r.code(), Some(codes::INVALID_ARGS));
    assert_eq!(count.get(), 1);
}

#[tokio::test]
async fn deny_skips_the_tool_goes_through_post_and_is_finalized_once() {
    let (tools, count) = registry(Mode::Panic); // would panic if it ran
    let post = Arc::new(Recorder::default());
    tools.add_pre_execute(Arc::new(Always(Decision::Allow)));
    tools.add_pre_execute(Arc::new(Always(Decision::Ask {
        reason: String::new(),
    })));
    tools.add_pre_execute(Arc::new(Always(Decision::Deny {
        reason: "writes to pty-1 are disabled in read-only mode".into(),
    })));
    tools.add_post_execute(post.clone());
    let r = tools
        .execute("send", valid_args(), ToolCall::new("c1"))
        .await;
    assert_eq!(
        r.content,
        vec![
            Content::text("[final] Error: writes to pty-1 are disabled in read-only mode"),
            Content::text("[final] post"),
        ]
    );
    assert_eq!(r.code(), Some(codes::DENIED));
    assert_eq!(count.get(), 1);
    assert_eq!(*post.0.lock(), vec![("send".to_owned(), true)]);
}

#[tokio::test]
async fn ask_without_approval_service_denies() {
    let (tools, count) = registry(Mode::Succeed);
    tools.add_pre_execute(Arc::new(Always(Decision::Ask {
        reason: String::new(),
    })));
    let r = tools
        .execute("send", valid_args(), ToolCall::new("c1"))
        .await;
    assert_eq!(
        r.text(),
        "[final] Error: tool \"send\" requires approval, and approval is unavailable: no approval service is configured; nothing ran. Do something that needs no approval, or ask the operator to allow it"
    );
    let (tools, _) = registry(Mode::Succeed);
    tools.add_pre_execute(Arc::new(Always(Decision::Ask {
        reason: "command writes outside the workspace".into(),
    })));
    let r = tools
        .execute("send", valid_args(), ToolCall::new("c1"))
        .await;
    assert_eq!(
        r.text(),
        "[final] Error: tool \"send\" requires approval (command writes outside the workspace), and approval is unavailable: no approval service is configured; nothing ran. Do something that needs no approval, or ask the operator to allow it"
    );
    assert_eq!(count.get(), 1);
}

#[tokio::test]
async fn policies_see_agent_and_normalised_args() {
    struct Capture(Mutex<Option<ToolCallInfo>>);
    impl PreExecute for Capture {
        fn check(&self, call: &ToolCallInfo) -> Decision {
            *self.0.lock() = Some(call.clone());
            Decision::Allow
        }
    }
    let (tools, _) = registry(Mode::Succeed);
    let capture = Arc::new(Capture(Mutex::new(None)));
    tools.add_pre_execute(capture.clone());
    let ctx = Context::empty();
    let agent = Agent::new(&ctx, "agent-7");
    let _ = tools
        .execute("send", Value::Null, ToolCall::new("c1").with_agent(agent))
        .await;
    assert_eq!(
        capture.0.lock().clone(),
        Some(ToolCallInfo {
            name: "send".into(),
            args: json!({}),
            agent_id: Some("agent-7".into()),
        })
    );
}

#[tokio::test]
async fn unknown_tool_names_the_tool_and_the_next_step() {
    let (tools, count) = registry(Mode::Succeed);
    let r = tools
        .execute("deploy", valid_args(), ToolCall::new("c1"))
        .await;
    assert_eq!(r.text(), "Error: unknown tool \"deploy\"; call tools/list");
    assert_eq!(r.code(), Some(codes::UNKNOWN_TOOL));
    assert_eq!(count.get(), 0);
    // A mistyped name gets the tool it most likely meant.
    for typo in ["sned", "SEND", "snd"] {
        let r = tools.execute(typo, valid_args(), ToolCall::new("c1")).await;
        assert_eq!(
            r.text(),
            "Error: unknown tool; did you mean \"send\"?",
            "{typo}"
        );
        assert_eq!(r.code(), Some(codes::UNKNOWN_TOOL));
    }
    assert_eq!(count.get(), 0);
    // Any name, however long or odd, leaves the error within the smallest result cap.
    for name in [
        "x".repeat(3000),
        format!("terminal_send\n{}", "z".repeat(100)),
        "\u{1}".repeat(50),
        "é".repeat(40),
    ] {
        let r = tools
            .execute(&name, valid_args(), ToolCall::new("c2"))
            .await;
        assert!(r.text().len() <= 64, "{}: {:?}", r.text().len(), r.text());
        assert!(r.text().ends_with("\"…; call tools/list"), "{:?}", r.text());
    }
}

#[tokio::test]
async fn cancelled_before_dispatch_skips_policies_and_the_tool() {
    let (tools, count) = registry(Mode::Panic);
    let post = Arc::new(Recorder::default());
    tools.add_post_execute(post.clone());
    let call = ToolCall::new("c1");
    call.cancel.cancel();
    let r = tools.execute("send", valid_args(), call).await;
    assert_eq!(
        r.text(),
        "[final] Error: tool call aborted before dispatch: the client cancelled it, or its connection ended, before it ran; nothing was done"
    );
    assert_eq!(r.code(), Some(codes::ABORTED_BEFORE_DISPATCH));
    assert_eq!(count.get(), 1);
    assert!(post.0.lock().is_empty());
}

#[tokio::test]
async fn success_after_cancellation_becomes_aborted() {
    let (tools, count) = registry(Mode::CancelThenSucceed);
    let r = tools
        .execute("send", valid_args(), ToolCall::new("c1"))
        .await;
    assert_eq!(r.text(), "[final] Error: tool call aborted");
    assert_eq!(r.code(), Some(codes::ABORTED));
    assert_eq!(count.get(), 1);
}

#[tokio::test]
async fn panics_become_internal_errors() {
    let (tools, count) = registry(Mode::Panic);
    let r = tools
        .execute("send", valid_args(), ToolCall::new("c1"))
        .await;
    assert_eq!(
        r.text(),
        "[final] Error: tool \"send\" failed unexpectedly (tool execute or render); the call had no result"
    );
    assert_eq!(r.code(), Some(codes::INTERNAL));
    assert_eq!(count.get(), 1);

    let (tools, count) = registry(Mode::PanicInFinalize);
    let r = tools
        .execute("send", valid_args(), ToolCall::new("c2"))
        .await;
    assert_eq!(
        r.text(),
        "Error: tool \"send\" failed unexpectedly (finalize_content); the call had no result"
    );
    assert_eq!(count.get(), 1);
}

#[tokio::test]
async fn output_that_breaks_its_schema_is_an_error() {
    let tools = Tools::new();
    ok(tools.register(Liar));
    let r = tools.execute("liar", json!({}), ToolCall::new("c1")).await;
    assert_eq!(
        r.text(),
        "Error: tool \"liar\" produced output that does not match its output schema: \"count\" must be an integer"
    );
    assert_eq!(r.code(), Some(codes::INVALID_TOOL_OUTPUT));
}

#[tokio::test]
async fn hostile_json_never_panics() {
    let (tools, _) = registry(Mode::Succeed);
    let huge = "x".repeat(8 * 1024 * 1024);
    let r = tools
        .execute(
            "send",
            json!({"sessionId": "pty-1", "text": huge}),
            ToolCall::new("c1"),
        )
        .await;
    assert!(!r.is_error);
    let r = tools
        .execute(
            "send",
            json!({"sessionId": "pty\u{0}1", "text": "a\u{0}b"}),
            ToolCall::new("c2"),
        )
        .await;
    assert_eq!(r.text(), "[final] sent 3 bytes to pty\u{0}1 (submit: true)");
    // Deep nesting up to serde_json's parser limit (128) in a wrong-typed field.
    let deep = format!("{}{}", "[".repeat(127), "]".repeat(127));
    let deep: Value = ok(serde_json::from_str(&deep));
    let r = tools
        .execute(
            "send",
            json!({"sessionId": "pty-1", "text": deep, "size": deep}),
            ToolCall::new("c3"),
        )
        .await;
    assert_eq!(
        r.text(),
        "[final] Error: invalid arguments: \"text\" must be a string; \"size\" must be an object or null"
    );
    // A huge string where a number is expected: serde never sees it, the message stays small.
    let r = tools
        .execute(
            "send",
            json!({"sessionId": "pty-1", "text": "x", "yieldTimeMs": "9".repeat(1_000_000)}),
            ToolCall::new("c4"),
        )
        .await;
    assert!(r.text().len() < 200, "{}", r.text().len());
}

#[test]
fn list_is_lexicographic_and_duplicates_are_refused() {
    let tools = Tools::new();
    for name in [
        "terminal_send",
        "terminal_close",
        "job_list",
        "terminal_open",
    ] {
        ok(tools.register(Named(name)));
    }
    let names: Vec<String> = tools.list().into_iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        [
            "job_list",
            "terminal_close",
            "terminal_open",
            "terminal_send"
        ]
    );
    let dup = tools.register(Named("job_list"));
    assert!(matches!(dup, Err(ToolsError::Duplicate { ref name }) if name == "job_list"));
    assert_eq!(
        dup.err().map(|e| e.to_string()).unwrap_or_default(),
        "tool \"job_list\" is already registered; unregister it first or pick another name"
    );
    let bad = tools.register(Named("has space"));
    assert_eq!(
        bad.err().map(|e| e.to_string()).unwrap_or_default(),
        "tool name \"has space\" is invalid: use 1-64 characters of [A-Za-z0-9_-]"
    );
    tools.unregister("job_list");
    assert_eq!(tools.list().len(), 3);
    ok(tools.register(Named("job_list")));
}

#[test]
fn present_call_soft_validates() {
    let (tools, _) = registry(Mode::Succeed);
    assert_eq!(
        tools.present_call("send", &valid_args()),
        Some(Card {
            card: CardKind::Terminal,
            title: Some("Send to pty-1".into()),
            kind: Some("execute".into()),
            ..Card::default()
        })
    );
    assert_eq!(tools.present_call("send", &json!({"text": 1})), None);
    assert_eq!(tools.present_call("nope", &valid_args()), None);
    let result = ToolResult::error("boom", None);
    assert_eq!(
        tools
            .present_result("send", &valid_args(), &result)
            .and_then(|c| c.output),
        Some("Error: boom".into())
    );
}

#[tokio::test]
async fn plugin_provides_tools_and_the_companion_checks_them() {
    let ctx = ok(Context::builder()
        .with(InvariantsPlugin)
        .with(ToolsPlugin)
        .with(invariant_companion())
        .apply());
    let tools = ok(ctx.require::<Tools>());
    ok(tools.register(SendTool::new(Mode::Succeed)));
    ok(tools.register(Named("b")));
    let inv = ok(ctx.require::<Invariants>());
    assert!(inv.check_all(&ctx).is_empty());
    assert_eq!(inv.packages(), vec!["dsh-tools".to_owned()]);
    ctx.dispose().await;
}
