//! Consuming reads from an anchor (a background job's drains of its send): each read hands out
//! the rows since the previous one and moves the anchor to the cursor. A program that then
//! redraws rows above the cursor (a progress display moving up to rewrite its bars) moves the
//! anchor up to them (see `segment` and `left_rows`): the next read shows those rows again, and
//! says how many lines of the previous reads they replace.

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
}

impl Screen {
    /// A consuming read of the output since `id`, a binary run going on kept open
    /// ([`Screen::with_open_binary_run`]), after which the anchor moves to the cursor.
    pub(crate) fn consume_since(&mut self, id: AnchorId, max_bytes: usize) -> Consumed {
        self.with_open_binary_run(|screen| {
            let restarts_line = screen.anchor_starts_row(id);
            let rewound_lines = screen.anchor_rewound_lines(id);
            let start = screen.anchor_position(id);
            let rows = screen.snapshot_since(id, max_bytes);
            screen.move_anchor_to_cursor(id);
            // The read handed out the rows after the cursor's too (a redraw had moved up to
            // rewrite them): the anchor counts the lines up to the end of what it handed out,
            // so the next read, which starts at the cursor's row, takes those back.
            let handed_out = start
                .filter(|_| !rows.truncated)
                .and_then(|start| screen.line_ends_before(start.row))
                .map(|before| before + rows.line_ends());
            if let Some(handed_out) = handed_out
                && let Some(Some(anchor)) = screen.anchors.get_mut(id.0)
                && anchor.line_ends_before.is_some_and(|at| at < handed_out)
            {
                anchor.line_ends_before = Some(handed_out);
            }
            Consumed {
                restarts_line,
                rewound_lines,
                rows,
            }
        })
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
}
