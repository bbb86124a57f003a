//! Clears and TABs (C28, C29): erased rows reach history, TAB runs come back as TABs.

use pretty_assertions::assert_eq;

use super::job_window::JobWindow;
use super::*;

#[test]
fn c28_clear_in_a_fresh_session_keeps_every_line_whole_and_in_order() {
    let mut s = Screen::new(config(40, 160), None);
    s.feed(b"dsh> ");
    let a = s.anchor();
    s.feed(b"clear; echo hello world; echo second line\r\n\x1b[H\x1b[2J\x1b[3Jhello world\r\nsecond line\r\ndsh> ");
    assert_eq!(
        s.render_since(a, 10_000).text,
        "clear; echo hello world; echo second line\nhello world\nsecond line\ndsh> "
    );
    assert!(!s.snapshot_since(a, 10_000).mixed());
    let mut s = Screen::new(config(40, 160), None);
    s.feed(b"dsh> earlier\r\nEARLIER OUTPUT\r\ndsh> ");
    let a = s.anchor();
    s.feed(b"echo before; clear; echo after\r\nbefore\r\n\x1b[H\x1b[2J\x1b[3Jafter\r\ndsh> ");
    assert_eq!(
        s.render_since(a, 10_000).text,
        "echo before; clear; echo after\nbefore\nafter\ndsh> "
    );
    // What was on screen before the clear is still paged.
    let page = s.page(None, None, 10_000).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        page.text.starts_with("dsh> earlier\nEARLIER OUTPUT\n"),
        "{:?}",
        page.text
    );
}

/// An erase of the whole screen that leaves the cursor low on it (`ESC [ 2 J` with no move
/// home, as `print("\033[2J")` does) leaves blank rows above the cursor: they are no lines of
/// the output (a result showed up to a screenful of empty lines), while blank lines the output
/// prints after it stay, and so does text it writes up there later. The screen keeps them
/// (a page shows the screen as it is).
#[test]
fn rows_an_erase_left_blank_above_the_cursor_are_no_lines_of_the_output() {
    let mut s = Screen::new(config(40, 160), None);
    s.feed(b"dsh> seq 3\r\n1\r\n2\r\n3\r\ndsh> ");
    let a = s.anchor();
    s.feed(b"run\r\nbefore\r\n\x1b[2Jafter\r\n\r\nlast\r\ndsh> ");
    assert_eq!(
        s.render_since(a, 10_000).text,
        "run\nbefore\nafter\n\nlast\ndsh> "
    );
    let page = s.page(None, None, 10_000).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        page.text.contains("before\n\n\n\n\n\n\nafter\n"),
        "{:?}",
        page.text
    );
    // Text written on those rows afterwards is output like any other.
    let mut s = Screen::new(config(40, 160), None);
    s.feed(b"dsh> ");
    let a = s.anchor();
    s.feed(b"run\r\nbefore\r\n\x1b[2J\x1b[2;1Hon row two\x1b[4;1Hdsh> ");
    assert_eq!(
        s.render_since(a, 10_000).text,
        "run\nbefore\non row two\n\ndsh> "
    );
}

#[test]
fn c28_every_kind_of_clear_keeps_the_rows_it_erases() {
    for clear in [&b"\x1b[H\x1b[J"[..], b"\x1b[2J\x1b[H", b"\x1bc"] {
        let mut s = Screen::new(config(6, 20), None);
        let a = s.anchor();
        s.feed(b"one\r\ntwo\r\n");
        s.feed(clear);
        s.feed(b"three\r\n");
        let text = s.render_since(a, 1000).text;
        assert!(text.starts_with("one\ntwo\n"), "{clear:?}: {text:?}");
        assert!(text.trim_end().ends_with("three"), "{clear:?}: {text:?}");
    }
    // The alternate screen keeps its own behaviour: its rows never reach history.
    let mut s = Screen::new(config(6, 20), None);
    s.feed(b"main\r\n\x1b[?1049hfull screen\x1b[2J\x1b[?1049l");
    assert_eq!(s.transcript(), "main\n");
}

#[test]
fn c28_lines_a_scroll_region_at_the_top_scrolls_out_reach_history() {
    let mut s = Screen::new(config(4, 20), None);
    let a = s.anchor();
    // Region rows 1-3, status line on row 4.
    s.feed(b"\x1b[1;3r\x1b[4;1Hstatus\x1b[1;1H");
    for i in 0..6 {
        s.feed(format!("line {i}\r\n").as_bytes());
    }
    s.feed(b"\x1b[r");
    let text = s.render_since(a, 1000).text;
    for i in 0..6 {
        assert!(text.contains(&format!("line {i}")), "{text:?}");
    }
}

#[test]
fn c29_tabs_come_back_as_tabs_in_screen_history_and_pages() {
    let input = b"all:\r\n\techo built\r\nname\tqty\r\nwidget\t3\r\n";
    let mut s = screen();
    s.feed(input);
    assert_eq!(s.transcript(), "all:\n\techo built\nname\tqty\nwidget\t3\n");
    // Scrolled into history, and cleared into history.
    let mut s = Screen::new(config(2, 20), None);
    s.feed(input);
    assert_eq!(s.transcript(), "all:\n\techo built\nname\tqty\nwidget\t3\n");
    let mut s = Screen::new(config(10, 20), None);
    s.feed(input);
    s.feed(b"\x1b[H\x1b[2J");
    let page = s.page(None, None, 1000).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(page.text, "all:\n\techo built\nname\tqty\nwidget\t3\n");
    // A trailing TAB (an empty last TSV field) survives too.
    let mut s = screen();
    s.feed(b"a\tb\t\r\n");
    assert_eq!(s.transcript(), "a\tb\t\n");
}

#[test]
fn c29_text_written_over_a_tab_run_or_an_erased_row_is_plain_text() {
    let mut s = screen();
    s.feed(b"ab\tcd\rxxxxxxxxx\r\n");
    assert_eq!(s.transcript(), "xxxxxxxxxd\n");
    let mut s = screen();
    s.feed(b"ab\tcd\r\x1b[Kef        gh\r\n");
    assert_eq!(s.transcript(), "ef        gh\n");
    let mut s = Screen::new(config(2, 20), None);
    s.feed(b"ab\tcd\rxxxxxxxxx\r\n1\r\n2\r\n");
    assert_eq!(s.transcript(), "xxxxxxxxxd\n1\n2\n");
}

/// A TAB past the row's last tab stop, or after a character in its last column: the text after
/// it wraps to the next row instead of being written over the last cell, so no field of a TSV
/// row that reaches the right edge is lost, and the TABs come back.
#[test]
fn c29_tabs_at_the_right_edge_keep_every_field() {
    for width in [20u16, 23] {
        for lead in 0..=usize::from(width) + 2 {
            for fields in [&b"A\tB\tC"[..], b"A\t\tB", b"\tB\tC\t", b"A\tBB\tCCC\tD"] {
                let line = [&b"x".repeat(lead)[..], fields].concat();
                let mut s = Screen::new(config(6, width), None);
                s.feed(&[&line[..], b"\r\nnext\r\n"].concat());
                let want = format!("{}\nnext\n", String::from_utf8_lossy(&line));
                assert_eq!(s.transcript(), want, "width {width}, lead {lead}");
                // The same once the rows scrolled into history.
                let mut s = Screen::new(config(2, width), None);
                s.feed(&[&line[..], b"\r\nnext\r\n1\r\n2\r\n3\r\n"].concat());
                let want = format!("{}\nnext\n1\n2\n3\n", String::from_utf8_lossy(&line));
                assert_eq!(s.transcript(), want, "width {width}, lead {lead} (history)");
                // Wide characters before the fields, and a send's result.
                let line = format!(
                    "{}{}",
                    "中".repeat(lead / 2),
                    String::from_utf8_lossy(fields)
                );
                let mut s = Screen::new(config(6, width), None);
                let a = s.anchor();
                s.feed(format!("{line}\r\ndsh> ").as_bytes());
                let text = s.render_since(a, 10_000).text;
                assert_eq!(
                    text,
                    format!("{line}\ndsh> "),
                    "width {width}, lead {lead} (wide)"
                );
            }
        }
    }
}

/// A program that moves the cursor up and erases below before it redraws (IPython re-renders
/// its cell when it runs it): the result shows the redrawn rows, and says nothing about older
/// text left in them; moved up without the erase, it does.
#[test]
fn a_redraw_after_erasing_below_leaves_no_older_text() {
    let cell =
        b"In [0]: 1\r\nOut[0]: 1\r\n\r\nIn [1]: def f(n):\r\n   ...:     return n\r\n   ...: ";
    let redraw = b"\x1b[2A\x1b[12D\x1b[0m\x1b[JIn [1]: def f(n):\r\r\n   ...:     return n\r\r\n   ...: \x1b[8D\r\r\n\x1b[J\r\nIn [2]: ";
    let mut s = Screen::new(config(10, 40), None);
    s.feed(cell);
    let a = s.anchor();
    s.feed(redraw);
    let snapshot = s.snapshot_since(a, 10_000);
    assert!(!snapshot.mixed());
    assert_eq!(
        s.render_since(a, 10_000).text,
        "In [1]: def f(n):\n   ...:     return n\n   ...:\n\nIn [2]: "
    );
    // Without the erase, the rows may keep older text: said so.
    let mut s = Screen::new(config(10, 40), None);
    s.feed(cell);
    let a = s.anchor();
    s.feed(b"\x1b[2A\rIn [1]: x\r\n");
    assert!(s.snapshot_since(a, 10_000).mixed());
}

/// An erase to the line's end, or of characters, at the cursor forgets only the TAB runs it
/// reaches: `grep --color` writes one after each match, and the TABs before it stay TABs.
#[test]
fn c29_an_erase_after_a_tab_keeps_it() {
    let mut s = screen();
    s.feed(b"1\t\x1b[01;31m\x1b[Kfoo\x1b[m\x1b[K\tparis\r\n");
    s.feed(b"a\tb\x1b[Kc\td\r\n");
    s.feed(b"x\ty\x1b[2X\tz\r\n");
    assert_eq!(s.transcript(), "1\tfoo\tparis\na\tbc\td\nx\ty\tz\n");
    // An erase of the whole line, or one that reaches into a run, forgets it.
    let mut s = screen();
    s.feed(b"a\tb\x1b[2Kc\r\n");
    s.feed(b"a\tb\r\x1b[3C\x1b[K\r\n");
    assert_eq!(s.transcript(), "         c\na\n");
}

/// Consuming reads (a background job's drains) of a display that redraws its rows: a read
/// after the redraw shows the rows as they are now and says how many lines of the earlier
/// reads they replace, also when a read came while the cursor had moved up (after an erase
/// with nothing written yet, or halfway through the redraw).
#[test]
fn consuming_reads_of_a_redraw_take_back_the_lines_it_rewrote() {
    let mut s = Screen::new(config(10, 40), None);
    s.feed(b"dsh> cmd\r\nbefore\r\n");
    let a = s.anchor();
    let mut window = JobWindow::default();
    s.feed(b"status 1\r\n");
    window.read(&mut s, a);
    s.feed(b"\x1b[1A\x1b[2Kstatus 2\r\n");
    window.read(&mut s, a);
    s.feed(b"\x1b[1A\x1b[2K");
    window.read(&mut s, a);
    s.feed(b"fin\r\nbar0 1\r\nbar1 1\r\nbar2 1\r\n");
    window.read(&mut s, a);
    // Halfway through a redraw of the three bars.
    s.feed(b"\x1b[3A\x1b[2Kbar0 2\r\n");
    window.read(&mut s, a);
    s.feed(b"\x1b[2Kbar1 2\r\n\x1b[2Kbar2 2\r\n");
    window.read(&mut s, a);
    // Up and erase below, then plain lines (which would skip the emulator as a flood).
    s.feed(b"\x1b[3A\x1b[Jbar0 3\r\nbar1 3\r\nbar2 3\r\ndsh> ");
    window.read(&mut s, a);
    assert_eq!(window.text(), "fin\nbar0 3\nbar1 3\nbar2 3\ndsh> ");
}

/// A redraw of rows a job's earlier output showed, one row per read (a `docker pull` display
/// rewriting each layer's line in turn, reads falling between): every rewound row comes again
/// in the read that takes it back, the unchanged ones too, so the job's window, which
/// replaces the rewound lines with the read's, loses none (it kept only the last row).
#[test]
fn consuming_reads_of_a_redraw_row_by_row_after_it_was_shown_keep_every_row() {
    let mut s = Screen::new(config(10, 40), None);
    s.feed(b"dsh> pull\r\n");
    let a = s.anchor();
    let mut window = JobWindow::default();
    s.feed(b"layer0: Waiting\r\nlayer1: Waiting\r\nlayer2: Waiting\r\n");
    window.read(&mut s, a);
    // The agent read them (`job_output`): its window handed them out.
    s.raise_erased_floor();
    window.lines.clear();
    for i in 0..3 {
        let up = 3 - i;
        s.feed(format!("\x1b[{up}A\x1b[2K\rlayer{i}: Pull complete\x1b[{up}B\r").as_bytes());
        window.read(&mut s, a);
    }
    s.feed(b"Status: done\r\ndsh> ");
    window.read(&mut s, a);
    assert_eq!(
        window.text(),
        "layer0: Pull complete\nlayer1: Pull complete\nlayer2: Pull complete\nStatus: done\ndsh> "
    );
}

/// The tabulation sequences: CHT (`CSI n I`) moves forward as `n` TABs do (and comes back as
/// TABs), CBT (`CSI n Z`) back `n` tab stops.
#[test]
fn cht_and_cbt_move_by_tab_stops() {
    let mut s = screen();
    s.feed(b"a\x1b[2Ib\r\nabcdefghijkl\x1b[ZX\r\nabcdefghijklmnopqrs\x1b[2ZY\r\nab\x1b[Zc\r\n");
    assert_eq!(
        s.transcript(),
        "a\t\tb\nabcdefghXjkl\nabcdefghYjklmnopqrs\ncb\n"
    );
}

/// A combining mark (or another zero-width character) that arrives after a consuming read
/// took the character it combines with belongs to that character's cell: the next read
/// starts the line again, with the mark, rather than losing it (a background job's
/// `printf 'xe'; sleep 1; printf '\xcc\x81y\n'` reads `xéy`).
#[test]
fn a_combining_mark_after_a_consuming_read_restarts_the_line() {
    let cases: [(&[&[u8]], &str); 4] = [
        (&[b"xe", b"\xcc\x81", b"y\r\n"], "xe\u{301}y"),
        (&[b"xe\xcc", b"\x81y\r\n"], "xe\u{301}y"),
        (&["x中".as_bytes(), b"\xcc\x81y\r\n"], "x中\u{301}y"),
        (&[b"xe\xcc\x81", b"\xcc\x81y\r\n"], "xe\u{301}\u{301}y"),
    ];
    for (chunks, line) in cases {
        let mut s = Screen::new(config(10, 40), None);
        s.feed(b"dsh> cmd\r\n");
        let a = s.anchor();
        let mut window = JobWindow::default();
        for chunk in chunks {
            s.feed(chunk);
            window.read(&mut s, a);
        }
        assert_eq!(window.text(), format!("{line}\n"), "{chunks:?}");
    }
}

/// A status line pinned below a scroll region (apt and dpkg set rows 1–39 as the region and
/// redraw their progress on row 40 after each line): the region's rows the output has not
/// reached yet are no lines of it, so reads show the lines and the status line, no blank
/// lines between.
#[test]
fn reads_skip_the_unreached_rows_above_a_pinned_status_line() {
    let mut s = Screen::new(config(40, 160), None);
    s.feed(b"dsh> clear\r\n\x1b[H\x1b[2J\x1b[3Jdsh> ");
    let a = s.anchor();
    s.feed(b"apt install x\r\n\x1b7\x1b[0;39r\x1b8");
    let step = |s: &mut Screen, i: u32| {
        s.feed(format!("Unpacking package-{i:03} ...\r\n").as_bytes());
        s.feed(format!("\x1b7\x1b[40;0f\x1b[42mProgress: [{i:3}%]\x1b[49m\x1b8").as_bytes());
    };
    for i in 0..5 {
        step(&mut s, i);
    }
    let first = s.consume_since(a, 100_000).rows.render(100_000).text;
    let mut expected: Vec<String> = vec!["apt install x".into()];
    expected.extend((0..5).map(|i| format!("Unpacking package-{i:03} ...")));
    expected.push("Progress: [  4%]".into());
    assert_eq!(first.lines().collect::<Vec<_>>(), expected, "{first:?}");
    for i in 5..8 {
        step(&mut s, i);
    }
    let second = s.consume_since(a, 100_000).rows.render(100_000).text;
    let lines: Vec<&str> = second.lines().collect();
    assert!(!lines.contains(&""), "{second:?}");
    assert_eq!(lines.last(), Some(&"Progress: [  7%]"), "{second:?}");
    assert!(second.contains("Unpacking package-007 ..."), "{second:?}");
}

/// The same display read the way a job reads it, with the output cut anywhere: at the
/// program's writes, or at any byte (a reader that fell behind reads whole blocks), with the
/// reads after any of the pieces. Every line reaches the job's window once, in order, and no
/// blank line does: a read that comes while the cursor is away drawing the status line (saved,
/// not restored yet) waits for it to come back.
#[test]
fn reads_cut_anywhere_in_a_pinned_status_lines_redraw_lose_no_line() {
    let mut writes: Vec<Vec<u8>> = vec![b"\x1b7\x1b[0;39r\x1b8".to_vec()];
    for i in 1..=20 {
        writes.push(format!("Unpacking package-{i:03} ...\r\n").into_bytes());
        writes.push(
            format!(
                "\x1b7\x1b[40;0f\x1b[42mProgress: [{:3}%]\x1b[49m\x1b8",
                i * 5
            )
            .into_bytes(),
        );
    }
    writes.push(b"\x1b7\x1b[0;40r\x1b[40;1H\x1b[2K\x1b8done-42\r\ndsh> ".to_vec());
    let all = writes.concat();
    let unpacking: String = (1..=20)
        .map(|i| format!("Unpacking package-{i:03} ...\n"))
        .collect();
    let expected = format!("apt\n{unpacking}done-42\ndsh> ");
    for cut in [0usize, 1, 7, 31] {
        let pieces: Vec<&[u8]> = if cut == 0 {
            writes.iter().map(Vec::as_slice).collect()
        } else {
            all.chunks(cut).collect()
        };
        // Which pieces a read follows: bit `n % 6` of the pattern.
        for pattern in [0b1u64, 0b10, 0b101, 0b10_1010, 0b11_1111] {
            let mut s = Screen::new(config(40, 160), None);
            s.feed(b"dsh> clear\r\n\x1b[H\x1b[2J\x1b[3Jdsh> ");
            let a = s.anchor();
            s.feed(b"apt\r\n");
            let mut window = JobWindow::default();
            for (n, piece) in pieces.iter().enumerate() {
                s.feed(piece);
                if (pattern >> (n % 6)) & 1 == 0 && n + 1 != pieces.len() {
                    continue;
                }
                window.read(&mut s, a);
            }
            assert_eq!(window.text(), expected, "cut {cut}, reads {pattern:b}");
        }
    }
}

/// A line longer than the screen is wide, rewritten after `\r` (which goes back to the start
/// of its last row only): consuming reads give the whole line again, its earlier rows
/// included, so a job's window keeps what the screen shows.
#[test]
fn consuming_reads_of_a_wrapped_line_rewritten_after_cr_keep_its_earlier_rows() {
    let mut s = Screen::new(config(10, 40), None);
    s.feed(b"dsh> cmd\r\n");
    let a = s.anchor();
    let step = |i: u32| format!("\r{} step {i} and more", "x".repeat(35));
    let mut window = JobWindow::default();
    for i in 1..=3 {
        s.feed(step(i).as_bytes());
        window.read(&mut s, a);
    }
    s.feed(b"\r\n");
    window.read(&mut s, a);
    let carry = window.text();
    // What the screen shows: each step's first 40 cells on a row of their own (the `\r` of
    // the next went back to the start of the last row), the last step whole after them, all
    // one soft-wrapped line.
    let x = "x".repeat(35);
    assert_eq!(carry, format!("{x} step{x} step{x} step 3 and more\n"));
    assert!(s.transcript().contains(carry.trim_end()), "{carry:?}");
}

/// Other erases of the rows in use keep the send's lines too: ED 1 (erase above) from the
/// screen's last row, ED 1 from the middle (the rows below stay on screen after them), and
/// the selective erases (DECSED, `CSI ? 2 J`).
#[test]
fn erase_above_and_selective_erases_keep_the_sends_lines() {
    let cases: &[(&[u8], &str)] = &[
        (
            b"\x1b[24;1H\x1b[1J\x1b[Hafter\r\n$ ",
            "run\nu1\nu2\nafter\n$ ",
        ),
        (b"\x1b[?2J\x1b[Hafter\r\n$ ", "run\nu1\nu2\nafter\n$ "),
        (b"\x1b[?J\x1b[H\x1b[?Jafter\r\n$ ", "run\nu1\nu2\nafter\n$ "),
    ];
    for &(erase, expected) in cases {
        let mut s = screen();
        s.feed(b"$ echo earlier\r\nearlier\r\n$ ");
        let a = s.anchor();
        s.feed(b"run\r\nu1\r\nu2\r\n");
        s.feed(erase);
        assert_eq!(s.render_since(a, 10_000).text, expected, "{erase:?}");
        assert!(
            s.transcript()
                .starts_with("$ echo earlier\nearlier\n$ run\nu1\nu2\n")
        );
    }
    // From the middle: the rows above the cursor go into history (`below` was written over
    // `top`); the cursor's row, erased up to the cursor, and the rows below stay. The blank
    // rows the erase left above them are no line of the output (with the cursor low on the
    // screen, they were a screenful of empty lines in the result), until text is written on
    // one.
    let mut s = screen();
    s.feed(b"$ ");
    let a = s.anchor();
    s.feed(b"run\r\ntop\r\nmid\r\n\x1b[2Abelow\x1b[B\r\x1b[1Jx\r\n$ ");
    assert_eq!(s.render_since(a, 10_000).text, "run\nbelow\nxid\n$ ");
    let mut s = screen();
    s.feed(b"$ ");
    let a = s.anchor();
    s.feed(b"run\r\none\r\ntwo\r\n\x1b[1J\x1b[2Aon top\x1b[2B\r$ ");
    assert_eq!(s.render_since(a, 10_000).text, "run\none\ntwo\non top\n$ ");
    assert!(
        s.transcript().starts_with("$ run\n"),
        "{:?}",
        s.transcript()
    );
}

/// An erase or a full reset on the alternate screen moves none of its rows into history (a
/// full-screen program's redraws are no lines of output).
#[test]
fn erases_on_the_alternate_screen_keep_history_as_it_was() {
    for erase in [&b"\x1b[2J"[..], b"\x1b[24;1H\x1b[1J", b"\x1bc"] {
        let mut s = screen();
        s.feed(b"$ tui\r\n\x1b[?1049h\x1b[Hframe one\r\nstatus");
        s.feed(erase);
        s.feed(b"\x1b[?1049l$ ");
        let transcript = s.transcript();
        assert!(
            !transcript.contains("frame one"),
            "{erase:?}: {transcript:?}"
        );
        // A full reset leaves the alternate screen and clears the main one too.
        if erase != b"\x1bc" {
            assert_eq!(transcript, "$ tui\n$ ", "{erase:?}");
        }
    }
}

/// A text written over one that a carriage return ended a read with (the rest of the row came
/// in a later read: `printf 'error: build failed\r'; sleep 1; echo Build`) is a mixed row as
/// when both come in one read; a line feed that comes next ends the row as usual.
#[test]
fn a_text_after_a_carriage_return_that_ended_a_read_is_over_the_row() {
    let mut s = screen();
    s.feed(&mark("C"));
    s.feed(b"error: build failed\r");
    s.feed(b"Build\r\n");
    let notes = s.take_span_notes();
    assert_eq!(notes.mixed_row, Some(("Build: build failed".to_owned(), 1)));
    assert!(notes.erased.is_none(), "{:?}", notes.erased);
    s.feed(b"FAIL test_foo\r");
    s.feed(b"PASS\n");
    assert_eq!(s.take_mixed_row(), Some(("PASS test_foo".to_owned(), 1)));
    s.feed(b"abc\r");
    s.feed(b"\nnext\r\n");
    assert_eq!(s.take_mixed_row(), None);
}

/// A read that ends with a line's carriage return, the next one starting with its line feed
/// (a REPL's echo of Enter split between two reads): the next line starts a row of its own.
#[test]
fn a_line_end_split_after_its_carriage_return_keeps_the_next_line_apart() {
    for first in [
        &b">>> print(x)\r"[..],
        b"def g():\r\n...     return 1\r\n...\r\n>>> print(x)\r",
        b"\r\n>>> print(x)\r",
        b"print(x)\r",
    ] {
        let mut s = screen();
        s.feed(&mark("C"));
        s.feed(first);
        s.feed(b"\nG 0\r\n>>> ");
        assert!(
            s.transcript().ends_with("print(x)\nG 0\n>>> "),
            "{first:?}: {:?}",
            s.transcript()
        );
    }
}

/// A shorter text written over a longer one after a carriage return leaves the longer one's
/// end showing: the row is noted.
#[test]
fn a_shorter_text_over_a_longer_one_is_a_mixed_row() {
    let mut s = screen();
    s.feed(&mark("C"));
    s.feed(b"id,name,email\r1,alice,a@x.org\r2,bob,b@y\r");
    s.feed(b"\n");
    assert_eq!(s.take_mixed_row(), Some(("2,bob,b@y@x.org".to_owned(), 1)));
    // Frames of the same width, a longer last text, or an erase of the rest: nothing mixed.
    s.feed(b" 10%\r 20%\r100%\r\n");
    s.feed(b"abc\rabcdef\r\n");
    s.feed(b"Downloading files\rDone\x1b[K\r\n");
    assert_eq!(s.take_mixed_row(), None);
    // A row that shows an earlier text whole: the newer texts repeat its start.
    s.feed(b"Loading...\rLoading\r\n");
    s.feed(b"Working...\rWorking.\rWorking..\r\n");
    s.feed(b"abc\rxyz\rabcdef\rabc\r\n");
    // Or moved along the row: characters inserted before it pushed it right.
    s.feed(b"abcdef\r\x1b[2@XY\r\n");
    assert_eq!(s.take_mixed_row(), None);
    // A line editor's redraw in place: readline accepting a history search deletes the
    // search's prefix (`CSI 21 P`), writes its prompt and moves the cursor over the rest.
    s.feed(b">>> \r(reverse-i-search)`alp': alpha = \"alpha value here\"");
    s.feed(b"\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08");
    s.feed(b"\r\x1b[21P>>>\x1b[C\x1b[C\x1b[C\x1b[C\x1b[C\x1b[C\x1b[C\x1b[C\x1b[C\x1b[C\r\n");
    assert_eq!(s.take_mixed_row(), None);
    // One that does not: the newest differs from the longest before it.
    s.feed(b"abcdef\rabc\rabx\r\n");
    assert_eq!(s.take_mixed_row(), Some(("abxdef".to_owned(), 1)));
    // Nor does a number cut short without an erase, though the row shows the older text
    // whole: it reads as another number than the program's newest.
    s.feed(b"Total: 1500\rTotal: 15\n");
    assert_eq!(s.take_mixed_row(), Some(("Total: 1500".to_owned(), 1)));
    s.feed(b"\rRemaining: 100\rRemaining: 50\rRemaining: 10\r\n");
    assert_eq!(s.take_mixed_row(), Some(("Remaining: 100".to_owned(), 1)));
    // A count that grew, or dots after a number, are a line the program wrote.
    s.feed(b"Total: 15\rTotal: 1500\n");
    s.feed(b"Step 3...\rStep 3\r\n");
    assert_eq!(s.take_mixed_row(), None);
    // A problem line written over so is said to mix, not to be erased.
    s.feed(b"\x1b[31mFAIL long\x1b[0m\r\x1b[32mPASS\x1b[0m\r\n");
    let notes = s.take_span_notes();
    assert_eq!(notes.mixed_row, Some(("PASS long".to_owned(), 1)));
    assert!(notes.erased.is_none(), "{:?}", notes.erased);
    // The output's last row, which no line feed ends: once the prompt is back below it.
    s.feed(b"name,email\r1,alice,a@x.org\r2,bob,b@y\r");
    assert_eq!(s.take_mixed_row(), None);
    s.feed(&mark("D;0"));
    assert_eq!(s.take_mixed_row(), Some(("2,bob,b@y@x.org".to_owned(), 1)));
}

/// A row written over after carriage returns, erased, then given a whole line in a read of its
/// own (git's `hint: Waiting for your editor…`, `\r\x1b[K`, `Rebasing (2/3)\r`, …, then
/// `Successfully rebased…`, each written apart): the line is what the program wrote, and no
/// mix of texts is said once the prompt is back (the line took the flood path, which left the
/// row's record of carriage returns behind, stale).
#[test]
fn a_line_after_an_erased_row_of_carriage_returns_is_no_mix() {
    let mut s = screen();
    s.feed(&mark("C"));
    for piece in [
        &b"hint: Waiting for your editor to close the file... "[..],
        b"\r\x1b[K",
        b"Rebasing (2/3)\r",
        b"Rebasing (3/3)\r",
        b"\r\x1b[K",
        b"Successfully rebased and updated refs/heads/main.\r\n",
    ] {
        s.feed(piece);
    }
    s.feed(&mark("D;0"));
    s.feed(b"dsh> ");
    assert_eq!(s.take_mixed_row(), None);
}
