//! The refusal of an ESC meant as a character of the text (in a string, a here-document, amid
//! the text) typed to a line editor at its prompt: read as the start of a key, it would change
//! the line silently (see `input::literal_escapes`).

use crate::error::TerminalError;

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
