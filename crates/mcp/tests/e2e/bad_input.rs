//! Bad input through MCP: every answer is an `isError` result with an `Error: ...` text (or a
//! plain delivery where the input is legitimate), never a protocol error, and the session keeps
//! working afterwards.

use serde_json::{Value, json};

use crate::support::{Client, InProcess, call, err, ok, send, test_options};

/// The session answers a fresh command right after a Ctrl-C typed into the terminal (which
/// clears whatever the bad input left on the command line or in the foreground).
async fn assert_session_works(client: &Client, tag: &str) {
    ok(
        client,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "\u{3}", "submit": false}),
    )
    .await;
    let marker = format!("still-works-{tag}");
    let r = send(client, "pty-1", &format!("echo {marker}")).await;
    assert!(r.has_line(&marker), "after {tag}: {:?}", r.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_are_error_results() {
    let options = test_options();
    let max_result_bytes = options.max_result_bytes;
    let mut host = InProcess::new(&options);
    let client = host.connect().await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;

    let cases: Vec<(&str, Value, &str)> = vec![
        // wrong types
        (
            "terminal_send",
            json!({"sessionId": 5, "text": "echo x"}),
            "sessionId",
        ),
        (
            "terminal_send",
            json!({"sessionId": "pty-1", "text": 42}),
            "text",
        ),
        (
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "x", "submit": "yes"}),
            "submit",
        ),
        (
            "terminal_read",
            json!({"sessionId": "pty-1", "count": "ten"}),
            "count",
        ),
        (
            "terminal_read",
            json!({"sessionId": "pty-1", "offset": -1}),
            "offset",
        ),
        ("terminal_open", json!({"type": ["shell"]}), "type"),
        (
            "terminal_signal",
            json!({"sessionId": "pty-1", "signal": "SIGFOO"}),
            "signal",
        ),
        (
            "terminal_signal",
            json!({"sessionId": "pty-1", "signal": 9}),
            "signal",
        ),
        // missing and empty ids
        ("terminal_send", json!({"text": "echo x"}), "sessionId"),
        ("terminal_send", json!({"sessionId": "pty-1"}), "text"),
        ("terminal_read", json!({}), "sessionId"),
        ("terminal_close", json!({}), "sessionId"),
        ("terminal_open", json!({}), "type"),
        (
            "terminal_send",
            json!({"sessionId": "", "text": "echo x"}),
            "sessionId",
        ),
        ("terminal_close", json!({"sessionId": ""}), "sessionId"),
        ("terminal_open", json!({"type": ""}), "type"),
        // unknown ids and types
        (
            "terminal_send",
            json!({"sessionId": "pty-99", "text": "echo x"}),
            "pty-99",
        ),
        ("terminal_read", json!({"sessionId": "pty-99"}), "pty-99"),
        (
            "terminal_signal",
            json!({"sessionId": "pty-99", "signal": "SIGINT"}),
            "pty-99",
        ),
        ("terminal_close", json!({"sessionId": "pty-99"}), "pty-99"),
        (
            "terminal_send",
            json!({"sessionId": "../../etc", "text": "x"}),
            "../../etc",
        ),
        (
            "terminal_open",
            json!({"type": "no-such-backend"}),
            "no-such-backend",
        ),
        // a background send on an unknown session is refused before a job exists
        (
            "terminal_send",
            json!({"sessionId": "pty-97", "text": "echo x", "run_in_background": true}),
            "pty-97",
        ),
        // an unknown job
        (
            "job_output",
            json!({"job_id": "pty-send-99"}),
            "unknown job pty-send-99",
        ),
        ("job_kill", json!({"job_id": ""}), "invalid job_id"),
        // unknown tool
        ("no_such_tool", json!({}), "no_such_tool"),
        // a 2 MB text is refused (input cap, or the unknown session) without writing anything
        (
            "terminal_send",
            json!({"sessionId": "pty-98", "text": "x".repeat(2 << 20)}),
            "",
        ),
    ];
    for (tool, args, needle) in cases {
        let shown = {
            let s = args.to_string();
            if s.len() > 120 {
                format!("{}...", &s[..120])
            } else {
                s
            }
        };
        let r = err(&client, tool, args).await;
        assert!(
            r.text.contains(needle),
            "{tool} {shown}: error should mention {needle:?}: {:?}",
            r.text
        );
        assert!(
            r.text.len() <= max_result_bytes,
            "{tool}: result exceeds the cap"
        );
        assert!(
            r.structured.is_none(),
            "{tool}: error results carry no structured content"
        );
    }
    assert_session_works(&client, "bad-arguments").await;

    ok(&client, "terminal_close", json!({"sessionId": "pty-1"})).await;
    host.finish(vec![client]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_text_is_delivered_or_refused_cleanly() {
    let options = test_options();
    let max_result_bytes = options.max_result_bytes;
    let mut host = InProcess::new(&options);
    let client = host.connect().await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;

    let texts: Vec<(&str, Value)> = vec![
        ("nul", json!({"sessionId": "pty-1", "text": "echo a\u{0}b"})),
        (
            "controls",
            json!({"sessionId": "pty-1", "text": "echo x\u{7}\u{8}\u{1b}[2J\u{1b}]0;t\u{7}y"}),
        ),
        (
            "ctrl-c-only",
            json!({"sessionId": "pty-1", "text": "\u{3}", "submit": false}),
        ),
        (
            "del-and-escape",
            json!({"sessionId": "pty-1", "text": "\u{7f}\u{1b}", "submit": false}),
        ),
        (
            "bidi-and-emoji",
            json!({"sessionId": "pty-1", "text": "echo \u{202e}abc \u{1f600} \u{fffd}"}),
        ),
        ("empty", json!({"sessionId": "pty-1", "text": ""})),
    ];
    for (tag, args) in texts {
        let r = call(&client, "terminal_send", args).await;
        if r.is_error {
            assert!(r.text.starts_with("Error: "), "{tag}: {:?}", r.text);
        } else {
            assert!(r.text.contains("[wait: "), "{tag}: {:?}", r.text);
            assert!(
                !r.text.contains('\u{1b}'),
                "{tag}: escape leaked: {:?}",
                r.text
            );
        }
        assert!(
            r.text.len() <= max_result_bytes,
            "{tag}: result exceeds the cap"
        );
        assert_session_works(&client, tag).await;
    }

    // Pasting into a program reading the terminal: 60 KB is delivered, 2 MB is refused (above
    // the input cap); either way the result stays within the result cap.
    let line = format!("{}\n", "y".repeat(99));
    for (tag, bytes) in [("60kb", 60 << 10), ("2mb", 2 << 20)] {
        send(&client, "pty-1", "cat > /dev/null").await;
        let paste = line.repeat(bytes / line.len());
        let r = call(
            &client,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": paste, "submit": false}),
        )
        .await;
        let head = &r.text[..r.text.len().min(300)];
        if bytes > options.max_input_bytes {
            assert!(
                r.is_error && r.text.starts_with("Error: "),
                "{tag}: {head:?}"
            );
        } else {
            assert!(!r.is_error, "{tag}: {head:?}");
        }
        assert!(
            r.text.len() <= max_result_bytes,
            "{tag}: result exceeds the cap"
        );
        assert_session_works(&client, tag).await;
    }

    ok(&client, "terminal_close", json!({"sessionId": "pty-1"})).await;
    host.finish(vec![client]).await;
}

/// A long paste into a program reading line by line (here in the default sandbox) reaches it
/// whole, and the send settles with the program waiting for more. (The kernel may hold back
/// the echo of the last lines until the next input when the terminal's output buffer was
/// full, so the result is not asserted to end with the last line.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_paste_into_a_line_reader_reaches_it_whole() {
    let dir = tempfile_dir("paste");
    let mut host = InProcess::new(&dsh_mcp::Options {
        workspace: Some(dir.clone()),
        ..test_options()
    });
    let client = host.connect().await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    send(
        &client,
        "pty-1",
        &format!("cat > '{}'", dir.join("f.txt").display()),
    )
    .await;
    let lines: Vec<String> = (1..=200)
        .map(|i| format!("line {i} {}", "x".repeat(90)))
        .collect();
    let r = send(&client, "pty-1", &lines.join("\n")).await;
    assert!(r.text.contains("[wait: stdin_read]"), "{:?}", r.text);
    ok(
        &client,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "\u{4}", "submit": false}),
    )
    .await;
    let written = std::fs::read_to_string(dir.join("f.txt")).unwrap_or_default();
    assert_eq!(written.lines().count(), 200);
    host.finish(vec![client]).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fresh directory under the system temp dir, unique to this test process and `tag`.
fn tempfile_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dsh-e2e-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}
