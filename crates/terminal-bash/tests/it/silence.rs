//! Silence that means something: output silence settles a send as `inferred_idle` only when
//! the kernel says the foreground job is idle; a job that sleeps or computes keeps the send
//! waiting up to its deadline.

use dsh_terminal_core::{BackendSession, TerminalSignal, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, config, within};

mod event_loops;

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
        // Nor a loop of short-lived commands, whose shell mostly waits for one child or is
        // between two (a look at its threads alone often finds none running), also as a
        // pipeline's middle.
        let r = sh
            .send("end=$((SECONDS+4)); while [ $SECONDS -lt $end ]; do x=$(true); done; echo forked")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "forked"), "{r:?}");
        let r = sh
            .send("end=$((SECONDS+4)); seq 1 1000000 | while [ $SECONDS -lt $end ]; do read -r l; /bin/true; done | tail -1; echo piped-loop")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "piped-loop"), "{r:?}");
        // A pipeline whose reader waits on a sleeping writer is not idle either.
        let r = sh.send("sleep 5 | cat; echo piped").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "piped"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A server waiting for connections is idle: it comes back at the idle window, still
/// running, also to a send that gave its own deadline (Python's `http.server` wakes every half
/// second to poll, which is no work of a command to wait for: it holds a listening socket).
/// Text sent while it holds the terminal goes in typed ahead, as on a terminal, and the result
/// says nothing read it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_waiting_for_connections_comes_back_at_the_idle_window() {
    within(async {
        let sh = Shell::open(config()).await;
        // Port 0: the kernel picks a free port.
        let r = sh
            .send_within(
                "python3 -u -m http.server 0 --bind 127.0.0.1",
                true,
                120_000,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
        assert_eq!(r.foreground.as_deref(), Some("python3"), "{r:?}");
        assert!(r.viewport.contains("Serving HTTP on"), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[idle: python3 is still running")),
            "{r:?}"
        );
        let r = sh.send("echo typed-ahead").await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: python3 has not read the text sent")),
            "{r:?}"
        );
        sh.session
            .signal(TerminalSignal::Sigint)
            .unwrap_or_else(|e| panic!("{e}"));
        let r = sh.send("echo after-$((6*7))").await;
        assert!(r.viewport.lines().any(|l| l == "after-42"), "{r:?}");
        assert!(!r.viewport.lines().any(|l| l == "typed-ahead"), "{r:?}");
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

/// The notice of a REPL that read a line but has not printed its prompt again.
pub(crate) const STILL_RUNNING: &str = "has not printed its prompt again";
