//! Text mixed with many binary frames: the first summary line of a result says how to look
//! at the bytes, the later ones only count them, so the text lines keep their room.

use pretty_assertions::assert_eq;

use super::binary::{prompt_after_success, random_through_pty};
use super::*;

/// What the advice of a summary line says (both forms name `xxd | head`).
const ADVICE: &str = "xxd | head";

/// The default result cap of a send (`--max-result-bytes`).
const RESULT_CAP: usize = 32 * 1024;

/// The tester's case, `for i in $(seq 200); do echo "text line $i of log"; head -c 200
/// /dev/urandom; echo; done`: each text line, then a frame of 200 random bytes and a
/// newline, as the terminal delivers them (each newline as CR LF).
fn frames() -> Vec<(Vec<u8>, Vec<u8>)> {
    (1..=200u64)
        .map(|i| {
            let text = format!("text line {i} of log\r\n").into_bytes();
            let mut frame = random_through_pty(i, 200);
            frame.extend(b"\r\n");
            (text, frame)
        })
        .collect()
}

/// Field case: read frame by frame (each `head` is a process of its own, so a read ends
/// after each text line), every text line shows, each frame is one summary line, and only
/// the first of them carries the advice: the whole output fits a result.
#[test]
fn text_lines_between_binary_frames_all_fit_with_the_advice_once() {
    let mut s = Screen::new(config(40, 160), Some(nonce()));
    s.feed(b"dsh> ");
    let a = s.anchor();
    s.feed(b"cmd\r\n");
    for (text, frame) in frames() {
        s.feed(&text);
        s.feed(&frame);
    }
    s.feed(&prompt_after_success());
    let text = s.render_since(a, 1_000_000).text;
    let lines: Vec<&str> = text.lines().collect();
    for i in 1..=200 {
        let line = format!("text line {i} of log");
        assert_eq!(
            lines.iter().filter(|l| **l == line).count(),
            1,
            "{line}: {text}"
        );
    }
    let summaries: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.contains(" bytes of binary output suppressed"))
        .collect();
    assert!(summaries.len() >= 190, "{text}");
    assert_eq!(text.matches(ADVICE).count(), 1, "{text}");
    assert!(summaries[0].contains(ADVICE), "{text}");
    for line in &summaries[1..] {
        let bytes = line
            .strip_prefix('[')
            .and_then(|l| l.split_once(' '))
            .and_then(|(n, _)| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("{line}"));
        assert!(
            *line == format!("[{bytes} bytes of binary output suppressed]")
                || line.ends_with(" of text among them]"),
            "{line}"
        );
    }
    assert!(text.len() < RESULT_CAP / 2, "{} bytes: {text}", text.len());
}

/// The same output read in large pieces: text lines that share a read with the frames around
/// them are counted in a summary line instead (they cannot be told from random bytes there);
/// every line is shown or counted, and the advice still comes once.
#[test]
fn the_advice_comes_once_however_the_reads_cut_the_frames() {
    let output: Vec<u8> = frames()
        .into_iter()
        .flat_map(|(text, frame)| [text, frame].concat())
        .collect();
    for chunk_len in [300, 1000, 4096, 65_536] {
        let mut s = Screen::new(config(40, 160), Some(nonce()));
        s.feed(b"dsh> ");
        let a = s.anchor();
        s.feed(b"cmd\r\n");
        for chunk in output.chunks(chunk_len) {
            s.feed(chunk);
        }
        s.feed(&prompt_after_success());
        let text = s.render_since(a, 1_000_000).text;
        let ctx = format!("chunk {chunk_len}: {text}");
        assert_eq!(text.matches(ADVICE).count(), 1, "{ctx}");
        let shown = text.lines().filter(|l| l.starts_with("text line ")).count();
        let counted: usize = text
            .lines()
            .filter_map(|l| {
                l.split_once(", with ")?
                    .1
                    .split(' ')
                    .next()?
                    .parse::<usize>()
                    .ok()
            })
            .sum();
        assert!(shown + counted >= 200, "{ctx}");
        assert!(text.len() < RESULT_CAP, "{ctx}");
    }
}

/// A new result (the session restarts the advice where the next send's span starts) gives
/// the advice again with its first summary line.
#[test]
fn a_new_result_gives_the_advice_again() {
    let mut s = Screen::new(config(40, 160), Some(nonce()));
    s.feed(b"dsh> ");
    let run = |s: &mut Screen| {
        let a = s.anchor();
        for seed in [1, 2] {
            s.feed(b"header line\r\n");
            s.feed(&random_through_pty(seed, 2000));
            s.feed(b"\r\n");
        }
        s.feed(b"after the binary\r\n");
        s.feed(&prompt_after_success());
        let text = s.render_since(a, 100_000).text;
        s.release_anchor(a);
        text
    };
    let first = run(&mut s);
    assert_eq!(first.matches(ADVICE).count(), 1, "{first}");
    let again = run(&mut s);
    assert_eq!(again.matches(ADVICE).count(), 0, "{again}");
    s.restart_binary_advice();
    let restarted = run(&mut s);
    assert_eq!(restarted.matches(ADVICE).count(), 1, "{restarted}");
    let summaries = restarted
        .lines()
        .filter(|l| l.contains(" suppressed"))
        .count();
    assert_eq!(summaries, 2, "{restarted}");
}

/// On the alternate screen, whose rows render one by one (nothing joins a wrapped row there),
/// a summary line longer than a row is broken between words, never inside one.
#[test]
fn a_summary_on_the_alternate_screen_breaks_between_words() {
    for cols in [160, 80, 37] {
        let mut s = Screen::new(config(24, cols), Some(nonce()));
        s.feed(b"dsh> ");
        let a = s.anchor();
        s.feed(b"\x1b[?1049h\x1b[Htitle\r\n");
        s.feed(&random_through_pty(5, 3000));
        s.feed(b"\r\nafter the binary\r\n");
        let text = s.render_since(a, 100_000).text;
        let ctx = format!("{cols} columns: {text:?}");
        let rows: Vec<&str> = text
            .lines()
            .skip(1)
            .take_while(|l| *l != "after the binary")
            .collect();
        assert!(rows.len() > 1, "{ctx}");
        assert!(rows.iter().all(|r| r.len() <= usize::from(cols)), "{ctx}");
        let joined = rows.join(" ");
        assert!(
            joined.starts_with('[') && joined.ends_with(" to a file]"),
            "{ctx}"
        );
        assert!(joined.contains(" bytes of binary output suppressed; to look at them, pipe the command through `xxd | head` (or"), "{ctx}");
        assert!(text.contains("\nafter the binary\n"), "{ctx}");
    }
}
