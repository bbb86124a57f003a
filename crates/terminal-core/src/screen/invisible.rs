//! Invisible characters in the output: a byte-order mark (U+FEFF), zero-width spaces and
//! joiners, direction marks and the bidi embedding and isolate controls. A terminal shows
//! nothing for them, and the emulator keeps none that starts a row (it attaches a zero-width
//! character to the cell before it), so a result can read as text other than what the program
//! printed: `cat` of a script whose `#!` line follows a byte-order mark shows a clean `#!`
//! while running it fails. They are counted for the result, which says so.

use super::Screen;

impl Screen {
    /// Counts the invisible characters in `bytes` (output, as it arrives; one split between
    /// two reads is not counted).
    pub(super) fn note_invisible(&mut self, bytes: &[u8]) {
        let mut at = 0;
        while let Some(i) = memchr::memchr2(0xE2, 0xEF, &bytes[at..]) {
            let start = at + i;
            at = start + 1;
            if let Some(c) = invisible_at(&bytes[start..]) {
                let noted = self.invisible.get_or_insert((c, 0));
                noted.1 += 1;
                at = start + 3;
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
}
