//! Two MCP connections on one server context are two agents: neither sees nor touches the
//! other's sessions.

use serde_json::json;

use crate::support::{
    InProcess, ProcessWatch, assert_foreign, err, ok, open_shell, send, shell_pid, test_options,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_isolated_agents() {
    let mut host = InProcess::new(&test_options());
    let a = host.connect().await;
    let b = host.connect().await;

    // Ids are minted host-wide, and each connection's warm shell takes one: A's is known
    // only from its open.
    let open = ok(&a, "terminal_open", json!({"type": "shell"})).await;
    let a_id = open.structured.as_ref().expect("structured")["sessionId"]
        .as_str()
        .expect("sessionId")
        .to_owned();
    assert!(
        open.text
            .starts_with(&format!("started terminal session {a_id}")),
        "{:?}",
        open.text
    );
    let r = send(&a, &a_id, "echo from-a").await;
    assert!(r.has_line("from-a"), "{:?}", r.text);

    let list = ok(&b, "terminal_list", json!({})).await;
    assert_eq!(list.text, "(no terminal sessions)");
    assert_foreign(&b, &a_id).await;

    // B's session ids are its own; opening one does not reveal or disturb A's.
    let open_b = ok(&b, "terminal_open", json!({"type": "shell"})).await;
    assert!(!open_b.is_error);
    let list_b = ok(&b, "terminal_list", json!({})).await;
    assert_eq!(list_b.text.lines().count(), 1, "{:?}", list_b.text);
    let b_id = list_b
        .text
        .split_whitespace()
        .next()
        .expect("b's session id")
        .to_owned();
    assert_ne!(b_id, a_id);

    // A's session is untouched: the rejected send wrote nothing, and it still works.
    let r = send(&a, &a_id, "echo a-still-works").await;
    assert!(r.has_line("a-still-works"), "{:?}", r.text);
    let read = ok(&a, "terminal_read", json!({"sessionId": a_id})).await;
    assert!(!read.text.contains("from-b"), "{:?}", read.text);
    let list_a = ok(&a, "terminal_list", json!({})).await;
    assert_eq!(list_a.text.lines().count(), 1, "{:?}", list_a.text);

    // Disconnecting B closes B's session only.
    let a_shell = ProcessWatch::new(shell_pid(&a, &a_id).await);
    let b_shell = ProcessWatch::new(shell_pid(&b, &b_id).await);
    within_cancel(b).await;
    b_shell.assert_exits("b's shell after b disconnected").await;
    assert!(a_shell.is_running(), "a's shell died when b disconnected");
    let r = send(&a, &a_id, "echo a-after-b-left").await;
    assert!(r.has_line("a-after-b-left"), "{:?}", r.text);

    ok(&a, "terminal_close", json!({"sessionId": a_id})).await;
    a_shell.assert_exits("a's shell").await;
    host.finish(vec![a]).await;
}

async fn within_cancel(client: crate::support::Client) {
    crate::support::within("client close", client.cancel())
        .await
        .expect("client task");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_agent_has_its_own_terminal_limit() {
    let mut host = InProcess::new(&dsh_mcp::Options {
        max_terminals_per_agent: 1,
        ..test_options()
    });
    let a = host.connect().await;
    let b = host.connect().await;

    let first = open_shell(&a).await;
    let r = err(&a, "terminal_open", json!({"type": "shell"})).await;
    assert_eq!(
        r.text,
        "Error: this agent already has 1 terminal session, the most allowed; close one with terminal_close (terminal_list shows them) before opening another"
    );
    // The cap is per agent: B still opens its own.
    let open_b = ok(&b, "terminal_open", json!({"type": "shell"})).await;
    let b_id = open_b
        .text
        .split_whitespace()
        .nth(3)
        .expect("b's session id")
        .to_owned();
    // Closing one makes room again.
    ok(&a, "terminal_close", json!({"sessionId": first})).await;
    let reopened = ok(&a, "terminal_open", json!({"type": "shell"})).await;
    let a_id = reopened
        .text
        .split_whitespace()
        .nth(3)
        .expect("a's new session id")
        .to_owned();
    ok(&a, "terminal_close", json!({"sessionId": a_id})).await;
    ok(&b, "terminal_close", json!({"sessionId": b_id})).await;
    host.finish(vec![a, b]).await;
}
