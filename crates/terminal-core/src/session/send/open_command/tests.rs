//! The notices and the refusal for a command left open at our shell's continuation prompt.

use super::super::super::input::{open_construct, typed_lines};
use super::{notice_text, refusal};

/// The notice for the command typed as `text`, `lines_before` of its lines by earlier sends.
fn notice(text: &str, lines_before: Option<usize>) -> String {
    let lines = typed_lines(text.as_bytes());
    let open = open_construct(&lines).expect("an open construct");
    notice_text(&lines, &open, lines_before)
}

#[test]
fn a_command_left_open_is_named_with_what_keeps_it_open() {
    // The apostrophe that closed the quote is named as the likely cause.
    insta::assert_snapshot!(notice("echo 'it's fine'\n", None), @r#"[input: shell continuation prompt: the command has not run yet: the ' at the end of `echo 'it's fine'` (line 1) opened a quoted string that no ' has closed (the ' in `it's` ended the quote before it: inside '…' write an apostrophe as '\'', or quote the text with "…"); close the string (send its rest, ending with '), or send SIGINT to cancel the whole command]"#);
    // A here-document's line with blanks around its delimiter does not end it.
    insta::assert_snapshot!(notice("cat <<EOF\nhello\n  EOF\n", None), @"[input: shell continuation prompt: the command has not run yet: the here-document of line 1 (`cat <<EOF`) takes every line as its text until a line that is EOF alone (`  EOF` does not end it: only EOF alone on its line does); send EOF alone to end it (the command then runs), or send SIGINT to cancel the whole command]");
}

#[test]
fn lines_sent_into_an_open_command_are_said_not_to_have_run() {
    insta::assert_snapshot!(notice("echo 'it's fine'\nls /\n", Some(1)), @r#"[input: shell continuation prompt: the lines of this send did not run: the shell took them as more of the unfinished command begun by `echo 'it's fine'`, where the ' at the end of `echo 'it's fine'` (line 1) opened a quoted string that no ' has closed, so they are text of that string, not commands (the ' in `it's` ended the quote before it: inside '…' write an apostrophe as '\'', or quote the text with "…"); close the string (send its rest, ending with '), or send SIGINT to cancel the whole command (none of its lines has run)]"#);
    // A loop typed line by line: its body has not run yet, as meant.
    insta::assert_snapshot!(notice("for i in 1 2\ndo echo $i\n", Some(1)), @"[input: shell continuation prompt: the lines of this send have not run yet: the shell took them as more of the unfinished command begun by `for i in 1 2`, where the `for` of line 1 (`for i in 1 2`) waits for its `done`, so they are its body, and nothing of it runs until `done` ends it; send `done` to end it (it then runs), or send SIGINT to cancel the whole command (none of its lines has run)]");
    // Lines that opened the construct themselves: the command has not run yet.
    assert!(
        notice("echo a\necho 'b\n", Some(1)).contains("the command has not run yet"),
        "{}",
        notice("echo a\necho 'b\n", Some(1))
    );
}

#[test]
fn a_command_line_sent_into_an_open_quote_is_refused_with_the_way_out() {
    let lines = typed_lines(b"echo 'it's fine'\n");
    let open = open_construct(&lines).expect("an open quote");
    insta::assert_snapshot!(refusal(&open, &lines[0], "ls /").to_string(), @r#"nothing was typed: the shell is at its continuation prompt, still reading the command begun by `echo 'it's fine'`, where the ' at the end of `echo 'it's fine'` (line 1) opened a quoted string that no ' has closed (the ' in `it's` ended the quote before it: inside '…' write an apostrophe as '\'', or quote the text with "…"), so `ls /` would be text of that string, not a command; send SIGINT (terminal_signal) to cancel the unfinished command (none of it has run), then send the command again, or close the string first (send its rest, ending with '); to add this line to the string anyway, send it with submit: false and then an empty send"#);
}
