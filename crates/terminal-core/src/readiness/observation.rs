//! [`Observation`]: the facts the settle decision looks at once: the marks, the foreground
//! group's terminal wait, the screen's prompt rows and the output's timing.

use std::time::{Duration, Instant};

use crate::screen::PromptState;

/// Facts observed at one evaluation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Observation {
    /// Now.
    pub(crate) now: Instant,
    /// The top-level process exited and its output was drained.
    pub(crate) exited: bool,
    /// The prompt state from the marks.
    pub(crate) prompt: PromptState,
    /// The prompt state from the marks alone when only output on rows below the newest
    /// prompt followed it (a background job's log over the prompt; see
    /// `Screen::prompt_under_output`), else busy.
    pub(crate) prompt_under_output: PromptState,
    /// A command-finished mark arrived since the write.
    pub(crate) done_since_write: bool,
    /// Any genuine mark arrived since the write.
    pub(crate) mark_since_write: bool,
    /// The terminal's foreground process group.
    pub(crate) fg: Option<i32>,
    /// Input written to the terminal is still queued, unread.
    pub(crate) input_pending: bool,
    /// `/proc` stdin-wait probe of `fg`, when one ran for this evaluation. A probe that began
    /// before the newest output, or found input the group had not read yet, does not count.
    pub(crate) fg_waiting: Option<bool>,
    /// The same probe's verdict that `fg` is busy (computing, sleeping on a timer, waiting on
    /// busy children), when one ran for this evaluation.
    pub(crate) fg_busy: Option<bool>,
    /// The same probe found `fg` blocked on events other than the terminal, each wait with a
    /// timeout (`GroupActivity::TimedWait`): busy to a send that gave its own deadline.
    pub(crate) fg_timed_wait: bool,
    /// The probe found `fg` waiting on the terminal among other event sources.
    pub(crate) fg_wait_among_others: bool,
    /// The same probe found `fg`'s terminal wait bounded by a timeout: the program wakes by
    /// itself within this long (see `GroupActivity::ReadingTty`). Left out for a key reader
    /// in cbreak mode (kept apart as `fg_key_wakes_in`), unless lines of the send are still
    /// to type (one that drains keys typed ahead must not take them).
    pub(crate) fg_wakes_in: Option<Duration>,
    /// The timeout `fg_wakes_in` leaves out for a key reader in cbreak mode (no line of the
    /// send still to type): such a wait is a key reader's idle on its screen (`top` redrawing
    /// its rows in place on its timer) or one at work that polls for a key between steps (a
    /// thread reading `q` beside one that prints `epoch N/8`, a `select` loop between steps,
    /// `flutter run`), which its output tells apart: rows appended (the cursor reaching a row
    /// below every row it reached since the wait was first seen, see `cursor_row`) are work.
    pub(crate) fg_key_wakes_in: Option<Duration>,
    /// The cursor's absolute row (rows scrolled into history counted), when the cursor row was
    /// read for this observation.
    pub(crate) cursor_row: Option<u64>,
    /// A hash of the cursor row's text before the cursor, read with `cursor_row` (`None` when
    /// that text is blank): a progress line redrawn in place (`\r`) changes it.
    pub(crate) cursor_text: Option<u64>,
    /// [`Screen::cursor_jumps`](crate::screen::Screen::cursor_jumps), read with `cursor_row`:
    /// a frame redrawn from the top changes it, a line redrawn with `\r` does not.
    pub(crate) cursor_jumps: u64,
    /// Besides, `fg` holds a socket or a terminal's master side: it relays another side's
    /// output (`ssh host make`), which may still be coming.
    pub(crate) fg_relays: bool,
    /// The same probe found that the thread waiting before the write
    /// ([`PreWrite::reader`]) has run since (it woke up, so it has left that wait) and that
    /// the group waits on the terminal again with no timer (one whose input started a timer
    /// may still be at work), or, a REPL whose wait had one before the write, none due within
    /// [`HELD_INPUT_TIMER_MAX`] (a program holding a lone ESC for its escape timeout).
    pub(crate) fg_reader_ran: bool,
    /// The same probe found `fg` a REPL whose terminal wait has a timer, which `fg_wakes_in`
    /// leaves out (its timers are its user's: no sign of work the input started), or whose
    /// leader's child process runs; a line that owes its prompt may be an `await` still
    /// pending.
    pub(crate) fg_repl_pending: bool,
    /// The same probe found `fg` idle elsewhere and a session process outside it blocked
    /// reading the terminal (tmux's server reads its client's terminal): it paces the lines of
    /// a send (the next goes once the keys before were taken), and settles nothing.
    pub(crate) tty_read_outside_fg: bool,
    /// A terminal query reply is still owed to the program: it waits for us, not for input.
    pub(crate) reply_pending: bool,
    /// When visible output (or a mark) last arrived.
    pub(crate) last_output_at: Instant,
    /// Visible output arrived since the write.
    pub(crate) output_since_write: bool,
    /// Any visible output ever arrived in the session.
    pub(crate) has_output: bool,
    /// Everything the program wrote so far has been read and fed to the screen.
    pub(crate) output_drained: bool,
    /// The shell still prints our prompt marks: marks were seen and the shell process has
    /// not replaced itself (`exec`). Only meaningful with a probe of the shell's group.
    pub(crate) shell_marks_alive: bool,
    /// The terminal is in readline's modes while it edits a line (non-canonical, no echo,
    /// `ICRNL` off; a builtin `read` reads in canonical mode, or keeps `ICRNL` with `-n`/`-N`).
    pub(crate) line_editor_mode: bool,
    /// The terminal's modes are a line editor's now: readline sets them before it prints the
    /// prompt and its marks; marks a command prints itself come with the line modes on.
    pub(crate) tty_line_editing: bool,
    /// A full-screen program has the alternate screen on.
    pub(crate) alternate_screen: bool,
    /// The cursor follows a REPL's prompt alone on its row (node's `> `, IPython's
    /// `In [1]: `, a continuation's `... `): a program waiting on the terminal among other
    /// event sources there has printed its prompt, so its wait needs a shorter quiet.
    pub(crate) prompt_at_cursor: bool,
    /// The text before the cursor ends the way a prompt does (`Name:`, `Continue? [y/N]`),
    /// not a progress line's (`12/40`, `45%`): a wait with a timeout there is a prompt's.
    pub(crate) question_at_cursor: bool,
    /// Nothing precedes the cursor on its row: the program printed no prompt there.
    pub(crate) cursor_on_blank_row: bool,
    /// The cursor is on a blank row below one that starts with a REPL's prompt (node's `> `
    /// with a timer's output after it): the prompt came back, then the program printed over
    /// it.
    pub(crate) prompt_above_cursor: bool,
}
