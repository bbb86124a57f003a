//! Invisible characters in the output: a byte-order mark (U+FEFF), zero-width spaces and
//! joiners, direction marks and the bidi embedding and isolate controls. A terminal shows
//! nothing for them, and the emulator keeps none that starts a row (it attaches a zero-width
//! character to the cell before it), so a result can read as text other than what the program
//! printed: `cat` of a script whose `#!` line follows a byte-order mark shows a clean `#!`
//! while running it fails. They are counted for the result, which says so: in the text the
//! screen takes, not in output suppressed as binary (its bytes are no characters), and not a
//! zero-width joiner or non-joiner between two characters outside ASCII, where it is part of
//! the text (an emoji sequence such as a family's, a ligature control in Indic or Arabic
//! script).

use super::Screen;

impl Screen {
    /// Counts the invisible characters in `bytes` (output text, as it arrives; one split
    /// between two reads is not counted, and a joiner at either end of `bytes` counts as next
    /// to ASCII).
    pub(super) fn note_invisible(&mut self, bytes: &[u8]) {
        let mut at = 0;
        while let Some(i) = memchr::memchr2(0xE2, 0xEF, &bytes[at..]) {
            let start = at + i;
            at = start + 1;
            if let Some(c) = invisible_at(&bytes[start..]) {
                at = start + 3;
                let beyond_ascii = |b: Option<&u8>| b.is_some_and(|&b| !b.is_ascii());
                if matches!(c, '\u{200C}' | '\u{200D}')
                    && beyond_ascii(start.checked_sub(1).and_then(|i| bytes.get(i)))
                    && beyond_ascii(bytes.get(at))
                {
                    continue;
                }
                let noted = self.invisible.get_or_insert((c, 0));
                noted.1 += 1;
            }
        }
    }

    /// The first invisible character in the output since the last call, and how many there
    /// were; clears them.
    pub(crate) fn take_invisible(&mut self) -> Option<(char, u64)> {
        self.invisible.take()
    }
}

/// The invisible character `bytes` start with (all of them take three bytes in UTF-8).
fn invisible_at(bytes: &[u8]) -> Option<char> {
    let c = std::str::from_utf8(bytes.get(..3)?).ok()?.chars().next()?;
    is_invisible(c).then_some(c)
}

/// Whether `c` shows nothing on a terminal and is no space: see the module docs.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{FEFF}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}' | '\u{2066}'..='\u{2069}')
}

/// What `c` (an invisible character) is called.
pub(crate) fn invisible_name(c: char) -> &'static str {
    match c {
        '\u{FEFF}' => "a byte-order mark",
        '\u{200B}' => "a zero-width space",
        '\u{200C}' | '\u{200D}' | '\u{2060}' => "a zero-width joiner",
        '\u{200E}' | '\u{200F}' => "a direction mark",
        _ => "a bidirectional text control",
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::plain_screen;

    #[test]
    fn invisible_characters_are_counted_wherever_they_stand() {
        let mut s = plain_screen();
        s.feed("\u{feff}#!/bin/bash\r\necho a\u{200b}b \u{2066}x\u{2069} é ─\r\n".as_bytes());
        assert_eq!(s.take_invisible(), Some(('\u{feff}', 4)));
        assert_eq!(s.take_invisible(), None);
        s.feed("plain – text … ünïcode\r\n".as_bytes());
        assert_eq!(s.take_invisible(), None);
    }

    /// A joiner inside an emoji sequence or between letters of a script that uses it is part
    /// of the text; one beside ASCII is not (it hides in a word).
    #[test]
    fn joiners_between_characters_beyond_ascii_are_text() {
        let mut s = plain_screen();
        s.feed("family: 👨\u{200d}👩\u{200d}👧 ok, ❤\u{fe0f}\u{200d}🔥, क्\u{200d}ष, می\u{200c}خواهم\r\n".as_bytes());
        assert_eq!(s.take_invisible(), None);
        s.feed("pass\u{200d}word \u{200c}é\r\n".as_bytes());
        assert_eq!(s.take_invisible(), Some(('\u{200d}', 2)));
    }

    /// Output suppressed as binary holds no characters: bytes in it that would spell an
    /// invisible character are not counted.
    #[test]
    fn binary_output_is_not_searched_for_invisible_characters() {
        let mut s = plain_screen();
        let mut noise: Vec<u8> = (0u32..40_000)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for at in (0..noise.len() - 3).step_by(997) {
            noise[at..at + 3].copy_from_slice("\u{202b}".as_bytes());
        }
        s.feed(&noise);
        s.feed(b"\r\nafter\r\n");
        assert_eq!(s.take_invisible(), None);
    }
}
