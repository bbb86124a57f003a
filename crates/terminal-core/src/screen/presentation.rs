//! Emoji presentation selectors at the right margin. A VS16 (U+FE0F) after a narrow character
//! asks for its emoji form, which vt100 draws two columns wide; after the row's last column it
//! then moves the character to the next row without flagging the row as wrapped, so the line
//! split there, the character landed on the next row and what followed it two columns in.
//! Terminals that keep such a character narrow (xterm, VTE) show the line whole, and so do we:
//! that one selector is left out (the character stays, narrow); every other one goes to the
//! emulator.

use unicode_width::UnicodeWidthStr as _;

/// U+FE0F VARIATION SELECTOR-16, as UTF-8.
const VS16: &[u8] = "\u{fe0f}".as_bytes();

/// Feeds `bytes` to `parser`, leaving out each VS16 that would widen the character in the
/// cursor's row's last column (the cursor past it, waiting to wrap).
pub(super) fn process<C: vt100::Callbacks>(parser: &mut vt100::Parser<C>, bytes: &[u8]) {
    let mut rest = bytes;
    while let Some(at) = memchr::memmem::find(rest, VS16) {
        let (before, after) = rest.split_at(at);
        parser.process(before);
        if !widens_last_column(parser.screen()) {
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
                !cell.is_wide()
                    && !text.is_empty()
                    && text.width() == 1
                    && format!("{text}\u{fe0f}").width() > 1
            })
}
