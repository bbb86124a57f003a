//! What a background send's job says about itself: its one-line label (kept free of what was
//! typed at a password prompt) and the status detail of its settled send.

use dsh_terminal_core::{
    EarlierExits, InputMode, SendResult, SessionId, SessionStatus, WaitReason,
};

/// Longest job label, in characters (the label is one line in `job_list` and notices).
const MAX_LABEL_CHARS: usize = 80;

/// `<session>: <first line of text>` (or `(input)`), one line, bounded; `(hidden input)` when
/// the text goes to a prompt with echo off (a password must not show in lists and notices).
pub(super) fn label(id: &SessionId, text: &str, hidden: bool) -> String {
    if hidden {
        return format!("{id}: (hidden input)");
    }
    let line: String = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let line = line.trim();
    if line.is_empty() {
        return format!("{id}: (input)");
    }
    let mut kept: String = line.chars().take(MAX_LABEL_CHARS).collect();
    if kept.len() < line.len() || text.trim_end().contains('\n') {
        kept.push('…');
    }
    format!("{id}: {kept}")
}

/// What a background send typed (see [`detail`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Typed {
    /// Text and Enter (or keys): a command, or an answer to a prompt.
    Line,
    /// Text without Enter: it stays on the input line.
    Unended,
    /// Nothing (an empty send without Enter: a poll).
    Nothing,
    /// Blank or comment-only lines with Enter: at the shell's prompt, no command.
    NoCommand,
}

impl Typed {
    /// What `text` (+ Enter when `submit`) types.
    pub(super) fn of(text: &str, submit: bool) -> Self {
        let last_line = text.rsplit(['\n', '\r']).next().unwrap_or_default();
        if submit
            && text
                .split(['\n', '\r'])
                .all(dsh_terminal_core::holds_no_command)
        {
            Self::NoCommand
        } else if submit {
            Self::Line
        } else if text.is_empty() {
            Self::Nothing
        } else if !last_line.is_empty() && !last_line.contains(char::is_control) {
            Self::Unended
        } else {
            Self::Line
        }
    }
}

/// How a job's detail ends when its text went to a program that held the terminal before the
/// job began (a REPL, a program's prompt loop) and that program reads input again: the job
/// is done, and the program is not the job's (`job_kill` leaves it, a later send is not said
/// to answer the job's question).
const READS_AGAIN: &str = "reads input again (it held the terminal before this job, which is \
     done: the next send goes to it)";
/// How a job's detail ends when its text went to a program that held the terminal before the
/// job began (a REPL) and that program now waits at a prompt of its own, not its REPL's (the
/// job's `input('Name? ')`): the job is done, the program is the agent's (`job_kill`
/// interrupts the question, SIGINT only, and leaves the program), and the next send answers
/// that prompt rather than running as a statement.
const ASKS_AGAIN: &str = "waits at a prompt of its own, not its REPL's (it held the terminal \
     before this job, whose text asked it something: the next send answers that)";
/// How a job's detail ends when its command stopped at a prompt of its own: the job is over,
/// the program is not (`job_kill` of the job stops it while no send answered it).
const WAITS_FOR_INPUT: &str = "waits for input (still running: the next send answers it, \
     job_kill stops it)";
/// How a job's detail ends when the session's shell reads at its line editor with no prompt
/// mark since the job's command (see `SendResult::prompt_unmarked`): most likely its prompt,
/// which the command replaced, so the job is done (`job_kill` leaves the shell, and a later
/// send is not said to answer a question of the job's).
const SHELL_UNMARKED: &str = "the shell reads with no prompt mark on the screen (most likely \
     at its prompt, which the command replaced or sent elsewhere, its exit status unknown; or \
     a builtin's read -e: see the notice)";
/// The detail of a job that stopped at a prompt (`detail`) once `job_kill` did `done` to the
/// program left waiting: it no longer says the program still runs.
pub(super) fn detail_after_kill(detail: &str, done: &str) -> String {
    detail_after(detail, done).unwrap_or_else(|| format!("{detail}; {done}"))
}

/// A job's `detail` once something (`since`, such as "a later send answered it") reached the
/// session after the job ended: an input mode that says what the next send does, or that the
/// program still runs, is put in the past with `since`; `None` for a detail that claims
/// nothing about the present (nothing to amend).
pub(super) fn detail_after(detail: &str, since: &str) -> Option<String> {
    PRESENT_MODES.iter().find_map(|(present, past)| {
        let head = detail.strip_suffix(present)?;
        Some(format!("{head}{past} ({since})"))
    })
}

/// The input modes of [`detail`] that speak of the present (the program still runs, what the
/// next send does), each with its past form for [`detail_after`].
const PRESENT_MODES: [(&str, &str); 12] = [
    (WAITS_FOR_INPUT, "waited for input"),
    (SHELL_UNMARKED, "the shell read with no prompt mark"),
    (SHELL_STARTED, "read commands at its prompt"),
    (CONTINUATION, "continuation prompt"),
    (STATEMENT_CONTINUATION, "continuation prompt"),
    (READS_AGAIN, "read input again"),
    (ASKS_AGAIN, "waited at a prompt of its own"),
    (TYPED_WITHOUT_ENTER, "typed without Enter"),
    (FULL_SCREEN, "full-screen program"),
    (SINGLE_KEYS, "single keys"),
    (ECHO_OFF, "echo off, a password prompt?"),
    (REPLACED_SHELL, "replaced the session's shell"),
];

/// [`detail`]'s input mode, after the program's name, for a program the job's command put in
/// place of the session's shell (`exec python3`): it is the session's own process, so
/// `job_kill` of the finished job leaves it (stopping it would end the session).
const REPLACED_SHELL: &str = "replaced the session's shell (exec) and still runs: the next send \
     goes to it; job_kill leaves it, for ending it ends the session (terminal_close does that)";

/// `detail` (from [`detail`]) for a job whose command put `program` in place of the session's
/// shell: [`REPLACED_SHELL`] in place of whatever input mode it gave.
pub(super) fn replaced_the_shell(detail: &str, program: &str) -> String {
    let head = detail
        .split_once(", input: ")
        .map_or(detail, |(head, _)| head);
    format!("{head}, input: {program} {REPLACED_SHELL}")
}

/// [`detail`]'s input mode for text the job typed without Enter at the shell's prompt.
const TYPED_WITHOUT_ENTER: &str =
    "typed without Enter (the text waits on the shell's input line; the next send continues it)";
/// The input mode of a job whose program is a shell or REPL it started (`sh`, `bash --norc`,
/// `node`), reading commands at its prompt: no question of the job's (see
/// [`at_shell_prompt`]).
const SHELL_STARTED: &str = "reads commands at its prompt (a shell or REPL this job started: \
     the next send goes to it; job_kill stops it)";

/// `detail` (from [`detail`]) for a job whose program, a shell or REPL the job started, waits
/// at its command prompt rather than at a question: [`SHELL_STARTED`] in place of the mode that says
/// a program waits for input.
pub(super) fn at_shell_prompt(detail: String) -> String {
    match detail.strip_suffix(WAITS_FOR_INPUT) {
        Some(head) => format!("{head}{SHELL_STARTED}"),
        None => detail,
    }
}

/// [`detail`]'s input mode for the session's shell at its continuation prompt (the job's text
/// left a command unfinished: an open `if`, quote or heredoc).
const CONTINUATION: &str = "continuation prompt (the shell waits for the rest of the command: \
     the next send continues it, job_kill discards it)";
/// [`detail`]'s input mode for a program (a REPL, a nested shell) at its continuation prompt:
/// the job's text left a statement unfinished (an open block, bracket or SQL statement).
const STATEMENT_CONTINUATION: &str = "continuation prompt (the program waits for the rest of \
     the statement: the next send continues it, job_kill discards it)";

/// Whether a job's `detail` says it left a program (not the session's shell) at its
/// continuation prompt (see [`STATEMENT_CONTINUATION`]): `job_kill` discards the statement
/// with SIGINT alone, and the program stays.
pub(super) fn left_a_statement(detail: &str) -> bool {
    detail.ends_with(STATEMENT_CONTINUATION)
}

/// [`detail`]'s input mode for a full-screen program (the job is over, the program is not).
const FULL_SCREEN: &str = "full-screen program (still running: the next send types keys to it, \
     such as its quit keys; job_kill stops it)";
/// [`detail`]'s input mode for a program reading single keys.
const SINGLE_KEYS: &str = "single keys (still running: the next send, with submit false, \
     answers it; job_kill stops it)";
/// [`detail`]'s input mode for a prompt with echo off.
const ECHO_OFF: &str = "echo off, a password prompt? (still running: the next send answers it, \
     job_kill stops it)";

/// Whether a job's `detail` (from [`detail`]) says its command stopped at a prompt of its own
/// (echo off and single keys included), and the waiting program's name when it was known
/// (`Some(None)`: a prompt of the shell's own `read`, or one with echo off or for one key).
pub(super) fn stopped_at_prompt(detail: &str) -> Option<Option<&str>> {
    if [ECHO_OFF, SINGLE_KEYS].iter().any(|mode| {
        detail
            .strip_suffix(mode)
            .is_some_and(|d| d.ends_with("input: "))
    }) {
        return Some(None);
    }
    let waiting = detail.strip_suffix(WAITS_FOR_INPUT)?;
    let (_, program) = waiting.rsplit_once("input: ")?;
    let program = program.trim_end();
    Some((!program.is_empty()).then_some(program))
}

/// The program, when a job's `detail` says the job's text asked a program that held the
/// terminal before it (a REPL) something, which it waits at a prompt of its own to answer
/// (see [`ASKS_AGAIN`]).
pub(super) fn asked_its_repl(detail: &str) -> Option<&str> {
    let (_, program) = detail.strip_suffix(ASKS_AGAIN)?.rsplit_once("input: ")?;
    Some(program.trim_end())
}

/// Whether a job's `detail` says a program it left waits for single keys (text without Enter
/// answers it).
pub(super) fn reads_single_keys(detail: &str) -> bool {
    detail.ends_with(SINGLE_KEYS)
}

/// Whether a job's `detail` says a program it started still runs in its session (at a prompt
/// of its own, or a full-screen program), or that it left the shell's command unfinished:
/// what `job_kill` of the finished job stops.
pub(super) fn left_a_program(detail: &str) -> bool {
    stopped_at_prompt(detail).is_some()
        || detail.ends_with(FULL_SCREEN)
        || left_a_shell(detail)
        || left_unfinished(detail)
}

/// Whether a job's `detail` says it left a shell or REPL it started reading commands at its
/// prompt: a later send goes to it as a command, and the agent drives it from then on.
pub(super) fn left_a_shell(detail: &str) -> bool {
    detail.ends_with(SHELL_STARTED)
}

/// Whether a job's `detail` says it left the shell at its continuation prompt: any later
/// send continues that command (no answer to a question of the job's, which it would be
/// said to give).
pub(super) fn left_unfinished(detail: &str) -> bool {
    detail.ends_with(CONTINUATION)
}

/// The job detail of a settled send: `wait: <reason>[, exit: N][, input: <mode>]` (the mode
/// when a program waits at a prompt of its own (no exit status), with echo off, at a
/// continuation prompt or on the alternate screen, so a job that stopped at a prompt does not
/// read as plainly done), or
/// `session exited: <code | signal | unknown>`; the commands of the job that finished before
/// its last one (`earlier`, over every send the job followed) come after the exit status, as
/// `earlier commands exited: 0, 1` or with counts for many. `typed`: what the job's send typed,
/// which at the shell's own prompt decides what waits there (see [`Typed`]); `held_before`:
/// the program holding the terminal now held it before the job began (the job's text went to
/// it), so a prompt of its own is its next one, not a question the job stopped at; with
/// `own_prompt`, that program waits at a prompt that is not its REPL's (the job's text asked
/// it something).
pub(super) fn detail(
    result: &SendResult,
    earlier: &EarlierExits,
    typed: Typed,
    held_before: bool,
    own_prompt: bool,
) -> String {
    let wait_reason = crate::schema::WaitReasonOutput::from(result.wait_reason).as_str();
    let earlier = crate::schema::EarlierCommands::from_exits(earlier.clone())
        .map(|e| {
            format!(
                ", {}",
                crate::render::earlier_commands_text(&e, "earlier commands")
            )
        })
        .unwrap_or_default();
    match &result.session_status {
        SessionStatus::Running => {
            let mut detail = format!("wait: {wait_reason}");
            if let Some(code) = result.exit_code {
                detail.push_str(&format!(", exit: {code}"));
            }
            detail.push_str(&earlier);
            let mode = match result.input_mode {
                // None of the job's lines was typed (a signal dropped them): the shell is back
                // at its prompt, and the status is an earlier command's.
                InputMode::Normal if result.entered_none => None,
                // Text typed without Enter at the shell's prompt, or lines with no command
                // in them: nothing runs.
                InputMode::Normal
                    if typed != Typed::Line
                        && result.wait_reason == WaitReason::StdinRead
                        && result.exit_code.is_none()
                        && result.foreground.is_none() =>
                {
                    (typed == Typed::Unended).then(|| TYPED_WITHOUT_ENTER.to_owned())
                }
                // The program the job's text went to reads again: at its REPL's next prompt,
                // or at a prompt of its own the text asked it for.
                InputMode::Normal
                    if held_before
                        && result.wait_reason == WaitReason::StdinRead
                        && result.exit_code.is_none() =>
                {
                    let program = result.foreground.as_deref().unwrap_or("the program");
                    Some(if own_prompt {
                        format!("{program} {ASKS_AGAIN}")
                    } else {
                        format!("{program} {READS_AGAIN}")
                    })
                }
                // The session's shell reads with no prompt mark: most likely at its prompt,
                // which the command replaced, not at a question of the job's.
                InputMode::Normal
                    if result.prompt_unmarked
                        && result.wait_reason == WaitReason::StdinRead
                        && result.exit_code.is_none()
                        && result.foreground.is_none() =>
                {
                    Some(SHELL_UNMARKED.to_owned())
                }
                // No prompt came back: a program (or the shell's own `read`) waits at a
                // prompt of its own, so the command has not finished.
                InputMode::Normal
                    if result.wait_reason == WaitReason::StdinRead
                        && result.exit_code.is_none() =>
                {
                    Some(match result.foreground.as_deref() {
                        Some(program) => format!("{program} {WAITS_FOR_INPUT}"),
                        None => WAITS_FOR_INPUT.to_owned(),
                    })
                }
                InputMode::Normal => None,
                InputMode::EchoOff => Some(ECHO_OFF.to_owned()),
                // The session's own shell: an interrupt discards the command it holds.
                InputMode::Continuation if result.foreground.is_none() => {
                    Some(CONTINUATION.to_owned())
                }
                InputMode::Continuation | InputMode::StatementContinuation => {
                    Some(STATEMENT_CONTINUATION.to_owned())
                }
                InputMode::AlternateScreen => Some(FULL_SCREEN.to_owned()),
                InputMode::SingleKey => Some(SINGLE_KEYS.to_owned()),
            };
            if let Some(mode) = mode {
                detail.push_str(&format!(", input: {mode}"));
            }
            detail
        }
        SessionStatus::Exited { exit_code, signal } => format!(
            "session exited: {}{earlier}",
            exit_code
                .map(|c| c.to_string())
                .or_else(|| signal.clone())
                .unwrap_or_else(|| "unknown".to_owned())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_one_bounded_line() {
        let id = SessionId::new("pty-1");
        assert_eq!(label(&id, "make test", false), "pty-1: make test");
        assert_eq!(label(&id, "hunter2", true), "pty-1: (hidden input)");
        assert_eq!(label(&id, "", false), "pty-1: (input)");
        assert_eq!(label(&id, "\x03", false), "pty-1: (input)");
        assert_eq!(label(&id, "a\nb\n", false), "pty-1: a…");
        let long = "x".repeat(200);
        assert_eq!(
            label(&id, &long, false),
            format!("pty-1: {}…", "x".repeat(80))
        );
    }

    #[test]
    fn details_say_how_the_program_waits() {
        let mut result = SendResult {
            viewport: "Password: ".into(),
            wait_reason: WaitReason::StdinRead,
            session_status: SessionStatus::Running,
            truncated: false,
            exit_code: None,
            foreground: None,
            input_mode: InputMode::EchoOff,
            earlier_exits: dsh_terminal_core::EarlierExits::default(),
            output_bytes: 10,
            head: None,
            notices: Vec::new(),
            newest_line: None,
            prompt_owed: false,
            prompt_unmarked: false,
            entered_none: false,
        };
        assert_eq!(
            detail(&result, &EarlierExits::default(), Typed::Line, false, false),
            "wait: stdin_read, input: echo off, a password prompt? (still running: the next send \
             answers it, job_kill stops it)"
        );
        // None of the job's lines was typed (a signal dropped them): nothing waits.
        result.input_mode = InputMode::Normal;
        result.entered_none = true;
        assert_eq!(
            detail(&result, &EarlierExits::default(), Typed::Line, false, false),
            "wait: stdin_read"
        );
        result.entered_none = false;
        // No prompt came back: a program (or the shell's `read`) waits at its own prompt.
        assert_eq!(
            detail(&result, &EarlierExits::default(), Typed::Line, false, false),
            format!("wait: stdin_read, input: {WAITS_FOR_INPUT}")
        );
        result.foreground = Some("python3".into());
        assert_eq!(
            detail(&result, &EarlierExits::default(), Typed::Line, false, false),
            "wait: stdin_read, input: python3 waits for input (still running: the next send \
             answers it, job_kill stops it)"
        );
        // The program held the terminal before the job (a REPL): its prompt is its next one.
        let again = detail(&result, &EarlierExits::default(), Typed::Line, true, false);
        assert_eq!(
            again,
            format!("wait: stdin_read, input: python3 {READS_AGAIN}")
        );
        assert_eq!(stopped_at_prompt(&again), None);
        assert!(!left_a_program(&again));
        // At a prompt of its own the job's text asked for: the next send answers it, and
        // job_kill leaves the program (the agent's).
        let asked = detail(&result, &EarlierExits::default(), Typed::Line, true, true);
        assert_eq!(
            asked,
            format!("wait: stdin_read, input: python3 {ASKS_AGAIN}")
        );
        assert_eq!(stopped_at_prompt(&asked), None);
        assert!(!left_a_program(&asked));
        assert_eq!(
            detail_after(&again, "a later send reached the session").as_deref(),
            Some(
                "wait: stdin_read, input: python3 read input again (a later send reached the session)"
            )
        );
        let stopped = detail(&result, &EarlierExits::default(), Typed::Line, false, false);
        assert_eq!(stopped_at_prompt(&stopped), Some(Some("python3")));
        assert_eq!(
            detail_after_kill(&stopped, "job_kill then sent it SIGINT"),
            "wait: stdin_read, input: python3 waited for input (job_kill then sent it SIGINT)"
        );
        assert_eq!(
            stopped_at_prompt(&format!("wait: stdin_read, input: {WAITS_FOR_INPUT}")),
            Some(None)
        );
        assert_eq!(stopped_at_prompt("wait: stdin_read, exit: 0"), None);
        // A password prompt is a prompt too.
        assert_eq!(
            stopped_at_prompt(&format!("wait: stdin_read, input: {ECHO_OFF}")),
            Some(None)
        );
        // So is a program's question for one key.
        assert_eq!(
            stopped_at_prompt(&format!("wait: stdin_read, input: {SINGLE_KEYS}")),
            Some(None)
        );
        assert!(left_a_program(&format!(
            "wait: stdin_read, input: {FULL_SCREEN}"
        )));
        assert!(!left_a_program(&format!(
            "wait: stdin_read, input: {TYPED_WITHOUT_ENTER}"
        )));
        assert!(!left_a_program("wait: stdin_read, exit: 0"));
        // Text the job typed without Enter at the shell's prompt: nothing waits but the line.
        result.foreground = None;
        let typed = detail(
            &result,
            &EarlierExits::default(),
            Typed::Unended,
            false,
            false,
        );
        assert_eq!(
            typed,
            format!("wait: stdin_read, input: {TYPED_WITHOUT_ENTER}")
        );
        assert_eq!(stopped_at_prompt(&typed), None);
        // Once a later send reached the session, no mode speaks of the present any more.
        assert_eq!(
            detail_after(&typed, "a later send reached the session").as_deref(),
            Some("wait: stdin_read, input: typed without Enter (a later send reached the session)")
        );
        let answered = detail_after(&stopped, "a later send answered it").unwrap();
        assert_eq!(
            answered,
            "wait: stdin_read, input: python3 waited for input (a later send answered it)"
        );
        assert_eq!(stopped_at_prompt(&answered), None);
        assert_eq!(detail_after(&answered, "again"), None);
        result.input_mode = InputMode::AlternateScreen;
        let full_screen = detail(&result, &EarlierExits::default(), Typed::Line, false, false);
        assert_eq!(
            detail_after(&full_screen, "a later send reached the session").as_deref(),
            Some("wait: stdin_read, input: full-screen program (a later send reached the session)")
        );
        result.input_mode = InputMode::SingleKey;
        let single = detail(&result, &EarlierExits::default(), Typed::Line, false, false);
        assert!(detail_after(&single, "x").is_some_and(|d| d.ends_with("single keys (x)")));
        // A password prompt, once answered or killed.
        let password = format!("wait: stdin_read, input: {ECHO_OFF}");
        assert_eq!(
            detail_after(&password, "a later send answered it").as_deref(),
            Some(
                "wait: stdin_read, input: echo off, a password prompt? (a later send answered it)"
            )
        );
        assert_eq!(
            detail_after_kill(&password, "done"),
            "wait: stdin_read, input: echo off, a password prompt? (done)"
        );
        // A detail that speaks only of the past: a kill appends what it did.
        assert_eq!(detail_after("wait: stdin_read, exit: 0", "x"), None);
        assert_eq!(
            detail_after_kill("wait: stdin_read, exit: 0", "done"),
            "wait: stdin_read, exit: 0; done"
        );
        result.input_mode = InputMode::Normal;
        // An empty poll typed nothing: nothing is said to wait.
        assert_eq!(
            detail(
                &result,
                &EarlierExits::default(),
                Typed::Nothing,
                false,
                false
            ),
            "wait: stdin_read"
        );
        assert_eq!(Typed::of("", false), Typed::Nothing);
        assert_eq!(Typed::of("echo a", false), Typed::Unended);
        assert_eq!(Typed::of("echo a", true), Typed::Line);
        assert_eq!(Typed::of("\u{3}", false), Typed::Line);
        result.exit_code = Some(2);
        assert_eq!(
            detail(&result, &EarlierExits::default(), Typed::Line, false, false),
            "wait: stdin_read, exit: 2"
        );
        // The job's earlier commands, over the sends it followed.
        let failed = |position, exit_code| dsh_terminal_core::EarlierFailure {
            position,
            exit_code,
        };
        let mut earlier = EarlierExits {
            finished: 2,
            failed: 1,
            failures: vec![failed(2, 1)],
        };
        earlier.append(&EarlierExits {
            finished: 1,
            failed: 1,
            failures: vec![failed(1, 2)],
        });
        assert_eq!(
            detail(&result, &earlier, Typed::Line, false, false),
            "wait: stdin_read, exit: 2, earlier commands exited: 0, 1, 2"
        );
        result.session_status = SessionStatus::Exited {
            exit_code: None,
            signal: Some("SIGKILL".into()),
        };
        assert_eq!(
            detail(&result, &EarlierExits::default(), Typed::Line, false, false),
            "session exited: SIGKILL"
        );
    }
}
