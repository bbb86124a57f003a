//! Regressions for interrupt races seen under load through MCP: a send made right after an
//! interrupt must report its own command, never the interrupted command's prompt, and must not
//! lose typed characters to bash's interrupt handling. Each is repeated to catch the race.

use dsh_terminal_core::{BackendSession, SendResult, TerminalSignal, WaitReason};

use crate::support::{Shell, quick_config, within};

const ROUNDS: usize = 15;

/// Starts a send of `sleep 100` without waiting for it.
fn start_sleep(shell: &Shell, round: usize) -> dsh_terminal_core::SendOperation {
    shell
        .session
        .start_send(dsh_terminal_core::SendRequest {
            text: "sleep 100".to_owned(),
            submit: true,
            timeout: None,
        })
        .unwrap_or_else(|e| panic!("round {round}: {e}"))
}

/// Sends `echo {marker}` and asserts the marker's line is on the screen.
async fn echo_shows(shell: &Shell, marker: &str, round: usize) -> SendResult {
    let r = shell.send(&format!("echo {marker}")).await;
    assert!(
        r.viewport.lines().any(|l| l == marker),
        "round {round}: {r:?}\ntranscript: {}",
        shell.session.transcript()
    );
    r
}

/// `sleep 100` settles by silence; SIGINT; then `echo` at once, as a model would send it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_right_after_sigint_reports_its_own_command() {
    within(async {
        let shell = Shell::open(quick_config()).await;
        let mut previous = None;
        for round in 0..ROUNDS {
            let r = shell.send("sleep 100").await;
            assert_ne!(
                r.wait_reason,
                WaitReason::StdinRead,
                "round {round}: {r:?}\nprevious: {previous:?}\ntranscript: {}",
                shell.session.transcript()
            );
            shell
                .session
                .signal(TerminalSignal::Sigint)
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            let marker = format!("ok-{round}");
            let r = echo_shows(&shell, &marker, round).await;
            assert_eq!(r.exit_code, Some(0), "round {round}: {r:?}");
            previous = Some(r);
        }
        shell.close().await;
    })
    .await;
}

/// A send of several lines that starts as a command ends, its new prompt printed but not yet
/// on the screen, runs every line: the shell reading then was taken for a reader (its
/// `read`) that ended, and the lines after the first were dropped as meant for it. The
/// deadlines vary around the command's length so that rounds start at different moments.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_sent_as_a_command_ends_all_run() {
    within(async {
        let shell = Shell::open(quick_config()).await;
        for round in 0..ROUNDS * 3 {
            let timeout_ms = 70 + (round as u64 % 8) * 6;
            shell.send_within("sleep 0.1", true, timeout_ms).await;
            let r = shell
                .send(&format!("echo first-{round}\necho second-{round}"))
                .await;
            let second = format!("second-{round}");
            assert!(
                r.viewport.lines().any(|l| l == second)
                    && r.notices.iter().all(|n| !n.starts_with("[input:")),
                "round {round}: {r:?}\ntranscript: {}",
                shell.session.transcript()
            );
        }
        shell.close().await;
    })
    .await;
}

/// A typed Ctrl-C (submit false) at an idle prompt, then a command at once: no character of
/// the command is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_ctrl_c_then_command_loses_nothing() {
    within(async {
        let shell = Shell::open(quick_config()).await;
        for round in 0..ROUNDS {
            shell.send_raw("\u{3}", false).await;
            let marker = format!("x-{round}");
            echo_shows(&shell, &marker, round).await;
        }
        shell.close().await;
    })
    .await;
}

/// SIGINT at an idle prompt through the signal path, then a command at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_at_idle_prompt_then_command_loses_nothing() {
    within(async {
        let shell = Shell::open(quick_config()).await;
        for round in 0..ROUNDS {
            shell
                .session
                .signal(TerminalSignal::Sigint)
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            // (Not sent at an idle prompt; a typed Ctrl-C above exercises the real signal.)
            let marker = format!("y-{round}");
            echo_shows(&shell, &marker, round).await;
        }
        shell.close().await;
    })
    .await;
}

/// A program reading the terminal (`cat`, `head -1`) is interrupted, and a command is sent at
/// once: the command must neither be swallowed with the dying reader's input nor settle on the
/// interrupted command's prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_right_after_interrupting_a_terminal_reader_runs_the_command() {
    within(async {
        let shell = Shell::open(quick_config()).await;
        for (round, reader) in ["cat", "head -1", "cat /dev/tty"]
            .iter()
            .cycle()
            .take(12)
            .enumerate()
        {
            let r = shell.send(reader).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "round {round}: {r:?}");
            shell
                .session
                .signal(TerminalSignal::Sigint)
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            let marker = format!("ok-{round}");
            let r = echo_shows(&shell, &marker, round).await;
            assert_eq!(r.exit_code, Some(0), "round {round}: {r:?}");
        }
        shell.close().await;
    })
    .await;
}

/// A poll while a program waits for input settles at once as `stdin_read`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_while_a_program_waits_for_input_is_ready_at_once() {
    within(async {
        // A 30 s idle window: a poll that waited for it could not pass the bound below.
        let shell = Shell::open(dsh_terminal_bash::BashConfig {
            idle_silence_ms: 30_000,
            ..crate::support::config()
        })
        .await;
        let r = shell.send("python3 -q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let started = std::time::Instant::now();
        let r = shell.send_raw("", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        shell.send("exit()").await;
        shell.close().await;
    })
    .await;
}

/// A send typed ahead while a command runs (one blocked for good on a FIFO no one writes,
/// which takes text at once), cancelled before the shell read it (a background send's
/// job_kill): the interrupt discards the unread line as the terminal's Ctrl-C does, so it
/// never runs once the shell reads again and the next send is not polluted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_send_the_shell_never_read_does_not_run_later() {
    within(async {
        let dir = crate::support::TempDir::new("cancel-typed-ahead");
        let shell = Shell::open(quick_config()).await;
        for round in 0..3 {
            let fifo = dir.0.join(format!("f{round}"));
            let r = shell
                .send(&format!("mkfifo '{f}'; cat '{f}'", f = fifo.display()))
                .await;
            assert_ne!(r.wait_reason, WaitReason::StdinRead, "round {round}: {r:?}");
            let op = shell
                .session
                .start_send(dsh_terminal_core::SendRequest {
                    text: "echo polluted-$((6*7))".to_owned(),
                    submit: true,
                    timeout: None,
                })
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            // The terminal echoes the typed-ahead line once it is written.
            crate::support::wait_until("the typed-ahead line is echoed", || {
                op.progress()
                    .last_line
                    .is_some_and(|l| l.contains("polluted-$"))
            })
            .await;
            assert!(op.cancel(), "round {round}");
            let r = op
                .done()
                .await
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert!(!r.viewport.contains("polluted-42"), "round {round}: {r:?}");
            let marker = format!("clean-{round}");
            let r = shell.send(&format!("echo {marker}")).await;
            assert!(!r.viewport.contains("polluted"), "round {round}: {r:?}");
            assert!(
                r.viewport.lines().any(|l| l == marker),
                "round {round}: {r:?}"
            );
            assert_eq!(r.exit_code, Some(0), "round {round}: {r:?}");
        }
        let page = shell
            .session
            .read(dsh_terminal_core::ReadRequest::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!page.text.contains("polluted-42"), "{:?}", page.text);
        shell.close().await;
    })
    .await;
}

/// SIGTSTP while the shell itself holds the foreground (`wait` for a background job) changes
/// nothing, as the result says: an interactive shell ignores it, and the command sent
/// meanwhile (held for the shell's prompt) still runs (the terminal's suspend key would
/// discard it, but only a signal that reaches a program stands for that key).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigtstp_the_shell_ignores_keeps_typed_ahead_input() {
    within(async {
        let shell = Shell::open(quick_config()).await;
        let r = shell.send("sleep 3 & wait").await;
        assert_ne!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let op = shell
            .session
            .start_send(dsh_terminal_core::SendRequest {
                text: "echo typed-ahead-$((6*7))".to_owned(),
                submit: true,
                timeout: None,
            })
            .unwrap_or_else(|e| panic!("{e}"));
        let s = shell
            .session
            .signal(TerminalSignal::Sigtstp)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(s.shell_targeted, "{s:?}");
        drop(op.done().await);
        crate::support::wait_until("the typed-ahead command ran", || {
            shell.session.transcript().contains("\ntyped-ahead-42\n")
        })
        .await;
        shell.close().await;
    })
    .await;
}

/// A cancel that comes when the session's last process is already gone (a background send
/// killed as its session closes) ends the send as `session_exit`: there is no foreground left
/// to interrupt, and that is not a failure of the send.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_after_the_session_died_ends_the_send_as_session_exit() {
    within(async {
        for round in 0..3 {
            let shell = Shell::open(quick_config()).await;
            let r = shell.send("exec sleep 100").await;
            assert_ne!(
                r.wait_reason,
                WaitReason::SessionExit,
                "round {round}: {r:?}"
            );
            let op = shell
                .session
                .start_send(dsh_terminal_core::SendRequest {
                    text: String::new(),
                    submit: false,
                    timeout: None,
                })
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            let pid = rustix::process::Pid::from_raw(shell.session.shell().pid).unwrap();
            rustix::process::kill_process(pid, rustix::process::Signal::KILL).unwrap();
            op.cancel();
            let r = op
                .done()
                .await
                .unwrap_or_else(|e| panic!("round {round}: the send failed: {e}"));
            assert_eq!(
                r.wait_reason,
                WaitReason::SessionExit,
                "round {round}: {r:?}"
            );
            shell.close().await;
        }
    })
    .await;
}

/// A cancel made right after the shell read the line, before the command took the foreground
/// (a background job killed at once, as parallel tool calls do): the interrupt that reached
/// the shell first reaches the command too, so the send ends instead of waiting out its
/// timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_right_after_the_write_reaches_the_command() {
    within(async {
        let shell = Shell::open(quick_config()).await;
        for round in 0..ROUNDS {
            let op = start_sleep(&shell, round);
            // Once the shell echoed the line (it is reading or has just run it), at once.
            let mut seen = String::new();
            while !seen.contains("sleep 100") {
                seen.push_str(&op.read_output().delta);
                tokio::task::yield_now().await;
            }
            assert!(
                op.cancel(),
                "round {round}: the send settled before its cancel"
            );
            let r = op
                .done()
                .await
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert_eq!(
                r.wait_reason,
                WaitReason::StdinRead,
                "round {round}: {r:?}\ntranscript: {}",
                shell.session.transcript()
            );
            // Back at the prompt: the next command runs at once.
            let marker = format!("z-{round}");
            echo_shows(&shell, &marker, round).await;
        }
        shell.close().await;
    })
    .await;
}

/// `terminal_signal` SIGINT right after a send started (parallel tool calls, or a background
/// send interrupted at once): the interrupt reaches the command, whether the shell already
/// ran it or was still reading its line, and never cuts the line short (`leep: command not
/// found`) or leaves the command running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_right_after_a_send_starts_interrupts_its_command() {
    within(async {
        let shell = Shell::open(quick_config()).await;
        for round in 0..ROUNDS {
            let op = start_sleep(&shell, round);
            let delivery = shell
                .session
                .signal(TerminalSignal::Sigint)
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert!(delivery.delivered, "round {round}: {delivery:?}");
            let r = op
                .done()
                .await
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert_eq!(
                (r.wait_reason, r.exit_code),
                (WaitReason::StdinRead, Some(130)),
                "round {round}: {delivery:?} {r:?}\ntranscript: {}",
                shell.session.transcript()
            );
            assert!(
                !r.viewport.contains("command not found"),
                "round {round}: {r:?}"
            );
            let marker = format!("s-{round}");
            echo_shows(&shell, &marker, round).await;
        }
        shell.close().await;
    })
    .await;
}

/// A shell that deals with an interrupt later than the next send waits for (a loaded machine;
/// here the shell is stopped for 1.5 s, past the 1 s bound): the command sent meanwhile still
/// runs after the interrupted line, and its result shows its own output and status, not the
/// prompt the interrupt brought.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_sent_while_the_shell_is_slow_to_take_an_interrupt_reports_its_own_status() {
    within(async {
        let sh = Shell::open(crate::support::config()).await;
        let r = sh.send("cat <<EOF\nunfinished").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let shell = rustix::process::Pid::from_raw(
            i32::try_from(sh.session.pid().expect("a shell pid")).expect("a pid"),
        )
        .expect("a pid");
        rustix::process::kill_process(shell, rustix::process::Signal::STOP).unwrap();
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let resume = tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
            rustix::process::kill_process(shell, rustix::process::Signal::CONT).unwrap();
        });
        let r = sh.send("echo next-$((6 * 7))").await;
        resume.await.unwrap();
        assert!(r.viewport.lines().any(|l| l == "next-42"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A raw-mode prompt (`Host? `) that takes the interrupt character as its Ctrl-C and needs a
/// moment to end; SIGINT, then a command at once, as a model would send it: the command goes
/// whole to the shell once the program ended (it was cut to its first key, planned as an
/// answer to the prompt still on the screen), and a raw reader that takes the character as
/// a key of its answer gets the next text whole too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_right_after_sigint_to_a_raw_prompt_goes_whole() {
    const RAW_PROMPT: &str = "python3 -c \"import os, sys, time, tty\n\
        tty.setraw(0); os.write(1, sys.argv[1].encode()); keys = b''\n\
        while (k := os.read(0, 1)) not in (b'\\r', b'\\x03' if sys.argv[2] == 'ends' else b''):\n\
        \x20   keys += k; os.write(1, b'*')\n\
        os.system('stty sane'); print(); print('keys=[%s]' % keys.decode(errors='replace'))\n\
        time.sleep(0.3); sys.exit(130 if k == b'\\x03' else 0)\"";
    within(async {
        let shell = Shell::open(quick_config()).await;
        for round in 0..3 {
            let r = shell.send(&format!("{RAW_PROMPT} 'Host? ' ends")).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "round {round}: {r:?}");
            shell
                .session
                .signal(TerminalSignal::Sigint)
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            let marker = format!("next-{round}");
            let r = echo_shows(&shell, &marker, round).await;
            assert_eq!(r.exit_code, Some(0), "round {round}: {r:?}");
        }
        let r = shell
            .send(&format!("{RAW_PROMPT} 'Token: ' reads-on"))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        shell.session.signal(TerminalSignal::Sigint).unwrap();
        let r = shell.send("abc").await;
        // Four keys taken (the interrupt character shows as nothing), then the Enter.
        assert!(
            r.viewport.lines().any(|l| l == "****")
                && r.viewport.lines().any(|l| l == "keys=[abc]"),
            "{r:?}\ntranscript: {}",
            shell.session.transcript()
        );
        // A line editor of its own in cbreak mode that asks again a moment after its Ctrl-C
        // (a KeyboardInterrupt), then asks a second question: two lines sent at once meet
        // their own prompts whole (the first was planned as key answers at the old prompt).
        const ASKS_AGAIN: &str = "python3 -c \"import os, time, tty, termios\n\
            a = termios.tcgetattr(0)\n\
            def line(prompt):\n\
            \x20   tty.setcbreak(0); os.write(1, prompt.encode()); keys = b''\n\
            \x20   try:\n\
            \x20       while (k := os.read(0, 1)) != b'\\n':\n\
            \x20           keys += k; os.write(1, k)\n\
            \x20   except KeyboardInterrupt:\n\
            \x20       keys = None; time.sleep(0.3)\n\
            \x20   termios.tcsetattr(0, termios.TCSADRAIN, a); print()\n\
            \x20   return keys if keys is None else keys.decode()\n\
            host = line('Host: ')\n\
            host = host if host is not None else line('Retry host: ')\n\
            print('got=[%s] [%s]' % (host, line('Port: ')))\"";
        // Keys sent without Enter before the signal are gone with the line it ended: the
        // three lines after it are three answers (an empty one went between them, ending
        // the keys' line as a REPL statement's, and the last was lost).
        const READS_THREE: &str = "python3 -c \"import os, tty, termios\n\
            a = termios.tcgetattr(0); n = 0\n\
            while n < 3:\n\
            \x20   tty.setcbreak(0); os.write(1, b'pt> '); keys = b''\n\
            \x20   try:\n\
            \x20       while (k := os.read(0, 1)) != b'\\\\n':\n\
            \x20           keys += k; os.write(1, k)\n\
            \x20       n += 1; print(); print('GOT', keys.decode())\n\
            \x20   except KeyboardInterrupt:\n\
            \x20       print('^C again')\n\
            termios.tcsetattr(0, termios.TCSADRAIN, a)\"";
        let r = shell.send(READS_THREE).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        shell.send_raw("zz", false).await;
        shell.session.signal(TerminalSignal::Sigint).unwrap();
        let r = shell.send("one\ntwo\nthree").await;
        let got: Vec<&str> = r
            .viewport
            .lines()
            .filter(|l| l.starts_with("GOT"))
            .collect();
        assert_eq!(got, ["GOT one", "GOT two", "GOT three"], "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        let r = shell.send(ASKS_AGAIN).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        shell.session.signal(TerminalSignal::Sigint).unwrap();
        let r = shell.send("db.example.com\n5432").await;
        assert!(
            r.viewport
                .lines()
                .any(|l| l == "got=[db.example.com] [5432]"),
            "{r:?}\ntranscript: {}",
            shell.session.transcript()
        );
        shell.close().await;
    })
    .await;
}

/// A pager killed with SIGKILL, then a command at once: the dying pager still held the
/// terminal (and its modes) until the shell reaped it, so the command was refused as one meant
/// for the shell sent to the pager, and the refusal's advice (`q`) then went to the shell. The
/// command waits the kill out and runs in the shell.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_right_after_killing_a_pager_runs_in_the_shell() {
    within(async {
        let shell = Shell::open(quick_config()).await;
        for (round, pager) in ["seq 1 500 | less", "less -S /proc/self/maps"]
            .iter()
            .cycle()
            .take(8)
            .enumerate()
        {
            let r = shell.send(pager).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "round {round}: {r:?}");
            shell
                .session
                .signal(TerminalSignal::Sigkill)
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            let marker = format!("killed-{round}");
            echo_shows(&shell, &marker, round).await;
        }
        shell.close().await;
    })
    .await;
}

/// A close that comes as a send's command finishes: a result that shows the command's prompt
/// back carries the command's exit status (its status was counted among earlier commands,
/// with none of its own), and one that does not, none. The close lands at a different point
/// each round (not a wait for anything).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_close_after_the_prompt_came_back_keeps_the_commands_status() {
    within(async {
        let mut prompt_back = 0;
        for round in 0..ROUNDS * 2 {
            let shell = Shell::open(quick_config()).await;
            let op = shell.start_within("echo hi", 30_000);
            tokio::time::sleep(std::time::Duration::from_micros(300 * round as u64)).await;
            let session = std::sync::Arc::clone(&shell.session);
            let close = tokio::spawn(async move { session.close("test done".into()).await });
            let r = op
                .done()
                .await
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            close
                .await
                .unwrap_or_else(|e| panic!("round {round}: {e}"))
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            if r.viewport.contains("hi\ndsh> ") {
                prompt_back += 1;
                assert_eq!(r.exit_code, Some(0), "round {round}: {r:?}");
                assert_eq!(r.earlier_exits.finished, 0, "round {round}: {r:?}");
            } else {
                assert_eq!(r.exit_code, None, "round {round}: {r:?}");
            }
            let left = crate::support::session_pids(&shell.id);
            assert!(left.is_empty(), "round {round}: processes left: {left:?}");
        }
        eprintln!("the prompt was back before the close in {prompt_back} rounds");
    })
    .await;
}
