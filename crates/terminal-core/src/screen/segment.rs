//! What the screen does after each segment of output (see `feed`): the prompt marks it
//! carried, the screen switches (an alternate screen a program left on is given back at the
//! prompt), and the anchors below text the segment printed above them.

use super::row_moves::RowMap;
use super::{FeedOutcome, MarkKind, Position, Screen, ScreenEvent};

/// The rows a segment's text wrote (absolute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TextRows {
    pub(super) start: u64,
    pub(super) end: u64,
}

impl TextRows {
    /// The rows after a sequence moved them as `map` says.
    pub(super) fn moved(self, map: RowMap) -> Self {
        Self {
            start: map.row_or_edge(self.start).0,
            end: map.row_or_edge(self.end).0,
        }
    }
}

impl Screen {
    /// The first and last absolute rows text printed from row `start` wrote, the cursor being
    /// where the text left it (at the start of a row after a line end, that row is not one).
    pub(super) fn text_rows_from(&self, start: u64) -> TextRows {
        let cursor = self.cursor_unsynced();
        let last = if cursor.col == 0 && cursor.row > start {
            cursor.row - 1
        } else {
            cursor.row
        };
        TextRows {
            start,
            end: last.max(start),
        }
    }

    /// After a segment (and the sequence closing it, if any); `text_rows`: the absolute rows
    /// the segment's text started and ended on, when it printed any.
    pub(super) fn after_segment(&mut self, out: &mut FeedOutcome, text_rows: Option<TextRows>) {
        // The segment's text was printed before its closing sequence switched screens.
        let text_on_alternate = self.alternate;
        let marks = std::mem::take(&mut self.parser.callbacks_mut().marks);
        let refused = std::mem::take(&mut self.parser.callbacks_mut().refused_since_admitted);
        let prompt_returned = marks
            .iter()
            .any(|m| matches!(m, MarkKind::CommandDone { .. }));
        for mark in marks {
            self.prompt.on_mark(mark);
            if matches!(mark, MarkKind::PromptEnd | MarkKind::ContinuationEnd) {
                self.prompt.prompt_end_at = Some(self.cursor_unsynced());
                // A prompt as wide as its last row (`dsh> ` at 5 columns, an 80-column `PS1`
                // at 80): readline's wrap follows.
                if self.parser.screen().cursor_position().1 >= self.config.cols {
                    self.prompt.forced_wrap_left = super::prompt::FORCED_WRAP_BYTES;
                }
            }
            if matches!(mark, MarkKind::PromptStart | MarkKind::ContinuationStart) {
                self.prompt.prompt_start_at = Some(self.cursor_unsynced());
            }
            // The end of a prompt drawn again over the line editor's line (see
            // `PromptTracker::redrawn`): the text after it on the row is that line, which
            // readline does not print again, but the line editor holds.
            if mark == MarkKind::PromptEnd && self.prompt.redrawn && self.text_right_of_cursor() {
                self.prompt.text_after_mark = true;
            }
            out.events.push(ScreenEvent::Mark(mark));
        }
        self.prompt.refused_since_mark |= refused;
        // The terminal modes the session started with are restored at each prompt: a program
        // that exited (or crashed) leaving the alternate screen on gives the main screen back
        // when the shell's prompt starts (its first mark comes before the prompt text, which
        // is then drawn on the main screen).
        let mut carried = None;
        if prompt_returned && self.parser.screen().alternate_screen() {
            carried = Some(self.alternate_text_unseen());
            self.emulate(self.leaving_alternate_screen());
            self.prompt_left_alternate = true;
            self.left_by_prompt = true;
        }
        let alternate = self.parser.screen().alternate_screen();
        if alternate != self.alternate {
            self.alternate = alternate;
            self.left_by_prompt &= !alternate;
            self.alternate_shown = None;
            out.events.push(ScreenEvent::AlternateScreen(alternate));
            if !alternate {
                self.alternate_leaves += 1;
                self.alternate_saved_cursor = false;
                // Anchors made on the alternate screen start at the main screen's cursor, with
                // the text before it on its row: a program that left a line unfinished there
                // (git's "hint: Waiting for your editor...") may rewrite that row once the
                // full-screen program is gone, which then shows whole.
                let cursor = self.cursor_unsynced();
                let prefix = if self.anchors.iter().flatten().any(|a| a.pending_main) {
                    self.row_prefix(cursor)
                } else {
                    None
                };
                for anchor in self.anchors.iter_mut().flatten() {
                    if anchor.pending_main {
                        anchor.pos = cursor;
                        anchor.pending_main = false;
                        anchor.prefix.clone_from(&prefix);
                    }
                }
            }
        }
        if let Some(lines) = carried {
            self.carry_over(&lines);
        }
        if !alternate
            && !text_on_alternate
            && let Some(text) = text_rows
        {
            let (row, text_end_row) = (text.start, text.end);
            // The rows the output jumped over (below the rows its text wrote, above the
            // anchor's row) hold an earlier program's text: recorded as left there, like the
            // rows below.
            let lowest = self
                .anchors
                .iter()
                .flatten()
                .filter(|a| !a.pending_main && row < a.pos.row)
                .map(|a| a.pos.row)
                .max();
            let jumped = lowest
                .map(|lowest| self.rows_between(text_end_row.max(row), lowest))
                .unwrap_or_default();
            for anchor in self.anchors.iter_mut().flatten() {
                if !anchor.pending_main && row < anchor.pos.row {
                    let old_row = anchor.pos.row;
                    anchor.pos = Position { row, col: 0 };
                    anchor
                        .left_at_cursor
                        .extend(jumped.iter().filter(|left| left.abs < old_row).cloned());
                    anchor.left_at_cursor.sort_by_key(|left| left.abs);
                    anchor.left_at_cursor.dedup_by_key(|left| left.abs);
                }
            }
        }
        // Not for a prompt drawn again in place (see `PromptTracker::redrawn`): the text on
        // its row is the line editor's line, which the prompt is drawn before, as a terminal
        // shows it.
        if prompt_returned && !alternate && !self.prompt.redrawn {
            self.prompt_below_left_text();
        }
        self.segment_row = self.cursor_unsynced().row;
    }

    /// Whether the cursor's row holds text at or after the cursor (main screen).
    fn text_right_of_cursor(&self) -> bool {
        let screen = self.parser.screen();
        let (row, col) = screen.cursor_position();
        (col..self.config.cols).any(|c| screen.cell(row, c).is_some_and(vt100::Cell::has_contents))
    }
}
