//! Rendering: screen-true text from an anchor, the visible screen, the transcript and
//! newest-relative pages, all tail-bounded on UTF-8 boundaries.

use std::borrow::Cow;

use dsh_output_retention::tail_slice;

use crate::error::TerminalError;
use crate::types::ReadResult;

use super::{AnchorId, DEFAULT_PAGE_LINES, Position, Rendered, Screen};

impl Screen {
    /// Screen-true text from the anchor to the end, tail-bounded to `max_bytes`. On the
    /// alternate screen: the rendered visible screen.
    pub(crate) fn render_since(&mut self, id: AnchorId, max_bytes: usize) -> Rendered {
        self.materialize();
        if self.alternate {
            return self.render_visible(max_bytes);
        }
        match self.anchor_position(id) {
            Some(pos) => self.render_from(pos, max_bytes),
            None => Rendered::default(),
        }
    }

    /// The visible screen as text (trailing blank rows and trailing spaces trimmed),
    /// tail-bounded to `max_bytes`.
    pub(crate) fn render_visible(&mut self, max_bytes: usize) -> Rendered {
        self.materialize();
        self.render_rows(self.history().end_abs(), 0, max_bytes)
    }

    /// Screen-true text from `from` to the end of the content (trailing blank rows and
    /// trailing spaces trimmed, explicit text before the cursor kept), tail-bounded to
    /// `max_bytes` on UTF-8 boundaries.
    pub(crate) fn render_from(&mut self, from: Position, max_bytes: usize) -> Rendered {
        self.materialize();
        let first = self.history().first_abs();
        let lost = from.row < first;
        let (row, col) = if lost {
            (first, 0)
        } else {
            (from.row, from.col)
        };
        let mut rendered = self.render_rows(row, col, max_bytes);
        rendered.truncated |= lost;
        rendered
    }

    /// The whole transcript (history plus screen), unbounded. For tests and diagnostics.
    pub(crate) fn transcript(&mut self) -> String {
        self.materialize();
        self.render_rows(self.history().first_abs(), 0, usize::MAX)
            .text
    }

    fn render_rows(&self, start_abs: u64, start_col: u16, max_bytes: usize) -> Rendered {
        let screen = self.parser.screen();
        let cols = self.config.cols.max(1);
        let history = self.history();
        let base = history.end_abs();
        let runs = self.parser.callbacks().tabs(self.alternate);
        let visible: Vec<String> = (0..self.config.rows.max(1))
            .map(|r| row_text(screen, runs.row(r), r, 0, cols))
            .collect();
        let (cursor_row, cursor_col) = screen.cursor_position();
        let last_content = visible
            .iter()
            .rposition(|r| !r.trim_end_matches(' ').is_empty())
            .unwrap_or(0);
        let end_visible = last_content.max(usize::from(cursor_row));
        let end_abs = base + end_visible as u64;
        if start_abs > end_abs {
            return Rendered::default();
        }
        let mut pieces: Vec<(Cow<'_, str>, bool)> = Vec::new();
        for abs in start_abs..base {
            if let Some((text, wrapped)) = history.get(abs) {
                let text = if abs == start_abs && start_col > 0 {
                    skip_cols(text, start_col)
                } else {
                    text
                };
                let text = if wrapped {
                    text
                } else {
                    text.trim_end_matches(' ')
                };
                pieces.push((Cow::Borrowed(text), wrapped));
            }
        }
        for (r, full) in visible.iter().enumerate().take(end_visible + 1) {
            let abs = base + r as u64;
            if abs < start_abs {
                continue;
            }
            let Ok(r16) = u16::try_from(r) else { break };
            let from_col = if abs == start_abs { start_col } else { 0 };
            let wrapped = screen.row_wrapped(r16);
            let row_runs = runs.row(r16);
            let text: Cow<'_, str> = if r16 == cursor_row {
                let before = row_text(
                    screen,
                    row_runs,
                    r16,
                    from_col,
                    cursor_col.saturating_sub(from_col),
                );
                let whole: Cow<'_, str> = if from_col == 0 {
                    Cow::Borrowed(full.as_str())
                } else {
                    Cow::Owned(row_text(
                        screen,
                        row_runs,
                        r16,
                        from_col,
                        cols.saturating_sub(from_col),
                    ))
                };
                let trimmed = whole.trim_end_matches(' ');
                if trimmed.len() <= before.len() {
                    Cow::Owned(before)
                } else {
                    Cow::Owned(trimmed.to_owned())
                }
            } else if from_col > 0 {
                let part = row_text(
                    screen,
                    row_runs,
                    r16,
                    from_col,
                    cols.saturating_sub(from_col),
                );
                Cow::Owned(if wrapped {
                    part
                } else {
                    part.trim_end_matches(' ').to_owned()
                })
            } else if wrapped {
                Cow::Borrowed(full.as_str())
            } else {
                Cow::Borrowed(full.trim_end_matches(' '))
            };
            pieces.push((text, wrapped));
        }
        join_tail(&pieces, max_bytes)
    }

    /// A newest-relative page of the transcript (the seed's §3.7): `offset` 0 is the newest
    /// line, `count` lines ending `offset` lines before the newest (defaults 0 and
    /// [`DEFAULT_PAGE_LINES`]), joined by `\n` and tail-bounded to `max_bytes`.
    ///
    /// # Errors
    /// `InvalidRequest` when `count` is 0.
    pub(crate) fn page(
        &mut self,
        offset: Option<u64>,
        count: Option<u64>,
        max_bytes: usize,
    ) -> Result<ReadResult, TerminalError> {
        let offset = offset.unwrap_or(0);
        let count = count.unwrap_or(DEFAULT_PAGE_LINES);
        if count == 0 {
            return Err(TerminalError::invalid(
                "PTY read count must be a positive integer",
            ));
        }
        let dropped = self.history_dropped();
        let transcript = self.transcript();
        let lines: Vec<&str> = if transcript.is_empty() {
            Vec::new()
        } else {
            transcript.split('\n').collect()
        };
        let total = lines.len() as u64;
        if offset >= total {
            return Ok(ReadResult {
                text: String::new(),
                total_lines: total,
                line_begin: offset,
                line_end: offset,
                truncated: dropped,
            });
        }
        let end = total - offset;
        let begin = end.saturating_sub(count);
        let (Ok(b), Ok(e)) = (usize::try_from(begin), usize::try_from(end)) else {
            return Err(TerminalError::invalid("PTY read range is too large"));
        };
        let joined = lines[b..e].join("\n");
        let (text, cut) = tail_bound(joined, max_bytes);
        let returned = if text.is_empty() {
            0
        } else {
            text.split('\n').count() as u64
        };
        Ok(ReadResult {
            text,
            total_lines: total,
            line_begin: offset,
            line_end: offset + returned,
            truncated: dropped || cut,
        })
    }
}

/// The text of visible row `row` from cell column `start` over `width` cells: one character
/// per cell (the second cell of a wide character adds none), empty cells as spaces only
/// before later text, and `\t` for a recorded TAB run whose cells are all still empty.
pub(super) fn row_text(
    screen: &vt100::Screen,
    runs: &[(u16, u16)],
    row: u16,
    start: u16,
    width: u16,
) -> String {
    let filled = |c: u16| screen.cell(row, c).is_some_and(vt100::Cell::has_contents);
    let end = start.saturating_add(width).min(screen.size().1.get());
    let mut out = String::new();
    let mut blanks = 0usize;
    let mut runs = runs
        .iter()
        .filter(|&&(a, b)| a >= start && b <= end)
        .peekable();
    let mut col = start;
    while col < end {
        while runs.next_if(|&&(a, _)| a < col).is_some() {}
        if let Some(&&(a, b)) = runs.peek()
            && a == col
        {
            runs.next();
            if !(a..b).any(filled) {
                out.extend(std::iter::repeat_n(' ', std::mem::take(&mut blanks)));
                out.push('\t');
                col = b;
                continue;
            }
        }
        let Some(cell) = screen.cell(row, col) else {
            break;
        };
        col += 1;
        if cell.is_wide_continuation() {
            continue;
        }
        if cell.has_contents() {
            out.extend(std::iter::repeat_n(' ', std::mem::take(&mut blanks)));
            out.push_str(&super::utf8::restore(cell.contents()));
        } else {
            blanks += 1;
        }
    }
    out
}

/// The part of `text` from cell column `col` on (wide characters take two cells).
fn skip_cols(text: &str, col: u16) -> &str {
    use unicode_width::UnicodeWidthChar as _;
    let mut used = 0usize;
    for (i, c) in text.char_indices() {
        if used >= usize::from(col) {
            return &text[i..];
        }
        used += c.width().unwrap_or(1).min(2);
    }
    ""
}

/// Joins row pieces (a `\n` after every row that does not soft-wrap) keeping at most
/// `max_bytes` of the tail, cut on a UTF-8 boundary.
fn join_tail(pieces: &[(Cow<'_, str>, bool)], max_bytes: usize) -> Rendered {
    // Walk back from the end so a huge history is never joined just to be cut.
    let mut total = 0usize;
    let mut first = pieces.len();
    for (i, (text, wrapped)) in pieces.iter().enumerate().rev() {
        let sep = usize::from(i + 1 < pieces.len() && !*wrapped);
        total = total.saturating_add(text.len() + sep);
        first = i;
        if total > max_bytes {
            break;
        }
    }
    let mut out = String::with_capacity(total.min(max_bytes.saturating_add(8)));
    for (i, (text, wrapped)) in pieces.iter().enumerate().skip(first) {
        out.push_str(text);
        if i + 1 < pieces.len() && !*wrapped {
            out.push('\n');
        }
    }
    let (text, truncated) = tail_bound(out, max_bytes);
    Rendered { text, truncated }
}

/// Keeps at most `max_bytes` of the tail of `s` (cut by [`tail_slice`] on a UTF-8 boundary).
/// Returns whether it cut anything.
fn tail_bound(s: String, max_bytes: usize) -> (String, bool) {
    if s.len() <= max_bytes {
        return (s, false);
    }
    (tail_slice(&s, max_bytes).to_owned(), true)
}
