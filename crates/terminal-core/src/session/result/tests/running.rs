//! Notices for a program still running when the send settled on silence or its deadline:
//! what to do next, for a program alone, one of a longer command line, and a REPL's statement.

use super::*;

#[test]
fn a_program_quiet_at_the_idle_window_gets_next_steps() {
    let quiet = SettleFacts {
        foreground: Some("python3".to_owned()),
        ..facts(Settle::Idle)
    };
    insta::assert_snapshot!("quiet_program", assemble(quiet).notices.join("\n"));
    let at_deadline = SettleFacts {
        foreground: Some("python3".to_owned()),
        ..facts(Settle::Timeout)
    };
    insta::assert_snapshot!(
        "still_running_at_deadline",
        assemble(at_deadline).notices.join("\n")
    );
    // Ended by a cancel before its text went in: the program running still runs, the
    // send's deadline did not pass.
    let cancelled = SettleFacts {
        foreground: Some("sleep".to_owned()),
        cancelled_unwritten: true,
        ..facts(Settle::Timeout)
    };
    insta::assert_snapshot!(
        "still_running_after_cancel",
        assemble(cancelled).notices.join("\n")
    );
    let reading = SettleFacts {
        foreground: Some("ssh".to_owned()),
        idle_reading: true,
        ..facts(Settle::Idle)
    };
    insta::assert_snapshot!("idle_reading", assemble(reading).notices.join("\n"));
    // Said elsewhere, or not the case: text it has not read, a full-screen program, the
    // shell itself, a prompt.
    for facts in [
        SettleFacts {
            foreground: Some("python3".to_owned()),
            input_unread: true,
            ..facts(Settle::Idle)
        },
        SettleFacts {
            foreground: Some("watch".to_owned()),
            alternate: true,
            ..facts(Settle::Idle)
        },
        facts(Settle::Idle),
        SettleFacts {
            foreground: Some("python3".to_owned()),
            ..facts(Settle::StdinWait)
        },
    ] {
        let notices = assemble(facts).notices.join("\n");
        assert!(!notices.contains("[idle:"), "{notices}");
    }
}

/// A REPL running a statement, however the command line started it: SIGINT interrupts the
/// statement and the REPL stays (not "stop the whole line").
#[test]
fn a_repl_still_running_a_statement_is_said_to_keep_its_state() {
    for reason in [Settle::Idle, Settle::Timeout] {
        let repl = SettleFacts {
            foreground: Some("python3".to_owned()),
            in_command_line: true,
            runs_a_repl: true,
            ..facts(reason)
        };
        insta::assert_snapshot!(
            format!("repl_statement_{reason:?}"),
            assemble(repl).notices.join("\n")
        );
    }
}

#[test]
fn a_program_of_a_longer_command_line_is_said_to_be_one() {
    for reason in [Settle::Idle, Settle::Timeout] {
        let in_loop = SettleFacts {
            foreground: Some("sleep".to_owned()),
            in_command_line: true,
            ..facts(reason)
        };
        insta::assert_snapshot!(
            format!("in_command_line_{reason:?}"),
            assemble(in_loop).notices.join("\n")
        );
    }
    // A line that put commands in the background with `&`: SIGINT leaves them running.
    let with_jobs = SettleFacts {
        foreground: Some("sleep".to_owned()),
        in_command_line: true,
        line_started_jobs: true,
        ..facts(Settle::Timeout)
    };
    insta::assert_snapshot!(
        "in_command_line_with_jobs",
        assemble(with_jobs).notices.join("\n")
    );
}
