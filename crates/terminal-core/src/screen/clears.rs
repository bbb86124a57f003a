//! Erases of the main screen that would drop text the model has not seen: before the
//! emulator applies one, the rows it erases move into history, so a clear never drops or
//! trims output printed during a send (every line still reaches its result, in order) and
//! `terminal_read` still pages what was on screen before it.

use super::Screen;
use super::row_moves::RowMap;
use super::scan::Sequence;

impl Screen {
    /// Called right before `seq` is emulated: when it erases the whole main screen (ED 2, ED 0
    /// from the home position, a full reset), the rows in use move into history; when it
    /// erases the rows above the cursor (ED 1), those rows do, and the rows below are
    /// renumbered after them (returned, for what refers to rows by number). Selective erases
    /// (DECSED, `CSI ? J`) count as erases: the emulator applies them alike.
    pub(super) fn before_clear(&mut self, seq: Sequence) -> Option<RowMap> {
        if self.parser.screen().alternate_screen() {
            return None;
        }
        let (cursor_row, cursor_col) = self.parser.screen().cursor_position();
        let erase = seq.csi && matches!(seq.private, None | Some(b'?')) && seq.final_byte == b'J';
        let reset = !seq.csi && seq.intermediate.is_none() && seq.final_byte == b'c';
        let whole = reset
            || (erase
                && (seq.first_param == 2
                    || (seq.first_param == 0 && (cursor_row, cursor_col) == (0, 0))));
        if whole {
            let rows = self.rows_in_use();
            self.push_visible_rows(rows);
            return None;
        }
        // ED 1: the rows above the cursor (the cursor's row only up to the cursor, so it stays
        // on screen). Every other sequence returns before the rows are read (this runs for
        // each sequence the screen is fed, prompt marks included).
        if !erase || seq.first_param != 1 || cursor_row == 0 {
            return None;
        }
        let rows = cursor_row.min(self.rows_in_use());
        if rows == 0 {
            return None;
        }
        let first = self.history().end_abs();
        self.push_visible_rows(rows);
        // The pushed rows keep their numbers; the rows below come after them now.
        let map = RowMap::Scrolled {
            first,
            top: first,
            bottom: first + u64::from(rows) - 1,
            n: u64::from(rows),
        };
        self.apply_row_map(map);
        Some(map)
    }
}
