//! Concealed text (SGR 8, ECMA-48's "concealed characters"). xterm draws the characters
//! written while the attribute is on as blanks: the cells are written and the cursor moves on
//! as usual, but nothing in them is visible (a password a program echoes concealed, say).
//! vt100 keeps no such attribute, so while it is on the printed characters are replaced by
//! blanks on their way into the emulator (the bytes of escape sequences stay as they are), as
//! [`super::line_drawing`] translates DEC line drawing: the screen, and every row that
//! scrolls into history, holds blanks where the text was.
//!
//! The attribute follows xterm:
//! - SGR 8 sets it, SGR 28 clears it, and so does SGR 0 (also an empty or missing parameter:
//!   `CSI m`). The parameters of one SGR count in order (`CSI 8 ; 0 m` leaves it off).
//! - A colour takes the parameters after it as its own: `38 ; 5 ; n` and `48 ; 5 ; n` one
//!   index, `38 ; 2 ; r ; g ; b` three components, and in the colon form (`38 : 5 : 8`) all
//!   its sub-parameters; none of them is an SGR 8. Any other parameter with sub-parameters
//!   ends the SGR there (xterm does not interpret the rest).
//! - A private SGR-like sequence (`CSI > 4 ; 2 m`) is no SGR.
//! - Saving the cursor (DECSC `ESC 7`, `CSI s`, modes 1048 and 1049 set) saves the attribute
//!   too, per screen, and restoring the cursor restores it (off if none was saved); a full
//!   reset (RIS `ESC c`) or a soft reset (DECSTR `CSI ! p`) clears it.
//!
//! Left as is: a REP (`CSI b`) after the attribute went off repeats a blank (xterm repeats
//! the character, shown); a combining mark printed shown after a concealed character joins
//! its blank; and concealed cells at a row's end are written blanks, as printed spaces are.
//!
//! Only while the attribute is on does any of this cost per byte: the scanner reads each
//! SGR's parameters as it reads any sequence's, and the emulator's input is translated only
//! while the attribute is on. Flood lines never start while it is on (it is one of the
//! [`super::feed::modes`]).

use std::borrow::Cow;

use unicode_width::UnicodeWidthChar as _;

use super::Screen;
use super::feed::modes;
use super::scan::{EscScanner, Sequence, Step};

/// Stands in for a concealed wide character inside the emulator: a character two columns
/// wide (the last of Plane 3, unassigned), so that it wraps at the last column and is
/// overwritten as the character would be, which rows turn into two blanks where they become
/// text ([`super::utf8::restore`]). A program that prints it itself sees two blanks.
pub(super) const WIDE_BLANK: char = '\u{3FFFD}';

/// What the parameters of one SGR do to the conceal attribute, read one parameter at a time
/// (see the [module docs](self) for the rules).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SgrConceal {
    /// Set (`Some(true)`) or cleared (`Some(false)`) by the parameters so far.
    effect: Option<bool>,
    /// The next parameter is the kind of a colour (`5` or `2` after `38 ;` or `48 ;`).
    colour_kind_next: bool,
    /// Parameters still to come that are a colour's index or components.
    colour_values: u8,
    /// A parameter with sub-parameters that is no colour ended the SGR.
    ended: bool,
}

impl SgrConceal {
    /// The next parameter (not a sub-parameter) is `value`; `has_subs`: sub-parameters
    /// follow it (`38:5:8`).
    pub(super) fn param(&mut self, value: u16, has_subs: bool) {
        if self.ended {
            return;
        }
        if std::mem::take(&mut self.colour_kind_next) {
            if !has_subs {
                self.colour_values = match value {
                    5 => 1,
                    2 => 3,
                    _ => 0,
                };
            }
            return;
        }
        if self.colour_values > 0 {
            self.colour_values -= 1;
            return;
        }
        if has_subs {
            self.ended = !matches!(value, 38 | 48);
            return;
        }
        match value {
            0 | 28 => self.effect = Some(false),
            8 => self.effect = Some(true),
            38 | 48 => self.colour_kind_next = true,
            _ => {}
        }
    }

    /// What the SGR did, once all its parameters were read.
    pub(super) fn effect(&self) -> Option<bool> {
        self.effect
    }
}

/// The conceal attribute's translation and saved states.
#[derive(Clone, Debug)]
pub(super) struct Conceal {
    /// Tracks escape sequences in what the emulator gets while the attribute is on.
    scanner: EscScanner,
    /// The attribute saved with the cursor of the main screen (`[0]`) and of the alternate
    /// screen (`[1]`).
    saved: [bool; 2],
    /// Characters other than spaces blanked since the last [`Screen::take_concealed`].
    blanked: u64,
}

impl Default for Conceal {
    fn default() -> Self {
        Self {
            scanner: EscScanner::new(usize::MAX),
            saved: [false; 2],
            blanked: 0,
        }
    }
}

impl Conceal {
    /// `bytes` (UTF-8, on their way into the emulator while the attribute is on) with each
    /// printed character replaced by a blank as wide as it: a space for a narrow one,
    /// [`WIDE_BLANK`] for a wide one; a zero-width one (a combining mark) is left out.
    fn translate<'a>(&mut self, bytes: Cow<'a, [u8]>) -> Cow<'a, [u8]> {
        let mut wide_blank = [0; 4];
        let wide_blank = WIDE_BLANK.encode_utf8(&mut wide_blank).as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let len = utf8_len(bytes[i]).min(bytes.len() - i);
            let step = self.scanner.step(bytes[i]);
            for &b in &bytes[i + 1..i + len] {
                self.scanner.step(b);
            }
            let text = &bytes[i..i + len];
            let width = (step == Step::Text)
                .then(|| std::str::from_utf8(text).ok()?.chars().next()?.width())
                .flatten();
            if width.is_some_and(|w| w > 0) && text != b" " {
                self.blanked += 1;
            }
            match width {
                Some(0) => {}
                Some(1) => out.push(b' '),
                Some(_) => out.extend_from_slice(wide_blank),
                None => out.extend_from_slice(text),
            }
            i += len;
        }
        Cow::Owned(out)
    }
}

/// The length of the UTF-8 character that starts with `lead` (1 for any other byte).
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

impl Screen {
    /// The printed text of `bytes` as the emulator is to get it: drawn from DEC line drawing
    /// while that is designated ([`super::line_drawing`]), then blank while concealed.
    pub(super) fn translate_text<'a>(&mut self, bytes: Cow<'a, [u8]>) -> Cow<'a, [u8]> {
        let bytes = if self.line_drawing.designated_anywhere() {
            let bytes = self.line_drawing.translate(bytes);
            // SO or SI in the text may have switched the set in or out.
            if self.line_drawing.active() {
                self.modes |= modes::CHARSET;
            } else {
                self.modes &= !modes::CHARSET;
            }
            bytes
        } else {
            bytes
        };
        if self.modes & modes::CONCEAL == 0 {
            return bytes;
        }
        self.conceal.translate(bytes)
    }

    /// How many characters (spaces aside) were printed concealed, and so show as blanks,
    /// since the last call; clears the count.
    pub(crate) fn take_concealed(&mut self) -> u64 {
        std::mem::take(&mut self.conceal.blanked)
    }

    /// Whether the conceal attribute is on.
    pub(super) fn concealed(&self) -> bool {
        self.modes & modes::CONCEAL != 0
    }

    /// Turns the conceal attribute on or off, right after the emulator got a whole sequence
    /// (no sequence is in progress there).
    pub(super) fn set_concealed(&mut self, on: bool) {
        if on && !self.concealed() {
            self.conceal.scanner = EscScanner::new(usize::MAX);
        }
        if on {
            self.modes |= modes::CONCEAL;
        } else {
            self.modes &= !modes::CONCEAL;
        }
    }

    /// Before the emulator gets the end of `seq` (on the alternate screen when `alternate`):
    /// a cursor save saves the attribute with it, in that screen's slot.
    pub(super) fn conceal_before_sequence(&mut self, seq: Sequence, alternate: bool) {
        if super::compat::saves_cursor(seq, self.compat_state()) {
            self.conceal.saved[usize::from(alternate)] = self.concealed();
        }
    }

    /// After the emulator carried out `seq`: a cursor restore restores the attribute (mode
    /// 1049 the main screen's), a reset clears it.
    pub(super) fn conceal_after_sequence(&mut self, seq: Sequence) {
        let alternate = self.parser.screen().alternate_screen();
        let plain = seq.private.is_none() && seq.intermediate.is_none();
        let restored = match (seq.csi, seq.final_byte) {
            (false, b'8') if seq.intermediate.is_none() => Some(alternate),
            (true, b'u') if plain => Some(alternate),
            (true, b'l') if seq.has_dec_mode(1049) => Some(false),
            (true, b'l') if seq.has_dec_mode(1048) => Some(alternate),
            _ => None,
        };
        if let Some(slot) = restored {
            self.set_concealed(self.conceal.saved[usize::from(slot)]);
        }
        let reset = match (seq.csi, seq.final_byte) {
            (false, b'c') => seq.intermediate.is_none(),
            (true, b'p') => seq.private.is_none() && seq.intermediate == Some(b'!'),
            _ => false,
        };
        if reset {
            self.set_concealed(false);
            if !seq.csi {
                self.conceal.saved = [false; 2];
            }
        }
    }

    /// Runs `write`, which puts text of the screen's own on it (the summary of a binary run,
    /// what a program left on the alternate screen): that text shows whatever attribute the
    /// program's output left on.
    pub(super) fn unconcealed<R>(&mut self, write: impl FnOnce(&mut Self) -> R) -> R {
        let was = self.concealed();
        self.set_concealed(false);
        let result = write(self);
        // Flood lines taken meanwhile are the screen's text too.
        self.materialize_flood();
        self.set_concealed(was);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn effect(params: &[(u16, bool)]) -> Option<bool> {
        let mut sgr = SgrConceal::default();
        for &(value, has_subs) in params {
            sgr.param(value, has_subs);
        }
        sgr.effect()
    }

    #[test]
    fn the_wide_blank_is_two_columns_wide() {
        assert_eq!(WIDE_BLANK.width(), Some(2));
        assert_eq!(super::super::utf8::restore("a\u{3FFFD}b"), "a  b");
    }

    #[test]
    fn sgr_parameters_are_read_as_xterm_reads_them() {
        assert_eq!(effect(&[(8, false)]), Some(true));
        assert_eq!(effect(&[(1, false), (8, false), (0, false)]), Some(false));
        assert_eq!(effect(&[(38, false), (5, false), (8, false)]), None);
        assert_eq!(
            effect(&[(38, false), (5, false), (1, false), (8, false)]),
            Some(true)
        );
        assert_eq!(
            effect(&[(48, false), (2, false), (8, false), (8, false), (8, false)]),
            None
        );
        assert_eq!(effect(&[(38, true), (8, false)]), Some(true));
        assert_eq!(effect(&[(38, false), (9, false), (8, false)]), Some(true));
        assert_eq!(effect(&[(4, true), (8, false)]), None);
        assert_eq!(effect(&[(8, false), (4, true), (28, false)]), Some(true));
    }
}
