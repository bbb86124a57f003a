//! Every model-visible validation message (snapshotted).

use dsh_tools::{ToolCall, Tools, codes};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::fixtures::{Mode, SendTool};
use crate::ok;

async fn message(args: Value) -> String {
    let tools = Tools::new();
    let mut tool = SendTool::new(Mode::Succeed);
    tool.tag_final = false;
    ok(tools.register(tool));
    let r = tools.execute("send", args, ToolCall::new("v")).await;
    assert!(r.is_error);
    assert_eq!(r.code(), Some(codes::INVALID_ARGS));
    assert_eq!(
        r.error.as_ref().map(|e| format!("Error: {}", e.message)),
        Some(r.text())
    );
    r.text()
}

#[tokio::test]
async fn validation_messages() {
    let cases = [
        ("missing", json!({"text": "ls"})),
        ("null_args_are_empty_object", Value::Null),
        ("wrong_type", json!({"sessionId": "pty-1", "text": 42})),
        (
            "nullable_wrong_type",
            json!({"sessionId": "pty-1", "text": "x", "submit": "yes"}),
        ),
        (
            "enum",
            json!({"sessionId": "pty-1", "text": "x", "signal": "SIGHUP"}),
        ),
        (
            "unknown_property",
            json!({"sessionId": "pty-1", "text": "x", "foo": 1}),
        ),
        (
            "minimum",
            json!({"sessionId": "pty-1", "text": "x", "yieldTimeMs": -1}),
        ),
        (
            "integer",
            json!({"sessionId": "pty-1", "text": "x", "yieldTimeMs": 1.5}),
        ),
        (
            "nested",
            json!({"sessionId": "pty-1", "text": "x", "size": {"cols": "80", "depth": 3}}),
        ),
        (
            "many_at_once",
            json!({"text": 1, "submit": "no", "signal": "HUP", "extra": true, "more": null}),
        ),
        (
            "another_spelling_of_a_declared_name",
            json!({"session_id": "pty-1", "text": "x", "YIELD-TIME-MS": 5}),
        ),
        ("root_array", json!([1, 2])),
        ("root_string", json!("ls -la")),
        (
            "hostile_property_name",
            json!({"sessionId": "pty-1", "text": "x", "a\u{0}\"b": 1}),
        ),
    ];
    let mut all = String::new();
    for (name, args) in cases {
        let text = message(args).await;
        all.push_str(&format!("{name}:\n  {text}\n"));
    }
    insta::assert_snapshot!("validation_messages", all);
}

#[tokio::test]
async fn huge_property_names_are_bounded_in_messages() {
    let long = "k".repeat(100_000);
    let text = message(json!({"sessionId": "pty-1", "text": "x", long.clone(): 1})).await;
    assert!(text.len() < 300, "{} bytes", text.len());
    assert!(text.contains("…\" is not a declared property"), "{text}");
}

#[tokio::test]
async fn violations_are_capped_and_counted() {
    let mut args = serde_json::Map::new();
    args.insert("sessionId".into(), json!("pty-1"));
    args.insert("text".into(), json!("x"));
    for i in 0..50 {
        args.insert(format!("x{i:02}"), json!(i));
    }
    let text = message(Value::Object(args)).await;
    assert_eq!(text.matches("is not a declared property").count(), 20);
    assert!(text.ends_with("; and 30 more"), "{text}");
}

/// A whole number written as a float (`2.0`) where the schema declares an integer is that
/// integer: JSON Schema counts it as one, and so does the tool.
#[tokio::test]
async fn whole_floats_are_integers_where_the_schema_says_integer() {
    let tools = Tools::new();
    ok(tools.register(SendTool::new(Mode::Succeed)));
    let r = tools
        .execute(
            "send",
            json!({"sessionId": "pty-1", "text": "x", "yieldTimeMs": 2.0, "size": {"cols": 80.0, "rows": 24}}),
            ToolCall::new("w"),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    // A whole number beyond 64 bits is refused by name: neither read as the largest one nor
    // a deserializer's complaint.
    let r = tools
        .execute(
            "send",
            json!({"sessionId": "pty-1", "text": "x", "yieldTimeMs": 1e30}),
            ToolCall::new("w"),
        )
        .await;
    assert!(!r.text().contains("floating point"), "{}", r.text());
    assert_eq!(
        message(json!({"sessionId": "pty-1", "text": "x", "yieldTimeMs": 1e30})).await,
        "Error: invalid arguments: \"yieldTimeMs\" is above the largest integer this server reads (18446744073709551615)"
    );
}

/// `null` for an optional argument is the argument left out, and the published schema says
/// so: every optional parameter's type lists `null`, whatever the tool's type declares.
#[tokio::test]
async fn optional_parameters_admit_null_in_the_schema_as_in_the_pipeline() {
    let tools = Tools::new();
    ok(tools.register(SendTool::new(Mode::Succeed)));
    let r = tools
        .execute(
            "send",
            json!({"sessionId": "pty-1", "text": "x", "submit": null, "yieldTimeMs": null, "signal": null, "size": null}),
            ToolCall::new("w"),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    // A required one keeps its null, and its error names it.
    assert_eq!(
        message(json!({"sessionId": null, "text": "x"})).await,
        "Error: invalid arguments: \"sessionId\" must be a string"
    );
}
