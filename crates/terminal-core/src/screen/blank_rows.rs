//! Which visible rows are known to hold nothing, kept up to date without rendering.
//!
//! vt100 keeps no summary of a row: telling a blank row from one with text walks all of its
//! cells. A send renders the rows from the cursor down more than once (the record of text an
//! earlier program left below the cursor, the check whether plain lines may skip the
//! emulator, the result), and on a screen the shell has not filled yet most of them are
//! blank. [`BlankRows`] knows a row from which every visible row down is blank:
//! - a new screen is blank from its first row;
//! - bytes that can only move the cursor right or down (text, `\r`, `\n`, TAB, backspace,
//!   SGR, erasing, inserting or deleting within a row, OSC and other strings) write on no
//!   row below the one the cursor ends on, so the rows below it that were blank stay blank
//!   (scrolling only brings blank rows in at the bottom);
//! - any other sequence (a cursor move, a scroll region, a screen switch, a reset) makes it
//!   unknown until a render of the rows from some row to the bottom finds it again.
//!
//! It scans exactly the bytes the emulator is given, with the scanner that mirrors the
//! emulator's parser, so a sequence split across chunks is classified when it ends.

use std::cell::Cell;

use super::scan::{EscScanner, Sequence, Step};

/// See the [module docs](self).
#[derive(Debug)]
pub(super) struct BlankRows {
    /// Every visible row from this one down holds nothing (`None`: not known).
    from: Cell<Option<u16>>,
    /// In lock-step with the emulator's parser, over the bytes it was given.
    scanner: EscScanner,
    /// How many sequences so far may have moved the cursor above its row or written there
    /// (see [`BlankRows::jumps`]).
    jumps: u64,
}

impl BlankRows {
    /// For a new, blank screen.
    pub(super) fn new() -> Self {
        Self {
            from: Cell::new(Some(0)),
            // The emulator gets every OSC byte the feed lets through: none is skipped here.
            scanner: EscScanner::new(usize::MAX),
            jumps: 0,
        }
    }

    /// How many sequences the emulator was given so far that may move the cursor above its
    /// row or write there (a cursor move, a scroll region, a screen switch): a frame redrawn
    /// from the top (`top`) has one; a progress line redrawn with `\r` has none.
    pub(super) fn jumps(&self) -> u64 {
        self.jumps
    }

    /// The first row of the blank rows at the bottom, when known.
    pub(super) fn from(&self) -> Option<u16> {
        self.from.get()
    }

    /// Steps over `bytes`, just before the emulator is given them: any sequence that may
    /// write or move the cursor above the cursor's row makes the blank rows unknown.
    pub(super) fn before_emulate(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if let Step::SequenceEnd { .. } = self.scanner.step(b)
                && !keeps_rows_below(self.scanner.last_sequence())
            {
                self.from.set(None);
                self.jumps += 1;
            }
        }
    }

    /// Just after the emulator processed the bytes, with the cursor on `cursor_row`: the rows
    /// below it that were blank still are.
    pub(super) fn after_emulate(&self, cursor_row: u16) {
        if let Some(from) = self.from.get() {
            self.from.set(Some(from.max(cursor_row.saturating_add(1))));
        }
    }

    /// A render of the visible rows from `first` to the bottom found `last_text` the last of
    /// them with anything in it (`None`: all blank).
    pub(super) fn found(&self, first: u16, last_text: Option<u16>) {
        self.from
            .set(Some(last_text.map_or(first, |r| r.saturating_add(1))));
    }
}

/// Whether `seq` leaves the cursor on its row or below and writes nowhere else: SGR, erasing
/// (in the line, the display, characters), inserting or deleting characters within the row,
/// device queries, modes that move nothing (cursor keys and visibility, autowrap, mouse
/// reports, bracketed paste), the end of an OSC or other string (by BEL, `ESC \`, CAN or SUB),
/// a character set designation (`ESC ( B`, part of `tput sgr0`), keypad modes and saving the
/// cursor (restoring it is a move).
fn keeps_rows_below(seq: Sequence) -> bool {
    if seq.csi {
        match seq.final_byte {
            b'm' | b'K' | b'J' | b'X' | b'@' | b'P' | b'n' | b'c' => true,
            b'h' | b'l' => {
                seq.private == Some(b'?')
                    && !seq.more_params
                    && matches!(seq.first_param, 1 | 7 | 12 | 25 | 1000..=1006 | 1015 | 2004)
            }
            _ => false,
        }
    } else {
        match seq.intermediate {
            None => matches!(seq.final_byte, 0 | b'\\' | b'7' | b'=' | b'>'),
            Some(b'(' | b')' | b'*' | b'+') => true,
            Some(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(bytes: &[u8], cursor_row: u16) -> Option<u16> {
        let mut blank = BlankRows::new();
        blank.found(0, Some(4));
        blank.before_emulate(bytes);
        blank.after_emulate(cursor_row);
        blank.from()
    }

    #[test]
    fn text_and_row_local_sequences_keep_the_rows_below_the_cursor() {
        assert_eq!(after(b"ls\r\nfile\r\n", 7), Some(8));
        assert_eq!(
            after(b"\x1b[1;31mred\x1b[0m\x1b[K\x1b[2X\x1b[P\x1b[@\x08\t", 2),
            Some(5)
        );
        assert_eq!(after(b"\x1b]133;D;0\x07\x1b]0;title\x1b\\", 3), Some(5));
        assert_eq!(after(b"\x1b[2J", 0), Some(5));
        assert_eq!(
            after(b"\x1b(B\x1b[m\x1b[?25l\x1b[?2004h\x1b=\x1b7", 1),
            Some(5)
        );
    }

    #[test]
    fn moves_screens_and_resets_make_them_unknown() {
        for bytes in [
            &b"\x1b[A"[..],
            b"\x1b[H",
            b"\x1b[5;1H",
            b"\x1bM",
            b"\x1b8",
            b"\x1b[?1049h",
            b"\x1b[2;10r",
            b"\x1bc",
            b"\x1b[L",
            b"\x1b[T",
            b"\x1b[?6h",
            b"\x1b[?1047h",
            b"\x1b[?25;1049h",
            b"\x1b#8",
            b"\x1b[3;1f",
            b"\x1b[5d",
        ] {
            assert_eq!(after(bytes, 9), None, "{bytes:?}");
        }
    }

    #[test]
    fn a_sequence_split_across_chunks_is_classified_when_it_ends() {
        let mut blank = BlankRows::new();
        blank.before_emulate(b"x\x1b[3");
        blank.after_emulate(0);
        assert_eq!(blank.from(), Some(1));
        blank.before_emulate(b"A");
        blank.after_emulate(0);
        assert_eq!(blank.from(), None);
        // Unknown until a render finds the blank rows again.
        blank.before_emulate(b"text\r\n");
        blank.after_emulate(1);
        assert_eq!(blank.from(), None);
        blank.found(0, None);
        assert_eq!(blank.from(), Some(0));
    }
}
