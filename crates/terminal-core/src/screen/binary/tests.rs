//! The binary filter's verdicts, window by window.

use super::*;

#[test]
fn only_plain_ascii_outside_a_run_passes_whole() {
    let mut f = BinaryFilter::default();
    assert!(f.passes_whole(b"plain line\r\n\tand \x1b[1mbold\x1b[m\x07\r\n"));
    assert!(!f.passes_whole("é".as_bytes()));
    assert!(!f.passes_whole(b"ok\x00"));
    f.hold(b"\n\x01");
    assert!(!f.passes_whole(b"text"));
    f.take_held();
    f.suppressed = Some(0);
    assert!(!f.passes_whole(b"text"));
}

/// A window of noise is binary up to its last non-text byte: the clean bytes after it are
/// judged again with what follows them.
fn binary_window(verdict: Verdict) -> usize {
    match verdict {
        Verdict::Binary(n) if n > WINDOW_BYTES - 3 * MIN_TEXT_RUN && n <= WINDOW_BYTES => n,
        other => panic!("a window of binary, not {other:?}"),
    }
}

#[test]
fn text_is_text_and_random_bytes_are_binary() {
    let mut f = BinaryFilter::default();
    let text = "héllo wörld ┌─┐ \x1b[31mred\x1b[0m\tx\r\n".repeat(20);
    assert_eq!(f.judge(text.as_bytes()), Verdict::Text(WINDOW_BYTES));
    let noise = pseudo_random(1000);
    let n = binary_window(f.judge(&noise));
    assert!(f.suppressing());
    assert_eq!(
        f.judge(b"\x1b]133;D;0;dsh=1\x07dsh> "),
        Verdict::EndOfBinary
    );
    assert_eq!(
        f.take_suppressed(),
        Some(Suppressed {
            bytes: n as u64,
            text_lines: 0
        })
    );
    assert!(!f.suppressing());
}

#[test]
fn a_prompt_mark_inside_noise_ends_suppression_at_the_mark() {
    let mut f = BinaryFilter::default();
    let mut bytes = pseudo_random(100);
    bytes.extend_from_slice(b"\x1b]133;D;0;dsh=1\x07");
    let mut at = 0;
    while let Verdict::Binary(n) = f.judge(&bytes[at..]) {
        at += n;
    }
    assert_eq!(at, 100);
    assert_eq!(f.judge(&bytes[100..]), Verdict::EndOfBinary);
    assert_eq!(
        f.take_suppressed(),
        Some(Suppressed {
            bytes: 100,
            text_lines: 0
        })
    );
}

#[test]
fn text_lines_before_the_binary_stay_text() {
    let mut f = BinaryFilter::default();
    let mut bytes = b"head -c 3000000 /dev/urandom\r\n".to_vec();
    bytes.extend(pseudo_random(1000));
    assert_eq!(f.judge(&bytes), Verdict::Text(30));
    binary_window(f.judge(&bytes[30..]));
}

#[test]
fn text_lines_inside_a_run_are_counted() {
    let mut f = BinaryFilter::default();
    let mut bytes = Vec::new();
    for i in 0..12 {
        bytes.extend(
            pseudo_random(64)
                .into_iter()
                .map(|b| if b == b'\n' { 0 } else { b }),
        );
        bytes.extend_from_slice(format!("\nreadable line {i}\n").as_bytes());
    }
    bytes.extend(
        pseudo_random(64)
            .into_iter()
            .map(|b| if b == b'\n' { 0 } else { b }),
    );
    let mut at = 0;
    while at < bytes.len() {
        match f.judge(&bytes[at..]) {
            Verdict::Binary(n) | Verdict::Text(n) => at += n,
            other => panic!("{other:?} at {at}"),
        }
    }
    let run = f.take_suppressed().unwrap();
    assert_eq!(run.bytes, bytes.len() as u64);
    assert_eq!(run.text_lines, 12);
    // The count is the run's own.
    binary_window(f.judge(&pseudo_random(300)));
    assert_eq!(f.take_suppressed().unwrap().text_lines, 0);
}

/// The count is of the bytes the program wrote: the CR the terminal puts before each of its
/// newlines is not one (`b'\x00\x01\x02\n' * 1000` is 4000 bytes, not 5000).
#[test]
fn the_count_leaves_out_the_carriage_returns_the_terminal_added() {
    let mut f = BinaryFilter::default();
    let bytes = b"\x00\x01\x02\r\n".repeat(1000);
    let mut at = 0;
    // Judged a window at a time (pairs cut between two count too); the last bytes are held
    // until more output comes.
    while let Verdict::Binary(n) = f.judge(&bytes[at..]) {
        at += n;
    }
    assert!(at > 4900, "{at}");
    let pairs = bytes[..at].windows(2).filter(|w| w == b"\r\n").count();
    let run = f.take_suppressed().map(|run| run.bytes);
    assert_eq!(run, Some((at - pairs) as u64));
}

#[test]
fn the_summary_line_is_api() {
    let run = |bytes, text_lines| Suppressed { bytes, text_lines };
    insta::assert_snapshot!(suppressed_line(run(3_000_000, 0), true));
    insta::assert_snapshot!("open_run", open_run_line(3_000_000));
    insta::assert_snapshot!("with_text_lines", suppressed_line(run(984, 11), true));
    insta::assert_snapshot!("short", suppressed_line(run(201, 0), false));
    insta::assert_snapshot!(
        "short_with_text_lines",
        suppressed_line(run(984, 11), false)
    );
    for advice in [true, false] {
        assert!(suppressed_line(run(100, 1), advice).contains("with 1 line of text among them"));
    }
}

/// The first summary line gives the advice; the next ones only count, until the advice is
/// restarted (a new result), whether or not text lines were among the bytes.
#[test]
fn the_advice_comes_with_the_first_summary_line_only() {
    let mut f = BinaryFilter::default();
    let run = |f: &mut BinaryFilter, text_lines| {
        f.suppressed = Some(10);
        f.text_lines = text_lines;
        f.take_summary_line().unwrap_or_default()
    };
    assert!(run(&mut f, 0).contains("xxd | head"));
    assert_eq!(run(&mut f, 0), "[10 bytes of binary output suppressed]");
    assert_eq!(
        run(&mut f, 2),
        "[10 bytes of binary output suppressed, with 2 lines of text among them]"
    );
    f.restart_advice();
    assert!(run(&mut f, 2).contains("`strings` or `grep -a`"));
    assert!(!run(&mut f, 0).contains("xxd"));
    // No run, no line, and the advice is still spent.
    assert_eq!(f.take_summary_line(), None);
    assert!(!run(&mut f, 0).contains("xxd"));
}

/// Lines of letters with bytes that are not UTF-8 among them (Latin-1 here) are text however
/// many of their bytes are not UTF-8; line structure alone makes no text of bytes that hold
/// controls (random bytes cut into lines) or no letters (`0x80..=0xBF` over and over).
#[test]
fn lines_of_letters_are_text_and_lines_of_other_bytes_are_not() {
    let latin1 = b"\xc4\xd6\xdc \xe4\xf6\xfc\xdf \xe9\xe8\xea \xe0\xe2 Gr\xf6\xdfe\r\n".repeat(20);
    assert_eq!(
        BinaryFilter::default().judge(&latin1),
        Verdict::Text(WINDOW_BYTES)
    );
    let random_lines: Vec<u8> = pseudo_random(1000)
        .chunks(40)
        .flat_map(|line| [line, b"\r\n"].concat())
        .collect();
    let letterless: Vec<u8> = (0..1000u32)
        .map(|i| {
            if i % 40 == 39 {
                b'\n'
            } else {
                0x80 + (i % 64) as u8
            }
        })
        .collect();
    for bytes in [random_lines, letterless] {
        let mut f = BinaryFilter::default();
        binary_window(f.judge(&bytes));
        assert!(f.suppressing());
    }
}

/// The clean bytes that end a binary output are its text, however few, when the output ends
/// with their line (`cat x.gz; echo $?`), but not when a signal ended the command: an
/// interrupted `cat /dev/urandom` stops anywhere in its random bytes (`I}L` showed as a line).
#[test]
fn a_short_tail_is_text_only_when_the_command_ended_by_itself() {
    let cases = [("0", true), ("1", true), ("130", false), ("143", false)];
    for ((status, tail_is_text), own_line) in
        cases.into_iter().flat_map(|c| [(c, false), (c, true)])
    {
        let mut bytes = pseudo_random(1000);
        // On the binary's last line, or on a line of its own after it.
        bytes.extend(if own_line {
            &b"\xff\r\nI}L\r\n"[..]
        } else {
            b"\xffI}L\r\n"
        });
        let run_end = bytes.len();
        bytes.extend(format!("\x1b]133;D;{status};dsh=1\x07dsh> ").into_bytes());
        let mut f = BinaryFilter::default();
        let mut at = 0;
        while let Verdict::Binary(n) = f.judge(&bytes[at..]) {
            at += n;
        }
        let ctx = format!("status {status}, own line {own_line}: at {at} of {run_end}");
        assert_eq!(f.judge(&bytes[at..]), Verdict::EndOfBinary, "{ctx}");
        let expected = if tail_is_text { run_end - 5 } else { run_end };
        assert_eq!(at, expected, "{ctx}");
    }
}
