//! Auto-wrap off (DECRST 7): a character printed past the last column overwrites that column.
//!
//! The emulator always wraps, so a program that turned auto-wrap off to print lines wider than
//! the terminal (cut at its edge, as a terminal shows them), or to fill the last column of the
//! bottom row without scrolling, would have its lines continued on the next row and the screen
//! scrolled. While the mode is off, the screen stops before each character that would pass
//! the last column and moves the cursor back onto it (CHA), as a terminal does.

use super::Screen;
use super::region::char_width;

impl Screen {
    /// Called with each ground-state text byte at `bytes[i]` while auto-wrap is off, with
    /// everything before `seg_start` already emulated; emulates up to `i` and moves the cursor
    /// back onto the last column when the character starting there would pass it.
    /// `col_bound` is an upper bound of the cursor column (`None`: unknown), kept so the
    /// emulator is stopped about once a row.
    pub(super) fn before_unwrapped_text(
        &mut self,
        bytes: &[u8],
        i: usize,
        seg_start: &mut usize,
        col_bound: &mut Option<u16>,
    ) {
        let cols = self.parser.screen().size().1.get();
        let width = match bytes[i] {
            b'\r' => {
                *col_bound = Some(0);
                return;
            }
            // Controls and UTF-8 continuation bytes move the cursor right by nothing.
            0x00..=0x1f | 0x7f..=0xbf => return,
            _ => match char_width(&bytes[i..]) {
                // A combining mark joins the cell before.
                0 => return,
                w => w,
            },
        };
        if let Some(col) = *col_bound
            && col.saturating_add(width) <= cols
        {
            *col_bound = Some(col + width);
            return;
        }
        self.emulate(&bytes[*seg_start..i]);
        *seg_start = i;
        let (_, col) = self.parser.screen().cursor_position();
        if col.saturating_add(width) > cols {
            self.cut_at_edge = true;
            // CHA is 1-based: the character's first cell, so its last is the last column.
            let first = cols.saturating_sub(width).saturating_add(1);
            self.emulate(format!("\x1b[{first}G").as_bytes());
            *col_bound = Some(cols);
        } else {
            *col_bound = Some(col + width);
        }
    }
}

impl Screen {
    /// Whether text printed with auto-wrap off passed the last column since the last call
    /// (the line is cut there, as a terminal shows it); clears the flag.
    pub(crate) fn take_cut_at_edge(&mut self) -> bool {
        std::mem::take(&mut self.cut_at_edge)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::super::tests::plain_screen;

    /// A line wider than the screen printed with auto-wrap off ends at the last column, which
    /// shows the last character printed; auto-wrap on again wraps as before.
    #[test]
    fn a_line_past_the_edge_with_auto_wrap_off_is_cut_there() {
        let mut s = plain_screen();
        let a = s.anchor();
        let long = "A".repeat(200);
        s.feed(format!("\x1b[?7l{long}Z\r\nnext\r\n\x1b[?7h{long}\r\n").as_bytes());
        // As the second mode of one DECRST too.
        s.feed(format!("\x1b[?25;7l{long}Z\r\n\x1b[?7;25h$ ").as_bytes());
        let cut = format!("{}Z", "A".repeat(79));
        let expected = format!("{cut}\nnext\n{long}\n{cut}\n$ ");
        assert_eq!(s.render_since(a, 100_000).text, expected);
    }

    /// Wide characters, and text split across feeds, stop at the edge too.
    #[test]
    fn wide_characters_and_split_feeds_stop_at_the_edge() {
        let mut s = plain_screen();
        let a = s.anchor();
        s.feed(b"\x1b[?7l");
        for _ in 0..50 {
            s.feed("目".as_bytes());
        }
        s.feed(b"\r\n");
        for _ in 0..90 {
            s.feed(b"b");
        }
        s.feed(b"c\r\n$ ");
        let expected = format!("{}\n{}c\n$ ", "目".repeat(40), "b".repeat(79));
        assert_eq!(s.render_since(a, 100_000).text, expected);
    }

    /// A full-screen program that fills the bottom row, last column included, with auto-wrap
    /// off does not scroll its screen.
    #[test]
    fn the_bottom_row_filled_with_auto_wrap_off_does_not_scroll() {
        let mut s = plain_screen();
        s.feed(b"$ tui\r\n");
        s.feed(b"\x1b[?1049h\x1b[H\x1b[2Jtitle\x1b[?7l\x1b[24;1H");
        let a = s.anchor();
        s.feed(format!("{}END", "-".repeat(80)).as_bytes());
        let text = s.render_since(a, 100_000).text;
        assert!(text.starts_with("title\n"), "{text:?}");
        // Each character past the edge overwrote the last column: `D` shows there.
        assert!(
            text.ends_with(&format!("\n{}D", "-".repeat(79))),
            "{text:?}"
        );
    }
}
