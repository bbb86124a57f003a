//! A read with no prompt that a REPL's statement made (`w = input()` at `>>> `, a
//! `sys.stdin.readline()`): the REPL printed no prompt after the statement, and the cursor
//! rests at the start of an empty row while the statement waits for a line. A line editor in
//! raw mode (readline's `input()`, Python 3.13's own) leaves the terminal's modes as they are
//! at the REPL's prompt, so only the statement sent and the empty row tell the read apart.
//! The result says the REPL waits for a line of input, not at its prompt; a line sent next is
//! that read's input, and its result says so; a block sent next is refused (its first line
//! would be the input, the rest would run as wrong statements).

use crate::error::TerminalError;
use crate::readiness::Settle;

use super::super::input;
use super::super::shared::{Shared, State};
use super::SendOp;

impl SendOp {
    /// Notes, for the next send, and returns whether the REPL in the foreground waits, as this
    /// send settles for `reason`, at a read with no prompt that a statement made (a result nobody
    /// sees, `discarded`, leaves the last one's note): nothing shows before the cursor
    /// (`no_prompt_shown`), the group reads a line (in the terminal's line mode with echo on, or
    /// with a line editor in raw mode: no key reader's cbreak mode), and either this send typed,
    /// at the REPL's own prompt, a last line that asks for input (see `input::asks_for_input`: a
    /// blank row after any other line is other output, or a prompt made empty), or the last result
    /// named such a read of the same group and nothing showed since (a poll; a statement reading
    /// again). Not in a mode of the REPL with no prompt (node's `.editor`), nor while the REPL
    /// owes its prompt (`unprompted`: node's pending `await`).
    pub(super) fn note_statement_read(
        &self,
        reason: Settle,
        no_prompt_shown: bool,
        unprompted: bool,
        discarded: bool,
    ) -> bool {
        let shared = &self.shared;
        let fg = shared
            .pty
            .foreground_pgid()
            .filter(|&pgid| pgid != shared.shell_pgid());
        let reads_a_line = shared.pty.modes().is_some_and(|m| {
            (m.canonical && m.echo) || (!m.canonical && !m.echo && !m.single_keys())
        });
        let waits = fg.is_some()
            && reason == Settle::StdinWait
            && no_prompt_shown
            && !unprompted
            && !self.promptless
            && reads_a_line;
        let asked = self.repl_at_start == fg
            && self
                .last_line
                .as_deref()
                .is_some_and(|line| input::asks_for_input(line.as_bytes()));
        let mut st = shared.lock();
        let read = waits && (asked || st.statement_read == fg);
        if !discarded {
            st.statement_read = fg.filter(|_| read);
        }
        read
    }
}

/// Whether the REPL of foreground group `fg` still waits at the read with no prompt the last
/// result named (see [`SendOp::note_statement_read`]) as a send begins: nothing shows before the
/// cursor, and a process of the group reads the terminal.
pub(super) fn waits(st: &mut State, shared: &Shared, fg: Option<i32>) -> bool {
    let Some(pgid) = fg.filter(|_| st.statement_read == fg) else {
        return false;
    };
    st.screen
        .cursor_row_prefix()
        .is_none_or(|row| row.trim().is_empty())
        && shared.tty_reader(pgid).is_some()
}

/// The notice and the entry (see `input::line_to_a_prompt_entry`) for `text`, sent with Enter
/// while the REPL of group `fg` waits at a statement's read with no prompt ([`waits`]): its first
/// line is that read's input, not a statement. `None` otherwise.
pub(super) fn line_to_read(
    st: &mut State,
    shared: &Shared,
    fg: Option<i32>,
    text: &str,
) -> Option<(String, String)> {
    if !waits(st, shared, fg) {
        return None;
    }
    let line = super::stale_reader::clipped(text.lines().find(|l| !l.trim().is_empty())?.trim());
    let program = fg
        .and_then(|pgid| super::python_input::group_program(shared, pgid))
        .map_or_else(|| "the REPL".to_owned(), |name| format!("`{name}`"));
    Some((
        format!(
            "[input: line 1 of the input (`{line}`) went as input to {} that a statement of \
             {program} waited at (such as an `input()` with no prompt text), not to {program} \
             as a statement or command: if it was meant as one, it did not run; send it again \
             once {program}'s prompt is back]",
            input::PROMPTLESS_READ
        ),
        input::line_to_a_prompt_entry(1, &line, "", input::PROMPTLESS_READ),
    ))
}

/// The refusal of a block sent to the Python REPL `program` while a statement of it waits at a
/// read with no prompt ([`waits`]).
pub(super) fn block_refusal(program: &str) -> TerminalError {
    TerminalError::invalid(format!(
        "nothing was typed: {program} is not at its prompt: a statement it runs waits for a \
         line of input with no prompt (such as an `input()` with no prompt text: the cursor is \
         at the start of an empty line), and typed now the block's first line would be that input \
         and the rest would run as wrong statements; send the line the statement waits for \
         alone (or terminal_signal SIGINT to stop the statement), then send the block again \
         once {program}'s prompt is back; lines meant as the data of a read to the end of its \
         input (sys.stdin.read()) go when they end with \\u0004 (Ctrl-D)"
    ))
}
