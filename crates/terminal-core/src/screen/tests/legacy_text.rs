//! Text that is not UTF-8 (C37): lines in a legacy 8-bit or 2-byte encoding, or UTF-16, and
//! stray invalid bytes inside a line of text show as a terminal shows them, whole lines with
//! U+FFFD for the bytes that are not UTF-8, however much of it there is and however the reads
//! cut it; the binary filter never takes them for binary output.

use pretty_assertions::assert_eq;

use super::*;

/// What the PTY hands on for `output` (each newline as CR LF).
fn through_pty(output: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(output.len() * 2);
    for &b in output {
        if b == b'\n' {
            bytes.push(b'\r');
        }
        bytes.push(b);
    }
    bytes
}

/// What a UTF-8 terminal shows for `output`: U+FFFD for each byte sequence that is not
/// UTF-8, nothing for NUL bytes.
fn as_a_terminal_shows(output: &[u8]) -> String {
    let visible: Vec<u8> = output.iter().copied().filter(|&b| b != 0).collect();
    String::from_utf8_lossy(&visible).into_owned()
}

/// Feeds `printf x`, `output` as the PTY hands it on, and the prompt, cut as `cut` says:
/// `0` for one read of the whole, `1` for the command line, the output and the prompt each
/// in a read of its own, any other number for reads of that many bytes. Returns the text.
fn shown(output: &[u8], cut: usize) -> String {
    let mut s = Screen::new(config(40, 160), Some(nonce()));
    s.feed(b"dsh> ");
    let a = s.anchor();
    let mut prompt = mark("D;0");
    prompt.extend(mark("A"));
    prompt.extend(b"dsh> ");
    prompt.extend(mark("B"));
    let parts = [b"printf x\r\n".to_vec(), through_pty(output), prompt];
    match cut {
        0 => {
            s.feed(&parts.concat());
        }
        1 => {
            for part in &parts {
                s.feed(part);
            }
        }
        n => {
            for chunk in parts.concat().chunks(n) {
                s.feed(chunk);
            }
        }
    }
    s.render_since(a, 1_000_000).text
}

fn assert_shown_as_text(output: &[u8], what: &str) {
    let expected = format!("printf x\n{}dsh> ", as_a_terminal_shows(output));
    for cut in [0, 1, 3, 64, 100, 256, 4096] {
        assert_eq!(shown(output, cut), expected, "{what}, cut {cut}");
    }
}

/// UTF-16 text with characters beyond Latin-1 (their bytes are not NUL and mostly not
/// UTF-8): its NULs show as nothing and its other bytes as a terminal shows them.
#[test]
fn utf16_text_with_other_characters_shows() {
    let line: Vec<u8> = "hello wörld 中文\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    for n in [1, 2, 3, 10] {
        assert_shown_as_text(&line.repeat(n), &format!("{n} UTF-16 lines"));
    }
}
