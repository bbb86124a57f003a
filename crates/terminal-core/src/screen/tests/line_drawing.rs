//! DEC line drawing (`ESC ( 0`, ncurses's `smacs` for xterm) shows as the box parts a
//! terminal draws.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn line_drawing_shows_box_parts_until_ascii_is_back() {
    let mut s = screen();
    s.feed(b"\x1b(0lqqk\r\nx  x\r\nmqqj\x1b(B lqk\r\n");
    assert_eq!(s.transcript(), "┌──┐\n│  │\n└──┘ lqk\n");
    // Attributes in between stay sequences (the `m` ending an SGR is drawn from no set), a
    // sequence split across reads included; a full reset brings ASCII back too.
    let mut s = screen();
    s.feed(b"\x1b(0\x1b[1mtqu\x1b[0");
    s.feed(b"m\x1b[7mn\x1b[0m\x1bcq\r\n");
    assert_eq!(s.transcript(), "├─┤┼\nq\n");
}

/// The set designated into G1 (`ESC ) 0`, as the terminfo of `linux` and `screen` draws
/// boxes) draws from SO to SI only; a full reset shifts G0 back in.
#[test]
fn line_drawing_in_g1_shows_between_shift_out_and_shift_in() {
    let mut s = screen();
    s.feed(b"\x1b)0\x0elqk\x0f normal\r\n\x0ex\x0f \x0ex\r\n");
    s.feed(b"\x1bcx\r\n");
    assert_eq!(s.transcript(), "┌─┐ normal\n│ │\nx\n");
    // The set waiting in G1 (ncurses's `enacs` for some terminals) leaves plain text plain:
    // floods of it keep the fast path (no mode says otherwise); shifted in, the text is drawn
    // from the set.
    let charset = |s: &Screen| s.modes & crate::screen::feed::modes::CHARSET != 0;
    let mut s = screen();
    s.feed(b"\x1b)0");
    assert!(!charset(&s));
    s.feed(b"x\x0eq\x0fq\r\n");
    assert_eq!(s.transcript(), "x─q\n");
    assert!(!charset(&s));
}
