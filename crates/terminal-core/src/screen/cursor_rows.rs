//! The text of the cursor's row and the row above it, as the prompt classifiers read them.

use super::{Position, Screen};

impl Screen {
    /// How many sequences so far may have moved the cursor above its row or written there
    /// (see `BlankRows::jumps`): unchanged while a program only redraws its line with `\r`.
    pub(crate) fn cursor_jumps(&self) -> u64 {
        self.blank.jumps()
    }

    /// The cursor row's text before the cursor, trailing spaces trimmed (`None` at column 0).
    pub(crate) fn cursor_row_prefix(&mut self) -> Option<String> {
        let pos = self.cursor();
        self.row_prefix(pos)
    }

    /// Whether the cursor's row holds only blanks from the cursor on, and does not go on
    /// into the next row (a line editor's line shows nothing after the cursor).
    pub(crate) fn cursor_row_rest_blank(&mut self) -> bool {
        let pos = self.cursor();
        let base = self.history().end_abs();
        let Some(r) = pos
            .row
            .checked_sub(base)
            .and_then(|r| u16::try_from(r).ok())
        else {
            return false;
        };
        let screen = self.parser.screen();
        let cols = self.config.cols.max(1);
        if r >= screen.size().0.get() || super::row_text::row_continues(screen, r, cols) {
            return false;
        }
        let full = super::row_text::row_text(screen, &[], r, 0, cols);
        super::row_text::skip_cols(&full, pos.col).trim().is_empty()
    }

    /// [`Screen::cursor_row_prefix`], or, with the cursor on the row of `from` (where keys
    /// typed at a prompt began) and right of it, the row's text before `from`: the prompt the
    /// keys answer.
    pub(crate) fn prompt_row_prefix(&mut self, from: Option<Position>) -> Option<String> {
        let pos = self.cursor();
        match from {
            Some(from) if from.row == pos.row && from.col <= pos.col => self.row_prefix(from),
            _ => self.row_prefix(pos),
        }
    }

    /// The text of row `pos.row` (absolute) before column `pos.col`, trailing spaces trimmed
    /// (`None` at column 0 or past what history holds).
    pub(crate) fn text_before(&mut self, pos: Position) -> Option<String> {
        self.materialize();
        self.row_prefix(pos)
    }

    /// The screen's width in columns.
    pub(crate) fn cols(&self) -> u16 {
        self.config.cols.max(1)
    }

    /// The text of the row above the cursor's when that row is below `after_row` (absolute),
    /// trailing spaces trimmed (`None` on the first row, at or above `after_row`, or past what
    /// history holds).
    pub(crate) fn row_above_cursor(&mut self, after_row: u64) -> Option<String> {
        let pos = self.cursor();
        let row = pos.row.checked_sub(1).filter(|&row| row > after_row)?;
        self.row_prefix(Position {
            row,
            col: self.config.cols.max(1),
        })
    }
}
