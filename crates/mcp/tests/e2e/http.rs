//! `dsh-mcp --listen`: the built binary serving MCP Streamable HTTP to rmcp's HTTP client.
//!
//! Two sessions are two agents; deleting a session ends its processes; a request without the
//! token gets 401, a foreign Origin 403, an unknown session 404, a body over the limit 413, a
//! session over the limit 503; bad bodies get the JSON-RPC answers stdio gives; SIGTERM closes
//! every session and the server exits 0. Idle expiry is in `http_idle.rs`; the server process and
//! raw requests the tests use are in `http_server.rs`.

use std::process::Stdio;

use serde_json::{Value, json};

use crate::http_server::{
    HttpServerProcess, RawSession, bearer, initialize, json_error, message_with_id, post, post_raw,
    result_text,
};
use crate::support::{
    ProcessWatch, assert_foreign, err, ok, send, shell_pid, start_background_sleep, within,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sessions_are_isolated_agents_behind_a_token() {
    let mut server =
        HttpServerProcess::start(&["--max-sessions", "2", "--max-message-bytes", "4096"]).await;
    let url = server.url.clone();
    let auth = bearer();

    // Health needs no token.
    let health = within("healthz", reqwest::get(server.health_url()))
        .await
        .expect("GET /healthz");
    assert_eq!(health.status().as_u16(), 200);
    assert_eq!(
        within("healthz body", health.text()).await.expect("body"),
        r#"{"status":"ok"}"#
    );

    // No token, a wrong token: 401 with a JSON explanation.
    let (status, session, body) = post(&url, &[], &initialize()).await;
    assert_eq!((status, session), (401, None), "{body}");
    assert!(
        json_error(&body).contains("Authorization: Bearer"),
        "{body}"
    );
    let (status, _, body) = post(&url, &[("authorization", "Bearer nope")], &initialize()).await;
    assert_eq!(status, 401, "{body}");
    // A foreign Origin: 403, even with the token.
    let (status, session, body) = post(
        &url,
        &[("authorization", &auth), ("origin", "http://evil.example")],
        &initialize(),
    )
    .await;
    assert_eq!((status, session), (403, None), "{body}");
    assert!(json_error(&body).contains("Origin"), "{body}");
    // Each error says what to do, not only what happened.
    assert!(json_error(&body).contains("--allowed-origin"), "{body}");
    // A body over --max-message-bytes: 413.
    let mut big = initialize();
    big["params"]["clientInfo"]["name"] = json!("x".repeat(5000));
    let (status, session, body) = post(&url, &[("authorization", &auth)], &big).await;
    assert_eq!((status, session), (413, None), "{body}");
    assert!(json_error(&body).contains("--max-message-bytes"), "{body}");

    // Two sessions, two agents.
    let a = server.connect().await;
    let b = server.connect().await;
    // Ids are minted host-wide, and each session's warm shell may take one first.
    let open = ok(&a, "terminal_open", json!({"type": "shell"})).await;
    let a_id = open.structured.as_ref().expect("structured")["sessionId"]
        .as_str()
        .expect("sessionId")
        .to_owned();
    assert!(
        open.text
            .starts_with(&format!("started terminal session {a_id}")),
        "{}",
        open.text
    );
    let r = send(&a, &a_id, "echo from-a").await;
    assert!(r.has_line("from-a"), "{}", r.text);
    let a_shell = ProcessWatch::new(shell_pid(&a, &a_id).await);
    let (_, a_sleep) = start_background_sleep(&a, &a_id).await;
    let a_sleep = ProcessWatch::new(a_sleep);

    assert_eq!(
        ok(&b, "terminal_list", json!({})).await.text,
        "(no terminal sessions)"
    );
    assert_foreign(&b, &a_id).await;
    ok(&b, "terminal_open", json!({"type": "shell", "name": "b"})).await;
    let b_id = ok(&b, "terminal_list", json!({})).await.text;
    let b_id = b_id.split_whitespace().next().expect("b's id").to_owned();
    let r = send(&b, &b_id, "echo from-b").await;
    assert!(r.has_line("from-b"), "{}", r.text);
    let b_shell = ProcessWatch::new(shell_pid(&b, &b_id).await);
    let r = err(&a, "terminal_read", json!({"sessionId": b_id})).await;
    assert!(r.text.contains("belongs to another agent"), "{}", r.text);
    let list_a = ok(&a, "terminal_list", json!({})).await.text;
    assert_eq!(list_a.lines().count(), 1, "{list_a}");

    // A third session is over --max-sessions 2.
    let (status, session, body) = post(&url, &[("authorization", &auth)], &initialize()).await;
    assert_eq!((status, session), (503, None), "{body}");
    assert!(json_error(&body).contains("--max-sessions"), "{body}");

    // Ending A's session (the client sends DELETE with its Mcp-Session-Id) ends its processes.
    within("client A close", a.cancel())
        .await
        .expect("client A");
    a_shell.assert_exits("session A's shell").await;
    a_sleep.assert_exits("session A's background sleep").await;
    assert!(b_shell.is_running(), "B's shell must survive A's end");
    let r = send(&b, &b_id, "echo b-still-works").await;
    assert!(r.has_line("b-still-works"), "{}", r.text);

    // A raw session: DELETE it by id, then it is unknown (404).
    let (status, session, body) = post(&url, &[("authorization", &auth)], &initialize()).await;
    assert_eq!(status, 200, "{body}");
    let session = session.expect("Mcp-Session-Id on initialize");
    let deleted = within(
        "DELETE session",
        reqwest::Client::new()
            .delete(&url)
            .header("authorization", &auth)
            .header("mcp-session-id", &session)
            .send(),
    )
    .await
    .expect("DELETE");
    assert!(deleted.status().is_success(), "{deleted:?}");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (status, _, body) = post(
        &url,
        &[("authorization", &auth), ("mcp-session-id", &session)],
        &list,
    )
    .await;
    assert_eq!(status, 404, "{body}");
    assert!(json_error(&body).contains("send initialize"), "{body}");

    // SIGTERM: B's session is closed with its processes and the server exits 0.
    server.terminate().await;
    b_shell.assert_exits("session B's shell").await;
    drop(b);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_loopback_address_needs_a_token() {
    let out = within(
        "dsh-mcp",
        tokio::process::Command::new(env!("CARGO_BIN_EXE_dsh-mcp"))
            .args(["--listen", "0.0.0.0:0"])
            .env_remove("DSH_MCP_TOKEN")
            .stdin(Stdio::null())
            .output(),
    )
    .await
    .expect("run dsh-mcp");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refusing to serve without a bearer token"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn job_notices_reach_the_http_session_as_log_notifications() {
    let mut server = HttpServerProcess::start(&[]).await;
    let (tx, mut logs) = tokio::sync::mpsc::unbounded_channel();
    let client = server.connect_with(crate::jobs::LogClient(tx)).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let shell = ProcessWatch::new(shell_pid(&client, "pty-1").await);
    let (job, _) = crate::jobs::start_job(&client, "pty-1", "echo notice-me").await;
    let (logger, text) = within("notice log notification", logs.recv())
        .await
        .expect("log channel");
    assert_eq!(logger.as_deref(), Some("dsh-jobs"));
    assert!(
        text.starts_with(&format!(
            "background job {job} (pty-send: pty-1: echo notice-me) finished [status: completed"
        )),
        "{text:?}"
    );
    within("client close", client.cancel())
        .await
        .expect("client");
    shell.assert_exits("the session's shell").await;

    server.terminate().await;
}

/// Field case C34 over HTTP: bad bodies get the answers stdio gives (`inbound`), never a
/// misleading HTTP error, and the session keeps serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_bodies_get_the_json_rpc_answers_stdio_gives() {
    let mut server = HttpServerProcess::start(&[]).await;
    let url = server.url.clone();

    // Outside a session too: a parse error, and no session is created.
    let (status, session, body) =
        post_raw(&url, &[("authorization", &bearer())], "not json".into()).await;
    assert_eq!((status, session), (400, None), "{body}");
    assert_eq!(
        message_with_id(&body, &Value::Null)["error"]["code"],
        -32700
    );

    let raw = RawSession::open_with_shell(&url).await;
    let shell = ProcessWatch::new(raw.shell_pid(3, "pty-1").await);

    // Not JSON, cut short, empty: -32700 (with the id when it is readable), saying what to
    // send, with no word about headers that were right.
    for (body, id) in [
        ("not json", Value::Null),
        (r#"{"jsonrpc":"2.0","id":1,"#, json!(1)),
        ("", Value::Null),
    ] {
        let (status, answer) = raw.post(body.to_owned()).await;
        assert_eq!(status, 400, "{body:?}: {answer}");
        let answer = message_with_id(&answer, &id);
        assert_eq!(answer["error"]["code"], -32700, "{body:?}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("Parse error: the request body is not valid JSON")
                && message.ends_with("send one complete JSON-RPC message per request")
                && !message.contains("Content-Type"),
            "{body:?}: {message}"
        );
    }

    // A lone surrogate escape: served, with U+FFFD in its place (shown in hex: L, ef bf bd, E).
    let body = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"terminal_send","arguments":{"sessionId":"pty-1","text":"printf %s 'L\udc80E' | od -An -tx1 | tr -d ' '"}}}"#;
    let (status, answer) = raw.post(body.to_owned()).await;
    assert_eq!(status, 200, "{answer}");
    let answer = message_with_id(&answer, &json!(4));
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert!(
        result_text(&answer).lines().any(|l| l == "4cefbfbd45"),
        "{answer}"
    );

    // Non-object arguments: a tool error, as over stdio.
    let answer = raw.call(5, "terminal_send", &json!([])).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        result_text(&answer)
            .starts_with("Error: invalid arguments: expected an object, got an array; "),
        "{answer}"
    );

    // A malformed tools/call: invalid params naming the field.
    let body = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": 5}});
    let (status, answer) = raw.post(body.to_string()).await;
    assert_eq!(status, 400, "{answer}");
    let answer = message_with_id(&answer, &json!(6));
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("`params.name`")),
        "{answer}"
    );

    // Still serving, the terminal included.
    let answer = raw
        .call(
            7,
            "terminal_send",
            &json!({"sessionId": "pty-1", "text": "echo still-serving"}),
        )
        .await;
    assert!(
        result_text(&answer).lines().any(|l| l == "still-serving"),
        "{answer}"
    );

    server.terminate().await;
    shell.assert_exits("the session's shell").await;
}

/// A client that disconnects while its `terminal_send` runs does not cancel the call (MCP's
/// Streamable HTTP transport: a disconnection may be the network's; a client cancels with
/// `notifications/cancelled`): the command runs to its end, uninterrupted, and the session
/// then takes the next send, whose result starts where the lost one's did: the command's
/// output is there (it was in no result the agent got).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_disconnects_mid_send_leaves_its_command_running() {
    let mut server = HttpServerProcess::start(&[]).await;
    let raw = RawSession::open_with_shell(&server.url).await;

    let socket = raw
        .call_on_socket(
            3,
            "terminal_send",
            &json!({"sessionId": "pty-1", "text": "echo orphan-started; sleep 2; echo orphan-$((6*7))"}),
        )
        .await;
    // Until the command runs (pages do not take the send's output).
    let mut id = 10;
    within(
        "the send's command to start",
        raw.page_until(&mut id, "orphan-started"),
    )
    .await;
    drop(socket);
    // The command runs to its end.
    within(
        "the disconnected send's command to finish",
        raw.page_until(&mut id, "orphan-42"),
    )
    .await;

    let answer = raw
        .call(
            100,
            "terminal_send",
            &json!({"sessionId": "pty-1", "text": "echo after-orphan"}),
        )
        .await;
    let text = result_text(&answer);
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert!(text.lines().any(|l| l == "after-orphan"), "{text}");
    assert!(text.lines().any(|l| l == "orphan-42"), "{text}");
    assert!(!text.contains("130"), "{text}");

    server.terminate().await;
}
