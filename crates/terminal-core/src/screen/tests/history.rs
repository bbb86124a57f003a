//! Floods, soft wraps, bounded history, anchors and pages.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn c15_a_flood_of_plain_lines_keeps_history_and_screen_exact() {
    let mut lazy = Screen::new(config(40, 160), None);
    let mut eager = Screen::new(config(40, 160), None);
    eager.no_flood = true;
    let mut bytes = Vec::new();
    for i in 0..30_000 {
        bytes.extend(format!("{}\r\n", "x".repeat(i % 400)).as_bytes());
    }
    for chunk in bytes.chunks(4000) {
        lazy.feed(chunk);
        eager.feed(chunk);
    }
    assert_eq!(lazy.transcript(), eager.transcript());
    assert_eq!(lazy.cursor(), eager.cursor());
    assert_eq!(lazy.history_usage(), eager.history_usage());
}

#[test]
fn soft_wrapped_lines_are_joined_also_in_history() {
    let mut s = Screen::new(config(3, 10), None);
    s.feed(b"abcdefghijklmnopqrstuvwxyz\r\nnext\r\n");
    assert_eq!(s.transcript(), "abcdefghijklmnopqrstuvwxyz\nnext\n");
    s.feed(b"x\r\ny\r\nz");
    assert_eq!(s.transcript(), "abcdefghijklmnopqrstuvwxyz\nnext\nx\ny\nz");
    // A line exactly as wide as the screen is not joined with the next one.
    let mut s = Screen::new(config(3, 4), None);
    s.feed(b"abcd\r\nefgh\r\n1\r\n2\r\n3");
    assert_eq!(s.transcript(), "abcd\nefgh\n1\n2\n3");
}

#[test]
fn wrap_straddling_history_and_screen_is_joined() {
    let mut s = Screen::new(config(2, 5), None);
    s.feed(b"abcdefgh");
    assert_eq!(s.transcript(), "abcdefgh");
    s.feed(b"ijklm");
    assert_eq!(s.transcript(), "abcdefghijklm");
}

#[test]
fn history_is_bounded_by_bytes_and_lines() {
    let mut s = Screen::new(
        ScreenConfig {
            rows: 4,
            cols: 20,
            scrollback_lines: 1000,
            scrollback_max_bytes: 100,
        },
        None,
    );
    for i in 0..1000 {
        s.feed(format!("line {i:05}\r\n").as_bytes());
    }
    let (rows, bytes) = s.history_usage();
    assert!(bytes <= 100, "{bytes}");
    assert!(rows <= 10, "{rows}");
    assert!(s.history_dropped());
    assert!(s.transcript().ends_with("line 00999\n"));
    let mut s = Screen::new(
        ScreenConfig {
            rows: 2,
            cols: 20,
            scrollback_lines: 3,
            scrollback_max_bytes: 1 << 20,
        },
        None,
    );
    for i in 0..50 {
        s.feed(format!("{i}\r\n").as_bytes());
    }
    assert_eq!(s.history_usage().0, 3);
    assert_eq!(s.transcript(), "46\n47\n48\n49\n");
}

/// A screen of 3 rows keeping 5 lines of history: 20 lines fed make it drop some.
fn tiny_history() -> Screen {
    Screen::new(
        ScreenConfig {
            rows: 3,
            cols: 20,
            scrollback_lines: 5,
            scrollback_max_bytes: 1 << 20,
        },
        None,
    )
}

#[test]
fn anchor_that_fell_out_of_history_reports_truncation() {
    let mut s = tiny_history();
    let a = s.anchor();
    for i in 0..20 {
        s.feed(format!("{i}\r\n").as_bytes());
    }
    let r = s.render_since(a, 1000);
    assert!(r.truncated);
    assert!(r.text.starts_with("13\n"), "{:?}", r.text);
}

/// After history dropped rows, only a page that reaches back to the oldest retained line says
/// it was cut (older lines are gone); a page of newer lines is whole.
#[test]
fn a_page_is_cut_by_a_drop_only_when_it_reaches_the_oldest_line() {
    let mut s = tiny_history();
    for i in 0..20 {
        s.feed(format!("{i}\r\n").as_bytes());
    }
    let newest = s
        .page(Some(0), Some(3), 1000)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!newest.truncated, "{newest:?}");
    let all = s
        .page(Some(0), None, 1000)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(all.truncated, "{all:?}");
    let oldest = s
        .page(Some(all.total_lines - 1), Some(1), 1000)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(oldest.truncated, "{oldest:?}");
}

#[test]
fn pages_are_newest_relative() {
    let mut s = screen();
    s.feed(b"dsh> printf 'PTY_OK\\n'\r\nPTY_OK\r\ndsh> ");
    let p = s
        .page(Some(0), Some(20), 1000)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.text, "dsh> printf 'PTY_OK\\n'\nPTY_OK\ndsh> ");
    assert_eq!((p.total_lines, p.line_begin, p.line_end), (3, 0, 3));
    let p = s
        .page(Some(1), Some(1), 1000)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (p.text.as_str(), p.line_begin, p.line_end),
        ("PTY_OK", 1, 2)
    );
    let p = s
        .page(Some(999), None, 1000)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((p.text.as_str(), p.line_begin, p.line_end), ("", 999, 999));
    let e = s
        .page(None, Some(0), 1000)
        .err()
        .unwrap_or_else(|| panic!("error"));
    assert_eq!(e.message(), "PTY read count must be a positive integer");
    let p = s.page(None, None, 4).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.text, "dsh> ".get(1..).unwrap_or_default());
    assert!(p.truncated);
}

#[test]
fn page_byte_bound_respects_char_boundaries() {
    let mut s = screen();
    s.feed("一\r\n二\r\n三\r\n四".as_bytes());
    let p = s.page(None, None, 6).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.text, "\n四");
    let p = s.page(None, Some(1), 1).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.text, "");
    assert!(p.truncated);
}

/// A wide character that does not fit in a row's last column goes to the next row, which
/// vt100 does not flag as a wrap: the line stays one line on the screen, in history (scrolled
/// off, cleared, or pushed by the next row) and in the transcript.
#[test]
fn a_wide_character_pushed_to_the_next_row_keeps_its_line_whole() {
    let line = "aaaaaaaaa日本語";
    // On the screen.
    let mut s = Screen::new(config(4, 10), None);
    s.feed(format!("{line}\r\n").as_bytes());
    assert_eq!(s.transcript(), format!("{line}\n"));
    // Scrolled into history, one row after another.
    for _ in 0..6 {
        s.feed(b"x\r\n");
    }
    assert!(
        s.transcript().starts_with(&format!("{line}\nx\n")),
        "{:?}",
        s.transcript()
    );
    // Moved into history by a clear.
    let mut s = Screen::new(config(4, 10), None);
    s.feed(format!("{line}\r\n\x1b[H\x1b[2Jnext\r\n").as_bytes());
    assert!(
        s.transcript().starts_with(&format!("{line}\n")),
        "{:?}",
        s.transcript()
    );
    // Its early wrap straddling history and screen: the row vt100 scrolled off last, the
    // character on the screen's first row, with no row scrolled off after it (field case:
    // `print('a語'*2700)` came back split in two where rows had scrolled off).
    let mut s = Screen::new(config(2, 10), None);
    s.feed(format!("{line}\r\n").as_bytes());
    assert_eq!(s.transcript(), format!("{line}\n"));
    // Early wraps (rows of 9 cells) in history, across its boundary, and on the screen: in
    // the transcript and in a page of `terminal_read`.
    let long = "a語".repeat(20);
    let mut s = Screen::new(config(3, 10), None);
    s.feed(format!("{long}\r\n").as_bytes());
    assert_eq!(s.transcript(), format!("{long}\n"));
    let p = s
        .page(None, None, 100_000)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(p.text.contains(&long), "{:?}", p.text);
    // A row that did not reach the last column but one is a line of its own.
    let mut s = Screen::new(config(4, 10), None);
    s.feed("aaaaaaaa\r\n日本語\r\n".as_bytes());
    for _ in 0..6 {
        s.feed(b"x\r\n");
    }
    assert!(
        s.transcript().starts_with("aaaaaaaa\n日本語\n"),
        "{:?}",
        s.transcript()
    );
}

/// Field case C16: a line that never ends costs bounded memory. The flood path stops taking
/// it at its bound; the emulator wraps the rest into rows, and history keeps only its cap.
#[test]
fn c16_a_line_that_never_ends_costs_bounded_memory() {
    let mut s = Screen::new(config(40, 160), None);
    let chunk = vec![b'a'; 64 * 1024];
    for _ in 0..80 {
        s.feed(&chunk);
        assert!(
            s.flood.partial.len() <= 64 * 1024,
            "{}",
            s.flood.partial.len()
        );
    }
    s.feed(b"\r\nend\r\n");
    let (_, history_bytes) = s.history_usage();
    assert!(history_bytes <= 4 * 1024 * 1024 + 4096, "{history_bytes}");
    assert!(
        s.transcript().ends_with("aaaa\nend\n"),
        "{:?}",
        &s.transcript()[s.transcript().len() - 20..]
    );
}

/// History counts line ends (rows that do not soft-wrap) so that what its bounds drop can be
/// told in lines, not rows.
#[test]
fn history_counts_line_ends_also_of_dropped_rows() {
    let mut h = History::new(4, 1 << 20, 10);
    h.push_row("aaaaaaaaaa", true);
    h.push_row("aaaaaaaaaa", true);
    h.push_row("aaa", false);
    h.push_row("b", false);
    assert_eq!((h.line_ends(), h.line_ends_dropped()), (2, 0));
    assert_eq!(h.line_ends_before(0), Some(0));
    assert_eq!(h.line_ends_before(3), Some(1));
    assert_eq!(h.line_ends_before(4), Some(2));
    // Three more rows drop the long line's three rows: one line.
    h.push_row("c", false);
    h.push_row("d", false);
    h.push_row("e", false);
    assert_eq!((h.line_ends(), h.line_ends_dropped()), (5, 1));
    assert_eq!(h.line_ends_before(0), None);
    assert_eq!(h.line_ends_before(4), Some(2));
}

/// Rows with no text (a flood of blank lines) are bounded like any others: the storage held
/// for them stays within the row bound plus one block, whatever the flood's length.
#[test]
fn a_flood_of_blank_rows_holds_bounded_storage() {
    let mut h = History::new(100, 1 << 20, 80);
    for _ in 0..200_000 {
        h.push_row("", false);
    }
    assert_eq!(h.len(), 100);
    assert_eq!(h.line_ends(), 200_000);
    assert!(h.held_rows() <= 100 + 2 * 4096, "{}", h.held_rows());
    h.push_row("last", false);
    assert_eq!(h.get(h.end_abs() - 1), Some(("last", false)));
    assert_eq!(h.get(h.end_abs() - 2), Some(("", false)));
}

/// The count of line ends before a row stays the same as rows scroll on: the newest row in
/// history whose wrap into the screen is only written down when the next row arrives already
/// counts as no line end (a job's read compared counts across that moment, took a difference
/// of one for a redraw, and dropped a line it had read).
#[test]
fn line_ends_before_a_row_do_not_change_as_a_wrapped_line_scrolls_into_history() {
    let mut s = Screen::new(config(4, 10), None);
    // A line over two rows, then two more: the line's first row is the newest in history,
    // its second row the screen's first (bold text: the emulator scrolls the rows).
    s.feed(b"\x1b[1mone\r\n0123456789abcde\r\nL1\r\nL2\r\n");
    let row = s.cursor().row;
    let before = s.line_ends_before(row);
    for more in [&b"next\r\n"[..], b"more\r\nand more\r\n"] {
        s.feed(more);
        s.materialize();
        assert_eq!(s.line_ends_before(row), before);
    }
}

/// A presentation selector (VS16) that would make the narrow character in a row's last column
/// an emoji twice as wide (vt100 moves the character to the next row, unflagged): the line
/// stays one line, the character (narrow, as xterm keeps it, with its selector) and what
/// follows it whole, on the screen and in history, also where more zero-width characters
/// follow it (a ZWJ sequence, a keycap) or the line ends there. Elsewhere the selector stays.
#[test]
fn a_character_widened_in_the_last_column_keeps_its_line_whole() {
    for emoji in [
        "\u{263a}\u{fe0f}",
        "\u{2764}\u{fe0f}",
        "\u{2764}\u{fe0f}\u{200d}\u{1f525}",
        "1\u{fe0f}\u{20e3}",
        "\u{2764}\u{fe0f}\u{301}",
        "\u{2764}\u{fe0f}\u{fe0f}",
    ] {
        let line = format!("aaaaaaaaa{emoji}Z");
        let mut s = Screen::new(config(4, 10), None);
        s.feed(format!("{line}\r\n{line}\r\n").as_bytes());
        assert_eq!(s.transcript(), format!("{line}\n{line}\n"), "{emoji}");
        for _ in 0..6 {
            s.feed(b"x\r\n");
        }
        assert!(
            s.transcript().starts_with(&format!("{line}\n{line}\nx\n")),
            "{:?}",
            s.transcript()
        );
        let mut s = Screen::new(config(4, 10), None);
        s.feed(format!("ab{emoji}Z\r\n").as_bytes());
        assert_eq!(s.transcript(), format!("ab{emoji}Z\n"));
        // Ending the line in the last column: the selector stays, and the next line is its own.
        let mut s = Screen::new(config(4, 10), None);
        s.feed(format!("aaaaaaaaa{emoji}\r\nnext\r\n").as_bytes());
        assert_eq!(s.transcript(), format!("aaaaaaaaa{emoji}\nnext\n"));
    }
}

/// Line numbers (from the session's first line, dropped lines included): a render says its
/// last line's, and a page from a line number reads the same lines however much output
/// followed, soft-wrapped lines counting once; lines the scrollback dropped, or past the
/// newest, are refused with the numbers that exist.
#[test]
fn pages_by_line_number_stay_on_their_lines_while_output_goes_on() {
    let config = ScreenConfig {
        scrollback_lines: 200,
        ..config(10, 20)
    };
    let mut s = Screen::new(config, None);
    s.feed(b"$ run\r\n");
    let a = s.anchor();
    s.feed(b"l1\r\nl2 is long enough to wrap\r\n");
    for i in 3..=50 {
        s.feed(format!("l{i}\r\n").as_bytes());
    }
    // The render's last line is the empty one after `l50`: line 51.
    assert_eq!(s.snapshot_since(a, 100_000).last_line(), Some(51));
    let page_at = |s: &mut Screen, from: u64, count: u64| {
        let (offset, count) = s
            .page_at_line(from, Some(count))
            .unwrap_or_else(|e| panic!("{e}"));
        s.page(Some(offset), Some(count), 100_000)
            .unwrap_or_else(|e| panic!("{e}"))
            .text
    };
    assert_eq!(page_at(&mut s, 1, 3), "l1\nl2 is long enough to wrap\nl3");
    for i in 51..=150 {
        s.feed(format!("l{i}\r\n").as_bytes());
    }
    assert_eq!(page_at(&mut s, 1, 3), "l1\nl2 is long enough to wrap\nl3");
    assert_eq!(page_at(&mut s, 149, 5), "l149\nl150\n");
    // Dropped, then past the newest.
    for i in 151..=400 {
        s.feed(format!("l{i}\r\n").as_bytes());
    }
    let dropped = s.page_at_line(1, Some(3)).map(|_| ()).unwrap_err();
    assert!(
        dropped
            .to_string()
            .contains("lines 1-3 are no longer retained"),
        "{dropped}"
    );
    assert!(
        dropped.to_string().contains("the oldest line kept is"),
        "{dropped}"
    );
    let after = s.page_at_line(402, Some(3)).map(|_| ()).unwrap_err();
    assert!(
        after.to_string().contains("after the newest line (401)"),
        "{after}"
    );
    assert_eq!(page_at(&mut s, 300, 2), "l300\nl301");
}
