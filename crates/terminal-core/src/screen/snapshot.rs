//! [`RowsSnapshot`]: rows copied out of the screen under the session's lock and rendered after
//! it is released, so a long render or page never holds up the reader or other callers.
//! Only the rows the render can show are copied: the newest ones up to the byte bound of a
//! render, or the lines a page reaches back to.

use std::borrow::Cow;

use dsh_output_retention::{head_slice, tail_slice};

use crate::error::TerminalError;
use crate::types::{LineStart, ReadResult};

use super::head::LINE_START_BYTES;
use super::{DEFAULT_PAGE_LINES, Rendered};

/// How far back from the newest row [`Screen::collect_rows`](super::Screen) copies.
#[derive(Clone, Copy, Debug)]
pub(super) enum Stop {
    /// Until the copied text exceeds this many bytes (a tail-bounded render).
    Bytes(usize),
    /// Until this many whole lines are copied (a page).
    Lines(u64),
}

impl Stop {
    /// Starts a walk back over history with `pieces` (the visible rows, oldest first) copied;
    /// `before_wrapped`: the row before the first piece soft-wraps into it.
    pub(super) fn walk(self, pieces: &[(Cow<'_, str>, bool)], before_wrapped: bool) -> Walk {
        let last = pieces.len().saturating_sub(1);
        let bytes = pieces
            .iter()
            .enumerate()
            .map(|(i, (t, w))| t.len() + usize::from(i < last && !*w))
            .fold(0usize, usize::saturating_add);
        let lines = 1 + pieces[..last].iter().filter(|(_, w)| !*w).count() as u64;
        Walk {
            stop: self,
            bytes,
            lines,
            line_start: !before_wrapped,
        }
    }
}

/// Progress of a walk back over history rows (see [`Stop::walk`]).
pub(super) struct Walk {
    stop: Stop,
    bytes: usize,
    lines: u64,
    /// The oldest copied row starts a line.
    line_start: bool,
}

impl Walk {
    /// Whether enough rows are copied.
    pub(super) fn done(&self) -> bool {
        match self.stop {
            Stop::Bytes(max) => self.bytes > max,
            Stop::Lines(n) => self.lines >= n && self.line_start,
        }
    }

    /// One older row was copied: `len` text bytes, whether it soft-wraps into the next row,
    /// and whether the row before it soft-wraps into it. It always has a newer row after it.
    pub(super) fn add(&mut self, len: usize, wrapped: bool, before_wrapped: bool) {
        self.bytes = self.bytes.saturating_add(len + usize::from(!wrapped));
        self.lines += u64::from(!wrapped);
        self.line_start = !before_wrapped;
    }
}

/// Rows copied out of a screen, oldest first, already joined (a `\n` after every row that
/// does not soft-wrap), so a render hands the text on without copying it again.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowsSnapshot {
    /// The rows' text, joined.
    text: String,
    /// Each row's end offset in `text` (before its `\n`) and whether it soft-wraps into the
    /// next.
    rows: Vec<(usize, bool)>,
    /// Absolute row of the first row.
    pub(super) first_row: u64,
    /// Transcript lines wholly before the rows (counted by a page snapshot).
    pub(super) lines_before: u64,
    /// The start fell out of the bounded history (a render), or history ever dropped rows
    /// (a page).
    pub(super) truncated: bool,
    /// The first row is the oldest one history holds after it dropped rows: its line may
    /// have begun in a dropped row.
    pub(super) first_line_may_be_cut: bool,
    /// The output wrote over text an earlier program left on screen (the cursor was moved
    /// up without clearing): a row may mix this output with that text.
    pub(super) mixed: bool,
    /// `mixed` on a row other than the first (the start's).
    pub(super) mixed_elsewhere: bool,
    /// The visible rows were the alternate screen's (a page snapshot).
    pub(super) alternate: bool,
    /// Lines of the rows that follow the cursor's line on the main screen (output that moved
    /// the cursor up above lines it wrote before).
    pub(super) lines_after_cursor: u64,
    /// The number of the rows' last line counted from the session's first line (0), the
    /// lines the scrollback dropped included: `terminal_read`'s `fromLine` numbering. `None`
    /// when not known (no rows, or the alternate screen's).
    pub(super) last_line: Option<u64>,
    /// The number of the oldest retained line, counted as `last_line` (a page snapshot).
    pub(super) oldest_line: Option<u64>,
}

impl RowsSnapshot {
    /// Joins `rows` (text and soft-wrap flag, oldest first) into a snapshot.
    pub(super) fn join<'a>(rows: impl Iterator<Item = (&'a str, bool)> + Clone) -> Self {
        let (count, bytes) = rows
            .clone()
            .fold((0usize, 0usize), |(n, b), (t, _)| (n + 1, b + t.len() + 1));
        let mut text = String::with_capacity(bytes);
        let mut ends = Vec::with_capacity(count);
        for (i, (row, wrapped)) in rows.enumerate() {
            text.push_str(row);
            ends.push((text.len(), wrapped));
            if i + 1 < count && !wrapped {
                text.push('\n');
            }
        }
        Self {
            text,
            rows: ends,
            ..Self::default()
        }
    }

    /// Line ends among the copied rows (the joined text's newlines).
    pub(crate) fn line_ends(&self) -> u64 {
        let ends = self
            .rows
            .iter()
            .rev()
            .skip(1)
            .filter(|(_, wrapped)| !wrapped);
        ends.count() as u64
    }

    /// Whether the rows do not reach back to where the copy was asked from (the byte bound or
    /// the scrollback cut them).
    pub(crate) fn truncated(&self) -> bool {
        self.truncated
    }

    /// Absolute row of the oldest copied row (where a render of it starts, give or take the
    /// part of that row its byte bound cuts).
    pub(crate) fn first_row(&self) -> u64 {
        self.first_row
    }

    /// The absolute row after the last row (the first row when there are none).
    pub(crate) fn end_row(&self) -> u64 {
        self.first_row + self.rows.len() as u64
    }

    /// See [`RowsSnapshot::last_line`](Self#structfield.last_line).
    pub(crate) fn last_line(&self) -> Option<u64> {
        self.last_line
    }

    /// See [`RowsSnapshot::lines_after_cursor`](Self#structfield.lines_after_cursor).
    pub(crate) fn lines_after_cursor(&self) -> u64 {
        self.lines_after_cursor
    }

    /// See [`RowsSnapshot::mixed`](Self#structfield.mixed): the rows may mix this output with
    /// text an earlier program left on screen.
    pub(crate) fn mixed(&self) -> bool {
        self.mixed
    }

    /// Whether the only row that may mix this output with earlier text is the start's: the
    /// output began at a row's start, after a carriage return that ended the output before
    /// (a progress line a poll left, `\r` after it), and wrote over that row's text.
    pub(crate) fn mixed_at_start_only(&self) -> bool {
        self.mixed && !self.mixed_elsewhere
    }

    /// Each copied row's text and whether it soft-wraps into the next, oldest first.
    pub(super) fn rows(&self) -> impl Iterator<Item = (&str, bool)> {
        let mut start = 0;
        self.rows.iter().map(move |&(end, wrapped)| {
            let row = self.text.get(start..end).unwrap_or_default();
            start = end + usize::from(!wrapped);
            (row, wrapped)
        })
    }

    /// Bytes of the joined text.
    pub(crate) fn text_len(&self) -> usize {
        self.text.len()
    }

    /// How many rows were copied.
    pub(super) fn row_count(&self) -> usize {
        self.rows.len()
    }

    /// The joined rows, keeping at most `max_bytes` of the tail, cut on a UTF-8 boundary.
    pub(crate) fn render(self, max_bytes: usize) -> Rendered {
        let (text, cut) = tail_bound(self.text, max_bytes);
        Rendered {
            text,
            truncated: cut || self.truncated,
        }
    }

    /// A newest-relative page (the seed's §3.7): `offset` 0 is the newest line, `count`
    /// lines ending `offset` lines before the newest (defaults 0 and [`DEFAULT_PAGE_LINES`]),
    /// joined by `\n` and tail-bounded to `max_bytes`. Taken from a snapshot by
    /// [`Screen::page_snapshot`](super::Screen::page_snapshot) for the same offset and count.
    ///
    /// # Errors
    /// `InvalidRequest` when `count` is 0 or the range does not fit in memory.
    pub(crate) fn page(
        &self,
        offset: Option<u64>,
        count: Option<u64>,
        max_bytes: usize,
    ) -> Result<ReadResult, TerminalError> {
        let (offset, count) = page_bounds(offset, count)?;
        let dropped = self.truncated;
        let lines: Vec<&str> = if self.text.is_empty() && self.lines_before == 0 {
            Vec::new()
        } else {
            self.text.split('\n').collect()
        };
        let total = self.lines_before + lines.len() as u64;
        if offset >= total {
            return Ok(ReadResult {
                text: String::new(),
                total_lines: total,
                line_begin: offset,
                line_end: offset,
                truncated: dropped,
                line_start: None,
                alternate_screen: self.alternate,
                first_line: None,
            });
        }
        let end = total - offset;
        let begin = end.saturating_sub(count);
        let (Ok(b), Ok(e)) = (
            usize::try_from(begin.saturating_sub(self.lines_before)),
            usize::try_from(end.saturating_sub(self.lines_before)),
        ) else {
            return Err(TerminalError::invalid("PTY read range is too large"));
        };
        let page = lines.get(b..e).unwrap_or_default();
        let joined = page.join("\n");
        let (text, cut) = tail_bound(joined, max_bytes);
        // The bound cut into a line: keep its start, or say that the scrollback may already
        // have lost it (the oldest retained row after a drop can be in the middle of a line).
        let line_start = (cut && !text.is_empty())
            .then(|| {
                let first_len = text.find('\n').unwrap_or(text.len());
                let lines_after = text[first_len..].matches('\n').count();
                let index = page.len().checked_sub(lines_after + 1)?;
                let whole = page[index];
                let start_dropped = self.first_line_may_be_cut && b + index == 0;
                let cut_off = whole.len().saturating_sub(first_len);
                (cut_off > 0).then(|| {
                    let start = if start_dropped {
                        ""
                    } else {
                        head_slice(whole, LINE_START_BYTES.min(cut_off))
                    };
                    LineStart {
                        text: start.to_owned(),
                        omitted_bytes: (cut_off - start.len()) as u64,
                        start_dropped,
                    }
                })
            })
            .flatten();
        let returned = if text.is_empty() {
            0
        } else {
            text.split('\n').count() as u64
        };
        // History's drop cuts a page only when the page reaches back to the oldest retained
        // line: the lines before it are gone (a page of newer lines is whole).
        let reaches_dropped = dropped && begin == 0;
        // The byte bound cut the oldest lines: the page's first line is the newest `returned`'s.
        let first_line = self
            .oldest_line
            .filter(|_| returned > 0)
            .map(|oldest| oldest + end - returned);
        Ok(ReadResult {
            text,
            total_lines: total,
            line_begin: offset,
            line_end: offset + returned,
            truncated: reaches_dropped || cut,
            line_start,
            alternate_screen: self.alternate,
            first_line,
        })
    }
}

/// A page's `offset` and `count` with their defaults.
///
/// # Errors
/// `InvalidRequest` when `count` is 0.
pub(super) fn page_bounds(
    offset: Option<u64>,
    count: Option<u64>,
) -> Result<(u64, u64), TerminalError> {
    let count = count.unwrap_or(DEFAULT_PAGE_LINES);
    if count == 0 {
        return Err(TerminalError::invalid(
            "PTY read count must be a positive integer",
        ));
    }
    Ok((offset.unwrap_or(0), count))
}

/// Keeps at most `max_bytes` of the tail of `s` (cut by [`tail_slice`] on a UTF-8 boundary).
/// Returns whether it cut anything.
fn tail_bound(mut s: String, max_bytes: usize) -> (String, bool) {
    if s.len() <= max_bytes {
        return (s, false);
    }
    let cut = s.len() - tail_slice(&s, max_bytes).len();
    s.drain(..cut);
    (s, true)
}

#[cfg(test)]
mod tests {
    use super::super::{Screen, ScreenConfig};

    /// A screen with history: short lines, lines that wrap over several rows, blank lines.
    fn screen_with_history() -> Screen {
        let mut screen = Screen::new(
            ScreenConfig {
                rows: 5,
                cols: 10,
                scrollback_lines: 1000,
                scrollback_max_bytes: 1 << 20,
            },
            None,
        );
        let mut out = String::new();
        for i in 0..60 {
            match i % 4 {
                0 => out.push_str(&format!("line {i}\r\n")),
                1 => out.push_str(&format!("{}{i}\r\n", "w".repeat(23))),
                2 => out.push_str("\r\n"),
                _ => out.push_str(&format!("x{i}   \r\n")),
            }
        }
        out.push_str("$ ");
        screen.feed(out.as_bytes());
        screen
    }

    /// A page whose byte bound cuts into one long line keeps that line's start, with the
    /// exact count of the bytes between it and the page's text.
    #[test]
    fn a_page_cut_inside_a_long_line_keeps_its_start() {
        let mut screen = Screen::new(
            ScreenConfig {
                rows: 5,
                cols: 10,
                scrollback_lines: 10_000,
                scrollback_max_bytes: 1 << 20,
            },
            None,
        );
        let line = format!("START{}END", "x".repeat(20_000));
        screen.feed(format!("before\r\n{line}\r\nafter\r\n$ ").as_bytes());
        let page = screen.page(None, Some(10), 1000).unwrap();
        assert!(page.text.ends_with("END\nafter\n$ "), "{:?}", page.text);
        let start = page.line_start.expect("the cut line's start");
        assert!(start.text.starts_with("STARTxx"));
        let first = page.text.split('\n').next().unwrap();
        assert_eq!(
            start.text.len() + start.omitted_bytes as usize + first.len(),
            line.len()
        );
        // A page that holds every line whole has none.
        let whole = screen.page(Some(0), Some(2), 1000).unwrap();
        assert_eq!(whole.line_start, None);

        // After the scrollback dropped older rows, the line's start is still kept while its
        // first row is retained, and not claimed once that row is gone too.
        let mut screen = Screen::new(
            ScreenConfig {
                rows: 5,
                cols: 10,
                scrollback_lines: 3000,
                scrollback_max_bytes: 1 << 20,
            },
            None,
        );
        screen.feed("old\r\n".repeat(2000).as_bytes());
        screen.feed(format!("{line}\r\n$ ").as_bytes());
        // The line is the page's oldest: only the history's oldest row could start mid-line.
        let page = screen.page(None, Some(2), 1000).unwrap();
        assert!(page.truncated);
        let start = page.line_start.expect("the retained start");
        assert!(start.text.starts_with("STARTxx"));
        let longer = format!("BEGIN{}END", "y".repeat(40_000));
        screen.feed(format!("{longer}\r\n$ ").as_bytes());
        let page = screen.page(None, Some(2), 1000).unwrap();
        assert!(page.text.contains("yyyEND"), "{:?}", page.text);
        let start = page.line_start.expect("the retained bytes before the page");
        assert!(start.start_dropped, "its first row is gone");
        assert_eq!(start.text, "");
        let first = page.text.split('\n').next().unwrap();
        assert!(start.omitted_bytes as usize + first.len() <= longer.len());
        assert!(start.omitted_bytes > 0);
    }

    /// A page from a partial snapshot equals the same page cut from the whole transcript.
    #[test]
    fn pages_from_a_partial_snapshot_match_the_whole_transcript() {
        let mut screen = screen_with_history();
        let transcript = screen.transcript();
        let all: Vec<&str> = transcript.split('\n').collect();
        for offset in [0u64, 1, 3, 7, 30, 80, 200] {
            for count in [1u64, 2, 5, 17, 500] {
                let page = screen.page(Some(offset), Some(count), usize::MAX).unwrap();
                let total = all.len() as u64;
                assert_eq!(page.total_lines, total, "offset {offset} count {count}");
                let end = total.saturating_sub(offset) as usize;
                let begin = (total.saturating_sub(offset)).saturating_sub(count) as usize;
                let expected = all.get(begin..end).unwrap_or_default().join("\n");
                assert_eq!(page.text, expected, "offset {offset} count {count}");
            }
        }
    }

    /// A byte-bounded snapshot renders the same tail as an unbounded one.
    #[test]
    fn a_bounded_snapshot_renders_the_tail_of_the_whole() {
        let mut screen = screen_with_history();
        let start = screen.anchor_at(super::super::Position::default());
        let whole = screen.render_since(start, usize::MAX);
        assert!(!whole.truncated);
        for max in [1usize, 9, 10, 11, 40, 123, whole.text.len() - 1] {
            let snapshot = screen.snapshot_since(start, max);
            let rendered = snapshot.render(max);
            assert!(rendered.truncated, "max {max}");
            assert_eq!(
                rendered.text,
                whole.text[whole.text.len() - rendered.text.len()..],
                "max {max}"
            );
            assert!(
                rendered.text.len() <= max && rendered.text.len() + 4 > max.min(whole.text.len())
            );
        }
    }
}
