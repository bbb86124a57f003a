//! What a send's settle hands to result assembly: every fact gathered when it settled.

use crate::readiness::Settle;
use crate::screen::{PlacedHead, Rendered};
use crate::types::{EarlierExits, SessionStatus};

use super::notices::OutputNotes;

/// Text no send typed that stood before a send's command line at the shell's prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::session) enum TextBeforeLine {
    /// After the prompt on its row (or rows it wraps onto): perhaps on the input line (a
    /// program pushed it into the terminal's input), so the line was emptied first (see
    /// `PtySpawnSpec::clear_line_keys`).
    Input(String),
    /// Output a background job printed on a row below the prompt's, before the cursor (see
    /// `Screen::output_before_input_line`): the command line's echo shows right after it.
    Output(String),
}

/// A job of the shell found stopped (job control) as a send settled, and not stopped as the
/// result before it settled (see [`SettleFacts::stopped_jobs`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::session) struct StoppedJob {
    /// Its program (the name of its process group's leader).
    pub(in crate::session) program: String,
    /// It held the terminal during the send: stopped in the foreground (the Ctrl-Z key), not
    /// a job in the background stopped for reading the terminal.
    pub(in crate::session) was_in_foreground: bool,
}

/// Everything gathered when a send settles.
#[derive(Clone, Debug)]
pub(in crate::session) struct SettleFacts {
    /// Why it settled.
    pub(in crate::session) reason: Settle,
    /// The viewport rendered from the send's anchor.
    pub(in crate::session) rendered: Rendered,
    /// The number of the viewport's last line (see [`SendResult::newest_line`]).
    pub(in crate::session) newest_line: Option<u64>,
    /// Session status at settlement.
    pub(in crate::session) status: SessionStatus,
    /// The commands that finished since the anchor before the result's own.
    pub(in crate::session) exits: EarlierExits,
    /// The exit status of the newest prompt mark.
    pub(in crate::session) last_exit_code: Option<i32>,
    /// A full-screen program holds the alternate screen.
    pub(in crate::session) alternate: bool,
    /// The screen shows a continuation prompt.
    pub(in crate::session) continuation: bool,
    /// The continuation prompt is a REPL's that waits for the rest of an SQL statement.
    pub(in crate::session) statement_continuation: bool,
    /// The tty has echo off in canonical mode (a password prompt).
    pub(in crate::session) echo_off: bool,
    /// The program waiting reads single keys (cbreak mode).
    pub(in crate::session) single_key: bool,
    /// Name of the foreground program when it is not the shell.
    pub(in crate::session) foreground: Option<String>,
    /// Raw bytes read since the anchor.
    pub(in crate::session) output_bytes: u64,
    /// The send's first output lines, when the rendered viewport lost its start.
    pub(in crate::session) head: Option<PlacedHead>,
    /// The shell's prompt gave the main screen back from an alternate screen a program left
    /// on.
    pub(in crate::session) left_alternate: bool,
    /// A full-screen program took the alternate screen and left it again within this result
    /// (and the prompt did not carry its last screen over): what it showed there is gone.
    pub(in crate::session) alternate_came_and_went: bool,
    /// The editor of vim's family that holds the terminal in a mode that types text, and
    /// that mode (`insert`, `replace` or `select`).
    pub(in crate::session) editor_inserting: Option<(String, &'static str)>,
    /// The shell's prompt hook set the terminal modes a command left changed back to the
    /// session's (a `D` mark said so).
    pub(in crate::session) modes_restored: bool,
    /// A prompt's `D` mark said the shell's errexit (`set -e`) is on, where the one before
    /// said it was off: a command that fails now ends the shell.
    pub(in crate::session) errexit_on: bool,
    /// The shell exited during a send that turned on its errexit (`set -e; false`): the first
    /// command that failed ended it.
    pub(in crate::session) errexit_ended: bool,
    /// The send set a trap on `ERR` that exits, in the shell itself (`trap 'exit 3' ERR`): a
    /// command that fails now ends the shell (or ended it, when it exited).
    pub(in crate::session) exiting_err_trap: bool,
    /// The shell provably prints no prompt marks now (it `exec`ed another program, or a
    /// nested shell holds the terminal): exit statuses are unknown.
    pub(in crate::session) marks_gone: bool,
    /// Our shell reads at its line editor with no marked prompt since the command was
    /// submitted: the command replaced the prompt strings and hooks that print the marks (its
    /// exit status is unknown), or a builtin reads with the line editor (`read -e`).
    pub(in crate::session) prompt_unmarked: bool,
    /// The foreground program has not read input written to the terminal (the shell itself,
    /// running a command line, when `foreground` is `None`).
    pub(in crate::session) input_unread: bool,
    /// A full-screen program holds the terminal and nothing reads it (`watch`).
    pub(in crate::session) reads_no_keys: bool,
    /// The terminal's signal keys are off (`ISIG`): `terminal_signal SIGINT` goes as a Ctrl-C
    /// key, which a program that reads no input never sees.
    pub(in crate::session) signal_keys_off: bool,
    /// The shell itself runs a command line of builtins (`wait`, a loop), holding the
    /// terminal, as the send settled on silence or its deadline.
    pub(in crate::session) shell_running_line: bool,
    /// The program waiting reads the terminal as a stream to the end of input (`cat > file`).
    pub(in crate::session) reads_to_end: bool,
    /// Our shell's standard error is not the terminal (`exec 2>file`): its prompts, the echo
    /// of typed keys and the marks go there (the backend's rc leaves its marks out then).
    pub(in crate::session) stderr_away: bool,
    /// Back at our prompt, our shell's standard output is not the terminal (`exec >file`):
    /// the commands it runs print there, so their output is missing from results.
    pub(in crate::session) stdout_away: bool,
    /// The foreground program waits on the terminal among other event sources (an event
    /// loop) with the cursor on an empty row, no prompt before it: node's REPL while an
    /// `await` or a timer of the line it read is pending reads keys but has not printed its
    /// prompt again.
    pub(in crate::session) unprompted_wait: bool,
    /// The output wrote over text an earlier program left on screen (the cursor was moved up
    /// without clearing): a row may mix the two.
    pub(in crate::session) screen_mixed: bool,
    /// Lines at the end of earlier results that the output went back up into and rewrote (or
    /// redrew): the result starts with them again (0: none).
    pub(in crate::session) rewound_lines: u64,
    /// The start of the unfinished line the previous result ended in (a program still
    /// running was writing it), which the result's first line goes on from.
    pub(in crate::session) continued_line: Option<String>,
    /// The previous result ended in a run of binary output still going on (its count so
    /// far), and this one starts with the run's summary line, which took that line's place:
    /// its count is the whole run's.
    pub(in crate::session) binary_run_continued: bool,
    /// Lines of the result after the one the shell's prompt came back on (the output moved
    /// the cursor up above lines it wrote before; 0: none).
    pub(in crate::session) lines_below_prompt: u64,
    /// The notice for a line of the input left untyped: the kernel would have cut it.
    pub(in crate::session) refused_line: Option<String>,
    /// The notice for lines left untyped because the reader an earlier line answered ended
    /// (after [`Self::refused_line`], which says where that line went).
    pub(in crate::session) untyped_after_answer: Option<String>,
    /// Text no send typed before the send's command line at the shell's prompt.
    pub(in crate::session) cleared_line: Option<TextBeforeLine>,
    /// Text that follows our shell's prompt, typed by no send, as the send settled: the
    /// prompt came back (the command's exit status is reported), and the next send empties
    /// the line first.
    pub(in crate::session) foreign_line: Option<String>,
    /// The line keys this send typed at our shell's prompt without Enter left there (a
    /// command an arrow recalled): it has not run.
    pub(in crate::session) edited_line: Option<String>,
    /// The session's shell itself is stopped (`suspend`, SIGSTOP) as the send settles.
    pub(in crate::session) shell_stopped: bool,
    /// The session's shell was stopped when the send began and was continued (SIGCONT) before
    /// its input was written.
    pub(in crate::session) shell_continued: bool,
    /// The foreground program is still there after this signal (the last SIGINT or SIGTERM
    /// sent to it), busy: it ignores or handles it.
    pub(in crate::session) survived: Option<crate::TerminalSignal>,
    /// The client cancelled an earlier send whose result nobody saw (this result shows its
    /// output), and its interrupt went to the command.
    pub(in crate::session) earlier_cancel: bool,
    /// Our prompt came back after the send submitted a command, but no mark carried that
    /// command's exit status.
    pub(in crate::session) exit_unknown: bool,
    /// The send ended because the session was closed while it waited (`terminal_close`, or
    /// the host ending).
    pub(in crate::session) closed: bool,
    /// The command names of processes the session started that still run after its shell
    /// exited (`nohup cmd &` outside a sandbox): they run until the session is closed.
    pub(in crate::session) left_running: Vec<String>,
    /// A key reader held the terminal as the send began: its text went without the Enter it
    /// asked for.
    pub(in crate::session) enter_withheld: bool,
    /// Of a `yes`/`no` word answering a yes/no question, only the first key went.
    pub(in crate::session) rest_withheld: bool,
    /// Of keys sent one at a time to a reader of single keys, it took the first ones and
    /// went on: the rest and the Enter were dropped.
    pub(in crate::session) keys_withheld: bool,
    /// With `keys_withheld`: the rest of a whole line dropped so (the line did not run).
    pub(in crate::session) keys_withheld_rest: Option<String>,
    /// The REPL in the foreground was in a mode with no prompt (node's `.editor`) when the
    /// send began, and still is: the lines went into its buffer.
    pub(in crate::session) promptless_mode: bool,
    /// What waits reads a line with echo on (canonical mode) and printed no prompt: the
    /// cursor is at the start of an empty row (`read line`, `input()`).
    pub(in crate::session) line_without_prompt: bool,
    /// With `line_without_prompt`: what reads takes a counted amount (`head -c 5`, `dd bs=1
    /// count=1`), and leaves the rest of a longer line to the shell.
    pub(in crate::session) counted_read: Option<super::super::stream_reader::CountedRead>,
    /// With `line_without_prompt`: what reads is a statement of a REPL, which is not at its
    /// own prompt (`w = input()` at `>>> `), so a statement sent next would be that line.
    pub(in crate::session) statement_read: bool,
    /// A statement of a REPL waits for a line at this prompt of its own (`input('... ')` at
    /// `>>> `), not the REPL at a prompt of its.
    pub(in crate::session) statement_read_prompt: Option<String>,
    /// Settled on silence (`inferred_idle`) with the foreground reading the terminal among
    /// other sources (an event loop holding a socket, as a relay such as ssh does): it may be
    /// waiting for input, or for its other side.
    pub(in crate::session) idle_reading: bool,
    /// What the result says about its text where it shows differently from what the
    /// program printed (see [`OutputNotes`]).
    pub(in crate::session) output: OutputNotes,
    /// The foreground program is one command of a longer command line our shell runs (a
    /// loop, a list): the line goes on after it.
    pub(in crate::session) in_command_line: bool,
    /// That command line put commands in the background with `&`: they run on after an
    /// interrupt of the rest (`server & sleep 30`).
    pub(in crate::session) line_started_jobs: bool,
    /// A cancel (`job_kill`) ended the send before any of its text was written: the text
    /// waited for the foreground program, which an earlier send started, to read, and the
    /// cancel leaves that program running (the send ends as `timeout`).
    pub(in crate::session) cancelled_unwritten: bool,
    /// A signal or a cancel dropped the send's text before any of its line ends was typed:
    /// no command of it ran, so a status the prompt brings back is an earlier command's (the
    /// one the signal stopped), said as such rather than as this send's.
    pub(in crate::session) entered_none: bool,
    /// The foreground program is a REPL (running a statement when the send did not settle at
    /// its prompt): SIGINT interrupts the statement, and the REPL stays.
    pub(in crate::session) runs_a_repl: bool,
    /// The debugger that runs the foreground program (`gdb` for its inferior, `pdb` for
    /// `python3 -m pdb app.py`): SIGINT breaks into it, and what the program asks is its own.
    pub(in crate::session) debugger: Option<&'static str>,
    /// This send continued a REPL or debugger with `fg`: it reads at its prompt, not printed
    /// again, as before its stop (no program's read of a line with no prompt).
    pub(in crate::session) repl_continued: bool,
    /// The send's line went to a prompt reading with echo off (its text, empty when none
    /// showed): it answered that prompt, unseen.
    pub(in crate::session) answered_password: Option<String>,
    /// The send's text went in typed ahead while this program read nothing, and the command
    /// line ended with none of the text run after it: a prompt of the line took it.
    pub(in crate::session) typed_ahead_taken: Option<String>,
    /// The send's text went in typed ahead while this program read nothing (the terminal
    /// echoed it), and a prompt with echo off waits now.
    pub(in crate::session) typed_ahead_echoed: Option<String>,
    /// The send's text was held while this program read nothing, went to the first reader,
    /// and the command line ended with none of the text run after it: a prompt of the line
    /// took it.
    pub(in crate::session) held_text_taken: Option<String>,
    /// The send typed text, and its deadline passed with no program of it in the foreground
    /// to name: the shell had not yet read it, echoed it, started its program or come back to
    /// its prompt (or a fork of the shell had yet to run the command's program), so the result
    /// may show none of it, though it was typed and goes on.
    pub(in crate::session) typed_unfinished: bool,
    /// Jobs of the shell that are stopped now and were not when the last result settled (the
    /// Ctrl-Z key, or a job in the background that read the terminal): the shell's `Stopped`
    /// line says as much, but not that they are unfinished, nor how to go on.
    pub(in crate::session) stopped_jobs: Vec<StoppedJob>,
}
