//! The prompt drawn on a row of its own below every row holding text, and a scroll region or
//! origin mode a command left set reset, at a verified `D` mark (see `prompt_row`).

use pretty_assertions::assert_eq;

use super::*;

/// A screen of `n` old lines under a first prompt, the cursor on a fresh row after them.
fn screen_with_lines(n: usize) -> Screen {
    let mut s = screen();
    for i in 1..=n {
        s.feed(format!("old-line-{i}-xxxxxxxxxxxxxxxx\r\n").as_bytes());
    }
    s
}

fn prompt() -> Vec<u8> {
    [mark("D;0").as_slice(), b"dsh> "].concat()
}

#[test]
fn a_prompt_after_the_cursor_moved_up_goes_below_the_text_left_there() {
    let mut s = screen_with_lines(6);
    let a = s.anchor();
    s.feed(b"dsh> printf ...\r\na\r\nb\r\nc\r\nd\r\n\x1b[3A");
    s.feed(&prompt());
    assert_eq!(
        s.render_since(a, 10_000).text,
        "dsh> printf ...\na\nb\nc\nd\ndsh> "
    );
    // The next command's output is its own, on fresh rows.
    let b = s.anchor();
    s.feed(b"echo 7\r\n7\r\n");
    s.feed(&prompt());
    assert_eq!(s.render_since(b, 10_000).text, "echo 7\n7\ndsh> ");
    assert!(!s.snapshot_since(b, 10_000).mixed());
}

#[test]
fn a_prompt_after_a_jump_home_leaves_every_row_in_place() {
    let mut s = screen_with_lines(30);
    let a = s.anchor();
    s.feed(b"dsh> tput cup 0 0\r\n\x1b[H");
    s.feed(&prompt());
    assert_eq!(s.render_since(a, 10_000).text, "dsh> tput cup 0 0\ndsh> ");
    let b = s.anchor();
    s.feed(b"echo $?\r\n0\r\n");
    s.feed(&prompt());
    assert_eq!(s.render_since(b, 10_000).text, "echo $?\n0\ndsh> ");
    let t = s.transcript();
    assert!(t.starts_with("old-line-1-x"), "{t:?}");
    assert!(t.contains("old-line-30-x"), "{t:?}");
}

#[test]
fn output_ended_by_a_carriage_return_is_not_drawn_over() {
    for full in [false, true] {
        let mut s = screen_with_lines(if full { 40 } else { 3 });
        let a = s.anchor();
        s.feed(b"dsh> printf ...\r\nvalue=42\r");
        s.feed(&prompt());
        assert_eq!(
            s.render_since(a, 10_000).text,
            "dsh> printf ...\nvalue=42\ndsh> ",
            "full: {full}"
        );
    }
}

#[test]
fn output_since_the_last_result_starts_at_the_moved_prompt() {
    // A loop redrawing a status line at the top is interrupted: what follows the last result
    // (taken with the cursor under the status line, old rows below it) is the prompt alone.
    let mut s = screen_with_lines(12);
    s.feed(b"dsh> while ...\r\n\x1b[Hstatus: 1\r\n");
    let a = s.anchor();
    s.feed(b"\x1b[Hstatus: 2\r\n");
    s.feed(&prompt());
    assert_eq!(
        s.render_since(a, 10_000).text,
        "status: 21-xxxxxxxxxxxxxxxx\ndsh> "
    );
}

#[test]
fn a_prompt_after_a_line_end_stays_where_it_is() {
    let mut s = screen_with_lines(3);
    s.feed(&prompt());
    assert_eq!(s.cursor(), Position { row: 3, col: 5 });
}

#[test]
fn output_without_a_line_end_gets_the_prompt_on_the_next_row() {
    let mut s = screen_with_lines(3);
    let a = s.anchor();
    s.feed(b"dsh> printf abc\r\nabc");
    s.feed(&prompt());
    assert_eq!(
        s.render_since(a, 10_000).text,
        "dsh> printf abc\nabc\ndsh> "
    );
    // A line that fills the row exactly: the prompt is on the next row, not joined to it.
    let b = s.anchor();
    let full = "0".repeat(80);
    s.feed(format!("printf ...\r\n{full}").as_bytes());
    s.feed(&prompt());
    assert_eq!(
        s.render_since(b, 10_000).text,
        format!("printf ...\n{full}\ndsh> ")
    );
    assert!(s.transcript().contains(&format!("\n{full}\ndsh> ")));
}

#[test]
fn output_that_went_up_over_its_own_lines_keeps_them_all() {
    // Steps printed, then a status written at the top of the screen, ended by a carriage
    // return: every line is the send's.
    let mut s = screen_with_lines(5);
    let a = s.anchor();
    s.feed(b"dsh> seq ...; tput cup 0 0; printf ...\r\n");
    for i in 1..=12 {
        s.feed(format!("build step {i}\r\n").as_bytes());
    }
    s.feed(b"\x1b[HSTATUS: 12 steps ok\r");
    s.feed(&prompt());
    let text = s.render_since(a, 10_000).text;
    for i in 1..=12 {
        assert!(text.contains(&format!("build step {i}\n")), "{text:?}");
    }
    assert!(text.contains("STATUS: 12 steps ok"), "{text:?}");
    assert!(text.ends_with("\ndsh> "), "{text:?}");
}

#[test]
fn an_interrupt_passing_over_old_rows_leaves_them_out_of_the_next_result() {
    // A command moved the cursor onto old rows and was interrupted; the shell's line end
    // after the interrupt passes over the row: the rows are no output of what follows.
    let mut s = screen_with_lines(12);
    s.feed(b"dsh> tput cup 3 0; sleep 5\r\n\x1b[4;1H");
    let a = s.anchor();
    s.feed(b"\r\n");
    s.feed(&prompt());
    assert_eq!(s.render_since(a, 10_000).text, "dsh> ");
}

#[test]
fn a_scroll_region_left_set_is_reset_at_the_prompt() {
    for set in [&b"\x1b[5;10r"[..], b"\x1b[5;10r\x1b[?6h"] {
        let mut s = screen_with_lines(20);
        s.feed(set);
        s.feed(b"\x1b[21;1H");
        s.feed(&prompt());
        let a = s.anchor();
        let lines: String = (1..=30).map(|i| format!("n{i}\r\n")).collect();
        s.feed(lines.as_bytes());
        s.feed(&prompt());
        let expected: String = (1..=30).map(|i| format!("n{i}\n")).collect();
        assert_eq!(s.render_since(a, 10_000).text, format!("{expected}dsh> "));
    }
}

#[test]
fn a_prompt_drawn_again_over_the_line_editors_line_stays_in_place() {
    // Readline leaving a history search draws the same prompt (the same command number)
    // again at the row's start, over the search's prompt, and keeps the line found: the row
    // shows the prompt and that line, which the line editor holds.
    let numbered_prompt = |n: u32| {
        [
            mark(&format!("D;0;n={n}")),
            mark(&format!("A;n={n}")),
            b"dsh> ".to_vec(),
            mark(&format!("B;n={n}")),
        ]
        .concat()
    };
    let mut s = screen();
    s.feed(&numbered_prompt(1));
    s.feed(b"\r(reverse-i-search)`ran': echo ran-42");
    s.feed(b"\r\x1b[20P");
    s.feed(&numbered_prompt(1));
    s.feed(b"\x1b[C\x1b[C\x1b[C\x1b[C\x1b[C");
    assert_eq!(s.cursor(), Position { row: 0, col: 10 });
    assert_eq!(s.text_after_prompt().as_deref(), Some("echo ran-42"));
    // The next command's prompt after output without a line end still goes below it.
    s.feed(b"\r\n");
    let a = s.anchor();
    s.feed(&mark("C;n=1"));
    s.feed(b"ran-42");
    s.feed(&numbered_prompt(2));
    assert_eq!(s.render_since(a, 10_000).text, "ran-42\ndsh> ");
}
