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

mod alternate;
mod alternate_rows;
mod binary;
mod binary_advice;
mod blank_rows;
mod clears;
mod compat;
mod conceal;
mod edge_moves;
mod erased_rows;
mod highlight;
mod history;
mod job_reads;
mod job_window;
mod legacy_text;
mod line_drawing;
mod lost_lines;
mod partial_lines;
mod prompt_row;
mod prompt_width;
mod queries;
mod stale;

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
fn colour_queries_are_answered_with_the_terminator_they_used() {
    let mut s = screen();
    assert_eq!(
        s.feed(b"\x1b]11;?\x07").replies,
        vec![b"\x1b]11;rgb:0000/0000/0000\x07".to_vec()]
    );
    assert_eq!(
        s.feed(b"\x1b]10;?\x1b\\").replies,
        vec![b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\".to_vec()]
    );
    // Split across chunks, BEL-ended again.
    assert!(s.feed(b"\x1b]11;").replies.is_empty());
    assert_eq!(
        s.feed(b"?\x07").replies,
        vec![b"\x1b]11;rgb:0000/0000/0000\x07".to_vec()]
    );
}

#[test]
fn text_after_the_prompt_on_its_row_is_the_input_lines() {
    let mut s = screen();
    let mut prompt = mark("D;0");
    prompt.extend(mark("A"));
    prompt.extend(b"dsh> ");
    prompt.extend(mark("B"));
    s.feed(&prompt);
    assert_eq!(s.text_after_prompt(), None);
    s.feed(b"rm -rf x #");
    assert_eq!(s.text_after_prompt().as_deref(), Some("rm -rf x #"));
    // The cursor moved back over it (editing keys): the whole line still counts.
    s.feed(b"\x1b[3D");
    assert_eq!(s.text_after_prompt().as_deref(), Some("rm -rf x #"));
    // Readline's history search shows its own prompt in the shell's place: the row is the
    // search, whole (not cut where the shell's prompt ended).
    s.feed(&prompt);
    s.feed(b"\r(reverse-i-search)`alp': echo alpha\x1b[11D");
    assert_eq!(
        s.text_after_prompt().as_deref(),
        Some("(reverse-i-search)`alp': echo alpha")
    );
    s.feed(b"\r\n");
    // A line longer than the row wraps onto the next ones.
    s.feed(&prompt);
    let long = "x".repeat(170);
    s.feed(long.as_bytes());
    assert_eq!(s.text_after_prompt().as_deref(), Some(long.as_str()));
    // Output of a background job on rows of its own is not the input line; its last line
    // left unended is the output before it.
    s.feed(b"\r\n");
    s.feed(&prompt);
    s.feed(b"bg line\r\n");
    assert_eq!(s.text_after_prompt(), None);
    assert_eq!(s.output_before_input_line(), None);
    s.feed(b"rm -rf junk");
    assert_eq!(s.text_after_prompt(), None);
    assert_eq!(s.output_before_input_line().as_deref(), Some("rm -rf junk"));
    // Nor is anything once the shell read the line (Enter, a `C` mark).
    s.feed(&prompt);
    s.feed(b"ls\r\n");
    s.feed(&mark("C"));
    assert_eq!(s.text_after_prompt(), None);
}

#[test]
fn a_query_after_flood_lines_is_answered() {
    let lines: String = (1..=100).map(|n| format!("{n}\r\n")).collect();
    for split in 0..=lines.len() {
        let mut s = screen();
        s.feed(b"$ seq 1 100\r\n");
        // A send's head is being captured: it is taken at the end of the chunk that asks.
        let anchor = s.anchor();
        s.start_head(anchor);
        let bytes = format!("{lines}\x1b[6n").into_bytes();
        let (a, b) = bytes.split_at(split);
        let mut replies = s.feed(a).replies;
        replies.extend(s.feed(b).replies);
        assert_eq!(replies, vec![b"\x1b[24;1R".to_vec()], "split at {split}");
    }
}

/// A send whose start the scrollback dropped before it began (a poll after a flood between two
/// calls) counts the lines dropped before its head: with the head's lines, the lines between,
/// the retained ones and the viewport's, every line printed since the start is accounted for.
#[test]
fn a_send_whose_start_was_dropped_counts_the_lines_before_its_head() {
    let mut s = Screen::new(
        ScreenConfig {
            rows: 6,
            cols: 20,
            scrollback_lines: 50,
            scrollback_max_bytes: 100_000,
        },
        Some(nonce()),
    );
    s.feed(b"$ seq\r\n");
    // Where the previous result ended.
    let resume = s.anchor();
    // Between two calls: far more lines than the scrollback holds.
    let between: String = (1..=1000).map(|n| format!("{n}\r\n")).collect();
    s.feed(between.as_bytes());
    // The next call starts its head there; more lines follow while it runs.
    s.start_head(resume);
    let during: String = (1001..=1200).map(|n| format!("{n}\r\n")).collect();
    s.feed(during.as_bytes());
    let head = s.finish_head().expect("a head was captured");
    let rows = s.snapshot_since(resume, 200);
    let placed = s
        .place_head(head, rows.first_row())
        .expect("the head is placed");
    let viewport = rows.render(10_000).text;
    let shown: Vec<&str> = viewport.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(shown.last(), Some(&"1200"), "{viewport:?}");
    let accounted = placed.text.lines().count() as u64
        + placed.lines_between_dropped
        + placed.retained_lines_before
        + shown.len() as u64;
    assert_eq!(accounted, 1200, "{placed:?}\n{viewport:?}");
}

/// The same when the whole viewport starts at the oldest retained row (the head is not shown):
/// the lines dropped before it are still counted.
#[test]
fn a_viewport_from_the_oldest_retained_row_still_counts_the_dropped_lines() {
    let mut s = Screen::new(
        ScreenConfig {
            rows: 6,
            cols: 20,
            scrollback_lines: 200,
            scrollback_max_bytes: 100_000,
        },
        Some(nonce()),
    );
    s.feed(b"$ ");
    let resume = s.anchor();
    let between: String = (1..=1000).map(|n| format!("{n}\r\n")).collect();
    s.feed(between.as_bytes());
    s.start_head(resume);
    let head = s.finish_head().expect("a head was captured");
    let rows = s.snapshot_since(resume, usize::MAX);
    let placed = s
        .place_head(head, rows.first_row())
        .expect("the dropped lines are said");
    assert_eq!(placed.text, "");
    let shown = rows.render(usize::MAX).text;
    let shown = shown.lines().filter(|l| !l.is_empty()).count() as u64;
    assert_eq!(placed.lines_between_dropped + shown, 1000, "{placed:?}");
}

#[test]
fn a_done_mark_says_when_the_terminal_modes_were_restored() {
    let mut s = screen();
    s.feed(&mark("D;0"));
    assert!(!s.take_modes_restored());
    let out = s.feed(&mark("D;0;stty=restored"));
    assert_eq!(
        out.events,
        vec![ScreenEvent::Mark(MarkKind::CommandDone {
            exit_code: Some(0),
            modes_restored: true,
            errexit: false,
            number: None,
        })]
    );
    assert!(s.take_modes_restored());
    assert!(!s.take_modes_restored(), "taken once");
}

/// `errexit` on a `D` mark says `set -e` is on; the turn from off to on is taken once.
#[test]
fn a_done_mark_says_when_errexit_was_turned_on() {
    let mut s = screen();
    s.feed(&mark("D;0"));
    assert!(!s.take_errexit_turned_on());
    let out = s.feed(&mark("D;0;errexit;stty=restored"));
    assert_eq!(
        out.events,
        vec![ScreenEvent::Mark(MarkKind::CommandDone {
            exit_code: Some(0),
            modes_restored: true,
            errexit: true,
            number: None,
        })]
    );
    assert!(s.take_errexit_turned_on());
    assert!(!s.take_errexit_turned_on(), "taken once");
    s.feed(&mark("D;1;errexit"));
    assert!(!s.take_errexit_turned_on(), "still on: no new turn");
    s.feed(&mark("D;0"));
    s.feed(&mark("D;0;errexit"));
    assert!(s.take_errexit_turned_on(), "off, then on again");
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
            ScreenEvent::Mark(MarkKind::CommandDone {
                exit_code: Some(7),
                modes_restored: false,
                errexit: false,
                number: None,
            }),
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

/// Blanks a program wrote up to the row's last column, leaving the cursor there (`top` pads
/// its last row to the screen's width), are padding: trimmed like any row's.
#[test]
fn cursor_row_blanks_up_to_the_right_edge_are_trimmed() {
    let mut s = screen();
    let cols = usize::from(s.config.cols);
    let mut row = b"   39 root  S  0:00.00 ksmd".to_vec();
    row.resize(cols, b' ');
    s.feed(b"top\r\n");
    s.feed(&row);
    assert_eq!(s.transcript(), "top\n   39 root  S  0:00.00 ksmd");
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

    #[test]
    fn one_pass_row_text_equals_the_cell_walk(
        parts in proptest::collection::vec(
            prop_oneof![
                "[ -~]{0,12}",
                Just("\r\n".to_owned()),
                Just("中".to_owned()),
                Just("😀".to_owned()),
                Just("é".to_owned()),
                Just("\u{301}".to_owned()),
                Just("\x1b[3D".to_owned()),
                Just("\x1b[2X".to_owned()),
                Just("\x1b[K".to_owned()),
                Just("\x1b[1K".to_owned()),
                Just("\x1b[2P".to_owned()),
                Just("\x1b[2@".to_owned()),
                Just("\x1b[2;5H".to_owned()),
                Just("\u{fffd}".to_owned()),
            ],
            0..60,
        ),
    ) {
        let mut s = Screen::new(config(6, 12), None);
        s.feed(parts.concat().as_bytes());
        s.materialize();
        let screen = s.parser.screen();
        let none: &[(u16, u16)] = &[];
        let walked: Vec<String> = (0..6)
            .map(|r| super::row_text::row_text_walk(screen, none, r, 0, 12))
            .collect();
        prop_assert_eq!(&super::row_text::visible_rows_text(screen, |_| none, 12), &walked);
        for first in 0..6u16 {
            prop_assert_eq!(
                &super::row_text::visible_rows_text_from(screen, |_| none, 12, first)[..],
                &walked[usize::from(first)..]
            );
        }
        // Row prefixes (the text before a column) take the one-pass path too.
        for r in 0..6 {
            for width in 0..=12 {
                prop_assert_eq!(
                    super::row_text::row_text(screen, none, r, 0, width),
                    super::row_text::row_text_walk(screen, none, r, 0, width),
                    "row {} width {}", r, width
                );
            }
        }
    }
}

#[test]
fn exits_since_counts_the_marks_fed_after_a_tally() {
    let mut s = screen();
    for i in 0..5 {
        s.feed(&mark(&format!("D;{}", i % 3)));
    }
    let from = s.exit_tally();
    for i in 5..40 {
        s.feed(&mark(&format!("D;{}", i % 3)));
    }
    s.feed(&mark("D"));
    let e = s.exits_since(from, false);
    assert_eq!((e.finished, e.failed), (35, 23));
    assert_eq!(e.failures[0].position, 1);
    assert_eq!(s.exits_since(s.exit_tally(), true), EarlierExits::default());
}
