//! The first lines of a send's output, kept while the send runs.
//!
//! A send that prints more than the scrollback (or the render's byte bound) holds would lose
//! its command line and first lines before it settles. The screen keeps them: once
//! [`HEAD_ROWS`] rows follow the send's start (checked after every fed chunk, long before the
//! bounded history can drop them), it renders those rows once, at most [`HEAD_BYTES`], and
//! holds the text until the send settles.

use super::{AnchorId, Position, Screen};

/// Rows of a send's first output kept.
pub(crate) const HEAD_ROWS: u64 = 100;
/// Most bytes of a send's first output kept.
pub(crate) const HEAD_BYTES: usize = 16 * 1024;

/// One send's head capture.
#[derive(Debug)]
pub(super) struct HeadCapture {
    anchor: AnchorId,
    text: Option<String>,
}

/// A send's first output lines, and how many rows followed them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    /// The first rows from the send's start, as text (whole lines, at most [`HEAD_BYTES`]).
    pub(crate) text: String,
    /// Rows of output after the kept ones, to the end.
    pub(crate) rows_after: u64,
}

impl Screen {
    /// Starts keeping the first output lines from `from`'s position (replacing any capture
    /// not finished).
    pub(crate) fn start_head(&mut self, from: AnchorId) {
        self.finish_head();
        if let Some(pos) = self.anchor_position(from) {
            let anchor = self.anchor_at(pos);
            self.head = Some(HeadCapture { anchor, text: None });
            self.capture_head_if_due();
        }
    }

    /// Ends the capture; returns the kept lines once [`HEAD_ROWS`] rows followed the start.
    pub(crate) fn finish_head(&mut self) -> Option<Head> {
        let capture = self.head.take()?;
        let start = self.anchor_position(capture.anchor);
        self.release_anchor(capture.anchor);
        let text = capture.text?;
        let start = start?;
        let end = self.content_end_row();
        Some(Head {
            text,
            rows_after: end.saturating_sub(start.row + HEAD_ROWS),
        })
    }

    /// Renders the head once enough rows follow its start.
    pub(super) fn capture_head_if_due(&mut self) {
        let Some(capture) = self.head.as_ref().filter(|c| c.text.is_none()) else {
            return;
        };
        let Some(start) = self.anchor_position(capture.anchor) else {
            return;
        };
        // An upper bound of the newest row, without bringing the emulator up to date.
        let bound =
            self.history().end_abs() + self.flood.rows as u64 + u64::from(self.config.rows.max(1));
        if bound < start.row + HEAD_ROWS || self.alternate {
            return;
        }
        let text = self.render_head(start);
        if let Some(capture) = self.head.as_mut() {
            capture.text = text;
        }
    }

    /// The first [`HEAD_ROWS`] rows from `start`, cut to whole lines within [`HEAD_BYTES`];
    /// `None` until that many rows exist.
    fn render_head(&mut self, start: Position) -> Option<String> {
        self.materialize();
        if self.content_end_row() < start.row + HEAD_ROWS {
            return None;
        }
        // Rendered from the start to the end: what follows the head rows is at most one
        // chunk's rows, since the capture is checked after every chunk.
        let all = self
            .snapshot_from(start, usize::MAX)
            .render(usize::MAX)
            .text;
        let mut out = String::new();
        for line in all.split_inclusive('\n').take(HEAD_ROWS as usize) {
            if out.len() + line.len() > HEAD_BYTES {
                break;
            }
            out.push_str(line);
        }
        Some(out)
    }

    /// The absolute row of the cursor, the newest row that matters.
    fn content_end_row(&mut self) -> u64 {
        self.cursor().row
    }
}
