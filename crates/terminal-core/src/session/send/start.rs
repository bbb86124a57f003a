//! Starting a [`SendOp`]: the session's send slot reserved, the input shaped for the program
//! that will read it (see `input`) and split into the steps it is typed in (see [`pacing`]),
//! and the driver spawned.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8};

use parking_lot::Mutex;
use tokio::sync::{Notify, watch};
use tracing::Instrument as _;

use crate::error::TerminalError;
use crate::pty::TtyModes;
use crate::types::SendRequest;

use super::super::Inner;
use super::super::input;
use super::super::nested_shell::is_shell_name;
use super::super::observe::{
    continuation_indent, is_block_continuation_prompt, is_primary_repl_prompt,
    is_programs_own_prompt,
};
use super::super::shared::UnendedLine;
use super::pacing::insert_paste;
use super::{SendOp, Span, node_input, pacing, python_input, statement_read, waiting_prompt};

mod counted_read;
mod python_reader;
mod readers;
mod refusals;
mod repl_at_start;
mod shell_line;

impl SendOp {
    /// Reserves the session's send slot and starts the driver. `initializing` is the startup
    /// send (empty input, settles on the first prompt).
    ///
    /// # Errors
    /// `Closing`, `Exited`, `SendActive`, `InputPending`.
    pub(in crate::session) fn start(
        inner: &Arc<Inner>,
        mut request: SendRequest,
        initializing: bool,
    ) -> Result<Arc<SendOp>, TerminalError> {
        let shared = &inner.shared;
        let mut st = shared.lock();
        st.check_usable(&shared.id)?;
        if let Some(active) = &st.active {
            return Err(if active.is_settled() {
                TerminalError::input_pending(&shared.id)
            } else {
                TerminalError::send_active(&shared.id)
            });
        }
        if request.submit && input::ends_with_ending_key(&request.text) {
            request.submit = false;
        }
        let fg = shared.pty.foreground_pgid();
        let modes = shared.pty.modes();
        // Our shell holds the terminal, not a program that replaced it in its process group
        // (`exec python3`: that program is handled as one a command started), nor one it
        // started there with job control off (`set +m`, then `python3`). At our prompt with
        // nothing printed after its end mark it is ours: `/proc` is read only otherwise.
        let our_shell = fg == Some(shared.shell_pgid())
            && (st.screen.prompt_state() == crate::screen::PromptState::Prompt
                || shared.shell_holds_its_group());
        let shell_line_editor = our_shell && modes.is_some_and(TtyModes::line_editing);
        readers::refuse_for_the_reader(&mut st, shared, (fg, modes), shell_line_editor, &request)?;
        // A key for a program asking for one goes first, the rest (its other keys, the Enter)
        // only once the reader shows it took the key (see `key_answer`).
        let line_unended = st.typed_unended;
        let alternate = st.screen.alternate_screen();
        // Keys to a full-screen program reading them (vim): whether they leave it typing text
        // (see `pager_guard::insert_keys`), from the text as sent (a key answer below may take
        // its keys apart).
        let editor_insert = fg
            .filter(|&pgid| {
                alternate && pgid != shared.shell_pgid() && modes.is_some_and(|m| !m.canonical)
            })
            .map(|pgid| {
                let inserting = super::pager_guard::insert_keys::inserting_after(
                    st.editor_insert == Some(pgid),
                    &request.text,
                    request.submit,
                );
                inserting.then_some(pgid)
            });
        // The shell itself holds the terminal in a key reader's modes but does not read it (its
        // `read` was interrupted, and it is on its way back to its prompt, whose hook restores
        // readline's modes): a command sent now is the shell's, no key answer.
        let shell_not_reading = our_shell
            && !shell_line_editor
            && modes.is_some_and(|m| !m.canonical)
            && shared.tty_reader(shared.shell_pgid()).is_none();
        // Nor while a signal's aftermath is pending: the program it went to may be ending,
        // and the text is for whatever reads once it played out (see `prepare`).
        let aftermath_pending = st.redraw_pending.is_some();
        let answer = if aftermath_pending {
            None
        } else {
            super::key_answer::key_answer(
                &mut st,
                shared,
                modes,
                fg,
                shell_line_editor || shell_not_reading,
                (&request.text, request.submit),
            )
        };
        // A line sent with Enter that goes as keys, for the notice of a command line taken as
        // an answer (see `waiting_prompt`): its keys go one at a time, and only the first now.
        let (answer_rest, keyed_line) = match answer {
            Some(answer) => {
                let sent = std::mem::replace(&mut request.text, answer.key);
                let keyed_line = std::mem::replace(&mut request.submit, false).then_some(sent);
                (Some(answer.checked), keyed_line)
            }
            None => (None, None),
        };
        let canonical = modes.map(|m| m.canonical);
        let prompts = st.screen.prompt_end_count();
        let unended_line_bytes = st
            .unended_line
            .filter(|line| canonical == Some(true) && line.prompts == prompts)
            .map_or(0, |line| line.bytes);
        let program = fg.is_some() && !our_shell;
        // A program reading keys: the cursor row's text before the cursor, once, for the
        // REPL prompts below.
        let (cursor_row, cursor_col) = if program && canonical == Some(false) {
            (st.screen.cursor_row_prefix(), st.screen.cursor().col)
        } else {
            (None, 0)
        };
        // Blanks an auto-indenting REPL put on the continuation line it opened (no send typed
        // them).
        let indent = cursor_row
            .as_deref()
            .filter(|_| !st.typed_unended)
            .and_then(|row| continuation_indent(row, cursor_col));
        let at_repl_prompt = cursor_row.as_deref().is_some_and(is_primary_repl_prompt);
        // The name of the program the group runs (see `python_input::group_program`), for
        // several lines to it, or any text to a REPL at its prompt or a Python REPL an earlier
        // send typed to.
        let leader = fg
            .filter(|_| {
                program
                    && (request.text.trim_end().contains(['\n', '\r'])
                        || st.python_block.is_some()
                        || indent.is_some()
                        || at_repl_prompt)
            })
            .and_then(|pgid| python_input::group_program(shared, pgid));
        // A statement's read the last result named (see `statement_read`): its prompt is the
        // statement's, its answer goes as to any line reader, and a block is refused.
        let statement_reads = program && statement_read::waits(&mut st, shared, fg);
        // A program's own prompt before the cursor, not a Python REPL's, nor a statement
        // earlier sends left open, nor text printed after the prompt of a REPL that settled
        // there with nothing sent since: the lines there answer it, and the prompts after it,
        // one each.
        let own_prompt = cursor_row.as_deref().is_some_and(is_programs_own_prompt)
            && !statement_reads
            && st.python_block.is_none()
            && indent.is_none()
            && (!st.repl_idle_at_prompt || st.typed_unended);
        let python_repl = leader.as_deref().is_some_and(input::pastes_blocks) && !own_prompt;
        // A block to a Python REPL still running a statement, or not back at its prompt after
        // a signal, is refused (see `check_busy`); a one-line block too, whose REPL is named
        // here (the leader above is named for several lines).
        let block_to = if leader.is_some() {
            leader.clone().filter(|_| python_repl)
        } else if program && !own_prompt && python_input::has_block(&request.text) {
            fg.and_then(|pgid| python_input::group_program(shared, pgid))
                .filter(|name| input::pastes_blocks(name))
        } else {
            None
        };
        // Not to a Python program that is no REPL (`python3 app.py`, pip, `make test`): its
        // statements are none of the text's business.
        if let Some(program) = block_to
            && fg.is_some_and(|pgid| python_input::runs_a_python_repl(&st, shared, pgid))
        {
            let busy = python_input::statement_busy(
                &mut st,
                shared,
                &program,
                fg,
                python_input::ReplSight {
                    cursor_row: cursor_row.as_deref(),
                    canonical,
                    at_repl_prompt,
                    aftermath_pending,
                },
            );
            python_input::check_busy(&program, busy, &request.text)?;
        }
        let bracketed_paste = st.screen.bracketed_paste()
            && !st.screen.alternate_screen()
            && program
            && canonical != Some(true);
        // A full-screen program that takes pastes: text in its insert mode goes as one (see
        // `insert_paste`), and line ends apart, for the insert mode a line may begin.
        let full_screen_pastes = st.screen.bracketed_paste()
            && st.screen.alternate_screen()
            && program
            && canonical == Some(false);
        let insert_mode = full_screen_pastes
            .then(|| insert_paste::insert_mode(&mut st.screen))
            .flatten();
        let last_line = request
            .text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| l.trim().to_owned());
        let reader = input::Reader {
            canonical: canonical == Some(true),
            bracketed_paste,
            // Not to a Python REPL that reads with GNU readline (Python 3.7 and older turn
            // its pastes on): it takes a paste as one line; its lines are typed, as to the
            // REPLs of Python 3.8 to 3.12.
            block_paste: bracketed_paste
                && python_repl
                && !modes.is_some_and(TtyModes::readline_editing),
            // Readline's modes: the shell's own `read -n 1` (cbreak, carriage return mapped) is
            // a key reader, not the line editor.
            shell_line_editor,
            unended_line_bytes,
            quoted_tabs: program
                && !st.screen.alternate_screen()
                && modes.is_some_and(TtyModes::line_editing),
            // Also to the shell's own `read` with the terminal left raw (`stty raw; read x`:
            // no canonical mode, no CR-to-NL mapping): it reads to a newline, and the
            // carriage return of a terminal's Enter ended no line (the send came back with
            // nothing, the read still waiting).
            newline_enter: modes.is_some_and(|m| {
                m.cr_ends_no_line()
                    || (our_shell && !shell_line_editor && !m.canonical && !m.maps_cr)
            }),
        };
        // Text a line editor at its prompt, the shell's or a REPL's, would change silently is
        // refused (see `refusals`).
        let repl_line_editor = program
            && canonical == Some(false)
            && !alternate
            && (at_repl_prompt || python_repl || modes.is_some_and(TtyModes::line_editing));
        refusals::refuse_literal_escape(
            shared,
            fg,
            &request.text,
            shell_line_editor,
            repl_line_editor,
        )?;
        let python_own_repl = python_repl
            && bracketed_paste
            && refusals::is_python_own_repl(modes, leader.as_deref(), cursor_row.as_deref());
        refusals::refuse_dropped_tabs(python_own_repl, &request.text, request.submit)?;
        // A program reading a counted amount in canonical mode (`head -c 5`, `dd bs=1
        // count=1`) leaves the rest of a longer line to the shell, which would run it.
        if program && canonical == Some(true) && !aftermath_pending {
            counted_read::refuse_past_a_counted_read(&mut st, shared, fg, &request)?;
        }
        if shell_line_editor {
            refusals::refuse_key_taking_the_enter(&request.text, request.submit)?;
        }
        let at_continuation =
            super::open_command::check(&st, shell_line_editor, &request.text, request.submit)?;
        let python_reader::ReplView {
            cursor_row,
            reads: python_reader,
            no_prompt_shown,
            at_line_primary,
            prompts_unseen,
        } = python_reader::view(
            &mut st,
            shared,
            python_reader::Sight {
                fg,
                python_repl,
                canonical,
                leader: leader.as_deref(),
                text: &request.text,
            },
            cursor_row,
        );
        // Several lines to node's REPL at its prompt (not a script's prompt written like
        // it): as one unit, through its editor mode (see `node_input`).
        let node_editor = at_repl_prompt
            && canonical == Some(false)
            && !st.typed_unended
            && leader.as_deref().is_some_and(node_input::has_editor_mode)
            && fg.is_some_and(super::super::observe::leader_runs_a_repl);
        if python_reader && request.submit {
            python_input::check_keys_before_block(&request.text)?;
        }
        let mut via_node_editor = false;
        let typing = if python_reader {
            // The REPL's own prompt, not a debugger's (`(Pdb) `, `(com) `: pdb reads commands,
            // and an empty line repeats the last one), or none shown (above).
            let at_primary = (((at_repl_prompt || at_line_primary)
                && !cursor_row
                    .as_deref()
                    .is_some_and(|row| row.trim_start().starts_with('(')))
                || no_prompt_shown)
                && !statement_reads;
            // Text earlier sends typed without Enter that the REPL's line no longer shows
            // (editing keys erased it: Ctrl-U, backspaces; a Ctrl-C dropped it) is gone: the
            // line is empty at a prompt, and at the primary one no statement is open (taken
            // for still there, a block sent next went on with that line, its first blank line
            // ended it and the rest ran as wrong statements).
            let erased = st.typed_unended
                && cursor_row.as_deref().is_some_and(|row| {
                    is_primary_repl_prompt(row) || is_block_continuation_prompt(row)
                })
                && st.screen.cursor_row_rest_blank();
            let typed = match st.python_block.take() {
                Some(_) if erased && at_primary => None,
                Some(typed) if erased => typed.rfind('\n').map(|end| typed[..=end].to_owned()),
                typed => typed,
            };
            python_input::typing(
                &request,
                reader,
                python_input::Repl {
                    at_primary,
                    at_continuation: !at_primary
                        && !statement_reads
                        && cursor_row
                            .as_deref()
                            .is_some_and(is_block_continuation_prompt),
                    indent,
                    typed,
                    line_unended: st.typed_unended && !erased,
                    prompts_unseen,
                },
            )?
        } else if let Some(mut steps) = node_editor
            .then(|| node_input::editor_steps(&request.text, request.submit))
            .flatten()
        {
            via_node_editor = true;
            st.python_block = None;
            let input = steps.remove(0);
            python_input::Typing {
                input,
                steps: Some(steps),
                holds: None,
                indent_cleared: 0,
            }
        } else {
            st.python_block = None;
            python_input::Typing {
                input: input::shape(
                    input::without_doubled_enter(&request.text, request.submit),
                    request.submit,
                    reader,
                )?,
                steps: None,
                holds: None,
                indent_cleared: 0,
            }
        };
        let python_input::Typing {
            input,
            steps: statements,
            holds,
            indent_cleared,
        } = typing;
        // Arrow keys go in the form the program asked for, once the input is split into steps
        // (which take `ESC [ A` for one key, and `ESC O` then a letter for vim's keys apart).
        let app_cursor = st.screen.application_cursor();
        // What a REPL holds is not known when the text may reach another reader: the
        // program a signal's aftermath may end or stop (`fg` sent right after a SIGTSTP to the
        // REPL is the shell's).
        st.python_block = holds.filter(|_| !aftermath_pending);
        if !input.is_empty() {
            st.repl_idle_at_prompt = false;
        }
        let (input, cleared_line) =
            shell_line::clear_before(inner, &mut st, reader.shell_line_editor, &request, input);
        let last_input = statements
            .as_ref()
            .and_then(|steps| steps.last())
            .unwrap_or(&input);
        if !last_input.is_empty() {
            // A key answer's rest ends the line or is dropped: nothing of it waits on a line.
            // Node's editor mode ends with the Ctrl-D that runs the lines.
            let editor_run = node_editor && last_input.as_slice() == b"\x04";
            st.typed_unended = answer_rest.is_none()
                && !matches!(last_input.last(), Some(b'\n' | b'\r'))
                && !editor_run;
            st.typed_escape_last = st.typed_unended && last_input.last() == Some(&0x1b);
            st.typed_unended_at_shell = st.typed_unended && reader.shell_line_editor;
        }
        if let Some(inserting) = editor_insert {
            st.editor_insert = inserting;
        }
        st.unended_line = if reader.canonical {
            input::unended_after(&request.text, request.submit, unended_line_bytes)
                .map(|bytes| UnendedLine { bytes, prompts })
        } else {
            None
        };
        // A REPL mode without a prompt (node's `.editor`) lasts until Ctrl-D or Ctrl-C ends
        // it, for the group that entered it: the sends in it owe no prompt either.
        let in_promptless_mode = program
            && st.promptless_repl.is_some_and(|group| Some(group) == fg)
            && !request.text.contains(['\u{4}', '\u{3}']);
        // Only node's REPL has that mode: to Python, sqlite3 or gdb `.editor` is an error or
        // a command of theirs, and their prompt comes back. A line of the send enters it (the
        // lines after it go into its buffer), unless a Ctrl-D or Ctrl-C in the send ends it;
        // whether node's REPL took it (not a script reading lines) its banner tells, once the
        // send settles (see `settle::EDITOR_BANNER`).
        let editor_line = node_input::editor_line(&request.text);
        let entered = fg
            .filter(|_| {
                program && editor_line.is_some() && !request.text.contains(['\u{4}', '\u{3}'])
            })
            .filter(|&pgid| {
                python_input::group_program(shared, pgid)
                    .as_deref()
                    .is_some_and(node_input::has_editor_mode)
            });
        let lines_after_editor =
            editor_line.is_some_and(|at| node_input::lines_after(&request.text, at));
        let own_line = if request.text.is_empty() {
            st.last_sent_line.clone()
        } else {
            st.last_sent_line.clone_from(&last_line);
            last_line.clone()
        };
        st.promptless_repl = entered.or(fg.filter(|_| in_promptless_mode));
        let submits = input::submits_a_command(&request.text, request.submit);
        // The text carries a key that ends or interrupts a reader (Ctrl-C, Ctrl-D, Ctrl-Z,
        // Ctrl-\): no answer to it.
        let ends_a_reader = request
            .text
            .contains(['\u{3}', '\u{4}', '\u{1a}', '\u{1c}']);
        // A line to a reader with echo off (a password prompt, the shell's `read -s`): it
        // answers that prompt, and nothing of it shows.
        let answered_password = (!reader.shell_line_editor
            && modes.is_some_and(|m| !m.echo && m.canonical)
            && (request.submit || request.text.contains(['\n', '\r']))
            && !ends_a_reader)
            .then(|| {
                st.screen
                    .cursor_row_prefix()
                    .map(|p| p.trim().to_owned())
                    .unwrap_or_default()
            });
        // Also to the shell's line editor: its `read -e` asks (see `waiting_prompt`).
        let (sent, sent_submit) = match keyed_line.as_deref() {
            Some(line) => (line, true),
            None => (request.text.as_str(), request.submit),
        };
        let to_waiting_prompt = (sent_submit && !ends_a_reader && answered_password.is_none())
            .then(|| waiting_prompt::command_to_waiting_prompt(&mut st, shared, fg, modes, sent))
            .flatten();
        // A line to a read with no prompt that a REPL's statement made, which the last result
        // named (see `statement_read`): it is that read's input, not a statement.
        let to_statement_read = (sent_submit && !ends_a_reader && to_waiting_prompt.is_none())
            .then(|| statement_read::line_to_read(&mut st, shared, fg, sent))
            .flatten();
        let repl_at_start = (program && !via_node_editor)
            .then(|| {
                repl_at_start::group(
                    &mut st,
                    shared,
                    fg,
                    canonical,
                    cursor_row.as_deref(),
                    &leader,
                )
            })
            .flatten();
        let op = Arc::new(SendOp {
            shared: Arc::clone(shared),
            result: watch::channel(None).0,
            wake: Notify::new(),
            span: Mutex::new(Span {
                answered_password,
                typed_hidden: !reader.shell_line_editor && modes.is_some_and(|m| !m.echo),
                ..Span::default()
            }),
            settled: AtomicBool::new(false),
            finished: AtomicBool::new(false),
            in_flight: AtomicBool::new(false),
            signal_unsettled: AtomicBool::new(false),
            typed_ahead_of: Mutex::new(None),
            timeout: request.timeout,
            untyped_dropped: AtomicBool::new(false),
            held_dropped: AtomicBool::new(false),
            refused: Mutex::new(
                to_waiting_prompt
                    .as_ref()
                    .map(|to| to.notice.clone())
                    .or_else(|| to_statement_read.as_ref().map(|(notice, _)| notice.clone())),
            ),
            untyped_after_answer: Mutex::new(None),
            waiting_prompt_notices: to_waiting_prompt.clone(),
            to_prompts: Mutex::new(
                to_waiting_prompt
                    .as_ref()
                    .map(|to| to.entry.clone())
                    .or(to_statement_read.map(|(_, entry)| entry))
                    .map(|entry| vec![(1, entry)])
                    .unwrap_or_default(),
            ),
            ends_its_reader: request.text.lines().any(input::ends_its_reader),
            cleared_line,
            indent_cleared,
            shell_continued: AtomicBool::new(false),
            at_continuation,
            unprompted_wait: AtomicU8::new(super::UNPROMPTED_NO),
            promptless: entered.is_some() || in_promptless_mode,
            in_promptless_mode,
            enters_promptless_mode: entered.is_some(),
            lines_after_editor,
            own_line,
            last_line,
            submits_command: reader.shell_line_editor && submits,
            turns_on_errexit: reader.shell_line_editor && input::turns_on_errexit(&request.text),
            sets_exiting_err_trap: reader.shell_line_editor
                && input::sets_an_exiting_err_trap(&request.text),
            // A poll (no text) edits nothing: what it shows is the output since.
            edits_shell_line: reader.shell_line_editor && !request.text.is_empty() && !submits,
            keys_while_a_program_ran: program && !request.text.is_empty() && !submits,
            enter_withheld: AtomicBool::new(false),
            rest_withheld: AtomicBool::new(false),
            keys_withheld: AtomicBool::new(false),
            keys_withheld_rest: Mutex::new(None),
            // Not when the send ends the reader itself (an end-of-file or signal key, or a
            // REPL's or an editor's quit command among its lines). A program's line editor
            // (a REPL at its prompt) counts too: lines after one that ended the REPL by
            // surprise (a statement that exits, a failing first statement) were its input.
            answers_a_line_reader: !reader.shell_line_editor
                && (canonical == Some(true)
                    || (program && canonical == Some(false))
                    || modes.is_some_and(TtyModes::single_keys))
                && !ends_a_reader
                && !request.text.lines().any(input::quits_a_program),
            // In node's editor mode, which this send enters, the rows show no prompt.
            repl_at_start,
        });
        st.active = Some(Arc::clone(&op));
        drop(st);
        let typing = pacing::Typing {
            shell_line_editor: reader.shell_line_editor,
            canonical,
            program,
            shell_reads_lines: reader.canonical && leader.as_deref().is_some_and(is_shell_name),
            line_ends_apart: full_screen_pastes,
            key_reader: !alternate && modes.is_some_and(TtyModes::single_keys),
        };
        let (input, mut pacing) = pacing::Pacing::for_reader(input, &typing);
        let input = match insert_mode {
            Some(blank_before_cursor) => {
                let replace = insert_paste::replaces_indent(&input, blank_before_cursor);
                insert_paste::paste_text(&input, &mut pacing, replace).unwrap_or(input)
            }
            None => input,
        };
        // Several statements to a Python REPL that takes pastes: one per step, each once the
        // REPL reads again. Pasted as one block, Python 3.13's REPL shows a continuation
        // prompt after Enter and waits for an empty line, taking the next send into the block.
        if let Some(steps) = statements {
            pacing.plan_statements(steps);
        }
        let input = match answer_rest {
            Some((rest, check)) => {
                pacing.check_answer_rest(rest, check);
                input
            }
            // The first of several lines to a key reader (cbreak, or raw mode on the main
            // screen): an answer of its own.
            None if !alternate
                && canonical == Some(false)
                && !aftermath_pending
                && !shell_not_reading
                && !line_unended
                && pacing.is_pending() =>
            {
                op.key_step(shared, input, &mut pacing, fg)
            }
            None => input,
        };
        let input = if app_cursor {
            pacing.rewrite_steps(input::application_cursor_keys);
            input::application_cursor_keys(input)
        } else {
            input
        };
        let driver = Arc::clone(&op).drive(Arc::clone(inner), input, pacing, initializing);
        inner.runtime.spawn(driver.instrument(inner.span.clone()));
        Ok(op)
    }
}
