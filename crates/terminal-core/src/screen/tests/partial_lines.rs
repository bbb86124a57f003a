//! A send's viewport that begins inside a long line: the byte bound of its copy, or the
//! scrollback, cut into the line, so the line's start is placed before the viewport (or said
//! to be gone), and counted with the line rather than as lines before it.

use pretty_assertions::assert_eq;

use super::super::*;

/// A 6×20 screen keeping `scrollback_lines` rows.
fn narrow(scrollback_lines: usize) -> Screen {
    Screen::new(
        ScreenConfig {
            rows: 6,
            cols: 20,
            scrollback_lines,
            scrollback_max_bytes: 1 << 20,
        },
        PromptNonce::from_hex("0123456789abcdef0123"),
    )
}

/// A send of `$ cmd` on a 6×20 screen keeping `scrollback_lines` rows, whose output is `n`
/// lines `L<ii>:` + 200 `k`s (204 bytes, 11 rows each), CR LF ended, one chunk each (as a
/// program writes them): more than the rows a send's head waits for. Returns the screen, the
/// send's anchor and its captured head.
fn long_lines_sent(scrollback_lines: usize, n: usize) -> (Screen, AnchorId, head::Head) {
    let mut s = narrow(scrollback_lines);
    s.feed(b"$ cmd\r\n");
    let anchor = s.anchor();
    s.start_head(anchor);
    for i in 0..n {
        s.feed(format!("L{i:02}:{}\r\n", "k".repeat(200)).as_bytes());
    }
    let head = s.finish_head().expect("a head was captured");
    (s, anchor, head)
}

#[test]
fn a_copy_bound_inside_a_line_keeps_that_lines_start() {
    let (mut s, anchor, head) = long_lines_sent(10_000, 20);
    // 300 bytes from the end: inside line 18 (each line is 204 bytes and a newline).
    let rows = s.snapshot_since(anchor, 300);
    let first_row = rows.first_row();
    let placed = s.place_head(head, first_row).expect("the head is placed");
    let start = placed
        .line_start
        .clone()
        .expect("the viewport begins inside a line");
    assert!(start.text.starts_with("L18:kkk"), "{start:?}");
    assert!(!start.start_dropped);
    let viewport = rows.render(10_000).text;
    let first = viewport.lines().next().unwrap_or_default();
    // The start and the gap and the viewport's first line make the whole line.
    assert_eq!(
        start.text.len() as u64 + start.gap + first.len() as u64,
        204,
        "{start:?} {first:?}"
    );
    // Lines 0 to 17 lie before it: the head's, then the retained ones.
    assert_eq!(
        placed.text.lines().count() as u64 + placed.retained_lines_before,
        18,
        "{placed:?}"
    );
}

#[test]
fn a_line_whose_start_the_scrollback_dropped_says_so() {
    // 120 rows of scrollback, 176 rows of output: the oldest retained row is in the middle
    // of a line (the head was captured before the drop).
    let (mut s, anchor, head) = long_lines_sent(120, 16);
    let rows = s.snapshot_since(anchor, 1 << 20);
    assert!(s.history().first_continues_dropped());
    let placed = s
        .place_head(head, rows.first_row())
        .expect("the head is placed");
    let start = placed
        .line_start
        .expect("the viewport begins inside a line");
    assert!(start.start_dropped && start.text.is_empty(), "{start:?}");
    // A line that starts on a retained row is whole: no line start.
    let (mut whole, anchor, head) = long_lines_sent(10_000, 16);
    let rows = whole.snapshot_since(anchor, 1 << 20);
    assert!(
        whole
            .place_head(head, rows.first_row())
            .is_none_or(|p| p.line_start.is_none())
    );
}
