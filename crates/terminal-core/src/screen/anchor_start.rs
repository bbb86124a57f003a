//! Where a render from an anchor starts: at the anchor, or at the start of its line when the
//! program rewrote the text before it.

use super::{AnchorId, Position, Screen, row_text};

impl Screen {
    /// Whether text rendered from the anchor starts at its row's start (column 0): the anchor
    /// sits there, or the program rewrote the row's text before it. Brings the screen up to
    /// date first (text waiting as flood lines, or held for a character's next bytes, may
    /// change that row), as the render that follows does.
    pub(crate) fn anchor_starts_row(&mut self, id: AnchorId) -> bool {
        self.materialize();
        !self.alternate && self.anchor_render_start(id).is_some_and(|pos| pos.col == 0)
    }

    /// Where a render from the anchor starts: its position, or the start of its line when the
    /// text before its column changed since it was placed (the first row of a line that
    /// soft-wraps onto the anchor's row: a `\r` in a line longer than the screen is wide goes
    /// back to the start of its last row only, and the line is given again whole).
    pub(super) fn anchor_render_start(&self, id: AnchorId) -> Option<Position> {
        let Some(Some(a)) = self.anchors.get(id.0) else {
            return None;
        };
        if a.pending_main {
            return None;
        }
        match &a.prefix {
            Some(prefix) if self.row_prefix(a.pos).as_ref() != Some(prefix) => Some(Position {
                row: self.line_start_row(a.pos.row),
                col: 0,
            }),
            _ => Some(a.pos),
        }
    }

    /// The first row of the line absolute row `abs` is part of: the rows above it that
    /// soft-wrap into it, as far as they are retained.
    fn line_start_row(&self, abs: u64) -> u64 {
        let history = self.history();
        let (first, base) = (history.first_abs(), history.end_abs());
        let wraps = |row: u64| {
            if row >= base {
                u16::try_from(row - base).is_ok_and(|r| {
                    row_text::row_continues(self.parser.screen(), r, self.config.cols)
                })
            } else {
                history.get(row).is_some_and(|(_, wrapped)| wrapped)
            }
        };
        let mut row = abs;
        while row > first && wraps(row - 1) {
            row -= 1;
        }
        row
    }
}
