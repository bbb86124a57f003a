//! Everyday behaviour against real bash.

use dsh_terminal_core::{
    BackendSession, InputMode, SessionStatus, TerminalErrorCode, TerminalSignal, WaitReason,
};
use pretty_assertions::assert_eq;

use crate::support::{Shell, config, quick_config, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_hello_settles_on_the_prompt_with_exit_code() {
    within(async {
        let sh = Shell::open(config()).await;
        assert_eq!(sh.session.motd(), "dsh> ");
        let r = sh.send("echo hello").await;
        assert_eq!(r.viewport, "echo hello\nhello\ndsh> ");
        assert_eq!(r.wait_reason, WaitReason::StdinRead);
        assert_eq!(r.exit_code, Some(0));
        assert_eq!(r.foreground, None);
        assert_eq!(r.input_mode, InputMode::Normal);
        assert_eq!(r.session_status, SessionStatus::Running);
        assert!(!r.truncated);
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn false_reports_exit_code_one() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("false").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead);
        assert_eq!(r.exit_code, Some(1));
        let r = sh.send("(exit 42)").await;
        assert_eq!(r.exit_code, Some(42));
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shell_state_persists_between_sends() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("cd /tmp && export FOO=bar").await;
        assert_eq!(r.exit_code, Some(0));
        let r = sh.send("pwd; echo $FOO").await;
        assert_eq!(r.viewport, "pwd; echo $FOO\n/tmp\nbar\ndsh> ");
        let r = sh
            .send("echo $DSH_SHELL $TERM $PAGER $GIT_PAGER $GIT_MERGE_AUTOEDIT")
            .await;
        assert!(
            r.viewport.contains("\n1 xterm-256color cat cat no\n"),
            "{:?}",
            r.viewport
        );
        let r = sh
            .send(&format!(
                "test \"$DSH_PTY_SESSION_ID\" = {} && echo tagged",
                sh.id
            ))
            .await;
        assert!(r.viewport.contains("\ntagged\n"), "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overridden_ps1_is_kept_and_still_marked() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("PS1=my-prompt").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead);
        assert_eq!(r.exit_code, Some(0));
        assert!(r.viewport.ends_with("my-prompt"), "{:?}", r.viewport);
        let r = sh.send("echo kept").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead);
        assert_eq!(r.exit_code, Some(0));
        assert_eq!(r.viewport, "echo kept\nkept\nmy-prompt");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_repl_is_waiting_for_input_with_its_name() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("python3 -q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with(">>> "), "{:?}", r.viewport);
        let fg = r.foreground.clone().unwrap_or_default();
        assert!(fg.starts_with("python"), "{fg:?}");
        assert_eq!(r.exit_code, None);
        let r = sh.send("1+1").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.viewport, "1+1\n2\n>>> ");
        let r = sh.send("exit()").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0));
        assert_eq!(r.foreground, None);
        assert!(r.viewport.ends_with("dsh> "), "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn carriage_return_progress_is_screen_true() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("for i in 1 2 3; do printf '\\rprogress %d' $i; sleep 0.2; done; echo")
            .await;
        assert!(r.viewport.contains("progress 3"), "{:?}", r.viewport);
        assert!(!r.viewport.contains("progress 1"), "{:?}", r.viewport);
        assert_eq!(r.exit_code, Some(0));
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colored_output_never_leaks_escapes() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("ls --color=always /").await;
        assert!(!r.viewport.contains('\x1b'), "{:?}", r.viewport);
        assert!(r.viewport.contains("tmp"), "{:?}", r.viewport);
        assert_eq!(r.exit_code, Some(0));
        let page = sh.session.read(Default::default()).unwrap();
        assert!(!page.text.contains('\x1b'));
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_interrupts_a_sleep_and_the_shell_stays_usable() {
    within(async {
        let sh = Shell::open(quick_config()).await;
        let r = sh.send("sleep 100").await;
        assert!(
            matches!(
                r.wait_reason,
                WaitReason::InferredIdle | WaitReason::Timeout
            ),
            "{r:?}"
        );
        assert_eq!(r.foreground.as_deref(), Some("sleep"));
        let signalled = sh.session.signal(TerminalSignal::Sigint).unwrap();
        assert_ne!(signalled.target_pgid, sh.session.shell().pid);
        assert!(signalled.delivered && !signalled.shell_targeted);
        let r = sh.send("echo ok").await;
        assert!(r.viewport.contains("\nok\n"), "{:?}", r.viewport);
        assert_eq!(r.wait_reason, WaitReason::StdinRead);
        sh.close().await;
    })
    .await;
}

/// SIGTERM, SIGKILL or SIGHUP to a program that ignores SIGINT ends it and the rest of its
/// command line, as Ctrl-C would: bash by itself runs the next command of a list when the
/// program died of anything but SIGINT.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_that_ends_a_program_ends_the_rest_of_its_command_line() {
    within(async {
        let sh = Shell::open(quick_config()).await;
        for signal in [
            TerminalSignal::Sigterm,
            TerminalSignal::Sigkill,
            TerminalSignal::Sighup,
        ] {
            let r = sh
                .send("sh -c \"trap '' INT; exec sleep 100\"; echo rest-$((6*7)); for i in 1 2; do echo loop-$((i*11)); done")
                .await;
            assert_eq!(r.foreground.as_deref(), Some("sleep"), "{signal}: {r:?}");
            let signalled = sh.session.signal(signal).unwrap();
            assert!(signalled.delivered && !signalled.shell_targeted, "{signal}");
            let r = sh.send("echo after").await;
            assert!(r.viewport.contains("\nafter\n"), "{signal}: {:?}", r.viewport);
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{signal}");
            let transcript = sh.session.transcript();
            assert!(
                !transcript.contains("rest-42") && !transcript.contains("loop-11"),
                "{signal}: the rest of the line ran:\n{transcript}"
            );
            assert!(signalled.command_line_ended, "{signal}: {signalled:?}");
        }
        // A shell that ignores SIGINT itself (`trap '' INT`) runs the rest of the line on,
        // and the answer does not say it ends.
        sh.send("trap '' INT").await;
        let r = sh
            .send("sh -c \"trap '' INT; exec sleep 100\"; echo rest-$((6*7))")
            .await;
        assert_eq!(r.foreground.as_deref(), Some("sleep"), "{r:?}");
        let signalled = sh.session.signal(TerminalSignal::Sigkill).unwrap();
        assert!(!signalled.command_line_ended, "{signalled:?}");
        let r = sh.send("echo after").await;
        assert!(
            r.viewport.contains("\nrest-42\n") || sh.session.transcript().contains("\nrest-42"),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// A signal sent right after a send, while the shell may still be reading or starting its
/// line, reaches the command once it starts: it ends the command and the rest of its line,
/// instead of going to the shell (which ignores SIGTERM and is never sent SIGKILL or SIGHUP)
/// and letting the command run on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_right_after_a_send_reaches_its_command() {
    within(async {
        let sh = Shell::open(quick_config()).await;
        for signal in [
            TerminalSignal::Sigterm,
            TerminalSignal::Sighup,
            TerminalSignal::Sigkill,
        ] {
            let op = sh.start_within("sleep 60; echo rest-$((6*7))", 50_000);
            let signalled = sh.session.signal(signal).unwrap();
            assert!(signalled.delivered && !signalled.shell_targeted, "{signal}");
            let r = op.done().await.unwrap();
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{signal}: {r:?}");
            assert_ne!(r.exit_code, Some(0), "{signal}: {r:?}");
            let r = sh.send("echo after").await;
            assert!(r.viewport.contains("\nafter\n"), "{signal}: {r:?}");
            assert!(
                !sh.session.transcript().contains("rest-42"),
                "{signal}: the rest of the line ran:\n{}",
                sh.session.transcript()
            );
        }
        sh.close().await;
    })
    .await;
}

/// A SIGINT sent right after a send whose line is the shell's own `read`: the send waits for
/// it (it reaches the shell after a short grace) instead of settling on the read's wait, so
/// the read ends (status 130) and the next send runs as a command, not as its answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigint_right_after_a_read_builtin_ends_the_read() {
    within(async {
        let sh = Shell::open(quick_config()).await;
        let op = sh.start_within("read -r v", 20_000);
        let signalled = sh.session.signal(TerminalSignal::Sigint).unwrap();
        assert!(signalled.delivered, "{signalled:?}");
        let r = op.done().await.unwrap();
        assert_eq!(
            (r.wait_reason, r.exit_code),
            (WaitReason::StdinRead, Some(130)),
            "{r:?}"
        );
        let r = sh.send("echo \"v=[$v]\"").await;
        assert!(r.viewport.lines().any(|l| l == "v=[]"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Text typed ahead to a program that reads nothing (a server blocked in `accept`, which
/// takes it at once) is discarded by a SIGTERM that ends the program, as by a Ctrl-C: it never
/// runs in the shell afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_that_ends_a_program_discards_what_was_typed_ahead_to_it() {
    within(async {
        let sh = Shell::open(quick_config()).await;
        let server = "python3 -c 'import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); s.accept()'";
        let r = sh.send_within(server, true, 500).await;
        assert_eq!(r.foreground.as_deref(), Some("python3"), "{r:?}");
        // Held until output has been quiet for the idle window (it might be starting up).
        let r = sh.send_within("echo typed-$((6*7))", true, 10_000).await;
        assert_eq!(r.foreground.as_deref(), Some("python3"), "{r:?}");
        assert!(r.notices.iter().any(|n| n.contains("has not read the text sent")), "{r:?}");
        let signalled = sh.session.signal(TerminalSignal::Sigterm).unwrap();
        assert!(
            signalled.delivered && !signalled.shell_targeted,
            "{signalled:?}"
        );
        let r = sh.send("echo after-$((6*7))").await;
        assert!(r.viewport.lines().any(|l| l == "after-42"), "{r:?}");
        assert!(
            !sh.session.transcript().contains("typed-42"),
            "the typed-ahead command ran:\n{}",
            sh.session.transcript()
        );
        sh.close().await;
    })
    .await;
}

/// A command typed alone has no rest of its line to end: the signal reaches it alone, so the
/// exit status is the program's own (a program that handles SIGTERM and exits 3 reports 3,
/// not the 130 of an interrupted shell); one killed by the signal reports 128 + its number.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_to_a_command_typed_alone_keeps_its_exit_status() {
    within(async {
        let dir = crate::support::TempDir::new("term-status");
        let script = dir.0.join("handles_term.py");
        let source = "import signal, sys, time\n\
             signal.signal(signal.SIGTERM, lambda *a: sys.exit(3))\n\
             time.sleep(100)\n";
        std::fs::write(&script, source).unwrap();
        let handler = format!("python3 {}", script.display());
        // The same program inline: its lines inside one quoted argument are one command.
        let inline = format!("python3 -c '{source}'");
        let sh = Shell::open(quick_config()).await;
        for (command, status) in [
            (handler.as_str(), 3),
            (inline.as_str(), 3),
            ("sleep 100", 143),
        ] {
            let r = sh.send(command).await;
            assert_ne!(r.foreground, None, "{command}: {r:?}");
            let signalled = sh.session.signal(TerminalSignal::Sigterm).unwrap();
            assert!(signalled.delivered, "{command}");
            let r = sh.send("echo \"status=$?\"").await;
            let expected = format!("status={status}");
            assert!(
                r.viewport.lines().any(|l| l == expected),
                "{command}: {r:?}"
            );
        }
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_at_the_shell_is_refused() {
    within(async {
        let sh = Shell::open(config()).await;
        let err = sh.session.signal(TerminalSignal::Sigkill).unwrap_err();
        assert_eq!(
            err.message(),
            "refusing to SIGKILL the terminal shell; use terminal_close to end the session (a command a terminal_send made at the same moment may not have started yet: signal once that call returned, or after a background send's acknowledgement)"
        );
        let err = sh.session.signal(TerminalSignal::Sighup).unwrap_err();
        assert_eq!(
            err.message(),
            "refusing to SIGHUP the terminal shell; use terminal_close to end the session (a command a terminal_send made at the same moment may not have started yet: signal once that call returned, or after a background send's acknowledgement)"
        );
        // SIGINT at an idle prompt is not sent: nothing runs, and readline would only redraw
        // its prompt (C22).
        let res = sh.session.signal(TerminalSignal::Sigint).unwrap();
        assert_eq!(res.target_pgid, sh.session.shell().pid);
        assert!(!res.delivered);
        assert!(res.shell_targeted);
        let r = sh.send("echo still").await;
        assert!(r.viewport.contains("\nstill\n"), "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_interrupts_the_foreground_and_settles_normally() {
    within(async {
        let sh = Shell::open(quick_config()).await;
        let r = sh.send("sleep 100").await;
        assert_eq!(r.foreground.as_deref(), Some("sleep"), "{r:?}");
        // An empty send waits on the running sleep; cancelling it interrupts the sleep.
        let op = sh
            .session
            .start_send(dsh_terminal_core::SendRequest {
                text: String::new(),
                submit: false,
                timeout: None,
            })
            .unwrap();
        let second = sh.session.start_send(dsh_terminal_core::SendRequest {
            text: "echo no".into(),
            submit: true,
            timeout: None,
        });
        assert_eq!(
            second.unwrap_err().code(),
            dsh_terminal_core::TerminalErrorCode::SendActive
        );
        assert!(op.cancel());
        let r = op.done().await.unwrap();
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(130));
        assert!(!op.cancel(), "cancel after settlement");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_job_is_killed_by_close() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("sleep 1000 & echo \"bg=$!\"").await;
        let pid: i32 = r
            .viewport
            .lines()
            .find_map(|l| l.strip_prefix("bg="))
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("no pid in {:?}", r.viewport));
        let bg = dsh_terminal_core::process::ProcessIdentity::of(pid).unwrap();
        assert!(bg.is_alive());
        sh.close().await;
        assert!(!bg.is_alive(), "background sleep survived close");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_read_the_transcript() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("printf 'PTY_OK\\n'").await;
        let page = sh.session.read(dsh_terminal_core::ReadRequest {
            offset: Some(0),
            count: Some(20),
            from_line: None,
        });
        let page = page.unwrap();
        assert_eq!(page.text, "dsh> printf 'PTY_OK\\n'\nPTY_OK\ndsh> ");
        assert_eq!(
            (page.line_begin, page.line_end, page.total_lines),
            (0, 3, 3)
        );
        let err = sh
            .session
            .read(dsh_terminal_core::ReadRequest {
                offset: None,
                count: Some(0),
                from_line: None,
            })
            .unwrap_err();
        assert_eq!(err.message(), "PTY read count must be a positive integer");
        sh.close().await;
    })
    .await;
}

/// Output that arrives between two calls is not lost: an empty poll (no text, no Enter) shows
/// what the still-running command printed after the last result, and settles at once when the
/// shell is back at its prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_shows_output_that_arrived_between_calls() {
    within(async {
        // A 20 s idle window: a poll that waited for it could not pass the bound below.
        let sh = Shell::open(dsh_terminal_bash::BashConfig {
            idle_silence_ms: 20_000,
            ..crate::support::quick_config()
        })
        .await;
        let r = sh
            .send_within("sleep 1.2; echo LATE-OUTPUT", true, 300)
            .await;
        assert_ne!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(!r.viewport.lines().any(|l| l == "LATE-OUTPUT"), "{r:?}");
        crate::support::wait_until("the command finished", || {
            sh.session.transcript().contains("LATE-OUTPUT\ndsh> ")
        })
        .await;
        let started = std::time::Instant::now();
        let r = sh.send_raw("", false).await;
        assert!(r.viewport.lines().any(|l| l == "LATE-OUTPUT"), "{r:?}");
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "a poll at an idle prompt must not wait for the idle window: {:?}",
            started.elapsed()
        );
        sh.close().await;
    })
    .await;
}

/// A send's own `timeout` replaces the configured deadline for that send only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sends_own_timeout_replaces_the_configured_one() {
    within(async {
        // Default config: 3 s idle silence and a 30 s deadline, so only the send's own
        // 500 ms deadline can settle this before `done` is printed.
        let sh = Shell::open(config()).await;
        let op = sh
            .session
            .start_send(dsh_terminal_core::SendRequest {
                text: "sleep 2; echo done".into(),
                submit: true,
                timeout: Some(std::time::Duration::from_millis(500)),
            })
            .unwrap();
        let r = op.done().await.unwrap();
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        assert!(!r.viewport.contains("\ndone"), "{:?}", r.viewport);
        // The next send (configured deadline) sees the command finish.
        let r = sh.send_raw("", false).await;
        assert!(r.viewport.contains("done"), "{:?}", r.viewport);
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A program that survives a SIGINT (it ignores it) is still busy at the next settled result,
/// which says so and names the stronger signal; a SIGTERM then ends it, and nothing more is
/// said. A REPL back at its prompt after handling a SIGINT is not reported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_that_survives_an_interrupt_is_said_to() {
    const SURVIVED: &str = "[signal: python3 is still running after SIGINT";
    within(async {
        let sh = Shell::open(quick_config()).await;
        let r = sh
            .send_raw(
                "python3 -c \"import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); \
                 print('ign' + 'oring', flush=True); time.sleep(1000)\"",
                true,
            )
            .await;
        assert!(r.viewport.contains("ignoring"), "{r:?}");
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh.send_within("", false, 1500).await;
        assert!(r.notices.iter().any(|n| n.starts_with(SURVIVED)), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.contains("terminal_signal SIGTERM")),
            "{r:?}"
        );
        sh.session.signal(TerminalSignal::Sigterm).unwrap();
        let r = sh.send("echo after").await;
        assert!(r.viewport.lines().any(|l| l == "after"), "{r:?}");
        assert!(
            !r.notices.iter().any(|n| n.starts_with("[signal:")),
            "{r:?}"
        );
        // A REPL that handles the interrupt and reads again is at its prompt, not stuck.
        sh.send("python3 -q").await;
        sh.send_raw("import time; time.sleep(1000)", true).await;
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh.send_within("", false, 5000).await;
        assert!(
            !r.notices.iter().any(|n| n.starts_with("[signal:")),
            "{r:?}"
        );
        // Nor is one that handled it and runs the next line it was sent: that line keeps it
        // busy (the advice to send SIGTERM would have ended the REPL and its state).
        sh.send_raw("time.sleep(1000)", true).await;
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh.send_within("time.sleep(1000)", true, 1500).await;
        assert!(r.viewport.contains("KeyboardInterrupt"), "{r:?}");
        assert!(
            !r.notices.iter().any(|n| n.starts_with("[signal:")),
            "{r:?}"
        );
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh.send("exit()").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// SIGTERM or SIGTSTP to the shell itself (nothing else in the foreground) goes, and changes
/// nothing, while the shell ignores it, as an interactive shell does; once a trap of the
/// session's catches it, it is refused (the trap would run, and may end the session) and the
/// shell stays as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_the_shell_traps_is_refused_while_the_shell_holds_the_terminal() {
    within(async {
        let sh = Shell::open(config()).await;
        for (signal, name) in [
            (TerminalSignal::Sigterm, "TERM"),
            (TerminalSignal::Sigtstp, "TSTP"),
        ] {
            let s = sh.session.signal(signal).unwrap();
            assert!(s.delivered && s.shell_targeted, "{signal}: {s:?}");
            sh.send(&format!("trap 'echo trapped; exit 7' {name}"))
                .await;
            let e = sh.session.signal(signal).unwrap_err();
            assert_eq!(e.code(), TerminalErrorCode::Signal, "{e}");
            assert!(e.message().contains(&format!("`kill -{name} $$`")), "{e}");
            let r = sh.send("echo still-$((6*7))").await;
            assert!(
                r.viewport.lines().any(|l| l == "still-42"),
                "{signal}: {r:?}"
            );
            assert!(!r.viewport.contains("trapped"), "{signal}: {r:?}");
            sh.send(&format!("trap - {name}")).await;
        }
        sh.close().await;
    })
    .await;
}
