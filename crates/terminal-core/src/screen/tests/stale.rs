//! Rows an earlier program left below the cursor (it moved the cursor up without clearing):
//! a later send's result ends at what that send wrote, not on them.

use pretty_assertions::assert_eq;

use super::*;

/// The screen after twelve long lines, then `printf '\033[H'; echo TOP` and its prompt: the
/// cursor sits on row 1, the old lines below it.
fn screen_with_old_rows_below_the_prompt() -> Screen {
    let mut s = Screen::new(config(40, 160), None);
    s.feed(b"dsh> for i in ...\r\n");
    for i in 1..=12 {
        s.feed(format!("old-line-{i}-xxxxxxxxxxxxxxxxxxxx\r\n").as_bytes());
    }
    s.feed(b"dsh> printf ...; echo TOP\r\n\x1b[HTOP\r\ndsh> ");
    s
}

#[test]
fn a_send_after_the_cursor_moved_up_ends_at_its_own_output() {
    let mut s = screen_with_old_rows_below_the_prompt();
    let a = s.anchor();
    s.feed(b"echo hello\r\nhello\r\ndsh> ");
    // `hello` overwrote the start of an old row (the screen shows the rest of it: a terminal
    // does too); the rows below the new prompt, and the old text after it, are not the send's.
    assert_eq!(
        s.render_since(a, 10_000).text,
        "echo hello\nhelloine-2-xxxxxxxxxxxxxxxxxxxx\ndsh> "
    );
    // The result says a line may end with older text.
    assert!(s.snapshot_since(a, 10_000).mixed());
    // The next send too.
    let b = s.anchor();
    s.feed(b"echo world\r\nworld\r\ndsh> ");
    assert_eq!(
        s.render_since(b, 10_000).text,
        "echo world\nworldine-4-xxxxxxxxxxxxxxxxxxxx\ndsh> "
    );
    // The screen itself is unchanged: a page shows every row.
    let page = s
        .page(None, None, 100_000)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(page.text.contains("old-line-12-x"), "{:?}", page.text);
}

#[test]
fn rows_a_send_writes_below_the_cursor_are_its_output() {
    // A program that writes lines and moves the cursor back up over them (a multi-line
    // progress display) keeps them in its result, over old rows or blank ones.
    for mut s in [
        screen_with_old_rows_below_the_prompt(),
        Screen::new(config(40, 160), None),
    ] {
        let a = s.anchor();
        s.feed(b"progress\r\nstep 1 done\r\nstep 2 done\r\nstep 3 running\r\n\x1b[3A");
        let text = s.render_since(a, 10_000).text;
        let lines: Vec<&str> = text.lines().collect();
        let written = ["progress", "step 1 done", "step 2 done", "step 3 running"];
        assert!(lines.len() >= written.len(), "{text:?}");
        for (line, w) in lines.iter().zip(written) {
            assert!(line.starts_with(w), "{text:?}");
        }
        // An old row the send changed further down counts too.
        s.feed(b"\x1b[6Bchanged");
        let text = s.render_since(a, 10_000).text;
        assert!(text.trim_end().ends_with("changed"), "{text:?}");
    }
}

#[test]
fn a_clear_after_the_cursor_moved_up_keeps_old_rows_out_of_the_result() {
    // `clear` (ED 2), and `tput clear` as some terminfo entries have it (home, then ED 0).
    for clear in [&b"\x1b[H\x1b[2J\x1b[3J"[..], b"\x1b[H\x1b[J"] {
        let mut s = screen_with_old_rows_below_the_prompt();
        let a = s.anchor();
        s.feed(b"clear; echo hi\r\n");
        s.feed(clear);
        s.feed(b"hi\r\ndsh> ");
        assert_eq!(s.render_since(a, 10_000).text, "clear; echo hi\nhi\ndsh> ");
        assert!(!s.snapshot_since(a, 10_000).mixed());
    }
    let mut s = screen_with_old_rows_below_the_prompt();
    s.feed(b"clear; echo hi\r\n\x1b[H\x1b[2J\x1b[3Jhi\r\ndsh> ");
    // What the clear erased is still paged.
    let page = s
        .page(None, None, 100_000)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(page.text.contains("old-line-12-x"), "{:?}", page.text);
}

#[test]
fn output_that_jumps_above_the_prompt_leaves_the_rows_it_jumped_over_out() {
    let mut s = numbered_lines_then_prompt(b"", 60);
    let a = s.anchor();
    s.feed(b"printf '\\033[H'; echo TOP\r\n\x1b[HTOP\r\ndsh> ");
    let text = s.render_since(a, 10_000).text;
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.contains(&"TOP"), "{text:?}");
    // `TOP` and the prompt covered all the old text on their rows (`22`, `23`).
    assert!(!s.snapshot_since(a, 10_000).mixed(), "{text:?}");
    assert!(!lines.contains(&"40"), "{text:?}");
    assert!(!lines.contains(&"59"), "{text:?}");
    // The command line it started from stays.
    assert!(text.contains("printf '\\033[H'; echo TOP"), "{text:?}");
    // The next send ends at its own prompt.
    let b = s.anchor();
    s.feed(b"echo next\r\nnext\r\ndsh> ");
    let text = s.render_since(b, 10_000).text;
    // Its lines covered all the old text on their rows (numbers of two digits at most).
    assert!(!s.snapshot_since(b, 10_000).mixed(), "{text:?}");
    assert!(text.ends_with("next\ndsh> "), "{text:?}");
    assert!(!text.contains("59"), "{text:?}");
}

/// Output that jumps above the send's start and writes lines there with newlines, then moves
/// the cursor further up: every row it wrote is the send's, not only the first.
#[test]
fn lines_written_above_the_start_all_count_as_the_sends() {
    let mut s = numbered_lines_then_prompt(b"dsh> seq 1 20\r\n", 20);
    let a = s.anchor();
    s.feed(b"printf x\r\n\x1b[5;1HA1\r\nA2\r\nA3\r\n\x1b[1;1Hdsh> ");
    let text = s.render_since(a, 10_000).text;
    // The top row's old text after the cursor (`seq 1 20`) is not shown as the send's, as on
    // any row an earlier program left.
    assert_eq!(text, "dsh> \nA1\nA2\nA3\ndsh> printf x");
    // The prompt is on the first of them: four lines follow the cursor's.
    assert_eq!(s.snapshot_since(a, 10_000).lines_after_cursor(), 4);
    let b = s.anchor();
    s.feed(b"\x1b[40;1Hecho next\r\nnext\r\ndsh> ");
    assert_eq!(s.snapshot_since(b, 10_000).lines_after_cursor(), 0);
}

/// A 40×160 screen after `before`, the lines `1` to `n` and a prompt `dsh> `.
fn numbered_lines_then_prompt(before: &[u8], n: u32) -> Screen {
    let mut s = Screen::new(config(40, 160), None);
    s.feed(before);
    for i in 1..=n {
        s.feed(format!("{i}\r\n").as_bytes());
    }
    s.feed(b"dsh> ");
    s
}

/// Output written over the rows an earlier program left, with the same text in places, is
/// all the send's: `seq 1 8` over the lines of `seq 1 10`, and its command line typed over the
/// earlier one, whose end it shares.
#[test]
fn output_equal_to_the_rows_it_overwrote_is_still_the_sends() {
    for (command, n) in [("seq 1 8", 8), ("seq 1 30", 30)] {
        let mut s = Screen::new(config(40, 160), None);
        s.feed(b"dsh> seq 1 10\r\n");
        for i in 1..=10 {
            s.feed(format!("{i}\r\n").as_bytes());
        }
        s.feed(b"dsh> printf '\\033[H'\r\n\x1b[Hdsh> ");
        let a = s.anchor();
        let mut out = format!("{command}\r\n");
        let mut expected = format!("{command}\n");
        for i in 1..=n {
            out.push_str(&format!("{i}\r\n"));
            expected.push_str(&format!("{i}\n"));
        }
        out.push_str("dsh> ");
        expected.push_str("dsh> ");
        // `11` went over the earlier command line, whose end still shows, as on a terminal.
        let expected = expected.replace("\n11\n", "\n11h> printf '\\033[H'\n");
        s.feed(out.as_bytes());
        assert_eq!(s.render_since(a, 10_000).text, expected, "{command}");
    }
    // Lines equal to the rows they overwrite amid others.
    let mut s = numbered_lines_then_prompt(b"", 50);
    let a = s.anchor();
    s.feed(b"printf x\r\n\x1b[10;1H22\r\n23\r\n24\r\nnew\r\n\x1b[40;1Hdsh> ");
    let text = s.render_since(a, 10_000).text;
    assert!(text.contains("22\n23\n24\nnew\n"), "{text:?}");
    // In a scroll region, where the lines scroll over rows holding the same numbers.
    for region in ["\x1b[3;30r", "\x1b[1;30r"] {
        let mut s = numbered_lines_then_prompt(b"", 50);
        let a = s.anchor();
        let mut out = format!("printf x\r\n{region}\x1b[10;1H");
        // Two digits, as the numbers there: each line covers what was on its row.
        for i in 10..=39 {
            out.push_str(&format!("{i}\r\n"));
        }
        out.push_str("\x1b[r\x1b[40;1Hdsh> ");
        s.feed(out.as_bytes());
        let text = s.render_since(a, 10_000).text;
        let lines: Vec<&str> = text.lines().collect();
        let mut at = 0;
        for i in 10..=39 {
            let line = i.to_string();
            let found = lines[at..].iter().position(|l| *l == line);
            assert!(found.is_some(), "{region:?}: {line} in order in {text:?}");
            at += found.unwrap_or(0) + 1;
        }
    }
}

/// Over rows an earlier program left: a blank line of the output stays a blank line, and a
/// line that covers only the start of an old one (which then still shows, as on a terminal)
/// makes the result say it may end with older text.
#[test]
fn blank_lines_and_old_tails_over_left_rows() {
    let over_old_rows = |old: &[u8], out: &[u8]| {
        let mut s = Screen::new(config(40, 160), None);
        s.feed(old);
        s.feed(b"dsh> printf '\\033[H'\r\n\x1b[Hdsh> ");
        let a = s.anchor();
        s.feed(out);
        (
            s.render_since(a, 10_000).text,
            s.snapshot_since(a, 10_000).mixed(),
        )
    };
    let (text, _) = over_old_rows(
        b"dsh> seq 1 10\r\n1\r\n2\r\n3\r\n4\r\n5\r\n",
        b"printf x\r\na\r\n\r\nb\r\ndsh> ",
    );
    assert_eq!(text, "printf x\na\n\nb\ndsh> ");
    let (text, mixed) = over_old_rows(
        b"dsh> printf ...\r\nstatus\r\ntotal: 1000\r\n",
        b"printf y\r\nstatus\r\ntotal: 10\r\ndsh> ",
    );
    assert_eq!(text, "printf y\nstatus\ntotal: 1000\ndsh> ");
    assert!(mixed, "total: 10 over total: 1000 leaves older text");
}

/// A `\r` progress line leaves text on the prompt's row: a command typed over all of it leaves
/// none, so its result is not said to mix older text in; one typed over part of it is shown
/// without that text's rest.
#[test]
fn a_command_typed_over_all_a_progress_line_left_is_not_mixed() {
    let mut s = Screen::new(config(40, 160), None);
    s.feed(b"dsh> printf ...\r\nprogress 50%\rdsh> ");
    let a = s.anchor();
    s.feed(b"echo hi\r\nhi\r\ndsh> ");
    assert_eq!(s.render_since(a, 10_000).text, "echo hi\nhi\ndsh> ");
    assert!(!s.snapshot_since(a, 10_000).mixed());
    s.feed(b"printf ...\r\nprogress 50%\rdsh> ");
    let b = s.anchor();
    s.feed(b"ls\r\nfile\r\ndsh> ");
    assert_eq!(s.render_since(b, 10_000).text, "ls\nfile\ndsh> ");
    // A longer line left there: the rest of it after the command is not shown as typed.
    s.feed(b"printf ...\r\ndownloading a-much-longer-name 50%\rdsh> ");
    let c = s.anchor();
    s.feed(b"echo hi\r\nhi\r\ndsh> ");
    assert_eq!(s.render_since(c, 10_000).text, "echo hi\nhi\ndsh> ");
}

/// A loop that redraws from the top of the screen (`ESC[H`), erasing each row before it
/// writes (`ESC[K`) and the rest of the screen after (`ESC[J`), as `watch` does on the main
/// screen, leaves no older text on any row: its result is not said to mix older text in.
#[test]
fn a_redraw_that_erases_what_it_writes_over_is_not_mixed() {
    let erase_first = |i: u32| format!("\x1b[H\x1b[Ktick {i}\r\n\x1b[Kline two {i}\r\n\x1b[J");
    let erase_after = |i: u32| format!("\x1b[Htick {i}\r\nline two {i}\x1b[K\r\n\x1b[J");
    for redraw in [erase_first, erase_after] {
        let mut s = numbered_lines_then_prompt(b"", 60);
        let a = s.anchor();
        s.feed(b"for i in 1 2 3; do ...; done\r\n");
        for i in 1..=3 {
            s.feed(redraw(i).as_bytes());
        }
        s.feed(b"dsh> ");
        let text = s.render_since(a, 10_000).text;
        assert_eq!(text, "tick 3\nline two 3\ndsh> ");
        assert!(!s.snapshot_since(a, 10_000).mixed(), "{text:?}");
    }
    // Without the erases, over longer old rows, the rows keep older text after what the
    // redraw wrote (as the screen shows it), and the result says so.
    let mut s = screen_with_old_rows_below_the_prompt();
    s.feed(b"dsh> ");
    let a = s.anchor();
    s.feed(b"loop\r\n\x1b[Htick 1\r\nline two 1\r\n\x1b[Htick 2\r\nline two 2\r\n");
    let text = s.render_since(a, 10_000).text;
    assert!(text.starts_with("tick 2"), "{text:?}");
    assert!(s.snapshot_since(a, 10_000).mixed(), "{text:?}");
}

/// Blank rows between the cursor and text an earlier program left further down (`tput cup 39
/// 0; printf BOTTOM; tput cup 0 0`) are no lines of a later send's output, also once a clear
/// moved them into history with the rest of the screen.
#[test]
fn blank_rows_above_text_left_at_the_bottom_are_no_output() {
    let mut s = Screen::new(config(40, 160), None);
    s.feed(b"dsh> seq 1 3; tput cup 39 0; printf BOTTOM; tput cup 0 0\r\n1\r\n2\r\n3\r\n");
    s.feed(b"\x1b[40;1HBOTTOM\x1b[1;1Hdsh> ");
    let a = s.anchor();
    s.feed(b"clear; echo NEW\r\n\x1b[H\x1b[2J\x1b[3JNEW\r\ndsh> ");
    let text = s.render_since(a, 10_000).text;
    assert!(!text.contains("\n\n"), "{text:?}");
    assert!(text.ends_with("NEW\ndsh> "), "{text:?}");
    // Without a clear: a blank line of the output over those rows stays a blank line.
    let mut s = Screen::new(config(40, 160), None);
    s.feed(b"dsh> tput cup 39 0; printf BOTTOM; tput cup 0 0\r\n\x1b[40;1HBOTTOM\x1b[1;1Hdsh> ");
    let b = s.anchor();
    s.feed(b"x\r\none\r\n\r\ntwo\r\ndsh> ");
    assert_eq!(s.render_since(b, 10_000).text, "x\none\n\ntwo\ndsh> ");
}

/// A redraw in place above the send's start that goes back down with line feeds (a multi-line
/// progress display updating its first line, polled after it printed the others) leaves the
/// rows it passes over as they are: they show as on screen, not as blank lines that would
/// read as erased, and the result says older text is mixed in.
#[test]
fn rows_a_redraw_above_the_start_passes_over_show_as_they_are() {
    let mut s = Screen::new(config(40, 160), None);
    s.feed(b"dsh> seq 1 5\r\n1\r\n2\r\n3\r\n4\r\n5\r\ndsh> ");
    let a = s.anchor();
    s.feed(b"printf '\\033[3AZZ\\n\\n\\n'\r\n\x1b[3AZZ\r\n\r\n\r\ndsh> ");
    assert_eq!(
        s.render_since(a, 10_000).text,
        "ZZ\n5\ndsh> printf '\\033[3AZZ\\n\\n\\n'\ndsh> "
    );
    assert!(s.snapshot_since(a, 10_000).mixed());
    let mut s = Screen::new(config(40, 160), None);
    s.feed(b"dsh> run\r\njob1: running\r\njob2: running\r\njob3: running\r\n");
    let poll = s.anchor();
    s.feed(b"\x1b[3A\rjob1: done\x1b[K\r\n\r\n\r\nend\r\ndsh> ");
    assert_eq!(
        s.render_since(poll, 10_000).text,
        "job1: done\njob2: running\njob3: running\nend\ndsh> "
    );
}

/// Output that skips cells of a row an earlier program left (a TAB, a cursor move forward)
/// and erases the rest of it leaves that program's text in the skipped cells: the result
/// shows them as the screen does and says it mixes older text in; a TAB over blank cells
/// of such a row does not.
#[test]
fn cells_a_tab_or_cursor_move_skipped_keep_older_text_and_say_so() {
    for (written, shown) in [
        (&b"ab\tcd\x1b[K"[..], "abd-linecd"),
        (&b"ab\x1b[6Ccd\x1b[K"[..], "abd-linecd"),
    ] {
        let mut s = screen_with_old_rows_below_the_prompt();
        let a = s.anchor();
        s.feed(b"printf x\r\n");
        s.feed(written);
        s.feed(b"\r\ndsh> ");
        let text = s.render_since(a, 10_000).text;
        assert_eq!(text, format!("printf x\n{shown}\ndsh> "));
        assert!(s.snapshot_since(a, 10_000).mixed(), "{text:?}");
    }
    // Over a row that is blank where the TAB skips: nothing older shows, nothing is said.
    let mut s = Screen::new(config(40, 160), None);
    s.feed(b"dsh> printf ...\r\nab      old text\r\n\x1b[Adsh> ");
    let a = s.anchor();
    s.feed(b"printf x\r\nab\tcd\x1b[K\r\ndsh> ");
    let text = s.render_since(a, 10_000).text;
    assert_eq!(text, "printf x\nab\tcd\ndsh> ");
    assert!(!s.snapshot_since(a, 10_000).mixed(), "{text:?}");
}

/// Output written below the send's start before the cursor jumps above it (to the top row)
/// and the prompt comes there: the rows written below stay the send's.
#[test]
fn lines_written_before_a_jump_above_the_start_stay_the_sends() {
    let mut s = Screen::new(config(40, 160), Some(super::nonce()));
    for i in 1..=45 {
        s.feed(format!("{i}\r\n").as_bytes());
    }
    let prompt = [
        super::mark("D;0"),
        super::mark("A"),
        b"dsh> ".to_vec(),
        super::mark("B"),
    ]
    .concat();
    s.feed(&prompt);
    let a = s.anchor();
    s.feed(
        &[
            b"printf x\r\n".to_vec(),
            super::mark("C"),
            b"y\x1b[1;1H\r\n".to_vec(),
            prompt,
        ]
        .concat(),
    );
    let text = s.render_since(a, 10_000).text;
    assert_eq!(text, "printf x\ny\ndsh> ");
}
