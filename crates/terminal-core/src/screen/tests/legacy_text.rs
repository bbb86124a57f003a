//! Text that is not UTF-8 (C37): lines in a legacy 8-bit or 2-byte encoding, or UTF-16, and
//! stray invalid bytes inside a line of text show as a terminal shows them, whole lines with
//! U+FFFD for the bytes that are not UTF-8, however much of it there is and however the reads
//! cut it; the binary filter never takes them for binary output.

use pretty_assertions::assert_eq;

use super::*;

/// German in Latin-1, the tester's line.
const GERMAN: &[u8] = b"Gr\xf6\xdfe \xc4pfel \xdcberm\xe4\xdfig Gr\xf6\xdfenwahn \xd6l s\xfc\xdf\n";
/// Russian in cp1251.
const RUSSIAN: [&[u8]; 3] = [
    b"\xcf\xf0\xe8\xe2\xe5\xf2, \xea\xe0\xea \xe4\xe5\xeb\xe0? \xdd\xf2\xee \xf2\xe5\xf1\xf2.\n",
    b"\xd1\xfa\xe5\xf8\xfc \xe6\xe5 \xe5\xf9\xb8 \xfd\xf2\xe8\xf5 \xec\xff\xe3\xea\xe8\xf5 \xf4\xf0\xe0\xed\xf6\xf3\xe7\xf1\xea\xe8\xf5 \xe1\xf3\xeb\xee\xea.\n",
    b"\xd8\xe8\xf0\xee\xea\xe0\xff \xfd\xeb\xe5\xea\xf2\xf0\xe8\xf4\xe8\xea\xe0\xf6\xe8\xff \xfe\xe6\xed\xfb\xf5 \xe3\xf3\xe1\xe5\xf0\xed\xe8\xe9 \xe4\xe0\xf1\xf2 \xec\xee\xf9\xed\xfb\xe9 \xf2\xee\xeb\xf7\xee\xea.\n",
];
/// Japanese in Shift-JIS.
const JAPANESE: [&[u8]; 3] = [
    b"\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd\x81A\x90\xa2\x8aE\x81B\x82\xb1\x82\xea\x82\xcd\x83e\x83X\x83g\x82\xc5\x82\xb7\x81B\n",
    b"\x93\xfa\x96{\x8c\xea\x82\xcc\x83e\x83L\x83X\x83g\x82\xf0\x95\\\x8e\xa6\x82\xb5\x82\xdc\x82\xb7\x81B\n",
    b"\x93\x8c\x8b\x9e\x93s\x82\xcd\x90\xb0\x82\xea\x81A\x8bC\x89\xb7\x82\xcd\x93\xf1\x8f\\\x93x\x82\xc5\x82\xb7\x81B\n",
];
/// French in Latin-1.
const FRENCH: [&[u8]; 5] = [
    b"Le c\x9cur d\xe9\xe7u mais l'\xe2me plut\xf4t na\xefve\n",
    b"O\xf9 est la gare? \xc0 c\xf4t\xe9 du ch\xe2teau.\n",
    b"No\xebl \xe0 P\xe2ques, \xe9t\xe9 comme hiver.\n",
    b"Il \xe9tait une fois une for\xeat tr\xe8s \xe2g\xe9e.\n",
    b"Fran\xe7ais, fen\xeatre, h\xf4pital, \xe9l\xe8ve.\n",
];

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

#[test]
fn lines_in_a_legacy_8_bit_encoding_show_however_many_there_are() {
    for n in 1..=6 {
        assert_shown_as_text(&GERMAN.repeat(n), &format!("{n} German lines"));
    }
    assert_shown_as_text(&RUSSIAN.concat(), "Russian in cp1251");
    assert_shown_as_text(&FRENCH.concat(), "French in Latin-1");
    assert_shown_as_text(&[GERMAN, RUSSIAN[1], FRENCH[0]].concat(), "mixed");
}

#[test]
fn lines_in_shift_jis_show() {
    assert_shown_as_text(&JAPANESE.concat(), "Japanese in Shift-JIS");
    assert_shown_as_text(&JAPANESE.concat().repeat(3), "9 lines of it");
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

/// A long file of legacy-encoded lines in large reads, as `cat` of it gives them.
#[test]
fn a_long_legacy_encoded_file_shows_whole() {
    let mut file = Vec::new();
    for i in 0..300 {
        file.extend(match i % 4 {
            0 => GERMAN,
            1 => RUSSIAN[i % 3],
            2 => JAPANESE[i % 3],
            _ => FRENCH[i % 5],
        });
    }
    for chunk_len in [1000, 4096, 65_536] {
        let text = shown(&file, chunk_len);
        assert!(
            !text.contains("binary output suppressed"),
            "chunk {chunk_len}"
        );
        assert_eq!(
            text,
            format!("printf x\n{}dsh> ", as_a_terminal_shows(&file)),
            "chunk {chunk_len}"
        );
    }
}

/// Invalid sequences (bytes of 5- and 6-byte forms) between the letters of a line: the line
/// stays one line with U+FFFD for them, as a terminal shows it, and no letter is taken away.
#[test]
fn invalid_bytes_inside_a_line_keep_their_neighbours() {
    assert_shown_as_text(
        b"A\xf8\x88\x80\x80\x80B\xfc\x84\x80\x80\x80\x80C\n",
        "5- and 6-byte forms",
    );
    assert_shown_as_text(
        b"\xe9\xe8\xea\xeb\xe0\xe2\xe4\xf4\xf6\xfb\xfc\xe7 done\n",
        "Latin-1 letters then a word",
    );
}

/// Binary output that starts inside a line of text (`printf 'payload follows: '; cat blob`)
/// leaves the text before it on that line: the summary line follows it, and counts only the
/// binary bytes.
#[test]
fn text_before_binary_on_its_line_stays() {
    // A gzip stream's start: its first byte is no text.
    let noise = [&b"\x1f\x8b"[..], &pseudo_random(2998)].concat();
    let mut output = b"payload follows: ".to_vec();
    output.extend(&noise);
    output.extend(b"\nEND\n");
    for cut in [0, 1, 3, 64, 100, 256, 1000, 4096] {
        let text = shown(&output, cut);
        let lines: Vec<&str> = text.lines().collect();
        let ctx = format!("cut {cut}: {text:?}");
        assert_eq!(lines.len(), 5, "{ctx}");
        assert_eq!(lines[..2], ["printf x", "payload follows:"], "{ctx}");
        let count: usize = lines[2]
            .strip_prefix('[')
            .and_then(|rest| rest.split_once(" bytes of binary output suppressed"))
            .and_then(|(n, _)| n.parse().ok())
            .unwrap_or_else(|| panic!("{ctx}"));
        // The newline that ends the binary's line is the run's.
        assert!(
            count <= noise.len() + 1 && count + 16 >= noise.len(),
            "{ctx}"
        );
        assert_eq!(lines[3..], ["END", "dsh> "], "{ctx}");
    }
}
