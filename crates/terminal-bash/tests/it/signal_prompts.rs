//! A SIGINT to a program waiting at a prompt that ignores it there (`getpass` under
//! `SIG_IGN`, the shell's own `read` under `trap '' INT`): the signal's answer says the
//! program still waits at the same prompt, and the next text is refused once, since it would
//! answer that prompt (a password prompt takes a command as the password) instead of running
//! in the shell. A program that acts on the signal (ends, or a REPL back at its prompt, which
//! the answer names) gets neither, nor does a nested shell at its prompt (which ignores SIGTERM and SIGTSTP). A prompt written like a REPL's (one word and `>`: `pw> `, `Name> `) is guarded
//! alike unless the word names the program (`sqlite> ` of `sqlite3`).

use std::time::Duration;

use dsh_terminal_core::{AfterSignal, BackendSession, SessionStatus, TerminalSignal, WaitReason};

use crate::support::{Shell, TempDir, config, within};

const WITHIN: Duration = Duration::from_secs(1);

async fn signal_and_look(sh: &Shell) -> AfterSignal {
    let s = sh.session.signal(TerminalSignal::Sigint).unwrap();
    assert!(s.delivered, "{s:?}");
    sh.session.after_signal(s.target_pgid, WITHIN).await
}

/// A REPL reading again at its primary prompt after the signal.
fn back_at(program: &str, prompt: &str) -> AfterSignal {
    AfterSignal::BackAtPrompt {
        program: program.into(),
        prompt: prompt.into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_that_ignores_sigint_is_said_to_wait_on_and_takes_no_command_unasked() {
    within(async {
        let dir = TempDir::new("ignored-sigint");
        let saved = dir.0.join("tok");
        let sh = Shell::open(config()).await;
        let r = sh
            .send(&format!(
                "python3 -c \"import signal, getpass; signal.signal(signal.SIGINT, signal.SIG_IGN); open('{}', 'w').write(getpass.getpass('API token: '))\"",
                saved.display()
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(
            signal_and_look(&sh).await,
            AfterSignal::StillReading("python3".into())
        );
        let e = sh.try_send("ls /", true).await.expect_err("refused once");
        assert!(
            e.message()
                .starts_with("nothing was typed: python3 still waits for input at the same prompt (at `API token:`) after the SIGINT"),
            "{e}"
        );
        // Sent again, it is the answer.
        let r = sh.send("the-token").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(std::fs::read_to_string(&saved).unwrap(), "the-token");
        // The shell's own read under a trap that ignores SIGINT.
        let r = sh.send("trap '' INT; read -s -p 'Passphrase: ' pp; echo \"len=${#pp}\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(
            signal_and_look(&sh).await,
            AfterSignal::StillReading("the shell's read".into())
        );
        // The Ctrl-D the answer names goes at once.
        let r = sh.send_raw("\u{4}", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.contains("len=0"), "{r:?}");
        // A read that ran out since (its timeout) leaves nothing to guard: the prompt is back.
        let r = sh
            .send("read -t 2 -s -p 'PIN: ' pin; echo \"rc=$?\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(
            signal_and_look(&sh).await,
            AfterSignal::StillReading("the shell's read".into())
        );
        // Its prompt back too (printed right after the status line, with its marks).
        crate::support::wait_until("the read ran out", || {
            let transcript = sh.session.transcript();
            transcript
                .split_once("rc=142")
                .is_some_and(|(_, after)| after.contains("dsh> "))
        })
        .await;
        let r = sh.send("trap - INT; echo back-$((1+1))").await;
        assert!(r.viewport.lines().any(|l| l == "back-2"), "{r:?}");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_or_repl_that_acts_on_sigint_gets_no_guard() {
    within(async {
        let sh = Shell::open(config()).await;
        // A prompt that SIGINT ends.
        let r = sh.send("read -p 'Name: ' n").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(signal_and_look(&sh).await, AfterSignal::Settled);
        let r = sh.send("echo next-$((1+1))").await;
        assert!(r.viewport.lines().any(|l| l == "next-2"), "{r:?}");
        // A REPL back at its prompt after printing KeyboardInterrupt.
        let r = sh.send("python3 -q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(signal_and_look(&sh).await, back_at("python3", ">>>"));
        let r = sh.send("print(6*7)").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        sh.send("exit()").await;
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_written_like_a_repls_is_guarded_unless_it_names_the_program() {
    within(async {
        let dir = TempDir::new("repl-like-prompt");
        let sh = Shell::open(config()).await;
        let r = sh
            .send("python3 -c \"import signal, getpass; signal.signal(signal.SIGINT, signal.SIG_IGN); print('got', len(getpass.getpass('pw> ')))\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(
            signal_and_look(&sh).await,
            AfterSignal::StillReading("python3".into())
        );
        let e = sh.try_send("echo hi", true).await.expect_err("refused once");
        assert!(e.message().contains("(at `pw>`)"), "{e}");
        let r = sh.send("secret").await;
        assert!(r.viewport.lines().any(|l| l == "got 6"), "{r:?}");
        // A password prompt under a line of the program's own, written like a REPL's.
        let r = sh
            .send("python3 -c \"import signal, getpass; signal.signal(signal.SIGINT, signal.SIG_IGN); print('Enter the vault password:'); print('got', len(getpass.getpass('> ')))\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(
            signal_and_look(&sh).await,
            AfterSignal::StillReading("python3".into())
        );
        sh.try_send("rm -rf build", true)
            .await
            .expect_err("refused once");
        let r = sh.send("vault-pw").await;
        assert!(r.viewport.lines().any(|l| l == "got 8"), "{r:?}");
        for prompt in ["Name> ", "> "] {
            let r = sh
                .send(&format!("trap '' INT; read -p '{prompt}' v; trap - INT; echo \"v=$v\""))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert_eq!(
                signal_and_look(&sh).await,
                AfterSignal::StillReading("the shell's read".into()),
                "{prompt:?}"
            );
            sh.try_send("echo hi", true).await.expect_err("refused once");
            let r = sh.send("answer").await;
            assert!(r.viewport.lines().any(|l| l == "v=answer"), "{r:?}");
            // The same read in a bash running a `-c` string (or a script) is no nested
            // shell back at its prompt: the next command would be the read's answer.
            let r = sh
                .send(&format!("bash -c \"trap '' INT; read -p '{prompt}' v; echo v=\\$v\""))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert_eq!(
                signal_and_look(&sh).await,
                AfterSignal::StillReading("bash".into()),
                "bash -c {prompt:?}"
            );
            sh.try_send("git status", true)
                .await
                .expect_err("refused once");
            let r = sh.send("answer").await;
            assert!(r.viewport.lines().any(|l| l == "v=answer"), "{r:?}");
        }
        // sqlite3 with a database named (no REPL by its command line): its prompt names it.
        let r = sh
            .send(&format!("sqlite3 '{}'", dir.0.join("t.db").display()))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.contains("sqlite> "), "{r:?}");
        assert_eq!(signal_and_look(&sh).await, AfterSignal::Settled);
        let r = sh.send("select 6*7;").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        sh.send(".quit").await;
        sh.close().await;
    })
    .await;
}

/// A second signal the reader ignores too (SIGTERM after SIGINT, or SIGINT again) leaves it
/// waiting as the first did: still guarded, and the advice names SIGKILL once SIGTERM failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_signal_the_prompt_ignores_keeps_the_guard() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("python3 -c \"import signal, getpass; [signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)]; print('got', len(getpass.getpass('Password: ')))\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(
            signal_and_look(&sh).await,
            AfterSignal::StillReading("python3".into())
        );
        let s = sh.session.signal(TerminalSignal::Sigterm).unwrap();
        assert!(s.delivered, "{s:?}");
        assert_eq!(
            sh.session.after_signal(s.target_pgid, WITHIN).await,
            AfterSignal::StillReading("python3".into())
        );
        let e = sh.try_send("echo D", true).await.expect_err("refused once");
        assert!(
            e.message()
                .ends_with("or end python3 with terminal_signal SIGKILL"),
            "{e}"
        );
        let r = sh.send("pw").await;
        assert!(r.viewport.lines().any(|l| l == "got 2"), "{r:?}");
        // The shell's own read, SIGINT twice.
        let r = sh
            .send("trap '' INT; read -s -p 'Passphrase: ' pp; trap - INT; echo \"len=${#pp}\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        for _ in 0..2 {
            assert_eq!(
                signal_and_look(&sh).await,
                AfterSignal::StillReading("the shell's read".into())
            );
        }
        sh.try_send("echo D", true).await.expect_err("refused once");
        let r = sh.send("abc").await;
        assert!(r.viewport.lines().any(|l| l == "len=3"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A signal that is refused (SIGKILL or SIGHUP to the shell itself, at its own `read`) changes
/// nothing: the guard a signal the read ignored set still refuses the next text once (it was
/// typed into the password prompt).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_signal_keeps_the_guard() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send_within(
                "read -s -p 'Password: ' x; echo; echo \"GOT=[$x]\"",
                true,
                1_500,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let s = sh.session.signal(TerminalSignal::Sigterm).unwrap();
        assert!(s.delivered, "{s:?}");
        assert_eq!(
            sh.session.after_signal(s.target_pgid, WITHIN).await,
            AfterSignal::StillReading("the shell's read".into())
        );
        for refused in [TerminalSignal::Sigkill, TerminalSignal::Sighup] {
            sh.session.signal(refused).expect_err("refused");
        }
        sh.try_send("git push origin main", true)
            .await
            .expect_err("refused once");
        let r = sh.send("hunter2").await;
        assert!(r.viewport.lines().any(|l| l == "GOT=[hunter2]"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A Ctrl-D that reaches the shell's empty prompt (one more than `cat` needed) does not end
/// the session: bash says to use `exit`, and the shell keeps its state.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stray_ctrl_d_at_the_prompt_keeps_the_session() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("export KEEP=kept-$((6*7)); cat > /dev/null").await;
        sh.send("abc").await;
        let r = sh.send_raw("\u{4}\u{4}", false).await;
        assert_eq!(r.session_status, SessionStatus::Running, "{r:?}");
        let r = sh.send_raw("\u{4}", false).await;
        assert_eq!(r.session_status, SessionStatus::Running, "{r:?}");
        assert!(
            r.viewport.contains("Use \"exit\" to leave the shell."),
            "{r:?}"
        );
        let r = sh.send("echo $KEEP").await;
        assert!(r.viewport.lines().any(|l| l == "kept-42"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh.send("exit 3").await;
        assert_eq!(r.wait_reason, WaitReason::SessionExit, "{r:?}");
        sh.close().await;
    })
    .await;
}

/// SIGTERM or SIGTSTP to a nested shell idle at its prompt (an interactive shell ignores
/// both): it reads its next command as before, like a REPL at its prompt, so the next command
/// is not refused as an answer to a prompt that survived the signal, and the signal's answer
/// says it is at its prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nested_shell_at_its_prompt_takes_the_next_command_after_a_signal_it_ignores() {
    within(async {
        let sh = Shell::open(config()).await;
        for nested in ["bash --norc", "sh"] {
            let r = sh.send(nested).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{nested}: {r:?}");
            for (round, signal) in [TerminalSignal::Sigterm, TerminalSignal::Sigtstp]
                .into_iter()
                .enumerate()
            {
                let s = sh.session.signal(signal).unwrap();
                assert!(s.delivered, "{nested}: {s:?}");
                assert!(
                    matches!(
                        sh.session.after_signal(s.target_pgid, WITHIN).await,
                        AfterSignal::BackAtPrompt { ref program, .. } if program == "bash" || program == "sh" || program == "dash"
                    ),
                    "{nested} {signal}"
                );
                let r = sh.send(&format!("echo n{round}-$((6*7))")).await;
                assert!(
                    r.viewport.lines().any(|l| l == format!("n{round}-42")),
                    "{nested} {signal}: {r:?}"
                );
            }
            let r = sh.send("exit").await;
            assert_eq!(r.exit_code, Some(0), "{nested}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A SIGINT to the program a debugger runs (gdb's inferior, reading the terminal): it stops,
/// and the debugger, another group, reads again at its prompt: the answer says gdb is back
/// at `(gdb)` (it said only that the signal went).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_debuggers_program_stopped_by_sigint_leaves_the_debugger_at_its_prompt() {
    if !crate::support::installed("gdb") {
        eprintln!("gdb is not installed: its inferior is not exercised");
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("gdb -q -nx /bin/cat").await;
        assert!(r.viewport.ends_with("(gdb) "), "{r:?}");
        let r = sh.send("run").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(signal_and_look(&sh).await, back_at("gdb", "(gdb)"));
        // gdb asks before it quits a debugging session.
        let r = sh.send("quit").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("y").await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        sh.close().await;
    })
    .await;
}
