//! UTF-8 on its way into the emulator, so U+FFFD survives.
//!
//! The emulator drops every U+FFFD it decodes, which is both what it makes of invalid bytes
//! and a real character a program may print. Before bytes reach it, [`Decoder::decode`]
//! replaces both with [`STAND_IN`] (a width-1 private-use character the emulator keeps), and
//! [`restore`] turns it back into U+FFFD where rows become text. So a program's own U+FFFD
//! comes through, and invalid bytes show as U+FFFD, as on a terminal. A character split across
//! chunks is held back until the next chunk completes it (the emulator would wait for it
//! anyway). A program that prints [`STAND_IN`] itself sees U+FFFD instead.

use std::borrow::Cow;

/// Stands in for U+FFFD inside the emulator: the last character of Supplementary Private Use
/// Area-B, one cell wide.
pub(super) const STAND_IN: char = '\u{10FFFD}';

const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();

/// Carries an incomplete character from one chunk to the next.
#[derive(Clone, Debug, Default)]
pub(super) struct Decoder {
    held: Vec<u8>,
    /// An invalid sequence was decoded since [`Decoder::take_invalid`] last cleared it (a
    /// program's own U+FFFD does not count).
    invalid: bool,
}

impl Decoder {
    /// The bytes to give the emulator for `bytes`: valid text as is, U+FFFD and each invalid
    /// sequence as [`STAND_IN`], an incomplete character at the end held for the next call.
    pub(super) fn decode<'a>(&mut self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        if self.held.is_empty() && bytes.is_ascii() {
            return Cow::Borrowed(bytes);
        }
        let joined: Cow<'_, [u8]> = if self.held.is_empty() {
            Cow::Borrowed(bytes)
        } else {
            let mut v = std::mem::take(&mut self.held);
            v.extend_from_slice(bytes);
            Cow::Owned(v)
        };
        let mut out = Vec::with_capacity(joined.len());
        let mut rest: &[u8] = &joined;
        let mut stand_in = [0u8; 4];
        let stand_in = STAND_IN.encode_utf8(&mut stand_in).as_bytes();
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    push_replacing(&mut out, valid.as_bytes(), stand_in);
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    push_replacing(&mut out, valid, stand_in);
                    match e.error_len() {
                        Some(n) => {
                            self.invalid = true;
                            out.extend_from_slice(stand_in);
                            rest = &after[n..];
                        }
                        None => {
                            self.held = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        if out == *joined {
            return match joined {
                Cow::Borrowed(b) => Cow::Borrowed(b),
                Cow::Owned(v) => Cow::Owned(v),
            };
        }
        Cow::Owned(out)
    }

    /// Whether bytes that are not UTF-8 were decoded (as U+FFFD) since the last call; clears
    /// the flag.
    fn take_invalid(&mut self) -> bool {
        std::mem::take(&mut self.invalid)
    }
}

impl super::Screen {
    /// Whether output bytes that are not UTF-8 (shown as U+FFFD) reached the screen since the
    /// last call (text in Latin-1 or another 8-bit encoding); clears the flag. Binary runs the
    /// screen suppresses do not count, nor a program's own U+FFFD.
    pub(crate) fn take_undecodable(&mut self) -> bool {
        self.decoder.take_invalid()
    }
}

fn push_replacing(out: &mut Vec<u8>, valid: &[u8], stand_in: &[u8]) {
    let mut rest = valid;
    while let Some(at) = find(rest, REPLACEMENT) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(stand_in);
        rest = &rest[at + REPLACEMENT.len()..];
    }
    out.extend_from_slice(rest);
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `text` with every [`STAND_IN`] turned back into U+FFFD, every
/// [`super::conceal::WIDE_BLANK`] into the two blanks it stands for, and every
/// [`super::presentation::VS16_STAND_IN`] into the U+FE0F it stands for.
pub(super) fn restore(text: &str) -> Cow<'_, str> {
    use super::conceal::WIDE_BLANK;
    use super::presentation::VS16_STAND_IN;
    // ASCII (most rows) cannot hold a stand-in; `is_ascii` tests words at a time.
    if text.is_ascii() || !text.contains([STAND_IN, WIDE_BLANK, VS16_STAND_IN]) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.replace(STAND_IN, "\u{FFFD}")
            .replace(WIDE_BLANK, "  ")
            .replace(VS16_STAND_IN, "\u{FE0F}"),
    )
}

#[cfg(test)]
mod tests {
    use super::super::Screen;
    use super::*;

    fn decode_all(chunks: &[&[u8]]) -> String {
        let mut d = Decoder::default();
        let mut out = Vec::new();
        for c in chunks {
            out.extend_from_slice(&d.decode(c));
        }
        restore(&String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"))).into_owned()
    }

    #[test]
    fn replacement_and_invalid_bytes_become_the_stand_in() {
        let cases: &[(&[&[u8]], &str)] = &[
            (&[b"plain"], "plain"),
            (&["é中😀".as_bytes()], "é中😀"),
            (&[b"a\xef\xbf\xbdb"], "a\u{fffd}b"),
            (&[b"a\xef", b"\xbf", b"\xbdb"], "a\u{fffd}b"),
            (&[b"a\xffb"], "a\u{fffd}b"),
            (&[b"a\xc3(b"], "a\u{fffd}(b"),
            (&[b"h\xc3", b"\xa9llo"], "h\u{e9}llo"),
            (&[b"x\xe4\xb8", b"\xad"], "x中"),
        ];
        for (chunks, expected) in cases {
            assert_eq!(decode_all(chunks), *expected, "{chunks:?}");
        }
    }

    #[test]
    fn only_bytes_that_are_not_utf8_count_as_undecodable() {
        let cases: &[(&[&[u8]], bool)] = &[
            (&[b"plain"], false),
            (&["\u{fffd} \u{e9}".as_bytes()], false),
            (&[b"h\xc3", b"\xa9llo"], false),
            (&[b"caf\xe9\n"], true),
            (&[b"ok", b"\xff"], true),
        ];
        for (chunks, expected) in cases {
            let mut d = Decoder::default();
            for c in *chunks {
                d.decode(c);
            }
            assert_eq!(d.take_invalid(), *expected, "{chunks:?}");
            assert!(!d.take_invalid(), "cleared: {chunks:?}");
        }
    }

    fn screen() -> Screen {
        super::super::tests::plain_screen()
    }

    #[test]
    fn a_programs_own_replacement_character_comes_through() {
        let mut s = screen();
        let a = s.anchor();
        s.feed("a\u{fffd}b\r\n\u{fffd}\r\n".as_bytes());
        // Split across chunks, and scrolled into history.
        s.feed(b"x\xef\xbf");
        s.feed(b"\xbdy\r\n");
        for i in 0..30 {
            s.feed(format!("line {i}\r\n").as_bytes());
        }
        let t = s.transcript();
        assert!(t.starts_with("a\u{fffd}b\n\u{fffd}\nx\u{fffd}y\n"), "{t:?}");
        assert!(s.render_since(a, 4096).text.starts_with("a\u{fffd}b\n"));
    }

    #[test]
    fn valid_text_without_replacement_is_borrowed() {
        let mut d = Decoder::default();
        assert!(matches!(d.decode("é ok".as_bytes()), Cow::Borrowed(_)));
        assert!(matches!(restore("no stand-in"), Cow::Borrowed(_)));
    }
}
