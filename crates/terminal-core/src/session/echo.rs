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
    /// Line ends (`\r`, `\n`) among them: each echoes as `\r\n` while the terminal maps
    /// output newlines (`ONLCR`), so the echo is that much longer than the input.
    line_ends: u64,
    /// Output bytes read before the write.
    read_at_write: u64,
}

impl EchoOwed {
    pub(super) fn new(input: &[u8], read_at_write: u64) -> Self {
        let plain = input
            .iter()
            .all(|&b| (b >= 0x20 && b != 0x7f) || matches!(b, b'\t' | b'\r' | b'\n'));
        let line_ends = input.iter().filter(|&&b| b == b'\r' || b == b'\n').count();
        Self {
            bytes: if plain { input.len() as u64 } else { 0 },
            line_ends: if plain { line_ends as u64 } else { 0 },
            read_at_write,
        }
    }

    /// Whether the output read so far (`read`, the session's byte count) covers the echo, or
    /// none is owed under the terminal's current `modes`.
    pub(super) fn is_paid(&self, read: u64, modes: impl FnOnce() -> Option<TtyModes>) -> bool {
        let echoed = read.saturating_sub(self.read_at_write);
        if self.bytes == 0 || echoed >= self.bytes + self.line_ends {
            return true;
        }
        match modes() {
            Some(m) if m.echo && m.canonical => {
                echoed >= self.bytes + if m.crlf { self.line_ends } else { 0 }
            }
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{EchoOwed, TtyModes};

    const COOKED: Option<TtyModes> = Some(TtyModes {
        echo: true,
        canonical: true,
        crlf: true,
    });

    #[test]
    fn plain_text_owes_its_echo_until_the_output_covers_it() {
        let echo = EchoOwed::new("line 1\nline 2\r".as_bytes(), 100);
        assert!(!echo.is_paid(100, || COOKED));
        // 14 bytes, two of them line ends that echo as `\r\n`.
        assert!(!echo.is_paid(114, || COOKED));
        assert!(!echo.is_paid(115, || COOKED));
        assert!(echo.is_paid(116, || COOKED));
        // Without ONLCR a line end echoes as one byte.
        let no_crlf = Some(TtyModes {
            echo: true,
            canonical: true,
            crlf: false,
        });
        assert!(echo.is_paid(114, || no_crlf));
        // A program that turned echo or canonical mode off (a password prompt, readline)
        // echoes what it likes: nothing is owed.
        for modes in [
            Some(TtyModes {
                echo: false,
                canonical: true,
                crlf: true,
            }),
            Some(TtyModes {
                echo: true,
                canonical: false,
                crlf: true,
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
