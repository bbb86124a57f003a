//! The errors the pager and editor guard returns: what was refused and how to go on.

use crate::error::TerminalError;

use super::HIT_ENTER;

/// The refusal of `text`, a command line ([`super::names_a_command`]) sent with Enter to the pager
/// `program` reading the terminal's keys.
pub(super) fn refusal(program: &str, text: &str) -> TerminalError {
    let line = text.lines().next().unwrap_or(text).trim();
    TerminalError::invalid(format!(
        "{program} (a pager) holds the terminal and takes every key as a command of its own: \
         `{line}` sent with Enter would run as {program} commands (some write files), not in \
         the shell, so nothing was typed; quit {program} first (send q with submit: false), \
         then send the command again; to give {program} these keys anyway, send them with \
         submit: false"
    ))
}

/// The refusal of `line`, a command line sent to `program`, a filter reading the terminal.
pub(super) fn filter_refusal(program: &str, line: &str) -> TerminalError {
    let line = line.trim();
    TerminalError::invalid(format!(
        "{program} reads its data from the terminal (its standard input) and prints to the \
         terminal: `{line}` sent now would be a line of {program}'s data, not a command, so \
         nothing was typed; end its input with \\u0004 (Ctrl-D, submit: false) or stop it \
         with terminal_signal SIGINT, then send the command again; to give {program} this line \
         as data anyway, send it with submit: false and then an empty send"
    ))
}

/// The refusal of `text`, a line sent with Enter to `program` (vim) asking `question`, a
/// question with one-key choices.
pub(super) fn choice_refusal(program: &str, question: &str, text: &str) -> TerminalError {
    let line = text.lines().next().unwrap_or(text).trim();
    TerminalError::invalid(format!(
        "{program} holds the terminal and asks a question with one-key choices (`{}`), such \
         as the dialog it shows when a swap file of the file exists (another {program} has it \
         open, or one ended without saving): `{line}` sent with Enter would answer it with its \
         first key, so nothing was typed; answer with the key of a choice sent with submit: \
         false (q quits, e edits anyway, o opens read-only, r recovers, d deletes the swap \
         file when offered), then send the command again",
        question.trim()
    ))
}

/// The refusal of `text`, a command line sent with Enter to `program` (vim) in its normal
/// mode.
pub(super) fn editor_refusal(program: &str, text: &str) -> TerminalError {
    let line = text.lines().next().unwrap_or(text).trim();
    TerminalError::invalid(format!(
        "{program} holds the terminal, and its last row shows no insert mode (no `-- INSERT \
         --`), so it is taken to be in its normal (or visual) mode, where every key is a \
         command: `{line}` \
         sent with Enter would edit the file, not run in the shell, so nothing was typed; leave \
         {program} first (send \\u001b:wq to save, or \\u001b:q! to discard, with submit: \
         true), then send the command again; to type the text into the file, enter insert mode \
         first (i with submit: false), or, if it is in insert mode without showing it, send the \
         text with submit: false"
    ))
}

/// The refusal of `text`, a shell command sent with Enter to `program` (vim) at its hit-enter
/// prompt ([`HIT_ENTER`]).
pub(super) fn hit_enter_refusal(program: &str, text: &str) -> TerminalError {
    let line = text.lines().next().unwrap_or(text).trim();
    TerminalError::invalid(format!(
        "{program} holds the terminal and waits at its \"{HIT_ENTER}\" prompt after a message \
         (read it with terminal_read): `{line}` sent now would dismiss it and run as {program} \
         commands, not in the shell, so nothing was typed; send an empty text (Enter) to go on \
         (if {program} was quitting, the shell's prompt comes back), then send the command \
         again"
    ))
}

/// The refusal of `text`, a shell command sent with Enter to `program` (vim) while its `:`
/// command line holds `pending`, sent without Enter before.
pub(super) fn pending_command_refusal(program: &str, pending: &str, text: &str) -> TerminalError {
    let line = text.lines().next().unwrap_or(text).trim();
    TerminalError::invalid(format!(
        "{program} holds the terminal, and its command line at the bottom holds `{pending}`, \
         sent without Enter: `{line}` sent with Enter would be typed after it and run as one \
         {program} command (`{pending}{line}`), not in the shell, so nothing was typed; send an \
         Enter alone (empty text, submit: true) to run `{pending}`, or \\u001b with submit: \
         false to drop it, then send the command again"
    ))
}

/// The refusal of `line`, words of text (see [`super::is_prose`]) sent with Enter to `program` (vim)
/// in its normal mode.
pub(super) fn prose_refusal(program: &str, line: &str) -> TerminalError {
    let line = line.trim();
    TerminalError::invalid(format!(
        "{program} holds the terminal, and its last row shows no insert mode (no `-- INSERT \
         --`), so it is taken to be in its normal (or visual) mode, where every key is a \
         command: `{line}` sent with Enter would run as {program} commands (its first letters \
         would move the cursor, delete, or begin an insert that drops them), not be typed into \
         the file, so nothing was typed; to type text, enter insert mode first (send i with \
         submit: false), then send the text, then \\u001b (ESC) with submit: false to go back \
         to the normal mode (\\u001b:wq with submit: true saves and quits); if it is in insert \
         mode without showing it, or these are keys meant as typed, send the text with \
         submit: false"
    ))
}
