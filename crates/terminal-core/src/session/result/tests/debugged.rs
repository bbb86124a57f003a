//! Notices for a program a debugger runs (gdb's inferior, a script under pdb or `perl -d`)
//! and for a REPL continued with `fg`: SIGINT breaks into the debugger (no advice to put a
//! server in the background), what the program asks is its own read and not the debugger's
//! prompt, and a REPL continued at its prompt takes statements (no Ctrl-D advice, which
//! would end it).

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_program_still_running_under_a_debugger_is_said_to_break_into_it() {
    for (reason, cancelled) in [
        (Settle::Timeout, false),
        (Settle::Idle, false),
        (Settle::Timeout, true),
    ] {
        let debugged = SettleFacts {
            foreground: Some("sleep".to_owned()),
            debugger: Some("gdb"),
            cancelled_unwritten: cancelled,
            ..facts(reason)
        };
        let notices = assemble(debugged).notices;
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(
            notices[0].contains("sleep is still running, under the debugger gdb"),
            "{notices:?}"
        );
        assert!(
            notices[0].contains("returns to the debugger's prompt"),
            "{notices:?}"
        );
        assert!(!notices[0].contains("server"), "{notices:?}");
    }
    let pdb = SettleFacts {
        foreground: Some("python3".to_owned()),
        debugger: Some("pdb"),
        ..facts(Settle::Timeout)
    };
    insta::assert_snapshot!(assemble(pdb).notices.join("\n"), @"[timeout: python3 is still running, under the debugger pdb: poll (empty text, submit: false) to wait again, with timeoutMs for longer, or terminal_signal SIGINT to break into the debugger: it stops the program where it is and returns to the debugger's prompt, the program's state kept for the debugger's commands (print, backtrace, continue)]");
}

#[test]
fn a_debugged_programs_read_is_told_from_the_debuggers_prompt() {
    let prompted = SettleFacts {
        foreground: Some("python3".to_owned()),
        debugger: Some("pdb"),
        statement_read_prompt: Some("x?".to_owned()),
        ..facts(Settle::StdinWait)
    };
    insta::assert_snapshot!(assemble(prompted).notices.join("\n"), @"[input: the program the debugger pdb runs (python3) waits for a line of input at its own prompt `x?`, not the debugger at its prompt: the next send's first line is taken as the program's input, not as a debugger command (`p x` would be read by the program); send the line it waits for, then the debugger's commands once its prompt is back; a terminal_signal SIGINT now does not break in while the read waits (the debugger is no separate process: it only notes the signal, pdb printing `Program interrupted`, and stops the program once the read has its line), and a second SIGINT during the read can end the debugging session (pdb: `can't re-enter readline`, then post-mortem debugging with the program's state lost)]");
    // perl's debugger alike: the read goes on after SIGINT.
    let perl = SettleFacts {
        foreground: Some("perl".to_owned()),
        debugger: Some("perl -d"),
        statement_read_prompt: Some("name?".to_owned()),
        ..facts(Settle::StdinWait)
    };
    let notices = assemble(perl).notices;
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].starts_with(
            "[input: the program the debugger perl -d runs (perl) waits for a line of input at \
             its own prompt `name?`"
        ) && notices[0].contains("does not break in while the read waits")
            && !notices[0].contains("to break into the debugger"),
        "{notices:?}"
    );
    let unprompted = SettleFacts {
        foreground: Some("cat".to_owned()),
        debugger: Some("gdb"),
        line_without_prompt: true,
        statement_read: true,
        ..facts(Settle::StdinWait)
    };
    let notices = assemble(unprompted).notices;
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].starts_with(
            "[input: the program the debugger gdb runs (cat) waits for a line of input with no \
             prompt"
        ),
        "{notices:?}"
    );
    // gdb traces its inferior: SIGINT stops it in its read too.
    assert!(
        notices[0].ends_with(
            "or terminal_signal SIGINT to break into the debugger: it stops the program where it \
             is and returns to the debugger's prompt, the program's state kept for the \
             debugger's commands (print, backtrace, continue)]"
        ),
        "{notices:?}"
    );
}

#[test]
fn a_repl_continued_with_fg_is_said_to_read_at_its_unprinted_prompt() {
    let continued = SettleFacts {
        foreground: Some("python3".to_owned()),
        line_without_prompt: true,
        repl_continued: true,
        ..facts(Settle::StdinWait)
    };
    insta::assert_snapshot!(assemble(continued).notices.join("\n"), @"[input: python3 was continued with fg and reads at its own prompt, as before it was stopped, without printing that prompt again (the cursor is at the start of an empty line): the next send is taken as a statement or command at that prompt]");
}
