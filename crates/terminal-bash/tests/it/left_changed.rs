//! A program that leaves the session changed: the terminal modes the session started with
//! come back at the prompt, or the result says what was left changed (field case C30).

use dsh_terminal_core::{InputMode, SendResult, WaitReason};

use crate::support::{Shell, config, within};

/// The viewport and the notices, as the model reads them.
fn shown(r: &SendResult) -> String {
    let mut text = r.viewport.clone();
    for notice in &r.notices {
        text.push('\n');
        text.push_str(notice);
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alternate_screen_left_on_is_given_back_at_the_prompt() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("echo old-1; echo old-2").await;
        let r = sh.send("printf '\\033[?1049h'; echo in-alt").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        insta::assert_snapshot!("alternate_screen_left_on", shown(&r));
        // Said once; the next results are plain main-screen results.
        let r = sh.send("echo at-prompt").await;
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        assert_eq!(r.viewport, "echo at-prompt\nat-prompt\ndsh> ", "{r:?}");
        // Leaving the alternate screen again replays no old lines as new.
        let r = sh.send("printf '\\033[?1049l'; echo after-leave").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.contains("after-leave"), "{r:?}");
        assert!(!r.viewport.contains("old-"), "{r:?}");
        assert!(!r.viewport.contains("at-prompt"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// The alternate screen taken by mode 47 or 1047 (which save no cursor) is given back with
/// the main screen's cursor where it was: the rows above stay as they were.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alternate_screen_taken_without_a_saved_cursor_is_given_back_in_place() {
    within(async {
        for mode in ["47", "1047"] {
            let sh = Shell::open(config()).await;
            sh.send("echo old-1; echo old-2").await;
            let command = format!("printf '\\033[?{mode}h'; echo in-alt");
            let r = sh.send(&command).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{mode}: {r:?}");
            assert_eq!(
                r.viewport,
                format!("{command}\nin-alt\ndsh> "),
                "{mode}: {r:?}"
            );
            let r = sh.send("echo at-prompt").await;
            assert_eq!(
                r.viewport, "echo at-prompt\nat-prompt\ndsh> ",
                "{mode}: {r:?}"
            );
            let transcript = sh.session.transcript();
            assert!(
                transcript.contains("old-1\nold-2\n")
                    && transcript.contains("in-alt\ndsh> echo at-prompt"),
                "{mode}: {transcript:?}"
            );
            sh.close().await;
        }
    })
    .await;
}

/// A full-screen program that dies on the alternate screen: what it last showed there (its
/// error) stays in the result and the scrollback, above the prompt on the main screen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_dying_on_the_alternate_screen_keeps_its_last_words() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("python3 -c \"import sys; sys.stdout.write('\\033[?1049h\\033[HTUI running\\n'); sys.stdout.flush(); raise SystemExit('FATAL: config missing')\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(1), "{r:?}");
        let lines: Vec<&str> = r.viewport.lines().collect();
        let tui = lines.iter().position(|l| *l == "TUI running");
        let fatal = lines.iter().position(|l| *l == "FATAL: config missing");
        assert!(tui.is_some() && fatal > tui, "{r:?}");
        assert_eq!(lines.last(), Some(&"dsh> "), "{r:?}");
        assert!(sh.session.transcript().contains("\nFATAL: config missing\n"));
        // The next result is the next command's alone.
        let r = sh.send("echo next").await;
        assert_eq!(r.viewport, "echo next\nnext\ndsh> ", "{r:?}");
        sh.close().await;
    })
    .await;
}

/// The notice every result carries while our shell's marks are gone.
fn marks_gone(r: &SendResult) -> bool {
    r.notices
        .iter()
        .any(|n| n.starts_with("[shell: prompt marks are gone"))
}

/// After `exec` of another shell, results say exit codes are unknown, and kernel evidence
/// (the shell blocked reading the terminal) still settles each send; a command typed at the
/// new shell's prompt is its command, not the answer to a `read` of ours (a notice said it
/// had not run, and to send it again).
async fn exec_replaces_the_marks(exec: &str) {
    let sh = Shell::open(config()).await;
    let r = sh.send(exec).await;
    assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
    assert_eq!(r.exit_code, None, "{r:?}");
    assert!(marks_gone(&r), "{r:?}");
    insta::assert_snapshot!("prompt_marks_gone", r.notices.join("\n"));
    for line in ["echo still-$((2+3))", "echo again > /dev/null"] {
        let r = sh.send(line).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, None, "{r:?}");
        assert!(marks_gone(&r), "{r:?}");
        assert!(!r.notices.iter().any(|n| n.starts_with("[input:")), "{r:?}");
    }
    let r = sh.send("echo still-$((2+3))").await;
    assert!(r.viewport.lines().any(|l| l == "still-5"), "{r:?}");
    sh.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_exec_bash_results_say_exit_codes_are_unknown() {
    within(exec_replaces_the_marks("exec bash --norc")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_exec_sh_results_say_exit_codes_are_unknown() {
    within(exec_replaces_the_marks("exec sh")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_exec_dash_results_say_exit_codes_are_unknown() {
    if !crate::support::installed("dash") {
        return;
    }
    within(exec_replaces_the_marks("exec dash")).await;
}

/// Inside a nested shell the results say exit codes are unknown; back in ours, the prompt and
/// exit status come with the send that returned there, and the next send's output is its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nested_shell_hides_the_marks_until_it_exits() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("bash --norc").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(marks_gone(&r), "{r:?}");
        let r = sh.send("echo inner-$((1+1))").await;
        assert!(r.viewport.lines().any(|l| l == "inner-2"), "{r:?}");
        assert_eq!(r.exit_code, None, "{r:?}");
        assert!(marks_gone(&r), "{r:?}");
        let r = sh.send("exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(!marks_gone(&r), "{r:?}");
        let r = sh.send("echo back-outer").await;
        assert!(r.viewport.lines().any(|l| l == "back-outer"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A shell running a script (or a `-c` string, or a subshell of ours) that asks for input is
/// not a nested shell: its result has no "marks are gone" notice, and our prompt and the exit
/// status come back once it ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_script_asking_for_input_is_not_a_nested_shell() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = crate::support::TempDir::new("ask-script");
        let script = dir.0.join("ask.sh");
        std::fs::write(
            &script,
            "read -r -p 'Proceed? [y/N] ' a\necho \"answer=$a\"\n",
        )
        .unwrap();
        for (ask, answer, shown) in [
            (format!("bash {}", script.display()), "y", "answer=y"),
            (format!("sh -e {}", script.display()), "n", "answer=n"),
            (
                "bash -c 'read -r -p \"Continue? \" a; echo got=$a'".to_owned(),
                "yes",
                "got=yes",
            ),
            (
                "echo hi | (read -r -p 'tty? ' x </dev/tty; echo got $x)".to_owned(),
                "z",
                "got z",
            ),
        ] {
            let r = sh.send(&ask).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{ask}: {r:?}");
            assert!(!marks_gone(&r), "{ask}: {r:?}");
            let r = sh.send(answer).await;
            assert!(r.viewport.lines().any(|l| l == shown), "{ask}: {r:?}");
            assert_eq!(r.exit_code, Some(0), "{ask}: {r:?}");
            assert!(r.notices.is_empty(), "{ask}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A shell whose stderr was sent to a file (`exec 2>file`) writes its prompts there: results
/// say so and how to undo it, no prompt mark (and so no nonce) reaches the file, and once
/// stderr is back on the terminal the marks and exit codes are too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_with_stderr_sent_away_says_so_and_keeps_its_nonce() {
    const AWAY: &str = "[shell: the shell's stderr is not the terminal";
    within(async {
        let sh = Shell::open(config()).await;
        let dir = crate::support::TempDir::new("stderr-away");
        let log = dir.0.join("errors.log");
        let r = sh.send(&format!("exec 2>'{}'", log.display())).await;
        assert!(r.notices.iter().any(|n| n.starts_with(AWAY)), "{r:?}");
        let r = sh.send("false").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, None, "{r:?}");
        assert!(r.notices.iter().any(|n| n.starts_with(AWAY)), "{r:?}");
        // Under `set -x` too, nothing of ours is traced into the file.
        sh.send("set -x").await;
        sh.send("echo traced").await;
        sh.send("set +x").await;
        let written = std::fs::read_to_string(&log).unwrap();
        assert!(!written.contains("133;"), "{written:?}");
        assert!(!written.contains("dsh="), "{written:?}");
        assert!(!written.contains("__dsh"), "{written:?}");
        assert!(written.contains("+ echo traced"), "{written:?}");
        sh.send("exec 2>/dev/tty").await;
        let r = sh.send("false").await;
        assert_eq!(r.exit_code, Some(1), "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A shell whose stdout was sent away (`exec >file`, `exec >/dev/null`) runs commands whose
/// output never reaches the terminal: every result says so and how to undo it, errors on
/// stderr still show, and once stdout is back the notice goes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_with_stdout_sent_away_says_so() {
    const AWAY: &str = "[shell: the shell's stdout is not the terminal";
    within(async {
        let sh = Shell::open(config()).await;
        let dir = crate::support::TempDir::new("stdout-away");
        let log = dir.0.join("out.log");
        let r = sh.send(&format!("exec >'{}'", log.display())).await;
        assert!(r.notices.iter().any(|n| n.starts_with(AWAY)), "{r:?}");
        let r = sh.send("echo hidden-line; ls /nonexistent-dir-zz").await;
        assert_eq!(r.exit_code, Some(2), "{r:?}");
        assert!(!r.viewport.contains("\nhidden-line"), "{r:?}");
        assert!(r.viewport.contains("nonexistent-dir-zz"), "{r:?}");
        assert!(r.notices.iter().any(|n| n.starts_with(AWAY)), "{r:?}");
        let written = std::fs::read_to_string(&log).unwrap();
        assert!(written.contains("hidden-line"), "{written:?}");
        sh.send("exec >/dev/null").await;
        let r = sh.send("echo gone").await;
        assert!(r.notices.iter().any(|n| n.starts_with(AWAY)), "{r:?}");
        sh.send("exec >/dev/tty").await;
        let r = sh.send("echo back").await;
        assert!(r.viewport.contains("\nback"), "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        // Closed, it reaches the terminal no more than sent away.
        let r = sh.send("exec 1>&-").await;
        assert!(r.notices.iter().any(|n| n.starts_with(AWAY)), "{r:?}");
        sh.send("exec 1>/dev/tty").await;
        // With stderr sent away too, both are said at once.
        let r = sh.send("exec >/dev/null 2>&1").await;
        assert!(r.notices.iter().any(|n| n.starts_with(AWAY)), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[shell: the shell's stderr is not the terminal")),
            "{r:?}"
        );
        sh.send("exec >/dev/tty 2>&1").await;
        let r = sh.send("echo again").await;
        assert!(r.viewport.contains("\nagain"), "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Output a background job printed after the prompt, its last line with no line end yet,
/// stands before the cursor on a row below the prompt's: the next command line's echo shows
/// right after it on that row (`rm -rf junkecho x`), and the result says that text is output,
/// no part of the command, which ran alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_output_before_the_cursor_is_said_to_be_no_part_of_the_command() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("(sleep 0.3; echo bg-line; printf 'rm -rf junk') &")
            .await;
        crate::support::wait_until("the job printed", || {
            sh.session.transcript().contains("\nrm -rf junk")
        })
        .await;
        let r = sh.send("echo x-$((6*7))").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "x-42"), "{r:?}");
        assert!(
            r.notices.iter().any(|n| n
                .starts_with("[screen: output a background job printed after the shell's prompt")
                && n.contains("\"rm -rf junk\"")),
            "{r:?}"
        );
        let r = sh.send("echo y-$((6*7))").await;
        assert!(r.notices.is_empty(), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Text a program pushed into the terminal's input (TIOCSTI) lands on the shell's input line
/// after the prompt: the result says so, and the next send empties the line first, so its
/// command runs alone instead of joined to that text (`rm -rf keep #ls keep`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_pushed_onto_the_input_line_never_runs_joined_to_the_next_send() {
    const FOREIGN: &str = "[input: text no send typed";
    within(async {
        let sh = Shell::open(config()).await;
        let dir = crate::support::TempDir::new("pushed-line");
        sh.send(&format!("cd '{}' && mkdir keep", dir.0.display()))
            .await;
        let r = sh
            .send(
                "python3 -c \"import fcntl,termios,os; fd=os.open('/dev/tty',os.O_RDWR); [fcntl.ioctl(fd,termios.TIOCSTI,bytes([b])) for b in b'rm -rf keep #']\" && echo pushed",
            )
            .await;
        if r.exit_code != Some(0) {
            // The kernel refuses TIOCSTI (`dev.tty.legacy_tiocsti = 0`): nothing to push.
            eprintln!("TIOCSTI is refused here: {r:?}");
            sh.close().await;
            return;
        }
        // Once the shell has shown it (on a loaded machine its line editor may echo it after
        // the result came back; the line is emptied all the same, see below).
        crate::support::wait_until("the shell shows the pushed text", || {
            sh.session.transcript().contains("dsh> rm -rf keep #")
        })
        .await;
        let r = sh.send("ls -d keep").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.contains("\nkeep\n"), "{r:?}");
        assert!(
            r.notices.iter().any(|n| n.starts_with(FOREIGN)) && shown(&r).contains("rm -rf keep #"),
            "{r:?}"
        );
        assert!(dir.0.join("keep").is_dir());
        // A line long enough to wrap, then only an Enter: cleared all the same.
        let long = format!("rm -rf keep #{}", "x".repeat(200));
        sh.send(&format!(
            "python3 -c \"import fcntl,termios,os; fd=os.open('/dev/tty',os.O_RDWR); [fcntl.ioctl(fd,termios.TIOCSTI,bytes([b])) for b in b'{long}']\""
        ))
        .await;
        // (Sent at once, the shell may not have shown the pushed text yet: it is emptied all
        // the same, and named when it was shown.)
        let r = sh.send_raw("\n", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(dir.0.join("keep").is_dir(), "{r:?}");
        // Text the agent typed without Enter stays, and its next send continues it (the
        // result quotes the line's start, and clears nothing).
        sh.send_raw("echo con", false).await;
        let r = sh.send("tinued").await;
        assert!(r.viewport.contains("\ncontinued\n"), "{r:?}");
        assert_eq!(
            r.notices,
            ["[output: the first line goes on from the unfinished line the previous result ended in: `dsh> echo con`]"],
            "{r:?}"
        );
        // Keys that leave the line empty (Ctrl-L redraws the prompt; a pager's `q` ends the
        // pager): the next command continues nothing.
        for (keys, before) in [("\u{c}", None), ("q", Some("seq 1 100 | less"))] {
            if let Some(before) = before {
                sh.send(before).await;
            }
            sh.send_raw(keys, false).await;
            let r = sh.send("echo fresh").await;
            assert!(r.viewport.contains("\nfresh\n"), "{keys:?}: {r:?}");
            assert!(
                r.notices.iter().all(|n| !n.starts_with("[output: the first line goes on")),
                "{keys:?}: {r:?}"
            );
        }
        sh.close().await;
    })
    .await;
}

/// A shell that stopped itself (`suspend`, `kill -STOP $$`) reads nothing: the result says
/// so, and the next send continues it (SIGCONT) before typing, so its command runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_shell_is_reported_and_continued_by_the_next_send() {
    const STOPPED: &str = "[shell: the session's shell itself is stopped";
    const CONTINUED: &str = "[shell: the session's shell was stopped";
    within(async {
        let sh = Shell::open(crate::support::quick_config()).await;
        // (The last one's prompt comes only after its CONT trap ran: the send waits for it.)
        for stop in [
            "suspend",
            "kill -STOP $$",
            "trap 'sleep 0.3' CONT; kill -STOP $$",
        ] {
            let r = sh.send(stop).await;
            assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
            assert!(r.notices.iter().any(|n| n.starts_with(STOPPED)), "{r:?}");
            let r = sh.send("echo resumed").await;
            assert_eq!(r.exit_code, Some(0), "{r:?}");
            assert!(r.viewport.lines().any(|l| l == "resumed"), "{r:?}");
            assert!(r.notices.iter().any(|n| n.starts_with(CONTINUED)), "{r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A shell that exits with a program's alternate screen on: the last result shows the command
/// line, then what the alternate screen held, on the main screen given back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exit_with_the_alternate_screen_on_shows_the_command_and_its_screen() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("printf '\\033[?1049h'; echo in-alt; exit 5").await;
        assert_eq!(r.wait_reason, WaitReason::SessionExit, "{r:?}");
        assert_eq!(
            r.viewport, "printf '\\033[?1049h'; echo in-alt; exit 5\nin-alt\nexit\n",
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// Field case C30's kind: a line reader (or line editor) under modes a command changed so
/// that a carriage return ends no line (`stty -icrnl`, `stty igncr`) gets the send's Enter as
/// a newline, so
/// its line ends (the Enter key's carriage return would stay in the line, `hello^M`, and the
/// reader wait on). The shell's prompt puts the session's modes back afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_ends_its_line_where_a_carriage_return_ends_none() {
    within(async {
        let sh = Shell::open(config()).await;
        for (modes, reader) in [
            ("-icrnl", "read x; echo \"got:$x\""),
            ("igncr", "python3 -c \"print('got:' + input())\""),
            // A line editor (readline, in its own modes) under `igncr` never sees a CR.
            (
                "igncr",
                "python3 -q -c \"import readline; print('got:' + input())\"",
            ),
        ] {
            let r = sh.send(&format!("stty {modes}; {reader}")).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{modes}: {r:?}");
            let r = sh.send("hello").await;
            assert!(r.viewport.contains("\ngot:hello\n"), "{modes}: {r:?}");
            assert_eq!(r.exit_code, Some(0), "{modes}: {r:?}");
            let r = sh.send("echo next").await;
            assert_eq!(r.viewport, "echo next\nnext\ndsh> ", "{modes}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// Display state a program left behind (line drawing designated, auto-wrap off, insert mode
/// on) is reset at the prompt: later results show their text as printed, whole, and TABs
/// as TABs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn display_state_left_changed_is_reset_at_the_prompt() {
    within(async {
        let sh = Shell::open(config()).await;
        for left in [
            "printf 'log\\033(0 qqq\\n'",
            "printf 'log\\033)0\\016 qqq\\n'",
            "printf '\\033[?7l'",
            "printf '\\033[4h'",
        ] {
            let r = sh.send(left).await;
            assert_eq!(r.exit_code, Some(0), "{left}: {r:?}");
            let r = sh
                .send("echo plain-text; python3 -c \"print('Z' * 200 + 'END')\"; printf 'a\\tb\\n'; seq 1 60")
                .await;
            let text = shown(&r);
            assert!(text.contains("\nplain-text\n"), "{left}: {text}");
            let joined: String = text.lines().filter(|l| l.starts_with('Z')).collect();
            assert_eq!(joined, format!("{}END", "Z".repeat(200)), "{left}: {text}");
            assert!(text.contains("\na\tb\n"), "{left}: {text}");
            assert!(text.contains("\n59\n60\ndsh> "), "{left}: {text}");
            assert!(r.notices.is_empty(), "{left}: {text}");
        }
        sh.close().await;
    })
    .await;
}

/// The shell's own `read` with the terminal left raw on the same command line (`stty raw
/// -echo; read -r x`): no carriage return ends its line, so the send's Enter goes as a
/// newline and the line is read (each send came back with nothing, the read still waiting).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shells_read_in_a_raw_terminal_takes_the_line_sent() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("stty raw -echo; read -r x; stty sane; echo \"got=$x\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("hello raw").await;
        assert!(shown(&r).contains("got=hello raw"), "{r:?}");
        let r = sh.send("echo after-raw").await;
        assert!(r.viewport.lines().any(|l| l == "after-raw"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A background job flooding the terminal over the prompt (a chatty server started with `&`)
/// never leaves the output quiet nor the prompt the newest text: a command still settles at
/// its own prompt, with its exit status, once the shell reads there again (not at the
/// deadline), and so does the next.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_flood_over_the_prompt_does_not_hold_commands_to_their_deadline() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("(while :; do echo log-line; done) &").await;
        for (i, command) in ["echo x-$((6*7))", "false"].iter().enumerate() {
            let r = sh.send_within(command, true, 30_000).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{i}: {r:?}");
            assert_eq!(r.exit_code, Some(i32::from(i == 1)), "{i}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A program asking for input while a background job floods the terminal (its log never
/// quiet) is waiting for input all the same: the send settles so, not at its deadline, and the
/// answer reaches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_asking_under_a_background_flood_is_waiting_for_input() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("(while :; do echo log-line; sleep 0.005; done) &")
            .await;
        let r = sh
            .send_within("python3 -c \"print('got', input('q? '))\"", true, 30_000)
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.foreground.as_deref(), Some("python3"), "{r:?}");
        let r = sh.send_within("yes", true, 30_000).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(sh.session.transcript().contains("got yes"), "{r:?}");
        sh.close().await;
    })
    .await;
}
