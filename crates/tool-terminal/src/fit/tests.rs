//! The fitted viewport stays within the budget, keeps whole first and newest lines, and its
//! omission points `terminal_read` at exactly the lines it left out.

use super::*;
use crate::schema::{StatusOutput, WaitReasonOutput};
use proptest::prelude::*;

/// Session `pty-1`, its viewport's line numbers not known (omissions point by offset).
const PTY_1: Pages<'static> = Pages {
    session_id: "pty-1",
    newest_line: None,
};

fn foreground(viewport: &str, input_mode: InputModeOutput) -> SendOutput {
    SendOutput::Foreground {
        viewport: viewport.to_owned(),
        wait_reason: WaitReasonOutput::StdinRead,
        session_status: StatusOutput::Running,
        truncated: false,
        exit_code: Some(0),
        foreground: None,
        input_mode,
        earlier_commands: None,
        output_bytes: viewport.len() as u64,
        head: None,
        omitted: None,
        notices: Vec::new(),
    }
}

fn parts(output: &SendOutput) -> (&str, bool, Option<&OmittedOutput>) {
    match output {
        SendOutput::Foreground {
            viewport,
            truncated,
            omitted,
            ..
        } => (viewport, *truncated, omitted.as_ref()),
        SendOutput::Background { .. } => panic!("a foreground send"),
    }
}

/// `terminal_read`'s paging over a transcript: `count` lines ending `offset` lines before
/// the newest.
fn page(transcript: &str, offset: u64, count: u64) -> String {
    let lines: Vec<&str> = transcript.split('\n').collect();
    let end = lines.len() - usize::try_from(offset).unwrap();
    let begin = end.saturating_sub(usize::try_from(count).unwrap());
    lines[begin..end].join("\n")
}

/// Checks a fitted result of `viewport`, the newest part of `transcript`.
fn check(transcript: &str, viewport: &str, max_bytes: usize) {
    let mut output = foreground(viewport, InputModeOutput::Normal);
    fit_send(&mut output, PTY_1, max_bytes);
    let rendered = render::render_send(&output, max_bytes);
    assert!(
        rendered.len() <= max_bytes,
        "{} > {max_bytes}",
        rendered.len()
    );
    let (kept, truncated, omitted) = parts(&output);
    let Some(omitted) = omitted else {
        return;
    };
    assert!(truncated);
    let head: String = kept
        .split_inclusive('\n')
        .take(omitted.after_line)
        .collect();
    assert!(
        viewport.starts_with(&head),
        "the head is the viewport's start"
    );
    let tail = &kept[head.len()..];
    assert!(viewport.ends_with(tail), "the tail is the viewport's end");
    let left_out = &viewport[head.len()..viewport.len() - tail.len()];
    assert_eq!(omitted.bytes, left_out.len() as u64);
    let read = omitted.terminal_read.as_ref().expect("pageable");
    assert_eq!(read.session_id, "pty-1");
    assert_eq!(read.count, omitted.lines);
    let paged = page(transcript, read.offset, read.count);
    // The page holds the left-out text whole (its first and last lines may be shared with a
    // partially kept neighbour).
    let left_out = left_out.strip_suffix('\n').unwrap_or(left_out);
    assert!(paged.contains(left_out), "{paged:?} vs {left_out:?}");
    assert_eq!(paged.split('\n').count() as u64, omitted.lines);
    assert!(
        rendered.contains(&render::omission_line(omitted))
            || rendered.contains(&render::short_omission_line(omitted)),
        "{rendered}"
    );
    assert!(rendered.ends_with("\n[output truncated]"), "{rendered}");
}

#[test]
fn seq_keeps_the_command_line_the_first_and_the_newest_lines() {
    let lines: String = (1..=300_000).map(|i| format!("{i}\n")).collect();
    let transcript = format!("dsh> seq 1 300000\n{lines}dsh> ");
    let viewport = transcript.strip_prefix("dsh> ").unwrap();
    check(&transcript, viewport, 32 * 1024);
    let mut output = foreground(viewport, InputModeOutput::Normal);
    fit_send(&mut output, PTY_1, 32 * 1024);
    let text = render::render_send(&output, 32 * 1024);
    assert!(text.starts_with("seq 1 300000\n1\n2\n"), "{}", &text[..40]);
    assert!(text.contains("\n300000\ndsh> \n[wait: stdin_read]"));
    let (_, _, omitted) = parts(&output);
    let omitted = omitted.unwrap();
    // Whole lines on both sides of the omission line.
    let at = text.find("[… ").unwrap();
    assert!(text[..at].ends_with("\n"));
    let before: u64 = text[..at].lines().last().unwrap().parse().unwrap();
    let after: u64 = text[at..].lines().nth(1).unwrap().parse().unwrap();
    assert_eq!(after - before - 1, omitted.lines);
}

#[test]
fn output_that_fits_is_left_alone() {
    let mut output = foreground("echo hi\nhi\ndsh> ", InputModeOutput::Normal);
    let before = output.clone();
    fit_send(&mut output, PTY_1, 32 * 1024);
    assert_eq!(output, before);
}

#[test]
fn a_full_screen_program_gets_no_read_arguments() {
    let screen = "row\n".repeat(2000);
    let mut output = foreground(&screen, InputModeOutput::AlternateScreen);
    fit_send(&mut output, PTY_1, 2000);
    let (_, _, omitted) = parts(&output);
    let omitted = omitted.unwrap();
    assert!(omitted.terminal_read.is_none());
    assert!(render::omission_line(omitted).ends_with("omitted; page them with terminal_read]"));
}

/// A small budget still keeps the command line and the first lines (a quarter of the room),
/// the newest lines, and the arguments that page the rest.
#[test]
fn a_small_budget_keeps_the_first_and_newest_output_and_how_to_page_the_rest() {
    let lines: String = std::iter::once("seq 1 5000\n".to_owned())
        .chain((1..=5000).map(|i| format!("{i}\n")))
        .collect();
    for max_bytes in [400, 600] {
        let mut output = foreground(&lines, InputModeOutput::Normal);
        fit_send(&mut output, PTY_1, max_bytes);
        let (kept, truncated, omitted) = parts(&output);
        let omitted = omitted.expect("an omission line with terminal_read arguments");
        assert!(truncated);
        assert!(omitted.after_line > 1, "{max_bytes}: {kept:?}");
        assert!(kept.starts_with("seq 1 5000\n1\n"), "{max_bytes}: {kept:?}");
        assert!(omitted.terminal_read.is_some());
        assert!(kept.ends_with("5000\n"));
    }
    for max_bytes in [300, 400, 600, 900] {
        check(&lines, &lines, max_bytes);
    }
}

/// In a small budget one long line still keeps its start and end around the marker (at 600
/// bytes, after the marker and the result's status lines, too little of it would be left).
#[test]
fn a_long_line_in_a_small_budget_keeps_its_start_and_end() {
    let line = format!("start{}END", "x".repeat(5000));
    let viewport = format!("python3 -c \"print('x'*5000)\"\n{line}\ndsh> ");
    for max_bytes in [800, 1000] {
        let mut output = foreground(&viewport, InputModeOutput::Normal);
        fit_send(&mut output, PTY_1, max_bytes);
        let text = render::render_send(&output, max_bytes);
        assert!(text.len() <= max_bytes, "{max_bytes}: {}", text.len());
        assert!(
            text.contains("\nstartxx") && text.contains("xxEND\ndsh> "),
            "{max_bytes}: {text:?}"
        );
        assert!(text.contains("bytes of this line omitted"), "{text:?}");
    }
}

/// One line longer than the room keeps its start and its end around a marker with the bytes
/// cut from its middle (it used to be left out whole), and the lines around it stay.
#[test]
fn one_long_line_keeps_its_start_and_end() {
    let line = format!("start{}END", "x".repeat(100_000));
    let viewport = format!("python3 -c \"print('x'*100000)\"\n{line}\ndsh> ");
    let mut output = foreground(&viewport, InputModeOutput::Normal);
    fit_send(&mut output, PTY_1, 32 * 1024);
    let text = render::render_send(&output, 32 * 1024);
    assert!(text.len() <= 32 * 1024);
    let shown = text.lines().nth(1).unwrap();
    assert!(
        shown.starts_with("startxxx") && shown.ends_with("xxxEND"),
        "{shown:.80}"
    );
    let squeezed = regex_lite_squeeze(&text);
    insta::assert_snapshot!(squeezed);
    // Several long lines and short ones between them: every short line stays.
    let viewport = format!("cmd\n{line}\nmid\n{line}\nlast\ndsh> ");
    let mut output = foreground(&viewport, InputModeOutput::Normal);
    fit_send(&mut output, PTY_1, 32 * 1024);
    let text = render::render_send(&output, 32 * 1024);
    assert!(text.len() <= 32 * 1024);
    for kept in ["cmd", "mid", "last", "dsh> "] {
        assert!(text.lines().any(|l| l == kept), "{kept}: {text:.200}");
    }
}

/// Under a small cap (400 bytes) one huge line shows its start and end around its marker in
/// the bytes the omission line would take, rather than an omission line standing for it
/// alone; and many short lines keep the `terminal_read` arguments beside the lines shown
/// (the omission line is sized by the output's own counts, not the widest numbers).
#[test]
fn a_small_cap_shows_a_huge_lines_ends_and_keeps_the_paging_arguments() {
    const CAP: usize = 400;
    let line = format!("start{}END", "x".repeat(3000));
    let viewport = format!("python3 -c \"print('x'*3000)\"\n{line}\ndsh> ");
    let mut output = foreground(&viewport, InputModeOutput::Normal);
    fit_send(&mut output, PTY_1, CAP);
    let text = render::render_send(&output, CAP);
    assert!(text.len() <= CAP, "{text}");
    let (_, _, omitted) = parts(&output);
    assert!(omitted.is_none(), "{text}");
    let shown = text.lines().nth(1).unwrap();
    assert!(
        shown.starts_with("startxxx")
            && shown.contains("bytes of this line omitted")
            && shown.ends_with("xxxEND"),
        "{text}"
    );
    let lines: String = (1..=200).map(|i| format!("{i}\n")).collect();
    let viewport = format!("seq 1 200\n{lines}dsh> ");
    let mut output = foreground(&viewport, InputModeOutput::Normal);
    fit_send(&mut output, PTY_1, CAP);
    let text = render::render_send(&output, CAP);
    assert!(text.len() <= CAP, "{text}");
    assert!(
        text.contains("omitted; page them with terminal_read {\"sessionId\": \"pty-1\""),
        "{text}"
    );
    assert!(
        text.lines().filter(|l| l.parse::<u32>().is_ok()).count() >= 20,
        "{text}"
    );
}

/// Runs of one repeated character longer than 20 as `<c*N>`, so that snapshots stay short.
fn regex_lite_squeeze(text: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let mut j = i;
        while j < chars.len() && chars[j] == chars[i] {
            j += 1;
        }
        if j - i > 20 {
            out.push_str(&format!("<{}*{}>", chars[i], j - i));
        } else {
            out.extend(&chars[i..j]);
        }
        i = j;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn omissions_address_exactly_the_left_out_lines(
        older in "[a-c\n]{0,50}",
        lines in proptest::collection::vec("[a-z一 ]{0,60}", 1..400),
        trailing in "\n{0,2}",
        max_bytes in 700usize..6000,
    ) {
        let viewport = format!("{}{trailing}", lines.join("\n"));
        let transcript = format!("{older}\n{viewport}");
        check(&transcript, &viewport, max_bytes);
    }
}

/// A viewport that lost its start keeps the core's head: the command line and first lines,
/// then the omission (saying how many lines are no longer retained), then the newest lines;
/// `terminal_read` pages exactly the retained left-out lines.
/// A foreground send whose viewport `transcript` lost its start, with the kept `head`.
fn cut_with_head(transcript: &str, kept: SendHead) -> SendOutput {
    let mut output = foreground(transcript, InputModeOutput::Normal);
    if let SendOutput::Foreground {
        head, truncated, ..
    } = &mut output
    {
        *truncated = true;
        *head = Some(Box::new(kept));
    }
    output
}

#[test]
fn a_kept_head_leads_a_viewport_that_lost_its_start() {
    let head_text: String = std::iter::once("seq 1 300000\n".to_owned())
        .chain((1..=99).map(|i| format!("{i}\n")))
        .collect();
    let retained: String = (290_001..=300_000).map(|i| format!("{i}\n")).collect();
    let transcript = format!("{retained}dsh> ");
    let mut output = cut_with_head(
        &transcript,
        SendHead {
            text: head_text.clone(),
            lines_dropped: 0,
            lines_between: 289_901,
            retained_lines_before: 0,
            retained_bytes_before: 0,
            line_start: None,
        },
    );
    fit_send(&mut output, PTY_1, 4096);
    let rendered = render::render_send(&output, 4096);
    assert!(rendered.len() <= 4096, "{}", rendered.len());
    assert!(rendered.starts_with("seq 1 300000\n1\n2\n"), "{rendered}");
    assert!(rendered.contains("300000\ndsh> "), "{rendered}");
    let (kept, _, omitted) = parts(&output);
    let omitted = omitted.expect("omitted");
    assert!(omitted.not_retained_lines >= 289_901, "{omitted:?}");
    let read = omitted.terminal_read.as_ref().expect("pageable");
    let newest_kept = kept.split_inclusive('\n').nth(omitted.after_line);
    let paged = page(&transcript, read.offset, read.count);
    assert!(paged.starts_with("290001\n"), "{paged:?}");
    let next = page(&transcript, read.offset - 1, 1);
    assert_eq!(
        Some(format!("{next}\n").as_str()),
        newest_kept,
        "{rendered}"
    );
    insta::assert_snapshot!(
        "kept_head_omission_line",
        rendered
            .lines()
            .find(|l| l.starts_with("[…"))
            .unwrap_or_default()
    );
}

#[test]
fn retained_lines_before_the_viewport_are_pageable_not_dropped() {
    // The head (command + 1..=59), 180 retained lines before the viewport, the viewport.
    let head_text: String = std::iter::once("cmd\n".to_owned())
        .chain((1..=59).map(|i| format!("{i}\n")))
        .collect();
    let transcript: String = (240..=1500).map(|i| format!("{i}\n")).collect();
    let transcript = format!("{transcript}dsh> ");
    let fitted = |retained_lines_before| {
        let mut output = cut_with_head(
            &transcript,
            SendHead {
                text: head_text.clone(),
                lines_dropped: 0,
                lines_between: 0,
                retained_lines_before,
                retained_bytes_before: retained_lines_before * 5,
                line_start: None,
            },
        );
        fit_send(&mut output, PTY_1, 4096);
        let (_, _, omitted) = parts(&output);
        omitted.expect("omitted").clone()
    };
    let (without, with) = (fitted(0), fitted(180));
    assert_eq!(with.not_retained_lines, 0, "{with:?}");
    assert_eq!(with.lines, without.lines + 180, "{with:?}");
    let (w, o) = (
        with.terminal_read.expect("pageable"),
        without.terminal_read.expect("pageable"),
    );
    // The same page end (just before the kept tail), reaching 180 lines further back.
    assert_eq!((w.offset, w.count), (o.offset, o.count + 180));
}

#[test]
fn one_huge_line_after_a_kept_head_gets_no_empty_omission_line() {
    // The command line was kept; the rest is one line, cut in its middle by its own marker.
    let line = "q".repeat(300_000);
    let transcript = format!("{line}\ndsh> ");
    let mut output = cut_with_head(
        &transcript,
        SendHead {
            text: "printf q…\n".to_owned(),
            lines_dropped: 0,
            lines_between: 0,
            retained_lines_before: 0,
            retained_bytes_before: 0,
            line_start: None,
        },
    );
    fit_send(&mut output, PTY_1, 32 * 1024);
    let (_, _, omitted) = parts(&output);
    assert!(omitted.is_none(), "{omitted:?}");
    let rendered = render::render_send(&output, 32 * 1024);
    assert!(!rendered.contains("[… 0 lines"), "{rendered:.300}");
    assert!(
        rendered.contains("bytes of this line omitted"),
        "{rendered:.300}"
    );
}

#[test]
fn a_viewport_inside_a_huge_line_shows_the_lines_start_and_counts_the_rest() {
    let start = "1 2 3 4 5 ".repeat(400);
    let end = "9 ".repeat(50_000);
    let transcript = format!("{end}\nNEXT\ndsh> ");
    let mut output = cut_with_head(
        &transcript,
        SendHead {
            text: "seq …\n".to_owned(),
            lines_dropped: 0,
            lines_between: 0,
            retained_lines_before: 0,
            retained_bytes_before: 0,
            line_start: Some(LineStart {
                text: start.clone(),
                omitted_bytes: 1_000_000,
                start_dropped: false,
            }),
        },
    );
    fit_send(&mut output, PTY_1, 4096);
    let (viewport, truncated, omitted) = parts(&output);
    assert!(truncated);
    assert_eq!(omitted, None, "nothing but the line's middle is left out");
    let lines: Vec<&str> = viewport.split('\n').collect();
    assert_eq!(lines[0], "seq …");
    assert_eq!(&lines[2..], ["NEXT", "dsh> "]);
    let (shown_start, rest) = lines[1].split_once("[… about ").unwrap();
    let (count, shown_end) = rest.split_once(" bytes of this line omitted").unwrap();
    let shown_end = &shown_end[shown_end.find(']').unwrap() + 1..];
    assert!(start.starts_with(shown_start) && !shown_start.is_empty());
    assert!(end.ends_with(shown_end) && !shown_end.is_empty());
    // Every byte of the line is shown or counted.
    let count: usize = count.parse().unwrap();
    assert_eq!(
        shown_start.len() + count + shown_end.len(),
        start.len() + 1_000_000 + end.len()
    );
    assert!(render::render_send(&output, usize::MAX).len() <= 4096);
}

/// An omission counts the bytes its lines had as printed, not what is left of an over-long
/// one after its middle was cut for the result.
#[test]
fn an_omission_counts_over_long_lines_whole() {
    let short: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    let viewport = format!("cmd\n{short}{}\n{short}dsh> ", "é".repeat(3000));
    for max_bytes in [400, 900, 1200] {
        let mut output = foreground(&viewport, InputModeOutput::Normal);
        fit_send(&mut output, PTY_1, max_bytes);
        let (kept, truncated, omitted) = parts(&output);
        assert!(truncated);
        let omitted = omitted.unwrap_or_else(|| panic!("{max_bytes}: an omission: {kept}"));
        let printed: u64 = viewport
            .split_inclusive('\n')
            .skip(omitted.after_line)
            .take(usize::try_from(omitted.lines).unwrap())
            .map(|line| line.len() as u64)
            .sum();
        assert!(printed > 6000, "the long line is left out: {omitted:?}");
        assert_eq!(omitted.bytes, printed, "{max_bytes}: {omitted:?}");
    }
}

/// A cap too small for the long omission line beside any output (about 300 bytes or less)
/// gets the short one, whole: the result never begins inside it, and keeps output lines
/// around it; the structured omission still carries the `terminal_read` arguments.
#[test]
fn a_tiny_cap_gets_the_short_omission_line_whole() {
    let lines: String = std::iter::once("seq 1 100\n".to_owned())
        .chain((1..=100).map(|i| format!("{i}\n")))
        .chain(std::iter::once("dsh> ".to_owned()))
        .collect();
    for max_bytes in [200, 250, 300] {
        let mut output = foreground(&lines, InputModeOutput::Normal);
        fit_send(&mut output, PTY_1, max_bytes);
        let text = render::render_send(&output, max_bytes);
        assert!(text.len() <= max_bytes, "{max_bytes}: {}", text.len());
        let (_, _, omitted) = parts(&output);
        let omitted = omitted.expect("an omission");
        assert!(omitted.terminal_read.is_some(), "{max_bytes}");
        let short = render::short_omission_line(omitted);
        assert!(
            text.contains(&format!("{short}\n")),
            "{max_bytes}: {text:?}"
        );
        assert!(
            text.starts_with(&short) || text.starts_with("seq 1 100\n"),
            "{max_bytes}: {text:?}"
        );
        assert!(
            text.contains("\ndsh> \n[wait: stdin_read]"),
            "{max_bytes}: {text:?}"
        );
        if max_bytes >= 250 {
            assert!(text.starts_with("seq 1 100\n"), "{max_bytes}: {text:?}");
            assert!(text.contains("\n100\ndsh> \n"), "{max_bytes}: {text:?}");
        }
    }
    // Below that (the minimum cap is 64), no line is cut: each is one of the output's, the
    // omission line, or a fact line, and `[wait: …]` and `[exit: …]` stay (`[session: …]`
    // too, but at the minimum cap).
    for max_bytes in [64, 80, 100, 130, 160] {
        let mut output = foreground(&lines, InputModeOutput::Normal);
        fit_send(&mut output, PTY_1, max_bytes);
        let text = render::render_send(&output, max_bytes);
        assert!(text.len() <= max_bytes, "{max_bytes}: {}", text.len());
        let (_, _, omitted) = parts(&output);
        let short = render::short_omission_line(omitted.expect("an omission"));
        for line in text.lines() {
            assert!(
                lines.lines().any(|l| l == line)
                    || line == short
                    || line.starts_with("[wait: ")
                    || line.starts_with("[output: ")
                    || line == "[exit: 0]"
                    || line == "[session: running]"
                    || line == "[output truncated]",
                "{max_bytes}: {line:?} in {text:?}"
            );
        }
        assert!(
            text.contains("[wait: stdin_read]\n"),
            "{max_bytes}: {text:?}"
        );
        assert!(text.contains("\n[exit: 0]\n"), "{max_bytes}: {text:?}");
        assert_eq!(
            text.contains("[session: running]"),
            max_bytes > 64,
            "{max_bytes}: {text:?}"
        );
    }
    // A cap that leaves room keeps the long line, arguments and all.
    let lines: String = (1..=1000).map(|i| format!("{i}\n")).collect();
    let mut output = foreground(&lines, InputModeOutput::Normal);
    fit_send(&mut output, PTY_1, 600);
    let text = render::render_send(&output, 600);
    assert!(
        text.contains("omitted; page them with terminal_read {\"sessionId\""),
        "{text}"
    );
}

/// A viewport many times the bound whose render fits because its lines repeat: the
/// structured viewport is folded as the text is (it held every line), and the text is the same.
#[test]
fn a_viewport_of_repeated_lines_is_folded_in_the_structured_output_too() {
    let line = "x".repeat(200);
    let viewport = format!("python3 big.py\n{}dsh> ", format!("{line}\n").repeat(1000));
    let mut output = foreground(&viewport, InputModeOutput::Normal);
    let before = render::render_send(&output, 32 * 1024);
    fit_send(&mut output, PTY_1, 32 * 1024);
    let (kept, truncated, omitted) = parts(&output);
    assert!(kept.len() <= 32 * 1024, "{}", kept.len());
    assert_eq!(
        kept,
        format!("python3 big.py\n{line}\n[… the line above repeats 999 more times]\ndsh> ")
    );
    assert!(!truncated && omitted.is_none());
    assert_eq!(render::render_send(&output, 32 * 1024), before);
    // Within the bound, the lines stay as they are.
    let short = format!("seq\n{}dsh> ", "y\n".repeat(50));
    let mut output = foreground(&short, InputModeOutput::Normal);
    fit_send(&mut output, PTY_1, 32 * 1024);
    assert_eq!(parts(&output).0, short);
}
