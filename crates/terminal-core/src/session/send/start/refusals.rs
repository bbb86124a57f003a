//! Text a line editor at its prompt would change silently, refused before anything is typed:
//! an ESC meant as a character of the text (in a string, a here-document, amid the text),
//! which it reads as the start of a key (see `input::literal_escapes`), and a TAB to Python
//! 3.13's own REPL, which drops it.

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
