//! Echo evidence: whether the terminal has echoed a send's input yet, which tells that the
//! line discipline has handed it all to the program reading it.

use crate::pty::TtyModes;

/// The echo a send's input is owed while the terminal echoes in canonical mode: each byte of
/// plain text (printable, TAB, CR, LF) comes back as at least one byte, so fewer output bytes
/// since the write mean the line discipline is still handing the input over, and a program
/// blocked reading the terminal has not yet read it all (a 20 KB paste into `cat > f`
/// would otherwise settle at line 198 of 200). Control characters may echo as nothing
/// (`^D`), so input holding them owes nothing; so does input to a program that turned echo
/// or canonical mode off.
pub(super) struct EchoOwed {
    /// Bytes of plain text written; 0 when nothing is owed.
    bytes: u64,
    /// Output bytes read before the write.
    read_at_write: u64,
}

impl EchoOwed {
    pub(super) fn new(input: &[u8], read_at_write: u64) -> Self {
        let plain = input
            .iter()
            .all(|&b| (b >= 0x20 && b != 0x7f) || matches!(b, b'\t' | b'\r' | b'\n'));
        Self {
            bytes: if plain { input.len() as u64 } else { 0 },
            read_at_write,
        }
    }

    /// Whether the output read so far (`read`, the session's byte count) covers the echo, or
    /// none is owed under the terminal's current `modes`.
    pub(super) fn is_paid(&self, read: u64, modes: impl FnOnce() -> Option<TtyModes>) -> bool {
        self.bytes == 0
            || read.saturating_sub(self.read_at_write) >= self.bytes
            || !modes().is_some_and(|m| m.echo && m.canonical)
    }
}

#[cfg(test)]
mod tests {
    use super::{EchoOwed, TtyModes};

    const COOKED: Option<TtyModes> = Some(TtyModes {
        echo: true,
        canonical: true,
    });

    #[test]
    fn plain_text_owes_its_echo_until_the_output_covers_it() {
        let echo = EchoOwed::new("line 1\nline 2\r".as_bytes(), 100);
        assert!(!echo.is_paid(100, || COOKED));
        assert!(!echo.is_paid(113, || COOKED));
        assert!(echo.is_paid(114, || COOKED));
        // A program that turned echo or canonical mode off (a password prompt, readline)
        // echoes what it likes: nothing is owed.
        for modes in [
            Some(TtyModes {
                echo: false,
                canonical: true,
            }),
            Some(TtyModes {
                echo: true,
                canonical: false,
            }),
            None,
        ] {
            assert!(echo.is_paid(100, || modes), "{modes:?}");
        }
    }

    #[test]
    fn control_characters_and_empty_input_owe_nothing() {
        for input in [
            &b"\x04"[..],
            b"abc\x03",
            b"\x1b[200~x\x1b[201~",
            b"\x7f",
            b"",
        ] {
            assert!(EchoOwed::new(input, 0).is_paid(0, || COOKED), "{input:?}");
        }
        // Multi-byte characters are echoed byte for byte.
        assert!(!EchoOwed::new("日本".as_bytes(), 0).is_paid(5, || COOKED));
    }
}
