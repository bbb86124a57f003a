use pretty_assertions::assert_eq;

use super::*;
use crate::screen::Rendered;

mod debugged;
mod input;
mod jobs;
mod output;
mod reads;
mod running;
mod unfinished;

fn facts(reason: Settle) -> SettleFacts {
    SettleFacts {
        reason,
        rendered: Rendered {
            text: "ls\nfile\ndsh> ".to_owned(),
            truncated: false,
        },
        newest_line: Some(2),
        status: SessionStatus::Running,
        exits: EarlierExits::default(),
        last_exit_code: Some(0),
        alternate: false,
        continuation: false,
        statement_continuation: false,
        echo_off: false,
        single_key: false,
        foreground: None,
        output_bytes: 12,
        head: None,
        left_alternate: false,
        alternate_came_and_went: false,
        editor_inserting: None,
        modes_restored: false,
        marks_gone: false,
        prompt_unmarked: false,
        input_unread: false,
        reads_no_keys: false,
        signal_keys_off: false,
        shell_running_line: false,
        reads_to_end: false,
        errexit_on: false,
        errexit_ended: false,
        exiting_err_trap: false,
        keys_withheld: false,
        keys_withheld_rest: None,
        stderr_away: false,
        stdout_away: false,
        unprompted_wait: false,
        screen_mixed: false,
        rewound_lines: 0,
        lines_below_prompt: 0,
        continued_line: None,
        binary_run_continued: false,
        refused_line: None,
        untyped_after_answer: None,
        cleared_line: None,
        foreign_line: None,
        edited_line: None,
        shell_stopped: false,
        shell_continued: false,
        survived: None,
        earlier_cancel: false,
        exit_unknown: false,
        answered_password: None,
        closed: false,
        left_running: Vec::new(),
        enter_withheld: false,
        rest_withheld: false,
        promptless_mode: false,
        line_without_prompt: false,
        counted_read: None,
        statement_read: false,
        statement_read_prompt: None,
        idle_reading: false,
        in_command_line: false,
        line_started_jobs: false,
        cancelled_unwritten: false,
        entered_none: false,
        runs_a_repl: false,
        debugger: None,
        repl_continued: false,
        typed_ahead_taken: None,
        held_text_taken: None,
        output: OutputNotes::default(),
        typed_ahead_echoed: None,
        typed_unfinished: false,
        stopped_jobs: Vec::new(),
    }
}

#[test]
fn repl_continuation_prompts_are_known() {
    for row in ["...", "...:", "   ...:", "  ..."] {
        assert_eq!(
            repl_continuation(row),
            Some(ReplContinuation::Block),
            "{row:?}"
        );
    }
    for row in [
        "   ...>",
        "    ->",
        "    '>",
        "    \">",
        "/*>",
        "postgres-#",
        "app_db->",
        "db(#",
        "db'>",
        "db*#",
        "db$#",
    ] {
        assert_eq!(
            repl_continuation(row),
            Some(ReplContinuation::Statement),
            "{row:?}"
        );
    }
    for row in [
        "",
        ">>>",
        "> ",
        "Loading...",
        "... done",
        "In [2]:",
        "....",
        "sqlite>",
        "postgres=#",
        "-#",
        "a -> b",
        "x->y",
        "=>",
        "mysql>",
    ] {
        assert!(!is_repl_continuation_prompt(row), "{row:?}");
    }
}

#[test]
fn every_tier_maps_to_its_wait_reason() {
    let table = [
        (Settle::Exit, WaitReason::SessionExit),
        (Settle::Prompt, WaitReason::StdinRead),
        (Settle::Continuation, WaitReason::StdinRead),
        (Settle::StdinWait, WaitReason::StdinRead),
        (Settle::Idle, WaitReason::InferredIdle),
        (Settle::Timeout, WaitReason::Timeout),
    ];
    for (reason, expected) in table {
        assert_eq!(assemble(facts(reason)).wait_reason, expected, "{reason:?}");
    }
}

#[test]
fn exit_code_only_when_the_prompt_settled() {
    let table = [
        (Settle::Prompt, Some(0)),
        (Settle::Continuation, None),
        (Settle::StdinWait, None),
        (Settle::Idle, None),
        (Settle::Timeout, None),
        (Settle::Exit, None),
    ];
    for (reason, expected) in table {
        assert_eq!(assemble(facts(reason)).exit_code, expected, "{reason:?}");
    }
}

#[test]
fn input_mode_precedence() {
    // (reason, alternate, continuation, echo_off) → mode
    let table = [
        (Settle::Idle, false, false, false, InputMode::Normal),
        (Settle::Idle, true, true, true, InputMode::AlternateScreen),
        (Settle::Idle, false, true, true, InputMode::Continuation),
        (
            Settle::Continuation,
            false,
            false,
            true,
            InputMode::Continuation,
        ),
        (Settle::StdinWait, false, false, true, InputMode::EchoOff),
        (Settle::Exit, true, true, true, InputMode::Normal),
    ];
    for (reason, alternate, continuation, echo_off, expected) in table {
        let got = assemble(SettleFacts {
            alternate,
            continuation,
            echo_off,
            ..facts(reason)
        })
        .input_mode;
        assert_eq!(
            got, expected,
            "{reason:?} alt={alternate} cont={continuation} echo_off={echo_off}"
        );
    }
}

#[test]
fn exit_drops_the_foreground_and_keeps_viewport_and_counts() {
    let named = |reason| SettleFacts {
        foreground: Some("python3".to_owned()),
        status: SessionStatus::Exited {
            exit_code: Some(3),
            signal: None,
        },
        rendered: Rendered {
            text: "bye".to_owned(),
            truncated: true,
        },
        ..facts(reason)
    };
    let exited = assemble(named(Settle::Exit));
    assert_eq!(exited.foreground, None);
    assert_eq!(exited.viewport, "bye");
    assert!(exited.truncated);
    assert_eq!(exited.output_bytes, 12);
    assert_eq!(
        exited.session_status,
        SessionStatus::Exited {
            exit_code: Some(3),
            signal: None
        }
    );
    assert_eq!(
        assemble(named(Settle::StdinWait)).foreground.as_deref(),
        Some("python3")
    );
}

#[test]
fn notices_for_a_left_alternate_screen_and_gone_marks() {
    let both = |reason| SettleFacts {
        left_alternate: true,
        marks_gone: true,
        ..facts(reason)
    };
    assert_eq!(
        assemble(both(Settle::StdinWait)).notices,
        vec![LEFT_ALTERNATE_NOTICE, MARKS_GONE_NOTICE]
    );
    assert_eq!(
        assemble(both(Settle::Exit)).notices,
        vec![LEFT_ALTERNATE_NOTICE]
    );
    assert!(assemble(facts(Settle::StdinWait)).notices.is_empty());
    let unmarked = SettleFacts {
        prompt_unmarked: true,
        ..facts(Settle::StdinWait)
    };
    assert_eq!(assemble(unmarked).notices, vec![PROMPT_UNMARKED_NOTICE]);
    // Marks that are gone for good say so instead.
    let both = SettleFacts {
        prompt_unmarked: true,
        marks_gone: true,
        ..facts(Settle::StdinWait)
    };
    assert_eq!(assemble(both).notices, vec![MARKS_GONE_NOTICE]);
    let unread = SettleFacts {
        input_unread: true,
        foreground: Some("python3".to_owned()),
        ..facts(Settle::Idle)
    };
    insta::assert_snapshot!("input_unread", assemble(unread).notices.join("\n"));
    let no_keys = SettleFacts {
        reads_no_keys: true,
        alternate: true,
        foreground: Some("watch".to_owned()),
        ..facts(Settle::Idle)
    };
    insta::assert_snapshot!("reads_no_keys", assemble(no_keys).notices.join("\n"));
    let following = SettleFacts {
        reads_no_keys: true,
        alternate: true,
        foreground: Some("less".to_owned()),
        ..facts(Settle::Idle)
    };
    insta::assert_snapshot!(
        "reads_no_keys_less_following",
        assemble(following).notices.join("\n")
    );
    // With the terminal's signal keys off, SIGINT would go as a key nobody reads: SIGTERM.
    let raw = SettleFacts {
        reads_no_keys: true,
        signal_keys_off: true,
        alternate: true,
        foreground: Some("python3".to_owned()),
        ..facts(Settle::Idle)
    };
    insta::assert_snapshot!("reads_no_keys_raw", assemble(raw).notices.join("\n"));
    let raw_unread = SettleFacts {
        input_unread: true,
        signal_keys_off: true,
        foreground: Some("python3".to_owned()),
        ..facts(Settle::Idle)
    };
    insta::assert_snapshot!("input_unread_raw", assemble(raw_unread).notices.join("\n"));
    let running = SettleFacts {
        shell_running_line: true,
        ..facts(Settle::Timeout)
    };
    insta::assert_snapshot!("shell_running_line", assemble(running).notices.join("\n"));
    let to_end = SettleFacts {
        reads_to_end: true,
        foreground: Some("cat".to_owned()),
        ..facts(Settle::StdinWait)
    };
    insta::assert_snapshot!("reads_to_end", assemble(to_end).notices.join("\n"));
    let shell_unread = SettleFacts {
        input_unread: true,
        ..facts(Settle::Timeout)
    };
    insta::assert_snapshot!(
        "shell_input_unread",
        assemble(shell_unread).notices.join("\n")
    );
    let away = SettleFacts {
        stderr_away: true,
        ..facts(Settle::StdinWait)
    };
    assert_eq!(assemble(away).notices, vec![STDERR_AWAY_NOTICE]);
    insta::assert_snapshot!("stderr_away", STDERR_AWAY_NOTICE);
    let stdout_away = SettleFacts {
        stdout_away: true,
        ..facts(Settle::Prompt)
    };
    assert_eq!(assemble(stdout_away).notices, vec![STDOUT_AWAY_NOTICE]);
    insta::assert_snapshot!("stdout_away", STDOUT_AWAY_NOTICE);
    let came_and_went = SettleFacts {
        alternate_came_and_went: true,
        ..facts(Settle::Prompt)
    };
    assert_eq!(
        assemble(came_and_went).notices,
        vec![ALTERNATE_CAME_AND_WENT_NOTICE]
    );
    insta::assert_snapshot!("alternate_came_and_went", ALTERNATE_CAME_AND_WENT_NOTICE);
    let inserting = SettleFacts {
        editor_inserting: Some(("vim".to_owned(), "insert")),
        ..facts(Settle::Idle)
    };
    insta::assert_snapshot!("editor_inserting", assemble(inserting).notices.join("\n"));
    let replacing = SettleFacts {
        editor_inserting: Some(("vim".to_owned(), "replace")),
        ..facts(Settle::Idle)
    };
    insta::assert_snapshot!("editor_replacing", assemble(replacing).notices.join("\n"));
    let survived = [
        crate::TerminalSignal::Sigint,
        crate::TerminalSignal::Sigterm,
    ]
    .map(|signal| {
        let facts = SettleFacts {
            survived: Some(signal),
            foreground: Some("python3".to_owned()),
            ..facts(Settle::Timeout)
        };
        assemble(facts).notices.join("\n")
    });
    insta::assert_snapshot!("survived_signal", survived.join("\n"));
    let unprompted = SettleFacts {
        unprompted_wait: true,
        foreground: Some("node".to_owned()),
        ..facts(Settle::StdinWait)
    };
    insta::assert_snapshot!("unprompted_wait", assemble(unprompted).notices.join("\n"));
    let mixed = SettleFacts {
        screen_mixed: true,
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("screen_mixed", assemble(mixed).notices.join("\n"));
    for (lines, name) in [(1, "rewound_line"), (3, "rewound_lines")] {
        let rewound = SettleFacts {
            rewound_lines: lines,
            ..facts(Settle::Idle)
        };
        insta::assert_snapshot!(name, assemble(rewound).notices.join("\n"));
    }
    let continued = SettleFacts {
        continued_line: Some("Downloading...".to_owned()),
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("continued_line", assemble(continued).notices.join("\n"));
    let long = SettleFacts {
        continued_line: Some(format!("{}tail", "x".repeat(100))),
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("continued_long_line", assemble(long).notices.join("\n"));
    let binary = SettleFacts {
        binary_run_continued: true,
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("binary_run_continued", assemble(binary).notices.join("\n"));
    for (lines, name) in [(1, "line_below_prompt"), (2, "lines_below_prompt")] {
        let below = SettleFacts {
            lines_below_prompt: lines,
            ..facts(Settle::Prompt)
        };
        insta::assert_snapshot!(name, assemble(below).notices.join("\n"));
    }
}

#[test]
fn text_no_send_typed_after_the_prompt_is_reported_and_the_prompt_counts() {
    let foreign = SettleFacts {
        foreign_line: Some("rm -rf victim #".to_owned()),
        last_exit_code: Some(0),
        ..facts(Settle::StdinWait)
    };
    let result = assemble(foreign);
    assert_eq!(result.exit_code, Some(0));
    let cleared = SettleFacts {
        cleared_line: Some(TextBeforeLine::Input("x".repeat(300))),
        ..facts(Settle::Prompt)
    };
    let output = SettleFacts {
        cleared_line: Some(TextBeforeLine::Output("rm -rf junk".to_owned())),
        ..facts(Settle::Prompt)
    };
    let notices = [
        result.notices,
        assemble(cleared).notices,
        assemble(output).notices,
    ]
    .concat();
    insta::assert_snapshot!("text_after_the_prompt", notices.join("\n"));
}

#[test]
fn a_stopped_shell_and_its_continuing_are_reported() {
    let stopped = SettleFacts {
        shell_stopped: true,
        ..facts(Settle::Idle)
    };
    let continued = SettleFacts {
        shell_continued: true,
        ..facts(Settle::Prompt)
    };
    let notices = [assemble(stopped).notices, assemble(continued).notices].concat();
    insta::assert_snapshot!("shell_stopped", notices.join("\n"));
}

#[test]
fn restored_terminal_modes_are_reported() {
    let restored = SettleFacts {
        modes_restored: true,
        last_exit_code: Some(0),
        ..facts(Settle::Prompt)
    };
    let result = assemble(restored);
    assert_eq!(result.exit_code, Some(0));
    insta::assert_snapshot!("modes_restored", result.notices.join("\n"));
}

#[test]
fn a_send_ended_by_a_close_says_so() {
    let closed = SettleFacts {
        closed: true,
        ..facts(Settle::Exit)
    };
    insta::assert_snapshot!("closed", assemble(closed).notices.join("\n"));
    // A shell that exited by itself was not closed.
    assert!(assemble(facts(Settle::Exit)).notices.is_empty());
}

#[test]
fn processes_left_running_after_the_shell_exited_are_named() {
    let names = |n: &[&str]| n.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let left = SettleFacts {
        left_running: names(&["sleep", "sleep", "python3"]),
        ..facts(Settle::Exit)
    };
    insta::assert_snapshot!("left_running", assemble(left).notices.join("\n"));
    let one = SettleFacts {
        left_running: names(&["sleep"]),
        ..facts(Settle::Exit)
    };
    insta::assert_snapshot!("left_running_one", assemble(one).notices.join("\n"));
    let many = SettleFacts {
        left_running: names(&["a", "b", "c", "d", "e", "f"]),
        ..facts(Settle::Exit)
    };
    let notice = assemble(many).notices.join("\n");
    assert!(
        notice.contains("6 processes") && notice.contains("(a, b, c, d, e, …"),
        "{notice}"
    );
    // A close stops them: its own notice says so.
    let closed = SettleFacts {
        left_running: names(&["sleep"]),
        closed: true,
        ..facts(Settle::Exit)
    };
    assert!(!assemble(closed).notices.join("\n").contains("still run"));
}

#[test]
fn an_enter_withheld_from_a_key_reader_is_said() {
    let withheld = SettleFacts {
        enter_withheld: true,
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("enter_withheld", assemble(withheld).notices.join("\n"));
    let word = SettleFacts {
        enter_withheld: true,
        rest_withheld: true,
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("rest_withheld", assemble(word).notices.join("\n"));
    let keys = SettleFacts {
        keys_withheld: true,
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("keys_withheld", assemble(keys).notices.join("\n"));
    let line = SettleFacts {
        keys_withheld: true,
        keys_withheld_rest: Some("cho after".into()),
        ..facts(Settle::Prompt)
    };
    insta::assert_snapshot!("keys_withheld_line", assemble(line).notices.join("\n"));
}

#[test]
fn lines_sent_in_a_repls_editor_mode_are_said_to_wait_for_ctrl_d() {
    let editor = SettleFacts {
        foreground: Some("node".to_owned()),
        promptless_mode: true,
        ..facts(Settle::StdinWait)
    };
    insta::assert_snapshot!("promptless_mode", assemble(editor).notices.join("\n"));
}
