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

use super::row_text::{fills_all_but_last_column, wide_char_pushed_down};
use super::tabs::{TabRuns, restore_tabs};

/// Bytes accounted per retained row on top of its text (the newline).
const ROW_SEPARATOR_BYTES: usize = 1;

/// Text bytes per storage block: rows are packed into blocks of about this size, so a row
/// costs its text plus a few bytes of bookkeeping, with no allocation per row.
const BLOCK_BYTES: usize = 64 * 1024;

/// Rows per storage block at most: a block is freed only once all of its rows are dropped, so
/// rows with little or no text (a flood of blank lines) must not pile into one block forever.
const BLOCK_ROWS: usize = 4096;

/// Where one retained row's text sits in its block.
#[derive(Clone, Copy, Debug)]
struct RowSpan {
    /// End offset of the row's text in the block (the start is the previous row's end).
    end: u32,
    /// Whether the row continues on the next row (soft wrap).
    wrapped: bool,
}

/// Rows packed into one string.
#[derive(Debug, Default)]
struct Block {
    text: String,
    rows: Vec<RowSpan>,
    /// Rows at the front of `rows` that were dropped.
    dropped: usize,
    /// Line ends (rows that do not soft-wrap) in every row before this block's first.
    line_ends_before: u64,
}

impl Block {
    fn row(&self, i: usize) -> Option<(&str, bool)> {
        let span = self.rows.get(i)?;
        let start = if i == 0 {
            0
        } else {
            self.rows[i - 1].end as usize
        };
        Some((self.text.get(start..span.end as usize)?, span.wrapped))
    }

    fn live(&self) -> usize {
        self.rows.len() - self.dropped
    }

    /// Line ends in this block's rows before row `i`.
    fn line_ends_until(&self, i: usize) -> u64 {
        self.rows[..i.min(self.rows.len())]
            .iter()
            .filter(|r| !r.wrapped)
            .count() as u64
    }
}

/// The bounded history.
#[derive(Debug)]
pub(crate) struct History {
    blocks: VecDeque<Block>,
    /// Retained rows.
    len: usize,
    /// Absolute index of the oldest retained row.
    first_abs: u64,
    bytes: usize,
    max_rows: usize,
    max_bytes: usize,
    dropped: bool,
    /// Line ends (rows that do not soft-wrap) among every row ever appended, and among the
    /// rows dropped: lines, not rows, for a count of what the bounds dropped.
    line_ends: u64,
    line_ends_dropped: u64,
    /// The last row the bounds dropped soft-wrapped: the oldest retained row continues a line
    /// whose start is gone.
    first_continues_dropped: bool,
    /// vt100's capture state: it reveals a scrolled row's wrap flag only as a leading newline
    /// written before the *next* scrolled row.
    capture: BasicFormattedCaptureState,
    /// Absolute index of the row whose wrap flag `capture` holds (the last row vt100 scrolled
    /// off), while no row was pushed directly after it.
    capture_row: Option<u64>,
    scratch: PlainText,
    /// The screen's width in cells, for wraps vt100 does not flag (see
    /// [`wide_char_pushed_down`]).
    cols: u16,
    /// The main screen's first row starts with a wide character, as last noted (see
    /// [`History::note_screen_top`]).
    screen_top_wide: bool,
}

impl History {
    pub(crate) fn new(max_rows: usize, max_bytes: usize, cols: u16) -> Self {
        Self {
            blocks: VecDeque::new(),
            len: 0,
            first_abs: 0,
            bytes: 0,
            max_rows,
            max_bytes,
            dropped: false,
            line_ends: 0,
            line_ends_dropped: 0,
            first_continues_dropped: false,
            capture: BasicFormattedCaptureState::new(),
            capture_row: None,
            scratch: PlainText::default(),
            cols,
            screen_top_wide: false,
        }
    }

    /// Appends a row vt100 scrolled off the top of the main screen; `tabs` are the TAB runs
    /// recorded on it.
    pub(crate) fn push_scrolled(&mut self, contents: &RowContents<'_>, tabs: &TabRuns) {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        // Writing to the plain-text sink cannot fail.
        let _ = contents.write_formatted_basic(&mut scratch, &mut self.capture);
        if let Some(abs) = self.capture_row {
            let wrapped = !scratch.leading_newline
                || wide_char_pushed_down(
                    || self.get(abs).map(|(prev, _)| prev),
                    &scratch.text,
                    self.cols,
                );
            self.set_wrapped(abs, wrapped);
        }
        let text = restore_tabs(&scratch.text, tabs);
        self.append(&text, false);
        self.capture_row = Some(self.end_abs() - 1);
        self.scratch = scratch;
    }

    /// Notes whether the main screen's first row starts with a wide character now. The
    /// newest row vt100 scrolled off wraps into that row when it filled all but its last
    /// column: the character did not fit there, and vt100 flags no wrap for it. Until the next
    /// row scrolls off (whose text `push_scrolled` checks), only the screen holds that row, so
    /// without this note a line whose early wrap straddles history and screen came back as two
    /// lines, split where the rows scrolled off.
    pub(crate) fn note_screen_top(&mut self, starts_wide: bool) {
        self.screen_top_wide = starts_wide;
    }

    /// Whether the newest row vt100 scrolled off, of `text`, goes on in the screen's first
    /// row: vt100 flagged the wrap (the capture state says so), or a wide character that did
    /// not fit in its last column starts that row.
    fn newest_scrolled_wraps(&self, text: &str) -> bool {
        capture_says_wrapped(&self.capture)
            || (self.screen_top_wide && fills_all_but_last_column(text, self.cols))
    }

    /// Appends a row moved here by the screen itself, with its wrap flag.
    pub(crate) fn push_row(&mut self, text: &str, wrapped: bool) {
        if let Some(abs) = self.capture_row.take() {
            let wrapped = capture_says_wrapped(&self.capture)
                || wide_char_pushed_down(|| self.get(abs).map(|(prev, _)| prev), text, self.cols);
            self.set_wrapped(abs, wrapped);
        }
        self.append(text, wrapped);
    }

    fn locate(&self, abs: u64) -> Option<(usize, usize)> {
        let idx = usize::try_from(abs.checked_sub(self.first_abs)?).ok()?;
        if idx >= self.len {
            return None;
        }
        // Newest rows are read most: search from the back.
        let mut from_back = self.len - 1 - idx;
        for (b, block) in self.blocks.iter().enumerate().rev() {
            let live = block.live();
            if from_back < live {
                return Some((b, block.rows.len() - 1 - from_back));
            }
            from_back -= live;
        }
        None
    }

    fn set_wrapped(&mut self, abs: u64, wrapped: bool) {
        if let Some((b, i)) = self.locate(abs)
            && let Some(span) = self.blocks.get_mut(b).and_then(|bl| bl.rows.get_mut(i))
            && span.wrapped != wrapped
        {
            span.wrapped = wrapped;
            // A line end more or less: in the total, and before every later block.
            let adjust = |n: u64| if wrapped { n.saturating_sub(1) } else { n + 1 };
            self.line_ends = adjust(self.line_ends);
            for later in self.blocks.iter_mut().skip(b + 1) {
                later.line_ends_before = adjust(later.line_ends_before);
            }
        }
    }

    fn append(&mut self, text: &str, wrapped: bool) {
        let text = &*super::utf8::restore(text);
        let fits = self.blocks.back().is_some_and(|b| {
            b.rows.len() < BLOCK_ROWS
                && b.text.len() + text.len() <= b.text.capacity().max(BLOCK_BYTES)
        });
        if !fits {
            self.blocks.push_back(Block {
                text: String::with_capacity(BLOCK_BYTES.max(text.len())),
                line_ends_before: self.line_ends,
                ..Block::default()
            });
        }
        if let Some(block) = self.blocks.back_mut() {
            block.text.push_str(text);
            let end = u32::try_from(block.text.len()).unwrap_or(u32::MAX);
            block.rows.push(RowSpan { end, wrapped });
        }
        self.line_ends += u64::from(!wrapped);
        self.len += 1;
        self.bytes = self.bytes.saturating_add(text.len() + ROW_SEPARATOR_BYTES);
        self.enforce_bounds();
    }

    fn enforce_bounds(&mut self) {
        while self.len > self.max_rows || (self.bytes > self.max_bytes && self.len > 0) {
            let Some(front) = self.blocks.front_mut() else {
                break;
            };
            let (removed, line_end) = front
                .row(front.dropped)
                .map_or((0, false), |(t, wrapped)| (t.len(), !wrapped));
            self.line_ends_dropped += u64::from(line_end);
            self.first_continues_dropped = !line_end;
            front.dropped += 1;
            if front.live() == 0 {
                self.blocks.pop_front();
            }
            self.bytes = self.bytes.saturating_sub(removed + ROW_SEPARATOR_BYTES);
            self.len -= 1;
            self.first_abs += 1;
            self.dropped = true;
        }
    }

    /// Line ends among every row appended so far.
    pub(crate) fn line_ends(&self) -> u64 {
        self.line_ends.saturating_sub(self.newest_wraps())
    }

    /// 1 when the newest row vt100 scrolled off, stored as a line end until the next row
    /// arrives, is already known to wrap into the screen's first row (the capture state says
    /// so, as [`History::get`] reads it): counts of line ends must not drop by one later when
    /// that row arrives.
    fn newest_wraps(&self) -> u64 {
        let newest = self.end_abs().wrapping_sub(1);
        u64::from(self.capture_row == Some(newest) && self.get(newest).is_some_and(|(_, w)| w))
    }

    /// Whether the oldest retained row continues a line whose first rows the bounds dropped.
    pub(crate) fn first_continues_dropped(&self) -> bool {
        self.dropped && self.first_continues_dropped
    }

    /// Line ends among the rows the bounds dropped (the lines, not rows, no longer retained).
    pub(crate) fn line_ends_dropped(&self) -> u64 {
        self.line_ends_dropped
    }

    /// Line ends among the rows before absolute row `abs`, when `abs` is retained (or one past
    /// the newest row).
    pub(crate) fn line_ends_before(&self, abs: u64) -> Option<u64> {
        if abs == self.end_abs() {
            return Some(self.line_ends());
        }
        let (b, i) = self.locate(abs)?;
        let block = self.blocks.get(b)?;
        Some(block.line_ends_before + block.line_ends_until(i))
    }

    /// Absolute index of the oldest retained row.
    pub(crate) fn first_abs(&self) -> u64 {
        self.first_abs
    }

    /// Absolute index one past the newest row (= number of rows that ever left the screen).
    pub(crate) fn end_abs(&self) -> u64 {
        self.first_abs + self.len as u64
    }

    /// The row at absolute index `abs`, if retained. The wrap flag of the last row vt100
    /// scrolled off is resolved from the capture state (it is only written into the row when
    /// the next row arrives).
    pub(crate) fn get(&self, abs: u64) -> Option<(&str, bool)> {
        let (b, i) = self.locate(abs)?;
        let (text, wrapped) = self.blocks.get(b)?.row(i)?;
        let wrapped = if self.capture_row == Some(abs) {
            self.newest_scrolled_wraps(text)
        } else {
            wrapped
        };
        Some((text, wrapped))
    }

    /// Retained text bytes (rows plus one separator each).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Retained rows.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Row records held in storage, the dropped ones their blocks still hold included.
    #[cfg(test)]
    pub(crate) fn held_rows(&self) -> usize {
        self.blocks.iter().map(|b| b.rows.len()).sum()
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
