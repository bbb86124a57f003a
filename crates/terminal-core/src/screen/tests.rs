use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::binary::pseudo_random;
use super::*;

pub(super) fn config(rows: u16, cols: u16) -> ScreenConfig {
    ScreenConfig {
        rows,
        cols,
        scrollback_lines: 10_000,
        scrollback_max_bytes: 4 * 1024 * 1024,
    }
}

fn nonce() -> PromptNonce {
    PromptNonce::from_hex("0123456789abcdef0123").unwrap_or_else(|| panic!("valid nonce"))
}

fn screen() -> Screen {
    Screen::new(config(24, 80), Some(nonce()))
}

/// A 24×80 screen without a prompt nonce, for the unit tests of the screen's parts.
pub(super) fn plain_screen() -> Screen {
    Screen::new(config(24, 80), None)
}

fn mark(payload: &str) -> Vec<u8> {
    format!("\x1b]133;{payload};dsh={}\x07", nonce().as_str()).into_bytes()
}

#[test]
fn carriage_return_overwrites() {
    let mut s = screen();
    s.feed(b"progress 1\rprogress 2\rprogress 3\r\n");
    let t = s.transcript();
    assert!(t.contains("progress 3"), "{t:?}");
    assert!(!t.contains("progress 1"), "{t:?}");
}

#[test]
fn erase_line_resolves() {
    let mut s = screen();
    s.feed(b"hello world\r\x1b[Kbye\r\n");
    assert_eq!(s.transcript(), "bye\n");
}

#[test]
fn no_escape_leaks() {
    let mut s = screen();
    s.feed(b"\x1b[1;31mred\x1b[0m \x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1b7\x1b8ok\r\n");
    let t = s.transcript();
    assert_eq!(t, "red link ok\n");
    assert!(!t.contains('\x1b'));
}

#[test]
fn split_utf8_is_completed_by_next_chunk() {
    let mut s = screen();
    s.feed(b"h\xc3");
    s.feed(b"\xa9llo\r\n");
    assert_eq!(s.transcript(), "h\u{e9}llo\n");
    let mut s = screen();
    for b in "┌──┐ 中文 é\r\n".as_bytes() {
        s.feed(&[*b]);
    }
    let t = s.transcript();
    assert_eq!(t, "┌──┐ 中文 é\n");
    assert!(!t.contains('\u{fffd}'));
}

#[test]
fn invalid_bytes_show_as_replacement_and_never_panic() {
    let mut s = screen();
    s.feed(b"a\xffb\xc3(c\xf0\x28\x8c\x28d\r\n");
    assert_eq!(s.transcript(), "a\u{fffd}b\u{fffd}(c\u{fffd}(\u{fffd}(d\n");
}

#[test]
fn dsr_and_da_queries_are_answered() {
    let mut s = screen();
    let out = s.feed(b"abc\x1b[6n");
    assert_eq!(out.replies, vec![b"\x1b[1;4R".to_vec()]);
    let out = s.feed(b"\r\n\x1b[c\x1b[>c\x1b[5n");
    assert_eq!(
        out.replies,
        vec![
            b"\x1b[?1;2c".to_vec(),
            b"\x1b[>0;0;0c".to_vec(),
            b"\x1b[0n".to_vec()
        ]
    );
    // A query split across chunks is answered once it completes.
    assert!(s.feed(b"\x1b[").replies.is_empty());
    assert_eq!(s.feed(b"6n").replies, vec![b"\x1b[2;1R".to_vec()]);
    assert_eq!(s.transcript(), "abc\n");
}

#[test]
fn alternate_screen_renders_visible_screen() {
    let mut s = screen();
    s.feed(b"main line\r\n");
    let a = s.anchor();
    let out = s.feed(b"\x1b[?1049h\x1b[H\x1b[2JALT TITLE\r\n  body");
    assert!(out.events.contains(&ScreenEvent::AlternateScreen(true)));
    assert!(s.alternate_screen());
    assert_eq!(s.render_since(a, 1000).text, "ALT TITLE\n  body");
    let out = s.feed(b"\x1b[?1049lDONE\r\n");
    assert!(out.events.contains(&ScreenEvent::AlternateScreen(false)));
    assert_eq!(s.render_since(a, 1000).text, "DONE\n");
    assert_eq!(s.transcript(), "main line\nDONE\n");
}

#[test]
fn anchor_created_on_alternate_screen_starts_when_main_returns() {
    let mut s = screen();
    s.feed(b"dsh> less f\r\n\x1b[?1049hpage");
    let a = s.anchor();
    assert_eq!(s.render_since(a, 100).text, "page");
    s.feed(b"\x1b[?1049ldsh> ");
    assert_eq!(s.render_since(a, 100).text, "dsh> ");
}

#[test]
fn nonced_marks_count_and_fake_marks_are_output() {
    let mut s = screen();
    let out = s.feed(b"\x1b]133;D;0\x07###PS1END###\r\n");
    assert!(!out.has_mark());
    let out = s.feed(b"\x1b]133;D;0;dsh=ffffffffffffffffffff\x07");
    assert!(!out.has_mark(), "wrong nonce is not a mark");
    assert_eq!(s.done_count(), 0);
    let mut bytes = mark("D;7");
    bytes.extend(mark("A"));
    bytes.extend(b"dsh> ");
    bytes.extend(mark("B"));
    let out = s.feed(&bytes);
    assert_eq!(
        out.events,
        vec![
            ScreenEvent::Mark(MarkKind::CommandDone { exit_code: Some(7) }),
            ScreenEvent::Mark(MarkKind::PromptStart),
            ScreenEvent::Text,
            ScreenEvent::Mark(MarkKind::PromptEnd),
        ]
    );
    assert_eq!(s.prompt_state(), PromptState::Prompt);
    assert_eq!(s.last_exit_code(), Some(7));
    assert_eq!(s.done_count(), 1);
    s.feed(b"e");
    assert_eq!(s.prompt_state(), PromptState::Busy);
    let mut cont = mark("A;k=s");
    cont.extend(b"> ");
    cont.extend(mark("B;k=s"));
    s.feed(&cont);
    assert_eq!(s.prompt_state(), PromptState::Continuation);
    assert_eq!(s.transcript(), "###PS1END###\ndsh> e> ");
}

#[test]
fn mark_split_across_chunks_is_recognised() {
    let mut s = screen();
    let bytes = mark("D;0");
    let (a, b) = bytes.split_at(7);
    assert!(!s.feed(a).has_mark());
    assert!(s.feed(b).has_mark());
}

#[test]
fn send_viewport_starts_at_the_echo() {
    let mut s = screen();
    s.feed(b"dsh> ");
    let a = s.anchor();
    s.feed(b"printf 'PTY_OK\\n'\r\nPTY_OK\r\ndsh> ");
    assert_eq!(
        s.render_since(a, 1000).text,
        "printf 'PTY_OK\\n'\nPTY_OK\ndsh> "
    );
    let r = s.render_since(a, 10);
    assert_eq!(r.text, "Y_OK\ndsh> ");
    assert!(r.truncated);
}

#[test]
fn clear_screen_keeps_the_command_and_what_follows() {
    let mut s = Screen::new(config(5, 20), None);
    s.feed(b"1\r\n2\r\n3\r\n4\r\ndsh> ");
    let a = s.anchor();
    s.feed(b"clear\r\n\x1b[H\x1b[2Jtop\r\ndsh> ");
    assert_eq!(s.render_since(a, 1000).text, "clear\ntop\ndsh> ");
}

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

#[test]
fn c37_binary_output_becomes_one_summary_line_and_the_prompt_still_counts() {
    let mut s = Screen::new(config(40, 160), Some(nonce()));
    s.feed(b"dsh> ");
    let a = s.anchor();
    let mut output = b"head -c 3000000 /dev/urandom\r\n".to_vec();
    output.extend(pseudo_random(3_000_000));
    for chunk in output.chunks(4096) {
        s.feed(chunk);
    }
    let mut tail = mark("D;0");
    tail.extend(mark("A"));
    tail.extend(b"dsh> ");
    tail.extend(mark("B"));
    let out = s.feed(&tail);
    assert!(out.has_mark());
    assert_eq!(s.prompt_state(), PromptState::Prompt);
    assert_eq!(s.last_exit_code(), Some(0));
    let text = s.render_since(a, 100_000).text;
    assert!(text.len() < 400, "{text:?}");
    assert!(
        text.starts_with("head -c 3000000 /dev/urandom\n["),
        "{text:?}"
    );
    assert!(
        text.contains("bytes of binary output suppressed"),
        "{text:?}"
    );
    assert!(text.ends_with("]\ndsh> "), "{text:?}");
    // Text afterwards is text again.
    s.feed(b"echo ok\r\nok\r\n");
    assert!(s.transcript().ends_with("ok\n"));
}

/// Field case C37, mixed: text written in the same burst as binary stays, before and after
/// the binary run, however the burst is split into reads; only the binary run becomes the
/// summary line, and no stray bytes of it show.
#[test]
fn c37_text_around_binary_in_one_burst_stays() {
    let noises = [pseudo_random(5000), pseudo_random(1000), pseudo_random(300)];
    for noise in &noises {
        for chunk_len in [10, 33, 64, 100, 255, 256, 257, 1000, 4096, 100_000] {
            let mut s = Screen::new(config(40, 160), Some(nonce()));
            s.feed(b"dsh> ");
            let a = s.anchor();
            let mut output = b"cmd\r\nHEADER ok\r\n".to_vec();
            output.extend(noise);
            output.extend(b"\r\nRESULT: 42\r\n");
            output.extend((0..20).flat_map(|i| format!("row {i}\r\n").into_bytes()));
            output.extend(mark("D;0"));
            output.extend(mark("A"));
            output.extend(b"dsh> ");
            output.extend(mark("B"));
            for chunk in output.chunks(chunk_len) {
                s.feed(chunk);
            }
            let text = s.render_since(a, 100_000).text;
            let lines: Vec<&str> = text.lines().collect();
            let ctx = format!("noise {} chunk {chunk_len}: {text:?}", noise.len());
            assert_eq!(lines[..2], ["cmd", "HEADER ok"], "{ctx}");
            assert!(
                lines[2].starts_with('[') && lines[2].contains("bytes of binary output suppressed"),
                "{ctx}"
            );
            assert_eq!(lines[3], "RESULT: 42", "{ctx}");
            let rows: Vec<String> = (0..20).map(|i| format!("row {i}")).collect();
            assert_eq!(lines[4..24], rows, "{ctx}");
            assert_eq!(lines[24..], ["dsh> "], "{ctx}");
        }
    }
}

/// A few bytes after the binary run's newline, at the end of the output so far, are held
/// until more output arrives; when the screen is read first, they show as text.
#[test]
fn c37_a_short_text_after_binary_shows_when_the_output_pauses() {
    let mut s = Screen::new(config(40, 160), Some(nonce()));
    let a = s.anchor();
    let mut output = pseudo_random(1000);
    output.extend(b"\r\nab");
    s.feed(&output);
    let text = s.render_since(a, 100_000).text;
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains("bytes of binary output suppressed"),
        "{text:?}"
    );
    assert_eq!(lines[1..], ["ab"], "{text:?}");
    s.feed(b"c\r\n");
    assert!(s.transcript().ends_with("\nabc\n"), "{:?}", s.transcript());
}

/// A render resumes where the last one ended (mid-row); when the program rewrites that row
/// from its start (`\r` + erase line, `\r` progress, a cursor move back), the next render
/// shows the row whole again, also once it scrolled into history. An untouched row (a prompt)
/// still resumes at the column.
#[test]
fn a_row_rewritten_before_the_resume_column_is_shown_whole() {
    let rewrites: [(&[u8], &str); 4] = [
        (
            b"\r\x1b[Kerror: full message here\r\n",
            "error: full message here",
        ),
        (
            b"\r\x1b[2Kwarning: unused x\r\nBuilding 100/100\r\n",
            "warning: unused x",
        ),
        (
            b"\rDone: 6 files fetched OK, all of them verified\r\n",
            "Done: 6 files fetched OK, all of them verified",
        ),
        (b"\x1b[40DX\r\n", "Xint: Waiting for your editor..."),
    ];
    for (rewrite, first) in rewrites {
        let mut s = screen();
        s.feed(b"$ cmd\r\nhint: Waiting for your editor... ");
        let a = s.anchor();
        s.feed(rewrite);
        let text = s.render_since(a, 100_000).text;
        assert_eq!(text.lines().next(), Some(first), "{rewrite:?}: {text:?}");
        // The same after the row scrolled into history.
        let mut s = screen();
        s.feed(b"$ cmd\r\nhint: Waiting for your editor... ");
        let a = s.anchor();
        s.feed(rewrite);
        for i in 0..60 {
            s.feed(format!("line {i}\r\n").as_bytes());
        }
        let text = s.render_since(a, 100_000).text;
        assert_eq!(text.lines().next(), Some(first), "{rewrite:?}: {text:?}");
    }
    // Text appended after the resume column: only the new text.
    let mut s = screen();
    s.feed(b"dsh> ");
    let a = s.anchor();
    s.feed(b"echo hi\r\nhi\r\n");
    assert_eq!(s.render_since(a, 100_000).text, "echo hi\nhi\n");
    let mut s = screen();
    s.feed(b"\tdsh> ");
    let a = s.anchor();
    for i in 0..60 {
        s.feed(format!("line {i}\r\n").as_bytes());
    }
    let text = s.render_since(a, 100_000).text;
    assert!(text.starts_with("line 0\nline 1\n"), "{text:?}");
}

/// A prompt mark cut in two by a read right after binary output is still a prompt mark.
#[test]
fn c37_a_prompt_mark_split_after_binary_still_counts() {
    let mut tail = mark("D;0");
    tail.extend(mark("A"));
    tail.extend(b"dsh> ");
    tail.extend(mark("B"));
    for split in 1..8 {
        let mut s = Screen::new(config(40, 160), Some(nonce()));
        let a = s.anchor();
        let mut first = pseudo_random(2000);
        first.extend(&tail[..split]);
        s.feed(&first);
        if split % 2 == 0 {
            // The screen read between the two halves.
            s.render_since(a, 100_000);
        }
        s.feed(&tail[split..]);
        assert_eq!(s.prompt_state(), PromptState::Prompt, "split {split}");
        assert_eq!(s.last_exit_code(), Some(0), "split {split}");
        let text = s.render_since(a, 100_000).text;
        assert!(text.ends_with("suppressed; to look at them, pipe the command through `xxd | head` or redirect its output to a file]\ndsh> "), "{text:?}");
    }
}

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

#[test]
fn anchor_that_fell_out_of_history_reports_truncation() {
    let mut s = Screen::new(
        ScreenConfig {
            rows: 3,
            cols: 20,
            scrollback_lines: 5,
            scrollback_max_bytes: 1 << 20,
        },
        None,
    );
    let a = s.anchor();
    for i in 0..20 {
        s.feed(format!("{i}\r\n").as_bytes());
    }
    let r = s.render_since(a, 1000);
    assert!(r.truncated);
    assert!(r.text.starts_with("13\n"), "{:?}", r.text);
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

#[test]
fn oversized_osc_does_not_reach_the_emulator_and_ends() {
    let mut s = screen();
    let mut bytes = b"a\x1b]0;".to_vec();
    bytes.extend(std::iter::repeat_n(b'x', 100_000));
    bytes.extend(b"\x07b\r\n");
    s.feed(&bytes);
    assert_eq!(s.transcript(), "ab\n");
}

#[test]
fn newest_wrap_flag_is_readable() {
    // Pins the Debug-based view into vt100's capture state used by `History::get`.
    let state = vt100::capture::BasicFormattedCaptureState::new();
    assert!(format!("{state:?}").contains("newline_pending: false"));
}

#[test]
fn cursor_row_keeps_explicit_spaces_before_the_cursor() {
    let mut s = screen();
    s.feed(b"Name: ");
    assert_eq!(s.transcript(), "Name: ");
    s.feed(b"\r\nabc   \x1b[10G");
    assert_eq!(s.transcript(), "Name:\nabc   ");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic_or_leak_escapes(
        chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..200), 0..20)
    ) {
        let mut s = Screen::new(
            ScreenConfig { rows: 6, cols: 12, scrollback_lines: 50, scrollback_max_bytes: 400 },
            Some(nonce()),
        );
        let a = s.anchor();
        for c in &chunks {
            s.feed(c);
        }
        let t = s.transcript();
        prop_assert!(!t.contains('\x1b'));
        prop_assert!(!t.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
        prop_assert!(s.history_usage().1 <= 400);
        let r = s.render_since(a, 64);
        prop_assert!(r.text.len() <= 64);
        prop_assert!(!r.text.contains('\x1b'));
        let p = s.page(None, None, 64);
        prop_assert!(p.is_ok());
    }

    #[test]
    fn valid_utf8_split_anywhere_has_no_replacement(text in "[a-zé中┌─┐😀 \n]{0,80}", split in 0usize..200) {
        let bytes = text.replace('\n', "\r\n").into_bytes();
        let split = split.min(bytes.len());
        let mut s = screen();
        s.feed(&bytes[..split]);
        s.feed(&bytes[split..]);
        let has_replacement = s.transcript().contains('\u{fffd}');
        prop_assert!(!has_replacement);
    }

    #[test]
    fn flood_lines_render_like_emulating_every_byte(
        parts in proptest::collection::vec(
            prop_oneof![
                "[ -~]{0,30}\r\n",
                "[ -~]{0,5}",
                Just("\r".to_owned()),
                Just("\x1b[2A".to_owned()),
                Just("\x1b[H\x1b[2J".to_owned()),
                Just("\t".to_owned()),
                Just("é".to_owned()),
                Just("\x1b[2;3r".to_owned()),
                Just("\x1b[r".to_owned()),
            ],
            0..80,
        ),
        chunk in 1usize..64,
    ) {
        let bytes: Vec<u8> = parts.concat().into_bytes();
        let mut lazy = Screen::new(config(4, 10), None);
        let mut eager = Screen::new(config(4, 10), None);
        eager.no_flood = true;
        let (la, ea) = (lazy.anchor(), eager.anchor());
        for c in bytes.chunks(chunk) {
            lazy.feed(c);
            eager.feed(c);
        }
        prop_assert_eq!(lazy.transcript(), eager.transcript());
        prop_assert_eq!(lazy.cursor(), eager.cursor());
        prop_assert_eq!(lazy.render_since(la, 10_000), eager.render_since(ea, 10_000));
    }
}

#[test]
fn exit_codes_since_covers_long_sends_within_its_bound() {
    let mut s = screen();
    for i in 0..40 {
        s.feed(&mark(&format!("D;{}", i % 3)));
    }
    let since: Vec<Option<i32>> = (5..40).map(|i| Some(i % 3)).collect();
    assert_eq!(s.exit_codes_since(5), since);
    for _ in 0..RECENT_EXITS {
        s.feed(&mark("D;0"));
    }
    assert_eq!(s.exit_codes_since(0).len(), RECENT_EXITS);
    assert_eq!(s.exit_codes_since(s.done_count() - 1), vec![Some(0)]);
}
