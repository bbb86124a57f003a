//! Consuming reads from an anchor (a background job's drains of its send): each read hands out
//! the rows since the previous one and moves the anchor to the cursor. A program that then
//! redraws rows above the cursor (a progress display moving up to rewrite its bars) moves the
//! anchor up to them (see `segment` and `left_rows`): the next read shows those rows again, and
//! says how many lines of the previous reads they replace.

use std::time::{Duration, Instant};

use super::scan::Sequence;
use super::snapshot::RowsSnapshot;
use super::{AnchorId, Screen};

/// One consuming read ([`Screen::consume_since`]).
pub(crate) struct Consumed {
    /// The text starts at its row's start (the program rewrote the row before the anchor;
    /// [`Screen::anchor_starts_row`]).
    pub(crate) restarts_line: bool,
    /// Whole lines at the end of the previous reads that the program rewrote since: the text
    /// shows them again, as they are now, and replaces them.
    pub(crate) rewound_lines: u64,
    /// The rows since the anchor (at most about the read's `max_bytes`).
    pub(crate) rows: RowsSnapshot,
    /// The line ends between the anchor and the first row copied: in the output left out
    /// when the rows do not reach back to the anchor (the byte bound or the scrollback cut
    /// it); `None` when not known.
    pub(crate) lost_line_ends: Option<u64>,
}

impl Consumed {
    /// A read that took nothing (the anchor stays).
    fn nothing() -> Self {
        Self {
            restarts_line: false,
            rewound_lines: 0,
            rows: RowsSnapshot::default(),
            lost_line_ends: None,
        }
    }
}

/// Longest a program's cursor counts as away (saved, not yet restored) for
/// [`Screen::consume_since`]: a program that saves it and never restores it holds reads back
/// no longer.
const CURSOR_AWAY_MAX: Duration = Duration::from_millis(500);

impl Screen {
    /// Notes a save (`ESC 7`, `CSI s` without left and right margins) or restore (`ESC 8`,
    /// `CSI u`) of the main screen's cursor, and a full reset, for [`Screen::cursor_away`].
    pub(super) fn note_cursor_away(&mut self, seq: Sequence) {
        let margins = self.modes & super::feed::modes::LEFT_RIGHT != 0;
        let main = !self.parser.screen().alternate_screen();
        match (seq.csi, seq.private, seq.intermediate, seq.final_byte) {
            (false, None, None, b'7') | (true, None, None, b's') if !margins && main => {
                self.cursor_away_since = Some(Instant::now());
            }
            (false, None, None, b'8' | b'c') | (true, None, None, b'u') => {
                self.cursor_away_since = None;
            }
            _ => {}
        }
    }

    /// Whether the program saved the main screen's cursor, has not restored it and did so
    /// less than [`CURSOR_AWAY_MAX`] ago: the cursor is away (drawing a status line below a
    /// scroll region, as apt does after each line) and about to come back to where the output
    /// goes on.
    fn cursor_away(&self) -> bool {
        !self.parser.screen().alternate_screen()
            && self
                .cursor_away_since
                .is_some_and(|at| at.elapsed() < CURSOR_AWAY_MAX)
    }

    /// A consuming read of the output since `id`, a binary run going on kept open
    /// ([`Screen::with_open_binary_run`]), after which the anchor moves to the cursor (on the
    /// alternate screen the read is that screen, whole, and the anchor stays). While
    /// the program's cursor is away ([`Screen::cursor_away`]: the output stopped in the
    /// middle of a status line's redraw), the read takes nothing and the anchor stays: the
    /// cursor's place then is not where the output goes on, and a read from there would hand
    /// out the rows between as lines and lose the ones the next read takes back. So it does
    /// while a sequence moved the cursor above the anchor's row without writing there (a
    /// multi-line progress display between moving up and redrawing): the rows between were
    /// handed out already, and text written there moves the anchor up to it.
    pub(crate) fn consume_since(&mut self, id: AnchorId, max_bytes: usize) -> Consumed {
        if self.cursor_away() {
            return Consumed::nothing();
        }
        self.with_open_binary_run(|screen| {
            let up = !screen.alternate_screen()
                && screen
                    .anchor_position(id)
                    .is_some_and(|at| screen.cursor().row < at.row);
            if up {
                return Consumed::nothing();
            }
            if screen.alternate_screen() {
                // A full-screen program's screen, whole. The anchor stays where the main screen's
                // output was handed out up to: what reached the main screen after that and
                // before the program took the terminal (the command's own line, its first
                // output) is handed out once the program leaves it.
                return Consumed {
                    restarts_line: false,
                    rewound_lines: 0,
                    rows: screen.snapshot_since(id, max_bytes),
                    lost_line_ends: None,
                };
            }
            screen.forget_handed_out_left_rows(id);
            let restarts_line = screen.anchor_starts_row(id);
            let rewound_lines = screen.anchor_rewound_lines(id);
            let start = screen.anchor_position(id);
            screen.forget_rewound_left_rows(id);
            let rows = screen.snapshot_since(id, max_bytes);
            let lost_line_ends = screen.line_ends_since(id, rows.first_row());
            screen.move_anchor_to_cursor(id);
            screen.move_anchor_past_row_text(id);
            // Handed out up to the cursor, or to the row after the last one taken when the read
            // took rows below the cursor too: what `raise_erased_floor` counts as shown once
            // the caller showed it.
            let below = super::Position {
                row: rows.end_row(),
                col: 0,
            };
            if let Some(at) = screen.anchor_position(id) {
                screen.note_handed_out(at.max(below));
            }
            // The read handed out the rows after the cursor's too (a redraw had moved up to
            // rewrite them, or a status line sits below): the anchor counts the lines up to
            // the end of what it handed out, so the next read, which starts at the cursor's
            // row, takes those back. It starts at that row's first column: the read handed the
            // row's text before the cursor out as a whole line, which goes back with them.
            let handed_out = start
                .filter(|_| !rows.truncated)
                .and_then(|start| screen.line_ends_before(start.row))
                .map(|before| before + rows.line_ends());
            if let Some(handed_out) = handed_out
                && let Some(Some(anchor)) = screen.anchors.get_mut(id.0)
                && anchor.line_ends_before.is_some_and(|at| at < handed_out)
            {
                anchor.line_ends_before = Some(handed_out);
                anchor.pos.col = 0;
                anchor.prefix = None;
            }
            Consumed {
                restarts_line,
                rewound_lines,
                rows,
                lost_line_ends,
            }
        })
    }

    /// Rows the consuming reads from `id` handed out that no caller showed yet are its output,
    /// not text an earlier program left (see [`Screen::handed_out_unshown`]): a render from it
    /// that goes back up over them shows them as they are, and they mix no older text in.
    pub(crate) fn forget_handed_out_left_rows(&mut self, id: AnchorId) {
        self.forget_left_rows_in(id, self.handed_out_unshown());
    }

    /// Line ends between anchor `id` and row `row` (after it): counted from the start of
    /// time at both ends. `None` when either count is not known.
    pub(crate) fn line_ends_since(&self, id: AnchorId, row: u64) -> Option<u64> {
        let Some(Some(anchor)) = self.anchors.get(id.0) else {
            return None;
        };
        anchor
            .line_ends_before
            .zip(self.line_ends_before(row))
            .and_then(|(before, at_row)| at_row.checked_sub(before))
    }

    /// The reader of anchor `id` replaces the lines its earlier reads handed out that output
    /// went back up over (see [`Screen::anchor_rewound_lines`]) with the next read's: that
    /// read takes every row of them again, those the redraw left unchanged too (left out, the
    /// lines of earlier reads it replaces would be lost: a progress display that redraws one
    /// row per read kept only its last row), the rows below the cursor included (a program
    /// that moved up over the lines it printed and rewrote the top one lost the rows under
    /// it). So none of those rows counts as text an earlier program left.
    pub(crate) fn forget_rewound_left_rows(&mut self, id: AnchorId) {
        let rewound = self.anchor_rewound_lines(id);
        let Some(at) = self.anchor_position(id).filter(|_| rewound > 0) else {
            return;
        };
        let cursor_row = self.cursor().row;
        let covered = self.row_after_line_ends(at.row, rewound);
        self.forget_left_rows_in(id, at.row..cursor_row.max(covered + 1));
    }

    /// The first absolute row at or after `row` with `line_ends` line ends between them (the
    /// row the line after them starts on), at most the screen's last row.
    fn row_after_line_ends(&self, row: u64, line_ends: u64) -> u64 {
        let last = self.history().end_abs() + u64::from(self.config.rows.saturating_sub(1));
        let Some(target) = self.line_ends_before(row).map(|before| before + line_ends) else {
            return row;
        };
        (row..=last)
            .find(|&r| self.line_ends_before(r).is_none_or(|ends| ends >= target))
            .unwrap_or(last)
    }

    /// Line ends between the row where anchor `id` was placed and the row output moved it up
    /// to since (a redraw of rows above it): the whole lines a read up to its placement
    /// handed out that a render from it now shows again. 0 when it did not move up.
    pub(crate) fn anchor_rewound_lines(&self, id: AnchorId) -> u64 {
        let Some(Some(anchor)) = self.anchors.get(id.0) else {
            return 0;
        };
        if anchor.pending_main {
            return 0;
        }
        anchor
            .line_ends_before
            .zip(self.line_ends_before(anchor.pos.row))
            .map_or(0, |(placed, now)| placed.saturating_sub(now))
    }

    /// After a read that moved anchor `id` to the cursor (or a result that placed the next
    /// one's start there: a poll then shows the row whole when the program wrote over it,
    /// not the new text alone after the old text before the cursor): when the cursor's row
    /// holds text
    /// after the cursor (the program went back into its line with `\r`, a backspace or a
    /// cursor move, and paused), the read handed that text out too, and the anchor goes to its
    /// end, so that the next read does not hand it out again (every read repeated it:
    /// `Doneing...ing...`), nor take it for text an earlier program left there. Text the
    /// program then writes before the anchor changes the row's text before it, and the next
    /// read gives the row whole ([`Screen::anchor_starts_row`]).
    pub(crate) fn move_anchor_past_row_text(&mut self, id: AnchorId) {
        if self.alternate {
            return;
        }
        let (cursor_row, col) = self.parser.screen().cursor_position();
        let screen = self.parser.screen();
        let (rows, cols) = (screen.size().0.get(), screen.size().1.get());
        // The line goes on past the cursor's row when that row wraps into the next (the
        // program went up into a line longer than the screen is wide): the read handed out
        // the text of those rows too, up to the line's last row.
        let mut row = cursor_row;
        while row + 1 < rows && super::row_text::row_continues(screen, row, cols) {
            row += 1;
        }
        let from = if row == cursor_row { col } else { 0 };
        // One pass over the row (each cell lookup walks the rows; this runs at every result).
        let full = super::row_text::plain_row(screen, row, cols);
        let rest = super::row_text::skip_cols(&full, from).trim_end_matches(' ');
        if rest.is_empty() && row == cursor_row {
            return;
        }
        let last = (from..cols)
            .rev()
            .find(|&c| screen.cell(row, c).is_some_and(vt100::Cell::has_contents));
        let end = last.map_or(0, |last| {
            let wide = screen.cell(row, last).is_some_and(vt100::Cell::is_wide);
            (last + 1 + u16::from(wide)).min(cols)
        });
        let base = self.history().end_abs();
        let pos = super::Position {
            row: base + u64::from(row),
            col: end,
        };
        let prefix = self.row_prefix(pos);
        if let Some(Some(anchor)) = self.anchors.get_mut(id.0)
            && anchor.pos.row == base + u64::from(cursor_row)
            && (pos.row > anchor.pos.row || anchor.pos.col < end)
        {
            anchor.pos = pos;
            anchor.prefix = prefix;
            // That text is the read's, not text an earlier program left after the cursor.
            anchor.left_at_cursor.retain(|left| left.abs != pos.row);
        }
    }
}
