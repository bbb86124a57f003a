use super::*;

fn numbered(from: u64, to: u64) -> String {
    (from..=to).map(|i| format!("{i}\n")).collect()
}

/// The numbers of a read's output lines, and its omission line's counts and pointer.
fn parse(read: &str) -> (Vec<u64>, Option<String>) {
    let mut numbers = Vec::new();
    let mut omission = None;
    for line in read.lines() {
        if line.starts_with("[…") {
            omission = Some(line.to_owned());
        } else {
            numbers.push(line.parse().expect("a whole numbered line"));
        }
    }
    (numbers, omission)
}

#[test]
fn a_read_within_the_room_is_the_output_with_the_line_being_written_held_back() {
    let mut w = OutputWindow::new(32 * 1024, "pty-1");
    w.push("seq 1 3\n1\n2\n3", false);
    assert_eq!(
        w.take(false, Some(100), "pty-1"),
        format!("seq 1 3\n1\n2\n{}", unfinished_line_note("3"))
    );
    // The held line continues; once the job ended it is shown as it is.
    w.push("4\ndsh> ", false);
    assert_eq!(w.take(true, Some(100), "pty-1"), "34\ndsh> ");
}

#[test]
fn the_line_of_a_binary_run_going_on_is_shown_as_it_is() {
    let mut w = OutputWindow::new(32 * 1024, "pty-1");
    w.push(
        "cat blob\n[5000 bytes of binary output suppressed so far]",
        false,
    );
    assert_eq!(
        w.take(false, Some(10), "pty-1"),
        "cat blob\n[5000 bytes of binary output suppressed so far]"
    );
    // A look-alike of another count or wording is a program's line being written.
    for other in [
        "[5000 bytes of binary output suppressed so far!]",
        "[x bytes of binary output suppressed so far]",
    ] {
        let mut w = OutputWindow::new(32 * 1024, "pty-1");
        w.push(other, false);
        assert_eq!(
            w.take(false, Some(10), "pty-1"),
            unfinished_line_note(other)
        );
    }
}

#[test]
fn a_line_being_written_alone_is_shown_in_a_note_and_again_whole() {
    let mut w = OutputWindow::new(32 * 1024, "pty-1");
    w.push("Progress 45%", false);
    assert_eq!(
        w.take(false, Some(10), "pty-1"),
        unfinished_line_note("Progress 45%")
    );
    // Rewritten from its start: the old text is gone.
    w.push("Progress 100%\n", true);
    assert_eq!(w.take(false, Some(10), "pty-1"), "Progress 100%\n");
}

#[test]
fn a_flood_keeps_first_and_newest_whole_lines_and_counts_the_rest() {
    let mut w = OutputWindow::new(4096, "pty-1");
    let text = numbered(1, 5000);
    // Pushed in pieces that split lines.
    for chunk in text.as_bytes().chunks(777) {
        w.push(std::str::from_utf8(chunk).unwrap(), false);
    }
    let read = w.take(false, Some(10_000), "pty-1");
    assert!(read.len() <= 4096 - STATUS_RESERVE, "{}", read.len());
    let (numbers, omission) = parse(&read);
    let omission = omission.expect("an omission line");
    let split = numbers.windows(2).position(|p| p[1] != p[0] + 1).unwrap();
    let (first, newest) = numbers.split_at(split + 1);
    assert_eq!(first[0], 1);
    assert_eq!(*newest.last().unwrap(), 5000);
    let left_out = newest[0] - first.last().unwrap() - 1;
    let bytes: usize = (first.last().unwrap() + 1..newest[0])
        .map(|i| format!("{i}\n").len())
        .sum();
    assert_eq!(
        omission,
        format!(
            "[… {left_out} lines ({bytes} bytes) omitted; page them with terminal_read {{\"sessionId\": \"pty-1\", \"offset\": {}, \"count\": {left_out}}}]",
            newest.len() + 1
        )
    );
}

/// A job that ended with a long line not ended (a notice, a last line without its newline)
/// still reads within its room: newer lines make room for it, counted with the others.
#[test]
fn the_last_line_of_an_ended_job_is_within_the_room() {
    let mut w = OutputWindow::new(4096, "pty-1");
    w.push(&numbered(1, 5000), false);
    w.push(&"x".repeat(900), false);
    let read = w.take(true, Some(10_000), "pty-1");
    assert!(read.len() <= 4096 - STATUS_RESERVE, "{}", read.len());
    assert!(read.starts_with("1\n2\n"), "{read}");
    assert!(read.ends_with(&"x".repeat(900)), "{read}");
}

#[test]
fn lines_the_scrollback_no_longer_holds_are_counted_apart() {
    let mut w = OutputWindow::new(4096, "pty-1");
    w.push(&numbered(1, 5000), false);
    // Only 1000 lines retained: the newest kept lines plus part of the gap.
    let read = w.take(false, Some(1000), "pty-1");
    let (numbers, omission) = parse(&read);
    let shown_newest = numbers.iter().rev().take_while(|&&n| n > 500).count() as u64;
    let omission = omission.unwrap();
    let pageable = 1000 - (shown_newest + 1);
    assert!(
        omission.contains(&format!(
            "no longer retained (the output outgrew the scrollback); page the rest with terminal_read {{\"sessionId\": \"pty-1\", \"offset\": {}, \"count\": {pageable}}}]",
            shown_newest + 1
        )),
        "{omission}"
    );
}

#[test]
fn output_the_core_dropped_is_estimated_and_not_paged() {
    let mut w = OutputWindow::new(4096, "pty-1");
    w.push("1\n2\n3", false);
    // The core kept only "99\n100\n101" of a longer span (its first line cut).
    w.push_after_loss("99\n100\n101", 95, 300, false);
    let read = w.take(false, Some(10_000), "pty-1");
    assert_eq!(
        read,
        format!(
            "1\n2\n[… about 96 lines omitted, all of them no longer retained (the output outgrew the scrollback)]\n100\n{}",
            unfinished_line_note("101")
        )
    );
}

#[test]
fn a_line_longer_than_the_room_is_cut_with_a_marker_and_memory_stays_bounded() {
    let mut w = OutputWindow::new(4096, "pty-1");
    for _ in 0..1000 {
        w.push(&"x".repeat(1000), false);
    }
    assert!(w.carry.len() + w.carry_end.len() <= w.max_line);
    // While it is being written, a note shows its start and end.
    let note = w.take(false, Some(10), "pty-1");
    assert!(note.len() <= 4096, "{}", note.len());
    assert!(
        note.starts_with("[line still being written")
            && note.contains("bytes of this line omitted"),
        "{note}"
    );
    w.push("y\n", false);
    let read = w.take(false, Some(10), "pty-1");
    assert!(read.len() <= 4096, "{}", read.len());
    assert!(read.contains("bytes of this line omitted"), "{read}");
    assert!(read.ends_with("xy\n"), "{read}");
}

/// A long line that arrives in one piece (or whose first piece alone is over the bound)
/// keeps its start, as one that grew piece by piece does.
#[test]
fn a_long_line_arriving_at_once_keeps_its_start_and_end() {
    for pieces in [
        vec![format!("START{}END\n", "x".repeat(50_000))],
        vec![
            format!("START{}", "x".repeat(30_000)),
            format!("{}END\n", "x".repeat(20_000)),
        ],
    ] {
        let mut w = OutputWindow::new(4096, "pty-1");
        for piece in &pieces {
            w.push(piece, false);
        }
        let read = w.take(false, Some(10), "pty-1");
        assert!(read.starts_with("STARTxx"), "{read}");
        assert!(read.ends_with("xxEND\n"), "{read}");
        let shown = read.len()
            - 1
            - read
                .find("[…")
                .map_or(0, |at| read[at..].find(']').unwrap() + 1);
        let omitted: usize = read
            .split("[… ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        assert_eq!(shown + omitted, 50_008, "{read}");
    }
}

/// What the model reads: a flood read, a loss, and the line being written alone.
#[test]
fn model_visible_reads() {
    let mut w = OutputWindow::new(1536, "pty-1");
    w.push(&format!("seq 1 300\n{}30", numbered(1, 299)), false);
    let flood = w.take(false, Some(10_000), "pty-1");
    w.push_after_loss("9\n5000\n5001\n50", 4500, 27_000, false);
    let loss = w.take(false, Some(10_000), "pty-1");
    let alone = w.take(false, Some(10_000), "pty-1");
    w.push("02\ndsh> ", false);
    let last = w.take(true, Some(10_000), "pty-1");
    insta::assert_snapshot!(format!("{flood}\n---\n{loss}\n---\n{alone}\n---\n{last}"));
}

/// A small limit (a few hundred bytes) still shows a short output whole, counts left-out lines
/// by the bytes the program printed (not by a marker a cut would add), and uses the short
/// omission line, whole, within the limit.
#[test]
fn a_small_limit_shows_short_output_and_counts_what_was_printed() {
    for limit in [200, 300, 400, 500] {
        let mut w = OutputWindow::new(limit, "pty-1");
        w.push("echo hi; (exit 2)\nhi\ndsh> ", false);
        assert_eq!(
            w.take(true, Some(10), "pty-1"),
            "echo hi; (exit 2)\nhi\ndsh> ",
            "{limit}"
        );
        let mut w = OutputWindow::new(limit, "pty-1");
        let text = numbered(1000, 1100);
        w.push(&text, false);
        let read = w.take(false, Some(10_000), "pty-1");
        assert!(
            read.len() <= limit - status_reserve(limit),
            "{limit}: {}",
            read.len()
        );
        let (numbers, omission) = parse(&read);
        let omission = omission.expect("an omission line");
        assert!(
            omission.ends_with("omitted; page them with terminal_read]"),
            "{omission}"
        );
        let lines: u64 = omission
            .trim_start_matches("[… ")
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a line count");
        assert_eq!(lines as usize + numbers.len(), 101, "{read}");
    }
    // Over-long lines in a small limit: the count is of the printed bytes.
    let mut w = OutputWindow::new(1536, "pty-1");
    let long = format!("{}\n", "x".repeat(2000));
    w.push(&long.repeat(5), false);
    let read = w.take(false, Some(10_000), "pty-1");
    assert!(
        read.contains("bytes omitted") || read.contains("lines ("),
        "{read}"
    );
    if let Some(at) = read.find("lines (") {
        let bytes: u64 = read[at + 7..]
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a byte count");
        assert_eq!(bytes % 2001, 0, "{read}");
    }
}

#[test]
fn the_line_being_written_follows_a_read_only_within_the_room() {
    for limit in [600, 1024, 4096] {
        let mut w = OutputWindow::new(limit, "pty-1");
        w.push(&numbered(1, 400), false);
        w.push(
            &format!("Continue? {} [y/N] ", "x".repeat(limit / 8)),
            false,
        );
        let read = w.take(false, Some(10_000), "pty-1");
        assert!(
            read.len() <= limit - status_reserve(limit),
            "{limit}: {}",
            read.len()
        );
        // The newest whole line is still there, whether or not the note fitted.
        assert!(read.contains("\n400\n"), "{read}");
    }
    // With room to spare, the prompt shows after the lines.
    let mut w = OutputWindow::new(32 * 1024, "pty-1");
    w.push("Downloading\nOverwrite? [y/N] ", false);
    assert_eq!(
        w.take(false, Some(10), "pty-1"),
        format!("Downloading\n{}", unfinished_line_note("Overwrite? [y/N] "))
    );
}

#[test]
fn a_line_being_written_past_the_line_bound_shows_its_start_and_end() {
    let mut w = OutputWindow::new(32 * 1024, "pty-1");
    w.push("start", false);
    w.push(&"b".repeat(100_000), false);
    w.push("end", false);
    let read = w.take(false, Some(10), "pty-1");
    assert!(
        read.starts_with("[line still being written, shown whole once it ends: startbbb"),
        "{read}"
    );
    assert!(read.ends_with("bbbend]"), "{read}");
    assert!(read.contains("bytes of this line omitted"), "{read}");
    assert!(read.len() < 32 * 1024, "{}", read.len());
}

#[test]
fn rewound_lines_not_read_yet_are_taken_back_and_read_ones_stay_and_are_said() {
    let mut w = OutputWindow::new(32 * 1024, "pty-1");
    w.push("run\nbar0 1\nbar1 1\npart", false);
    // The display redrew its two rows: they come again as they are now.
    w.rewind(2);
    w.push("bar0 2\nbar1 2\n", true);
    assert_eq!(w.take(false, Some(100), "pty-1"), "run\nbar0 2\nbar1 2\n");
    // What a read showed stays: the redraw's rows follow it, and the read says they rewrite
    // lines shown before.
    w.rewind(2);
    w.push("bar0 3\nbar1 3\n", true);
    assert_eq!(
        w.take(false, Some(100), "pty-1"),
        format!(
            "bar0 3\nbar1 3\n{}",
            dsh_terminal_core::rewound_notice(2, false)
        )
    );
    // Said once.
    w.push("done\n", false);
    assert_eq!(w.take(false, Some(100), "pty-1"), "done\n");
    // Lines kept past the first ones (the window's newest) are taken back too.
    let mut w = OutputWindow::new(1024, "pty-1");
    w.push(&numbered(1, 300), false);
    w.rewind(3);
    w.push("new\n", false);
    let read = w.take(false, Some(1000), "pty-1");
    assert!(read.ends_with("296\n297\nnew\n"), "{read}");
}

/// The core dropped part of one huge line between two drains (it counts no line end in what
/// it dropped): the line goes on, its cut counting the dropped bytes as an estimate, and no
/// omission line stands for lines that never were, also when the read before ended at a line
/// end (the line's start was dropped too: the cut comes first).
#[test]
fn a_loss_inside_one_huge_line_is_counted_in_its_cut() {
    let mut w = OutputWindow::new(8 * 1024, "pty-1");
    w.push(&format!("cmd\n{}", "a".repeat(3000)), false);
    w.push_after_loss(
        &format!("{}\nAFTER\n", "a".repeat(5000)),
        0,
        1_000_000,
        true,
    );
    let read = w.take(true, Some(10), "pty-1");
    assert!(!read.contains("lines omitted"), "{read}");
    let total: u64 = 3000 + 1_000_000 + 5000;
    let line = read.lines().nth(1).expect("the huge line");
    let (start, rest) = line.split_once("[… about ").expect("an estimated cut");
    let (count, end) = rest
        .split_once(" bytes of this line omitted")
        .expect("the cut's count");
    let end = &end[end.find(']').expect("the marker's end") + 1..];
    let count: u64 = count.parse().expect("a count");
    assert_eq!(
        count + start.len() as u64 + end.len() as u64,
        total,
        "{line}"
    );
    assert!(read.ends_with("AFTER\n"), "{read}");

    let mut w = OutputWindow::new(8 * 1024, "pty-1");
    w.push("cmd\n", false);
    w.push_after_loss(
        &format!("{}\nAFTER\n", "a".repeat(5000)),
        0,
        1_000_000,
        true,
    );
    let read = w.take(true, Some(10), "pty-1");
    assert!(read.contains("\n[… about "), "{read}");
    assert!(!read.contains("lines omitted"), "{read}");
}
