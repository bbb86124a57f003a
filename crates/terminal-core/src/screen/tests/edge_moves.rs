//! Cursor moves at the right edge: a TAB to the last column, and moves right after a
//! character filled it, act on the cursor's row as a terminal's do.

use pretty_assertions::assert_eq;

use super::*;

/// A TAB past the last tab stop from before the last column goes to the last column, as a
/// terminal's does, and the character after it is written there: a carriage return, an erase
/// or a cursor move after it acts on that row (the character had wrapped to the next row, so
/// `\r` went to that row's start and the text after it replaced the character).
#[test]
fn a_tab_to_the_last_column_keeps_the_next_character_on_its_row() {
    // Past the last tab stop (16) of a 20-column row: the TAB goes to column 19.
    let lead = "0".repeat(17);
    for (tail, want) in [
        ("\tb\rX", format!("above\nX{}\tb", &lead[1..])),
        ("\tb\x1b[2K\rcleared", "above\ncleared".to_owned()),
        ("\tb\x1b[2DZ", format!("above\n{lead}Z b")),
        ("\tb\x08Q", format!("above\n{lead} Qb")),
        // Up a row and back: the character goes on the row above, in the last column.
        (
            "\tb\x1b[AU\x1b[B",
            format!("above{}U\n{lead}\tb", " ".repeat(14)),
        ),
        ("\tb", format!("above\n{lead}\tb")),
    ] {
        let mut s = Screen::new(config(6, 20), None);
        s.feed(format!("above\r\n{lead}{tail}\r\nnext\r\n").as_bytes());
        assert_eq!(s.transcript(), format!("{want}\nnext\n"), "{tail:?}");
    }
}

/// A backspace or a cursor move right after a character in the last column starts from that
/// column, as a terminal's cursor does (vt100 keeps it past the column until the line wraps):
/// a backspace goes to the column before it, and the next character after a move up is
/// written on the row above, not wrapped to the row below it.
#[test]
fn moves_after_a_character_in_the_last_column_start_from_it() {
    let full = "x".repeat(20);
    for (tail, want) in [
        ("\x08Q", format!("above\n{}Qx", &full[2..])),
        ("\x08\x08Q", format!("above\n{}Qxx", &full[3..])),
        ("\x1b[DQ", format!("above\n{}Qx", &full[2..])),
        ("\x1b[AU\x1b[B", format!("above{}U\n{full}", " ".repeat(14))),
        ("\x1b[CQ", format!("above\n{}Q", &full[1..])),
    ] {
        let mut s = Screen::new(config(6, 20), None);
        s.feed(format!("above\r\n{full}{tail}\r\nnext\r\n").as_bytes());
        assert_eq!(s.transcript(), format!("{want}\nnext\n"), "{tail:?}");
    }
}
