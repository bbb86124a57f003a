//! Rows that inserting or deleting lines, or scrolling down, move within the screen.
//!
//! An anchor is a row number; the emulator moves the text of visible rows without telling:
//! IL (`CSI L`) and DL (`CSI M`) move the rows from the cursor's to the scroll region's
//! bottom down or up, SD (`CSI T`) and RI (`ESC M`) at the region's top move the whole
//! region down. Output a program printed below a send's start and then moved up over it
//! (a delete-lines at the top), or a start moved down by an insert, would otherwise be
//! rendered from the wrong row. Right before such a sequence is emulated, anchors on the
//! moving rows move with their text; an anchor whose row is deleted or pushed out of the
//! region goes to the row where its text was.

use super::scan::Sequence;
use super::{Position, Screen};

impl Screen {
    /// Called right before the final byte of `seq` is emulated (everything before it is), on
    /// the main screen: moves anchors on the rows `seq` moves.
    pub(super) fn before_row_moves(&mut self, seq: Sequence) {
        if self.alternate || seq.private.is_some() || seq.intermediate.is_some() {
            return;
        }
        let rows = self.config.rows;
        let (top, bottom) = self
            .region
            .map_or((0, rows.saturating_sub(1)), |r| (r.top, r.bottom));
        let (row, _) = self.parser.screen().cursor_position();
        let count = i32::from(seq.first_param.max(1));
        let in_region = (top..=bottom).contains(&row);
        let (from, shift) = match (seq.csi, seq.final_byte) {
            (true, b'L') if in_region => (row, count),
            // DL at a top margin scrolls the region into history (see `region`).
            (true, b'M') if in_region && !(row == top && top > 0) => (row, -count),
            (true, b'T') => (top, count),
            // The emulator scrolls the region down from its top row, and from the screen's.
            (false, b'M') if row == top || row == 0 => (top, 1),
            _ => return,
        };
        self.move_anchors(from, bottom, shift);
    }

    /// Anchors on visible rows `from..=bottom` follow their rows moved by `shift` rows (up
    /// when negative); those whose row leaves `from..=bottom` go to its edge, at column 0.
    fn move_anchors(&mut self, from: u16, bottom: u16, shift: i32) {
        let base = self.history().end_abs();
        let (from_abs, bottom_abs) = (base + u64::from(from), base + u64::from(bottom));
        for anchor in self.anchors.iter_mut().flatten() {
            let row = anchor.pos.row;
            if anchor.pending_main || row < from_abs || row > bottom_abs {
                continue;
            }
            let moved = i64::try_from(row).unwrap_or(i64::MAX) + i64::from(shift);
            anchor.pos = if moved < i64::try_from(from_abs).unwrap_or(i64::MAX) {
                Position {
                    row: from_abs,
                    col: 0,
                }
            } else if moved > i64::try_from(bottom_abs).unwrap_or(i64::MAX) {
                Position {
                    row: bottom_abs,
                    col: 0,
                }
            } else {
                Position {
                    row: u64::try_from(moved).unwrap_or(row),
                    col: anchor.pos.col,
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Screen;
    use super::super::tests::config;

    /// A 24-row screen after `seq 1 20`, then a prompt: the send's result from there after
    /// `out` (the program's output) and the next prompt.
    fn result_after(out: &str) -> String {
        let mut s = Screen::new(config(24, 40), None);
        for i in 1..=20 {
            s.feed(format!("{i}\r\n").as_bytes());
        }
        s.feed(b"dsh> ");
        let a = s.anchor();
        s.feed(out.as_bytes());
        s.feed(b"dsh> ");
        s.render_since(a, 10_000).text
    }

    /// Output a delete-lines moved up over the send's start is still the send's.
    #[test]
    fn output_moved_up_by_delete_lines_is_the_sends() {
        // From the top of the screen, and from the top of a region that starts there.
        for dl in ["\x1b[1;1H\x1b[5M", "\x1b[1;23r\x1b[1;1H\x1b[5M\x1b[r"] {
            let out = format!("cmd\r\nout1\r\nout2\r\n{dl}\x1b[18;1H");
            // The next prompt is drawn over `out2`, as on a terminal.
            assert_eq!(result_after(&out), "cmd\nout1\ndsh> ", "{dl:?}");
        }
        // The start's own row deleted: the send's text starts where it was.
        let out = "cmd\r\nout1\r\nout2\r\n\x1b[21;1H\x1b[M\x1b[24;1H";
        assert_eq!(result_after(out), "out1\nout2\n\ndsh> ");
    }

    /// A send's start moved down by an insert-lines, a scroll-down or a reverse index at the
    /// top follows its text: the earlier program's rows above it are not the send's.
    #[test]
    fn a_start_moved_down_follows_its_text() {
        for down in [
            "\x1b[1;1H\x1b[2L",
            "\x1b[2T",
            "\x1b[1;1H\x1bM\x1bM",
            "\x1b[1;23r\x1b[1;1H\x1bM\x1bM\x1b[r",
        ] {
            let out = format!("cmd\r\nout1\r\nout2\r\n{down}\x1b[24;1H");
            assert_eq!(result_after(&out), "cmd\ndsh> ", "{down:?}");
        }
    }

    /// A region from the top row scrolled up moves its rows into history: the rows below it
    /// stay where they are on the screen, and a start there stays with its text.
    #[test]
    fn a_start_below_a_region_scrolled_up_stays_with_its_text() {
        let out = "cmd\r\nout1\r\n\x1b[1;20r\x1b[3S\x1b[r\x1b[23;1H";
        assert_eq!(result_after(out), "cmd\nout1\ndsh> ");
        let mut lines = String::from("cmd\r\n\x1b[1;20r\x1b[20;1H");
        for i in 0..30 {
            lines.push_str(&format!("r{i}\r\n"));
        }
        lines.push_str("\x1b[r\x1b[23;1Hbelow\r\n");
        // The lines printed in the region, above the start's row, come first (screen order).
        let printed: Vec<String> = (0..30).map(|i| format!("r{i}")).collect();
        assert_eq!(
            result_after(&lines),
            format!("{}\n\ndsh> cmd\n\nbelow\ndsh> ", printed.join("\n"))
        );
    }
}
