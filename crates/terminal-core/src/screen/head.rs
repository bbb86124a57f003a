//! The first lines of a send's output, kept while the send runs.
//!
//! A send that prints more than the scrollback (or the render's byte bound) holds would lose
//! its command line and first lines before it settles. The screen keeps them: once
//! [`HEAD_ROWS`] rows follow the send's start (checked after every fed chunk, long before the
//! bounded history can drop them), it renders those rows once, at most [`HEAD_BYTES`], and
//! holds the text until the send settles.

use super::row_text::row_continues;
use super::{AnchorId, Position, Screen};

/// Rows of a send's first output kept.
pub(crate) const HEAD_ROWS: u64 = 100;
/// Most bytes of a send's first output kept.
pub(crate) const HEAD_BYTES: usize = 16 * 1024;
/// Most bytes kept of the start of the line after the head's whole lines (a line too long
/// to keep whole): what a result shows of a huge line's start.
pub(crate) const LINE_START_BYTES: usize = 4 * 1024;

/// One send's head capture.
#[derive(Debug)]
pub(super) struct HeadCapture {
    anchor: AnchorId,
    text: Option<Head>,
    /// Lines the scrollback had already dropped between the send's start and the oldest
    /// retained row when the capture began (see [`Head::dropped_before`]).
    dropped_before: u64,
    /// Line ends before the send's start, when it was dropped before the capture began.
    start_line_ends: Option<u64>,
}

/// A send's first output lines, as captured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    /// The first lines from the send's start (whole lines, at most [`HEAD_BYTES`]).
    text: String,
    /// For each line of `text`, the absolute row after it.
    line_ends: Vec<u64>,
    /// Line ends among every row before the row after the last line of `text` (history rows
    /// and screen rows alike): lines, not rows, for a count of the lines the scrollback
    /// dropped after the head. `None` when it could not be told.
    line_ends_before_end: Option<u64>,
    /// The start of the line after `text` (at most [`LINE_START_BYTES`]) and the absolute
    /// row it starts on, when that line did not fit whole or had not ended yet.
    line_start: Option<(String, u64)>,
    /// Lines of the send's output the scrollback dropped before the capture began (a poll
    /// after a flood between two calls: the head then starts at the oldest retained row, so
    /// its lines are not the send's first and are not shown as such).
    dropped_before: u64,
    /// Line ends among every row before the send's start, when `dropped_before` is counted.
    start_line_ends: Option<u64>,
}

/// A send's first output lines placed against its rendered viewport.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PlacedHead {
    /// The head's lines on rows before the viewport's first row.
    pub(crate) text: String,
    /// The head's first lines that the scrollback dropped too.
    pub(crate) lines_dropped: u64,
    /// Lines between the head and the oldest retained row, dropped from the scrollback (rows
    /// when the lines could not be told: a soft-wrapped line then counts once per row). For a
    /// send whose start was dropped before it began ([`Head::dropped_before`]), every line
    /// dropped since its start, and no head text.
    pub(crate) lines_between_dropped: u64,
    /// Lines still retained between the head (or the oldest retained row) and the viewport:
    /// pageable, though not in the viewport.
    pub(crate) retained_lines_before: u64,
    /// Bytes of those retained rows as a render joins them (each line ending in `\n`),
    /// including the start of the viewport's first line when the render's byte bound cut it.
    pub(crate) retained_bytes_before: u64,
    /// The start of the viewport's first line when the viewport begins inside a line that
    /// began after the head's lines (a huge line whose start the scrollback or the byte bound
    /// lost), and the bytes of that line between this start and the viewport's first row
    /// (about: a row the scrollback dropped counts as the line's retained rows do on
    /// average).
    pub(crate) line_start: Option<PlacedLineStart>,
}

/// The kept start of the line the viewport begins inside ([`PlacedHead::line_start`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PlacedLineStart {
    /// The line's first bytes (at most [`LINE_START_BYTES`]); empty when its start is gone.
    pub(crate) text: String,
    /// Bytes of the line between `text` and the viewport's first row (about: see
    /// [`PlacedHead::line_start`]; at least, when `start_dropped`).
    pub(crate) gap: u64,
    /// The scrollback dropped the line's first rows: `text` is empty, and `gap` counts only
    /// the retained rows.
    pub(crate) start_dropped: bool,
}

impl Screen {
    /// Starts keeping the first output lines from `from`'s position (replacing any capture
    /// not finished).
    pub(crate) fn start_head(&mut self, from: AnchorId) {
        self.finish_head();
        if let Some(pos) = self.anchor_position(from) {
            // The send starts on a row the scrollback dropped: count the lines it dropped
            // from there on (the head starts at the oldest retained row). Pending flood lines
            // go into history first, so the oldest retained row is known.
            self.materialize_flood();
            let history = self.history();
            let start_line_ends = match self.anchors.get(from.0) {
                Some(Some(a)) if pos.row < history.first_abs() => a.line_ends_before,
                _ => None,
            };
            let dropped_before = start_line_ends.map_or(0, |before| {
                history.line_ends_dropped().saturating_sub(before)
            });
            let anchor = self.anchor_at(pos);
            self.head = Some(HeadCapture {
                anchor,
                text: None,
                dropped_before,
                start_line_ends,
            });
            self.capture_head_if_due();
        }
    }

    /// Ends the capture; returns the kept lines once [`HEAD_ROWS`] rows followed the start.
    pub(crate) fn finish_head(&mut self) -> Option<Head> {
        let capture = self.head.take()?;
        let start = self.anchor_position(capture.anchor);
        self.release_anchor(capture.anchor);
        start?;
        capture.text
    }

    /// Places `head` before a viewport whose first row is `viewport_first_row`: keeps its lines
    /// that end before that row (the viewport shows the others), and counts the rows between
    /// it and the viewport that the scrollback dropped and the lines it still holds. `None`
    /// when no line of the head is left.
    pub(crate) fn place_head(&self, head: Head, viewport_first_row: u64) -> Option<PlacedHead> {
        if head.dropped_before > 0 {
            // The send's start was dropped before it began: its first lines are gone, and the
            // head's are only the oldest retained ones. Nothing of it is shown; every line
            // before the viewport is counted, dropped or still pageable.
            let history = self.history();
            let (retained_lines_before, retained_bytes_before) =
                retained_lines(history, history.first_abs(), viewport_first_row);
            return Some(PlacedHead {
                text: String::new(),
                lines_dropped: 0,
                lines_between_dropped: head.start_line_ends.map_or(head.dropped_before, |b| {
                    history.line_ends_dropped().saturating_sub(b)
                }),
                retained_lines_before,
                retained_bytes_before,
                line_start: None,
            });
        }
        let kept = head
            .line_ends
            .iter()
            .take_while(|&&end| end <= viewport_first_row)
            .count();
        if kept == 0 {
            return None;
        }
        let end_row = head.line_ends[kept - 1];
        let len = head
            .text
            .split_inclusive('\n')
            .take(kept)
            .map(str::len)
            .sum::<usize>();
        let mut text = head.text;
        text.truncate(len);
        let history = self.history();
        let first_retained = history.first_abs();
        // The viewport begins inside the line that starts right after the kept lines: no
        // line ends between that line's first row and the viewport's first row.
        let line_start = head
            .line_start
            .filter(|&(_, row)| {
                kept == head.line_ends.len() && row == end_row && row < viewport_first_row
            })
            .filter(|_| {
                let before = head.line_ends_before_end;
                before.is_some() && before == self.line_ends_before(viewport_first_row)
            })
            .map(|(start, row)| {
                // Rows the scrollback dropped count as the retained rows of the line do on
                // average (wide characters take more bytes per row), else as full rows.
                let (mut bytes, mut retained) = (0u64, 0u64);
                for r in row..viewport_first_row {
                    if let Some((text, _)) = history.get(r) {
                        bytes += text.len() as u64;
                        retained += 1;
                    }
                }
                let dropped = viewport_first_row - row - retained;
                let per_row = bytes
                    .checked_div(retained)
                    .unwrap_or_else(|| u64::from(self.config.cols.max(1)));
                let gap = (bytes + dropped * per_row).saturating_sub(start.len() as u64);
                PlacedLineStart {
                    text: start,
                    gap,
                    start_dropped: false,
                }
            });
        let lines_dropped = head.line_ends[..kept]
            .iter()
            .take_while(|&&end| end <= first_retained)
            .count() as u64;
        if line_start.is_some() {
            // The rows before the viewport are that line's: its gap counts them.
            return Some(PlacedHead {
                text,
                lines_dropped,
                lines_between_dropped: 0,
                retained_lines_before: 0,
                retained_bytes_before: 0,
                line_start,
            });
        }
        // The viewport may begin inside a later line (the byte bound of its copy, or the
        // scrollback, cut into it): its start is kept (or said to be gone) and counted with
        // it, not among the lines before it.
        let floor = end_row.max(first_retained);
        let partial = partial_line_start(history, floor, viewport_first_row);
        let line_from = partial.as_ref().map_or(viewport_first_row, |(row, _)| *row);
        let (retained_lines_before, retained_bytes_before) =
            retained_lines(history, floor, line_from);
        Some(PlacedHead {
            text,
            lines_dropped,
            lines_between_dropped: if first_retained > end_row {
                head.line_ends_before_end
                    .map_or(first_retained - end_row, |before| {
                        history.line_ends_dropped().saturating_sub(before)
                    })
            } else {
                0
            },
            retained_lines_before,
            retained_bytes_before,
            line_start: partial.map(|(_, start)| start),
        })
    }

    /// The captured head's whole lines from position `from` on that end before absolute row
    /// `before`, with their count: a consuming read whose output the read bound or the
    /// scrollback dropped before it took any gives them ahead of what it kept. `from` is where
    /// the read starts: the head's own start (the send's first read), or a row's start (the
    /// lines starting there and after); elsewhere in a row (a line an earlier read handed on
    /// in part) there are none. `None` while no head was captured, or when none is left.
    pub(crate) fn head_lines_between(&self, from: Position, before: u64) -> Option<(String, u64)> {
        let capture = self.head.as_ref()?;
        let head = capture.text.as_ref().filter(|h| h.dropped_before == 0)?;
        let head_start = self.anchor_position(capture.anchor)?;
        if from != head_start && from.col != 0 {
            return None;
        }
        let mut start = head_start.row;
        let (mut text, mut lines) = (String::new(), 0);
        for (line, &end) in head.text.split_inclusive('\n').zip(&head.line_ends) {
            if start >= from.row && end <= before {
                text.push_str(line);
                lines += 1;
            }
            start = end;
        }
        (lines > 0).then_some((text, lines))
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
        let head = self.render_head(start);
        if let Some(capture) = self.head.as_mut() {
            capture.text = head.map(|head| Head {
                dropped_before: capture.dropped_before,
                start_line_ends: capture.start_line_ends,
                ..head
            });
        }
    }

    /// The first [`HEAD_ROWS`] rows from `start`, cut to whole lines within [`HEAD_BYTES`];
    /// `None` until that many rows exist.
    fn render_head(&mut self, start: Position) -> Option<Head> {
        self.materialize();
        if self.content_end_row() < start.row + HEAD_ROWS {
            return None;
        }
        // The rows from the start to the end: what follows the head rows is at most one
        // chunk's rows, since the capture is checked after every chunk. Whole lines only
        // (a line ends at a row that does not soft-wrap).
        let rows = self.snapshot_from(start, usize::MAX);
        let mut head = Head {
            text: String::new(),
            line_ends: Vec::new(),
            line_ends_before_end: self.line_ends_before(start.row),
            line_start: None,
            dropped_before: 0,
            start_line_ends: None,
        };
        let mut line = String::new();
        let mut row = rows.first_row();
        let mut line_row = row;
        // The last row is the cursor's: its line may still grow.
        let done = rows.row_count().saturating_sub(1);
        for (text, wrapped) in rows.rows().take(done) {
            if line.is_empty() {
                line_row = row;
            }
            line.push_str(text);
            row += 1;
            if wrapped {
                if line.len() > HEAD_BYTES {
                    break;
                }
                continue;
            }
            if head.line_ends.len() == HEAD_ROWS as usize
                || head.text.len() + line.len() + 1 > HEAD_BYTES
            {
                break;
            }
            line.push('\n');
            head.text.push_str(&line);
            head.line_ends.push(row);
            line.clear();
        }
        // The next line did not fit whole (or has not ended): keep its start.
        if !line.is_empty() {
            let keep = dsh_output_retention::head_slice(&line, LINE_START_BYTES);
            head.line_start = Some((keep.to_owned(), line_row));
        }
        // Each of the head's lines ends a line.
        head.line_ends_before_end = head
            .line_ends_before_end
            .map(|before| before + head.line_ends.len() as u64);
        Some(head)
    }

    /// Line ends among every row before absolute row `abs`: history rows, then the screen's
    /// rows above `abs` (the emulator up to date). `None` when `abs` is no longer retained.
    pub(super) fn line_ends_before(&self, abs: u64) -> Option<u64> {
        let history = self.history();
        let end = history.end_abs();
        if abs <= end {
            return history.line_ends_before(abs);
        }
        let screen = self.parser.screen();
        let on_screen = u16::try_from(abs - end).ok()?;
        let ends = (0..on_screen)
            .filter(|&r| !row_continues(screen, r, self.config.cols))
            .count() as u64;
        Some(history.line_ends() + ends)
    }

    /// The absolute row of the cursor, the newest row that matters.
    fn content_end_row(&mut self) -> u64 {
        self.cursor().row
    }
}

/// When the row before `first_row` soft-wraps into it (and lies at or after `floor`, or the
/// scrollback dropped it), the first row of that line (at least `floor`) and the line's kept
/// start: its first bytes and the bytes between them and `first_row`, or, when the scrollback
/// dropped the line's first rows, no text and the retained bytes before `first_row`.
fn partial_line_start(
    history: &super::history::History,
    floor: u64,
    first_row: u64,
) -> Option<(u64, PlacedLineStart)> {
    let wraps = |row: u64| history.get(row).is_some_and(|(_, wrapped)| wrapped);
    let continues = if first_row > floor {
        wraps(first_row - 1)
    } else {
        first_row == history.first_abs() && history.first_continues_dropped()
    };
    if !continues {
        return None;
    }
    let mut from = first_row;
    while from > floor && wraps(from - 1) {
        from -= 1;
    }
    let start_dropped = from == history.first_abs() && history.first_continues_dropped();
    let mut line = String::new();
    let mut bytes = 0u64;
    for row in from..first_row {
        if let Some((text, _)) = history.get(row) {
            bytes += text.len() as u64;
            if line.len() < LINE_START_BYTES {
                line.push_str(text);
            }
        }
    }
    let text = if start_dropped {
        String::new()
    } else {
        dsh_output_retention::head_slice(&line, LINE_START_BYTES).to_owned()
    };
    let gap = bytes.saturating_sub(text.len() as u64);
    Some((
        from,
        PlacedLineStart {
            text,
            gap,
            start_dropped,
        },
    ))
}

/// Lines (and their bytes as a render joins them, each line ending in `\n`) of the history
/// rows from absolute row `from` up to `to`.
fn retained_lines(history: &super::history::History, from: u64, to: u64) -> (u64, u64) {
    let (mut lines, mut bytes) = (0u64, 0u64);
    for (text, wrapped) in (from..to).filter_map(|row| history.get(row)) {
        let kept = if wrapped {
            text
        } else {
            text.trim_end_matches(' ')
        };
        lines += u64::from(!wrapped);
        bytes += kept.len() as u64 + u64::from(!wrapped);
    }
    (lines, bytes)
}
