//! `terminal_signal`'s answer for a program that ignores or handles the signal: said to be
//! still running at once, with the stronger signal to send; a program the signal ends, or a
//! REPL it sends back to its prompt, is not. A prompt reading keys raw that ignores the
//! Ctrl-C a SIGINT became is said to still wait there. A program the signal ended or stopped
//! is said to have, the shell holding the terminal again.

use serde_json::json;

use crate::support::Host;

/// The phrase of a signal answer for a program still running after it.
const STILL_RUNNING: &str = "is still running a second later";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_that_ignores_the_signal_is_said_to_be_still_running() {
    let (host, agent) = Host::with_open_shell().await;
    let send = |text: &str, timeout_ms: u64| {
        host.call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": text, "timeoutMs": timeout_ms}),
        )
    };
    let signal = |name: &str| {
        host.call(
            &agent,
            "terminal_signal",
            json!({"sessionId": "pty-1", "signal": name}),
        )
    };
    let ignoring = "python3 -c \"import signal,time; signal.signal(signal.SIGINT, signal.SIG_IGN); print('armed', flush=True); time.sleep(60)\"";
    let r = send(ignoring, 1500).await;
    assert!(r.text().contains("\narmed\n"), "{}", r.text());
    let r = signal("SIGINT").await;
    assert!(
        r.text().contains(&format!("python3 {STILL_RUNNING}"))
            && r.text().contains("send terminal_signal SIGTERM"),
        "{}",
        r.text()
    );
    assert_eq!(r.structured.unwrap()["stillRunning"], "python3");
    // SIGTERM ends it: nothing is said to be still running.
    let r = signal("SIGTERM").await;
    assert!(!r.text().contains(STILL_RUNNING), "{}", r.text());
    assert!(r.structured.unwrap().get("stillRunning").is_none());
    let r = send("echo back", 30_000).await;
    assert!(r.text().contains("\nback\n"), "{}", r.text());
    // A REPL the interrupt sends back to its prompt is not still running.
    send("python3 -q", 30_000).await;
    send("import time; time.sleep(60)", 1500).await;
    let r = signal("SIGINT").await;
    assert!(!r.text().contains(STILL_RUNNING), "{}", r.text());
    let r = send("exit()", 30_000).await;
    assert!(r.text().contains("[exit: 0]"), "{}", r.text());
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A pager ended by SIGHUP (or SIGTERM), and a command sent at once: the answer waited for the
/// pager to go, so the command runs in the shell. The dying pager still held the terminal and
/// its modes until the shell reaped it: the command was refused as one meant for the shell
/// sent to the pager, and the refusal's advice (`q`) then went to the shell.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_right_after_a_pager_ends_of_a_signal_runs_in_the_shell() {
    let (host, agent) = Host::with_open_shell().await;
    for (round, signal) in ["SIGHUP", "SIGTERM"].iter().cycle().take(8).enumerate() {
        let r = host.send(&agent, "pty-1", "seq 1 500 | less").await;
        assert!(r.text().contains("[wait: stdin_read]"), "{}", r.text());
        let r = host.signal(&agent, "pty-1", signal).await;
        assert!(!r.is_error, "{signal}: {}", r.text());
        let marker = format!("after-{round}");
        let r = host.send(&agent, "pty-1", &format!("echo {marker}")).await;
        assert!(
            r.text().lines().any(|l| l == marker),
            "{signal}, round {round}: {}",
            r.text()
        );
    }
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A prompt reading keys raw (its signal keys off, so SIGINT goes as the Ctrl-C byte) that
/// ignores Ctrl-C: the answer says it still waits at the same prompt, and the next text is
/// refused once (a command would be taken as the answer).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raw_mode_prompt_ignoring_ctrl_c_is_said_to_still_wait() {
    let (host, agent) = Host::with_open_shell().await;
    let send = |text: &str| {
        host.call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": text, "timeoutMs": 30_000}),
        )
    };
    let prompt = "python3 -c \"import sys, tty, termios; old = termios.tcgetattr(0); tty.setraw(0); sys.stdout.write('Token: '); sys.stdout.flush(); t = ''\nwhile (c := sys.stdin.read(1)) != '\\r': t += '' if c == chr(3) else c\ntermios.tcsetattr(0, termios.TCSADRAIN, old); print(); print('got', len(t))\"";
    let r = send(prompt).await;
    assert!(r.text().contains("Token: "), "{}", r.text());
    let r = host.signal(&agent, "pty-1", "SIGINT").await;
    assert!(
        r.text().contains("the program read it as a key of its input; python3 still waits for input at the same prompt"),
        "{}",
        r.text()
    );
    assert_eq!(r.structured.unwrap()["stillReading"], "python3");
    let r = send("echo D").await;
    assert!(r.is_error, "{}", r.text());
    let r = send("tok").await;
    assert!(r.text().lines().any(|l| l == "got 3"), "{}", r.text());
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// SIGINT while a background job's command line runs in the shell itself (`wait` for a job of
/// its own): the send takes it, and the answer says it goes to the shell running that line
/// (it said the shell was still reading the line, which had run for a while).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigint_to_a_jobs_line_the_shell_runs_says_so() {
    let host = Host::with_jobs(
        dsh_tool_terminal::ToolTerminalConfig::default(),
        crate::support::fast_bash(),
    );
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    // The shell holds the terminal from `wait` on, well after the line started.
    let (job, _) = host
        .start_job(
            &agent,
            &session,
            "sleep 0.3; sleep 100 & echo reach''ed; wait",
        )
        .await;
    host.until_job_prints(&agent, &job, "reached").await;
    let r = host
        .call(
            &agent,
            "terminal_signal",
            json!({"sessionId": session, "signal": "SIGINT"}),
        )
        .await;
    assert!(
        r.text().contains(
            "SIGINT goes to the shell, which has been running the command line just sent"
        ),
        "{}",
        r.text()
    );
    let structured = r.structured.unwrap();
    assert_eq!(structured["shellRanCommand"], true, "{structured}");
    assert_eq!(structured["shellWasForeground"], true, "{structured}");
    let read = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await
        .text();
    assert!(read.contains("exit: 130"), "{read}");
    host.shutdown().await;
}

/// A signal that ends the program, or stops it, is said at once: the shell holds the terminal
/// again, and text meant for the program would run there (a node REPL ends on a second
/// Ctrl-C; SIGTSTP stops a Python REPL, which `fg` continues with its state).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_that_ends_or_stops_the_program_says_the_shell_is_back() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    host.send(&agent, &session, "python3 -q").await;
    host.send(&agent, &session, "kept = 6 * 7").await;
    // A REPL that takes the interrupt stays: nothing is said of an end.
    let r = host.signal(&agent, &session, "SIGINT").await;
    assert!(
        !r.text().contains("holds the terminal again"),
        "{}",
        r.text()
    );
    let r = host.signal(&agent, &session, "SIGTSTP").await;
    assert!(
        r.text()
            .contains("python3 is stopped (suspended, with its state kept) and the shell holds the terminal again"),
        "{}",
        r.text()
    );
    assert_eq!(r.structured.as_ref().unwrap()["programStopped"], "python3");
    host.send(&agent, &session, "fg").await;
    let r = host.send(&agent, &session, "print(kept)").await;
    assert!(r.text().lines().any(|l| l == "42"), "{}", r.text());
    host.send(&agent, &session, "exit()").await;
    // A pipeline whose first command is gone (its output all in the pipe) and whose pager is
    // stopped: stopped, not ended.
    let r = host.send(&agent, &session, "seq 1 300 | less").await;
    assert!(r.text().lines().any(|l| l == "1"), "{}", r.text());
    let r = host.signal(&agent, &session, "SIGTSTP").await;
    let stopped = &r.structured.as_ref().unwrap()["programStopped"];
    assert!(stopped == "less" || stopped == "seq", "{}", r.text());
    host.send(&agent, &session, "fg").await;
    host.call(
        &agent,
        "terminal_send",
        json!({"sessionId": session, "text": "q", "submit": false}),
    )
    .await;
    if crate::support::installed("node") {
        host.send(&agent, &session, "node").await;
        let first = host.signal(&agent, &session, "SIGINT").await;
        assert!(!first.text().contains("ended"), "{}", first.text());
        let r = host.signal(&agent, &session, "SIGINT").await;
        assert!(
            r.text()
                .contains("node ended and the shell holds the terminal again"),
            "{}",
            r.text()
        );
        assert_eq!(r.structured.as_ref().unwrap()["programEnded"], "node");
    }
    host.shutdown().await;
}

/// SIGTERM to a program that is one command of a longer command line ends the rest of the
/// line too (as Ctrl-C would; bash alone would run `echo FAILED` and `echo second`), and the
/// result says so; a program typed alone gets no such line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_that_ends_the_rest_of_a_command_line_says_so() {
    let (host, agent) = Host::with_open_shell().await;
    for (line, ends) in [
        ("sleep 100 || echo FAILED; echo second", true),
        ("sleep 100", false),
    ] {
        let r = host
            .call(
                &agent,
                "terminal_send",
                json!({"sessionId": "pty-1", "text": line, "timeoutMs": 800}),
            )
            .await;
        assert!(r.text().contains("[wait: timeout]"), "{}", r.text());
        let r = host.signal(&agent, "pty-1", "SIGTERM").await;
        assert_eq!(
            r.text()
                .contains(dsh_tool_terminal::render::COMMAND_LINE_ENDED),
            ends,
            "{line}: {}",
            r.text()
        );
        let structured = r.structured.unwrap_or_default();
        assert_eq!(
            structured.get("commandLineEnded").is_some(),
            ends,
            "{structured}"
        );
        let r = host.send(&agent, "pty-1", "echo after").await;
        assert!(
            !r.text().contains("FAILED") && !r.text().contains("second"),
            "{line}: {}",
            r.text()
        );
    }
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A SIGINT that ends a non-interactive shell whose `&` children ignore it (as such a shell
/// starts them) leaves those children running in the group: the answer names them instead of
/// saying whatever the program held is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_that_ends_a_program_but_not_its_group_names_what_runs_on() {
    let (host, agent) = Host::with_open_shell().await;
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({
                "sessionId": "pty-1",
                "text": "bash -c 'sleep 300 & sleep 301 & echo st''arted; wait'",
                "timeoutMs": 1500,
            }),
        )
        .await;
    assert!(r.text().contains("started"), "{}", r.text());
    let r = host.signal(&agent, "pty-1", "SIGINT").await;
    let structured = r.structured.clone().unwrap_or_default();
    assert_eq!(structured["programEnded"], "bash", "{}", r.text());
    assert_eq!(
        structured["leftRunning"],
        json!(["sleep", "sleep"]),
        "{structured}"
    );
    assert!(
        r.text().contains("processes of its group still run"),
        "{}",
        r.text()
    );
    assert!(
        !r.text().contains("whatever it held is gone"),
        "{}",
        r.text()
    );
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}
