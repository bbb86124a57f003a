//! A shell command sent to a program that takes every key as a command: a pager (`less`,
//! `more`) or vim in its normal mode. A command line a model meant for the shell (`ls -la`
//! while `less` still shows a file, `git status` while vim is open) would run as the
//! program's commands, some with side effects (`less` takes `s` as "save the input to a file",
//! naming the file after the rest of the line; vim's `gi` inserts the rest into the file).
//! Such a send is refused before anything is typed, with the way out (quit the program first,
//! or send the keys with `submit: false`). A line that ends a prompt the program opened for a
//! line (a search begun with `/` sent without Enter; for vim, any keys sent without Enter
//! before: a `:` command line, insert mode) goes as sent, and so does any text once the keys
//! sent to vim began an insert with no ESC after it (an `i` sent without Enter, to a vim that
//! does not show its mode: see `insert_keys`).
//!
//! Likewise a filter that reads the terminal as its data to the end of input and prints to
//! the terminal (`grep median` or `sort` typed with no file): a command line would be a line
//! of its data and never run. One that writes elsewhere (`cat > run.sh`) takes any line as
//! data, commands included (a script typed into a file).

use std::path::Path;

use crate::error::TerminalError;
use crate::pty::TtyModes;

use super::super::shared::{Shared, State};
use super::super::stream_reader::reads_terminal_as_data;
use refusals::{
    choice_refusal, editor_refusal, filter_refusal, hit_enter_refusal, pending_command_refusal,
    prose_refusal, refusal,
};

/// Programs that take every key as a command and page their input (`pager`: Debian's
/// alternatives name for the system's pager).
const PAGERS: &[&str] = &["less", "more", "most", "pg", "pager"];

/// vim's family: its normal mode takes every key as a command.
const EDITORS: &[&str] = &[
    "vim",
    "vi",
    "nvim",
    "view",
    "vimdiff",
    "rvim",
    "rview",
    "vim.basic",
    "vim.tiny",
    "vim.nox",
    "vim.gtk",
    "vim.gtk3",
];

/// Whether a pager (see [`PAGERS`]) is among the live members of process group `pgid` (the
/// pager under `git log`): a key that opens its prompt (`/`, `:`) moves the cursor elsewhere.
pub(super) fn runs_a_pager(shared: &Shared, pgid: i32) -> bool {
    shared
        .processes()
        .into_iter()
        .any(|s| s.pgrp == pgid && !s.is_zombie() && PAGERS.contains(&s.comm.as_str()))
}

/// Refuses a send of `text` (+ Enter when `submit`) begun now when a pager or vim in the
/// foreground group (`fg`) reads keys (`modes` not canonical) and a line of it is a command
/// line meant for the shell (see the module docs). Every live member of the group among the
/// session's processes is asked (the pager under `git log` or after a pipeline's first
/// command ended).
///
/// # Errors
/// `InvalidRequest`, naming the program and how to leave it.
pub(super) fn check(
    st: &mut State,
    shared: &Shared,
    fg: Option<i32>,
    modes: Option<TtyModes>,
    text: &str,
    submit: bool,
) -> Result<(), TerminalError> {
    let Some(pgid) = fg.filter(|&pgid| pgid != shared.shell_pgid()) else {
        return Ok(());
    };
    // Cheap tests first (a REPL's every send comes here): a line that could be a command at
    // all, then a pager or vim among the session's processes, and only then `PATH`.
    let could_be_a_command =
        |line: &str| starts_a_command_line(line) || command_word(line).is_some() || is_prose(line);
    if !submit || !text.lines().any(could_be_a_command) {
        return Ok(());
    }
    // Not while a signal plays out (the text is for what reads after it), nor after text
    // typed on the filter's line without Enter (this goes on with it).
    if modes.is_some_and(|m| m.canonical && m.echo) {
        if st.redraw_pending.is_some() || st.typed_unended {
            return Ok(());
        }
        // vim's hit-enter prompt as it quits (E138, its viminfo not writable), in the
        // terminal's line mode by then: the line dismisses it and vim drops the rest, so
        // nothing of it runs.
        if st
            .screen
            .cursor_row_prefix()
            .is_some_and(|row| row.contains(HIT_ENTER))
            && let Some(editor) = shared
                .processes()
                .into_iter()
                .find(|s| s.pgrp == pgid && !s.is_zombie() && EDITORS.contains(&s.comm.as_str()))
        {
            return Err(hit_enter_refusal(&editor.comm, text));
        }
        let row = st.screen.cursor_row_prefix();
        return check_filter(shared, pgid, text, row.as_deref());
    }
    if modes.is_none_or(|m| m.canonical) {
        return Ok(());
    }
    let members: Vec<String> = shared
        .processes()
        .into_iter()
        .filter(|s| s.pgrp == pgid && !s.is_zombie())
        .map(|s| s.comm)
        .collect();
    let pager = members.iter().find(|comm| PAGERS.contains(&comm.as_str()));
    let editor = members.iter().find(|comm| EDITORS.contains(&comm.as_str()));
    if pager.is_none() && editor.is_none() {
        return Ok(());
    }
    let path = std::env::var("PATH").ok();
    if let Some(pager) = pager {
        // At a prompt the pager opened for a line (a key sent without Enter), the first line
        // is that line's.
        let at_prompt = st.typed_unended
            && st
                .screen
                .cursor_row_prefix()
                .is_some_and(|row| at_line_prompt(&row));
        let to_pager = if at_prompt {
            text.split_once('\n').map_or("", |(_, rest)| rest)
        } else {
            text
        };
        if names_a_command(&lines_to_the_pager(to_pager), path.as_deref()) {
            return Err(refusal(pager, text));
        }
    }
    // vim in its normal or visual mode (a mode that types text shows on the bottom row,
    // `-- INSERT --`), sent a command with arguments as a line it reads in that mode (a
    // two-letter word alone may be its keys, `dd`). Not after keys sent without Enter that
    // left the cursor on the last row: they began a `:` (or `/`) command line, which the
    // line ends. Other keys sent without Enter (`dd`, `j`) leave vim in its normal mode, as
    // do keys that ended with ESC (`ihello\u{1b}`). Nor after keys sent to this vim that
    // began an insert with no ESC after them (`i` sent without Enter, then lines of text):
    // a vim that does not show its mode (no `showmode`) is typing text though its last row
    // shows nothing (see `insert_keys`).
    if let Some(editor) = editor {
        let row = st.screen.alternate_bottom_row();
        // A question with one-key choices (vim's swap-file dialog, E325): a line with Enter
        // would answer it with its first key.
        if let Some(question) = row.as_deref().filter(|row| is_choice_question(row)) {
            return Err(choice_refusal(editor, question, text));
        }
        // Its hit-enter prompt after a message (E138 as it quits with a read-only home, a
        // `:!` command's end: on the main screen then): a key dismisses it, and the keys
        // after it run as its commands.
        let hit_enter = |row: Option<String>| row.is_some_and(|row| row.contains(HIT_ENTER));
        if (hit_enter(row.clone()) || hit_enter(st.screen.cursor_row_prefix()))
            && has_a_command_with_arguments(text, path.as_deref())
        {
            return Err(hit_enter_refusal(editor, text));
        }
        let visual = row
            .as_deref()
            .is_some_and(|row| row.trim_start().starts_with("-- VISUAL"));
        let keys_known = !st.typed_unended
            || st.typed_escape_last
            || visual
            || !st.screen.cursor_on_bottom_row();
        // Its row shows no mode, but the keys sent to it began an insert.
        let inserting = st.editor_insert == Some(pgid) && !visual;
        // A `:` command line with a command name on it already (`:wq` sent without Enter):
        // a shell command sent with Enter would run joined to it (`:wqgit status`). Not one
        // that waits for an argument (`:!`, `:e `).
        let pending = row.as_deref().filter(|row| {
            let name = row.trim_end().strip_prefix(':').unwrap_or("");
            !keys_known && !name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic())
        });
        if let Some(pending) = pending
            && has_a_command_with_arguments(text.lines().next().unwrap_or(""), path.as_deref())
        {
            return Err(pending_command_refusal(editor, pending.trim_end(), text));
        }
        let command_mode = !inserting && row.is_some_and(|row| typing_mode(&row).is_none());
        if keys_known
            && command_mode
            && has_a_command_with_arguments(&lines_in_normal_mode(text), path.as_deref())
        {
            return Err(editor_refusal(editor, text));
        }
        // Words meant as the file's text (`Initial commit` for a commit message): in the
        // normal mode `I` would begin an insert at the line's start, typing the rest without
        // its first letter, and other words would move, delete or change text.
        // Not in a send that holds an ESC: it is written as keys (`OFix the bug\n…\u{1b}:wq`).
        if keys_known
            && command_mode
            && !text.contains('\u{1b}')
            && let Some(line) = lines_in_normal_mode(text).lines().find(|l| is_prose(l))
        {
            return Err(prose_refusal(editor, line));
        }
    }
    Ok(())
}

/// Whether `line` reads as words of text, not as keys, and does not start as one of vim's
/// line prompts (`:`, `/`, `?`, `!`) or a lowercase key that begins an insert (`ifirst line`,
/// `otext below`: keys a model writes on purpose): two words or more of three letters or
/// more each (`fix: handle null values`, `2 files changed`), or one word that reads as a
/// word (`Done`, a capital and then lowercase letters; `refactor`, five letters or more with
/// two vowels: vim's keys seldom hold two, `dd`, `yyp`, `dG`). A line with an ESC in it is
/// keys (`A  # a comment` and ESC: an insert the line ends itself).
fn is_prose(line: &str) -> bool {
    let line = line.trim();
    if line.starts_with([':', '/', '?', '!', 'i', 'a', 'o']) || line.contains('\u{1b}') {
        return false;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let letters = |word: &str| word.chars().filter(|c| c.is_alphabetic()).count();
    match words.as_slice() {
        [word] if word.chars().all(char::is_alphabetic) => {
            let mut chars = word.chars();
            let capitalized = chars.next().is_some_and(char::is_uppercase)
                && chars.all(char::is_lowercase)
                && word.chars().count() >= 3;
            let vowels = word.chars().filter(|c| "aeiouyAEIOUY".contains(*c)).count();
            (capitalized && vowels >= 1) || (word.chars().count() >= 5 && vowels >= 2)
        }
        _ => words.iter().filter(|w| letters(w) >= 3).count() >= 2,
    }
}

/// The mode of vim's that types text, as its last row `row` shows it (`-- INSERT --`,
/// `-- REPLACE --`, `-- VREPLACE --`, `-- SELECT --`, which replaces the selection):
/// `insert`, `replace` or `select`; `None` for any other row (normal and visual modes, whose
/// keys are commands).
fn typing_mode(row: &str) -> Option<&'static str> {
    let mode = row.trim_start().strip_prefix("-- ")?;
    [
        ("INSERT", "insert"),
        ("REPLACE", "replace"),
        ("VREPLACE", "replace"),
        ("SELECT", "select"),
    ]
    .into_iter()
    .find_map(|(shown, name)| mode.starts_with(shown).then_some(name))
}

/// The editor of vim's family in the foreground group `fg` (not the shell's) and the mode
/// its last row shows it in when that mode types text (see [`typing_mode`]): what a send
/// types goes into the file. Asks the session's processes only when the row says so.
pub(super) fn editor_inserting(
    st: &mut State,
    shared: &Shared,
    fg: Option<i32>,
) -> Option<(String, &'static str)> {
    let pgid = fg.filter(|&pgid| pgid != shared.shell_pgid())?;
    let mode = typing_mode(&st.screen.alternate_bottom_row()?)?;
    shared
        .processes()
        .into_iter()
        .find(|s| s.pgrp == pgid && !s.is_zombie() && EDITORS.contains(&s.comm.as_str()))
        .map(|s| (s.comm, mode))
}

/// Bash's builtins and keywords: a command line may start with any of them (besides programs
/// on `PATH`).
const SHELL_WORDS: &[&str] = &[
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "case",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "coproc",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "for",
    "function",
    "getopts",
    "hash",
    "help",
    "history",
    "if",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "select",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "time",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "until",
    "wait",
    "while",
];

/// Whether a line of `text` starts, after any `NAME=value` assignments, with a word that names
/// a shell builtin or keyword, or a program on `path` (the `PATH` to search): a command line
/// meant for the shell (every line is one Enter for the pager: `G` and then `ls -la`).
pub(super) fn names_a_command(text: &str, path: Option<&str>) -> bool {
    text.lines().any(|line| {
        starts_a_command_line(line)
            || command_word(line).is_some_and(|word| {
                (SHELL_WORDS.contains(&word) && (word != "select" || is_select_loop(line)))
                    || on_path(word, path)
            })
    })
}

/// Whether `line`, starting with `select`, is bash's `select NAME [in WORDS]; do …` loop, not
/// SQL (`select 1;`, `select * from users;`) typed at a database prompt: a name, then `in` or
/// the loop's `do`.
fn is_select_loop(line: &str) -> bool {
    let mut words = line
        .split(|c: char| c.is_whitespace() || c == ';')
        .filter(|w| !w.is_empty())
        .skip_while(|w| *w != "select")
        .skip(1);
    words
        .next()
        .is_some_and(|name| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        && words.next().is_some_and(|w| w == "in" || w == "do")
}

/// The lines of `text` a pager reads: up to a line that quits it (`q`, `:q`, `ZZ`), after
/// which the lines are the shell's.
fn lines_to_the_pager(text: &str) -> String {
    let mut lines = Vec::new();
    for line in text.lines() {
        if matches!(line.trim(), "q" | "Q" | ":q" | ":Q" | "ZZ") {
            break;
        }
        lines.push(line);
    }
    lines.join("\n")
}

/// The lines of `text` vim reads in its normal mode: up to a line whose keys leave it (a `:`
/// command that quits, `ZZ`, an ESC) or may enter insert mode (a key that does anywhere in
/// the line: `Go`, `3o`, `ciw`; the lines after it are text, or the shell's); `:` commands
/// that keep it (`:w`) and other keys (`dd`, `G`) go on.
fn lines_in_normal_mode(text: &str) -> String {
    let mut lines = Vec::new();
    for line in text.lines() {
        lines.push(line);
        let t = line.trim_start();
        let leaves = if t.starts_with(':') {
            [":q", ":wq", ":x", ":cq"].iter().any(|q| t.starts_with(q))
        } else {
            t.contains(['i', 'I', 'a', 'A', 'o', 'O', 's', 'S', 'c', 'C', 'R']) || t.contains("ZZ")
        };
        if leaves || t.contains('\u{1b}') {
            break;
        }
    }
    lines.join("\n")
}

/// Whether a line of `text` is a command ([`names_a_command`]) with arguments after it.
pub(super) fn has_a_command_with_arguments(text: &str, path: Option<&str>) -> bool {
    text.lines().any(|line| {
        names_a_command(line, path)
            && line
                .split_whitespace()
                .skip_while(|word| is_assignment(word))
                .nth(1)
                .is_some()
    })
}

/// Whether `row` (the cursor row's text before the cursor) is a pager's own prompt that reads
/// a line: a search (`/`, `?`), a filter (`&`), a shell command (`!`, `|`), an option (`-`,
/// `+`), or a named prompt (`Examine: `, `log file: `). Text sent with Enter there ends that
/// line, as the model typed it without Enter before.
pub(super) fn at_line_prompt(row: &str) -> bool {
    row.starts_with(['/', '?', '&', '!', '|', '-', '+', '#']) || row.contains(": ")
}

/// Refuses `text` whose first line names a command when a filter of group `pgid` waits
/// reading the terminal as its data (see the module docs) with its output on the terminal
/// too (not `cat FILE` blocked on its file, whose standard input is still the terminal). A
/// filter asking a question (`gzip`'s `… overwrite (y or n)?` before the cursor, `cursor_row`:
/// see `stream_reader`) reads the line as its answer, as `rm -i` would, and the send goes,
/// saying so (see `waiting_prompt`).
fn check_filter(
    shared: &Shared,
    pgid: i32,
    text: &str,
    cursor_row: Option<&str>,
) -> Result<(), TerminalError> {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if !names_a_command(first, std::env::var("PATH").ok().as_deref()) {
        return Ok(());
    }
    let Some(filter) = shared
        .tty_reader(pgid)
        .and_then(crate::process::stat)
        .filter(|s| {
            !DATA_ENTRY.contains(&s.comm.as_str())
                && reads_terminal_as_data(s, cursor_row)
                && !crate::process::fd_leaves_stdin(s.pid, 1)
        })
    else {
        return Ok(());
    };
    Err(filter_refusal(&filter.comm, first))
}

/// Filters that read the terminal as data on purpose though they print to it: `tee FILE`
/// (a copy goes to the file), `xargs` (its input lines are arguments), `dd of=FILE`.
const DATA_ENTRY: [&str; 3] = ["tee", "xargs", "dd"];

/// Whether `row` (vim's last row) asks a question with one-key choices, each key marked in
/// brackets before the rest of its word (`[O]pen Read-Only, (E)dit anyway, …, (A)bort:`):
/// two such choices or more, and the row ends with `:` or `?`.
fn is_choice_question(row: &str) -> bool {
    let row = row.trim_end();
    let bytes = row.as_bytes();
    let choices = bytes
        .windows(4)
        .filter(|w| {
            matches!((w[0], w[2]), (b'(', b')') | (b'[', b']'))
                && w[1].is_ascii_alphabetic()
                && w[3].is_ascii_alphabetic()
        })
        .count();
    choices >= 2 && row.ends_with([':', '?'])
}

/// vim's hit-enter prompt, on its last row after a message it showed.
const HIT_ENTER: &str = "Press ENTER or type command to continue";

/// The first word of `line` after any `NAME=value` assignments and redirections, when it
/// could name a command: two characters or more, a letter or `_` first, then letters,
/// digits, `_`, `.`, `+` or `-` (pager commands start with `/`, `?`, `:`, `-`, `&`, `!` or a
/// count, or are one key). The word ends at a shell operator glued to it (`ls|wc`, `ls>x`,
/// `ls;pwd`), and a quoted or backslashed name counts as the name (`"ls"`, `\ls`).
fn command_word(line: &str) -> Option<&str> {
    let word = line
        .split_whitespace()
        .find(|word| !is_assignment(word) && !is_redirection(word))?;
    let word = word.trim_start_matches(['\\', '"', '\'']);
    let word = word
        .split(['|', '&', ';', '<', '>', '(', ')', '"', '\''])
        .next()
        .unwrap_or(word);
    let mut chars = word.chars();
    let first = chars.next()?;
    let ok = word.len() >= 2
        && (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-'));
    ok.then_some(word)
}

/// Whether `line` starts as only a shell command line does: a test (`[ `, `[[ `), a group
/// (`{ `), or a program named by its path from here, home or a variable (`./run.sh`,
/// `~/bin/x`, `$HOME/x`) with arguments.
fn starts_a_command_line(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("[ ")
        || line.starts_with("[[ ")
        || line.starts_with("{ ")
        || (line.starts_with(['.', '~', '$'])
            && line.contains('/')
            && line.split_whitespace().nth(1).is_some())
}

/// Whether `word` redirects (`2>/dev/null`, `>out`, `<in`).
fn is_redirection(word: &str) -> bool {
    word.trim_start_matches(|c: char| c.is_ascii_digit())
        .starts_with(['<', '>'])
}

/// Whether `word` is a shell variable assignment (`FOO=1`).
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Whether `word` names an executable file in a directory of `path` (`PATH`'s form).
fn on_path(word: &str, path: Option<&str>) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.unwrap_or_default()
        .split(':')
        .filter(|dir| !dir.is_empty())
        .any(|dir| {
            Path::new(dir)
                .join(word)
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

pub(super) mod insert_keys;
mod refusals;

#[cfg(test)]
mod tests;
