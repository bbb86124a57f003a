//! Bad input gets a clear `Error: ...` result, bounded by `max_result_bytes`, and loses nothing
//! (no session needed for most of these; see `lifecycle` for the ones against a live session).

use dsh_tool_terminal::ToolTerminalConfig;
use dsh_tools::ToolCall;
use serde_json::json;

use crate::support::{Host, fast_bash};

#[tokio::test]
async fn wrong_types_missing_and_empty_ids_are_errors() {
    let host = Host::new(ToolTerminalConfig::default(), None);
    let agent = host.agent("a");
    let cases = [
        (
            "terminal_send",
            json!({"sessionId": 5, "text": "x"}),
            "\"sessionId\" must be a string",
        ),
        (
            "terminal_send",
            json!({"sessionId": "pty-1"}),
            "missing required property \"text\"",
        ),
        (
            "terminal_send",
            json!({"sessionId": "", "text": "x"}),
            "sessionId must be a non-empty string",
        ),
        (
            "terminal_read",
            json!({"sessionId": "p".repeat(100_000)}),
            "\"sessionId\" must be at most 128 characters long",
        ),
        (
            "terminal_read",
            json!({"sessionId": "pty-1", "offset": -1}),
            "offset",
        ),
        (
            "terminal_read",
            json!({"sessionId": "pty-1", "count": 0}),
            "count",
        ),
        (
            "terminal_read",
            json!({"sessionId": "pty-1", "count": 1.5}),
            "count",
        ),
        (
            "terminal_signal",
            json!({"sessionId": "pty-1", "signal": "SIGSEGV"}),
            "\"signal\" must be one of",
        ),
        (
            "terminal_open",
            json!({"type": ""}),
            "type must be a non-empty string",
        ),
        (
            "terminal_open",
            json!({}),
            "missing required property \"type\" (Registered terminal backend type, usually \"shell\".)",
        ),
        (
            "terminal_open",
            json!({"type": "A".repeat(100_000)}),
            "… (100000 characters); available types:",
        ),
        (
            "terminal_open",
            json!({"type": "shell", "cwd": "B".repeat(100_000)}),
            "cwd is 100000 bytes long, and a path is at most 4096",
        ),
        // The schema's limits (maxLength) are the tool's own.
        (
            "terminal_send",
            json!({"sessionId": "p".repeat(129), "text": "x"}),
            "\"sessionId\" must be at most 128 characters long",
        ),
        (
            "terminal_open",
            json!({"type": "shell", "name": "n".repeat(65)}),
            "\"name\" must be at most 64 characters long",
        ),
        // An empty cwd is refused as an empty sessionId is, not taken as no cwd.
        (
            "terminal_open",
            json!({"type": "shell", "cwd": ""}),
            "cwd must be a non-empty path",
        ),
        (
            "terminal_open",
            json!({"type": "shell", "cwd": "  "}),
            "cwd must be a non-empty path",
        ),
        // Past u64: refused, not read as the largest u64.
        (
            "terminal_read",
            json!({"sessionId": "pty-1", "offset": 18_446_744_073_709_551_616.0_f64}),
            "\"offset\" is above the largest integer this server reads (18446744073709551615)",
        ),
        (
            "terminal_read",
            json!({"sessionId": "pty-\n1"}),
            "sessionId contains control characters",
        ),
        (
            "terminal_open",
            json!({"type": "shell", "cwd": "a\u{0}b\nc"}),
            "cwd contains control characters",
        ),
        ("terminal_close", json!({"sessionId": null}), "sessionId"),
        (
            "terminal_open",
            json!({"type": "shell", "name": "a\nb\u{1b}[31m"}),
            "printable characters",
        ),
        (
            "terminal_open",
            json!({"type": "shell", "name": "n".repeat(100)}),
            "at most 64",
        ),
        (
            "terminal_open",
            json!({"type": "shell", "name": "  "}),
            "name must be a non-empty, visible string",
        ),
        (
            "terminal_open",
            json!({"type": "shell", "name": "\u{200b}"}),
            "name must be a non-empty, visible string",
        ),
        (
            "terminal_read",
            json!({"sessionId": "   "}),
            "sessionId must be a non-empty string",
        ),
        (
            "terminal_list",
            json!({"extra": 1}),
            "\"extra\" is not a declared property",
        ),
        (
            "terminal_send",
            json!("not an object"),
            "arguments must be an object",
        ),
    ];
    for (tool, args, expected) in cases {
        let r = host.call(&agent, tool, args.clone()).await;
        assert!(r.is_error, "{tool} {args}: {}", r.text());
        let text = r.text();
        assert!(text.starts_with("Error: "), "{tool} {args}: {text}");
        assert!(text.contains(expected), "{tool} {args}: {text}");
        // No error echoes a huge value: the advice stays in view.
        assert!(text.len() < 1000, "{tool}: {} bytes", text.len());
    }
    // `null` for an optional argument is the argument left out (many clients write it for
    // what they do not set): the error is the unknown session's, not the type's.
    let r = host
        .call(
            &agent,
            "terminal_read",
            json!({"sessionId": "pty-missing", "offset": null, "count": null}),
        )
        .await;
    let without = host
        .call(&agent, "terminal_read", json!({"sessionId": "pty-missing"}))
        .await;
    assert_eq!(r.text(), without.text());
    insta::assert_snapshot!(
        "error_unknown_session",
        host.call(&agent, "terminal_read", json!({"sessionId": "pty-missing"}))
            .await
            .text()
    );
    insta::assert_snapshot!(
        "error_no_backend",
        host.call(&agent, "terminal_open", json!({"type": "fish"}))
            .await
            .text()
    );
    host.shutdown().await;
}

/// A session's name passed as its id: the error names the id to pass, to its owner only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_passed_as_the_id_names_the_id() {
    let host = Host::new(ToolTerminalConfig::default(), Some(fast_bash()));
    let agent = host.agent("a");
    let open = host
        .call(
            &agent,
            "terminal_open",
            json!({"type": "shell", "name": "build"}),
        )
        .await;
    assert!(!open.is_error, "{}", open.text());
    let r = host
        .call(&agent, "terminal_read", json!({"sessionId": "build"}))
        .await;
    assert!(r.is_error);
    insta::assert_snapshot!("error_name_as_id", r.text());
    let other = host.agent("b");
    let r = host
        .call(&other, "terminal_read", json!({"sessionId": "build"}))
        .await;
    assert!(r.is_error);
    assert!(
        r.text()
            .starts_with("Error: unknown PTY session build: session ids have the shape pty-N"),
        "{}",
        r.text()
    );
    // The id with blanks around it (copied with its spacing) names the session.
    let id = open.structured.as_ref().expect("an open result")["sessionId"]
        .as_str()
        .expect("a session id")
        .to_owned();
    let r = host
        .call(
            &agent,
            "terminal_read",
            json!({"sessionId": format!(" {id}\n")}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    host.shutdown().await;
}

#[tokio::test]
async fn no_agent_is_an_error() {
    let host = Host::new(ToolTerminalConfig::default(), None);
    let r = host
        .tools
        .execute("terminal_list", json!({}), ToolCall::new("no-agent"))
        .await;
    assert!(r.is_error);
    assert_eq!(
        r.text(),
        "Error: terminal tools require an initiating agent"
    );
    host.shutdown().await;
}

/// Seed §8 item 95: at cap 64 every result, errors included, stays within 64 bytes with the
/// truncation marker.
#[tokio::test]
async fn cap_64_bounds_errors_with_the_marker() {
    let host = Host::new(
        ToolTerminalConfig {
            max_result_bytes: 64,
            ..ToolTerminalConfig::default()
        },
        None,
    );
    let agent = host.agent("a");
    let long_type = "t".repeat(1000);
    let r = host
        .call(&agent, "terminal_open", json!({"type": long_type}))
        .await;
    let text = r.text();
    assert!(r.is_error);
    assert!(text.len() <= 64, "{} bytes: {text}", text.len());
    assert!(text.starts_with("Error: no PTY backend"), "{text}");
    assert!(text.ends_with("[output truncated]"), "{text}");

    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": 7, "text": 8, "submit": "yes"}),
        )
        .await;
    assert!(r.is_error);
    assert!(r.text().len() <= 64, "{}", r.text());
    host.shutdown().await;
}

#[tokio::test]
async fn oversized_text_is_refused_before_anything_is_written() {
    let host = Host::new(ToolTerminalConfig::default(), None);
    let agent = host.agent("a");
    let huge = "x".repeat(2 * 1024 * 1024);
    let r = host.send(&agent, "pty-1", &huge).await;
    assert!(r.is_error);
    insta::assert_snapshot!("error_text_too_large", r.text());
    host.shutdown().await;
}

/// A NUL character cannot be typed as text (bash's line editor took it as a key and ran
/// `echo ab`): the send is refused, nothing is typed, and the session is as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_with_a_nul_is_refused_and_nothing_is_typed() {
    let (host, agent) = Host::with_open_shell().await;
    let r = host.send(&agent, "pty-1", "echo a\u{0}b").await;
    assert!(r.is_error);
    insta::assert_snapshot!("error_text_with_nul", r.text());
    let r = host.send(&agent, "pty-1", "echo next").await;
    assert!(!r.is_error, "{}", r.text());
    assert!(r.text().lines().any(|l| l == "next"), "{}", r.text());
    assert!(!r.text().contains("ab"), "{}", r.text());
    host.shutdown().await;
}

/// A bracketed-paste marker would make the shell's line editor take every later send as
/// pasted text on its input line: the send is refused, nothing is typed, and the session is
/// as it was (the next send runs at once).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_with_a_paste_marker_is_refused_and_nothing_is_typed() {
    let (host, agent) = Host::with_open_shell().await;
    for text in ["echo 'x\u{1b}[200~y'", "print('a\u{1b}[201~b')"] {
        let r = host.send(&agent, "pty-1", text).await;
        assert!(r.is_error, "{}", r.text());
        insta::assert_snapshot!("error_text_with_paste_marker", r.text());
    }
    let r = host.send(&agent, "pty-1", "echo next").await;
    assert!(!r.is_error, "{}", r.text());
    assert!(r.text().lines().any(|l| l == "next"), "{}", r.text());
    assert!(r.text().contains("[exit: 0]"), "{}", r.text());
    host.shutdown().await;
}

#[tokio::test]
async fn background_sends_name_what_is_missing() {
    let host = Host::new(ToolTerminalConfig::default(), None);
    let agent = host.agent("a");
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "make", "run_in_background": true}),
        )
        .await;
    assert!(r.is_error);
    insta::assert_snapshot!("error_background_without_jobs", r.text());
    host.shutdown().await;
}
