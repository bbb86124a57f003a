//! Rows that inserting or deleting lines, or scrolling down, move within the screen.
//!
//! An anchor is a row number; the emulator moves the text of visible rows without telling:
//! IL (`CSI L`) and DL (`CSI M`) move the rows from the cursor's to the scroll region's
//! bottom down or up, SD (`CSI T`) and RI (`ESC M`) at the region's top move the whole
//! region down. Output a program printed below a send's start and then moved up over it
//! (a delete-lines at the top), or a start moved down by an insert, would otherwise be
//! rendered from the wrong row. Right before such a sequence is emulated, anchors on the
//! moving rows move with their text; an anchor whose row is deleted or pushed out of the
//! region goes to where what followed it is. The same [`RowMap`] moves the rows an anchor
//! records as left by an earlier program, and the rows a segment's text wrote (a sequence
//! right after the text moves them before the screen looks at them), as does a region
//! scrolling rows into history (see `region`).

use super::scan::Sequence;
use super::{Position, Screen};

/// Where the rows a sequence moved are now, by absolute row number (rows in history never
/// move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RowMap {
    /// Visible rows `from..=bottom` moved by `shift` rows (up when negative) within them (IL,
    /// DL, SD, RI); those moved past either edge are gone.
    Within { from: u64, bottom: u64, shift: i64 },
    /// A scroll region `top..=bottom` scrolled up `n` rows, its first `n` rows going into
    /// history at `first` (the first row of the screen before: the emulator moves them there
    /// itself from a region at the top row): the rows above the region and below it are
    /// numbered `n` higher, the rest of the region keeps its numbers.
    Scrolled {
        first: u64,
        top: u64,
        bottom: u64,
        n: u64,
    },
}

impl RowMap {
    /// Row `row`'s number now; `None` when its text is gone.
    pub(super) fn row(self, row: u64) -> Option<u64> {
        match self {
            Self::Within {
                from,
                bottom,
                shift,
            } => {
                if row < from || row > bottom {
                    return Some(row);
                }
                let moved = row.checked_add_signed(shift)?;
                (from..=bottom).contains(&moved).then_some(moved)
            }
            Self::Scrolled {
                first,
                top,
                bottom,
                n,
            } => Some(if row < first {
                row
            } else if row < top || row > bottom {
                row + n
            } else if row < top + n {
                first + (row - top)
            } else {
                row
            }),
        }
    }

    /// Row `row`'s number now, or where what followed it is when its text is gone (with
    /// `true`): the first row the deletion moved up, or the row below the rows moved down.
    pub(super) fn row_or_edge(self, row: u64) -> (u64, bool) {
        match (self.row(row), self) {
            (Some(now), _) => (now, false),
            (
                None,
                Self::Within {
                    from,
                    bottom,
                    shift,
                },
            ) => (if shift < 0 { from } else { bottom + 1 }, true),
            (None, Self::Scrolled { .. }) => (row, false),
        }
    }
}

impl Screen {
    /// Called right before the final byte of `seq` is emulated (everything before it is), on
    /// the main screen: moves anchors on the rows `seq` moves; returns how it moves them.
    pub(super) fn before_row_moves(&mut self, seq: Sequence) -> Option<RowMap> {
        if self.alternate || seq.private.is_some() || seq.intermediate.is_some() {
            return None;
        }
        let rows = self.config.rows;
        let (top, bottom) = self
            .region
            .map_or((0, rows.saturating_sub(1)), |r| (r.top, r.bottom));
        let (row, _) = self.parser.screen().cursor_position();
        let count = i64::from(seq.first_param.max(1));
        let in_region = (top..=bottom).contains(&row);
        let (from, shift) = match (seq.csi, seq.final_byte) {
            (true, b'L') if in_region => (row, count),
            // DL at a top margin scrolls the region into history (see `region`).
            (true, b'M') if in_region && !(row == top && top > 0) => (row, -count),
            (true, b'T') => (top, count),
            // RI on the region's top row scrolls it down (on the screen's top row above a
            // region, nothing happens: see `compat`).
            (false, b'M') if row == top => (top, 1),
            _ => return None,
        };
        let base = self.history().end_abs();
        let map = RowMap::Within {
            from: base + u64::from(from),
            bottom: base + u64::from(bottom),
            shift,
        };
        self.note_rows_dropped(map);
        self.apply_row_map(map);
        self.remember_rows_moved_down(map, base + u64::from(row));
        Some(map)
    }

    /// Moves what refers to rows by number as `map` says: anchors (one whose row is gone goes
    /// where what followed it is, at column 0), the rows they record as left by
    /// an earlier program (dropped when gone), and the row the current segment's text
    /// started on.
    pub(super) fn apply_row_map(&mut self, map: RowMap) {
        for anchor in self.anchors.iter_mut().flatten() {
            if anchor.pending_main {
                continue;
            }
            anchor.pos = match (map, map.row_or_edge(anchor.pos.row)) {
                (_, (row, true)) => Position { row, col: 0 },
                // An anchor above a region that scrolled: the rows saved into history come
                // first now.
                (RowMap::Scrolled { first, top, .. }, _)
                    if anchor.pos.row >= first && anchor.pos.row < top =>
                {
                    Position { row: first, col: 0 }
                }
                (_, (row, false)) => Position {
                    row,
                    col: anchor.pos.col,
                },
            };
            anchor
                .left_at_cursor
                .retain_mut(|left| match map.row(left.abs) {
                    Some(abs) => {
                        left.abs = abs;
                        true
                    }
                    None => false,
                });
        }
        self.segment_row = map.row_or_edge(self.segment_row).0;
        self.move_revisited(map);
        self.move_erased_floor(map);
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

    /// Text the send printed above its start and a sequence then moved is still the send's,
    /// where it was moved to, and the earlier program's rows around it are not.
    #[test]
    fn text_printed_above_the_start_then_moved_stays_the_sends() {
        let cases = [
            ("\x1b[10;1Hl1\r\nl2\r\n\x1b[3T\x1b[24;1H", "l1\nl2\ndsh> "),
            // The start's row (the prompt the send began at) is moved to the row above the
            // next prompt.
            (
                "\x1b[10;1Hl1\r\nl2\r\n\x1b[1;1H\x1bM\x1bM\x1b[24;1H",
                "l1\nl2\ndsh>\ndsh> ",
            ),
            (
                "\x1b[10;1Hil1\x1b[3Lil2\x1b[24;1H",
                "   il2\n\n\nil1\ndsh> ",
            ),
            (
                "\x1b[3;22r\x1b[3;1Hsd1\x1b[5T\x1b[3;1Hsd2\x1b[r\x1b[24;1H",
                "sd2\n\n\n\n\nsd1\n\ndsh> ",
            ),
        ];
        for (out, expected) in cases {
            assert_eq!(result_after(out), expected, "{out:?}");
        }
    }

    /// Lines printed in a scroll region that scrolls: the earlier program's rows the output
    /// jumped over are still told apart once the region moved them.
    #[test]
    fn rows_left_by_an_earlier_program_move_with_a_scrolling_region() {
        // Rows below the region hold the earlier program's lines `17` to `20`.
        for region in ["\x1b[3;16r", "\x1b[1;16r"] {
            let out = format!("{region}\x1b[14;1H100\r\n101\r\n102\r\n103\r\n\x1b[r\x1b[24;1H");
            let text = result_after(&out);
            assert!(
                text.starts_with("100\n101\n102\n103\n"),
                "{region:?}: {text:?}"
            );
            assert!(
                !text
                    .lines()
                    .any(|l| l.parse::<u32>().is_ok_and(|n| n < 100)),
                "{region:?}: an earlier line in {text:?}"
            );
            assert!(text.ends_with("dsh> "), "{region:?}: {text:?}");
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
