//! A read with no prompt that a REPL's statement made (`w = input()` at `>>> `, a
//! `sys.stdin.readline()`): the REPL printed no prompt after the statement, and the cursor
//! rests at the start of an empty row while the statement waits for a line. A line editor in
//! raw mode (readline's `input()`, Python 3.13's own) leaves the terminal's modes as they are
//! at the REPL's prompt, so only the statement sent and the empty row tell the read apart.
//! The result says the REPL waits for a line of input, not at its prompt; a line sent next is
//! that read's input, and its result says so; a block sent next is refused (its first line
//! would be the input, the rest would run as wrong statements).
//!
//! A statement's read at a prompt of its own (`x = input('Name: ')`, `input('... ')` written
//! like the REPL's continuation prompt) is told the same way: the statement sent is complete
//! (it opens no block, ends inside no bracket, string or backslash line), so the REPL runs it
//! at its Enter, and the prompt the cursor rests after is the statement's, not the REPL's. The
//! line sent next is that prompt's answer, typed as it is (no empty line ending a block first),
//! and a block is refused as at a read with no prompt.
//!
//! The program a debugger runs reads the same way after a command that resumes it (`n` over
//! an `input()` at pdb's `(Pdb)`, `run` or `continue` at gdb's `(gdb)`): the line sent next is
//! the program's input, not a debugger command, and the result says so.

use crate::error::TerminalError;
use crate::readiness::Settle;

use super::super::input;
use super::super::observe::{
    is_primary_repl_prompt, is_repl_prompt_of, resumes_the_program, runs_under,
};
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
    ///
    /// A read at a prompt of the statement's own (`prompt`, see [`Self::statement_prompt`]) is
    /// noted too, with that prompt, but not returned: no notice of a read with no prompt.
    pub(super) fn note_statement_read(
        &self,
        reason: Settle,
        no_prompt_shown: bool,
        unprompted: bool,
        discarded: bool,
        prompt: Option<String>,
    ) -> bool {
        let shared = &self.shared;
        let fg = self.foreground_repl();
        let waits = fg.is_some()
            && reason == Settle::StdinWait
            && no_prompt_shown
            && !unprompted
            && !self.promptless
            && reads_a_line(shared);
        let asked = (self.repl_at_start == fg && self.asked_for_input())
            || fg.is_some_and(|pgid| self.resumed_under_debugger(pgid));
        let mut st = shared.lock();
        let read = waits && (asked || st.statement_read == fg);
        let prompted = prompt.is_some() && !unprompted;
        if !discarded {
            st.statement_read = fg.filter(|_| read || prompted);
            st.statement_read_prompt = prompt.filter(|_| prompted);
        }
        read
    }

    /// The prompt (the cursor row's text `row`, trimmed) at which, as this send settles for
    /// `reason`, the REPL in the foreground waits in a read a statement of it made with a
    /// prompt of its own, not at a prompt of the REPL's: the group reads a line (see
    /// [`SendOp::note_statement_read`]), the row shows text that is no primary prompt of the
    /// REPL's own, and either this send typed, at the REPL's own prompt, a last line that asks
    /// for input (`input::asks_for_input`) ending a complete statement (what the REPL holds,
    /// `st`'s `python_block`, see `input::python_ends_complete`: the REPL ran it at its Enter,
    /// so the row is no continuation prompt of its, however it looks: `input('... ')`), or the
    /// last result named a read at that same prompt of the same group (a poll).
    pub(super) fn statement_prompt(
        &self,
        st: &State,
        reason: Settle,
        row: Option<&str>,
    ) -> Option<String> {
        let fg = self.foreground_repl()?;
        let row = row.map(str::trim).filter(|row| !row.is_empty())?;
        if reason != Settle::StdinWait
            || self.promptless
            || st.typed_unended
            || !reads_a_line(&self.shared)
        {
            return None;
        }
        // The REPL's own primary prompt (`>>>`: not `>`, which only a script's question shows
        // to a Python) is the REPL back at it.
        let own_primary = is_primary_repl_prompt(row)
            && super::python_input::group_program(&self.shared, fg)
                .is_none_or(|name| is_repl_prompt_of(row, &name));
        if own_primary {
            return None;
        }
        let resumed = self.resumed_under_debugger(fg);
        if resumed && shows_debuggers_prompt(&self.shared, fg, row) {
            return None;
        }
        let asked = (self.repl_at_start == Some(fg)
            && self.asked_for_input()
            && st
                .python_block
                .as_deref()
                .is_some_and(input::python_ends_complete))
            || resumed;
        let polled =
            st.statement_read == Some(fg) && st.statement_read_prompt.as_deref() == Some(row);
        (asked || polled).then(|| row.to_owned())
    }

    /// The foreground group, when it is not our shell's.
    fn foreground_repl(&self) -> Option<i32> {
        let shared = &self.shared;
        shared
            .pty
            .foreground_pgid()
            .filter(|&pgid| pgid != shared.shell_pgid())
    }

    /// Whether this send, typed at a debugger's prompt (the group `repl_at_start`), ended
    /// with a command that resumes the program it runs (`n` over an `input()`, gdb's `run`,
    /// `c`: see `observe::resumes_the_program`, its one-letter forms too, which are no
    /// statements there), and group `fg`, which now reads, is that program (pdb's own
    /// process, gdb's inferior in a group of its own): what it asks is no debugger prompt.
    fn resumed_under_debugger(&self, fg: i32) -> bool {
        self.repl_at_start.is_some_and(|debugger| {
            self.last_line.as_deref().is_some_and(resumes_the_program) && runs_under(fg, debugger)
        })
    }

    /// Whether this send's last line asks for input (see `input::asks_for_input`).
    fn asked_for_input(&self) -> bool {
        self.last_line
            .as_deref()
            .is_some_and(|line| input::asks_for_input(line.as_bytes()))
    }
}

/// Whether `row` (the cursor row, trimmed), which group `fg` reads at after a debugger's resume
/// command, begins or ends with the primary prompt of that group's program (`DB<1>`, `(Pdb)`,
/// `(gdb)`): the debugger is back at its prompt, with output of its program that came late
/// beside it (perl's `  DB<1> name? `: after `n` over `print "name? "`, perl flushes the
/// program's output as its debugger reads the next command), not the program at a prompt of its
/// own.
fn shows_debuggers_prompt(shared: &Shared, fg: i32, row: &str) -> bool {
    let Some(program) = super::python_input::group_program(shared, fg) else {
        return false;
    };
    let words = row.split_whitespace();
    [words.clone().next(), words.last()]
        .into_iter()
        .flatten()
        .any(|word| is_primary_repl_prompt(word) && is_repl_prompt_of(word, &program))
}

/// Whether the terminal's modes are a line reader's: its line mode with echo on, or a line
/// editor's raw mode (no key reader's cbreak mode).
fn reads_a_line(shared: &Shared) -> bool {
    shared
        .pty
        .modes()
        .is_some_and(|m| (m.canonical && m.echo) || (!m.canonical && !m.echo && !m.single_keys()))
}

/// Whether the REPL of foreground group `fg` still waits at the statement's read the last
/// result named (see [`SendOp::note_statement_read`]) as a send begins: nothing shows before the
/// cursor (the read's own prompt, when it had one), and a process of the group reads the
/// terminal.
pub(super) fn waits(st: &mut State, shared: &Shared, fg: Option<i32>) -> bool {
    let Some(pgid) = fg.filter(|_| st.statement_read == fg) else {
        return false;
    };
    let row = st.screen.cursor_row_prefix();
    let row = row.as_deref().map_or("", str::trim);
    row == st.statement_read_prompt.as_deref().unwrap_or_default()
        && shared.tty_reader(pgid).is_some()
}

/// Whether the read [`waits`] finds is at a prompt of the statement's own.
pub(super) fn prompted(st: &State) -> bool {
    st.statement_read_prompt.is_some()
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
    let first = text.lines().find(|l| !l.trim().is_empty())?.trim();
    // A plain answer (`alice`, `42`) is what the read asked for: said only of a line that
    // reads as a statement or a command.
    if !reads_as_code(first) {
        return None;
    }
    let line = super::stale_reader::clipped(first);
    let program = fg
        .and_then(|pgid| super::python_input::group_program(shared, pgid))
        .map_or_else(|| "the REPL".to_owned(), |name| format!("`{name}`"));
    if let Some(prompt) = st.statement_read_prompt.as_deref() {
        let prompt = super::stale_reader::clipped(prompt);
        return Some((
            format!(
                "[input: line 1 of the input (`{line}`) went as the answer to the prompt \
                 `{prompt}` that a statement of {program} asked at (such as an `input()` with \
                 that prompt text), not to {program} as a statement or command: if it was meant \
                 as one, it did not run; send it again once {program}'s prompt is back]"
            ),
            input::line_to_a_prompt_entry(1, &line, &prompt, input::PROMPTLESS_READ),
        ));
    }
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

/// Whether `line` (trimmed) reads as a statement or a command rather than an answer: a call,
/// an assignment or an index (`(`, `=`, `[`), or a first word that begins a statement
/// (`import`, `print`, `for`, …).
fn reads_as_code(line: &str) -> bool {
    const STATEMENT_WORDS: [&str; 20] = [
        "import", "from", "print", "def", "class", "for", "while", "if", "return", "del", "pass",
        "raise", "with", "try", "assert", "global", "lambda", "async", "await", "exit",
    ];
    let first = line
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or_default();
    line.contains(['(', '=', '[']) || STATEMENT_WORDS.contains(&first)
}

/// The refusal of a block sent to the Python REPL `program` while a statement of it waits at a
/// read ([`waits`]), with a prompt of its own when `prompted`.
pub(super) fn block_refusal(program: &str, prompted: bool) -> TerminalError {
    if prompted {
        return TerminalError::invalid(format!(
            "nothing was typed: {program} is not at its prompt: a statement it runs waits for \
             a line of input at a prompt of its own (such as an `input('Name: ')`: the cursor \
             is after that prompt, which is not {program}'s, even when written like its \
             continuation prompt `... `), and typed now the block's first line would be the \
             answer and the rest would run as wrong statements; send the answer alone (or \
             terminal_signal SIGINT to stop the statement), then send the block again once \
             {program}'s prompt is back"
        ));
    }
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
