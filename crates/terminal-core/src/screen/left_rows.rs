//! Rows an earlier program left on screen where a send starts (it moved the cursor up without
//! clearing): recorded with their text, so that a render from the send's start does not end
//! on them or show their unchanged text as the send's output.

use super::Screen;
use super::row_text::skip_cols;

/// A row an earlier program left (see [`Screen::rows_left_at_cursor`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct LeftRow {
    /// Its absolute row.
    pub(super) abs: u64,
    /// Its full text then.
    pub(super) text: String,
    /// The row's cells `0..written_to` were written by output since (0: none): the row is that
    /// output's even where its text equals `text` (`seq 1 8` over the lines of `seq 1 10`),
    /// and only text after them can be the earlier program's.
    pub(super) written_to: u16,
    /// A line feed of output since went down over it without writing on it: a blank line of
    /// that output, shown as one while the row is unchanged (but see `above_start`).
    pub(super) passed: bool,
    /// Recorded when output went up above the send's start ([`Screen::rows_between`],
    /// [`Screen::note_rows_above_anchors`]): a program redrawing rows in place (a multi-line
    /// progress display going back down with line feeds) leaves the rows it passes over as
    /// they are, so such a row shows its text, not a blank line.
    pub(super) above_start: bool,
    /// Output moved the cursor forward along the row over its text without writing it (a
    /// TAB, `CSI n C`): cells before `written_to` may still show that text, so the row is
    /// never taken for the output's alone (`ab\tcd` over `1019 xxxx` shows `ab19 xxxcd`).
    pub(super) skipped: bool,
}

impl LeftRow {
    /// The row `abs` holding `text`, not written since.
    pub(super) fn new((abs, text): (u64, String)) -> Self {
        Self {
            abs,
            text,
            written_to: 0,
            passed: false,
            above_start: false,
            skipped: false,
        }
    }

    /// [`LeftRow::new`], recorded above the send's start (see [`LeftRow::above_start`]).
    fn above_start(row: (u64, String)) -> Self {
        Self {
            above_start: true,
            ..Self::new(row)
        }
    }
}

impl Screen {
    /// The visible rows strictly between absolute rows `above` and `below` that hold text,
    /// with their absolute rows (for [`Screen::rows_left_at_cursor`]'s record when output
    /// jumped above an anchor: the rows it jumped over are an earlier program's).
    pub(super) fn rows_between(&self, above: u64, below: u64) -> Vec<LeftRow> {
        self.rows_from(above.saturating_add(1), below)
    }

    /// The visible rows from absolute row `first` down to (not including) `below` that hold
    /// text, with their absolute rows, recorded above the send's start.
    fn rows_from(&self, first: u64, below: u64) -> Vec<LeftRow> {
        let base = self.history().end_abs();
        let Ok(first) = u16::try_from(first.saturating_sub(base)) else {
            return Vec::new();
        };
        self.visible_rows_from(false, first)
            .into_iter()
            .enumerate()
            .map(|(i, text)| (base + u64::from(first) + i as u64, text))
            .take_while(|(abs, _)| *abs < below)
            .filter(|(_, text)| !text.trim_end_matches(' ').is_empty())
            .map(LeftRow::above_start)
            .collect()
    }

    /// After ED 0 (erase below) from a row's first column on the main screen, other than from
    /// the home position (a clear, which moves the rows into history first): nothing below is
    /// left, so anchors at or below that row start there, with no earlier program's text after
    /// them. A program that moves the cursor up and erases before it redraws (IPython
    /// re-rendering its cell, a progress display) leaves no older text in the rows it
    /// rewrites, unlike one that moves up without clearing.
    pub(super) fn erased_below(&mut self) {
        let cursor = self.cursor_unsynced();
        let visible_row = cursor.row - self.history().end_abs();
        if self.parser.screen().alternate_screen() || cursor.col != 0 || visible_row == 0 {
            return;
        }
        for anchor in self.anchors.iter_mut().flatten() {
            if anchor.pending_main || anchor.pos.row < cursor.row {
                continue;
            }
            anchor.pos = cursor;
            anchor.prefix = None;
            // `line_ends_before` stays the count where it was placed, as after a jump: the
            // rows between are lines a consuming read may have handed out (see `consume`).
            // The erase already took the rows it cleared off the record of rows left there
            // ([`Screen::erased_from_cursor`], run first).
        }
    }

    /// After a sequence moved the cursor above an anchor's row on the main screen (`ESC[H`,
    /// `tput cup`): the rows from the cursor's down to the anchor's hold an earlier program's
    /// text, recorded as left there (rows already recorded keep their record), so that what
    /// output writes on them is tracked cell by cell ([`Screen::note_written`]) and a row it
    /// covers or erases whole is not said to mix older text in.
    pub(super) fn note_rows_above_anchors(&mut self) {
        if self.parser.screen().alternate_screen() {
            return;
        }
        let cursor = self.cursor_unsynced();
        let above = |a: &super::Anchor| !a.pending_main && cursor.row < a.pos.row;
        let Some(lowest) = self
            .anchors
            .iter()
            .flatten()
            .filter(|a| above(a))
            .map(|a| a.pos.row)
            .max()
        else {
            return;
        };
        let rows = self.rows_from(cursor.row, lowest);
        for anchor in self.anchors.iter_mut().flatten() {
            if !above(anchor) {
                continue;
            }
            let known: Vec<u64> = anchor.left_at_cursor.iter().map(|l| l.abs).collect();
            anchor.left_at_cursor.extend(
                rows.iter()
                    .filter(|l| l.abs < anchor.pos.row && !known.contains(&l.abs))
                    .cloned(),
            );
            anchor.left_at_cursor.sort_by_key(|left| left.abs);
        }
    }

    /// Rows in `rows` (absolute) are no longer taken for an earlier program's text left at
    /// anchor `id`: earlier reads from it handed them out as output (see
    /// [`Screen::handed_out_unshown`]), so a read that goes back up over them shows them as
    /// they are, changed or not.
    pub(super) fn forget_left_rows_in(&mut self, id: super::AnchorId, rows: std::ops::Range<u64>) {
        if rows.is_empty() {
            return;
        }
        if let Some(Some(anchor)) = self.anchors.get_mut(id.0) {
            anchor
                .left_at_cursor
                .retain(|left| !rows.contains(&left.abs));
        }
    }

    /// After an erase on the main screen from the cursor: to the end of the cursor's row (EL
    /// 0), the whole row (EL 2, `whole_row`), or on to the end of the screen too (ED 0,
    /// `below`). A row an earlier program left that output wrote up to the cursor and that
    /// the erase cleared from there holds none of that program's text any more, nor does a
    /// row the erase cleared whole: such rows are the output's from then on (a redraw from the
    /// top of the screen that erases each row it writes, as `watch` does, mixes no older text
    /// in).
    pub(super) fn erased_from_cursor(&mut self, whole_row: bool, below: bool) {
        if self.parser.screen().alternate_screen() {
            return;
        }
        let cursor = self.cursor_unsynced();
        for anchor in self.anchors.iter_mut().flatten() {
            anchor.left_at_cursor.retain(|left| {
                let cleared = (below && left.abs > cursor.row)
                    || (left.abs == cursor.row
                        && (whole_row || (left.written_to >= cursor.col && !left.skipped)));
                !cleared
            });
        }
    }

    /// The text an earlier program left at and below the cursor, with each row's absolute
    /// row: the cursor's row when it holds text from the cursor on (at column 0 too: the
    /// prompt is not drawn over it, see `prompt_row`), and every
    /// row below it that holds any, with the blank rows between them (blank rows between
    /// text left further down are no more output than that text is; none on the alternate
    /// screen). With the cursor in or below a scroll region that has a top margin, the rows
    /// above the region come first ([`Screen::rows_above_region`]).
    pub(super) fn rows_left_at_cursor(&self) -> Vec<LeftRow> {
        if self.alternate {
            return Vec::new();
        }
        let screen = self.parser.screen();
        let (cursor_row, cursor_col) = screen.cursor_position();
        let base = self.history().end_abs();
        let mut left = self.rows_above_region(cursor_row, base);
        let rows = self.visible_rows_from(false, cursor_row);
        let last_text = rows
            .iter()
            .skip(1)
            .rposition(|text| !text.trim_end_matches(' ').is_empty())
            .map_or(0, |i| i + 1);
        left.extend(
            rows.into_iter()
                .enumerate()
                .filter(|(i, text)| {
                    if *i == 0 {
                        !skip_cols(text, cursor_col).trim_end_matches(' ').is_empty()
                    } else {
                        *i <= last_text
                    }
                })
                .map(|(i, text)| LeftRow::new((base + u64::from(cursor_row) + i as u64, text))),
        );
        left
    }

    /// The rows above a main-screen scroll region with a top margin, blank ones too, when the
    /// cursor (on visible row `cursor_row`; `base` is the first visible row's absolute row) is
    /// in or below the region. The region scrolls its rows into history, which numbers the
    /// rows above it after them, so a render from a row in the region reaches those rows
    /// after the output: recorded as left there, they show only where output since wrote on
    /// them (a status line the program keeps), not as stale lines in the middle of every
    /// later result (a region a killed program left set).
    fn rows_above_region(&self, cursor_row: u16, base: u64) -> Vec<LeftRow> {
        let Some(region) = self.region.filter(|r| r.top > 0 && cursor_row >= r.top) else {
            return Vec::new();
        };
        self.visible_rows_from(false, 0)
            .into_iter()
            .take(usize::from(region.top))
            .enumerate()
            .map(|(r, text)| LeftRow::new((base + r as u64, text)))
            .collect()
    }

    /// Whether an anchor records rows an earlier program left that output may yet write on.
    pub(super) fn tracks_left_rows(&self) -> bool {
        self.anchors
            .iter()
            .flatten()
            .any(|a| !a.left_at_cursor.is_empty())
    }

    /// Notes, on the row anchors record as left where the cursor is (emulated up to a line
    /// feed on a line that printed nothing), that output passed over it.
    pub(super) fn note_passed(&mut self) {
        let row = self.cursor_unsynced().row;
        for anchor in self.anchors.iter_mut().flatten() {
            for left in &mut anchor.left_at_cursor {
                left.passed |= left.abs == row;
            }
        }
    }

    /// Notes, on the rows anchors record as left, that a printed line starting on absolute row
    /// `line_row` and ending at the cursor (emulated up to there) wrote them: the rows before
    /// the cursor's whole (the line wrapped), the cursor's up to the cursor.
    pub(super) fn note_written(&mut self, line_row: u64) {
        let cursor = self.cursor_unsynced();
        let cols = self.config.cols;
        for anchor in self.anchors.iter_mut().flatten() {
            for left in &mut anchor.left_at_cursor {
                let to = if left.abs >= line_row && left.abs < cursor.row {
                    cols
                } else if left.abs == cursor.row {
                    cursor.col
                } else {
                    continue;
                };
                left.written_to = left.written_to.max(to);
            }
        }
    }

    /// Notes, on the rows anchors record as left, that the cursor moved forward along its row
    /// from column `from` (at `before`, an absolute position) to where it is now without
    /// writing: when a skipped cell still shows the text left there, the row keeps that text
    /// among the output's ([`LeftRow::skipped`]).
    pub(super) fn note_moved_forward(&mut self, before: super::Position) {
        let cursor = self.cursor_unsynced();
        if cursor.row != before.row || cursor.col <= before.col {
            return;
        }
        let screen = self.parser.screen();
        let visible_row = screen.cursor_position().0;
        let shows_left = |text: &str| {
            let mut old = skip_cols(text, before.col).chars();
            (before.col..cursor.col).any(|col| {
                let Some(ch) = old.next() else { return false };
                ch != ' '
                    && screen
                        .cell(visible_row, col)
                        .is_some_and(|cell| cell.contents().starts_with(ch))
            })
        };
        for anchor in self.anchors.iter_mut().flatten() {
            for left in &mut anchor.left_at_cursor {
                if left.abs == cursor.row && !left.skipped && shows_left(&left.text) {
                    left.skipped = true;
                }
            }
        }
    }
}
