//! Notices for a program that reads a line with no REPL prompt before the cursor: with no
//! prompt at all, and a REPL statement's own read with no prompt or at a prompt of its own.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_line_read_with_no_prompt_is_said_to_take_the_next_send() {
    let shell = SettleFacts {
        line_without_prompt: true,
        ..facts(Settle::StdinWait)
    };
    insta::assert_snapshot!("line_without_prompt", assemble(shell).notices.join("\n"));
    let program = SettleFacts {
        line_without_prompt: true,
        foreground: Some("python3".to_owned()),
        ..facts(Settle::StdinWait)
    };
    // A program may read to the end of its input (`sys.stdin.read()`): how to end it too.
    insta::assert_snapshot!(
        "line_without_prompt_program",
        assemble(program).notices.join("\n")
    );
    // A filter known to read to the end of its input has its own notice, and only that.
    let filter = SettleFacts {
        line_without_prompt: true,
        reads_to_end: true,
        foreground: Some("cat".to_owned()),
        ..facts(Settle::StdinWait)
    };
    let notices = assemble(filter).notices;
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].contains("until end of input"), "{notices:?}");
}

/// A reader of a counted amount (`head -c 5`) is named with what it takes, not as a line
/// reader that may read to the end of its input.
#[test]
fn a_counted_read_is_named_with_what_it_takes() {
    let head = SettleFacts {
        line_without_prompt: true,
        foreground: Some("head".to_owned()),
        counted_read: Some(crate::session::stream_reader::CountedRead::Bytes(5)),
        ..facts(Settle::StdinWait)
    };
    let notices = assemble(head).notices;
    assert_eq!(notices.len(), 1, "{notices:?}");
    insta::assert_snapshot!("counted_read", notices[0]);
}

/// A read with no prompt that a REPL's statement made is said to be the statement's, with the
/// REPL not at its prompt: the next send's first line is its input, not a statement.
#[test]
fn a_statements_read_with_no_prompt_is_told_from_the_repls_prompt() {
    let read = SettleFacts {
        line_without_prompt: true,
        statement_read: true,
        foreground: Some("python3".to_owned()),
        ..facts(Settle::StdinWait)
    };
    let notices = assemble(read).notices;
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].starts_with(
            "[input: a statement python3 runs waits for a line of input with no prompt"
        ),
        "{notices:?}"
    );
    assert!(notices[0].contains("not at its own prompt"), "{notices:?}");
}

/// A statement's read at a prompt of its own is named with that prompt, as the statement's.
#[test]
fn a_statements_read_at_its_own_prompt_is_named() {
    let read = SettleFacts {
        statement_read_prompt: Some("...".to_owned()),
        foreground: Some("python3".to_owned()),
        ..facts(Settle::StdinWait)
    };
    let notices = assemble(read).notices;
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].starts_with(
            "[input: a statement python3 runs waits for a line of input at its own prompt `...`"
        ),
        "{notices:?}"
    );
}
