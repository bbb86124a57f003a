//! The state of one send ([`SendOp`]): what the driver (`drive`), its start and its
//! settling share about the send as it runs.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8};
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::{Notify, watch};

use crate::error::TerminalError;
use crate::types::SendResult;

use super::super::shared::Shared;
use super::span::Span;

/// One send.
pub(in crate::session) struct SendOp {
    pub(super) shared: Arc<Shared>,
    pub(super) result: watch::Sender<Option<Result<SendResult, TerminalError>>>,
    pub(super) wake: Notify,
    pub(super) span: Mutex<Span>,
    pub(super) settled: AtomicBool,
    pub(super) finished: AtomicBool,
    /// A write or an interrupt of this send is still in flight: the slot stays reserved after
    /// settlement until it lands, so late bytes or a late SIGINT never hit a successor.
    pub(super) in_flight: AtomicBool,
    /// A signal's aftermath had not played out when the write began (see `prepare_write`).
    pub(super) signal_unsettled: AtomicBool,
    /// Set when the text went in typed ahead (see [`prepare::TypedAhead`]).
    pub(super) typed_ahead_of: Mutex<Option<super::prepare::TypedAhead>>,
    /// The send's own deadline, when it asked for one (else the configured timeout applies).
    pub(super) timeout: Option<Duration>,
    /// A signal reached the terminal's foreground: the lines not typed yet are dropped, as
    /// the terminal's keys discard input typed ahead (see [`pacing`]).
    pub(super) untyped_dropped: AtomicBool,
    /// A signal discarded typed-ahead input: text held for a reader is dropped (see [`hold`]).
    pub(super) held_dropped: AtomicBool,
    /// The notice for paced lines left untyped (the kernel would cut one; a signal came).
    pub(super) refused: Mutex<Option<String>>,
    /// The notice for the lines left untyped because the reader they were meant for (or the
    /// session's shell) ended, when [`Self::refused`] already says where an earlier line went
    /// (a prompt it answered).
    pub(super) untyped_after_answer: Mutex<Option<String>>,
    /// The send's first line that went to a waiting prompt as its answer: [`Self::refused`]
    /// holds its notice until the send settles, which tells it as the state then is (see
    /// `ToWaitingPrompt::at_settle`).
    pub(super) waiting_prompt_notices: Option<super::waiting_prompt::ToWaitingPrompt>,
    /// The lines of the send that went to prompts earlier lines showed, by number, as the
    /// notice names each (``line 2 (`echo one`) to `A:` ``), while `refused` holds their
    /// notice.
    pub(super) to_prompts: Mutex<Vec<(usize, String)>>,
    /// A line of the send's text quits what reads it (`exit()`, `.exit 4`, `raise
    /// SystemExit(3)`; see `input::ends_its_reader`).
    pub(super) ends_its_reader: bool,
    /// Text no send typed before the send's command line at the shell's prompt: on the
    /// prompt's row, which the send's input first cleared from the line editor (see
    /// `PtySpawnSpec::clear_line_keys`), or output before the cursor on a row below it.
    pub(super) cleared_line: Option<super::super::result::TextBeforeLine>,
    /// Columns of blanks an auto-indenting REPL put on the line, which the input first
    /// deleted: the send's result starts where they began.
    pub(super) indent_cleared: u16,
    /// The session's shell was stopped when the send began and was continued (SIGCONT).
    pub(super) shell_continued: AtomicBool,
    /// What the send found at our shell's continuation prompt as it started (see
    /// `open_command`).
    pub(super) at_continuation: Option<super::open_command::AtContinuation>,
    /// Whether it settles on an event loop's wait with no prompt (`SettleFacts::unprompted_wait`):
    /// [`UNPROMPTED_NO`], [`UNPROMPTED_LINE`], or [`UNPROMPTED_POLL`] (a poll finds it still so).
    pub(super) unprompted_wait: AtomicU8,
    /// The REPL is in, or the input's last line switches it into, a mode with no prompt
    /// (node's `.editor`): no prompt is owed after the lines it typed.
    pub(super) promptless: bool,
    /// The REPL was already in that mode when the send began: the lines go into its buffer.
    pub(super) in_promptless_mode: bool,
    /// This send enters node's editor mode (a line of it is `.editor`), if node's REPL
    /// takes it: its banner shows (`// Entering editor mode`).
    pub(super) enters_promptless_mode: bool,
    /// Lines with text follow the `.editor` line in this send (they go into the mode's
    /// buffer, and the result says so).
    pub(super) lines_after_editor: bool,
    /// The input's last non-blank line, trimmed: only a prompt after its echo shows it done.
    pub(super) last_line: Option<String>,
    /// The line the REPL read last (`last_line`; a poll's is the newest send's): node shows
    /// it again after the prompt a pending `await`'s end brings, no prompt for it.
    pub(super) own_line: Option<String>,
    /// The input hands the shell's line editor a command to run (`input::submits_a_command`).
    pub(super) submits_command: bool,
    /// The input turns on errexit in the shell itself (`input::turns_on_errexit`).
    pub(super) turns_on_errexit: bool,
    /// The input sets a trap on `ERR` that exits, in the shell itself
    /// (`input::sets_an_exiting_err_trap`).
    pub(super) sets_exiting_err_trap: bool,
    /// The input goes to the shell's line editor and hands it no command: keys that edit the
    /// line (a history search, Ctrl-A, an arrow, Ctrl-C), whose redraws are no output.
    pub(super) edits_shell_line: bool,
    /// The input hands no command to whatever reads it (no line end, not empty), and a
    /// program held the terminal as the send began: held for a reader or typed ahead, keys
    /// reach the shell's line editor as [`Self::edits_shell_line`]'s do once it ended.
    pub(super) keys_while_a_program_ran: bool,
    /// A key answer's Enter was not typed: the reader of single keys took the keys and went
    /// on (see `key_answer`), as the send began, or as one of its paced lines.
    pub(super) enter_withheld: AtomicBool,
    /// Of a `yes`/`no` word to a yes/no question, only the first key went (see `key_answer`).
    pub(super) rest_withheld: AtomicBool,
    /// Of keys sent one at a time, the reader took the first ones and went on: the rest (and
    /// the Enter) was dropped (see `key_answer`); the rest of a whole line dropped so.
    pub(super) keys_withheld: AtomicBool,
    pub(super) keys_withheld_rest: Mutex<Option<String>>,
    /// The send began at a line reader (`read`, `input()`, a REPL's prompt) no key or quit
    /// command of it ends: lines left untyped when the shell's prompt came back are dropped.
    pub(super) answers_a_line_reader: bool,
    /// The process group of the program (a REPL, a debugger) whose own prompt the cursor
    /// stood at as the send began (`>>> `, `(gdb) `), when one did: its later lines are
    /// statements or commands for that prompt (see `refuses_step_to_own_prompt`).
    pub(super) repl_at_start: Option<i32>,
}

/// See [`SendOp::unprompted_wait`].
pub(in crate::session) const UNPROMPTED_NO: u8 = 0;
/// See [`SendOp::unprompted_wait`].
pub(in crate::session) const UNPROMPTED_LINE: u8 = 1;
/// See [`SendOp::unprompted_wait`].
pub(in crate::session) const UNPROMPTED_POLL: u8 = 2;
