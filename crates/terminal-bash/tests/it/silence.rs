//! Silence that means something: output silence settles a send as `inferred_idle` only when
//! the kernel says the foreground job is idle; a job that sleeps or computes keeps the send
//! waiting up to its deadline.

use dsh_terminal_core::{BackendSession, TerminalSignal, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, config, within};

/// A pause longer than the idle window (a test suite sleeping between steps) comes back
/// finished in one call with the default config.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sleeping_job_is_waited_for_past_the_idle_window() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("sleep 5; echo done").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "done"), "{r:?}");
        // A computing job too (a busy loop in the shell's own subshell group).
        let r = sh
            .send("end=$((SECONDS+4)); while [ $SECONDS -lt $end ]; do :; done; echo computed")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "computed"), "{r:?}");
        // A pipeline whose reader waits on a sleeping writer is not idle either.
        let r = sh.send("sleep 5 | cat; echo piped").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "piped"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A server blocked in `poll`/`accept` is idle: it comes back at the idle window, still
/// running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_waiting_for_connections_comes_back_at_the_idle_window() {
    within(async {
        let sh = Shell::open(config()).await;
        // Port 0: the kernel picks a free port.
        let r = sh
            .send("python3 -u -m http.server 0 --bind 127.0.0.1")
            .await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
        assert_eq!(r.foreground.as_deref(), Some("python3"), "{r:?}");
        assert!(r.viewport.contains("Serving HTTP on"), "{r:?}");
        let unread = |r: &dsh_terminal_core::SendResult| {
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: python3 has not read the text sent"))
        };
        assert!(!unread(&r), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[idle: python3 is still running")),
            "{r:?}"
        );
        // A command sent while the quiet server holds the terminal (it waits on events with a
        // timer) is not sent, at once: nothing reads it, and a secret must not go ahead of a
        // prompt still to come; with its own deadline, it is held for a reader up to it.
        let r = sh.send("echo typed-ahead").await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n
                    .starts_with("[input: not sent: python3 went quiet waiting on other events")),
            "{r:?}"
        );
        assert!(!unread(&r), "{r:?}");
        let r = sh.send_within("echo typed-ahead", true, 1500).await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: not sent: python3 ran until the deadline")),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// The shell's own `read` still waiting at a send's short deadline is said to take the next
/// send as its line, not to run a line of builtins the next command waits behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_builtin_past_the_deadline_takes_the_next_send() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send_within("read -t 30 x; echo \"x=[$x]\"", true, 1500)
            .await;
        assert!(
            r.notices
                .iter()
                .all(|n| !n.contains("the shell itself is still running the command line")),
            "{r:?}"
        );
        let r = sh.send("hello").await;
        assert!(r.viewport.lines().any(|l| l == "x=[hello]"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A send that gives its own deadline waits out a foreground blocked on events with a timeout
/// (an event loop's timer, a client polling its socket) up to that deadline, a poll too;
/// without one, such a program comes back at the idle window, still running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_own_deadline_waits_out_an_event_loop_timer() {
    within(async {
        let sh = Shell::open(config()).await;
        let cmd = "python3 -c \"import asyncio; asyncio.run(asyncio.sleep(5)); print('async-' + 'done')\"";
        let r = sh.send_within(cmd, true, 120_000).await;
        assert_eq!(
            (r.wait_reason, r.exit_code),
            (WaitReason::StdinRead, Some(0)),
            "{r:?}"
        );
        assert!(r.viewport.lines().any(|l| l == "async-done"), "{r:?}");
        let r = sh.send(cmd).await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
        assert_eq!(r.foreground.as_deref(), Some("python3"), "{r:?}");
        let r = sh.send_within("", false, 120_000).await;
        assert_eq!(
            (r.wait_reason, r.exit_code),
            (WaitReason::StdinRead, Some(0)),
            "{r:?}"
        );
        assert!(r.viewport.lines().any(|l| l == "async-done"), "{r:?}");
        // node's main loop waits for its timer while libuv's helper threads wait with no
        // timeout: the main loop decides.
        if crate::support::installed("node") {
            let r = sh
                .send_within(
                    "node -e \"setTimeout(() => console.log('node-' + 'done'), 5000)\"",
                    true,
                    120_000,
                )
                .await;
            assert_eq!(
                (r.wait_reason, r.exit_code),
                (WaitReason::StdinRead, Some(0)),
                "{r:?}"
            );
            assert!(r.viewport.lines().any(|l| l == "node-done"), "{r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// Text sent while the shell itself runs the command line (the `wait` builtin, a loop of
/// builtins) is held for its prompt, and not sent when the send's deadline comes first: the
/// result says so, naming the shell. The line's own result, and a poll, say that the shell
/// runs it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_sent_while_the_shell_runs_a_builtin_is_held_and_said_to_be_unsent() {
    within(async {
        let sh = Shell::open(config()).await;
        let unread = |r: &dsh_terminal_core::SendResult| {
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: not sent: the shell ran until the deadline"))
        };
        for line in [
            "sleep 60 & wait",
            "while :; do read -t 0.2 x < /dev/null; done",
        ] {
            let running = |r: &dsh_terminal_core::SendResult| {
                r.notices
                    .iter()
                    .any(|n| n.starts_with("[shell: the shell itself is still running"))
            };
            let r = sh.send_within(line, true, 1500).await;
            assert!(r.foreground.is_none(), "{line}: {r:?}");
            assert!(!unread(&r), "{line}: {r:?}");
            assert!(running(&r), "{line}: {r:?}");
            let r = sh.send_within("", false, 1500).await;
            assert!(running(&r), "{line}: {r:?}");
            let r = sh.send_within("echo typed-ahead", true, 1500).await;
            assert!(
                matches!(
                    r.wait_reason,
                    WaitReason::InferredIdle | WaitReason::Timeout
                ),
                "{line}: {r:?}"
            );
            assert!(unread(&r), "{line}: {r:?}");
            assert!(!r.viewport.contains("\ntyped-ahead"), "{line}: {r:?}");
            // SIGINT ends the line; the text was never written.
            sh.session
                .signal(TerminalSignal::Sigint)
                .unwrap_or_else(|e| panic!("{e}"));
            let r = sh.send("echo after").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{line}: {r:?}");
            assert!(!r.viewport.contains("\ntyped-ahead"), "{line}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A full-screen program that redraws on a timer (`watch`) is never silent for the idle
/// window: the send settles between two redraws once that window has passed, not at its
/// deadline, and a poll does the same. `watch` reads no keys (the result says so, and that
/// SIGINT stops it, also when a poll's own deadline came first); `top`, which reads them,
/// gets no such line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redrawing_full_screen_program_settles_between_redraws() {
    if !crate::support::installed("watch") {
        eprintln!("watch is not installed (procps, which .ci/run installs): not exercised");
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("watch -n 0.5 date").await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
        assert_eq!(r.foreground.as_deref(), Some("watch"), "{r:?}");
        assert!(r.viewport.contains("Every 0.5s"), "{r:?}");
        let reads_no_keys = |r: &dsh_terminal_core::SendResult| {
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: watch does not read the terminal"))
        };
        assert!(reads_no_keys(&r), "{r:?}");
        let r = sh.send_raw("", false).await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
        assert!(reads_no_keys(&r), "{r:?}");
        // A poll whose own deadline comes first says so too (not the advice for programs
        // that read keys).
        let r = sh.send_within("", false, 700).await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        assert!(reads_no_keys(&r), "{r:?}");
        let r = sh.send_raw("\u{3}", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("top -d 0.5").await;
        assert_eq!(r.foreground.as_deref(), Some("top"), "{r:?}");
        assert!(
            !r.notices
                .iter()
                .any(|n| n.contains("does not read the terminal")),
            "{r:?}"
        );
        let r = sh.send_raw("q", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A relay (`ssh host make`, `docker exec -it`): it waits on the terminal and on the remote
/// side's output (a socket) at once. While the remote command runs and has printed no prompt,
/// neither the send nor a poll calls that "waiting for input": silence settles them
/// (`inferred_idle`), and the remote output and exit come with a later poll. A remote prompt
/// settles at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_whose_remote_side_runs_is_not_waiting_for_input() {
    let dir = std::env::temp_dir().join(format!("dsh-relay-{}", crate::support::unique_id()));
    std::fs::create_dir_all(&dir).unwrap();
    let relay = dir.join("relay.py");
    std::fs::write(
        &relay,
        "import os, select, socket, subprocess, sys\n\
         here, there = socket.socketpair()\n\
         p = subprocess.Popen(['bash', '-c', sys.argv[1]], stdout=there)\n\
         there.close()\n\
         while True:\n\
         \x20   r, _, _ = select.select([0, here.fileno()], [], [])\n\
         \x20   if here.fileno() in r:\n\
         \x20       d = here.recv(4096)\n\
         \x20       if not d: break\n\
         \x20       os.write(1, d)\n\
         \x20   if 0 in r: os.read(0, 4096)\n\
         sys.exit(p.wait())\n",
    )
    .unwrap();
    let go = dir.join("go");
    within(async {
        let sh = Shell::open(config()).await;
        // The remote command runs until the test lets it go on.
        let r = sh
            .send(&format!(
                "python3 '{}' 'echo remote: compiling; while [ ! -e \"{}\" ]; do sleep 0.05; done; echo remote: done; exit 3'",
                relay.display(),
                go.display()
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
        assert!(r.viewport.contains("remote: compiling"), "{r:?}");
        let r = sh.send_raw("", false).await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "a poll too: {r:?}");
        std::fs::write(&go, "").unwrap();
        let r = sh.send_raw("", false).await;
        assert!(r.viewport.contains("remote: done"), "{r:?}");
        assert_eq!(r.exit_code, Some(3), "{r:?}");
        // A remote side that printed a prompt waits for input.
        let r = sh
            .send(&format!(
                "python3 '{}' 'printf \"remote$ \"; sleep 60'",
                relay.display()
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with("remote$ "), "{r:?}");
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh.send("echo back").await;
        assert!(r.viewport.lines().any(|l| l == "back"), "{r:?}");
        sh.close().await;
    })
    .await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A terminal relay (`script`, Python's `pty.spawn`, `sudo` with `use_pty`): it waits on the
/// terminal and on the master side of a terminal of its own, whose program still runs. As for
/// a network relay, silence settles it (`inferred_idle`), confined or not (a sandbox's private
/// devpts names its master side by another path); a prompt of the inner program settles at
/// once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_relay_whose_program_runs_is_not_waiting_for_input() {
    const RELAY: &str = "python3 -c 'import pty, sys; pty.spawn([\"bash\", \"-c\", sys.argv[1]])'";
    let dir = crate::support::TempDir::new("pty-relay");
    within(async {
        for (confined, sh) in [
            (false, Shell::open(config()).await),
            (true, crate::confined::support::Shell::open(config()).await),
        ] {
            let go = dir.0.join(format!("go-{confined}"));
            let r = sh
                .send(&format!(
                    "{RELAY} 'echo inner: compiling; while [ ! -e \"{}\" ]; do sleep 0.05; done; echo inner: done-$((6*7))'",
                    go.display()
                ))
                .await;
            assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{confined}: {r:?}");
            assert!(r.viewport.contains("inner: compiling"), "{confined}: {r:?}");
            let r = sh.send_raw("", false).await;
            assert_eq!(
                r.wait_reason,
                WaitReason::InferredIdle,
                "{confined}: a poll too: {r:?}"
            );
            std::fs::write(&go, "").unwrap();
            let r = sh.send_raw("", false).await;
            assert!(r.viewport.contains("inner: done-42"), "{confined}: {r:?}");
            assert_eq!(r.exit_code, Some(0), "{confined}: {r:?}");
            // The inner program's prompt waits for input.
            let r = sh
                .send(&format!("{RELAY} 'read -p \"name? \" x; echo hi-$x'"))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{confined}: {r:?}");
            assert!(r.viewport.ends_with("name? "), "{confined}: {r:?}");
            let r = sh.send("bob").await;
            assert!(r.viewport.lines().any(|l| l == "hi-bob"), "{confined}: {r:?}");
            sh.close().await;
        }
    })
    .await;
}

/// An event loop with nothing to relay (node's REPL) that printed from a timer after its
/// prompt, leaving the cursor on a blank row, still waits for input: a poll says so once
/// quiet, not at the idle window, and the next line runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_event_loop_after_timer_output_waits_for_input() {
    if !crate::support::installed("node") {
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        let r = sh
            .send("setTimeout(() => console.log('timer-' + 'fired'), 100)")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let mut seen = r.viewport.contains("timer-fired");
        while !seen {
            let r = sh.send_raw("", false).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            seen = r.viewport.contains("timer-fired");
        }
        let r = sh.send_raw("", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("6 * 7").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        let r = sh.send(".exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// The notice of a REPL that read a line but has not printed its prompt again.
pub(crate) const STILL_RUNNING: &str = "has not printed its prompt again";

/// node's REPL reads the terminal while an `await` of the line it read is pending, yet has
/// not printed its prompt again: the result says what it read may still be running and to
/// poll; once the prompt is back, lines settle without that notice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_event_loop_still_awaiting_a_line_says_so() {
    if !crate::support::installed("node") {
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        let r = sh
            .send(
                "await new Promise(r => setTimeout(() => { console.log('resolved-' + 'now'); \
                 r(7) }, 4000))",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let mut seen = r.viewport.contains("resolved-now");
        if !seen {
            assert!(r.notices.iter().any(|n| n.contains(STILL_RUNNING)), "{r:?}");
            // A poll that finds it still so says it again.
            let r = sh.send_raw("", false).await;
            seen = r.viewport.contains("resolved-now");
            assert!(
                seen || r.notices.iter().any(|n| n.contains(STILL_RUNNING)),
                "{r:?}"
            );
        }
        while !seen {
            let r = sh.send_raw("", false).await;
            seen = r.viewport.contains("resolved-now");
        }
        let still =
            |r: &dsh_terminal_core::SendResult| r.notices.iter().any(|n| n.contains(STILL_RUNNING));
        let r = sh.send("6 * 7").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        assert!(!still(&r), "{r:?}");
        // The pending line last among several: the prompt it was typed at, shown before it,
        // is not the REPL back from it.
        let r = sh
            .send("1 + 1\nawait new Promise(r => setTimeout(() => r('multi-' + 'done'), 4000))")
            .await;
        assert!(r.viewport.lines().any(|l| l == "2"), "{r:?}");
        let mut seen = r.viewport.contains("multi-done");
        if !seen {
            assert!(still(&r), "{r:?}");
        }
        while !seen {
            let r = sh.send_raw("", false).await;
            seen = r.viewport.contains("multi-done");
        }
        // The pending line recalled with Up and entered: a line of keys has no echo of its
        // text, and its row, redrawn with the line after the prompt, is not the REPL back.
        let r = sh.send("\u{1b}[A").await;
        let mut seen = r.viewport.contains("multi-done");
        if !seen {
            assert!(still(&r), "{r:?}");
        }
        while !seen {
            let r = sh.send_raw("", false).await;
            seen = r.viewport.contains("multi-done");
        }
        // A mode that prints no prompt is not a pending line, nor are the lines sent in it:
        // they wait for Ctrl-D, as the result says, which runs them.
        let r = sh.send(".editor").await;
        assert!(!still(&r), "{r:?}");
        let r = sh.send("let q = 1;\nq + 41").await;
        assert!(!still(&r), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: node is in its editor mode (.editor)")),
            "{r:?}"
        );
        let r = sh.send_raw("\u{4}", false).await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        assert!(
            r.notices.iter().all(|n| !n.contains("editor mode")),
            "{r:?}"
        );
        let r = sh.send(".editor").await;
        assert!(!still(&r), "{r:?}");
        sh.send("let w = 1;").await;
        // A SIGINT ends the mode as the typed Ctrl-C does.
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh.send("1 + 1").await;
        assert!(r.viewport.lines().any(|l| l == "2"), "{r:?}");
        assert!(
            r.notices.iter().all(|n| !n.contains("editor mode")),
            "{r:?}"
        );
        // A REPL command typed while a line's await is pending waits behind it: the REPL
        // has not come back, and `.exit` runs once the timer fires.
        sh.send("await new Promise(r => setTimeout(r, 4000))").await;
        let r = sh.send(".exit").await;
        let mut exited = r.exit_code == Some(0);
        if !exited {
            assert!(still(&r), "{r:?}");
        }
        while !exited {
            exited = sh.send_raw("", false).await.exit_code == Some(0);
        }
        // Nor is a script reading its input with no prompt.
        let r = sh
            .send(
                "node -e 'process.stdin.once(\"data\", d => { console.log(\"got \" + d); \
                 process.exit(0) })'",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(!still(&r), "{r:?}");
        let r = sh.send("hi").await;
        assert!(r.viewport.contains("got hi"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A REPL whose own timer keeps printing (node's `setInterval`, which never redraws the
/// prompt) is back at its prompt once it printed it after the line, even when a tick landed
/// right after the prompt on its row: a slow line's send settles as a stdin wait between two
/// ticks, not at its deadline; an `await` still pending says so, ticks and all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_with_a_ticking_timer_settles_after_its_prompt() {
    if !crate::support::installed("node") {
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        sh.send("const h = setInterval(() => console.log('tick'), 100)")
            .await;
        let send = |text: &'static str| sh.send_within(text, true, 20_000);
        let r = send("6 * 7").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        // A line that blocks the event loop for a second: the tick it held back lands right
        // after the prompt.
        let r = send(
            "{ const e = Date.now() + 1000; while (Date.now() < e); console.log('slow' + 'done') }",
        )
        .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "slowdone"), "{r:?}");
        let r = send("await new Promise(r => setTimeout(() => r('late-' + 'value'), 4000))").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let mut seen = r.viewport.contains("late-value");
        if !seen {
            assert!(r.notices.iter().any(|n| n.contains(STILL_RUNNING)), "{r:?}");
        }
        while !seen {
            let r = sh.send_raw("", false).await;
            seen = r.viewport.contains("late-value");
            // The poll that shows the value shows the prompt back too (ticks after it).
            if seen {
                assert!(
                    !r.notices.iter().any(|n| n.contains(STILL_RUNNING)),
                    "{r:?}"
                );
            }
        }
        sh.send("clearInterval(h)").await;
        let r = sh.send(".exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A program that watches the terminal with a timeout while its timer keeps printing (a
/// `select` loop with a period, node's stdin listener beside `setInterval`, in raw mode too
/// as a spinner that discards what is typed) is still at work:
/// the send ends with the program, every line of it there, not at the first quiet moment as a
/// wait for input; a progress line it redraws before the cursor is no prompt. Once the
/// program prints nothing through a period (or nearly the idle window), it waits for input,
/// and the answer reaches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_printing_on_a_timer_while_it_watches_the_terminal_is_not_waiting() {
    const SELECT_LOOP: &str = "python3 -c 'import select, sys\n\
        for i in range(6):\n\
        \x20   select.select([0], [], [], 0.25)\n\
        \x20   print(\"tick\", i, flush=True)'";
    const NODE_LOOP: &str = "node -e 'let i = 0; process.stdin.on(\"data\", () => {}); \
        const t = setInterval(() => { console.log(\"tick\", i++); \
        if (i === 6) { clearInterval(t); process.exit(0) } }, 250)'";
    const NODE_RAW_LOOP: &str = "node -e 'process.stdin.setRawMode(true); \
        process.stdin.on(\"data\", () => {}); let i = 0; \
        const t = setInterval(() => { console.log(\"tick\", i++); \
        if (i === 6) { clearInterval(t); process.exit(0) } }, 250)'";
    const QUIET_LOOP: &str = "python3 -c 'import select, sys\n\
        print(\"ready\", flush=True)\n\
        while not select.select([0], [], [], 0.2)[0]: pass\n\
        print(\"got\", sys.stdin.readline().strip())'";
    within(async {
        let sh = Shell::open(config()).await;
        let mut loops = vec![SELECT_LOOP];
        if crate::support::installed("node") {
            loops.extend([NODE_LOOP, NODE_RAW_LOOP]);
        }
        for program in loops {
            let r = sh.send_within(program, true, 20_000).await;
            assert_eq!(r.exit_code, Some(0), "{program}: {r:?}");
            for i in 0..6 {
                let tick = format!("tick {i}");
                assert!(r.viewport.lines().any(|l| l == tick), "{program}: {r:?}");
            }
        }
        // A progress line redrawn before the cursor is no prompt.
        let r = sh
            .send_within(
                "for i in 1 2 3 4 5 6; do printf '\\rprogress %d/6' $i; \
                 read -t 0.25 x && echo \"[read: $x]\"; done; echo; echo END",
                true,
                20_000,
            )
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "END"), "{r:?}");
        assert!(r.viewport.contains("progress 6/6"), "{r:?}");
        // Nor one that ends in a bracket holding a count or a bar, beside a key poll.
        for (line, arg) in [
            ("Waiting for db (attempt %d/6)", "$i"),
            ("[%-6s]", "$b"),
            ("Working [%s]", "spinning"),
        ] {
            let r = sh
                .send_within(
                    &format!(
                        "b=; for i in 1 2 3 4 5 6; do b+='#'; printf '\\r{line}' \"{arg}\"; \
                         read -t 0.25 -n1 k && echo CANCELLED; done; echo; echo END"
                    ),
                    true,
                    20_000,
                )
                .await;
            assert_eq!(r.exit_code, Some(0), "{line}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "END"), "{line}: {r:?}");
        }
        // A yes/no question counting down is a prompt at once.
        let r = sh
            .send(
                "for i in 9 8 7 6 5 4 3 2 1; do printf '\\rContinue? [y/N] (%ds) ' $i; \
                 read -t 1 -n1 k && break; done; echo; echo \"k=[$k]\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("y").await;
        assert!(r.viewport.lines().any(|l| l == "k=[y]"), "{r:?}");
        // A timeout longer than the idle window: waiting for input before silence settles.
        let r = sh.send("read -t 20 v; echo \"got=$v\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("hi").await;
        assert!(r.viewport.lines().any(|l| l == "got=hi"), "{r:?}");
        // A question before the cursor is a prompt, timeout or not.
        let r = sh.send("read -t 20 -p 'Name: ' v; echo \"name=$v\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with("Name: "), "{r:?}");
        let r = sh.send("ada").await;
        assert!(r.viewport.lines().any(|l| l == "name=ada"), "{r:?}");
        let r = sh.send(QUIET_LOOP).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, None, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "ready"), "{r:?}");
        let r = sh.send("hello").await;
        assert!(r.viewport.lines().any(|l| l == "got hello"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// An event loop that reads the terminal among other sources (asyncio's self-pipe socket)
/// settles on silence like a relay, and the result says it may be waiting for input.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_loop_reading_the_terminal_is_said_to_maybe_wait_for_input() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(
                "python3 -c \"import asyncio, sys\nasync def m():\n  loop = asyncio.get_running_loop(); \
                 f = loop.create_future(); loop.add_reader(0, lambda: f.done() or \
                 f.set_result(sys.stdin.readline()))\n  print('got', await f)\nasyncio.run(m())\"",
            )
            .await;
        if r.wait_reason == WaitReason::InferredIdle {
            assert!(
                r.notices.iter().any(|n| n.starts_with(
                    "[idle: python3 is still running and went quiet while reading the terminal"
                )),
                "{r:?}"
            );
        }
        let r = sh.send("abc").await;
        assert!(r.viewport.lines().any(|l| l == "got abc"), "{r:?}");
        sh.close().await;
    })
    .await;
}
