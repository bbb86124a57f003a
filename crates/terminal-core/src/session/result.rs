//! Result assembly: the pure step from "why the send settled" plus the facts gathered at
//! settlement to the [`SendResult`] the caller sees. Tested without a PTY.

mod notices;

pub(in crate::session) use self::notices::OutputNotes;
pub use self::notices::rewound_notice;
use self::notices::*;
use crate::readiness::Settle;
use crate::screen::{PlacedHead, Rendered};
use crate::types::{
    EarlierExits, InputMode, LineStart, SendHead, SendResult, SessionStatus, WaitReason,
};

/// Text no send typed that stood before a send's command line at the shell's prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum TextBeforeLine {
    /// After the prompt on its row (or rows it wraps onto): perhaps on the input line (a
    /// program pushed it into the terminal's input), so the line was emptied first (see
    /// `PtySpawnSpec::clear_line_keys`).
    Input(String),
    /// Output a background job printed on a row below the prompt's, before the cursor (see
    /// `Screen::output_before_input_line`): the command line's echo shows right after it.
    Output(String),
}

/// Everything gathered when a send settles.
#[derive(Clone, Debug)]
pub(super) struct SettleFacts {
    /// Why it settled.
    pub(super) reason: Settle,
    /// The viewport rendered from the send's anchor.
    pub(super) rendered: Rendered,
    /// The number of the viewport's last line (see [`SendResult::newest_line`]).
    pub(super) newest_line: Option<u64>,
    /// Session status at settlement.
    pub(super) status: SessionStatus,
    /// The commands that finished since the anchor before the result's own.
    pub(super) exits: EarlierExits,
    /// The exit status of the newest prompt mark.
    pub(super) last_exit_code: Option<i32>,
    /// A full-screen program holds the alternate screen.
    pub(super) alternate: bool,
    /// The screen shows a continuation prompt.
    pub(super) continuation: bool,
    /// The continuation prompt is a REPL's that waits for the rest of an SQL statement.
    pub(super) statement_continuation: bool,
    /// The tty has echo off in canonical mode (a password prompt).
    pub(super) echo_off: bool,
    /// The program waiting reads single keys (cbreak mode).
    pub(super) single_key: bool,
    /// Name of the foreground program when it is not the shell.
    pub(super) foreground: Option<String>,
    /// Raw bytes read since the anchor.
    pub(super) output_bytes: u64,
    /// The send's first output lines, when the rendered viewport lost its start.
    pub(super) head: Option<PlacedHead>,
    /// The shell's prompt gave the main screen back from an alternate screen a program left
    /// on.
    pub(super) left_alternate: bool,
    /// A full-screen program took the alternate screen and left it again within this result
    /// (and the prompt did not carry its last screen over): what it showed there is gone.
    pub(super) alternate_came_and_went: bool,
    /// The editor of vim's family that holds the terminal in a mode that types text, and
    /// that mode (`insert`, `replace` or `select`).
    pub(super) editor_inserting: Option<(String, &'static str)>,
    /// The shell's prompt hook set the terminal modes a command left changed back to the
    /// session's (a `D` mark said so).
    pub(super) modes_restored: bool,
    /// A prompt's `D` mark said the shell's errexit (`set -e`) is on, where the one before
    /// said it was off: a command that fails now ends the shell.
    pub(super) errexit_on: bool,
    /// The shell exited during a send that turned on its errexit (`set -e; false`): the first
    /// command that failed ended it.
    pub(super) errexit_ended: bool,
    /// The send set a trap on `ERR` that exits, in the shell itself (`trap 'exit 3' ERR`): a
    /// command that fails now ends the shell (or ended it, when it exited).
    pub(super) exiting_err_trap: bool,
    /// The shell provably prints no prompt marks now (it `exec`ed another program, or a
    /// nested shell holds the terminal): exit statuses are unknown.
    pub(super) marks_gone: bool,
    /// Our shell reads at its line editor with no marked prompt since the command was
    /// submitted: the command replaced the prompt strings and hooks that print the marks (its
    /// exit status is unknown), or a builtin reads with the line editor (`read -e`).
    pub(super) prompt_unmarked: bool,
    /// The foreground program has not read input written to the terminal (the shell itself,
    /// running a command line, when `foreground` is `None`).
    pub(super) input_unread: bool,
    /// A full-screen program holds the terminal and nothing reads it (`watch`).
    pub(super) reads_no_keys: bool,
    /// The terminal's signal keys are off (`ISIG`): `terminal_signal SIGINT` goes as a Ctrl-C
    /// key, which a program that reads no input never sees.
    pub(super) signal_keys_off: bool,
    /// The shell itself runs a command line of builtins (`wait`, a loop), holding the
    /// terminal, as the send settled on silence or its deadline.
    pub(super) shell_running_line: bool,
    /// The program waiting reads the terminal as a stream to the end of input (`cat > file`).
    pub(super) reads_to_end: bool,
    /// Our shell's standard error is not the terminal (`exec 2>file`): its prompts, the echo
    /// of typed keys and the marks go there (the backend's rc leaves its marks out then).
    pub(super) stderr_away: bool,
    /// Back at our prompt, our shell's standard output is not the terminal (`exec >file`):
    /// the commands it runs print there, so their output is missing from results.
    pub(super) stdout_away: bool,
    /// The foreground program waits on the terminal among other event sources (an event
    /// loop) with the cursor on an empty row, no prompt before it: node's REPL while an
    /// `await` or a timer of the line it read is pending reads keys but has not printed its
    /// prompt again.
    pub(super) unprompted_wait: bool,
    /// The output wrote over text an earlier program left on screen (the cursor was moved up
    /// without clearing): a row may mix the two.
    pub(super) screen_mixed: bool,
    /// Lines at the end of earlier results that the output went back up into and rewrote (or
    /// redrew): the result starts with them again (0: none).
    pub(super) rewound_lines: u64,
    /// The start of the unfinished line the previous result ended in (a program still
    /// running was writing it), which the result's first line goes on from.
    pub(super) continued_line: Option<String>,
    /// The previous result ended in a run of binary output still going on (its count so
    /// far), and this one starts with the run's summary line, which took that line's place:
    /// its count is the whole run's.
    pub(super) binary_run_continued: bool,
    /// Lines of the result after the one the shell's prompt came back on (the output moved
    /// the cursor up above lines it wrote before; 0: none).
    pub(super) lines_below_prompt: u64,
    /// The notice for a line of the input left untyped: the kernel would have cut it.
    pub(super) refused_line: Option<String>,
    /// The notice for lines left untyped because the reader an earlier line answered ended
    /// (after [`Self::refused_line`], which says where that line went).
    pub(super) untyped_after_answer: Option<String>,
    /// Text no send typed before the send's command line at the shell's prompt.
    pub(super) cleared_line: Option<TextBeforeLine>,
    /// Text that follows our shell's prompt, typed by no send, as the send settled: the
    /// prompt came back (the command's exit status is reported), and the next send empties
    /// the line first.
    pub(super) foreign_line: Option<String>,
    /// The line keys this send typed at our shell's prompt without Enter left there (a
    /// command an arrow recalled): it has not run.
    pub(super) edited_line: Option<String>,
    /// The session's shell itself is stopped (`suspend`, SIGSTOP) as the send settles.
    pub(super) shell_stopped: bool,
    /// The session's shell was stopped when the send began and was continued (SIGCONT) before
    /// its input was written.
    pub(super) shell_continued: bool,
    /// The foreground program is still there after this signal (the last SIGINT or SIGTERM
    /// sent to it), busy: it ignores or handles it.
    pub(super) survived: Option<crate::TerminalSignal>,
    /// The client cancelled an earlier send whose result nobody saw (this result shows its
    /// output), and its interrupt went to the command.
    pub(super) earlier_cancel: bool,
    /// Our prompt came back after the send submitted a command, but no mark carried that
    /// command's exit status.
    pub(super) exit_unknown: bool,
    /// The send ended because the session was closed while it waited (`terminal_close`, or
    /// the host ending).
    pub(super) closed: bool,
    /// The command names of processes the session started that still run after its shell
    /// exited (`nohup cmd &` outside a sandbox): they run until the session is closed.
    pub(super) left_running: Vec<String>,
    /// A key reader held the terminal as the send began: its text went without the Enter it
    /// asked for.
    pub(super) enter_withheld: bool,
    /// Of a `yes`/`no` word answering a yes/no question, only the first key went.
    pub(super) rest_withheld: bool,
    /// Of keys sent one at a time to a reader of single keys, it took the first ones and
    /// went on: the rest and the Enter were dropped.
    pub(super) keys_withheld: bool,
    /// With `keys_withheld`: the rest of a whole line dropped so (the line did not run).
    pub(super) keys_withheld_rest: Option<String>,
    /// The REPL in the foreground was in a mode with no prompt (node's `.editor`) when the
    /// send began, and still is: the lines went into its buffer.
    pub(super) promptless_mode: bool,
    /// What waits reads a line with echo on (canonical mode) and printed no prompt: the
    /// cursor is at the start of an empty row (`read line`, `input()`).
    pub(super) line_without_prompt: bool,
    /// With `line_without_prompt`: what reads is a statement of a REPL, which is not at its
    /// own prompt (`w = input()` at `>>> `), so a statement sent next would be that line.
    pub(super) statement_read: bool,
    /// A statement of a REPL waits for a line at this prompt of its own (`input('... ')` at
    /// `>>> `), not the REPL at a prompt of its.
    pub(super) statement_read_prompt: Option<String>,
    /// Settled on silence (`inferred_idle`) with the foreground reading the terminal among
    /// other sources (an event loop holding a socket, as a relay such as ssh does): it may be
    /// waiting for input, or for its other side.
    pub(super) idle_reading: bool,
    /// What the result says about its text where it shows differently from what the
    /// program printed (see [`OutputNotes`]).
    pub(super) output: OutputNotes,
    /// The foreground program is one command of a longer command line our shell runs (a
    /// loop, a list): the line goes on after it.
    pub(super) in_command_line: bool,
    /// That command line put commands in the background with `&`: they run on after an
    /// interrupt of the rest (`server & sleep 30`).
    pub(super) line_started_jobs: bool,
    /// A cancel (`job_kill`) ended the send before any of its text was written: the text
    /// waited for the foreground program, which an earlier send started, to read, and the
    /// cancel leaves that program running (the send ends as `timeout`).
    pub(super) cancelled_unwritten: bool,
    /// A signal or a cancel dropped the send's text before any of its line ends was typed:
    /// no command of it ran, so a status the prompt brings back is an earlier command's (the
    /// one the signal stopped), said as such rather than as this send's.
    pub(super) entered_none: bool,
    /// The foreground program is a REPL (running a statement when the send did not settle at
    /// its prompt): SIGINT interrupts the statement, and the REPL stays.
    pub(super) runs_a_repl: bool,
    /// The send's line went to a prompt reading with echo off (its text, empty when none
    /// showed): it answered that prompt, unseen.
    pub(super) answered_password: Option<String>,
    /// The send's text went in typed ahead while this program read nothing, and the command
    /// line ended with none of the text run after it: a prompt of the line took it.
    pub(super) typed_ahead_taken: Option<String>,
    /// The send's text went in typed ahead while this program read nothing (the terminal
    /// echoed it), and a prompt with echo off waits now.
    pub(super) typed_ahead_echoed: Option<String>,
    /// The send's text was held while this program read nothing, went to the first reader,
    /// and the command line ended with none of the text run after it: a prompt of the line
    /// took it.
    pub(super) held_text_taken: Option<String>,
}

/// What a REPL's continuation prompt waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ReplContinuation {
    /// The rest of a block (Python, node, IPython): an empty line ends it.
    Block,
    /// The rest of an SQL statement (sqlite3, psql, mysql): a `;` ends it.
    Statement,
}

/// The REPL continuation prompt `row` (the cursor row's text before the cursor, trailing
/// spaces trimmed) is, indented or not: `...` (Python, node) and `...:` (IPython) wait for
/// the rest of a block; sqlite3's `...>`, mysql's `->` (or `'>`, `">`, `` `> ``, `/*>` inside
/// a quote or comment) and psql's `dbname-#` (`-`, `(`, `'`, `"`, `*` or `$` before `#` or
/// `>`) wait for the rest of a statement.
pub(super) fn repl_continuation(row: &str) -> Option<ReplContinuation> {
    let row = row.trim_start_matches(' ');
    match row {
        "..." | "...:" => return Some(ReplContinuation::Block),
        "...>" | "->" | "'>" | "\">" | "`>" | "/*>" => return Some(ReplContinuation::Statement),
        _ => {}
    }
    // psql's PROMPT2 (`%/%R%# `): the database name, the state, then `#` or `>`.
    let mut tail = row.chars().rev();
    let psql = matches!(tail.next(), Some('#' | '>'))
        && matches!(tail.next(), Some('-' | '(' | '\'' | '"' | '*' | '$'))
        && tail.next().is_some_and(|c| c.is_alphanumeric() || c == '_')
        && !row.contains(char::is_whitespace);
    psql.then_some(ReplContinuation::Statement)
}

/// Whether `row` is a REPL's continuation prompt ([`repl_continuation`]).
pub(super) fn is_repl_continuation_prompt(row: &str) -> bool {
    repl_continuation(row).is_some()
}

/// The contract's wait reason for a readiness tier.
pub(super) fn wait_reason(reason: Settle) -> WaitReason {
    match reason {
        Settle::Exit => WaitReason::SessionExit,
        Settle::Prompt | Settle::Continuation | Settle::StdinWait => WaitReason::StdinRead,
        Settle::Idle => WaitReason::InferredIdle,
        Settle::Timeout => WaitReason::Timeout,
    }
}

/// Assembles the result. On exit the terminal facts (input mode, foreground) no longer apply;
/// `[exit: N]` is reported only when the prompt settled the send, and then the newest
/// finished command is the result's own, not an earlier one.
pub(super) fn assemble(facts: SettleFacts) -> SendResult {
    let reason = facts.reason;
    let exited = reason == Settle::Exit;
    let input_mode = if exited {
        InputMode::Normal
    } else if facts.alternate {
        InputMode::AlternateScreen
    } else if facts.statement_continuation {
        InputMode::StatementContinuation
    } else if reason == Settle::Continuation || facts.continuation {
        InputMode::Continuation
    } else if facts.echo_off {
        InputMode::EchoOff
    } else if facts.single_key {
        InputMode::SingleKey
    } else {
        InputMode::Normal
    };
    let head = facts.head.map(|h| SendHead {
        text: h.text,
        lines_dropped: h.lines_dropped,
        lines_between: h.lines_between_dropped,
        retained_lines_before: h.retained_lines_before,
        retained_bytes_before: h.retained_bytes_before,
        line_start: h.line_start.map(|start| LineStart {
            text: start.text,
            omitted_bytes: start.gap,
            start_dropped: start.start_dropped,
        }),
    });
    let notices = [
        (facts.earlier_cancel, Some(EARLIER_CANCEL_NOTICE.to_owned())),
        (
            facts.survived.is_some(),
            facts.survived.and_then(|signal| {
                survived_signal_notice(facts.foreground.as_deref().unwrap_or("the program"), signal)
            }),
        ),
        (facts.refused_line.is_some(), facts.refused_line.clone()),
        (
            facts.untyped_after_answer.is_some(),
            facts.untyped_after_answer.clone(),
        ),
        (
            facts.enter_withheld,
            Some(
                if facts.rest_withheld {
                    REST_WITHHELD_NOTICE
                } else {
                    ENTER_WITHHELD_NOTICE
                }
                .to_owned(),
            ),
        ),
        // Said beside a withheld Enter too: of several lines, one answer may have lost keys
        // and another only its Enter.
        (
            facts.keys_withheld,
            Some(keys_withheld_notice(facts.keys_withheld_rest.as_deref())),
        ),
        (
            facts.cleared_line.is_some(),
            facts.cleared_line.as_ref().map(|before| match before {
                TextBeforeLine::Input(text) => cleared_line_notice(text),
                TextBeforeLine::Output(text) => output_before_line_notice(text),
            }),
        ),
        (
            facts.foreign_line.is_some(),
            facts.foreign_line.as_deref().map(foreign_line_notice),
        ),
        (
            facts.edited_line.is_some(),
            facts.edited_line.as_deref().map(edited_line_notice),
        ),
        (
            facts.shell_continued,
            Some(SHELL_CONTINUED_NOTICE.to_owned()),
        ),
        (facts.shell_stopped, Some(SHELL_STOPPED_NOTICE.to_owned())),
        (
            facts.input_unread,
            Some(facts.foreground.as_deref().map_or_else(
                || SHELL_INPUT_UNREAD_NOTICE.to_owned(),
                |program| input_unread_notice(program, facts.signal_keys_off),
            )),
        ),
        (
            facts.shell_running_line && !facts.input_unread,
            Some(SHELL_RUNNING_LINE_NOTICE.to_owned()),
        ),
        (
            facts.reads_no_keys && !facts.input_unread,
            facts
                .foreground
                .as_deref()
                .map(|program| reads_no_keys_notice(program, facts.signal_keys_off)),
        ),
        (
            facts.reads_to_end && !exited,
            facts.foreground.as_deref().map(reads_to_end_notice),
        ),
        (
            facts.unprompted_wait && !exited,
            facts.foreground.as_deref().map(unprompted_wait_notice),
        ),
        (
            facts.promptless_mode && !exited,
            facts.foreground.as_deref().map(promptless_mode_notice),
        ),
        (
            matches!(reason, Settle::Idle | Settle::Timeout)
                && facts.survived.is_none()
                && !facts.alternate
                && !facts.input_unread
                && !facts.reads_no_keys
                && !facts.unprompted_wait,
            facts.foreground.as_deref().map(|program| {
                let why = match reason {
                    Settle::Timeout if facts.cancelled_unwritten => {
                        StillRunning::CancelledUnwritten
                    }
                    Settle::Timeout => StillRunning::Deadline,
                    _ if facts.idle_reading => return idle_reading_notice(program),
                    _ => StillRunning::Quiet,
                };
                still_running_notice(
                    program,
                    why,
                    (facts.in_command_line, facts.line_started_jobs),
                    facts.runs_a_repl,
                )
            }),
        ),
        (
            facts.refused_line.is_none() && !facts.input_unread,
            facts
                .foreground
                .as_deref()
                .zip(facts.statement_read_prompt.as_deref())
                .map(|(program, prompt)| statement_prompt_read_notice(program, prompt)),
        ),
        (
            facts.line_without_prompt
                && facts.refused_line.is_none()
                && !facts.reads_to_end
                && !facts.unprompted_wait
                && !facts.input_unread,
            Some(match facts.foreground.as_deref() {
                Some(program) if facts.statement_read => statement_read_notice(program),
                program => line_without_prompt_notice(program),
            }),
        ),
        (
            facts.rewound_lines > 0 && !facts.alternate,
            Some(rewound_notice(facts.rewound_lines, true)),
        ),
        (
            facts.continued_line.is_some() && !facts.alternate,
            facts.continued_line.as_deref().map(continued_line_notice),
        ),
        (
            facts.binary_run_continued && !facts.alternate,
            Some(BINARY_RUN_CONTINUED_NOTICE.to_owned()),
        ),
        (
            facts.lines_below_prompt > 0,
            Some(lines_below_prompt_notice(facts.lines_below_prompt)),
        ),
        (
            facts.screen_mixed && !facts.alternate,
            Some(SCREEN_MIXED_NOTICE.to_owned()),
        ),
        (facts.left_alternate, Some(LEFT_ALTERNATE_NOTICE.to_owned())),
        (
            facts.alternate_came_and_went,
            Some(ALTERNATE_CAME_AND_WENT_NOTICE.to_owned()),
        ),
        (
            facts.editor_inserting.is_some(),
            facts
                .editor_inserting
                .as_ref()
                .map(|(editor, mode)| editor_inserting_notice(editor, mode)),
        ),
        (facts.modes_restored, Some(MODES_RESTORED_NOTICE.to_owned())),
        (
            facts.errexit_on && !exited,
            Some(ERREXIT_ON_NOTICE.to_owned()),
        ),
        (
            facts.errexit_ended
                && exited
                && !matches!(
                    facts.status,
                    SessionStatus::Exited {
                        exit_code: Some(0),
                        ..
                    }
                ),
            Some(ERREXIT_ENDED_NOTICE.to_owned()),
        ),
        (
            facts.exiting_err_trap,
            Some(
                if exited {
                    ERR_TRAP_ENDED_NOTICE
                } else {
                    ERR_TRAP_ON_NOTICE
                }
                .to_owned(),
            ),
        ),
        (
            facts.marks_gone && !exited,
            Some(MARKS_GONE_NOTICE.to_owned()),
        ),
        (
            facts.prompt_unmarked && !facts.marks_gone && !exited,
            Some(PROMPT_UNMARKED_NOTICE.to_owned()),
        ),
        (
            facts.stderr_away && !exited,
            Some(STDERR_AWAY_NOTICE.to_owned()),
        ),
        (
            facts.stdout_away && !exited,
            Some(STDOUT_AWAY_NOTICE.to_owned()),
        ),
        (facts.exit_unknown, Some(EXIT_UNKNOWN_NOTICE.to_owned())),
    ];
    // Then the notices about the output's text, then those about the input.
    let after_output = [
        (
            facts.answered_password.is_some(),
            facts
                .answered_password
                .as_deref()
                .map(answered_password_notice),
        ),
        (
            facts.typed_ahead_taken.is_some(),
            facts
                .typed_ahead_taken
                .as_deref()
                .map(typed_ahead_taken_notice),
        ),
        (
            facts.held_text_taken.is_some(),
            facts.held_text_taken.as_deref().map(held_text_taken_notice),
        ),
        (
            facts.typed_ahead_echoed.is_some(),
            facts
                .typed_ahead_echoed
                .as_deref()
                .map(typed_ahead_echoed_notice),
        ),
        (facts.closed && exited, Some(CLOSED_NOTICE.to_owned())),
        (
            exited && !facts.closed && !facts.left_running.is_empty(),
            Some(left_running_notice(&facts.left_running)),
        ),
    ];
    let shown = |notices: Vec<(bool, Option<String>)>| {
        notices
            .into_iter()
            .filter(|(on, _)| *on)
            .filter_map(|(_, notice)| notice)
    };
    let notices = shown(notices.into())
        .chain(facts.output.notices())
        .chain(shown(after_output.into()))
        .collect();
    // A close that came once the prompt was back keeps the command's status.
    let exit_code = if reason == Settle::Prompt || facts.foreign_line.is_some() || facts.closed {
        facts.last_exit_code
    } else {
        None
    };
    let (exit_code, earlier_exits) = match exit_code {
        Some(code) if facts.entered_none => (None, with_earlier_exit(facts.exits, code)),
        exit_code => (exit_code, facts.exits),
    };
    SendResult {
        viewport: facts.rendered.text,
        wait_reason: wait_reason(reason),
        session_status: facts.status,
        truncated: facts.rendered.truncated,
        exit_code,
        foreground: if exited { None } else { facts.foreground },
        input_mode,
        earlier_exits,
        output_bytes: facts.output_bytes,
        head,
        notices,
        newest_line: facts.newest_line.filter(|_| !facts.alternate),
        prompt_owed: facts.unprompted_wait && !exited,
        prompt_unmarked: ((facts.prompt_unmarked && !facts.marks_gone) || facts.stderr_away)
            && !exited,
        entered_none: facts.entered_none,
    }
}

/// `exits` and then one more command that exited with `code`.
fn with_earlier_exit(mut exits: EarlierExits, code: i32) -> EarlierExits {
    let failures = if code == 0 {
        Vec::new()
    } else {
        vec![crate::types::EarlierFailure {
            position: 1,
            exit_code: code,
        }]
    };
    exits.append(&EarlierExits {
        finished: 1,
        failed: u64::from(code != 0),
        failures,
    });
    exits
}

#[cfg(test)]
mod tests;
