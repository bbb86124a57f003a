//! A binary run still going on when a send's output is read in the middle of it.
//!
//! A read brings the screen up to date, which would end the run: a background job, whose
//! output is read every few milliseconds, would then show a flood of binary output as many
//! summary lines with stray bytes between them. A read that does not stand for the output's
//! end (a background job's reads, a `terminal_read` page, a send's progress, a send's result
//! while its program still runs: at its timeout or as its output went quiet;
//! [`Screen::with_open_binary_run`]) keeps the run open instead and shows it so far as one
//! short line on the cursor row ([`open_run_line`]), without a newline, so it reads as the
//! line being written. The next output erases that line (carriage return, erase line) before
//! anything else: the run goes on, and when it ends its summary line takes the row, as if no
//! read had come between. A send's result at a prompt, an exit or a wait for input ends the
//! run as before.

use super::binary::open_run_line;
use super::{FeedOutcome, Screen};

impl Screen {
    /// Runs `read` on the screen with a binary run going on kept open: `read`'s view of the
    /// screen shows the run so far as its own line (see the [module docs](self)).
    pub(crate) fn with_open_binary_run<R>(&mut self, read: impl FnOnce(&mut Self) -> R) -> R {
        self.keep_binary_run_open(true);
        let result = read(self);
        self.keep_binary_run_open(false);
        result
    }

    /// From `true` until `false`: the screen's reads keep a binary run going on open, as
    /// [`Screen::with_open_binary_run`] does for one closure (for a caller whose reads are
    /// spread out: a send's result while its program still runs).
    pub(crate) fn keep_binary_run_open(&mut self, keep: bool) {
        self.keep_binary_open = keep;
        if keep {
            // The run's line goes up first: what a read looks at before bringing the screen
            // up to date (whether an anchor's row was rewritten) depends on it.
            self.show_open_run();
        }
    }

    /// Whether a run of binary output goes on (its bytes are being counted, not shown).
    pub(crate) fn binary_run_open(&self) -> bool {
        self.binary.suppressing()
    }

    /// Within [`Screen::with_open_binary_run`] with a binary run going on: puts the run's line so far on the
    /// cursor row (on a row of its own, cut to the screen's width so it never wraps), and
    /// returns `true` (the screen is as up to date as the run allows). Otherwise `false`.
    pub(super) fn show_open_run(&mut self) -> bool {
        if !self.keep_binary_open {
            return false;
        }
        let Some(bytes) = self.binary.suppressed_bytes() else {
            return false;
        };
        let mut line = open_run_line(bytes);
        line.truncate(usize::from(self.config.cols).saturating_sub(1).max(1));
        if self.open_run_line.as_deref() == Some(line.as_str()) {
            return true;
        }
        self.erase_open_run();
        let mut text = Vec::with_capacity(line.len() + 2);
        if self.parser.screen().cursor_position().1 != 0 {
            text.extend_from_slice(b"\r\n");
        }
        text.extend_from_slice(line.as_bytes());
        // Shown whatever the program's output concealed, and on the screen, not waiting as
        // flood lines: the read must find it there.
        self.unconcealed(|s| s.feed_text(&text, &mut FeedOutcome::default()));
        self.open_run_line = Some(line);
        true
    }

    /// Takes the open run's line off the screen, if one is shown: the cursor goes back to the
    /// row's start, where the run's summary line (or the line so far of the next read) goes.
    pub(super) fn erase_open_run(&mut self) {
        if self.open_run_line.take().is_some() {
            self.feed_text(b"\r\x1b[2K", &mut FeedOutcome::default());
        }
    }
}
