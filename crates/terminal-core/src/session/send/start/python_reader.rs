//! Whether a send's text reaches a Python REPL that reads statements (see `python_input`),
//! and what its prompt shows, told at the send's start from the screen and the process that
//! reads the terminal.

use crate::session::input;
use crate::session::observe::{is_block_continuation_prompt, is_primary_repl_prompt};
use crate::session::shared::{Shared, State};

use super::super::python_input;

/// What [`view`] looks at besides the session's state.
pub(super) struct Sight<'a> {
    /// The foreground process group.
    pub(super) fg: Option<i32>,
    /// The group runs a Python REPL (by its program's name), at no prompt of a program's own.
    pub(super) python_repl: bool,
    /// The terminal's canonical (line) mode, when its modes could be read.
    pub(super) canonical: Option<bool>,
    /// The name of the program the group runs, when it was looked up.
    pub(super) leader: Option<&'a str>,
    /// The send's text.
    pub(super) text: &'a str,
}

/// What [`view`] tells.
pub(super) struct ReplView {
    /// The cursor row's text before the cursor: as read for a program reading keys, or read
    /// here for a Python REPL reading lines.
    pub(super) cursor_row: Option<String>,
    /// The text goes as statements to a Python REPL (see `python_input::typing`).
    pub(super) reads: bool,
    /// No prompt shows where the cursor is, nothing was typed at it, and the text holds a
    /// block.
    pub(super) no_prompt_shown: bool,
    /// A REPL reading lines is at its primary prompt.
    pub(super) at_line_primary: bool,
    /// The REPL is IPython with its prompts unseen (see
    /// `python_input::ipython_prompts_unseen`).
    pub(super) prompts_unseen: bool,
}

/// A Python REPL: statements one at a time, open blocks ended, auto-indent replaced, what it
/// holds tracked (see `python_input`). Its prompt: the cursor row's text before the cursor
/// (`cursor_row`, read for a program reading keys; read here for one reading lines).
pub(super) fn view(
    st: &mut State,
    shared: &Shared,
    sight: Sight<'_>,
    cursor_row: Option<String>,
) -> ReplView {
    let Sight {
        fg,
        python_repl,
        canonical,
        leader,
        text,
    } = sight;
    let cursor_row = if python_repl && canonical == Some(true) {
        st.screen.cursor_row_prefix()
    } else {
        cursor_row
    };
    // The member of the group that reads the terminal in its line mode, for a Python REPL
    // without a line editor (below), and whether it is IPython with its prompts unseen; the
    // group's leader while none is seen reading (its prompt printed, its `input()` not yet
    // asleep on the terminal, on a loaded machine).
    let line_reader = fg
        .filter(|_| python_repl && canonical == Some(true))
        .map(|pgid| shared.tty_reader(pgid).unwrap_or(pgid));
    let prompts_unseen = line_reader.is_some_and(python_input::ipython_prompts_unseen);
    // No prompt shows where the cursor is (a REPL continued with `fg` does not draw its
    // prompt again; IPython with its prompts unseen draws none, nor clears what earlier sends
    // held there), nothing was typed at it, and the text holds a block: typed as lines, its
    // first empty line would end the block and the rest run as wrong statements (an
    // `input()` is no reader of a block).
    let no_prompt_shown = python_repl
        && (cursor_row
            .as_deref()
            .is_none_or(|row| row.trim().is_empty())
            // Settled at its primary prompt with nothing written since, whatever a thread
            // printed after it (`>>> tick` without a line end). Not IPython, whose line
            // editor draws its prompt again after such output.
            || (st.repl_idle_at_prompt
                && !leader.is_some_and(input::is_ipython)
                && !cursor_row.as_deref().is_some_and(|row| {
                    is_primary_repl_prompt(row) || is_block_continuation_prompt(row)
                })))
        && (st.python_block.is_none() || prompts_unseen)
        && !st.typed_unended
        && python_input::has_block(text);
    // At a prompt of a REPL that reads lines (a row read for it above): IPython's simple
    // prompt (`In [2]: `, `   ...: `), Python's own whose output is no terminal.
    let line_prompt = cursor_row.as_deref().filter(|_| canonical == Some(true));
    let at_line_primary = line_prompt.is_some_and(is_primary_repl_prompt);
    let at_line_prompt = at_line_primary || line_prompt.is_some_and(is_block_continuation_prompt);
    let reads = python_repl
        && match canonical {
            Some(false) => true,
            // A REPL reading lines without a line editor (its output is no terminal, `fg`
            // continued it in the shell's modes, IPython's simple prompt): at its prompts, or
            // with none shown, when it is a REPL by its command line (a script's reads are no
            // REPL's).
            Some(true) => {
                (at_line_prompt || no_prompt_shown)
                    && line_reader.is_some_and(python_input::reads_statements)
            }
            None => false,
        };
    ReplView {
        cursor_row,
        reads,
        no_prompt_shown,
        at_line_primary,
        prompts_unseen,
    }
}
