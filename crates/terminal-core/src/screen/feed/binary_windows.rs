//! [`Screen::feed`] through the binary filter: output judged window by window, text fed on,
//! binary runs counted instead of emulated, and the summary line of a suppressed run put on the
//! screen once text resumes.

use super::super::binary::Verdict;
use super::super::{FeedOutcome, Screen};

impl Screen {
    /// [`Screen::feed`] through the binary filter, window by window.
    pub(super) fn feed_judged(&mut self, bytes: &[u8], out: &mut FeedOutcome) {
        let held = self.binary.take_held();
        let joined;
        let mut rest = if held.is_empty() {
            bytes
        } else {
            joined = [held.as_slice(), bytes].concat();
            joined.as_slice()
        };
        // `rest[..text]` is judged text not yet fed.
        let mut text = 0;
        while text < rest.len() {
            let was_suppressing = self.binary.suppressing();
            let verdict = self.binary.judge(&rest[text..]);
            if let Verdict::Text(n) = verdict {
                text += n;
                continue;
            }
            if text > 0 {
                self.note_invisible(&rest[..text]);
                self.feed_text(&rest[..text], out);
                rest = &rest[text..];
                text = 0;
            }
            match verdict {
                Verdict::Binary(n) => {
                    if !was_suppressing {
                        self.ground_emulator();
                    }
                    self.note_text(out);
                    rest = &rest[n..];
                }
                Verdict::EndOfBinary => self.flush_binary(out),
                Verdict::Hold => {
                    self.binary.hold(rest);
                    rest = &[];
                }
                Verdict::Text(_) => {}
            }
        }
        if text > 0 {
            self.note_invisible(&rest[..text]);
            self.feed_text(&rest[..text], out);
        }
    }

    /// Ends any escape sequence the emulator and the scanner are in (CAN), before bytes are
    /// withheld from them.
    fn ground_emulator(&mut self) {
        self.materialize_flood();
        self.scanner.step(0x18);
        self.emulate(b"\x18");
    }

    /// Puts the summary line of suppressed binary output on the screen, on a row of its own
    /// (on the alternate screen, whose rows render one by one, broken between words).
    pub(in crate::screen) fn flush_binary(&mut self, out: &mut FeedOutcome) {
        if let Some(summary) = self.binary.take_summary_line() {
            self.materialize_flood();
            let mut line = Vec::new();
            if self.parser.screen().cursor_position().1 != 0 {
                line.extend_from_slice(b"\r\n");
            }
            if self.alternate {
                line.extend(break_between_words(&summary, self.config.cols));
            } else {
                line.extend_from_slice(summary.as_bytes());
            }
            line.extend_from_slice(b"\r\n");
            self.unconcealed(|s| s.feed_text(&line, out));
        }
    }
}

/// `line` (ASCII) as rows of at most `cols` bytes, each row ended with CR LF but the last,
/// broken at the last space that fits (a word longer than a row is cut where the row ends):
/// the alternate screen keeps no soft wraps to join a long line again, and a word cut in two
/// reads as two words.
fn break_between_words(line: &str, cols: u16) -> Vec<u8> {
    let cols = usize::from(cols.max(1));
    let mut out = Vec::with_capacity(line.len() + 8);
    let mut rest = line.as_bytes();
    while rest.len() > cols {
        let (row, next) = match rest[..=cols].iter().rposition(|&b| b == b' ') {
            Some(space) if space > 0 => (&rest[..space], &rest[space + 1..]),
            _ => rest.split_at(cols),
        };
        out.extend_from_slice(row);
        out.extend_from_slice(b"\r\n");
        rest = next;
    }
    out.extend_from_slice(rest);
    out
}
