//! The alternate screen as the screen tracks it, and giving the main screen back when a
//! program left the alternate screen on: at the prompt and when the session's program ends.
//! What the program last showed there is carried onto the main screen, as a terminal would
//! show it below the prompt's line.

use super::row_text::visible_rows_text;
use super::{FeedOutcome, Screen};

impl Screen {
    /// Whether a full-screen program holds the alternate screen.
    pub(crate) fn alternate_screen(&self) -> bool {
        self.alternate
    }

    /// Whether the shell's prompt returned the screen from an alternate screen a program left
    /// on since the last call (cleared by the call).
    pub(crate) fn take_prompt_left_alternate(&mut self) -> bool {
        std::mem::take(&mut self.prompt_left_alternate)
    }

    /// How often the screen went from the alternate screen back to the main one so far.
    pub(crate) fn alternate_leave_count(&self) -> u64 {
        self.alternate_leaves
    }

    /// Gives the main screen back when the session's program ended with the alternate screen
    /// on (nothing will leave it now): the alternate screen's last text is carried onto the
    /// main screen below what was there, as when a prompt returns ([`Screen::carry_over`]), so
    /// the session's last result shows the command line and that text.
    pub(crate) fn leave_alternate_screen_at_exit(&mut self) {
        if !self.parser.screen().alternate_screen() {
            return;
        }
        let lines = self.alternate_screen_text();
        // As the prompt gives it back ([`Screen::after_segment`]): the main screen's own
        // cursor, not the one a program's own `CSI ? 47 l` would leave where it was.
        self.materialize();
        let leave = self.leaving_alternate_screen();
        for &b in leave {
            self.scanner.step(b);
        }
        self.emulate(leave);
        self.after_segment(&mut FeedOutcome::default(), None);
        self.carry_over(&lines);
    }

    /// What leaves the alternate screen the way the program took it: mode 1049 restores the
    /// cursor it saved; after mode 47 or 1047 the main screen's cursor stays where it was (a
    /// restore would go to a cursor never saved, over the rows at the top).
    pub(super) fn leaving_alternate_screen(&self) -> &'static [u8] {
        if self.alternate_saved_cursor {
            b"\x1b[?1049l"
        } else {
            b"\x1b[?47l"
        }
    }

    /// The text of the alternate screen's bottom row, where a full-screen editor shows its
    /// mode (vim's `-- INSERT --`); `None` off the alternate screen.
    pub(crate) fn alternate_bottom_row(&mut self) -> Option<String> {
        self.materialize();
        let rows = self.config.rows;
        (self.alternate && rows > 0).then(|| {
            super::row_text::row_text(self.parser.screen(), &[], rows - 1, 0, self.config.cols)
        })
    }

    /// Whether the cursor is on the screen's last row (vim's `:` command line, a pager's
    /// prompt).
    pub(crate) fn cursor_on_bottom_row(&mut self) -> bool {
        self.materialize();
        let (row, _) = self.parser.screen().cursor_position();
        row + 1 >= self.config.rows
    }

    /// The alternate screen's rows from its first to its last non-blank one, as text.
    pub(super) fn alternate_screen_text(&self) -> Vec<String> {
        let tabs = &self.parser.callbacks().tabs_alt;
        let mut rows = visible_rows_text(self.parser.screen(), |r| tabs.row(r), self.config.cols);
        while rows.last().is_some_and(|r| r.trim().is_empty()) {
            rows.pop();
        }
        let first = rows
            .iter()
            .position(|r| !r.trim().is_empty())
            .unwrap_or(rows.len());
        rows.drain(..first);
        rows
    }

    /// Whether a full-screen program holds the terminal and its screen reads as it did when a
    /// render last showed it (a result's, or a background job's read): a read from a new send
    /// then has nothing new to hand out (a job's follow-up poll, keys that changed nothing).
    pub(crate) fn alternate_unchanged_since_shown(&mut self) -> bool {
        self.materialize();
        self.alternate
            && self
                .alternate_shown
                .as_ref()
                .is_some_and(|shown| *shown == self.alternate_screen_text())
    }

    /// [`Screen::alternate_screen_text`] without the rows a result already showed, unchanged
    /// (a pager or editor killed with `SIGKILL` leaves its page, which the last result
    /// showed, and the shell's `Killed` on it, the page perhaps scrolled up a row): carried
    /// over, an unchanged page would be shown again in full before the prompt. The rows left
    /// out are those of a longest common subsequence of the rows now and the rows shown: the
    /// rest are what changed (a crashing program's error, `Killed`).
    pub(super) fn alternate_text_unseen(&mut self) -> Vec<String> {
        let text = self.alternate_screen_text();
        let Some(shown) = self.alternate_shown.take() else {
            return text;
        };
        // lcs[i][j]: the longest common subsequence of text[i..] and shown[j..].
        let (n, m) = (text.len(), shown.len());
        let mut lcs = vec![vec![0u16; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i][j] = if text[i] == shown[j] {
                    lcs[i + 1][j + 1] + 1
                } else {
                    lcs[i + 1][j].max(lcs[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        let mut unseen = Vec::new();
        while i < n {
            if j < m && text[i] == shown[j] {
                i += 1;
                j += 1;
            } else if j < m && lcs[i][j + 1] >= lcs[i + 1][j] {
                j += 1;
            } else {
                unseen.push(text[i].clone());
                i += 1;
            }
        }
        unseen
    }

    /// Writes what a program left on the alternate screen (`lines`, from
    /// [`Screen::alternate_screen_text`]) onto the main screen at its cursor, after the prompt
    /// gave the main screen back: on a terminal the prompt would be drawn below that screen,
    /// and it is how a crashing full-screen program says why (a traceback, `FATAL: …`).
    pub(super) fn carry_over(&mut self, lines: &[String]) {
        if lines.is_empty() {
            return;
        }
        let mut bytes = Vec::new();
        if self.parser.screen().cursor_position().1 != 0 {
            bytes.extend_from_slice(b"\r\n");
        }
        for line in lines {
            bytes.extend_from_slice(line.as_bytes());
            bytes.extend_from_slice(b"\r\n");
        }
        // The cursor a later stray `ESC [?1049l` restores is below the carried lines, as it
        // was below the command line before: the restore does not move back over them.
        bytes.extend_from_slice(b"\x1b7");
        self.unconcealed(|s| s.emulate(&bytes));
    }
}
