//! The texts of a send result's notices (model-visible, snapshot-tested in `result.rs`): one
//! per fact of [`SettleFacts`] that needs saying.

mod debugger;
mod jobs;
mod output;
mod reads;

pub(super) use self::debugger::{debugged_read_notice, debugged_running_notice};
pub use self::jobs::stopped_job_advice;
pub(super) use self::jobs::stopped_job_notice;
pub(in crate::session) use self::output::OutputNotes;
pub(super) use self::reads::{
    counted_read_notice, line_without_prompt_notice, repl_continued_notice,
    statement_prompt_read_notice, statement_read_notice,
};

#[cfg(doc)]
use super::SettleFacts;

/// The notice for [`SettleFacts::screen_mixed`].
pub(super) const SCREEN_MIXED_NOTICE: &str = "[screen: this output was written over text left on \
     screen earlier (the cursor was moved up without clearing), so a line may end with older \
     text; terminal_read shows the whole screen]";

/// The notice for a result (a send's, or a background job's read) whose output went back up
/// into `lines` (at least 1) lines an earlier result showed and wrote there: the screen notice
/// of a send's `rewound_lines` (`unchanged_left_out`: the lines the redraw left as they were
/// are not shown again), and `job_output`'s (whose reads show every rewound line again).
pub fn rewound_notice(lines: u64, unchanged_left_out: bool) -> String {
    let lines = if lines == 1 {
        "1 line".to_owned()
    } else {
        format!("{lines} lines")
    };
    let shown = if unchanged_left_out {
        "the lines it wrote there as they read now, in screen order, leaving out those it did \
         not change"
    } else {
        "those lines again as they read now, in screen order"
    };
    format!(
        "[screen: the output went back up {lines} into text an earlier result showed (a redraw, \
         or lines erased and written again); this result shows {shown} (terminal_read shows \
         the whole screen)]"
    )
}

/// Most bytes of the continued line's start [`continued_line_notice`] quotes (its end).
const CONTINUED_LINE_QUOTE_BYTES: usize = 80;

/// The notice for [`SettleFacts::continued_line`]: `start`, the text of the unfinished line
/// the previous result ended in, quoted (its last [`CONTINUED_LINE_QUOTE_BYTES`], cut as
/// output is, between characters and their marks).
pub(super) fn continued_line_notice(start: &str) -> String {
    let quoted = dsh_output_retention::tail_slice(start, CONTINUED_LINE_QUOTE_BYTES);
    let cut = if quoted.len() < start.len() {
        "…"
    } else {
        ""
    };
    format!(
        "[output: the first line goes on from the unfinished line the previous result ended \
         in: `{cut}{quoted}`]"
    )
}

/// The notice for [`SettleFacts::binary_run_continued`].
pub(super) const BINARY_RUN_CONTINUED_NOTICE: &str = "[output: the first line is the count of the \
     binary output the previous result ended in (its `… so far` line): the whole run's bytes, \
     those counted then included]";

/// The notice for [`SettleFacts::lines_below_prompt`]: `lines` (at least 1) lines of the
/// result follow the line the shell's prompt came back on.
pub(super) fn lines_below_prompt_notice(lines: u64) -> String {
    let (lines, are) = if lines == 1 {
        ("line".to_owned(), "it is")
    } else {
        (format!("{lines} lines"), "they are")
    };
    format!(
        "[screen: the prompt came back above this result's last {lines}: the output moved the \
         cursor up, and {are} still on screen below the prompt, written before it]"
    )
}

/// The notice for [`SettleFacts::left_alternate`].
pub(super) const LEFT_ALTERNATE_NOTICE: &str =
    "[screen: the program left the alternate screen on; the prompt restored the main screen]";

/// The notice for [`SettleFacts::alternate_came_and_went`].
pub(super) const ALTERNATE_CAME_AND_WENT_NOTICE: &str = "[screen: a full-screen program drew \
     on the alternate screen and left it again during this result; what it showed there is \
     gone, as on a terminal, and is neither in this result nor in the scrollback: to read it, \
     run it in a mode that prints to the main screen (a pager's -X or -F with -X, the \
     program's batch or plain-output option) or keep it open and send its keys one send at a \
     time]";

/// The notice for [`SettleFacts::editor_inserting`], naming the editor and its mode
/// (`insert`, `replace`, `select`).
pub(super) fn editor_inserting_notice(editor: &str, mode: &str) -> String {
    let shown = mode.to_ascii_uppercase();
    let how = match mode {
        "replace" => "overwrites the file's text from the cursor",
        "select" => "replaces the selected text",
        _ => "goes into the file as text",
    };
    format!(
        "[input: {editor} is in {mode} mode (`-- {shown} --` on its last row): what you send \
         {how}, each Enter a new line; to give it a command (`:wq`, `dd`), send \\u001b (ESC) \
         with submit: false first]"
    )
}

/// The notice for [`SettleFacts::modes_restored`].
pub(super) const MODES_RESTORED_NOTICE: &str = "[terminal: the command left the terminal's \
     modes or size changed (e.g. `stty -echo`, `stty raw`, a program's raw mode, `stty rows \
     60`); the shell set them back to the session's at its prompt. To run a program with other modes, change them on \
     the same command line: `stty -echo; ./prog; stty echo`]";

/// The notice for [`SettleFacts::errexit_on`].
pub(super) const ERREXIT_ON_NOTICE: &str = "[shell: errexit is on in the session's shell \
     (set -e): a command that fails now ends the shell, and the session with it (its directory \
     and variables are lost); send set +e to turn it off, and run a script's set -e in a \
     subshell instead: ( set -e; … )]";

/// The notice for [`SettleFacts::errexit_ended`].
pub(super) const ERREXIT_ENDED_NOTICE: &str = "[shell: this send turned on errexit (set -e) in \
     the session's shell itself, so the first command that failed ended the shell and the \
     session with it; run a script's set -e in a subshell instead, ( set -e; … ), or as a \
     script (bash -c '…'), and open a new session to go on]";

/// The notice for [`SettleFacts::exiting_err_trap`] while the shell runs.
pub(super) const ERR_TRAP_ON_NOTICE: &str = "[shell: this send set a trap on ERR that exits in \
     the session's shell itself: a command that fails now ends the shell, and the session with \
     it (its directory and variables are lost); send trap - ERR to remove it, and set such a \
     trap in a subshell or a script instead: ( trap '…' ERR; … )]";

/// The notice for [`SettleFacts::exiting_err_trap`] once the shell exited.
pub(super) const ERR_TRAP_ENDED_NOTICE: &str = "[shell: this send set a trap on ERR that exits \
     in the session's shell itself, so the first command that failed ended the shell and the \
     session with it; set such a trap in a subshell or a script instead, ( trap '…' ERR; … ), \
     and open a new session to go on]";

/// The notice for [`SettleFacts::marks_gone`].
pub(super) const MARKS_GONE_NOTICE: &str = "[shell: prompt marks are gone (exec or a nested shell?); \
     exit codes are unknown until our shell prompts again: `exit` a nested shell to get back to \
     ours; after `exec`, ours never comes back, so terminal_close this session and terminal_open \
     a new one]";

/// The notice for [`SettleFacts::prompt_unmarked`].
pub(super) const PROMPT_UNMARKED_NOTICE: &str = "[shell: the shell reads input with no prompt mark \
     since this command: it replaced PS1 or PROMPT_COMMAND, or abandoned a command that could \
     not fork (the session's process cap) (its exit code is unknown; the marks are put back \
     before the next command, unless PS1 was made read-only: then they stay gone, and exit \
     codes with them, until a new session), or a shell builtin reads with the line editor \
     (`read -e`)]";

/// The notice for [`SettleFacts::stderr_away`].
pub(super) const STDERR_AWAY_NOTICE: &str = "[shell: the shell's stderr is not the terminal \
     (exec 2>…): its prompt and the echo of typed commands go there, and exit codes are unknown \
     until it is back; send exec 2>/dev/tty to bring them back]";

/// The notice for [`SettleFacts::stdout_away`].
pub(super) const STDOUT_AWAY_NOTICE: &str = "[shell: the shell's stdout is not the terminal \
     (exec >…, or closed): the commands it runs print their output there, so it is missing here \
     unless that passes it on (tee, whose copy can come after the prompt, in the next result); \
     errors on stderr still show; send exec >/dev/tty to bring it back]";

/// The notice for [`SettleFacts::earlier_cancel`].
pub(super) const EARLIER_CANCEL_NOTICE: &str = "[cancelled: the client cancelled an earlier \
     terminal_send on this session before its result came (its own request timeout?): this \
     result starts where that one would have, and that send's command was sent SIGINT as Ctrl-C \
     would (an exit status of 130 means it stopped on it; a program that ignores SIGINT runs on, \
     as the foreground shows). To wait longer for a command, give the client's request timeout \
     more than the send's timeoutMs]";

/// The notice for [`SettleFacts::shell_stopped`].
pub(super) const SHELL_STOPPED_NOTICE: &str = "[shell: the session's shell itself is stopped \
     (suspend or SIGSTOP), so nothing reads the terminal; the next send or poll continues it \
     first (SIGCONT)]";

/// The notice for [`SettleFacts::shell_continued`].
pub(super) const SHELL_CONTINUED_NOTICE: &str = "[shell: the session's shell was stopped \
     (suspend or SIGSTOP); it was continued (SIGCONT) before this send]";

/// The notice for [`SettleFacts::enter_withheld`].
pub(super) const ENTER_WITHHELD_NOTICE: &str = "[input: the Enter was left out: the program \
     read single keys, and an Enter after them is a key of its own, which the next prompt \
     would take as its answer; if the program still waits for more keys or an Enter, \
     send them (an Enter alone: empty text)]";

/// The notice for [`SettleFacts::rest_withheld`].
pub(super) const REST_WITHHELD_NOTICE: &str = "[input: only the word's first key went, \
     without the rest or an Enter: the program asked yes or no and reads single keys, so it took \
     that key as the answer, and each further key would be a key of its own, taken by the next \
     prompt or run as a command]";

/// The notice for [`SettleFacts::keys_withheld`].
pub(super) const KEYS_WITHHELD_NOTICE: &str = "[input: only the first keys of the text went, \
     one at a time, without the rest or its Enter: the program read them as single keys and \
     went on, so the rest would have been keys of their own, taken by the next prompt or run \
     as a command; if the program still waits for more, send them]";

/// [`KEYS_WITHHELD_NOTICE`], naming the `rest` of a whole line of the text when the keys
/// dropped were that (a command sent after a key prompt's line): that line did not run.
pub(super) fn keys_withheld_notice(rest: Option<&str>) -> String {
    match rest {
        None => KEYS_WITHHELD_NOTICE.to_owned(),
        Some(rest) => format!(
            "{}; the rest of a line of the text (`{rest}`) and its Enter were not typed either, so \
             that line did not run: if it is a command, send it again]",
            KEYS_WITHHELD_NOTICE.trim_end_matches(']')
        ),
    }
}

/// The notice for [`SettleFacts::closed`].
pub(super) const CLOSED_NOTICE: &str = "[session: closed while this send waited \
     (terminal_close, or the host ending); every process it started was stopped, so the \
     session's exit is the close's doing, not a crash]";

/// The notice for [`SettleFacts::left_running`]: how many processes, and their distinct
/// command names (the first [`LEFT_RUNNING_NAMES_SHOWN`]).
pub(super) fn left_running_notice(names: &[String]) -> String {
    let mut distinct: Vec<&str> = Vec::new();
    for name in names {
        if !distinct.contains(&name.as_str()) {
            distinct.push(name);
        }
    }
    let more = if distinct.len() > LEFT_RUNNING_NAMES_SHOWN {
        ", …"
    } else {
        ""
    };
    distinct.truncate(LEFT_RUNNING_NAMES_SHOWN);
    let (count, verb) = match names.len() {
        1 => ("1 process".to_owned(), "runs"),
        n => (format!("{n} processes"), "run"),
    };
    format!(
        "[session: the shell exited, but {count} it started still {verb} ({}{more}): \
         what outlives the shell (nohup, setsid, disown) keeps running until terminal_close \
         stops it]",
        distinct.join(", ")
    )
}

/// How many distinct command names [`left_running_notice`] lists.
const LEFT_RUNNING_NAMES_SHOWN: usize = 5;

/// The notice for [`SettleFacts::exit_unknown`].
pub(super) const EXIT_UNKNOWN_NOTICE: &str = "[shell: this command's exit code is unknown: no \
     mark said where it started (bash prints none for a line it cannot parse, nor after a \
     command replaced PS0), and its status equals the previous command's, so it cannot be told \
     from an empty line's; send echo $? to see it]";

/// Why a send settled with a program still running (see [`still_running_notice`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StillRunning {
    /// Its deadline passed (`timeout`).
    Deadline,
    /// Output went quiet for the idle window (`inferred_idle`).
    Quiet,
    /// A cancel (`job_kill`) ended it before any of its text was typed: the text waited for
    /// the program, which an earlier send started, to read (it ends as `timeout`).
    CancelledUnwritten,
}

/// The notice for a send that settled with `program` in the foreground on the main screen,
/// nothing else said of it (`why`: see [`StillRunning`]): what to do next. `in_line`: the
/// program is one command of a longer command line (a loop, a list) that may run more after
/// it, so it is not all that stopping stops; `started_jobs`: that line also put commands in
/// the background with `&`, which SIGINT does not reach. `repl`: the program is a REPL running
/// a statement, which SIGINT interrupts (the REPL stays).
pub(super) fn still_running_notice(
    program: &str,
    why: StillRunning,
    (in_line, started_jobs): (bool, bool),
    repl: bool,
) -> String {
    let (what, stop) = if repl {
        (
            format!("{program} is still running a statement"),
            "to interrupt the statement (the REPL stays, with its state)",
        )
    } else if in_line && started_jobs {
        (
            format!(
                "{program} is still running, as one command of a longer command line that \
                 also put commands in the background with &"
            ),
            "to stop the line's commands in the foreground (those put in the background keep \
             running: jobs lists them with their numbers, kill %N ends job N)",
        )
    } else if in_line {
        (
            format!(
                "{program} is still running, as one command of a longer command line (a loop \
                 or a list, which may run more after it)"
            ),
            "to stop the whole line",
        )
    } else {
        (format!("{program} is still running"), "to stop it")
    };
    // A server started in the foreground goes in the background; a REPL's statement is no
    // server of the shell's.
    let server = if repl {
        ""
    } else {
        "; a server meant to keep running goes in the background: cmd > log 2>&1 &"
    };
    match why {
        StillRunning::Deadline => format!(
            "[timeout: {what}: poll (empty text, submit: false) to wait again, with timeoutMs \
             for longer, or terminal_signal SIGINT {stop}{server}]"
        ),
        StillRunning::Quiet => format!(
            "[idle: {what}, quiet and not busy (waiting on the network or a timer, or a server \
             waiting for connections): poll (empty text, submit: false) with timeoutMs to wait \
             up to that long for it, or terminal_signal SIGINT {stop}{server}]"
        ),
        StillRunning::CancelledUnwritten => format!(
            "[cancelled before any of the text was typed (it waited for the program already \
             running to read; the cancel leaves that program alone): {what}: poll (empty \
             text, submit: false) with timeoutMs to wait for it, or terminal_signal SIGINT \
             {stop}]"
        ),
    }
}

/// The notice for [`SettleFacts::idle_reading`], naming the program.
pub(super) fn idle_reading_notice(program: &str) -> String {
    format!(
        "[idle: {program} is still running and went quiet while reading the terminal among \
         other sources (a socket: a relay such as ssh, or an event loop): it may be waiting for \
         input, so send it if it asked for some, or poll (empty text, submit: false) for what \
         its other side prints; terminal_signal SIGINT stops it]"
    )
}

/// The notice for [`SettleFacts::answered_password`], quoting the prompt when one showed.
pub(super) fn answered_password_notice(prompt: &str) -> String {
    let at = if prompt.is_empty() {
        String::new()
    } else {
        format!(" `{}`", super::super::send::clipped(prompt))
    };
    format!(
        "[input: this text answered the password prompt{at} (echo off, so it is not shown) as \
         its answer, not as a command or statement: what follows is that program's response]"
    )
}

/// The notice for [`SettleFacts::typed_ahead_taken`], naming the program that read nothing.
pub(super) fn typed_ahead_taken_notice(program: &str) -> String {
    format!(
        "[input: this text went in while {program} ran and read no input (typed ahead), so the \
         terminal echoed it above, and a prompt of the same command line read it, not the \
         shell (a read, a question, a password prompt): if it was meant as a command, it did \
         not run (the exit status is that command line's), so send it again]"
    )
}

/// The notice for [`SettleFacts::held_text_taken`], naming the program that read nothing.
pub(super) fn held_text_taken_notice(program: &str) -> String {
    format!(
        "[input: this text was sent while {program} ran and read no input, so it waited for \
         the next reader: a prompt of the same command line read it, not the shell (a read, a \
         question, a password prompt): if it was meant as a command, it did not run (the exit \
         status is that command line's), so send it again]"
    )
}

/// The notice for [`SettleFacts::typed_ahead_echoed`], naming the program that read nothing.
pub(super) fn typed_ahead_echoed_notice(program: &str) -> String {
    format!(
        "[input: this text went in while {program} ran and read no input (typed ahead), so the \
         terminal echoed it above; the prompt with echo off that came after may have discarded \
         it (a password prompt drops what was typed before it): if the text was a secret, it \
         shows in this output; send it again now that the prompt is up]"
    )
}

/// The notice for [`SettleFacts::promptless_mode`], naming the REPL.
pub(super) fn promptless_mode_notice(program: &str) -> String {
    format!(
        "[input: {program} is in its editor mode (.editor), which shows no prompt: the lines \
         sent go into its buffer; send \\u0004 (Ctrl-D) with submit: false to run them, or \
         \\u0003 (Ctrl-C) to drop them]"
    )
}

/// How `terminal_signal` stops a program that reads no keys: SIGINT, or with the terminal's
/// signal keys off (`signal_keys_off`: the program turned `ISIG` off, curses's `raw()`)
/// SIGTERM, since SIGINT then goes as a Ctrl-C key, which such a program never reads.
fn stops_unread(program: &str, signal_keys_off: bool) -> String {
    if signal_keys_off {
        format!(
            "terminal_signal SIGTERM stops {program} (the terminal's signal keys are off, so \
             SIGINT would go as a Ctrl-C key, which it does not read)"
        )
    } else {
        format!("terminal_signal SIGINT, or SIGTERM if it ignores that, stops {program}")
    }
}

/// The notice for [`SettleFacts::input_unread`], naming the foreground program.
pub(super) fn input_unread_notice(program: &str, signal_keys_off: bool) -> String {
    let stops = stops_unread(program, signal_keys_off);
    format!(
        "[input: {program} has not read the text sent: it waits in the terminal's input for \
         whatever reads next (a command typed ahead runs when the shell reads again, once the \
         whole running command line has ended, unless a program of it reads the text first; \
         {stops} and discards the text)]"
    )
}

/// The notice for [`SettleFacts::reads_no_keys`], naming the full-screen program. SIGINT
/// stops such a program, except `less` following a file (`less +F`, the `F` command), which
/// reads no keys until SIGINT takes it back to its normal mode.
pub(super) fn reads_no_keys_notice(program: &str, signal_keys_off: bool) -> String {
    let after = if program == "less" {
        "terminal_signal SIGINT ends its follow mode (+F), and it reads keys again (q quits)"
            .to_owned()
    } else if signal_keys_off {
        stops_unread(program, true)
    } else {
        "terminal_signal SIGINT stops it".to_owned()
    };
    format!(
        "[input: {program} does not read the terminal: keys sent to it stay unread, a key \
         command included; {after}]"
    )
}

/// The notice for [`SettleFacts::reads_to_end`], naming the program.
pub(super) fn reads_to_end_notice(program: &str) -> String {
    format!(
        "[input: {program} reads the terminal as its input until end of input: each line sent \
         is more of it; to end it, send \\u0004 (Ctrl-D) with submit false after a whole line \
         (after text sent without Enter, a first Ctrl-D hands over that text and a second one \
         ends the input), or terminal_signal SIGINT to stop {program}]"
    )
}

/// The notice for [`SettleFacts::shell_running_line`].
pub(super) const SHELL_RUNNING_LINE_NOTICE: &str = "[shell: the shell itself is still running \
     the command line (a builtin such as wait, a loop of builtins, or a command substitution \
     $(…) or subshell, whose programs run in the shell's own process group), with no program \
     of it in a foreground group of its own; it reads the next command once that line has \
     ended; terminal_signal SIGINT stops the line]";

/// The notice for [`SettleFacts::typed_unfinished`].
pub(super) const TYPED_UNFINISHED_NOTICE: &str = "[timeout: the deadline passed before the \
     shell was done with the text sent: it was typed into the terminal and goes on as typed \
     (do not send it again), but its echo, its output and the prompt after it may not show here \
     yet (what shows, with any exit status said of earlier commands, can be from before it); \
     poll (empty text, submit: false) with timeoutMs to wait for the rest, or terminal_read to \
     look]";

/// The notice for [`SettleFacts::input_unread`] when the shell itself holds the terminal.
pub(super) const SHELL_INPUT_UNREAD_NOTICE: &str = "[input: the shell has not read the text \
     sent: it is still running the command line itself (a builtin such as wait, or a loop), \
     and the text waits in the terminal's input until that line has ended, then runs as a \
     command; terminal_signal SIGINT stops the command line and discards the text]";

/// The longest part of a line a notice quotes (the line cleared, the text hidden), in chars.
const QUOTED_LINE_CHARS: usize = 200;

/// The notice for [`SettleFacts::cleared_line`], quoting the text cleared.
pub(super) fn cleared_line_notice(text: &str) -> String {
    format!(
        "[input: text no send typed at the shell followed its prompt ({}); in case it was on \
         the input line (a program can push keys into the terminal's input, and text sent to a \
         program that ended without reading it stays there), the line was emptied first, so it \
         did not run joined to this text]",
        quoted_line(text)
    )
}

/// The notice for [`TextBeforeLine::Output`], quoting the text.
pub(super) fn output_before_line_notice(text: &str) -> String {
    format!(
        "[screen: output a background job printed after the shell's prompt, with no line end \
         yet, stood before the cursor ({}): this send's command line shows right after it on \
         the same row, joined, but ran alone; that text is output, no part of the command]",
        quoted_line(text)
    )
}

/// The notice for [`SettleFacts::foreign_line`], quoting the text.
pub(super) fn foreign_line_notice(text: &str) -> String {
    format!(
        "[input: text no send typed follows the shell's prompt ({}): a program may have pushed \
         it into the terminal's input, or printed it in the background; the next send empties \
         the input line first, so it will not run]",
        quoted_line(text)
    )
}

/// The notice for [`SettleFacts::edited_line`], quoting the line.
pub(super) fn edited_line_notice(text: &str) -> String {
    format!(
        "[input: the keys sent left a line at the shell's prompt that has not run ({}); the next \
         send continues it: send empty text to run it as it is, or \\u0007\\u0005\\u0015 \
         (Ctrl-G, which ends a key left waiting for the next such as Ctrl-X, then Ctrl-E and \
         Ctrl-U: the cursor may be inside the line) with submit false to clear it first]",
        quoted_line(text)
    )
}

/// `text` quoted for a notice, cut after [`QUOTED_LINE_CHARS`] chars.
fn quoted_line(text: &str) -> String {
    let mut quoted: String = text.chars().take(QUOTED_LINE_CHARS).collect();
    if quoted.len() < text.len() {
        quoted.push('…');
    }
    format!("{quoted:?}")
}

/// The notice for [`SettleFacts::unprompted_wait`], naming the foreground program.
pub(super) fn unprompted_wait_notice(program: &str) -> String {
    format!(
        "[input: {program} reads input but has not printed its prompt again: what it read may \
         still be running (a statement at work, a pending await or timer); poll (empty text, \
         submit: false, with timeoutMs to wait longer) for its output and prompt before sending \
         more]"
    )
}

/// The notice for `program`, still in the foreground after `signal` (SIGINT or SIGTERM) was
/// sent to it: it ignores or handles the signal; the next, stronger one to send.
pub(super) fn survived_signal_notice(
    program: &str,
    signal: crate::TerminalSignal,
) -> Option<String> {
    let next = match signal {
        crate::TerminalSignal::Sigint => "SIGTERM",
        crate::TerminalSignal::Sigterm => "SIGKILL",
        _ => return None,
    };
    Some(format!(
        "[signal: {program} is still running after {signal} (it ignores or handles it, or is busy in code that does not check for it): send terminal_signal {next} to stop it]"
    ))
}
