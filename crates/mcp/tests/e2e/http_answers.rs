//! Every request over Streamable HTTP gets its own answer. A request reusing the id of one of
//! its MCP session's requests still being served is refused with the JSON-RPC error stdio
//! gives (rmcp routes a session's answers by id: the second took the first one's answer, and
//! the first never got one), and the first gets its own answer; the id is free again once it
//! was answered. A request running when its session is deleted is answered with an error
//! (its event stream closed empty), and the teardown logs no error (rmcp's attempt to send the
//! request's own answer to the closed session was logged as one); one its client cancelled is
//! not answered. A second `initialize` in a session is refused and changes nothing.

use serde_json::{Value, json};

use crate::http_server::{HttpServerProcess, RawSession, message_with_id, result_text};
use crate::support::within;

/// `terminal_send` arguments for session `pty-1` running a loop that prints `{word}-42` every
/// 0.2 s: the output keeps the send from settling until something ends it.
fn ticking(word: &str) -> Value {
    json!({"sessionId": "pty-1", "timeoutMs": 120_000,
        "text": format!("while :; do echo {word}-$((6*7)); sleep 0.2; done")})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_reusing_an_id_in_flight_is_refused_and_the_first_gets_its_own_answer() {
    let mut server = HttpServerProcess::start(&[]).await;
    let raw = RawSession::open_with_shell(&server.url).await;
    let loop_send = ticking("tick");
    let first = raw.call(42, "terminal_send", &loop_send);
    let second = async {
        let mut id = 100;
        raw.page_until(&mut id, "tick-42").await;
        let duplicate = json!({"jsonrpc": "2.0", "id": 42, "method": "tools/call",
            "params": {"name": "terminal_list", "arguments": {}}});
        let (status, body) = raw.post(duplicate.to_string()).await;
        assert_eq!(status, 400, "{body}");
        assert!(
            body.contains("id 42 is already used by a request still in flight"),
            "{body}"
        );
        let signal = raw
            .call(
                200,
                "terminal_signal",
                &json!({"sessionId": "pty-1", "signal": "SIGINT"}),
            )
            .await;
        assert_eq!(signal["result"]["isError"], false, "{signal}");
    };
    let (first, ()) = within("the first request's answer", async {
        tokio::join!(first, second)
    })
    .await;
    let text = result_text(&first);
    assert!(text.lines().any(|l| l == "tick-42"), "{first}");
    assert!(text.contains("[exit: 130]"), "{first}");
    // Answered, its id serves a new request.
    let again = raw.call(42, "terminal_list", &json!({})).await;
    assert_eq!(again["result"]["isError"], false, "{again}");
    server.terminate().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_running_when_its_session_is_deleted_is_answered_with_an_error() {
    let mut server = HttpServerProcess::start(&[]).await;
    let raw = RawSession::open_with_shell(&server.url).await;
    let loop_send = ticking("tock");
    let running = raw.call(42, "terminal_send", &loop_send);
    let delete = async {
        let mut id = 100;
        raw.page_until(&mut id, "tock-42").await;
        let status = raw.delete().await;
        assert!((200..300).contains(&status), "DELETE: {status}");
    };
    let (answer, ()) = within("the running request's answer", async {
        tokio::join!(running, delete)
    })
    .await;
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("the MCP session ended while this request ran"),
        "{answer}"
    );
    server.terminate().await;
    let errors = server.logged_errors().await;
    assert!(
        errors.is_empty(),
        "an ordinary DELETE logged errors: {errors:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_running_when_the_server_shuts_down_is_answered_with_an_error() {
    let mut server = HttpServerProcess::start(&[]).await;
    let raw = RawSession::open_with_shell(&server.url).await;
    let loop_send = ticking("tuck");
    let running = raw.call(42, "terminal_send", &loop_send);
    let shutdown = async {
        let mut id = 100;
        raw.page_until(&mut id, "tuck-42").await;
        server.terminate().await;
    };
    let (answer, ()) = within("the running request's answer", async {
        tokio::join!(running, shutdown)
    })
    .await;
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    let errors = server.logged_errors().await;
    assert!(
        errors.is_empty(),
        "an ordinary shutdown logged errors: {errors:?}"
    );
}

/// A request the client cancels (`notifications/cancelled`) gets no answer, as on stdio and as
/// MCP asks (it was answered that its MCP session had ended, telling the client to start a
/// new one), and the session goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_the_client_cancels_gets_no_answer_and_its_session_goes_on() {
    let mut server = HttpServerProcess::start(&[]).await;
    let raw = RawSession::open_with_shell(&server.url).await;
    let request = json!({"jsonrpc": "2.0", "id": 42, "method": "tools/call",
        "params": {"name": "terminal_send", "arguments": ticking("tack")}});
    let running = raw.post(request.to_string());
    let cancel = async {
        let mut id = 100;
        raw.page_until(&mut id, "tack-42").await;
        let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 42}});
        let (status, body) = raw.post(cancelled.to_string()).await;
        assert!((200..300).contains(&status), "{status}: {body}");
    };
    let ((status, body), ()) = within("the cancelled request's stream", async {
        tokio::join!(running, cancel)
    })
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains("the MCP session ended"), "{body}");
    let list = raw.call(200, "terminal_list", &json!({})).await;
    assert_eq!(list["result"]["isError"], false, "{list}");
    assert!(result_text(&list).contains("pty-1"), "{list}");
    server.terminate().await;
}

/// A second `initialize` in a live session is refused with -32600 (it took the new client info
/// and protocol version for the session's), and the session goes on with its terminals.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_initialize_in_a_session_is_refused_and_the_session_goes_on() {
    let mut server = HttpServerProcess::start(&[]).await;
    let raw = RawSession::open_with_shell(&server.url).await;
    let again = json!({"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "again", "version": "0"}}});
    let (_, body) = raw.post(again.to_string()).await;
    let answer = message_with_id(&body, &json!(9));
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Invalid Request: already initialized")),
        "{answer}"
    );
    let list = raw.call(10, "terminal_list", &json!({})).await;
    assert_eq!(list["result"]["isError"], false, "{list}");
    assert!(result_text(&list).contains("pty-1"), "{list}");
    server.terminate().await;
}
