//! Flood lines: plain output that is not emulated until something looks at the screen.
//!
//! Most of a flood (`cat` of a log, `yes`, `seq`) is lines of printable ASCII ended by
//! `\r\n`, written at the bottom of a screen that has nothing below the cursor. Emulating each
//! of them is wasted work: only the last screenful can ever be shown, every earlier line only
//! ends up as a history row. So while the screen is in that plain state, such lines are kept
//! here as text; once more than a screenful is pending, the screen moves the oldest lines
//! straight into history (after the rows the emulator still shows), and the emulator is only
//! fed the last screenful when the screen is next read or non-plain output arrives. The
//! result is the same screen, history and wrap flags as emulating every byte.

use std::collections::VecDeque;

use super::classes::first_unprintable;

/// Pending rows beyond a screenful that trigger moving lines into history.
pub(crate) const FLOOD_BATCH_ROWS: usize = 1024;

/// Most printable text kept pending after the last complete line. A longer line (output
/// that never ends its line: `tr -d '\n'`, a minified file) leaves the flood path at this
/// point and the emulator wraps the rest into rows, so a line of any length costs bounded
/// memory.
const PARTIAL_MAX_BYTES: usize = 64 * 1024;

/// Capacity the pending text and line ends keep once drained: a flood grows them to about a
/// batch of rows, which an idle session should not go on holding.
const KEEP_CAPACITY: usize = 4096;

/// Plain lines not yet fed to the emulator.
#[derive(Debug, Default)]
pub(crate) struct Flood {
    /// The text of the complete lines (without their `\r\n`), back to back from `head`.
    text: String,
    /// Where the oldest pending line starts in `text`.
    head: usize,
    /// End offset in `text` of each complete line, oldest first.
    ends: VecDeque<usize>,
    /// Screen rows the complete lines take.
    pub(crate) rows: usize,
    /// Printable text after the last complete line.
    pub(crate) partial: String,
    /// A `\r` followed `partial` (a `\n` completes the line).
    pub(crate) cr: bool,
    /// The emulator's rows were already moved into history: its screen must be cleared
    /// before the pending lines are fed.
    pub(crate) stale: bool,
}

impl Flood {
    /// Whether anything is pending.
    pub(crate) fn is_empty(&self) -> bool {
        self.ends.is_empty() && self.partial.is_empty() && !self.cr && !self.stale
    }

    /// Takes the leading plain bytes of `bytes` (printable ASCII and `\r\n`); returns how many
    /// it took. A lone `\r` stays pending until the next byte shows whether `\n` follows.
    pub(crate) fn take(&mut self, bytes: &[u8], cols: u16) -> usize {
        let mut i = 0;
        while i < bytes.len() {
            if self.cr {
                if bytes[i] != b'\n' {
                    return i;
                }
                self.rows += rows_of(self.partial.len(), cols);
                self.text.push_str(&self.partial);
                self.ends.push_back(self.text.len());
                self.partial.clear();
                self.cr = false;
                i += 1;
                continue;
            }
            let run = first_unprintable(&bytes[i..]).unwrap_or(bytes.len() - i);
            if self.partial.is_empty() && bytes[i + run..].starts_with(b"\r\n") {
                // A whole line in the chunk: straight into the pending text.
                if let Ok(line) = std::str::from_utf8(&bytes[i..i + run]) {
                    self.rows += rows_of(line.len(), cols);
                    self.text.push_str(line);
                    self.ends.push_back(self.text.len());
                }
                i += run + 2;
                continue;
            }
            if run > 0 {
                let room = PARTIAL_MAX_BYTES.saturating_sub(self.partial.len());
                if room == 0 {
                    return i;
                }
                let run = run.min(room);
                // Printable ASCII is valid UTF-8.
                if let Ok(text) = std::str::from_utf8(&bytes[i..i + run]) {
                    self.partial.push_str(text);
                }
                i += run;
                continue;
            }
            if bytes[i] == b'\r' {
                self.cr = true;
                i += 1;
                continue;
            }
            return i;
        }
        i
    }

    /// The oldest pending line, if any.
    pub(crate) fn front(&self) -> Option<&str> {
        let end = *self.ends.front()?;
        self.text.get(self.head..end)
    }

    /// Drops the oldest pending line (after it was moved into history).
    pub(crate) fn pop_front(&mut self, cols: u16) {
        if let Some(end) = self.ends.pop_front() {
            self.rows -= rows_of(end - self.head, cols);
            self.head = end;
            if self.head > self.text.len() / 2 && self.head > 4096 {
                self.text.drain(..self.head);
                for end in &mut self.ends {
                    *end -= self.head;
                }
                self.head = 0;
            }
        }
    }

    /// The bytes the emulator must be fed to catch up, and resets to empty.
    pub(crate) fn drain_bytes(&mut self) -> Vec<u8> {
        let mut buf = Vec::new();
        if std::mem::take(&mut self.stale) {
            // Cursor home and erase the screen: its rows are already in history.
            buf.extend_from_slice(b"\x1b[H\x1b[2J");
        }
        let mut start = self.head;
        for end in self.ends.drain(..) {
            buf.extend_from_slice(&self.text.as_bytes()[start..end]);
            buf.extend_from_slice(b"\r\n");
            start = end;
        }
        self.text.clear();
        self.text.shrink_to(KEEP_CAPACITY);
        self.ends.shrink_to(KEEP_CAPACITY / 8);
        self.head = 0;
        buf.extend_from_slice(self.partial.as_bytes());
        self.partial.clear();
        if std::mem::take(&mut self.cr) {
            buf.push(b'\r');
        }
        self.rows = 0;
        buf
    }
}

/// Screen rows a line of `len` single-cell characters takes on `cols` columns.
pub(crate) fn rows_of(len: usize, cols: u16) -> usize {
    let cols = usize::from(cols.max(1));
    len.div_ceil(cols).max(1)
}

/// Splits a line of single-cell characters into rows of `cols`: `(text, wrapped)`.
pub(crate) fn split_rows(line: &str, cols: u16) -> impl Iterator<Item = (&str, bool)> {
    let cols = usize::from(cols.max(1));
    let n = rows_of(line.len(), cols as u16);
    (0..n).map(move |k| {
        let end = ((k + 1) * cols).min(line.len());
        (line.get(k * cols..end).unwrap_or_default(), k + 1 < n)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_plain_lines_and_stops_at_anything_else() {
        let mut f = Flood::default();
        assert_eq!(f.take(b"abc\r\ndef\r", 80), 9);
        assert_eq!(f.ends.len(), 1);
        assert!(f.cr);
        assert_eq!(f.take(b"\nxy\x1b[m", 80), 3);
        assert_eq!(f.ends.len(), 2);
        assert_eq!(f.front(), Some("abc"));
        assert_eq!(f.partial, "xy");
        assert_eq!(f.take(b"\r!", 80), 1);
        assert_eq!(f.drain_bytes(), b"abc\r\ndef\r\nxy\r".to_vec());
        assert!(f.is_empty());
    }

    #[test]
    fn a_line_that_never_ends_stops_taking_at_the_bound() {
        let mut f = Flood::default();
        let chunk = vec![b'a'; 48 * 1024];
        assert_eq!(f.take(&chunk, 80), chunk.len());
        assert_eq!(f.take(&chunk, 80), PARTIAL_MAX_BYTES - chunk.len());
        assert_eq!(f.partial.len(), PARTIAL_MAX_BYTES);
        assert_eq!(f.take(&chunk, 80), 0);
        assert_eq!(f.drain_bytes().len(), PARTIAL_MAX_BYTES);
    }

    #[test]
    fn rows_and_splits() {
        assert_eq!(rows_of(0, 4), 1);
        assert_eq!(rows_of(4, 4), 1);
        assert_eq!(rows_of(5, 4), 2);
        let rows: Vec<_> = split_rows("abcdefghij", 4).collect();
        assert_eq!(rows, vec![("abcd", true), ("efgh", true), ("ij", false)]);
        let rows: Vec<_> = split_rows("abcd", 4).collect();
        assert_eq!(rows, vec![("abcd", false)]);
    }
}
