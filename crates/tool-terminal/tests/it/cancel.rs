//! Cancelled and overlapping sends through the registry against real bash: a cancelled send
//! loses no output and runs nothing typed ahead, a retry right after it is served, and a send
//! while another runs is refused with what to do.

use serde_json::json;

use crate::support::Host;

/// A program blocked for good on something else than the terminal: a server in `accept`.
const BLOCKED_SERVER: &str = "python3 -c 'import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); s.accept()'";

/// A `terminal_send` call started with the returned token to cancel it.
type CancellableSend = (
    tokio_util::sync::CancellationToken,
    tokio::task::JoinHandle<dsh_tools::ToolResult>,
);

/// Starts `terminal_send` of `text` on `pty-1` as a call the returned token cancels.
fn cancellable_send(host: &Host, agent: &dsh_context::Agent, text: &str) -> CancellableSend {
    cancellable_call(host, agent, json!({"sessionId": "pty-1", "text": text}))
}

/// Starts `terminal_send` with `args` as a call the returned token cancels.
fn cancellable_call(
    host: &Host,
    agent: &dsh_context::Agent,
    args: serde_json::Value,
) -> CancellableSend {
    let cancel = tokio_util::sync::CancellationToken::new();
    let call = dsh_tools::ToolCall::new("test")
        .with_agent(agent.clone())
        .with_cancel(cancel.clone());
    let tools = std::sync::Arc::clone(&host.tools);
    let pending = tokio::spawn(async move { tools.execute("terminal_send", args, call).await });
    (cancel, pending)
}

/// Waits until `pty-1`'s scrollback has the line `line` (pages do not consume output).
async fn wait_for_line(host: &Host, agent: &dsh_context::Agent, line: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let page = host
            .call(agent, "terminal_read", json!({"sessionId": "pty-1"}))
            .await;
        if page.text().lines().any(|l| l == line) {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{}", page.text());
        tokio::task::yield_now().await;
    }
}

/// A cancelled `terminal_send` (the client cancelled the call, e.g. on its own request
/// timeout) interrupts its command; since no caller saw its result, the next send's result
/// starts where the cancelled one's did: the command, what it printed before the interrupt
/// and its exit status all reach the model, with a notice that says why it ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_send_loses_no_output() {
    let (host, agent) = Host::with_open_shell().await;
    let (cancel, pending) = cancellable_send(&host, &agent, "printf 'step-%s\\n' one; sleep 60");
    // Cancel once the command has printed.
    wait_for_line(&host, &agent, "step-one").await;
    cancel.cancel();
    let aborted = pending.await.expect("the send task");
    assert!(aborted.is_error, "{}", aborted.text());
    insta::assert_snapshot!("error_send_aborted", aborted.text());
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "", "submit": false}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    assert!(
        r.text()
            .contains("printf 'step-%s\\n' one; sleep 60\nstep-one\n"),
        "{}",
        r.text()
    );
    assert!(
        r.text().contains("130"),
        "the interrupt's status: {}",
        r.text()
    );
    // The result says where that status came from, once.
    assert!(
        r.text()
            .contains("\n[cancelled: the client cancelled an earlier terminal_send"),
        "{}",
        r.text()
    );
    let r = host.send(&agent, "pty-1", "echo after").await;
    assert!(!r.text().contains("[cancelled:"), "{}", r.text());
    host.shutdown().await;
}

/// A `terminal_open` whose call is cancelled while its shell starts (the client gave up, or
/// the server's input ended) says so and what became of it, leaves no session, and ends the
/// process it started. (The "shell" never answers, `-c` neither: the backend ran it again to
/// tell whether it was bash after a cancelled start, and the server's shutdown waited on that
/// for ten minutes; the test's own deadline catches such a wait.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_open_says_no_session_was_opened() {
    tokio::time::timeout(
        std::time::Duration::from_secs(120),
        cancelled_open_says_no_session_was_opened(),
    )
    .await
    .unwrap_or_else(|_| panic!("the cancelled open or the shutdown after it never ended"));
}

async fn cancelled_open_says_no_session_was_opened() {
    use std::os::unix::fs::PermissionsExt as _;
    let gates = crate::support::Gates::new("cancelled-open", "pty-1");
    // A "shell" that never reaches its prompt: it tells the test its pid, then waits.
    let shell = gates.path("shell");
    std::fs::write(
        &shell,
        format!(
            "#!/bin/sh\necho $$ > '{}.tmp' && mv '{0}.tmp' '{0}'\nexec sleep 600\n",
            gates.path("started").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&shell, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bash = dsh_terminal_bash::BashConfig {
        shell_path: shell,
        ..crate::support::fast_bash()
    };
    let host = Host::new(dsh_tool_terminal::ToolTerminalConfig::default(), Some(bash));
    let agent = host.agent("a");
    let (cancel, pending) = {
        let cancel = tokio_util::sync::CancellationToken::new();
        let call = dsh_tools::ToolCall::new("test")
            .with_agent(agent.clone())
            .with_cancel(cancel.clone());
        let tools = std::sync::Arc::clone(&host.tools);
        let pending = tokio::spawn(async move {
            tools
                .execute("terminal_open", json!({"type": "shell"}), call)
                .await
        });
        (cancel, pending)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let pid = loop {
        if let Ok(pid) = std::fs::read_to_string(gates.path("started")) {
            break pid.trim().to_owned();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the shell never started"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    cancel.cancel();
    let r = pending.await.expect("the open task");
    assert!(r.is_error, "{}", r.text());
    insta::assert_snapshot!("error_open_aborted", r.text());
    let list = host.call(&agent, "terminal_list", json!({})).await;
    assert_eq!(list.text(), "(no terminal sessions)");
    host.shutdown().await;
    let proc = std::path::Path::new("/proc").join(&pid);
    while proc.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the started process {pid} outlived the cancelled open"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// A cancelled poll (no text) interrupts nothing: the command it waited on is an earlier
/// send's, and keeps running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_poll_leaves_the_command_running() {
    let (host, agent) = Host::with_open_shell().await;
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "echo started; sleep 60", "timeoutMs": 200}),
        )
        .await;
    assert!(r.text().contains("[wait: timeout]"), "{}", r.text());
    let args = json!({"sessionId": "pty-1", "text": "", "submit": false, "timeoutMs": 60_000});
    let (cancel, poll) = cancellable_call(&host, &agent, args);
    cancel.cancel();
    assert!(poll.await.expect("the poll task").is_error);
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "", "submit": false, "timeoutMs": 300}),
        )
        .await;
    assert!(r.text().contains("[foreground: sleep]"), "{}", r.text());
    assert!(!r.text().contains("130"), "{}", r.text());
    assert!(!r.text().contains("[cancelled:"), "{}", r.text());
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A second send while the session's first is still running is refused after a short wait,
/// and the error says how long it waited and where the other send's result comes from.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_while_another_runs_is_refused_with_what_to_do() {
    // The second send waits 1.5 s before it is refused, as long as fast_bash's idle window:
    // silence must not be able to settle the first send before its SIGINT.
    let bash = dsh_terminal_bash::BashConfig {
        idle_silence_ms: 60_000,
        ..crate::support::fast_bash()
    };
    let host = Host::new(dsh_tool_terminal::ToolTerminalConfig::default(), Some(bash));
    let agent = host.agent("a");
    host.call(&agent, "terminal_open", json!({"type": "shell"}))
        .await;
    let (_cancel, pending) = cancellable_send(&host, &agent, "echo first-running; sleep 60");
    wait_for_line(&host, &agent, "first-running").await;
    let second = host.send(&agent, "pty-1", "echo second").await;
    assert!(second.is_error, "{}", second.text());
    insta::assert_snapshot!("error_send_active", second.text());
    let s = host.signal(&agent, "pty-1", "SIGINT").await;
    assert!(!s.is_error, "{}", s.text());
    let first = pending.await.expect("the send task");
    assert!(first.text().contains("[exit: 130]"), "{}", first.text());
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A client that cancels a send on its own timeout and retries at once: the retry is served
/// (it waits briefly for the cancelled send to let go of the session) even when the cancelled
/// command ignores its interrupt, and its result starts with the cancelled send's output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_right_after_a_cancel_is_served() {
    let (host, agent) = Host::with_open_shell().await;
    let (cancel, pending) = cancellable_send(&host, &agent, "trap '' INT; echo ignoring; sleep 60");
    wait_for_line(&host, &agent, "ignoring").await;
    cancel.cancel();
    // The retry goes out at once, before the cancelled call has answered.
    let retry = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "echo next", "timeoutMs": 1000}),
        )
        .await;
    assert!(!retry.is_error, "{}", retry.text());
    assert!(retry.text().contains("\nignoring\n"), "{}", retry.text());
    assert!(
        retry.text().contains("[foreground: sleep]"),
        "{}",
        retry.text()
    );
    assert!(retry.text().contains("[cancelled: "), "{}", retry.text());
    let aborted = pending.await.expect("the send task");
    assert!(aborted.is_error, "{}", aborted.text());
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// Cancelling a send of many lines to a program that does not read (a server blocked in
/// `accept`, which takes text typed ahead once its output has been quiet for the idle window)
/// discards the line the terminal holds and the lines not typed yet, as the terminal's Ctrl-C
/// would: the program is interrupted at once, the session is free for the next send, and none
/// of the cancelled lines runs. A `terminal_signal` SIGINT does the same to a send still
/// typing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_send_typed_ahead_to_a_program_that_does_not_read_runs_nothing() {
    let (host, agent) = Host::with_open_shell().await;
    let lines = |tag: &str| {
        (0..2000)
            .map(|i| format!("echo {tag}{i:05}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    for round in ["cancel", "signal"] {
        let r = host
            .call(
                &agent,
                "terminal_send",
                json!({"sessionId": "pty-1", "text": BLOCKED_SERVER, "timeoutMs": 200}),
            )
            .await;
        assert!(!r.is_error, "{}", r.text());
        let tag = format!("{round}-junk");
        let (cancel, pending) = cancellable_send(&host, &agent, &lines(&tag));
        // Once the terminal holds the first line (the others wait for a reader).
        wait_for_line(&host, &agent, &format!("echo {tag}00000")).await;
        if round == "cancel" {
            cancel.cancel();
        } else {
            let r = host.signal(&agent, "pty-1", "SIGINT").await;
            assert!(!r.is_error, "{}", r.text());
        }
        let answered = pending.await.expect("the send task");
        if round == "signal" {
            assert!(!answered.is_error, "{}", answered.text());
        }
        let r = host
            .call(
                &agent,
                "terminal_send",
                json!({"sessionId": "pty-1", "text": format!("echo {round}-after")}),
            )
            .await;
        assert!(!r.is_error, "{round}: {}", r.text());
        assert!(
            r.text().contains(&format!("\n{round}-after\n")),
            "{}",
            r.text()
        );
        let page = host
            .call(
                &agent,
                "terminal_read",
                json!({"sessionId": "pty-1", "count": 10000}),
            )
            .await;
        assert!(
            !page.text().lines().any(|l| l.starts_with(&tag)),
            "a cancelled line ran: {}",
            page.text()
        );
    }
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}
