//! Several lines in one send reach the shell's line editor one at a time, as typing line after
//! line would: answers go to the program that asks, signals drop what was not typed yet, and a
//! deadline never loses a line.

use dsh_terminal_core::{BackendSession, InputMode, TerminalErrorCode, TerminalSignal, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, config, unique_id, within};

/// Several lines to the shell's line editor reach whatever reads each one, as typing line
/// after line would: the answer after a command that asks goes to it, and the commands after
/// it still run (typed ahead at once, a program switching the terminal to canonical mode
/// would take all the queued lines as one and lose the rest); a Ctrl-D line ends a reader.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_after_a_command_that_reads_go_to_it_and_the_rest_still_runs() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("read a\nAAA\necho a=$a").await;
        assert!(r.viewport.lines().any(|l| l == "a=AAA"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh.send("head -n1\nfirst\necho second-ran").await;
        assert!(r.viewport.lines().any(|l| l == "second-ran"), "{r:?}");
        let r = sh
            .send("read -p 'one? ' x; read -p 'two? ' y\n1\n2\necho \"x=$x y=$y\"")
            .await;
        assert!(r.viewport.lines().any(|l| l == "x=1 y=2"), "{r:?}");
        // Text after a Ctrl-C at the prompt: typed once the shell's new prompt is up.
        let r = sh.send("echo aaa\u{3}echo bbb").await;
        assert!(r.viewport.lines().any(|l| l == "bbb"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh.send_raw("cat\nabc\n\u{4}", false).await;
        assert_eq!(r.exit_code, Some(0), "one Ctrl-D ends cat: {r:?}");
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        // With Enter on, none follows the Ctrl-D (the shell would get it as an empty command).
        let r = sh.send("cat\nabc\n\u{4}").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh.send("echo next").await;
        assert!(r.viewport.lines().any(|l| l == "next"), "{r:?}");
        // (An empty command would show as a prompt line of its own, trailing blank trimmed.)
        let transcript = sh.session.transcript();
        assert!(
            transcript.contains("abc\ndsh> echo next\n"),
            "an Enter reached the shell: {transcript}"
        );
        // Lines with nothing reading them in between (a loop, a heredoc) are unchanged.
        let r = sh
            .send("for i in 1 2; do\n  echo n$i\ndone\ncat <<EOF\nhere\nEOF")
            .await;
        assert!(r.viewport.lines().any(|l| l == "n2"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "here"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Lines typed one at a time meet signals as typed lines would: a signal to the program an
/// earlier line started drops the lines not typed yet (a terminal's keys discard input typed
/// ahead); a Ctrl-C on a line of its own reaches the running program at once; text after a
/// Ctrl-D goes to the shell once the program the Ctrl-D ended is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_typed_one_at_a_time_meet_signals_as_typed_lines_would() {
    within(async {
        let sh = Shell::open(config()).await;
        let op = sh
            .session
            .start_send(dsh_terminal_core::SendRequest {
                text: "echo first-$((1+1))\nsleep 100\necho not-$((2+2))\necho nor-$((3+3))".into(),
                submit: true,
                timeout: None,
            })
            .unwrap();
        // Wait until the sleep runs (its line was taken up and it holds the terminal).
        while !sh.session.transcript().contains("dsh> sleep 100") {
            tokio::task::yield_now().await;
        }
        while sh
            .session
            .signal(TerminalSignal::Sigint)
            .unwrap()
            .shell_targeted
        {
            tokio::task::yield_now().await;
        }
        let r = op.done().await.unwrap();
        assert!(r.viewport.lines().any(|l| l == "first-2"), "{r:?}");
        assert_eq!(r.exit_code, Some(130), "{r:?}");
        // The result names the lines the signal dropped.
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: lines 3–4 of the input were not typed")),
            "{r:?}"
        );
        let r = sh.send("echo after").await;
        let transcript = sh.session.transcript();
        assert!(
            !transcript.contains("not-4") && !transcript.contains("nor-6"),
            "lines after the signal ran:\n{transcript}"
        );
        assert!(r.viewport.lines().any(|l| l == "after"), "{r:?}");
        // A Ctrl-C line interrupts the sleep the line before started, then the rest runs.
        let r = sh.send("sleep 100\n\u{3}echo after-ctrl-c").await;
        assert!(r.viewport.lines().any(|l| l == "after-ctrl-c"), "{r:?}");
        assert_eq!(crate::support::earlier(&r), vec![130], "{r:?}");
        // Ctrl-D ends the REPL; the text after it is the shell's.
        let r = sh.send("python3 -q\n1+1\n\u{4}echo after-eof").await;
        assert!(r.viewport.lines().any(|l| l == "after-eof"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A deadline that passes between two lines still has every line typed (ahead, after the
/// deadline): none is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_left_at_the_deadline_are_typed_ahead_not_lost() {
    let dir = std::env::temp_dir().join(format!("dsh-paced-{}", unique_id()));
    std::fs::create_dir_all(&dir).unwrap();
    let count = dir.join("count.txt");
    within(async {
        let sh = Shell::open(config()).await;
        let lines: Vec<String> = (0..60)
            .map(|i| format!("echo n{i} >> '{}'", count.display()))
            .collect();
        let op = sh
            .session
            .start_send(dsh_terminal_core::SendRequest {
                text: lines.join("\n"),
                submit: true,
                timeout: Some(std::time::Duration::from_millis(5)),
            })
            .unwrap();
        let r = op.done().await.unwrap();
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        // Poll until the prompt after the last line is back (the slot is free once the lines
        // left were written; a poll may meet the prompt of an earlier one on a loaded machine,
        // so the file says which: the test's deadline fails it if a line was lost).
        let written = || std::fs::read_to_string(&count).unwrap_or_default();
        loop {
            match sh.try_send("", false).await {
                Ok(r)
                    if r.wait_reason == WaitReason::StdinRead
                        && r.exit_code.is_some()
                        && written().lines().count() == 60 =>
                {
                    break;
                }
                Ok(_) => {}
                // Still writing the lines left (the send returned before they all went).
                Err(e)
                    if matches!(
                        e.code(),
                        TerminalErrorCode::SendActive | TerminalErrorCode::InputPending
                    ) =>
                {
                    tokio::task::yield_now().await;
                }
                Err(e) => panic!("poll failed: {e}"),
            }
        }
        let written = written();
        assert_eq!(written.lines().count(), 60, "{written}");
        sh.close().await;
    })
    .await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Lines before an interrupt key reach any reader before the key does (the terminal discards
/// what was not read when it sends the signal): a Python REPL and a nested shell run them,
/// take the key, then the text after it. Lines to a REPL go one at a time, so a line after
/// the REPL's own exit command reaches the shell, not the REPL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_before_an_interrupt_and_after_an_exit_reach_their_readers() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("python3 -q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("x = 5\nprint(x * 2)\n\u{3}print('after')").await;
        assert!(r.viewport.lines().any(|l| l == "10"), "{r:?}");
        assert!(r.viewport.contains("KeyboardInterrupt"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "after"), "{r:?}");
        let r = sh.send("print(x)").await;
        assert!(r.viewport.lines().any(|l| l == "5"), "{r:?}");
        let r = sh.send("exit()\necho after-python").await;
        assert!(r.viewport.lines().any(|l| l == "after-python"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh.send("bash --norc --noprofile").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("echo one\necho two\n\u{3}echo three").await;
        for line in ["one", "two", "three"] {
            assert!(r.viewport.lines().any(|l| l == line), "{line}: {r:?}");
        }
        let r = sh.send("exit\necho after-nested").await;
        assert!(r.viewport.lines().any(|l| l == "after-nested"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        if crate::support::installed("node") {
            let r = sh.send("node").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh.send("1+1\n.exit\necho after-node").await;
            assert!(r.viewport.lines().any(|l| l == "2"), "{r:?}");
            assert!(r.viewport.lines().any(|l| l == "after-node"), "{r:?}");
            assert_eq!(r.exit_code, Some(0), "{r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A line over the terminal's 4095-byte canonical limit that follows, in the same send, the
/// line starting the program that reads it is not typed (the kernel would cut it): the result
/// says which line and why, and the program still waits, so a short answer reaches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_line_for_a_program_an_earlier_line_started_is_refused_not_cut() {
    within(async {
        let sh = Shell::open(config()).await;
        let long = "b".repeat(5000);
        let r = sh
            .send(&format!("read -r x; echo len=${{#x}}\n{long}\necho never"))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.notices.len(), 1, "{r:?}");
        assert!(
            r.notices[0].starts_with("[input: line 2 of the input (5000 bytes)"),
            "{r:?}"
        );
        assert!(r.notices[0].contains("4095"), "{r:?}");
        // It says the reader still waits, so the next send is its answer.
        assert!(
            r.notices[0].contains("`bash` still waits for a line: your next send answers it"),
            "{r:?}"
        );
        assert!(!r.viewport.contains("bbbb"), "{r:?}");
        let r = sh.send("short").await;
        assert!(r.viewport.lines().any(|l| l == "len=5"), "{r:?}");
        assert!(!r.viewport.contains("never"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Lines to a REPL go on as soon as it took the one before and reads again at its prompt, even
/// while its own output keeps coming (a timer printing, which never redraws the prompt); a
/// REPL still busy with a line (awaiting a promise, its timer printing meanwhile) gets no
/// next line before its prompt is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_to_a_repl_that_keeps_printing_go_on_once_it_reads_again() {
    if !crate::support::installed("node") {
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        let r = sh
            .send("let n = 0; const h = setInterval(() => console.log('tick' + (++n)), 250); 0")
            .await;
        assert_ne!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh
            .send(
                "await new Promise(r => setTimeout(r, 700)); 'v' + 1\n'v' + 2\n'v' + 3\nclearInterval(h); ''",
            )
            .await;
        assert_ne!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let lines: Vec<&str> = r.viewport.lines().collect();
        let at = |text: &str| lines.iter().position(|l| l.ends_with(text));
        let (v1, v2, v3) = (at("'v1'"), at("'v2'"), at("'v3'"));
        assert!(v1.is_some() && v1 < v2 && v2 < v3, "{r:?}");
        assert!(r.viewport.contains("tick"), "{r:?}");
        let r = sh.send(".exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Text before a Ctrl-Z on the same line reaches the shell's line editor before the key, as
/// typing would: the key discards only input not read yet, so the line editor keeps `echo a`
/// and the text after the key continues it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_before_a_suspend_key_at_the_prompt_is_kept() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("echo a\u{1a}echo b").await;
        assert!(r.viewport.lines().any(|l| l == "aecho b"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A signal refused (SIGKILL to the shell itself, busy in a builtin loop it has started)
/// changes nothing: the lines of the send in progress are still all typed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_signal_keeps_the_lines_not_typed_yet() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = crate::support::TempDir::new("refused-signal");
        let go = dir.0.join("go");
        let op = sh
            .session
            .start_send(dsh_terminal_core::SendRequest {
                text: format!(
                    "t=${{EPOCHREALTIME/./}}; while (( ${{EPOCHREALTIME/./}} - t < 400000 )); do :; done; echo loop-$((6*7)); while [ ! -e '{}' ]; do :; done; echo L$((0+1))\necho L$((1+1))\necho L$((2+1))",
                    go.display()
                ),
                submit: true,
                timeout: None,
            })
            .unwrap();
        // Once the shell has run the line's builtins for a while (before, the signal would
        // wait for the line's program); the loop ends when the test says so.
        crate::support::wait_until("the loop runs", || {
            sh.session.transcript().contains("\nloop-42")
        })
        .await;
        let err = sh.session.signal(TerminalSignal::Sigkill).unwrap_err();
        assert!(err.message().starts_with("refusing to SIGKILL"), "{err:?}");
        std::fs::write(&go, "").unwrap();
        let r = op.done().await.unwrap();
        for line in ["L1", "L2", "L3"] {
            assert!(r.viewport.lines().any(|l| l == line), "{line}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A shell that reads its commands in canonical mode (dash, no line editor) gets several lines
/// one at a time too: a program the first line starts gets its answer once it asks (after
/// discarding what was typed ahead), and the line after runs in that shell.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_to_a_shell_reading_in_canonical_mode_are_typed_one_at_a_time() {
    if !crate::support::installed("dash") {
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("dash").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh
            .send(
                "python3 -c 'import termios, time; time.sleep(0.2); termios.tcflush(0, termios.TCIFLUSH); print(\"got\", input(\"ans? \"))'\nANSWER\necho after-$((2*3))",
            )
            .await;
        assert!(r.viewport.lines().any(|l| l == "got ANSWER"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "after-6"), "{r:?}");
        // A REPL a line starts reads in another mode: its lines still reach it, and the line
        // after its exit reaches dash.
        let r = sh
            .send("python3 -q\nprint(6 * 7)\nexit()\necho back-$((1+1))")
            .await;
        assert_ne!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "back-2"), "{r:?}");
        let r = sh.send("exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Several answers sent to a program already waiting at a line prompt go one at a time, each
/// once it reads again: a password prompt that follows (`getpass` turns echo off and
/// discards what was typed ahead) gets its answer, never shown, and two `read`s each get
/// theirs after their own prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_to_a_waiting_program_go_one_prompt_at_a_time() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(
                "python3 -c \"import getpass; u = input('User: '); \
                 p = getpass.getpass('Password: '); print('user=' + u, 'pwlen=' + str(len(p)))\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("alice\nsecret-pw").await;
        assert!(
            r.viewport.lines().any(|l| l == "user=alice pwlen=9"),
            "{r:?}"
        );
        assert!(!r.viewport.contains("secret-pw"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh
            .send("read -p 'A? ' a; sleep 0.2; read -p 'B? ' b; echo \"a=$a b=$b\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("1\n2").await;
        assert!(r.viewport.lines().any(|l| l == "B? 2"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "a=1 b=2"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Lines sent to a reader that takes one (the shell's `read`, a program's `input()`) are not
/// typed into the shell once that reader's command ended and the prompt is back: the shell
/// would run them as commands (a multi-line answer to a one-line prompt). The result names
/// them. Lines typed ahead of a busy command, and lines after a command at the prompt, still
/// run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_for_a_reader_that_ended_are_not_run_by_the_shell() {
    within(async {
        let dir = crate::support::TempDir::new("reader-ended");
        let planted = dir.0.join("planted");
        let sh = Shell::open(config()).await;
        for asks in [
            "read -p 'msg: ' m; echo \"got=$m\"",
            "python3 -c 'print(\"got=\" + input(\"msg: \"))'",
            // A line editor of its own in raw mode, whose answer goes one key at a time.
            "node -e \"const rl = require('readline').createInterface({ input: process.stdin, \
             output: process.stdout }); rl.question('msg: ', (a) => { console.log('got=' + a); \
             rl.close(); })\"",
        ] {
            let r = sh.send(asks).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh
                .send(&format!("hello\ntouch '{}'\necho third", planted.display()))
                .await;
            assert!(r.viewport.lines().any(|l| l == "got=hello"), "{asks}: {r:?}");
            assert!(!planted.exists(), "{asks}: {r:?}");
            assert!(
                r.notices.iter().any(|n| n.starts_with(
                    "[input: lines 2–3 of the input were not typed: what read the lines before ended"
                )),
                "{asks}: {r:?}"
            );
            assert_eq!(r.exit_code, Some(0), "{asks}: {r:?}");
        }
        // Typed ahead of a busy command: every line runs once it is done. The command runs long
        // enough that the next send starts while it does, however slow a loaded machine is
        // (with `sleep 1`, a send that started after it ended, before the prompt came back,
        // met the shell instead).
        let mut r = sh.send_within("sleep 5", true, 200).await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        // On a loaded machine the shell may not have read the line by that deadline (it then
        // still reads at its prompt, and the lines would answer it): poll until `sleep` holds
        // the terminal.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while r.foreground.as_deref() != Some("sleep") && std::time::Instant::now() < deadline {
            r = sh.send_within("", false, 100).await;
        }
        assert_eq!(r.foreground.as_deref(), Some("sleep"), "{r:?}");
        let r = sh.send("echo ahead-1\necho ahead-2").await;
        assert!(r.viewport.lines().any(|l| l == "ahead-2"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A short timed key read with no prompt, that drains keys typed ahead before a question
/// (`read -t 0.3 -n 10000 junk`, or Python's `select` with a timeout then `os.read`), takes
/// none of the send's lines: the answer waits for the question after it, and the command after
/// that runs in the shell (the answer went into the drain, and the command answered the
/// question).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_read_that_drains_typed_ahead_keys_takes_no_line() {
    within(async {
        let sh = Shell::open(config()).await;
        for drain in [
            "read -t 0.3 -n 10000 junk",
            "python3 -c \"import os, select, termios, tty\n\
             a = termios.tcgetattr(0); tty.setcbreak(0)\n\
             while select.select([0], [], [], 0.3)[0]: os.read(0, 1024)\n\
             termios.tcsetattr(0, termios.TCSADRAIN, a)\"",
        ] {
            let r = sh
                .send(&format!(
                    "bash -c 'read -p \"Name: \" n; echo processing; {}; \
                     read -p \"Confirm [y/n]: \" c; echo \"n=[$n] junk=[$junk] c=[$c]\"'\n\
                     ann\ny\necho AFTER",
                    drain.replace('\'', "'\\''")
                ))
                .await;
            assert!(
                r.viewport.lines().any(|l| l == "n=[ann] junk=[] c=[y]"),
                "{drain}: {r:?}"
            );
            assert!(r.viewport.lines().any(|l| l == "AFTER"), "{drain}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A nested shell's command line that ends with `exit` after other commands (`echo done;
/// exit`, `make && exit 0`, before a comment or a group's `}`), or a REPL's with its quit call
/// after a statement, ends it as the quit alone does: the lines after it are the outer
/// shell's and run there (they were said not to be typed, for a reader that ended).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_after_a_nested_shells_exit_at_a_line_end_reach_the_outer_shell() {
    within(async {
        let sh = Shell::open(config()).await;
        for exit in [
            "exit",
            "true && exit 0",
            "exit;  # done",
            "[ -d / ] && { exit 2; }",
        ] {
            let r = sh.send("bash --norc").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh
                .send(&format!("echo inner-$((6*7)); {exit}\necho outer-$((6*7))"))
                .await;
            assert!(r.viewport.lines().any(|l| l == "inner-42"), "{exit}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "outer-42"), "{exit}: {r:?}");
            assert!(r.notices.is_empty(), "{exit}: {r:?}");
        }
        // A REPL's quit call after a statement on the same line, too.
        let r = sh.send("python3 -q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("print('inner', 6*7); exit(3)\necho outer-$?").await;
        assert!(r.viewport.lines().any(|l| l == "outer-3"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A later line of a send that names a shell command and goes as the answer to a prompt an
/// earlier line's command showed (or to its reader, with none shown) is said to: it answered
/// the prompt and did not run. An
/// answer that is no command, heredoc lines and lines at the shell's prompt get no notice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_line_that_answered_an_earlier_lines_prompt_is_said_to() {
    within(async {
        let sh = Shell::open(config()).await;
        let answered = |r: &dsh_terminal_core::SendResult| {
            r.notices.iter().any(|n| {
                n.starts_with(
                    "[input: line 2 of the input (`echo second-line-ran`) went to the prompt `A:`",
                )
            })
        };
        let r = sh.send("read -p 'A: ' a\necho second-line-ran").await;
        assert!(r.viewport.contains("A: echo second-line-ran"), "{r:?}");
        assert!(answered(&r), "{r:?}");
        // A reader with no prompt is named instead.
        let r = sh.send("read a\necho second-line-ran").await;
        assert!(
            r.notices.iter().any(|n| n.starts_with(
                "[input: line 2 of the input (`echo second-line-ran`) went to the shell's `read`, which"
            )),
            "{r:?}"
        );
        let quiet = |r: &dsh_terminal_core::SendResult| {
            r.notices
                .iter()
                .all(|n| !n.contains("that an earlier line's command showed"))
        };
        let r = sh.send("read -p 'Name: ' n\nalice\necho \"hi $n\"").await;
        assert!(r.viewport.lines().any(|l| l == "hi alice"), "{r:?}");
        assert!(quiet(&r), "{r:?}");
        let r = sh.send("cat <<EOF\nls -la /\nEOF").await;
        assert!(r.viewport.lines().any(|l| l == "ls -la /"), "{r:?}");
        assert!(quiet(&r), "{r:?}");
        // Lines for a program that was already reading when the send began went where they
        // were meant to: a script's reads with no prompt, a nested shell's loop body.
        let r = sh
            .send("python3 -c \"print('got', input(), input(), input())\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("echo one\nls two\nthree").await;
        assert!(r.viewport.lines().any(|l| l == "got echo one ls two three"), "{r:?}");
        assert!(r.notices.iter().all(|n| !n.contains("earlier line")), "{r:?}");
        if crate::support::installed("dash") {
            sh.send("dash").await;
            let r = sh.send("for i in 1 2; do\n  echo \"n=$i\"\ndone").await;
            assert!(r.viewport.lines().any(|l| l == "n=2"), "{r:?}");
            assert!(r.notices.iter().all(|n| !n.contains("earlier line")), "{r:?}");
            sh.send("exit").await;
        }
        // Commands for a shell an earlier line started went to it as commands, and ran.
        let r = sh
            .send("bash --norc --noediting\necho \"in-$((6*7))\"\nexit")
            .await;
        assert!(r.viewport.lines().any(|l| l == "in-42"), "{r:?}");
        assert!(r.notices.iter().all(|n| !n.contains("earlier line")), "{r:?}");
        // A nested shell's continuation prompt is said to be one.
        sh.send("bash --norc").await;
        let r = sh.send("if true; then").await;
        assert_eq!(r.input_mode, InputMode::Continuation, "{r:?}");
        let r = sh.send("echo inside; fi").await;
        assert!(r.viewport.lines().any(|l| l == "inside"), "{r:?}");
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        sh.send("exit").await;
        sh.close().await;
    })
    .await;
}

/// A command line sent after a key prompt's line: the prompt takes the line's first key and
/// goes on, and the result says the rest of that line was not typed, so it did not run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_a_key_prompt_took_one_key_of_is_said_not_to_have_run() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("read -n1 -p 'Press any key to continue...' k; echo; echo \"key=$k\"\necho after-$((6*7))")
            .await;
        assert!(r.viewport.lines().any(|l| l == "key=e"), "{r:?}");
        assert!(!r.viewport.lines().any(|l| l == "after-42"), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.contains("the rest of a line of the text (`cho after-$((6*7))`)")),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}
