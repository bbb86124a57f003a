//! The blank rows at the bottom of the screen, known without rendering: renders skip them, and
//! in debug builds (these tests) every render checks that the rows it skipped are blank. Here
//! output that moves the cursor every way, cut into chunks anywhere, is rendered at many
//! points.

use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::*;

/// Pieces of output: text, line ends, and sequences that keep the rows below the cursor as
/// they were or may write above them.
const PIECES: &[&[u8]] = &[
    b"text",
    b"a longer line of text that wraps past the width",
    b"\r\n",
    b"\n\n\n",
    b"\r",
    b"\x08\x08",
    b"\t|",
    b"\xe4\xb8\xad\xf0\x9f\x98\x80",
    b"\x1b[1;31mred\x1b[0m",
    b"\x1b(B\x1b[m",
    b"\x1b]0;title\x07",
    b"\x1b]8;;x\x1b\\",
    b"\x1b[K",
    b"\x1b[2J",
    b"\x1b[J",
    b"\x1b[3X",
    b"\x1b[2P",
    b"\x1b[2@",
    b"\x1b[?25l",
    b"\x1b[A",
    b"\x1b[3A",
    b"\x1b[4B",
    b"\x1b[H",
    b"\x1b[9;3H",
    b"\x1b[2d",
    b"\x1bM",
    b"\x1b7",
    b"\x1b8",
    b"\x1b[2L",
    b"\x1b[M",
    b"\x1b[S",
    b"\x1b[T",
    b"\x1b[3;7r",
    b"\x1b[r",
    b"\x1b[?1049h",
    b"\x1b[?1049l",
    b"\x1bc",
    b"\x1b(\x1bM",
    b"\x1b)\x1b8",
    b"\x1bPq\x07",
    b"\x1b\\",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn renders_skip_only_blank_rows(
        picks in proptest::collection::vec((0..PIECES.len(), 0usize..4), 1..60),
        cuts in proptest::collection::vec(0usize..400, 0..12),
    ) {
        let mut bytes = Vec::new();
        for &(i, times) in &picks {
            for _ in 0..=times {
                bytes.extend_from_slice(PIECES[i]);
            }
        }
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
        cuts.push(bytes.len());
        cuts.sort_unstable();
        let mut s = Screen::new(config(12, 20), Some(nonce()));
        let mut a = s.anchor();
        let mut from = 0;
        for cut in cuts {
            s.feed(&bytes[from..cut]);
            from = cut;
            // Each of these renders rows from some row down (and asserts what it skips).
            let r = s.render_since(a, 4096);
            prop_assert!(!r.text.contains('\x1b'));
            s.release_anchor(a);
            a = s.anchor();
        }
        prop_assert!(!s.transcript().contains('\x1b'));
    }
}

/// A reverse index behind an unfinished `ESC (` scrolls the screen down over rows that were
/// blank: they are not taken for blank afterwards.
#[test]
fn a_reverse_index_behind_an_unfinished_designation_moves_rows_down() {
    let mut s = Screen::new(config(12, 20), Some(nonce()));
    s.feed(b"dsh> x\r\nL1\r\nL2\r\n");
    s.feed(b"\x1b(\x1bM".repeat(6).as_slice());
    let a = s.anchor();
    s.feed(b"done\r\n");
    assert!(s.render_since(a, 4096).text.starts_with("done"));
    assert!(
        s.transcript().contains("dsh> x\nL1\nL2"),
        "{}",
        s.transcript()
    );
}

/// A DCS string holds everything up to `ESC \`, BEL included, on its line: the rest of that
/// line is not text, nor the rest of it after a character whose UTF-8 holds the byte 0x9C (a
/// C1 string terminator to a byte parser). A string left open ends at the line end: the lines
/// after it show, however many (many plain lines take the path that skips the emulator), as
/// the emulator shows them.
#[test]
fn a_dcs_string_hides_its_line_and_ends_at_the_line_end() {
    for (n, body) in [(5, "xyz\x07"), (60, "xyz"), (3, "1;2q#0Ŝ✜"), (40, "✜")] {
        let mut s = Screen::new(config(12, 20), Some(nonce()));
        s.feed(format!("\x1bP{body}").as_bytes());
        let mut lines = Vec::new();
        for i in 1..=n {
            lines.extend_from_slice(format!("line{i}\r\n").as_bytes());
        }
        s.feed(&lines);
        s.feed(b"\x1b\\done\r\n");
        let t = s.transcript();
        let rows: Vec<&str> = t.lines().collect();
        assert!(!rows.contains(&"line1"), "{n}: {t:?}");
        assert!(
            rows.contains(&"line2") && rows.contains(&"done"),
            "{n}: {t:?}"
        );
        assert!(rows.contains(&format!("line{n}").as_str()), "{n}: {t:?}");
    }
    for start in ['X', '^', '_'] {
        let mut s = Screen::new(config(12, 20), Some(nonce()));
        s.feed(format!("\x1b{start}Ŝhidden\x1b\\done\r\n").as_bytes());
        let t = s.transcript();
        assert!(
            !t.contains("hidden") && t.contains("done"),
            "{start}: {t:?}"
        );
        let mut s = Screen::new(config(12, 20), Some(nonce()));
        s.feed(format!("\x1b{start}Ŝhidden\r\n✜shown\r\n").as_bytes());
        let t = s.transcript();
        assert!(
            !t.contains("hidden") && t.contains("✜shown"),
            "{start}: {t:?}"
        );
    }
}

/// A full reset behind an unfinished `ESC (` keeps the rows it clears in history, as a plain
/// one does.
#[test]
fn a_reset_behind_an_unfinished_designation_keeps_the_cleared_rows() {
    let transcript = |reset: &[u8]| {
        let mut s = Screen::new(config(12, 20), Some(nonce()));
        s.feed(b"keep1\r\nkeep2\r\n");
        s.feed(reset);
        s.feed(b"after\r\n");
        s.transcript()
    };
    assert_eq!(transcript(b"\x1b(\x1bc"), transcript(b"\x1bc"));
    assert!(transcript(b"\x1b(\x1bc").contains("keep1\nkeep2\n"));
}
