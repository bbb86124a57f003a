//! The DEC Special Graphics character set (line drawing). A program that designates it into
//! G0 (`ESC ( 0`: ncurses's `smacs` for xterm, `tput smacs`, dialog and whiptail borders)
//! prints ASCII letters that a terminal draws as box parts (`lqqk` is `┌──┐`) until it
//! designates ASCII again (`ESC ( B`). So does one that designates it into G1 (`ESC ) 0`)
//! and shifts to G1 (SO, `0x0e`: the terminfo of `linux` and `screen` draws boxes so) until it
//! shifts back to G0 (SI, `0x0f`). vt100 keeps no character sets, so the printed bytes are
//! translated on their way into it: only the text (not the bytes of escape sequences), which
//! a scanner of its own, run on exactly what the emulator gets, tells apart.

use std::borrow::Cow;

use super::scan::{EscScanner, Step};

/// What DEC Special Graphics draws for the bytes `0x5f..=0x7e` (xterm's table; `_` is a
/// blank).
const GRAPHICS: [char; 32] = [
    ' ', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼', '⎺', '⎻', '─',
    '⎼', '⎽', '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
];

/// The character DEC Special Graphics draws for the ASCII byte `b`, if it has one of its own.
fn graphic(b: u8) -> Option<char> {
    let i = b.checked_sub(0x5f)?;
    GRAPHICS.get(usize::from(i)).copied()
}

/// Letters a program draws boxes, fills and scroll bars with (corners, lines, tees, the
/// cross, the checkerboard): a word with two other letters or more was meant as text.
const BOX_LETTERS: &[u8] = b"ajklmnqtuvwx";

/// Most bytes of a line printed in the set kept to quote.
const QUOTED_BYTES: usize = 160;

/// Translates the text of the emulator's input while line drawing is designated.
#[derive(Clone, Debug)]
pub(super) struct LineDrawing {
    /// Tracks escape sequences in what the emulator gets (their bytes stay as they are).
    scanner: EscScanner,
    /// The text of the line being printed in the set, as the program printed it (at most
    /// [`QUOTED_BYTES`]).
    line: Vec<u8>,
    /// The first line of text (see [`BOX_LETTERS`]) printed in the set since the last
    /// [`Screen::take_line_drawn_text`], as printed, and how many were.
    text: Option<(String, u64)>,
    /// The set is designated into G0, into G1, and G1 is shifted in (SO).
    g0: bool,
    g1: bool,
    shifted_out: bool,
}

impl Default for LineDrawing {
    fn default() -> Self {
        Self {
            scanner: EscScanner::new(usize::MAX),
            line: Vec::new(),
            text: None,
            g0: false,
            g1: false,
            shifted_out: false,
        }
    }
}

impl LineDrawing {
    /// Whether printed text is drawn from the set now.
    pub(super) fn active(&self) -> bool {
        if self.shifted_out { self.g1 } else { self.g0 }
    }

    /// Whether the set is designated into G0 or G1: text must pass [`LineDrawing::translate`]
    /// (which follows SO and SI).
    pub(super) fn designated_anywhere(&self) -> bool {
        self.g0 || self.g1
    }

    /// A designation of the set (`graphics`) or of another one (ASCII) into G0 (`g1`: G1),
    /// after the sequence's last byte.
    pub(super) fn designate(&mut self, g1: bool, graphics: bool) {
        let before = self.active();
        if g1 {
            self.g1 = graphics;
        } else {
            self.g0 = graphics;
        }
        if before != self.active() {
            self.designated(self.active());
        } else if graphics {
            // The translator may not have seen the text since (it runs only while the set is
            // designated somewhere): start over outside any sequence.
            self.scanner = EscScanner::new(usize::MAX);
        }
    }

    /// A full reset (`ESC c`): ASCII in G0 and G1, G0 shifted in.
    pub(super) fn reset(&mut self) {
        let before = self.active();
        (self.g0, self.g1, self.shifted_out) = (false, false, false);
        if before {
            self.designated(false);
        }
    }

    /// The set became active (`on`: start over outside any sequence, right after the last
    /// byte that made it so), or inactive: the line printed in the set so far ends.
    fn designated(&mut self, on: bool) {
        self.end_line();
        if on {
            self.scanner = EscScanner::new(usize::MAX);
        }
    }

    /// The line printed so far ends (a line end, or the set is designated anew): noted when
    /// it was text.
    fn end_line(&mut self) {
        let line = std::mem::take(&mut self.line);
        let is_text = line.split(|b| !b.is_ascii_alphabetic()).any(|word| {
            let mut others: Vec<u8> = word
                .iter()
                .map(u8::to_ascii_lowercase)
                .filter(|b| !BOX_LETTERS.contains(b))
                .collect();
            others.sort_unstable();
            others.dedup();
            word.len() >= 3 && others.len() >= 2
        });
        if is_text {
            let text = self
                .text
                .get_or_insert_with(|| (String::from_utf8_lossy(&line).trim().to_owned(), 0));
            text.1 += 1;
        }
    }

    /// `bytes` (UTF-8, on their way into the emulator) with each printed byte that the set
    /// draws as something else replaced by that character.
    pub(super) fn translate<'a>(&mut self, bytes: Cow<'a, [u8]>) -> Cow<'a, [u8]> {
        let mut out: Option<Vec<u8>> = None;
        for (i, &b) in bytes.iter().enumerate() {
            let step = self.scanner.step(b);
            // SO and SI (control bytes the scanner passes over, which a terminal acts on inside
            // a sequence too): G1 or G0 draws what follows.
            if matches!(b, 0x0e | 0x0f) && matches!(step, Step::Text | Step::Other) {
                let before = self.active();
                self.shifted_out = b == 0x0e;
                if before != self.active() {
                    self.end_line();
                }
            }
            if step == Step::Text {
                match b {
                    _ if !self.active() => {}
                    b'\n' | b'\r' | 0x0b | 0x0c => self.end_line(),
                    0x20..=0x7e if self.line.len() < QUOTED_BYTES => self.line.push(b),
                    _ => {}
                }
            }
            match graphic(b).filter(|_| step == Step::Text && self.active()) {
                Some(c) => {
                    let out = out.get_or_insert_with(|| bytes[..i].to_vec());
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                None => {
                    if let Some(out) = out.as_mut() {
                        out.push(b);
                    }
                }
            }
        }
        match out {
            Some(out) => Cow::Owned(out),
            None => bytes,
        }
    }
}

impl super::Screen {
    /// The first line of text a program printed while DEC line drawing was designated since
    /// the last call (a terminal drew its letters as box parts: a program left the set on, or
    /// its output was cut inside a box), as printed, and how many such lines there were;
    /// clears it. Lines of box parts (`lqqk`, `x`) and fills are not text.
    pub(crate) fn take_line_drawn_text(&mut self) -> Option<(String, u64)> {
        if self.line_drawing.active() {
            self.line_drawing.end_line();
        }
        self.line_drawing.text.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn translate(bytes: &[u8]) -> String {
        let mut t = LineDrawing::default();
        t.designate(false, true);
        String::from_utf8(t.translate(Cow::Borrowed(bytes)).into_owned()).unwrap()
    }

    #[test]
    fn letters_become_box_parts_and_sequences_stay() {
        assert_eq!(translate(b"lqwqk\r\nx x x"), "┌─┬─┐\r\n│ │ │");
        // An SGR's final byte `m` is no `└`; a split sequence is finished first.
        assert_eq!(translate(b"\x1b[31mmqj\x1b[0m"), "\x1b[31m└─┘\x1b[0m");
        let mut t = LineDrawing::default();
        t.designate(false, true);
        let first = t.translate(Cow::Borrowed(b"q\x1b[3")).into_owned();
        let second = t.translate(Cow::Borrowed(b"1mq")).into_owned();
        assert_eq!(first, "─\x1b[3".as_bytes());
        assert_eq!(second, "1m─".as_bytes());
        // Text outside the table (digits, capitals, UTF-8) stays.
        assert_eq!(translate("AZ09é".as_bytes()), "AZ09é");
    }

    /// Designated into G1, the set draws between SO and SI only.
    #[test]
    fn the_set_in_g1_draws_while_shifted_out() {
        let mut t = LineDrawing::default();
        t.designate(true, true);
        assert!(!t.active());
        let out = t.translate(Cow::Borrowed(b"lqk\x0elqk\x0f lqk\x0ex\x0f"));
        assert_eq!(out.into_owned(), "lqk\x0e┌─┐\x0f lqk\x0e│\x0f".as_bytes());
        t.reset();
        assert!(!t.designated_anywhere());
    }

    #[test]
    fn text_printed_in_the_set_is_kept_as_printed() {
        let mut t = LineDrawing::default();
        t.designate(false, true);
        t.translate(Cow::Borrowed(b"lqqqk\r\nx  x\r\naaaa ooo\r\nmqqqj\r\n"));
        assert_eq!(t.text, None);
        t.translate(Cow::Borrowed(
            b"error: disk quota exceeded\r\n\x1b[1mls\x1b[0m output\r\n",
        ));
        assert_eq!(t.text, Some(("error: disk quota exceeded".to_owned(), 2)));
        // A line the designation of another set ends (no line end in the set).
        let mut t = LineDrawing::default();
        t.designate(false, true);
        t.translate(Cow::Borrowed(b"error in job"));
        t.designate(false, false);
        assert_eq!(t.text, Some(("error in job".to_owned(), 1)));
    }
}
