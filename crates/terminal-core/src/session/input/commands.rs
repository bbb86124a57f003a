//! Command lines typed at the shell's prompt that the send looks into: whether one hands the
//! line editor a command at all, continues a stopped job, resets the terminal on purpose, or
//! makes the shell end at the first failure (errexit, a trap on `ERR` that exits).

use std::collections::VecDeque;

use super::here_documents::{HereDocument, here_document};

/// Whether `text` (+ Enter when `submit`) hands the shell's line editor a command to run: a
/// completed line that is not blank or a comment, and no control key (an interrupt or
/// end-of-file key may discard the line instead).
pub(in crate::session) fn submits_a_command(text: &str, submit: bool) -> bool {
    if text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return false;
    }
    let completed = if submit {
        text
    } else {
        text.rfind(['\n', '\r']).map_or("", |end| &text[..end])
    };
    completed
        .split(['\n', '\r'])
        .any(|line| !holds_no_command(line))
}

/// Whether a line typed at a shell holds no command: blank, or a comment (`# …`).
#[must_use]
pub fn holds_no_command(line: &str) -> bool {
    let line = line.trim();
    line.is_empty() || line.starts_with('#')
}

/// Whether the command line `line` (trimmed) only continues a stopped job in the foreground:
/// `fg` (with a job spec: `fg %1`, `fg %python3`) or a job spec alone (`%1`, `%+`, `%`). The
/// program continued holds the terminal as it did when it stopped.
pub(in crate::session) fn continues_a_job(line: &str) -> bool {
    let mut words = line.split_whitespace();
    let spec = |word: &str| word.starts_with('%') && !word.contains(['&', ';', '|']);
    match (words.next(), words.next(), words.next()) {
        (Some("fg"), None, None) => true,
        (Some("fg"), Some(job), None) | (Some(job), None, None) => spec(job),
        _ => false,
    }
}

/// Whether the command line `line` resets the terminal on purpose (`reset`, `tset`, `tput
/// reset`, `tput init`, `stty sane`, as its first command): the modes it leaves are the ones
/// it meant to set, and the shell's setting back the session's needs no advice.
pub(in crate::session) fn resets_the_terminal(line: &str) -> bool {
    let command = line.split([';', '&', '|']).next().unwrap_or_default();
    let words: Vec<&str> = command.split_whitespace().collect();
    matches!(
        words.as_slice(),
        ["reset" | "tset", ..] | ["tput", "reset" | "init", ..] | ["stty", "sane", ..]
    )
}

/// Whether `text`, typed at the shell's prompt, turns on errexit in the shell itself: a
/// `set` command of its own (at a line's start or after `;`, `&&`, `||`, `{`) with an option
/// word holding `e` (`set -e`, `set -euo pipefail`) or `-o errexit`. A subshell's or another
/// program's (`( set -e; … )`, `bash -c 'set -e; …'`) is not the shell's.
pub(in crate::session) fn turns_on_errexit(text: &str) -> bool {
    command_lines(text)
        .flat_map(|line| line.split([';', '&', '|']))
        .map(|command| command.trim_start().trim_start_matches(['{', ' ']))
        .filter_map(|command| command.strip_prefix("set "))
        .any(|args| {
            let mut words = args.split_whitespace();
            while let Some(word) = words.next() {
                if word == "--" {
                    return false;
                } else if word == "-o" {
                    if words.next() == Some("errexit") {
                        return true;
                    }
                } else if word.starts_with('-') && !word.starts_with("--") && word.contains('e') {
                    return true;
                } else if !word.starts_with(['-', '+']) {
                    return false;
                }
            }
            false
        })
}

/// Whether `text`, typed at the shell's prompt, sets a trap of the shell's own on `ERR` whose
/// action exits (`trap 'exit 3' ERR`, `trap 'echo failed; exit 1' ERR`): the first command
/// that fails then ends the shell, as errexit does. A `trap` command at a line's start or
/// after `;`, `&&`, `||`, `{`, `then`, `else`, `do`, with `exit` among the words before an
/// `ERR` word; a subshell's
/// or another program's (`( trap … ERR; … )`, `bash -c '…'`) is not the shell's.
pub(in crate::session) fn sets_an_exiting_err_trap(text: &str) -> bool {
    command_lines(text).any(|line| {
        let mut rest = line;
        while let Some(at) = rest.find("trap ") {
            let before = rest[..at].trim_end();
            // A command starts a line, follows a list's operator or `{`, or a compound
            // command's `then`, `else` or `do` (`if true; then trap 'exit 3' ERR; fi`).
            let keyword = before
                .rsplit(|c: char| c.is_whitespace() || c == ';')
                .next()
                .is_some_and(|w| matches!(w, "then" | "else" | "do"));
            let starts_command = before.is_empty()
                || (before.ends_with([';', '&', '|', '{']) || keyword)
                    && !before.ends_with("|&")
                    && !before.contains(['(', '\'', '"']);
            let after = &rest[at + "trap ".len()..];
            let words: Vec<&str> = after
                .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ';'))
                .filter(|w| !w.is_empty())
                .collect();
            if starts_command
                && let Some(err) = words.iter().position(|w| *w == "ERR")
                && words[..err].contains(&"exit")
            {
                return true;
            }
            rest = after;
        }
        false
    })
}

/// The lines of `text` the shell reads as commands: not the bodies of the here-documents its
/// lines open (`cat > run.sh <<'EOF'` … `EOF`: a script written to a file, whose `set -e` or
/// `trap … ERR` is not the shell's).
fn command_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut pending: VecDeque<HereDocument> = VecDeque::new();
    text.split(['\n', '\r']).filter(move |line| {
        let line = line.as_bytes();
        if let Some(doc) = pending.front() {
            if doc.ends_at(line) {
                pending.pop_front();
            }
            return false;
        }
        let mut at = 0;
        while let Some(found) = line[at..].windows(2).position(|w| w == b"<<") {
            let start = at + found + 2;
            at = if line.get(start) == Some(&b'<') {
                start + 1
            } else {
                here_document(line, start, &mut pending)
            };
        }
        true
    })
}
