//! Result assembly: the pure step from "why the send settled" plus the facts gathered at
//! settlement to the [`SendResult`] the caller sees. Tested without a PTY.

mod facts;
mod notices;

pub(in crate::session) use self::facts::{SettleFacts, StoppedJob, TextBeforeLine};
pub(in crate::session) use self::notices::OutputNotes;
use self::notices::*;
pub use self::notices::{rewound_notice, stopped_job_advice};
use crate::readiness::Settle;
use crate::types::{
    EarlierExits, InputMode, LineStart, SendHead, SendResult, SessionStatus, WaitReason,
};

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
        // Nothing else says the text was typed: no program to name, the shell neither
        // stopped nor said to be running a line of its own.
        (
            facts.typed_unfinished
                && reason == Settle::Timeout
                && facts.foreground.is_none()
                && !facts.shell_stopped
                && !facts.input_unread
                && !facts.shell_running_line,
            Some(TYPED_UNFINISHED_NOTICE.to_owned()),
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
                if let Some(debugger) = facts.debugger {
                    return debugged_running_notice(program, debugger, why);
                }
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
                .map(|(program, prompt)| match facts.debugger {
                    Some(debugger) => debugged_read_notice(program, debugger, prompt),
                    None => statement_prompt_read_notice(program, prompt),
                }),
        ),
        (
            facts.line_without_prompt
                && facts.refused_line.is_none()
                && !facts.reads_to_end
                && !facts.unprompted_wait
                && !facts.input_unread,
            Some(match facts.foreground.as_deref() {
                Some(program) if facts.statement_read => match facts.debugger {
                    Some(debugger) => debugged_read_notice(program, debugger, ""),
                    None => statement_read_notice(program),
                },
                Some(program) if facts.repl_continued => repl_continued_notice(program),
                Some(program) if facts.counted_read.is_some() => counted_read_notice(
                    program,
                    &facts
                        .counted_read
                        .map(|read| read.takes())
                        .unwrap_or_default(),
                ),
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
    // One notice per job found stopped (none once the shell is gone with them).
    let stopped_jobs = facts
        .stopped_jobs
        .iter()
        .filter(|_| !exited)
        .map(stopped_job_notice);
    let notices = shown(notices.into())
        .chain(stopped_jobs)
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
