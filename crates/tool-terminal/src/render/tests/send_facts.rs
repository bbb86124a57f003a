//! The facts lines of a `terminal_send` result: their order between the wait and the session
//! status, the input-mode and notice lines, earlier commands' exit codes, and what a cut
//! viewport stands for.

use super::*;

#[test]
fn send_facts_sit_between_wait_and_session() {
    let mut result = send(
        "echo hi\nhi\ndsh> ",
        WaitReason::StdinRead,
        SessionStatus::Running,
        false,
    );
    result.exit_code = Some(0);
    insta::assert_snapshot!("send_with_exit", render_send(&result, CAP));
    result.exit_code = None;
    result.foreground = Some("python3".into());
    result.viewport = "python3 -q\n>>> ".into();
    insta::assert_snapshot!("send_with_foreground", render_send(&result, CAP));
    result.foreground = Some("sudo".into());
    result.input_mode = InputMode::EchoOff;
    result.viewport = "[sudo] password for agent: ".into();
    insta::assert_snapshot!("send_echo_off", render_send(&result, CAP));
    result.foreground = None;
    result.input_mode = InputMode::Continuation;
    result.viewport = "cat <<EOF\n> ".into();
    insta::assert_snapshot!("send_continuation", render_send(&result, CAP));
    // The engine's notice naming what keeps the command open stands for the general line.
    result.viewport = "echo 'it's fine'\n> ".into();
    result.notices = vec![format!(
        "{}the command has not run yet: the ' at the end of `echo 'it's fine'` (line 1) opened a quoted string that no ' has closed; close the string (send its rest, ending with '), or send SIGINT to cancel the whole command]",
        dsh_terminal_core::OPEN_COMMAND_NOTICE
    )];
    insta::assert_snapshot!("send_continuation_named", render_send(&result, CAP));
    result.notices = Vec::new();
    result.foreground = Some("python3.13".into());
    result.viewport = "import sys\n... print(sys.version_info[:2])\n... ".into();
    insta::assert_snapshot!("send_repl_continuation", render_send(&result, CAP));
    result.foreground = Some("node".into());
    result.viewport = "function h(a) {\n...   return a + 1;\n... ".into();
    insta::assert_snapshot!("send_node_continuation", render_send(&result, CAP));
    result.foreground = None;
    result.input_mode = InputMode::SingleKey;
    result.viewport = "read -n 1 -p 'Proceed? [y/N] ' a\nProceed? [y/N] ".into();
    insta::assert_snapshot!("send_single_key", render_send(&result, CAP));
    result.foreground = Some("node".into());
    result.input_mode = InputMode::Continuation;
    result.foreground = Some("sqlite3".into());
    result.input_mode = InputMode::StatementContinuation;
    result.viewport = "select 1,\n   ...> ".into();
    insta::assert_snapshot!("send_statement_continuation", render_send(&result, CAP));
    result.input_mode = InputMode::Continuation;
    result.foreground = None;
    result.input_mode = InputMode::AlternateScreen;
    result.foreground = Some("less".into());
    result.viewport = "line 1\nline 2\n(END)".into();
    result.wait_reason = WaitReason::InferredIdle;
    insta::assert_snapshot!("send_alternate_screen", render_send(&result, CAP));
    // A full-screen program's blank top rows are where its lines are: kept.
    result.foreground = Some("vim".into());
    result.viewport = "\n\nthird line\n~\n\n".into();
    assert!(
        render_send(&result, CAP).starts_with("\n\nthird line\n~\n[wait: inferred_idle]"),
        "{}",
        render_send(&result, CAP)
    );
    let exited = SendResult {
        exit_code: None,
        ..send(
            "exit 3\n",
            WaitReason::SessionExit,
            SessionStatus::Exited {
                exit_code: Some(3),
                signal: None,
            },
            false,
        )
    };
    insta::assert_snapshot!("send_session_exit", render_send(&exited, CAP));
}

#[test]
fn notices_come_after_the_facts_and_before_the_session_status() {
    let result = SendResult {
        exit_code: Some(0),
        notices: vec![
            "[limit: this session reached its cap of 48 processes; new processes were refused (fork: Resource temporarily unavailable). End what keeps starting processes; the cap is the operator's setting]".to_owned(),
        ],
        ..send(
            "make -j\nbash: fork: retry: Resource temporarily unavailable\ndsh> ",
            WaitReason::StdinRead,
            SessionStatus::Running,
            false,
        )
    };
    insta::assert_snapshot!("send_with_notice", render_send(&result, CAP));
}

#[test]
fn earlier_exit_codes_come_before_the_last_commands() {
    let result = SendResult {
        exit_code: Some(0),
        earlier_exits: exits([1]),
        ..send(
            "echo B\nA\ndsh> echo B\nB\ndsh> ",
            WaitReason::StdinRead,
            SessionStatus::Running,
            false,
        )
    };
    insta::assert_snapshot!("send_with_earlier_exits", render_send(&result, CAP));
}

#[test]
fn many_earlier_exit_codes_are_counted_with_the_failed_ones_named() {
    let result = SendResult {
        exit_code: Some(2),
        earlier_exits: exits((1..=29).map(|i| i % 3)),
        ..send(
            "dsh> ",
            WaitReason::StdinRead,
            SessionStatus::Running,
            false,
        )
    };
    insta::assert_snapshot!("send_with_many_earlier_exits", render_send(&result, CAP));
    let result = SendResult {
        earlier_exits: exits((0..60).map(|i| i % 2)),
        ..result
    };
    let out = render_send(&result, CAP);
    assert!(
        out.contains("60 finished, 30 exited 0, 30 failed (#2 exit 1, #4 exit 1,"),
        "{out}"
    );
    assert!(out.contains("#40 exit 1, and 10 more)]"), "{out}");
}

/// The statuses as the terminal reports them, oldest first.
fn exits(codes: impl IntoIterator<Item = i32>) -> EarlierExits {
    let mut e = EarlierExits::default();
    for code in codes {
        e.finished += 1;
        if code != 0 {
            e.failed += 1;
            e.failures.push(EarlierFailure {
                position: e.finished,
                exit_code: code,
            });
        }
    }
    e
}

#[test]
fn earlier_commands_are_counted_exactly_past_a_thousand() {
    // One failure among 1500 (a long pasted script): named, not lost.
    let one = SendResult {
        exit_code: Some(0),
        earlier_exits: exits(std::iter::once(1).chain(std::iter::repeat_n(0, 1499))),
        ..send(
            "dsh> ",
            WaitReason::StdinRead,
            SessionStatus::Running,
            false,
        )
    };
    let out = render_send(&one, CAP);
    assert!(
        out.contains(
            "[earlier commands in this output: 1500 finished, 1499 exited 0, 1 failed (#1 exit 1)]"
        ),
        "{out}"
    );
    // More failures than the terminal keeps positions for: the count stays exact, the
    // named ones are the kept (newest) ones, and the result says the first are not named.
    let mut many = exits((1..=3000).map(|i| i32::from(i > 1000)));
    many.failures.drain(..1000);
    let out = render_send(
        &SendResult {
            earlier_exits: many,
            ..one
        },
        CAP,
    );
    assert!(
        out.contains(
            "3000 finished, 1000 exited 0, 2000 failed (the first 1000 failures, all before #2001, are not kept; #2001 exit 1,"
        ),
        "{out}"
    );
    assert!(out.contains("#2020 exit 1, and 980 more)]"), "{out}");
}

#[test]
fn a_cut_viewport_says_how_much_output_it_stands_for() {
    let result = SendResult {
        output_bytes: 20_000_000,
        ..send(
            "y\ny\ndsh> ",
            WaitReason::StdinRead,
            SessionStatus::Running,
            true,
        )
    };
    insta::assert_snapshot!("send_truncated_with_volume", render_send(&result, CAP));
}

/// A cap too small for every fact leaves whole fact lines out, longest first, and keeps the
/// wait reason, the exit status and the truncation marker whole: no line is cut in two. The
/// session status goes before the exit status (`[wait: …]` already says it runs).
#[test]
fn a_small_cap_leaves_whole_fact_lines_out() {
    let mut result = send(
        &"x\n".repeat(300),
        WaitReason::StdinRead,
        SessionStatus::Running,
        true,
    );
    result.exit_code = Some(0);
    result.output_bytes = 100_000;
    let full = render_send(&result, usize::MAX);
    let full_lines: Vec<&str> = full.lines().collect();
    for cap in [64, 80, 100, 120, 160] {
        let text = render_send(&result, cap);
        assert!(text.len() <= cap, "{cap}: {text:?}");
        let ending = if cap == 64 {
            "\n[exit: 0]\n[output truncated]"
        } else {
            "\n[exit: 0]\n[session: running]\n[output truncated]"
        };
        assert!(text.ends_with(ending), "{cap}: {text:?}");
        assert!(text.contains("[wait: stdin_read]\n"), "{cap}: {text:?}");
        for line in text.lines().filter(|l| l.starts_with('[')) {
            assert!(
                full_lines.contains(&line),
                "{cap}: {line:?} is cut in {text:?}"
            );
        }
    }
    assert!(render_send(&result, 100).contains("[exit: 0]"));
}

/// A heredoc too long for the result: the lines the cap left out of the middle are all its
/// echo, so they count in the echo's one marker, and the `[output: …]` line says what they
/// were (it said only part of the output was shown, as if the command's was lost).
#[test]
fn lines_the_cap_left_out_of_a_long_echo_are_said_to_be_echo() {
    let body: Vec<String> = (1..=1200)
        .map(|i| format!("row {i:04}: {}", "x".repeat(40)))
        .collect();
    let typed = format!("cat > f.txt <<'EOF'\n{}\nEOF\nwc -l f.txt", body.join("\n"));
    let echo: String = body.iter().map(|l| format!("> {l}\n")).collect();
    let result = SendResult {
        exit_code: Some(0),
        ..send(
            &format!("dsh> cat > f.txt <<'EOF'\n{echo}> EOF\ndsh> wc -l f.txt\n1200 f.txt\ndsh> "),
            WaitReason::StdinRead,
            SessionStatus::Running,
            false,
        )
    };
    let mut output = SendOutput::from(result);
    crate::fit::fit_send(
        &mut output,
        crate::fit::Pages {
            session_id: "pty-1",
            newest_line: None,
        },
        4000,
    );
    let text = super::render_send_typed(&output, &typed, 4000);
    assert!(text.matches("more lines echoing").count() == 1, "{text}");
    insta::assert_snapshot!("send_echo_left_out", text);
}
