//! Cursor moves by tab stops, with the cells a TAB skips recorded (see [`super::tabs`]): HT,
//! and the forward and backward tabulation sequences (CHT `CSI n I`, CBT `CSI n Z`), which
//! vt100 ignores. Tab stops are every eight columns.

use super::Screen;
use super::scan::Sequence;

/// Columns between tab stops.
const TAB_WIDTH: u16 = 8;

impl Screen {
    /// Emulates one TAB and records the cells it skipped (see [`super::tabs`]); returns the
    /// cursor's column after it.
    ///
    /// On the main screen a TAB past the last tab stop does not leave the cursor on the last
    /// column, where a terminal would write the text after it over the same cell again (a
    /// TSV row reaching the right edge would lose the fields there): when that cell is empty,
    /// its run goes to the row's end and the text after it wraps to the next row, as text
    /// longer than the row does. After a character in the last column (the line wraps at its
    /// next character), the TAB itself wraps and skips from the next row's start.
    pub(super) fn emulate_tab(&mut self) -> u16 {
        let cols = self.parser.screen().size().1.get();
        let (row, from) = self.parser.screen().cursor_position();
        let main = !self.parser.screen().alternate_screen();
        if main && from >= cols {
            // A blank in the next row's first cell wraps the line there; the TAB goes on
            // from it.
            self.emulate(b" ");
            let (row, first) = self.parser.screen().cursor_position();
            self.emulate(b"\t");
            let (after_row, to) = self.parser.screen().cursor_position();
            if after_row == row {
                let tabs = self.parser.callbacks_mut().tabs_mut(false);
                tabs.record(row, first.saturating_sub(1), to);
            }
            return to;
        }
        self.emulate(b"\t");
        let (after_row, mut to) = self.parser.screen().cursor_position();
        let past_last_stop = (from - from % TAB_WIDTH).saturating_add(TAB_WIDTH) >= cols;
        let last_cell_empty = !self
            .parser
            .screen()
            .cell(row, to)
            .is_some_and(vt100::Cell::has_contents);
        if main && after_row == row && to + 1 == cols && past_last_stop && last_cell_empty {
            // A blank in the empty last cell: the next character wraps.
            self.emulate(b" ");
            to = cols;
        }
        if after_row == row {
            let alternate = !main;
            self.parser
                .callbacks_mut()
                .tabs_mut(alternate)
                .record(row, from, to);
        }
        to
    }

    /// Carries out CHT (`CSI n I`: `n` TABs) and CBT (`CSI n Z`: back `n` tab stops, to the
    /// row's start at most), which vt100 ignores; returns whether `seq` was one of them.
    pub(super) fn tab_moves(&mut self, seq: Sequence) -> bool {
        let plain = seq.csi && seq.private.is_none() && seq.intermediate.is_none();
        if !plain || !matches!(seq.final_byte, b'I' | b'Z') {
            return false;
        }
        // vt100 ends the sequence, doing nothing with it.
        self.emulate(&[seq.final_byte]);
        let cols = self.parser.screen().size().1.get();
        let count = seq.first_param.clamp(1, cols);
        if seq.final_byte == b'I' {
            for _ in 0..count {
                self.emulate_tab();
            }
        } else {
            let col = self.parser.screen().cursor_position().1.min(cols - 1);
            let stops = col.div_ceil(TAB_WIDTH);
            let target = (stops - stops.min(count)) * TAB_WIDTH;
            self.emulate(format!("\x1b[{}G", target + 1).as_bytes());
        }
        true
    }
}
