//! Text written over after the cursor went back to it: a status line padded with spaces
//! over an error (`ESC [ 1 A`, `\r`, new text), a shorter line over a longer one and an
//! erase of the rest, a long line wrapping down over the rows below, lines deleted or
//! pushed off the screen (`ESC [ M`, `ESC [ L`, `ESC [ T`, `ESC M`: every row of text they
//! drop, and the rows they move under the cursor, which the next text may write over). When
//! a running command's sequence moves the cursor up (or to another row), the rows of text
//! from there down to where it was are remembered; a row whose text then changes into
//! anything that does not begin with the old text, and is not a progress display's row
//! redrawn (the same shape, see `frames`), had its old text noted as erased, unless it still
//! shows on another row.

use super::super::row_moves::RowMap;
use super::super::{Position, Screen};
use super::frames::{line_shape, reads_as_a_problem, transient_row};

/// Most rows remembered from one cursor move.
const REVISITED_ROWS_MAX: u64 = 16;

/// Most progress shapes kept between takes.
const PROGRESS_SHAPES_MAX: usize = 16;

impl Screen {
    /// Notes that printed text (`printed`), or a line feed (`!printed`), went to the screen.
    pub(in super::super) fn note_printed(&mut self, printed: bool) {
        // The main screen's record waits while a full-screen program draws (see
        // `note_cursor_row`).
        if !self.parser.screen().alternate_screen() {
            self.clears.on_printed_row = printed;
        }
    }

    /// Notes that a sequence took the cursor from row `before` to row `after` (absolute):
    /// settles the rows remembered so far, then remembers the rows of text from `after` down
    /// to `before` (at most [`REVISITED_ROWS_MAX`]).
    /// Nothing while a full-screen program holds the screen, nor for the switch to or from it
    /// (the main screen's cursor comes back where it was): the main screen's record waits, so
    /// a line the program's caller erases on its own row once the screen is back (git's
    /// `hint: Waiting for your editor…`) is the row just printed.
    pub(in super::super) fn note_cursor_row(&mut self, before: u64, after: u64) {
        let alternate = self.parser.screen().alternate_screen();
        if before == after || alternate || alternate != self.alternate {
            return;
        }
        self.clears.on_printed_row = false;
        self.check_revisited();
        self.clears.revisited.clear();
        if !self.command_running() {
            return;
        }
        let last = before.max(after).min(after + REVISITED_ROWS_MAX - 1);
        for row in after..=last {
            // A row an earlier result showed loses nothing the output writes over it (and
            // would not be told from an unseen one once inserted lines moved it down).
            if self.shown_before(row) {
                continue;
            }
            if let Some(text) = self.visible_row_text(row)
                && !text.trim().is_empty()
                && !self.only_suggestion_on(row)
            {
                self.clears.revisited.push((row, text));
            }
        }
    }

    /// Whether absolute row `row`, on screen, holds only a line editor's suggestion (node's
    /// preview of a value, below its line): no text the program printed (see `suggestion`).
    fn only_suggestion_on(&self, row: u64) -> bool {
        row.checked_sub(self.history().end_abs())
            .and_then(|r| u16::try_from(r).ok())
            .is_some_and(|r| {
                super::super::suggestion::only_suggestion_from(
                    self.parser.screen(),
                    r,
                    0,
                    self.config.cols,
                )
            })
    }

    /// A carriage return at byte `i` of `bytes` (not before a line feed) on the row just
    /// printed, while a command runs: when the row reads as a problem (an error a status line
    /// is about to be written over with `\r`), it is remembered as a row moved onto is (a
    /// progress line redrawn this way then still loses nothing). The text before it is
    /// emulated first, from `seg_start`.
    pub(in super::super) fn before_carriage_return(
        &mut self,
        bytes: &[u8],
        i: usize,
        seg_start: &mut usize,
    ) {
        let over = self.returns_over_text(bytes.get(i + 1));
        if !over && !self.returning() {
            // The last byte so far: the next bytes tell (see `after_return_at_end`).
            if i + 1 == bytes.len() && self.on_a_commands_printed_row() {
                self.emulate(&bytes[*seg_start..i]);
                *seg_start = i;
                self.clears.return_at_end = Some(self.cursor_unsynced());
            }
            return;
        }
        self.emulate(&bytes[*seg_start..i]);
        *seg_start = i;
        self.note_return(over);
        if over {
            self.remember_problem_row();
        }
    }

    /// Before the text after a carriage return that ended the bytes fed before (on the row
    /// just printed, while a command runs), `first` its first byte: one that is no line feed
    /// goes back over the row, as [`Screen::before_carriage_return`] tells within one read
    /// (`printf 'error: failed\r'; sleep 1; echo Build` wrote `Build: failed` unnoted).
    pub(in super::super) fn after_return_at_end(&mut self, first: Option<&u8>) {
        if let Some(at) = self.clears.return_at_end.take()
            && first.is_some_and(|&b| b != b'\n')
            && self.command_running()
        {
            self.note_text_end(at.row, at.col, true);
            self.remember_problem_row();
        }
    }

    /// After the flood took `bytes[..from]`: the emulator gets it when bytes follow; when
    /// it ended in a carriage return with more of the row to come, as
    /// [`Screen::before_carriage_return`], and with nothing more in `bytes`, for the next
    /// bytes to tell (see [`Screen::after_return_at_end`]).
    pub(in super::super) fn after_flood(&mut self, bytes: &[u8], from: usize) {
        if from < bytes.len() {
            self.materialize_flood();
        }
        if from == 0 || bytes[from - 1] != b'\r' {
            return;
        }
        if self.returns_over_text(bytes.get(from)) {
            self.note_flood_return();
            self.remember_problem_row();
        } else if from == bytes.len() && self.on_a_commands_printed_row() && !self.returning() {
            self.materialize_flood();
            let row = self.cursor_unsynced().row;
            let col = self.row_text_end(row);
            self.clears.return_at_end = Some(Position { row, col });
        }
    }

    /// Whether a carriage return followed by `next` goes back over the row just printed while
    /// a command runs on the main screen (not a line's end, `\r\n`).
    fn returns_over_text(&self, next: Option<&u8>) -> bool {
        next.is_some_and(|&b| b != b'\n') && self.on_a_commands_printed_row()
    }

    /// Whether the cursor is on the row just printed while a command runs on the main screen.
    fn on_a_commands_printed_row(&self) -> bool {
        self.clears.on_printed_row
            && self.command_running()
            && !self.parser.screen().alternate_screen()
    }

    /// Remembers the cursor's row when it reads as a problem (see the module docs).
    fn remember_problem_row(&mut self) {
        let row = self.cursor_unsynced().row;
        if let Some(text) = self.visible_row_text(row).filter(|t| reads_as_a_problem(t)) {
            self.clears.revisited.retain(|(r, _)| *r != row);
            self.clears.revisited.push((row, text));
        }
    }

    /// The text of absolute row `row` while it is on screen.
    pub(super) fn visible_row_text(&self, row: u64) -> Option<String> {
        let visible = u16::try_from(row.checked_sub(self.history().end_abs())?).ok()?;
        (visible < self.config.rows).then(|| {
            let cols = self.config.cols;
            super::super::row_text::row_text(self.parser.screen(), &[], visible, 0, cols)
        })
    }

    /// Settles the remembered rows (see the module docs) whose text changed; keeps the rest.
    pub(in super::super) fn check_revisited(&mut self) {
        if self.clears.revisited.is_empty() {
            return;
        }
        let remembered = std::mem::take(&mut self.clears.revisited);
        for (row, before) in remembered {
            match self.visible_row_text(row) {
                Some(now) if now.trim_end() == before.trim_end() => {
                    self.clears.revisited.push((row, before));
                }
                Some(now) => self.settle_rewrite(row, before.trim(), now.trim()),
                None => {}
            }
        }
    }

    /// Row `row` had `before` and shows `now`: notes `before` as erased unless `now` begins
    /// with it, the two are frames of a progress display, or `before` still shows on a row.
    fn settle_rewrite(&mut self, row: u64, before: &str, now: &str) {
        if now.starts_with(before) {
            return;
        }
        let shape = line_shape(before);
        if (transient_row(before) && !reads_as_a_problem(before)) || shape == line_shape(now) {
            let shapes = &mut self.clears.progress_shapes;
            if shapes.len() < PROGRESS_SHAPES_MAX && !shapes.contains(&shape) {
                shapes.push(shape);
            }
            return;
        }
        if !self.shows_row(before) {
            self.note_erased_text(row, before);
        }
    }

    /// Whether a row on screen that no earlier result showed shows `text` (trimmed): the
    /// same text an earlier command printed (`bravo two` twice) is no copy of this line.
    fn shows_row(&self, text: &str) -> bool {
        let base = self.history().end_abs();
        (0..u64::from(self.config.rows)).any(|r| {
            !self.shown_before(base + r)
                && self
                    .visible_row_text(base + r)
                    .is_some_and(|t| t.trim() == text)
        })
    }

    /// `map`'s rows (`from`, `bottom`, `shift`) when it moves rows within the main screen
    /// while a command runs.
    fn moved_while_running(&self, map: RowMap) -> Option<(u64, u64, i64)> {
        let RowMap::Within {
            from,
            bottom,
            shift,
        } = map
        else {
            return None;
        };
        (self.command_running() && !self.parser.screen().alternate_screen() && shift != 0)
            .then_some((from, bottom, shift))
    }

    /// Rows `map` is about to move (inserted or deleted lines, a region scrolled down; the
    /// emulator applies it next), while a command runs: the rows of text it deletes or pushes
    /// off the region's bottom had their text erased (those remembered already are noted by
    /// [`Screen::move_revisited`]).
    pub(in super::super) fn note_rows_dropped(&mut self, map: RowMap) {
        let Some((from, bottom, shift)) = self.moved_while_running(map) else {
            return;
        };
        let n = shift.unsigned_abs();
        let gone = if shift > 0 {
            bottom.saturating_sub(n - 1).max(from)..=bottom
        } else {
            from..=from.saturating_add(n - 1).min(bottom)
        };
        for row in gone {
            if self.clears.revisited.iter().any(|(r, _)| *r == row) {
                continue;
            }
            if let Some(text) = self.visible_row_text(row) {
                self.note_dropped_text(row, text.trim());
            }
        }
    }

    /// `map` moved rows down (IL, SD, RI; the emulator applies it next) with the cursor on
    /// absolute row `cursor`, while a command runs: the rows from the cursor's down now hold
    /// text moved there, which the output printed next may write over (SD under the cursor,
    /// then a line: `durian` over `apple pie` reads `durianpie`). They are remembered as rows
    /// the cursor moved onto are (at most [`REVISITED_ROWS_MAX`]).
    pub(in super::super) fn remember_rows_moved_down(&mut self, map: RowMap, cursor: u64) {
        let Some((from, bottom, shift)) = self.moved_while_running(map).filter(|m| m.2 > 0) else {
            return;
        };
        let last = bottom.min(cursor.saturating_add(REVISITED_ROWS_MAX - 1));
        for row in cursor.max(from)..=last {
            let Some(source) = row.checked_sub(shift.unsigned_abs()).filter(|s| *s >= from) else {
                continue;
            };
            // Text an earlier result (or a job's read) showed loses nothing written over.
            if self.shown_before(source) || self.clears.revisited.iter().any(|(r, _)| *r == row) {
                continue;
            }
            if let Some(text) = self.visible_row_text(source)
                && !text.trim().is_empty()
            {
                self.clears.revisited.push((row, text));
            }
        }
    }

    /// Rows `map` moves (inserted or deleted lines, a scroll): the remembered rows move with
    /// their text; one deleted or pushed off the screen had its text erased.
    pub(in super::super) fn move_revisited(&mut self, map: RowMap) {
        let remembered = std::mem::take(&mut self.clears.revisited);
        for (row, text) in remembered {
            match map.row(row) {
                Some(moved) => self.clears.revisited.push((moved, text)),
                None => self.note_dropped_text(row, text.trim()),
            }
        }
    }
}
