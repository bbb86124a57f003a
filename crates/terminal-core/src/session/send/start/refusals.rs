//! Text a line editor at its prompt would change silently, refused before anything is typed:
//! an ESC meant as a character of the text (in a string, a here-document, amid the text),
//! which it reads as the start of a key (see `input::literal_escapes`), a TAB to Python
//! 3.13's own REPL, which drops it, and a key of the shell's line editor that would take the
//! Enter after it as its own.

use crate::error::TerminalError;
use crate::pty::TtyModes;

use super::super::super::input::literal_escapes::{Syntax, literal_escape, literal_escape_error};
use super::super::super::nested_shell::is_shell_name;
use super::super::super::shared::Shared;
use super::super::python_input;

/// Refuses `text` when it holds an ESC meant as a character and goes to our shell's line
/// editor (`shell_line_editor`) or to a REPL's at its prompt (`repl_line_editor`; a nested
/// shell of foreground group `fg`, `bash --norc`, reads the shell's syntax: here-documents).
/// `Ok` otherwise.
pub(super) fn refuse_literal_escape(
    shared: &Shared,
    fg: Option<i32>,
    text: &str,
    shell_line_editor: bool,
    repl_line_editor: bool,
) -> Result<(), TerminalError> {
    let syntax = if shell_line_editor {
        Syntax::Shell
    } else if repl_line_editor && text.contains('\u{1b}') {
        let nested_shell = fg
            .and_then(|pgid| python_input::group_program(shared, pgid))
            .is_some_and(|name| is_shell_name(&name));
        if nested_shell {
            Syntax::Shell
        } else {
            Syntax::Repl
        }
    } else {
        return Ok(());
    };
    match literal_escape(text, syntax) {
        Some(found) => Err(literal_escape_error(found, syntax == Syntax::Shell)),
        None => Ok(()),
    }
}

/// Keys of the shell's line editor (readline) that take the key after them as their own:
/// Ctrl-X begins a key sequence (`Ctrl-X Ctrl-E`), Ctrl-V and Ctrl-Q type the next key as it
/// is. Before an Enter, the Enter is theirs (Ctrl-X and Enter is no key: readline beeps), and
/// the line does not run.
const TAKES_THE_NEXT_KEY: [(char, &str); 3] = [
    (
        '\u{18}',
        "Ctrl-X (\\u0018, which begins a key sequence of the shell's line editor)",
    ),
    (
        '\u{16}',
        "Ctrl-V (\\u0016, which types the next key as it is)",
    ),
    (
        '\u{11}',
        "Ctrl-Q (\\u0011, which types the next key as it is)",
    ),
];

/// Refuses `text` for our shell's line editor when a line of it that an Enter ends (every
/// line but the last; the last too when `submit`) ends with a key that would take that Enter
/// as its own ([`TAKES_THE_NEXT_KEY`]): the line would not run, and the result would show it
/// left on the shell's line.
///
/// # Errors
/// `InvalidRequest`, naming the line and the key, and how to send the keys.
pub(super) fn refuse_key_taking_the_enter(text: &str, submit: bool) -> Result<(), TerminalError> {
    let mut lines: Vec<&str> = text.split(['\n', '\r']).collect();
    if !submit {
        lines.pop();
    }
    for (at, line) in lines.iter().enumerate() {
        if let Some((_, key)) = TAKES_THE_NEXT_KEY
            .iter()
            .find(|(key, _)| line.ends_with(*key))
        {
            return Err(TerminalError::invalid(format!(
                "nothing was typed: line {} of the text ends with {key}, which would take the \
                 Enter after it as its own key, so the line would not run; leave the key out, \
                 or send the text up to it with submit: false, then the keys after it as a send \
                 of their own",
                at + 1
            )));
        }
    }
    Ok(())
}

/// Whether a Python REPL that pastes blocks, reading in `modes` as `leader` (its group's
/// program) at the cursor row's `cursor_row`, is Python 3.13's own (`pyrepl`): a `python`
/// program without readline's modes at a `>>>` or `...` prompt (IPython's is `In [1]:`).
pub(super) fn is_python_own_repl(
    modes: Option<TtyModes>,
    leader: Option<&str>,
    cursor_row: Option<&str>,
) -> bool {
    !modes.is_some_and(TtyModes::readline_editing)
        && leader.is_some_and(|name| name.starts_with("python"))
        && cursor_row.is_some_and(|row| row.starts_with(">>>") || row.starts_with("..."))
}

/// Refuses `text` (sent with Enter when `submit`) holding a TAB for Python's own REPL of 3.13
/// (`pyrepl`, `python_own_repl`: the session's `PYTHON_BASIC_REPL` ignored, as with `-I` or
/// `-E`), which drops every TAB, typed (its completion key) or pasted, so the line would run
/// changed (`'a\tb'` as `'ab'`, a block indented with TABs broken). The TABs that end text
/// sent without Enter ask for completion, and go.
pub(super) fn refuse_dropped_tabs(
    python_own_repl: bool,
    text: &str,
    submit: bool,
) -> Result<(), TerminalError> {
    let typed = if submit {
        text
    } else {
        text.trim_end_matches('\t')
    };
    if !python_own_repl || !typed.contains('\t') {
        return Ok(());
    }
    Err(TerminalError::invalid(
        "nothing was typed: the text holds a TAB character, and Python's own REPL (3.13's, \
         which runs when PYTHON_BASIC_REPL is ignored, as with python -I or -E) drops every \
         TAB, typed or pasted, so the line would run changed; write a TAB in a string as \\t, \
         indent with spaces, or start the REPL as PYTHON_BASIC_REPL=1 python3 without -I or -E"
            .to_owned(),
    ))
}
