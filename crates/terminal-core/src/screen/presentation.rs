//! Emoji presentation selectors at the right margin. A VS16 (U+FE0F) after a narrow character
//! asks for its emoji form, which vt100 draws two columns wide; after the row's last column it
//! then moves the character to the next row without flagging the row as wrapped, so the line
//! split there, the character landed on the next row and what followed it two columns in.
//! Terminals that keep such a character narrow (xterm, VTE) show the line whole, the selector
//! attached to the character in the last column, and so do we: that one selector goes to the
//! emulator as [`VS16_STAND_IN`], a zero-width character it attaches to the cell as it does a
//! combining mark, without widening it, and rows turn it back into U+FE0F where they become
//! text ([`super::utf8::restore`]), on the screen and in history. Every other selector goes to
//! the emulator as it is.

use unicode_width::UnicodeWidthStr as _;

/// U+FE0F VARIATION SELECTOR-16, as UTF-8.
const VS16: &[u8] = "\u{fe0f}".as_bytes();

/// Stands in for a VS16 that would widen the character in a row's last column: the last code
/// point of Plane 14's default-ignorable range (U+E0000..U+E0FFF; unassigned, zero columns
/// wide), which the emulator keeps with the character before it and, unlike a VS16, never
/// widens it for. A program that prints it itself sees U+FE0F.
pub(super) const VS16_STAND_IN: char = '\u{E0FFF}';

/// Feeds `bytes` to `parser`, giving each VS16 that would widen the character in the cursor's
/// row's last column (the cursor past it, waiting to wrap) as [`VS16_STAND_IN`].
pub(super) fn process<C: vt100::Callbacks>(parser: &mut vt100::Parser<C>, bytes: &[u8]) {
    let mut stand_in = [0u8; 4];
    let stand_in = VS16_STAND_IN.encode_utf8(&mut stand_in).as_bytes();
    let mut rest = bytes;
    while let Some(at) = memchr::memmem::find(rest, VS16) {
        let (before, after) = rest.split_at(at);
        parser.process(before);
        if widens_last_column(parser.screen()) {
            parser.process(stand_in);
        } else {
            parser.process(VS16);
        }
        rest = &after[VS16.len()..];
    }
    parser.process(rest);
}

/// Whether a VS16 now would widen the character in the last column of the cursor's row: the
/// cursor waits past that column (vt100 keeps it one column beyond the last until the next
/// character wraps), and the character there is narrow with an emoji form twice as wide.
fn widens_last_column(screen: &vt100::Screen) -> bool {
    let (row, col) = screen.cursor_position();
    let cols = screen.size().1.get();
    col >= cols
        && screen
            .cell(row, cols.saturating_sub(1))
            .is_some_and(|cell| {
                let text = cell.contents();
                !cell.is_wide() && !text.is_empty() && format!("{text}\u{fe0f}").width() > 1
            })
}

#[cfg(test)]
mod tests {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

    use super::VS16_STAND_IN;

    #[test]
    fn the_stand_in_takes_no_column_and_widens_nothing() {
        assert_eq!(UnicodeWidthChar::width(VS16_STAND_IN), Some(0));
        assert_eq!(
            UnicodeWidthStr::width(format!("\u{2764}{VS16_STAND_IN}").as_str()),
            1
        );
        assert_eq!(
            super::super::utf8::restore(&format!("a\u{2764}{VS16_STAND_IN}b")),
            "a\u{2764}\u{fe0f}b"
        );
    }
}
