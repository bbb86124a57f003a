//! The DEC Special Graphics character set (line drawing). A program that designates it into
//! G0 (`ESC ( 0`: ncurses's `smacs` for xterm, `tput smacs`, dialog and whiptail borders)
//! prints ASCII letters that a terminal draws as box parts (`lqqk` is `┌──┐`) until it
//! designates ASCII again (`ESC ( B`). vt100 keeps no character sets, so the printed bytes
//! are translated on their way into it: only the text (not the bytes of escape sequences),
//! which a scanner of its own, run on exactly what the emulator gets, tells apart.

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

/// Translates the text of the emulator's input while line drawing is designated.
#[derive(Clone, Debug)]
pub(super) struct LineDrawing {
    /// Tracks escape sequences in what the emulator gets (their bytes stay as they are).
    scanner: EscScanner,
}

impl Default for LineDrawing {
    fn default() -> Self {
        Self {
            scanner: EscScanner::new(usize::MAX),
        }
    }
}

impl LineDrawing {
    /// Starts over outside any sequence: called when the set is designated (right after the
    /// designation's last byte).
    pub(super) fn restart(&mut self) {
        *self = Self::default();
    }

    /// `bytes` (UTF-8, on their way into the emulator) with each printed byte that the set
    /// draws as something else replaced by that character.
    pub(super) fn translate<'a>(&mut self, bytes: Cow<'a, [u8]>) -> Cow<'a, [u8]> {
        let mut out: Option<Vec<u8>> = None;
        for (i, &b) in bytes.iter().enumerate() {
            let step = self.scanner.step(b);
            match graphic(b).filter(|_| step == Step::Text) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn translate(bytes: &[u8]) -> String {
        let mut t = LineDrawing::default();
        String::from_utf8(t.translate(Cow::Borrowed(bytes)).into_owned()).unwrap()
    }

    #[test]
    fn letters_become_box_parts_and_sequences_stay() {
        assert_eq!(translate(b"lqwqk\r\nx x x"), "┌─┬─┐\r\n│ │ │");
        // An SGR's final byte `m` is no `└`; a split sequence is finished first.
        assert_eq!(translate(b"\x1b[31mmqj\x1b[0m"), "\x1b[31m└─┘\x1b[0m");
        let mut t = LineDrawing::default();
        let first = t.translate(Cow::Borrowed(b"q\x1b[3")).into_owned();
        let second = t.translate(Cow::Borrowed(b"1mq")).into_owned();
        assert_eq!(first, "─\x1b[3".as_bytes());
        assert_eq!(second, "1m─".as_bytes());
        // Text outside the table (digits, capitals, UTF-8) stays.
        assert_eq!(translate("AZ09é".as_bytes()), "AZ09é");
    }
}
