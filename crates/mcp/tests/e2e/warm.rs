//! `--warm-sessions`: an agent's first `terminal_open` takes the shell started as it
//! connected, each next one the shell started in the background after its previous open, and
//! every one answers exactly like a cold open.

use dsh_terminal_core::Terminals;
use serde_json::json;

use crate::support::{InProcess, ProcessWatch, ok, send, shell_pid, test_options};

fn taken(host: &InProcess) -> u64 {
    host.ctx
        .get::<Terminals>()
        .expect("terminals service")
        .warm_sessions_taken()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_open_takes_the_warm_shell_and_answers_like_a_cold_open() {
    let mut host = InProcess::new(&test_options());
    let a = host.connect().await;

    let first = ok(&a, "terminal_open", json!({"type": "shell"})).await;
    assert_eq!(
        taken(&host),
        1,
        "the first open did not take the shell started as the agent connected"
    );
    let second = ok(&a, "terminal_open", json!({"type": "shell"})).await;
    assert_eq!(
        taken(&host),
        2,
        "the second open did not take the warm shell"
    );
    assert_eq!(
        second.text.replace("pty-2", "pty-N"),
        first.text.replace("pty-1", "pty-N"),
        "a warm open must render like a cold one"
    );
    assert_eq!(second.structured.is_some(), first.structured.is_some());
    let named = ok(
        &a,
        "terminal_open",
        json!({"type": "shell", "name": "third"}),
    )
    .await;
    assert!(named.text.contains("pty-3"), "{:?}", named.text);
    assert_eq!(taken(&host), 3);

    let r = send(&a, "pty-3", "echo \"id=$DSH_PTY_SESSION_ID\"").await;
    assert!(r.has_line("id=pty-3"), "{:?}", r.text);
    let r = send(&a, "pty-2", "echo hi").await;
    assert!(r.has_line("hi"), "{:?}", r.text);
    // Only the three opened sessions are listed, not the warm fourth.
    let list = ok(&a, "terminal_list", json!({})).await;
    assert!(list.text.contains("third"), "{:?}", list.text);
    assert!(!list.text.contains("pty-4"), "{:?}", list.text);

    let shells = [
        ProcessWatch::new(shell_pid(&a, "pty-1").await),
        ProcessWatch::new(shell_pid(&a, "pty-2").await),
        ProcessWatch::new(shell_pid(&a, "pty-3").await),
    ];
    for id in ["pty-1", "pty-2", "pty-3"] {
        ok(&a, "terminal_close", json!({"sessionId": id})).await;
    }
    for shell in &shells {
        shell.assert_exits("a closed session's shell").await;
    }
    host.finish(vec![a]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warm_sessions_0_turns_the_pool_off() {
    let mut host = InProcess::new(&dsh_mcp::Options {
        warm_sessions: 0,
        ..test_options()
    });
    let a = host.connect().await;
    ok(&a, "terminal_open", json!({"type": "shell"})).await;
    ok(&a, "terminal_open", json!({"type": "shell"})).await;
    assert_eq!(taken(&host), 0);
    for id in ["pty-1", "pty-2"] {
        ok(&a, "terminal_close", json!({"sessionId": id})).await;
    }
    host.finish(vec![a]).await;
}
