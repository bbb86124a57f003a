//! Pages of the transcript for `terminal_read`: newest-relative (`offset`, `count`) and by
//! line number (`fromLine`), copied out under the session lock and cut outside it.

use crate::error::TerminalError;
#[cfg(test)]
use crate::types::ReadResult;

use super::Screen;
use super::snapshot::{RowsSnapshot, Stop, page_bounds};

impl Screen {
    /// A newest-relative page of the transcript (the seed's §3.7): `offset` 0 is the newest
    /// line, `count` lines ending `offset` lines before the newest (defaults 0 and
    /// [`DEFAULT_PAGE_LINES`](super::DEFAULT_PAGE_LINES)), joined by `\n` and tail-bounded to `max_bytes`.
    ///
    /// # Errors
    /// `InvalidRequest` when `count` is 0.
    #[cfg(test)]
    pub(crate) fn page(
        &mut self,
        offset: Option<u64>,
        count: Option<u64>,
        max_bytes: usize,
    ) -> Result<ReadResult, TerminalError> {
        self.page_snapshot(offset, count)?
            .page(offset, count, max_bytes)
    }

    /// The `offset` of a page whose first line is line `from_line` (counted from the
    /// session's first line, as [`RowsSnapshot::last_line`]), of `count` lines
    /// ([`DEFAULT_PAGE_LINES`](super::DEFAULT_PAGE_LINES) when `None`), and the count cut to
    /// the lines that exist: the page ends with the newest line at most.
    ///
    /// # Errors
    /// `InvalidRequest` while a full-screen program holds the terminal (the newest lines are
    /// its screen, which has no line numbers), when `count` is 0, when `from_line` is after
    /// the newest line (the message names the newest line's number), and when the scrollback
    /// no longer holds any of the lines (the message names the oldest line it holds).
    pub(crate) fn page_at_line(
        &mut self,
        from_line: u64,
        count: Option<u64>,
    ) -> Result<(u64, u64), TerminalError> {
        let (_, count) = page_bounds(None, count)?;
        if self.alternate_screen() {
            return Err(TerminalError::invalid(
                "fromLine numbers the shell's lines, and a full-screen program holds the terminal now: read with offset (0 is its screen's newest line), or once it exits",
            ));
        }
        let newest = self.newest_line();
        if from_line > newest {
            return Err(TerminalError::invalid(format!(
                "fromLine {from_line} is after the newest line ({newest}): read the newest lines with offset 0, or give a fromLine at most {newest}"
            )));
        }
        let last = from_line.saturating_add(count - 1).min(newest);
        let oldest = self
            .line_ends_before(self.history().first_abs())
            .unwrap_or(0);
        if last < oldest {
            return Err(TerminalError::invalid(format!(
                "lines {from_line}-{last} are no longer retained: the output after them went past the scrollback's limit, which dropped them; the oldest line kept is {oldest} (page from it with fromLine {oldest})"
            )));
        }
        Ok((newest - last, last - from_line + 1))
    }

    /// The number of the newest line a page shows (offset 0), counted as
    /// [`RowsSnapshot::last_line`] counts.
    fn newest_line(&mut self) -> u64 {
        self.materialize();
        let (cursor_row, _) = self.parser.screen().cursor_position();
        let visible = self.visible_rows_from(false, cursor_row);
        let last = visible
            .iter()
            .rposition(|text| !text.trim_end_matches(' ').is_empty())
            .map_or(cursor_row, |i| cursor_row.saturating_add(i as u16));
        let end = self.history().end_abs() + u64::from(last);
        self.line_ends_before(end).unwrap_or(0)
    }

    /// The rows a [`RowsSnapshot::page`] of `offset` and `count` needs, copied out.
    ///
    /// # Errors
    /// `InvalidRequest` when `count` is 0.
    pub(crate) fn page_snapshot(
        &mut self,
        offset: Option<u64>,
        count: Option<u64>,
    ) -> Result<RowsSnapshot, TerminalError> {
        let (offset, count) = page_bounds(offset, count)?;
        let dropped = self.history_dropped();
        let mut snapshot = self.collect_rows(
            self.history().first_abs(),
            0,
            Stop::Lines(offset.saturating_add(count)),
            &[],
        );
        snapshot.truncated = dropped;
        snapshot.first_line_may_be_cut =
            dropped && snapshot.first_row == self.history().first_abs();
        snapshot.alternate = self.alternate_screen();
        snapshot.oldest_line = (!snapshot.alternate)
            .then(|| self.line_ends_before(self.history().first_abs()))
            .flatten();
        Ok(snapshot)
    }
}
