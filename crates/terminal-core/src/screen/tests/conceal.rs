//! Concealed text (SGR 8) shows as blanks, as xterm draws it: the cells are written and the
//! cursor moves on, but no character is visible, on the screen or in history.

use pretty_assertions::assert_eq;

use super::*;

fn transcript_of(rows: u16, cols: u16, chunks: &[&[u8]]) -> String {
    let mut s = Screen::new(config(rows, cols), None);
    for chunk in chunks {
        s.feed(chunk);
    }
    s.transcript()
}

fn shown(bytes: &str) -> String {
    transcript_of(24, 80, &[bytes.as_bytes()])
}

#[test]
fn concealed_text_is_blank_until_a_reset() {
    for (bytes, want) in [
        ("a\x1b[8mSECRET\x1b[28mb\r\n", "a      b\n"),
        ("a\x1b[8mSECRET\x1b[0mb\r\n", "a      b\n"),
        ("a\x1b[8mSECRET\x1b[mb\r\n", "a      b\n"),
        ("a\x1b[1;8mSECRET\x1b[0mb\r\n", "a      b\n"),
        ("a\x1b[0;8mSECRET\x1b[;mb\r\n", "a      b\n"),
        ("a\x1b[;8mSECRET\x1b[22;28mb\r\n", "a      b\n"),
        (
            "a\x1b[1;2;3;4;5;7;9;31;42;8mSECRET\x1b[0mb\r\n",
            "a      b\n",
        ),
        ("a\x1b[38;5;1;8mSECRET\x1b[0mb\r\n", "a      b\n"),
        ("a\x1b[38;2;1;2;3;8mSECRET\x1b[0mb\r\n", "a      b\n"),
        ("a\x1b[38:5:1;8mSECRET\x1b[0mb\r\n", "a      b\n"),
        // Set and reset in one sequence, or reset and set: the last one counts.
        ("a\x1b[8;0mSEEN\r\n", "aSEEN\n"),
        ("a\x1b[8;28mSEEN\r\n", "aSEEN\n"),
        ("a\x1b[28;8mSECRET\x1b[28mb\r\n", "a      b\n"),
    ] {
        assert_eq!(shown(bytes), want, "{bytes:?}");
    }
}

/// An 8 that is no SGR 8 conceals nothing: a colour's index or component (with colons or
/// semicolons), a number with an 8 in it, a private sequence ending in `m`, an aborted one.
#[test]
fn an_eight_that_is_not_sgr_8_conceals_nothing() {
    for bytes in [
        "\x1b[38:5:8mSEEN\r\n",
        "\x1b[38;5;8mSEEN\r\n",
        "\x1b[48;5;8mSEEN\r\n",
        "\x1b[38;2;8;8;8mSEEN\r\n",
        "\x1b[38:2::8:8:8mSEEN\r\n",
        "\x1b[48:2:8:8:8mSEEN\r\n",
        "\x1b[38;2;1;2;8mSEEN\r\n",
        "\x1b[38;5:8mSEEN\r\n",
        "\x1b[18;80;88;108mSEEN\r\n",
        "\x1b[>8mSEEN\r\n",
        "\x1b[?8mSEEN\r\n",
        "\x1b[8\x18SEEN\r\n",
        "\x1b[8\x1b[mSEEN\r\n",
        // xterm ends an SGR at a sub-parameter it does not know.
        "\x1b[4:3;8mSEEN\r\n",
    ] {
        assert_eq!(shown(bytes), "SEEN\n", "{bytes:?}");
    }
}

#[test]
fn a_split_sgr_conceals_from_its_end() {
    assert_eq!(
        transcript_of(
            24,
            80,
            &[b"a\x1b[", b"1;", b"8", b"mSECRET\x1b[2", b"8mb\r\n"]
        ),
        "a      b\n"
    );
}

/// Concealed text that wraps: the rows it wrote are blank, the line stays one line.
#[test]
fn concealed_text_wraps_as_text_does() {
    assert_eq!(
        transcript_of(4, 10, &[b"\x1b[8mabcdefghijklmno\x1b[0mZ\r\n"]),
        format!("{}Z\n", " ".repeat(15))
    );
}

/// A wide character takes its two cells, blank; at the last column it wraps first, as it
/// would shown.
#[test]
fn a_concealed_wide_character_is_two_blank_cells() {
    assert_eq!(shown("\x1b[8m中文\x1b[0mX\r\n"), "    X\n");
    for cols in [5, 6] {
        let visible = transcript_of(4, cols, &["abcd中X\r\n".as_bytes()]);
        let concealed = transcript_of(4, cols, &["abcd\x1b[8m中\x1b[0mX\r\n".as_bytes()]);
        assert_eq!(concealed, visible.replace('中', "  "), "{cols} columns");
    }
    let mut s = Screen::new(config(4, 10), None);
    s.feed("ab\x1b[8m中\x1b[0m".as_bytes());
    assert_eq!(s.cursor().col, 4);
}

#[test]
fn concealed_text_overwrites_and_is_overwritten() {
    assert_eq!(shown("\x1b[8mpassword123\x1b[0m\rok\r\n"), "ok\n");
    assert_eq!(shown("hello\r\x1b[8mXY\x1b[0m\r\n"), "  llo\n");
}

/// Line drawing under conceal is blank too.
#[test]
fn concealed_line_drawing_is_blank() {
    assert_eq!(shown("\x1b(0\x1b[8mlqk\x1b[0mx\x1b(B\r\n"), "   │\n");
}

/// Rows that scroll into history, by the emulator or as flood lines, keep their blanks.
#[test]
fn concealed_text_never_reaches_history() {
    let mut bytes = b"\x1b[8m".to_vec();
    for i in 0..300 {
        bytes.extend(format!("secret {i}\r\n").as_bytes());
    }
    bytes.extend(b"\x1b[0m");
    for i in 0..300 {
        bytes.extend(format!("plain {i}\r\n").as_bytes());
    }
    let mut lazy = Screen::new(config(5, 40), None);
    let mut eager = Screen::new(config(5, 40), None);
    eager.no_flood = true;
    for chunk in bytes.chunks(97) {
        lazy.feed(chunk);
        eager.feed(chunk);
    }
    let t = lazy.transcript();
    assert!(!t.contains("secret"), "{t:?}");
    assert!(
        t.contains("plain 0\n") && t.ends_with("plain 299\n"),
        "{t:?}"
    );
    assert_eq!(t, eager.transcript());
}

/// The conceal attribute is saved and restored with the cursor (DECSC / DECRC), per screen,
/// and a reset (RIS, DECSTR) clears it.
#[test]
fn conceal_is_saved_with_the_cursor_and_cleared_by_a_reset() {
    assert_eq!(
        shown("\x1b[8m\x1b7\x1b[0m\r\nshown\x1b8gone\x1b[0m!\r\n"),
        "    !\nshown"
    );
    assert_eq!(shown("\x1b[8m\x1b[s\x1b[0mab\x1b[ucd\x1b[0m!\r\n"), "  !\n");
    // The reset's clear moves the blank row into history.
    assert_eq!(shown("\x1b[8mX\x1bcSEEN\r\n"), "\nSEEN\n");
    assert_eq!(shown("\x1b[8mX\x1b[!pSEEN\r\n"), " SEEN\n");
    // Mode 1049 saves it with the main screen's cursor.
    assert_eq!(
        shown("\x1b[8m\x1b[?1049h\x1b[0malt\x1b[?1049lgone\x1b[0m!\r\n"),
        "    !\n"
    );
}

/// On the alternate screen too: it renders as the blanks printed in its place would.
#[test]
fn concealed_text_on_the_alternate_screen_is_blank() {
    let render = |bytes: &[u8]| {
        let mut s = screen();
        let a = s.anchor();
        s.feed(b"\x1b[?1049h\x1b[HPassword: ");
        s.feed(bytes);
        s.render_since(a, 1000).text
    };
    assert_eq!(render(b"\x1b[8mhunter2\x1b[0m"), render(b"       "));
    assert!(!render(b"\x1b[8mhunter2").contains("hunter2"));
}

/// The screen's own text stays visible when a program left concealing on: the summary line
/// of a binary run, and what a program left on the alternate screen, carried onto the main
/// screen when the prompt returns.
#[test]
fn the_screens_own_text_is_not_concealed() {
    let mut s = screen();
    s.feed(b"\x1b[8m");
    for chunk in pseudo_random(100_000).chunks(4096) {
        s.feed(chunk);
    }
    s.feed(b"\r\n");
    let t = s.transcript();
    assert!(t.contains("bytes of binary output suppressed"), "{t:?}");
    let mut s = screen();
    s.feed(b"dsh> run\r\n\x1b[?47h\x1b[HFATAL: boom\x1b[8m\r\nhidden");
    s.feed(&mark("D;1"));
    let t = s.transcript();
    assert!(t.starts_with("dsh> run\nFATAL: boom\n"), "{t:?}");
    assert!(!t.contains("hidden"), "{t:?}");
}
