//! Bounded plain-text history of the rows that left the top of the main screen.
//!
//! vt100 runs with no scrollback of its own (a vt100 scrollback row costs about 2.6 KB);
//! instead every row pushed off the top is kept here as plain text: rows vt100 scrolls off
//! arrive through `Callbacks::on_scroll`, and rows the screen moves here itself (a clear
//! screen, flood lines that never reach the screen) arrive as text with their wrap flag. The
//! history is bounded by rows *and* bytes, so a flood of output never grows memory past the
//! configured ceiling.

use std::collections::VecDeque;

use vt100::capture::{BasicFormattedCaptureState, RowContents};

use super::tabs::{TabRuns, restore_tabs};

/// Bytes accounted per retained row on top of its text (the newline).
const ROW_SEPARATOR_BYTES: usize = 1;

/// One row that left the screen.
#[derive(Clone, Debug)]
pub(crate) struct HistoryRow {
    /// The row's text (cells rendered as characters, TAB runs as `\t`; trailing empty cells
    /// omitted).
    pub(crate) text: Box<str>,
    /// Whether the row continues on the next row (soft wrap).
    pub(crate) wrapped: bool,
}

/// The bounded history.
#[derive(Debug)]
pub(crate) struct History {
    rows: VecDeque<HistoryRow>,
    /// Absolute index of `rows[0]`.
    first_abs: u64,
    bytes: usize,
    max_rows: usize,
    max_bytes: usize,
    dropped: bool,
    /// vt100's capture state: it reveals a scrolled row's wrap flag only as a leading newline
    /// written before the *next* scrolled row.
    capture: BasicFormattedCaptureState,
    /// Absolute index of the row whose wrap flag `capture` holds (the last row vt100 scrolled
    /// off), while no row was pushed directly after it.
    capture_row: Option<u64>,
    scratch: PlainText,
}

impl History {
    pub(crate) fn new(max_rows: usize, max_bytes: usize) -> Self {
        Self {
            rows: VecDeque::new(),
            first_abs: 0,
            bytes: 0,
            max_rows,
            max_bytes,
            dropped: false,
            capture: BasicFormattedCaptureState::new(),
            capture_row: None,
            scratch: PlainText::default(),
        }
    }

    /// Appends a row vt100 scrolled off the top of the main screen; `tabs` are the TAB runs
    /// recorded on it.
    pub(crate) fn push_scrolled(&mut self, contents: &RowContents<'_>, tabs: &TabRuns) {
        self.scratch.clear();
        // Writing to the plain-text sink cannot fail.
        let _ = contents.write_formatted_basic(&mut self.scratch, &mut self.capture);
        let previous_wrapped = !self.scratch.leading_newline;
        if let Some(abs) = self.capture_row
            && let Some(row) = self.row_mut(abs)
        {
            row.wrapped = previous_wrapped;
        }
        let text = restore_tabs(&self.scratch.text, tabs);
        self.capture_row = Some(self.end_abs());
        self.append(text.into(), false);
    }

    /// Appends a row moved here by the screen itself, with its wrap flag.
    pub(crate) fn push_row(&mut self, text: Box<str>, wrapped: bool) {
        self.settle_capture_row();
        self.append(text, wrapped);
    }

    /// Resolves the wrap flag of the last row vt100 scrolled off before rows are pushed
    /// directly after it.
    fn settle_capture_row(&mut self) {
        if let Some(abs) = self.capture_row.take() {
            let wrapped = capture_says_wrapped(&self.capture);
            if let Some(row) = self.row_mut(abs) {
                row.wrapped = wrapped;
            }
        }
    }

    fn row_mut(&mut self, abs: u64) -> Option<&mut HistoryRow> {
        let idx = usize::try_from(abs.checked_sub(self.first_abs)?).ok()?;
        self.rows.get_mut(idx)
    }

    fn append(&mut self, text: Box<str>, wrapped: bool) {
        self.bytes = self.bytes.saturating_add(text.len() + ROW_SEPARATOR_BYTES);
        self.rows.push_back(HistoryRow { text, wrapped });
        self.enforce_bounds();
    }

    fn enforce_bounds(&mut self) {
        while self.rows.len() > self.max_rows
            || (self.bytes > self.max_bytes && !self.rows.is_empty())
        {
            if let Some(row) = self.rows.pop_front() {
                self.bytes = self
                    .bytes
                    .saturating_sub(row.text.len() + ROW_SEPARATOR_BYTES);
                self.first_abs += 1;
                self.dropped = true;
            }
        }
    }

    /// Absolute index of the oldest retained row.
    pub(crate) fn first_abs(&self) -> u64 {
        self.first_abs
    }

    /// Absolute index one past the newest row (= number of rows that ever left the screen).
    pub(crate) fn end_abs(&self) -> u64 {
        self.first_abs + self.rows.len() as u64
    }

    /// The row at absolute index `abs`, if retained. The wrap flag of the last row vt100
    /// scrolled off is resolved from the capture state (it is only written into the row when
    /// the next row arrives).
    pub(crate) fn get(&self, abs: u64) -> Option<(&str, bool)> {
        let idx = usize::try_from(abs.checked_sub(self.first_abs)?).ok()?;
        let row = self.rows.get(idx)?;
        let wrapped = if self.capture_row == Some(abs) {
            capture_says_wrapped(&self.capture)
        } else {
            row.wrapped
        };
        Some((&row.text, wrapped))
    }

    /// Retained text bytes (rows plus one separator each).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Retained rows.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether a bound ever dropped a row (sticky).
    pub(crate) fn dropped(&self) -> bool {
        self.dropped
    }
}

/// Whether the last row written with `capture` soft-wraps into the next one.
fn capture_says_wrapped(capture: &BasicFormattedCaptureState) -> bool {
    // `BasicFormattedCaptureState` keeps "the last row did not wrap" private; its Debug
    // output is the only view of it (pinned by `tests::newest_wrap_flag_is_readable`).
    !format!("{capture:?}").contains("newline_pending: true")
}

/// A `fmt::Write` sink that keeps only the text of vt100's "basic formatted" row output:
/// SGR sequences (`ESC [ ... m`, the only escapes that output contains) are skipped as they
/// stream by, so no formatted copy is built and stripped afterwards.
#[derive(Debug, Default)]
struct PlainText {
    text: String,
    in_escape: bool,
    leading_newline: bool,
    started: bool,
}

impl PlainText {
    fn clear(&mut self) {
        self.text.clear();
        self.in_escape = false;
        self.leading_newline = false;
        self.started = false;
    }
}

impl std::fmt::Write for PlainText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let mut rest = s;
        if !self.started && !rest.is_empty() {
            self.started = true;
            if let Some(after) = rest.strip_prefix('\n') {
                self.leading_newline = true;
                rest = after;
            }
        }
        while !rest.is_empty() {
            if self.in_escape {
                match rest.find('m') {
                    Some(end) => {
                        self.in_escape = false;
                        rest = &rest[end + 1..];
                    }
                    None => return Ok(()),
                }
            } else {
                match rest.find('\x1b') {
                    Some(start) => {
                        self.text.push_str(&rest[..start]);
                        self.in_escape = true;
                        rest = &rest[start + 1..];
                    }
                    None => {
                        self.text.push_str(rest);
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }
}
