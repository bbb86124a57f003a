//! Reads that fall behind a huge line: the line ends counted in what they left out.

use super::super::*;

/// A read bounded to 16 KiB behind one line written in 64 KiB chunks leaves out part of that
/// line, and no line end; once the line ends, the read that left out its end counts none
/// either, and the next line's start is the read's.
#[test]
fn a_read_behind_one_huge_line_loses_no_line_end() {
    let mut s = Screen::new(super::config(40, 160), None);
    s.feed(b"$ cmd\r\n");
    let anchor = s.anchor();
    let chunk = vec![b'a'; 65_536];
    for _ in 0..8 {
        s.feed(&chunk);
        let read = s.consume_since(anchor, 16 * 1024);
        assert_eq!(read.lost_line_ends, Some(0));
    }
    s.feed(&chunk);
    s.feed(b"\r\nAFTER\r\nmore\r\n");
    let read = s.consume_since(anchor, 16 * 1024);
    assert_eq!(read.lost_line_ends, Some(0));
    // Lines lost whole are counted.
    let lines: String = (0..5000).map(|i| format!("line {i}\r\n")).collect();
    s.feed(lines.as_bytes());
    let read = s.consume_since(anchor, 16 * 1024);
    let kept = read.rows.line_ends();
    assert_eq!(read.lost_line_ends.map(|lost| lost + kept), Some(5000));
}
