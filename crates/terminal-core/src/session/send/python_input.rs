//! What a send types to a Python REPL (a foreground program that [`input::pastes_blocks`]),
//! and what the REPL holds after it, from send to send (`State::python_block`):
//!
//! - Several statements at the primary prompt go one at a time, each block ended by an empty
//!   line as a file would have it ([`input::python_statement_steps`] as pastes,
//!   [`input::python_separated`] typed), but a last line that opens a block with none of its
//!   lines yet (`if x:`), which stays open.
//! - At a continuation prompt, a send whose text starts a new top-level statement ends the
//!   block earlier sends left open first, with an Enter of its own; one whose first lines go on
//!   with the block and whose later lines start new statements types those lines, ends the
//!   block, then the statements ([`input::python_block_split`]). Typed into the block, the
//!   statement would be a `SyntaxError` and the block would never run.
//! - A line sent into a block of a REPL that auto-indents (Python 3.13's own, IPython) first
//!   deletes the indentation the REPL gave it: the text brings its own, as in a file and in
//!   the basic REPL (kept, an `else:` or a dedented line would land in the block's body, and
//!   an indented one would be indented twice).
//! - Text sent without Enter stays part of its line: the next send goes on with that line.

use crate::error::TerminalError;
use crate::types::SendRequest;

use super::super::input::{self, Reader};
use super::super::shared::Shared;

mod busy;
#[cfg(test)]
use busy::Busy;
pub(super) use busy::{ReplSight, check_busy, runs_a_python_repl, statement_busy};

/// The program of foreground group `pgid` a send's lines are shaped for: the group leader,
/// unless it is no Python REPL and another member is one (a wrapper leads the group:
/// `timeout 600 python3`, `bash -c 'python3; …'`); then the member that reads the terminal,
/// or, when none reads (the REPL runs a statement), a Python among the live members. One
/// `/proc` read when the leader is the REPL itself; `None` when the group is gone.
pub(super) fn group_program(shared: &Shared, pgid: i32) -> Option<String> {
    let leader = crate::process::stat(pgid)
        .filter(|s| s.pgrp == pgid)
        .map(|s| program_name(&s));
    if leader.as_deref().is_some_and(input::pastes_blocks) {
        return leader;
    }
    if let Some(reader) = shared.tty_reader(pgid) {
        return crate::process::stat(reader)
            .map(|s| program_name(&s))
            .or(leader);
    }
    shared
        .processes()
        .into_iter()
        .filter(|s| s.pgrp == pgid && !s.is_zombie())
        .map(|s| program_name(&s))
        .find(|name| input::pastes_blocks(name))
        .or(leader)
}

/// The name a send's Python handling knows process `s` by: its command name, or, for a
/// Python program started by a name of its own (`flask shell`, an entry point whose `#!` line
/// names the interpreter, which then runs a REPL with the same prompts), the interpreter's
/// (`python3.11`, from `/proc/PID/exe`: one more read only when the name is no Python's).
pub(super) fn program_name(s: &crate::process::StatInfo) -> String {
    if input::pastes_blocks(&s.comm) {
        return s.comm.clone();
    }
    crate::process::exe_name(s.pid)
        .filter(|name| name.starts_with("python"))
        .unwrap_or_else(|| s.comm.clone())
}

/// The keywords that begin a compound statement, whose line opens a block (`async` and
/// `match` too: `async def`, `match x:`).
const COMPOUND_KEYWORDS: [&str; 13] = [
    "if", "elif", "else", "for", "while", "def", "class", "with", "try", "except", "finally",
    "async", "match",
];

/// Whether `text` holds a block for a Python REPL: an indented line, a decorator, or a line
/// that begins a compound statement.
pub(super) fn has_block(text: &str) -> bool {
    text.lines().any(|l| {
        let word = l
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or_default();
        (l.starts_with([' ', '\t']) && !l.trim().is_empty())
            || l.starts_with('@')
            || (COMPOUND_KEYWORDS.contains(&word) && l.trim_end().len() > word.len())
    })
}

/// Whether process `pid` runs Python's REPL by its command line: no script, `-c` or `-m`
/// after the interpreter's options, or `-i` (which starts it after them). Python's options
/// that take a value (`-W arg`, `-X opt`, `--check-hash-based-pycs mode`) are skipped with it.
pub(super) fn starts_the_repl(pid: i32) -> bool {
    crate::process::cmdline(pid).is_some_and(|cmdline| cmdline_starts_the_repl(&cmdline))
}

/// [`starts_the_repl`] of a `/proc/<pid>/cmdline` (arguments NUL-separated).
fn cmdline_starts_the_repl(cmdline: &[u8]) -> bool {
    let mut args = cmdline
        .split(|&b| b == 0)
        .skip(1)
        .map(|arg| String::from_utf8_lossy(arg).into_owned());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-W" | "-X" | "--check-hash-based-pycs" => {
                args.next();
            }
            "--" | "-" => return false,
            "" => {}
            option if option.starts_with("--") => {}
            option if option.starts_with('-') => {
                let flags = &option[1..];
                // `-c` and `-m` take the rest of the option or the next argument.
                if let Some(at) = flags.find(['c', 'm']) {
                    return flags[..at].contains('i');
                }
                if flags.contains('i') {
                    return true;
                }
                if flags.ends_with(['W', 'X']) {
                    args.next();
                }
            }
            _ => return false,
        }
    }
    true
}

/// Whether process `pid`, reading the terminal in its line mode, is IPython with its prompts
/// unseen: its standard error leaves the terminal (`ipython 2>/dev/null`, `2>log`). IPython
/// then reads its statements with Python's `input()` (its simple prompt, as whenever a
/// standard stream is no terminal, or with `--simple-prompt`) in the terminal's line mode, and
/// `input()` writes the prompts (`In [1]: `, `   ...: `) to that standard error: the screen
/// shows none, at its prompt as while it runs a statement.
pub(super) fn ipython_prompts_unseen(pid: i32) -> bool {
    crate::process::stat(pid).is_some_and(|s| input::is_ipython(&s.comm))
        && crate::process::fd_leaves_stdin(pid, 2)
}

/// Whether process `pid`, reading the terminal in its line mode, is a Python REPL by its
/// command line: Python's own ([`starts_the_repl`]), or IPython (whose command line names its
/// script, `python3 /usr/bin/ipython`), which reads lines with its simple prompt.
pub(super) fn reads_statements(pid: i32) -> bool {
    crate::process::stat(pid).is_some_and(|s| input::is_ipython(&s.comm)) || starts_the_repl(pid)
}

/// Refuses a send to a Python REPL whose text starts with editing keys (Ctrl-U, Ctrl-W,
/// backspaces, arrows and other escape sequences: control characters other than TAB, the line
/// ends and Ctrl-C, which ends the statement as the REPL's own key does) and then holds a
/// block: the keys change the REPL's line in ways the block's handling cannot know, and typed
/// after them the block's first blank line ended it and the rest ran as wrong statements.
///
/// # Errors
/// `InvalidRequest`, saying to send the keys alone first.
pub(super) fn check_keys_before_block(text: &str) -> Result<(), TerminalError> {
    let mut rest = text;
    loop {
        let Some(c) = rest.chars().next() else {
            return Ok(());
        };
        if c == '\u{1b}' {
            // ESC, with the CSI or SS3 sequence it starts (`ESC [ A`, `ESC O H`).
            let after = &rest[1..];
            rest = match after.strip_prefix(['[', 'O']) {
                Some(seq) => seq.trim_start_matches(|c: char| c.is_ascii_digit() || c == ';'),
                None => after,
            };
            rest = rest
                .get(1..)
                .filter(|_| rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '~'))
                .unwrap_or(rest);
        } else if c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{3}') {
            rest = &rest[c.len_utf8()..];
        } else {
            break;
        }
    }
    if rest.len() == text.len() || !has_block(rest) {
        return Ok(());
    }
    Err(TerminalError::invalid(
        "nothing was typed: the text starts with editing keys and then holds a block for the \
         Python REPL, whose handling cannot follow the keys (its first blank line would end \
         the block and the rest run as wrong statements); send the keys alone first (submit: \
         false), then the block",
    ))
}

/// The Enter key as a terminal sends it.
pub(super) const ENTER: &[u8] = b"\r";

/// The line-discard key of the line editors of Python 3.13's REPL and IPython (Ctrl-U): it
/// deletes the text before the cursor.
const LINE_DISCARD: &[u8] = b"\x15";

/// The first input and the steps after it (see [`Typing`]).
type Inputs = (Vec<u8>, Option<Vec<Vec<u8>>>);

/// Where a Python REPL stands as a send begins.
pub(super) struct Repl {
    /// It reads a new statement at its primary prompt (`>>> `, `In [3]: `).
    pub(super) at_primary: bool,
    /// It reads more lines of a statement at its block continuation prompt (`... `), with
    /// nothing typed on the line.
    pub(super) at_continuation: bool,
    /// Blanks the REPL put on that line (see `observe::continuation_indent`).
    pub(super) indent: Option<u16>,
    /// What earlier sends typed since the statement began (`State::python_block`): each line
    /// they ended with its newline, a line typed without Enter without one.
    pub(super) typed: Option<String>,
    /// The last input the session got was that line without Enter (nothing typed since).
    pub(super) line_unended: bool,
    /// It draws no prompt where the screen shows it (see [`ipython_prompts_unseen`]): no
    /// prompt tells the next send that a statement is open, so a send at its primary prompt
    /// ends every block it holds, a lone one too, as a file would.
    pub(super) prompts_unseen: bool,
}

/// What a send types to a Python REPL.
#[derive(Debug)]
pub(super) struct Typing {
    /// The first input.
    pub(super) input: Vec<u8>,
    /// Inputs after it, each once the REPL reads again (see `Pacing::plan_statements`).
    pub(super) steps: Option<Vec<Vec<u8>>>,
    /// What the REPL holds of a statement once it is typed (see [`Repl::typed`]), `None`
    /// when nothing is known.
    pub(super) holds: Option<String>,
    /// Blanks `input` first deletes (see `SendOp::indent_cleared`).
    pub(super) indent_cleared: u16,
}

/// The typing of `request` to a REPL standing at `repl`, shaped for `reader`.
///
/// # Errors
/// `InvalidRequest` from [`input::shape`] (a line over the terminal's line limit).
pub(super) fn typing(
    request: &SendRequest,
    reader: Reader,
    repl: Repl,
) -> Result<Typing, TerminalError> {
    let goes_on_with_line =
        repl.line_unended && repl.typed.as_deref().is_some_and(|t| !t.ends_with('\n'));
    // Not at the REPL's prompts nor going on with a line typed there: the program itself
    // reads lines (an `input()` at the REPL, pdb, `help>`), which take the text as any line
    // reader does (only its last line end is the Enter; empty lines before it are empty
    // answers).
    if !repl.at_primary && !repl.at_continuation && !goes_on_with_line {
        let text = input::without_doubled_enter(&request.text, request.submit);
        // Typed, not pasted: pasted, the lines would make one answer.
        let reader = Reader {
            block_paste: false,
            ..reader
        };
        return Ok(Typing {
            input: input::shape(text, request.submit, reader)?,
            steps: None,
            holds: None,
            indent_cleared: 0,
        });
    }
    // Simple statements alone: a newline ending the text is their Enter (as to the shell).
    let text = match request.text.trim_end_matches(['\n', '\r']) {
        trimmed if request.submit && input::python_simple_lines(trimmed) => trimmed,
        _ => request.text.as_str(),
    };
    let submitted = |t: &str| {
        let t = t.replace("\r\n", "\n");
        if request.submit { format!("{t}\n") } else { t }
    };
    let at_continuation = repl.at_continuation && !goes_on_with_line;
    let typed = repl.typed.as_deref();
    let ends_block = request.submit
        && at_continuation
        && typed.is_some_and(|typed| input::python_starts_statement(typed, text));
    let split = (request.submit && !ends_block && (at_continuation || goes_on_with_line))
        .then(|| input::python_block_split(typed.unwrap_or_default(), text))
        .flatten();
    let python_text = |t: &str| format!("{}\n", t.replace("\r\n", "\n"));
    // What the REPL holds after a send without Enter reshaped (see `unended_statement`).
    let mut holds_unended = None;
    let mut shaped = if let Some((goes_on, rest)) = &split {
        // A block, unless what the statement holds says otherwise (not known: the REPL's
        // continuation prompt is a block's).
        let block = typed.filter(|t| !t.trim().is_empty()).is_none_or(|t| {
            input::python_statements(&format!("{t}{goes_on}"))
                .last()
                .is_some_and(|statement| input::python_opens_block(statement))
        });
        let typed = typed.unwrap_or_default();
        after_block_lines(
            &input::python_block_rest(typed, goes_on),
            rest,
            reader,
            block,
        )?
    } else if request.submit && ((repl.at_primary && !goes_on_with_line) || ends_block) {
        let steps = reader
            .block_paste
            .then(|| input::python_statement_steps(&python_text(text)))
            .flatten();
        // A block pasted goes whole; typed (no pastes, or a line editor that takes a paste as
        // one line), each block ends with an empty line and has none inside (a lone one is
        // left open, unless the REPL's prompts are unseen).
        let separated = (!reader.block_paste)
            .then(|| {
                if repl.prompts_unseen {
                    input::python_ended_statements(&python_text(text))
                } else {
                    input::python_separated(&python_text(text))
                }
            })
            .flatten();
        let cell_magic = reader.block_paste && text.trim_start().starts_with("%%");
        let input = match &separated {
            Some(text) => input::shape(text, false, reader)?,
            // An IPython cell magic (`%%bash`, `%%time`) runs once its cell ends with an empty
            // line: after the pasted cell, an Enter ends its last line, another adds the empty
            // line, and a third runs it (the cell's own empty lines at its end do not count).
            None if cell_magic && request.submit => [
                input::shape(text.trim_end(), false, reader)?.as_slice(),
                ENTER,
                ENTER,
                ENTER,
            ]
            .concat(),
            None => input::shape(text, request.submit, reader)?,
        };
        // The Enter that ends the open block goes first, alone: a paste or the statements'
        // steps once the REPL reads again, typed lines paced after it as lines are.
        match steps {
            Some(steps) if ends_block => (ENTER.to_vec(), Some(steps)),
            None if ends_block && input::is_paste(&input) => (ENTER.to_vec(), Some(vec![input])),
            None if ends_block => ([ENTER, input.as_slice()].concat(), None),
            Some(mut steps) if !steps.is_empty() => {
                let first = steps.remove(0);
                (first, Some(steps).filter(|s| !s.is_empty()))
            }
            _ => (input, None),
        }
    } else if request.submit && (at_continuation || goes_on_with_line) {
        // The rest of the open block: its blank lines would end it early.
        let text = input::python_block_rest(typed.unwrap_or_default(), text);
        (input::shape(&text, true, reader)?, None)
    } else if let Some(unended) = (!request.submit)
        .then(|| {
            unended_statement(
                text,
                typed,
                repl.at_primary && !goes_on_with_line,
                reader.block_paste,
            )
        })
        .flatten()
    {
        // Text without Enter at the last: the statements before the last go as a file would
        // have them (typed, a block ended by an empty line and none inside; to a REPL that
        // takes pastes, each a paste once it reads again), then the last one without the
        // blank lines inside it (the first would end its block), its last line unended.
        let shaped = match &unended.before {
            Some(before)
                if reader.block_paste
                    && let Some(mut steps) = input::python_steps(&format!("{before}\n"))
                    && !steps.is_empty() =>
            {
                let first = steps.remove(0);
                steps.push(input::shape(&unended.last, false, reader)?);
                (first, Some(steps))
            }
            Some(before) => {
                let text = format!(
                    "{}{}",
                    input::python_ended_statements(&format!("{before}\n"))
                        .unwrap_or_else(|| format!("{before}\n")),
                    unended.last
                );
                (input::shape(&text, false, reader)?, None)
            }
            None => (input::shape(&unended.last, false, reader)?, None),
        };
        holds_unended = Some(match (unended.before.is_some(), typed) {
            (false, Some(typed)) if !repl.at_primary || goes_on_with_line => {
                format!("{typed}{}", unended.last)
            }
            _ => unended.last,
        });
        shaped
    } else {
        (input::shape(text, request.submit, reader)?, None)
    };
    let holds = if let Some(unended) = holds_unended {
        Some(unended)
    } else if let Some((_, rest)) = &split {
        Some(submitted(rest))
    } else if (repl.at_primary && !goes_on_with_line) || ends_block {
        Some(submitted(text))
    } else if at_continuation || goes_on_with_line {
        typed.map(|typed| format!("{typed}{}", submitted(text)))
    } else {
        None
    };
    let indent_cleared = repl
        .indent
        .filter(|_| at_continuation && !ends_block && !shaped.0.is_empty())
        .unwrap_or(0);
    if indent_cleared > 0 {
        shaped.0 = [LINE_DISCARD, &shaped.0].concat();
    }
    Ok(Typing {
        input: shaped.0,
        steps: shaped.1,
        holds,
        indent_cleared,
    })
}

/// The lines `goes_on` that go on with an open statement, then, when it is a block (`block`),
/// the empty line that ends it, then the statements of `rest`, each ended as a file would have
/// it: as pastes, each once the REPL reads again, to a REPL that takes them; typed, paced by
/// lines, to one without.
fn after_block_lines(
    goes_on: &str,
    rest: &str,
    reader: Reader,
    block: bool,
) -> Result<Inputs, TerminalError> {
    let rest = format!("{}\n", rest.replace("\r\n", "\n"));
    if reader.block_paste
        && let Some(rest) = input::python_steps(&rest)
    {
        let first = input::shape(goes_on, true, reader)?;
        let end = block.then(|| ENTER.to_vec());
        return Ok((first, Some(end.into_iter().chain(rest).collect())));
    }
    let text = match input::python_ended_statements(&rest) {
        Some(rest) if block => format!("{goes_on}\n\n{rest}"),
        Some(rest) => format!("{goes_on}\n{rest}"),
        None => format!("{goes_on}\n{rest}"),
    };
    Ok((input::shape(&text, false, reader)?, None))
}

/// Text sent without Enter to a Python REPL, cut where its last statement begins (see
/// [`unended_statement`]).
struct Unended {
    /// The statements before the last, when there are some (only at the primary prompt).
    before: Option<String>,
    /// The last statement without the blank lines inside it, its last line unended.
    last: String,
}

/// [`Unended`] for `text` sent without Enter to a REPL that holds `typed` of a statement;
/// `at_primary`: it reads a new statement, with nothing on its line; `pastes`: it takes a
/// paste as one block. `None` when no statement of the text holds a blank line inside it and,
/// to a REPL that takes pastes, the text is one statement (it goes as it is: typed, each line
/// reaches the REPL as a file's would; pasted, the REPL holds it whole).
fn unended_statement(
    text: &str,
    typed: Option<&str>,
    at_primary: bool,
    pastes: bool,
) -> Option<Unended> {
    let text = text.replace("\r\n", "\n");
    let mut statements = if at_primary {
        input::python_statements(&text)
    } else {
        vec![text.clone()]
    };
    let last = statements.pop()?;
    let last_typed = input::python_block_rest(typed.filter(|_| !at_primary).unwrap_or(""), &last);
    let inner_blank = |statement: &String| input::python_block_rest("", statement) != *statement;
    let several = pastes && !statements.is_empty();
    if last_typed == last && !several && !statements.iter().any(inner_blank) {
        return None;
    }
    let before = statements.concat();
    let before = before.trim_end();
    Some(Unended {
        before: (!before.is_empty()).then(|| before.to_owned()),
        last: last_typed,
    })
}

#[cfg(test)]
mod tests;
