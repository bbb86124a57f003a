//! Whether a Python REPL can take a block now: it runs no statement, no signal's effect is
//! pending, and no statement of it waits at a read; and the refusal of a block when it cannot.

use crate::error::TerminalError;

use super::super::super::input;
use super::super::super::observe::{
    is_block_continuation_prompt, is_primary_repl_prompt, prompt_then_text,
};
use super::super::super::shared::{Shared, State};
use super::{has_block, ipython_prompts_unseen, program_name, reads_statements};

/// Whether foreground group `fg` runs a Python REPL, not just a Python program (a script, a
/// server, pip, a test runner under `make`: text sent while one runs is typed ahead as to
/// any program, a block too): a process of it reads statements by its command line
/// ([`reads_statements`]), or a send settled with the group at a REPL's primary prompt (a
/// REPL a script started: `code.interact`, a framework's shell). Blocking `/proc` reads.
pub(in crate::session::send) fn runs_a_python_repl(st: &State, shared: &Shared, fg: i32) -> bool {
    st.repl_prompt_group == Some(fg)
        || shared
            .processes()
            .into_iter()
            .filter(|s| s.pgrp == fg && !s.is_zombie())
            .any(|s| input::pastes_blocks(&program_name(&s)) && reads_statements(s.pid))
}

/// Why a Python REPL cannot take a block now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::session::send) enum Busy {
    /// It runs a statement and reads nothing.
    Running,
    /// A signal reached it and its prompt is not back yet (it may still be printing the
    /// `KeyboardInterrupt`).
    Interrupted,
    /// A statement of it waits for a line of input with no prompt (see `statement_read`).
    Reading,
    /// A statement of it waits for a line of input at a prompt of its own (`input('Name: ')`,
    /// see `statement_read`).
    ReadingAtPrompt,
}

/// What a send found of a Python REPL's prompt (see [`statement_busy`]).
pub(in crate::session::send) struct ReplSight<'a> {
    /// The cursor row's text before the cursor (read for a program reading keys).
    pub(in crate::session::send) cursor_row: Option<&'a str>,
    /// The terminal's canonical mode, when its modes could be read.
    pub(in crate::session::send) canonical: Option<bool>,
    /// The cursor row is a REPL's primary prompt.
    pub(in crate::session::send) at_repl_prompt: bool,
    /// A signal just reached the foreground and its effect has not played out yet.
    pub(in crate::session::send) aftermath_pending: bool,
}

/// Whether the Python REPL `program` of foreground group `fg` cannot take a block now (see
/// [`check_busy`]): it runs a statement, or a signal's effect has not played out, as `sight`
/// and the session's state tell it. Blocking `/proc` reads (the group's terminal reader).
pub(in crate::session::send) fn statement_busy(
    st: &mut State,
    shared: &Shared,
    program: &str,
    fg: Option<i32>,
    sight: ReplSight<'_>,
) -> Option<Busy> {
    // A REPL runs a statement when it reads nothing with the cursor away from its
    // prompts: one whose prompt is the cursor's row is back at it, a moment's wake
    // between reads (a signal, a timer, a loaded machine) aside, also with text an
    // earlier send typed there without Enter. IPython keeps a thread waiting on the
    // terminal while it runs a statement: the cursor alone tells.
    let away_from_prompts = !sight.cursor_row.is_some_and(|r| {
        is_primary_repl_prompt(r)
            || is_block_continuation_prompt(r)
            || (st.typed_unended && prompt_then_text(r))
    });
    // IPython's line editor reads in raw mode: in the terminal's line mode, with
    // nothing on the cursor's row (no prompt of a statement's own `input()`), it runs a
    // statement or is between one and its next prompt, even while a thread of it waits
    // on the terminal. Not when IPython itself reads lines there with its prompts unseen
    // (its simple prompt, its standard error away from the terminal): at its prompt the row
    // stays empty too, and a block was refused however long it waited.
    let ipython_between = input::is_ipython(program)
        && sight.canonical == Some(true)
        && st
            .screen
            .cursor_row_prefix()
            .is_none_or(|row| row.trim().is_empty())
        && !fg
            .and_then(|pgid| shared.tty_reader(pgid))
            .is_some_and(ipython_prompts_unseen);
    // Settled at its primary prompt with nothing written since: it runs no statement,
    // whatever printed after that prompt.
    let idle_at_prompt = st.repl_idle_at_prompt && !st.typed_unended;
    if idle_at_prompt && !sight.aftermath_pending {
        None
    } else if !sight.aftermath_pending && super::super::statement_read::waits(st, shared, fg) {
        Some(if super::super::statement_read::prompted(st) {
            Busy::ReadingAtPrompt
        } else {
            Busy::Reading
        })
    } else if sight.aftermath_pending && !sight.at_repl_prompt {
        Some(Busy::Interrupted)
    } else if ipython_between
        || away_from_prompts
            && (fg.is_some_and(|pgid| shared.tty_reader(pgid).is_none())
                || (input::is_ipython(program) && sight.canonical == Some(false)))
    {
        Some(Busy::Running)
    } else {
        None
    }
}

/// Refuses a block (text with an indented line, or a compound statement: `for i in x: f(i)`)
/// sent to the Python REPL `program` while it cannot take one (`busy`, as the send's start
/// tells it): typed now, the lines reach its line editor one by one once it reads again,
/// without the handling a block needs here (its first blank line would end the block and the
/// rest would run as wrong statements; an auto-indenting REPL indents the lines again; a
/// one-line compound statement waits at a continuation prompt for the empty line that ends
/// it).
///
/// # Errors
/// `InvalidRequest`, naming the program, what it is doing and how to go on.
pub(in crate::session::send) fn check_busy(
    program: &str,
    busy: Option<Busy>,
    text: &str,
) -> Result<(), TerminalError> {
    let Some(busy) = busy.filter(|_| has_block(text)) else {
        return Ok(());
    };
    let doing = match busy {
        Busy::Running => "is still running a statement (it is not at its prompt)",
        Busy::Interrupted => "is still handling the signal (its prompt is not back yet)",
        // Lines for a read to the end of its input (`sys.stdin.read()`), ended by the Ctrl-D
        // they carry, are its data.
        Busy::Reading | Busy::ReadingAtPrompt if text.contains('\u{4}') => return Ok(()),
        Busy::Reading | Busy::ReadingAtPrompt => {
            let prompted = busy == Busy::ReadingAtPrompt;
            return Err(super::super::statement_read::block_refusal(
                program, prompted,
            ));
        }
    };
    Err(TerminalError::invalid(format!(
        "nothing was typed: {program} {doing}, and a block typed now would reach its line \
         editor without the handling a block needs (its first blank line would end the \
         block); poll (empty text, submit: false) until its prompt is back, or \
         terminal_signal SIGINT to stop the statement, then send the lines again"
    )))
}
