//! Field case C34 over stdio against the built binary, with raw JSON-RPC lines: every request
//! gets an answer (lone surrogates, unparsable and cut-short lines, an over-long line,
//! non-object arguments, a malformed `params`, a request reusing an id still in flight or
//! just cancelled), and the server keeps serving; a call cancelled after a job finished does
//! not take the job's notice with its unsent result; a second `initialize` is refused and
//! changes nothing; a `job_output` wait the client's end of input stops says the job ends with
//! the connection.

use crate::raw::{Raw, call, text_of};
use crate::support::within;
use serde_json::{Value, json};

/// The server's line limit in this test (`--max-message-bytes`): small, so the over-long line
/// costs little; the default is exercised by the same code path.
const LIMIT: usize = 64 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c34_every_request_gets_an_answer() {
    let (mut child, mut raw) = Raw::spawn(&["--max-message-bytes", &LIMIT.to_string()]);

    // Notifications before initialize are dropped (rmcp ended the connection on one), and a
    // request before initialize (rmcp takes it for a stateless request of a newer protocol)
    // gets an error that says what to send first.
    let r = raw
        .exchange(
            [
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#,
                r#"{"jsonrpc":"2.0","method":"foo/bar"}"#,
                r#"{"jsonrpc":"2.0","id":100,"method":"tools/list"}"#,
            ]
            .join("\n"),
            "100",
        )
        .await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"].as_str().is_some_and(|m| m.starts_with(
            "the request came before initialize: this server starts a session with initialize, so send it (then notifications/initialized) first and repeat the request"
        )),
        "{r}"
    );

    raw.initialize().await;
    let r = raw
        .exchange(call(2, "terminal_open", &json!({"type": "shell"})), "2")
        .await;
    assert_eq!(r["result"]["isError"], false, "{r}");

    // A lone surrogate escape, as some encoders emit: served, with U+FFFD in its place.
    // The screen never shows U+FFFD, so the shell prints the bytes it got in hex.
    let line = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"terminal_send","arguments":{"sessionId":"pty-1","text":"printf %s 'L\udc80E' | od -An -tx1 | tr -d ' '"}}}"#;
    let r = raw.exchange(line.to_owned(), "3").await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    // L, then U+FFFD in UTF-8 (ef bf bd), then E.
    assert!(text_of(&r).lines().any(|l| l == "4cefbfbd45"), "{r}");

    // Not JSON: -32700 with id null (the next request's answer proves it was read in order).
    let r = raw
        .exchange(
            format!("this is not json\n{}", call(4, "terminal_list", &json!({}))),
            "4",
        )
        .await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    let parse_error = raw.null_ids.pop().expect("an answer to the non-JSON line");
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");

    // A cut-short object: -32700 carrying the id it announced.
    let r = raw
        .exchange(
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"terminal_list""#
                .to_owned(),
            "5",
        )
        .await;
    assert_eq!(r["error"]["code"], -32700, "{r}");

    // A line over the limit: an error naming the limit, with its id.
    let huge = "x".repeat(LIMIT + 1024);
    let r = raw
        .exchange(
            call(
                6,
                "terminal_send",
                &json!({"sessionId": "pty-1", "text": huge}),
            ),
            "6",
        )
        .await;
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(&format!("{LIMIT}-byte"))),
        "{r}"
    );

    // Non-object arguments: a tool error.
    let r = raw
        .exchange(call(7, "terminal_list", &json!([])), "7")
        .await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(
        text_of(&r).starts_with("Error: invalid arguments: expected an object"),
        "{r}"
    );

    // A malformed tools/call: invalid params naming the field.
    let line = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": 5}});
    let r = raw.exchange(line.to_string(), "8").await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("`params.name`")),
        "{r}"
    );

    // A request reusing the id of one still in flight: refused with an error carrying that
    // id, and the first request still answered.
    let first = call(
        11,
        "terminal_send",
        &json!({"sessionId": "pty-1", "text": "sleep 1; echo SLEPT"}),
    );
    raw.write(&format!(
        "{first}\n{}",
        call(11, "terminal_list", &json!({}))
    ))
    .await;
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let message = raw.next_message("an answer to id 11").await;
        if message["id"] == 11 {
            answers.push(message);
        }
    }
    assert_eq!(answers[0]["error"]["code"], -32600, "{answers:?}");
    assert!(
        text_of(&answers[1]).lines().any(|l| l == "SLEPT"),
        "{answers:?}"
    );

    // An id reused right after its request was cancelled is another request: it is served,
    // and the cancelled one's late answer neither cancels it nor takes its place.
    let old = call(
        12,
        "terminal_send",
        &json!({"sessionId": "pty-1", "text": "sleep 30; echo OLD12"}),
    );
    let cancel =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12}}"#;
    let new = call(
        12,
        "terminal_send",
        &json!({"sessionId": "pty-1", "text": "echo NEW$((6*2))"}),
    );
    raw.write(&format!("{old}\n{cancel}\n{new}")).await;
    let r = loop {
        let message = raw.next_message("the answer to the reused id 12").await;
        if message["id"] == 12 {
            break message;
        }
    };
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert!(text_of(&r).lines().any(|l| l == "NEW12"), "{r}");

    // Still serving, the session included.
    let r = raw
        .exchange(
            call(
                9,
                "terminal_send",
                &json!({"sessionId": "pty-1", "text": "echo still-serving"}),
            ),
            "9",
        )
        .await;
    assert!(text_of(&r).lines().any(|l| l == "still-serving"), "{r}");
    let r = raw
        .exchange(
            call(10, "terminal_close", &json!({"sessionId": "pty-1"})),
            "10",
        )
        .await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert!(
        raw.null_ids.is_empty(),
        "unexpected answers: {:?}",
        raw.null_ids
    );

    drop(raw);
    let status = within("dsh-mcp exit", child.wait()).await.expect("wait");
    assert!(status.success(), "dsh-mcp exited with {status}");
}

/// A background job finishes, then a call is cancelled while it runs: its result is never
/// sent, so the job's notice goes on the next result instead, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_leaves_the_job_notice_for_the_next_result() {
    let (mut child, mut raw) = Raw::spawn(&[]);
    raw.initialize().await;
    for (id, key) in [(2, "2"), (3, "3")] {
        let r = raw
            .exchange(call(id, "terminal_open", &json!({"type": "shell"})), key)
            .await;
        assert_eq!(r["result"]["isError"], false, "{r}");
    }
    let background = json!({"sessionId": "pty-2", "text": "echo quick", "run_in_background": true});
    let r = raw
        .exchange(call(4, "terminal_send", &background), "4")
        .await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    // The job's end, as its log notification tells it.
    while !raw
        .null_ids
        .iter()
        .any(|m| m["method"] == "notifications/message")
    {
        let message = raw.next_message("the job's notice").await;
        raw.null_ids.push(message);
    }
    // A send that runs until its cancel: its unsent result takes no notice.
    let long = json!({"sessionId": "pty-1", "text": "sleep 30; echo LONG"});
    raw.write(&call(5, "terminal_send", &long)).await;
    raw.write(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#)
        .await;
    // The next results, until the session is free again, carry the notice once.
    let mut notices = 0;
    for id in 6..200 {
        let sync = json!({"sessionId": "pty-1", "text": "echo sync"});
        let r = raw
            .exchange(call(id, "terminal_send", &sync), &id.to_string())
            .await;
        let blocks = r["result"]["content"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        notices += blocks
            .iter()
            .filter(|b| {
                b["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("background job pty-send-1"))
            })
            .count();
        if r["result"]["isError"] == false {
            break;
        }
    }
    assert!(
        !raw.by_id.contains_key("5"),
        "a cancelled call was answered"
    );
    assert_eq!(notices, 1, "{:?}", raw.by_id);
    drop(raw);
    let status = within("dsh-mcp exit", child.wait()).await.expect("wait");
    assert!(status.success(), "dsh-mcp exited with {status}");
}

/// A second `initialize` on an initialized connection is refused with -32600 (it took the new
/// client info and protocol version for the connection's), and the connection goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_initialize_is_refused_and_the_connection_goes_on() {
    let (mut child, mut raw) = Raw::spawn(&[]);
    raw.initialize().await;
    let again = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "again", "version": "0"}}});
    let r = raw.exchange(again.to_string(), "2").await;
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Invalid Request: already initialized")),
        "{r}"
    );
    let r = raw
        .exchange(call(3, "terminal_list", &json!({})), "3")
        .await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    drop(raw);
    let status = within("dsh-mcp exit", child.wait()).await.expect("wait");
    assert!(status.success(), "dsh-mcp exited with {status}");
}

/// The client closes stdin while a `job_output` waits: the server ends the connection and
/// stops the job with it, and the wait's answer says so (it said the job was left as it was,
/// to be read again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_cut_short_by_the_end_of_input_says_the_job_ends_with_the_connection() {
    // Calls run concurrently: under load the wait may not have been dispatched when the input
    // ended (answered as aborted before dispatch, also true); a new server is tried then.
    for _ in 0..5 {
        let text = wait_cut_by_end_of_input().await;
        if text.starts_with("Error: tool call aborted before dispatch") {
            continue;
        }
        assert!(
            text.starts_with("Error: wait aborted: the connection this call came on is closing"),
            "{text}"
        );
        assert!(!text.contains("call job_output again"), "{text}");
        return;
    }
    panic!("the wait was never dispatched before the end of input in 5 tries");
}

/// A server whose client ends its input while a `job_output` waits: the wait's answer text,
/// once the server exited with success.
async fn wait_cut_by_end_of_input() -> String {
    let (mut child, mut raw) = Raw::spawn(&[]);
    raw.initialize().await;
    let r = raw
        .exchange(call(2, "terminal_open", &json!({"type": "shell"})), "2")
        .await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    let background = json!({"sessionId": "pty-1", "text": "sleep 60", "run_in_background": true});
    let r = raw
        .exchange(call(3, "terminal_send", &background), "3")
        .await;
    let job = text_of(&r)
        .split_whitespace()
        .find(|w| w.starts_with("pty-send-"))
        .unwrap_or_else(|| panic!("no job id: {r}"))
        .to_owned();
    let wait = json!({"job_id": job, "wait": true, "timeout_ms": 60_000});
    raw.write(&call(4, "job_output", &wait)).await;
    // A later call answered: the wait, read before it, was most likely dispatched by then.
    let r = raw
        .exchange(call(5, "terminal_list", &json!({})), "5")
        .await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    let Raw {
        stdin, mut lines, ..
    } = raw;
    drop(stdin);
    let answer = within("the wait's answer", async {
        loop {
            let line = lines
                .next_line()
                .await
                .expect("read stdout")
                .expect("stdout closed before the wait's answer");
            let message: Value = serde_json::from_str(&line).expect("JSON");
            if message["id"] == 4 {
                return message;
            }
        }
    })
    .await;
    let status = within("dsh-mcp exit", child.wait()).await.expect("wait");
    assert!(status.success(), "dsh-mcp exited with {status}");
    text_of(&answer).to_owned()
}
