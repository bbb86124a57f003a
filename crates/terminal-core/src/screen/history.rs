//! Bounded plain-text history of the rows that scrolled off the top of the main screen.
//!
//! vt100 runs with no scrollback of its own (a vt100 scrollback row costs about 2.6 KB,
//! field-notes §5); instead every row pushed off the top arrives through
//! `Callbacks::on_scroll` and is kept here as plain text. The history is bounded by rows
//! *and* bytes, so a flood of output never grows memory past the configured ceiling.

use std::collections::VecDeque;

use vt100::capture::{BasicFormattedCaptureState, RowContents, basic_formatted_to_plain};

/// Bytes accounted per retained row on top of its text (the newline).
const ROW_SEPARATOR_BYTES: usize = 1;

/// One row that left the screen.
#[derive(Clone, Debug)]
pub(crate) struct HistoryRow {
    /// The row's text (cells rendered as characters; trailing empty cells omitted).
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
    capture: BasicFormattedCaptureState,
    scratch: String,
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
            scratch: String::new(),
        }
    }

    /// Appends a row that scrolled off the top of the main screen.
    pub(crate) fn push(&mut self, contents: &RowContents<'_>) {
        self.scratch.clear();
        // Writing to a String cannot fail.
        let _ = contents.write_formatted_basic(&mut self.scratch, &mut self.capture);
        // The shared capture state emits a leading newline exactly when the previous row did
        // not wrap; that is the only way vt100 tells us a scrolled row's wrap flag.
        let (previous_wrapped, body) = match self.scratch.strip_prefix('\n') {
            Some(rest) => (false, rest),
            None => (true, self.scratch.as_str()),
        };
        let text: String = basic_formatted_to_plain(body).collect();
        if let Some(last) = self.rows.back_mut() {
            last.wrapped = previous_wrapped;
        }
        self.bytes = self.bytes.saturating_add(text.len() + ROW_SEPARATOR_BYTES);
        self.rows.push_back(HistoryRow {
            text: text.into_boxed_str(),
            wrapped: false,
        });
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

    /// Absolute index one past the newest row (= number of rows that ever scrolled off).
    pub(crate) fn end_abs(&self) -> u64 {
        self.first_abs + self.rows.len() as u64
    }

    /// The row at absolute index `abs`, if retained. The newest row's `wrapped` flag is
    /// resolved from the capture state (it is only written into the row when the next row
    /// scrolls off).
    pub(crate) fn get(&self, abs: u64) -> Option<(&str, bool)> {
        let idx = usize::try_from(abs.checked_sub(self.first_abs)?).ok()?;
        let row = self.rows.get(idx)?;
        let wrapped = if idx + 1 == self.rows.len() {
            self.newest_wrapped()
        } else {
            row.wrapped
        };
        Some((&row.text, wrapped))
    }

    /// Whether the newest row soft-wraps into the top visible row.
    fn newest_wrapped(&self) -> bool {
        // `BasicFormattedCaptureState` keeps "the last row did not wrap" private; its Debug
        // output is the only view of it (pinned by `tests::newest_wrap_flag_is_readable`).
        !format!("{:?}", self.capture).contains("newline_pending: true")
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
