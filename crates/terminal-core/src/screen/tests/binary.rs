//! Binary output (C37): one summary line, text around it kept, marks still counted.

use pretty_assertions::assert_eq;

use super::*;

/// What the shell prints when its prompt comes back after a command that exited 0: the `D`
/// mark, then the prompt `dsh> ` between its `A` and `B` marks.
pub(super) fn prompt_after_success() -> Vec<u8> {
    let mut tail = mark("D;0");
    tail.extend(mark("A"));
    tail.extend(b"dsh> ");
    tail.extend(mark("B"));
    tail
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
    let tail = prompt_after_success();
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
            output.extend(prompt_after_success());
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
fn c37_a_prompt_mark_split_after_binary_still_counts() {
    let tail = prompt_after_success();
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
        assert!(text.ends_with("suppressed; to look at them, pipe the command through `xxd | head` (or `strings` for any short text among them) or redirect its output to a file]\ndsh> "), "{text:?}");
    }
}

/// Binary output right after the `C` mark of its command's start (in the same small reads) is
/// suppressed like any other: a mark is judged alone, never with the bytes around it.
#[test]
fn binary_right_after_a_command_start_mark_is_suppressed() {
    for chunk_len in [16, 40, 63, 64, 100, 4096] {
        let mut s = Screen::new(config(40, 160), Some(nonce()));
        s.feed(b"dsh> cat blob\r\n");
        let a = s.anchor();
        let mut output = mark("C");
        output.extend(pseudo_random(300));
        output.extend(b"\r\nRESULT: 42\r\n");
        for chunk in output.chunks(chunk_len) {
            s.feed(chunk);
        }
        let text = s.render_since(a, 100_000).text;
        assert!(!text.contains('\u{fffd}'), "{chunk_len}: {text:?}");
        assert!(
            text.contains("bytes of binary output suppressed"),
            "{chunk_len}: {text:?}"
        );
        assert!(text.contains("RESULT: 42"), "{chunk_len}: {text:?}");
    }
}

/// Text printed right after binary output on the same line (`cat x.gz; echo done`, or an
/// error message after binary with no newline between) is text: it shows after the summary
/// line, and its bytes are not counted as binary, however the burst is split into reads and
/// whether a prompt mark, more text or nothing follows it (a short text: a prompt mark or
/// nothing).
#[test]
fn c37_text_after_binary_on_its_last_line_stays() {
    let messages = [
        "Z",
        "OK",
        "MARK",
        "EXIT-MARK=0",
        "ls: cannot access '/nonexistent-zz': No such file or directory",
        &"a long line of text after the binary output ".repeat(8),
    ];
    let noise: Vec<u8> = pseudo_random(3000)
        .into_iter()
        .filter(|&b| b != b'\n')
        .collect();
    for message in messages {
        for ending in ["mark", "text", "pause"] {
            // A short text is told from the binary's last bytes only when the output ends
            // with it (a prompt follows, or nothing yet).
            if (message.len() < 8 && ending == "text") || (message.len() < 4 && ending == "pause") {
                continue;
            }
            for chunk_len in [10, 33, 64, 100, 255, 256, 257, 1000, 4096, 100_000] {
                let mut s = Screen::new(config(40, 160), Some(nonce()));
                s.feed(b"dsh> ");
                let a = s.anchor();
                let mut output = b"cat blob.gz; echo done\r\n".to_vec();
                output.extend(&noise);
                output.extend(message.as_bytes());
                output.extend(b"\r\n");
                match ending {
                    "mark" => {
                        output.extend(prompt_after_success());
                    }
                    "text" => output.extend(b"next line of text\r\n"),
                    _ => {}
                }
                for chunk in output.chunks(chunk_len) {
                    s.feed(chunk);
                }
                let text = s.render_since(a, 100_000).text;
                let ctx = format!("{message:?} then {ending}, chunk {chunk_len}: {text:?}");
                let lines: Vec<&str> = text.lines().collect();
                assert_eq!(lines[0], "cat blob.gz; echo done", "{ctx}");
                let summary = lines[1];
                assert!(
                    summary.contains("bytes of binary output suppressed"),
                    "{ctx}"
                );
                let count: usize = summary[1..]
                    .split(' ')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("{ctx}"));
                assert!(count <= noise.len(), "the message is not counted: {ctx}");
                assert!(count + 16 >= noise.len(), "the noise is counted: {ctx}");
                // Clean bytes at the noise's very end may lead the message; nothing else does.
                let shown = lines[2..].join("\n");
                assert!(shown.contains(message.trim_end()), "{ctx}");
                assert!(!shown.contains('\u{fffd}'), "{ctx}");
                match ending {
                    "mark" => assert_eq!(lines.last(), Some(&"dsh> "), "{ctx}"),
                    "text" => assert_eq!(lines.last(), Some(&"next line of text"), "{ctx}"),
                    _ => {}
                }
            }
        }
    }
}

/// A short binary output before the prompt (`cat small.gz`, under the window the filter
/// usually needs) is summarised too; short text with a stray invalid byte (Latin-1) is not.
#[test]
fn c37_a_short_binary_output_before_the_prompt_is_summarised() {
    let gzip: &[u8] = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcbH\xcd\xc9\xc9W(\xcf/\xcaI\xe1\x02\x00-;\x08\xaf\x0c\x00\x00\x00";
    for (output, binary) in [
        (gzip, true),
        (&[0x80u8; 32][..], true),
        (&b"Gr\xfc\xdfe aus M\xfcnchen"[..], false),
        (&b"plain short text"[..], false),
    ] {
        let mut s = Screen::new(config(40, 160), Some(nonce()));
        s.feed(b"dsh> ");
        let a = s.anchor();
        let mut bytes = b"cat f; echo; echo done-long-text\r\n".to_vec();
        bytes.extend(output);
        bytes.extend(b"\r\ndone-long-text\r\n");
        bytes.extend(prompt_after_success());
        s.feed(&bytes);
        let text = s.render_since(a, 100_000).text;
        assert_eq!(
            text.contains("bytes of binary output suppressed"),
            binary,
            "{output:?}: {text:?}"
        );
        if binary {
            assert!(!text.contains('\u{fffd}'), "{output:?}: {text:?}");
        }
        assert!(
            text.ends_with("done-long-text\ndsh> "),
            "{output:?}: {text:?}"
        );
    }
}

/// Text inside a binary file (an executable's strings, between runs of non-text bytes) may
/// show, but a window after a binary run with any non-text byte in it is binary again: no
/// U+FFFD reaches the result.
#[test]
fn c37_strings_inside_a_binary_file_bring_no_replacement_characters() {
    let mut output = pseudo_random(3000);
    output.extend(
        b"\x00NOTE: your shell may have its own version of %s, which usually supersedes\r\n",
    );
    output.extend(b"the version described here.  Please refer to your shell's documentation\r\n");
    output.extend(
        b"for details about the options it supports.\r\nhttps://www.gnu.org/software/x/\r\n",
    );
    output.extend(b"/.libs/\xe2\x80\x99\xff\xfe\"'\xe9\x0ee\xe2\x80\x98`literalshellshell-alwaysshell-escape\r\n");
    output.extend(b"License GPLv3+: GNU GPL version 3 or later <%s>.\r\n\x00\x00\x01\x02");
    output.extend(pseudo_random(500));
    for chunk_len in [64, 256, 1000, 4096] {
        let mut s = Screen::new(config(40, 160), Some(nonce()));
        s.feed(b"dsh> ");
        let a = s.anchor();
        let mut bytes = b"cat /bin/true\r\n".to_vec();
        bytes.extend(&output);
        bytes.extend(prompt_after_success());
        for chunk in bytes.chunks(chunk_len) {
            s.feed(chunk);
        }
        let text = s.render_since(a, 100_000).text;
        assert!(!text.contains('\u{fffd}'), "chunk {chunk_len}: {text:?}");
        assert!(text.ends_with("dsh> "), "chunk {chunk_len}: {text:?}");
        // Text after the file's end is text again.
        let b = s.anchor();
        s.feed(b"echo caf\xe9 latin-1 text is shown as a terminal shows it\r\n");
        assert!(s.render_since(b, 10_000).text.contains("latin-1 text"));
    }
}

/// A short output alone before the prompt (its own read): a line of text with a few bad bytes
/// (a mis-encoded name, a cut character) stays text, with replacement characters; short
/// binary (`cat small.gz`) is still summarised.
#[test]
fn a_short_line_with_a_few_bad_bytes_stays_text() {
    let gzip: &[u8] = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcbH\xcd\xc9\xc9W(\xcf/\xcaI\xe1\x02\x00-;\x08\xaf\x0c\x00\x00\x00";
    for (output, binary, shown) in [
        (&b"\xff\xfe bad \xc3\x28 \xe2\x82 end"[..], false, " end\n"),
        (&b"caf\xe9 \xe0 la cr\xe8me"[..], false, " la cr"),
        // Dense invalid UTF-8 with no control byte (overlong, CESU-8 surrogate, past
        // U+10FFFF): the letters between stay, as on a terminal.
        (
            &b"x\xc0\xafy \xed\xa0\x80z \xf4\x90\x80\x80w"[..],
            false,
            "y \u{fffd}",
        ),
        (gzip, true, ""),
        (&[0x80u8; 24][..], true, ""),
    ] {
        let mut s = Screen::new(config(40, 160), Some(nonce()));
        s.feed(b"dsh> ");
        let a = s.anchor();
        s.feed(b"printf x\r\n");
        let mut bytes = output.to_vec();
        bytes.extend(b"\r\n");
        bytes.extend(prompt_after_success());
        s.feed(&bytes);
        let text = s.render_since(a, 100_000).text;
        assert_eq!(
            text.contains("bytes of binary output suppressed"),
            binary,
            "{output:?}: {text:?}"
        );
        assert!(text.contains(shown), "{output:?}: {text:?}");
    }
}

/// NUL bytes are judged by neither side, as a terminal shows nothing for them: UTF-16 text of
/// ASCII characters (every other byte NUL) reads as its text, as on a terminal, while NULs
/// among random bytes (an executable, a sparse file's data) stay binary.
#[test]
fn text_among_nul_bytes_stays_text_and_binary_among_them_stays_binary() {
    // As the terminal passes it on: the program's LF after a CR the terminal adds.
    let utf16: Vec<u8> = "hello world line\r\n"
        .repeat(50)
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let mut elf_like = Vec::new();
    for (i, b) in pseudo_random(3000).into_iter().enumerate() {
        elf_like.push(b);
        if i % 2 == 0 {
            elf_like.extend([0, 0]);
        }
    }
    // Accented Latin letters among them (their high byte is NUL too).
    let accented: Vec<u8> = "Line 7: café naïve résumé façade\r\n"
        .repeat(30)
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    // A file that starts with a byte-order mark, long or short (`a,b` / `1,2`).
    let with_bom = [&b"\xff\xfe"[..], &utf16].concat();
    let short_with_bom = b"\xff\xfea\0,\0b\0\r\n\x001\0,\x002\0\r\n\0".to_vec();
    for (output, binary) in [
        (accented, false),
        (utf16, false),
        (with_bom, false),
        (short_with_bom, false),
        (elf_like, true),
        (vec![0u8; 4000], false),
    ] {
        let mut s = Screen::new(config(40, 160), Some(nonce()));
        s.feed(b"dsh> ");
        let a = s.anchor();
        let mut bytes = b"cat file\r\n".to_vec();
        bytes.extend(&output);
        bytes.extend(prompt_after_success());
        for chunk in bytes.chunks(700) {
            s.feed(chunk);
        }
        let text = s.render_since(a, 100_000).text;
        assert_eq!(
            text.contains("bytes of binary output suppressed"),
            binary,
            "{text:?}"
        );
        if !binary && output.contains(&b'L') {
            assert!(text.contains("\nLine 7: caf"), "{text:?}");
        }
        if !binary && output.contains(&b'h') {
            assert!(
                text.contains("\nhello world line\nhello world line\n"),
                "{text:?}"
            );
        }
    }
}

/// Text printed right after binary output (`cat x.bin; echo END`) shows whole, however the
/// reads cut the output: byte by byte, in small pieces, or in large reads whose judging
/// window ends a few bytes into the text or just before its newline.
#[test]
fn c37_text_right_after_binary_shows_however_the_reads_cut_it() {
    let mut out = Vec::new();
    for (i, b) in pseudo_random(6000).into_iter().enumerate() {
        // Some text among the binary, as in a compiled file's strings.
        if i % 700 < 40 {
            out.push(b'a' + (b % 26));
        } else {
            out.push(b);
        }
    }
    out.push(0x03);
    out.extend(b"END\r\n");
    out.extend(prompt_after_success());
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for round in 0..1200 {
        let mut s = Screen::new(config(40, 160), Some(nonce()));
        s.feed(b"dsh> ");
        let a = s.anchor();
        s.feed(b"cat f; echo END\r\n");
        let mut at = 0;
        while at < out.len() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = match round {
                0..40 => round + 1,
                _ if round % 2 == 0 => (x % 5000) as usize + 1,
                _ => (x % 300) as usize + 1,
            };
            let end = (at + n).min(out.len());
            s.feed(&out[at..end]);
            at = end;
        }
        let text = s.render_since(a, 100_000).text;
        assert!(
            text.ends_with("output to a file]\nEND\ndsh> "),
            "round {round}: {:?}",
            &text[text.len().saturating_sub(200)..]
        );
    }
}

/// Field case C37 read as a background job reads it: a send's output consumed every few
/// chunks while binary output goes on keeps the run open. Each read in the middle shows the
/// run so far as the line being written (replaced by the next read, which restarts that
/// row), and the output ends with one summary line and no stray bytes, as when read once.
#[test]
fn c37_reads_in_the_middle_of_binary_output_keep_one_summary_line() {
    for chunk_len in [100, 257, 4096, 65_536] {
        let mut s = Screen::new(config(40, 160), Some(nonce()));
        s.feed(b"dsh> ");
        let a = s.anchor();
        // Never read until the end.
        let whole = s.anchor();
        let mut output = b"cmd\r\nHEADER ok\r\n".to_vec();
        output.extend(pseudo_random(300_000));
        output.extend(b"\r\nRESULT: 42\r\n");
        // What a reader that replaces the line being written on a restart puts together.
        let mut seen = String::new();
        let mut so_far_reads = 0;
        let read = |s: &mut Screen, seen: &mut String| {
            let consumed = s.consume_since(a, 100_000);
            let delta = consumed.rows.render(100_000).text;
            if consumed.restarts_line {
                seen.truncate(seen.rfind('\n').map_or(0, |nl| nl + 1));
            }
            seen.push_str(&delta);
            delta.contains("suppressed so far]")
        };
        for chunk in output.chunks(chunk_len) {
            s.feed(chunk);
            so_far_reads += usize::from(read(&mut s, &mut seen));
        }
        s.feed(&prompt_after_success());
        // The send settles: its last read is a normal one.
        s.keep_binary_open = false;
        assert!(so_far_reads > 0, "chunk {chunk_len}: {seen:?}");
        read(&mut s, &mut seen);
        let ctx = format!("chunk {chunk_len}: {seen:?}");
        let lines: Vec<&str> = seen.lines().collect();
        assert_eq!(lines.len(), 5, "{ctx}");
        assert_eq!(lines[..2], ["cmd", "HEADER ok"], "{ctx}");
        assert!(
            lines[2].starts_with('[') && lines[2].contains(" bytes of binary output suppressed;"),
            "{ctx}"
        );
        assert_eq!(lines[3..], ["RESULT: 42", "dsh> "], "{ctx}");
        // The screen's own record agrees: the scrollback holds the same lines.
        assert_eq!(s.render_since(whole, 100_000).text, seen, "{ctx}");
    }
}

/// The run's line so far never wraps, however narrow the screen: the next output erases it
/// with one erase-line.
#[test]
fn the_line_of_a_binary_run_so_far_fits_a_narrow_screen() {
    let mut s = Screen::new(config(10, 20), Some(nonce()));
    s.feed(b"dsh> ");
    let a = s.anchor();
    let whole = s.anchor();
    s.feed(b"cmd\r\n");
    s.feed(&pseudo_random(5000));
    let text = s.consume_since(a, 100_000).rows.render(100_000).text;
    let (cmd, line) = text.split_once('\n').unwrap();
    assert_eq!(cmd, "cmd");
    assert!(line.starts_with("[4997 bytes of bi"), "{text:?}");
    assert_eq!(line.len(), 19, "{text:?}");
    s.feed(&pseudo_random(5000));
    s.feed(b"\r\nRESULT: 42\r\n");
    s.feed(&prompt_after_success());
    let text = s.render_since(whole, 100_000).text;
    assert!(text.starts_with("cmd\n[9999 bytes of binary"), "{text:?}");
    assert!(text.ends_with("]\nRESULT: 42\ndsh> "), "{text:?}");
}

/// Random bytes as a PTY delivers them (each newline as CR LF), from `seed` (xorshift64).
pub(super) fn random_through_pty(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut data = Vec::with_capacity(n + n / 128);
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let b = (x >> 32) as u8;
        if b == b'\n' {
            data.push(b'\r');
        }
        data.push(b);
    }
    data
}

/// Field case C37 at length: stretches of random bytes that read as text (a newline and a
/// few printable bytes, often cut by a window's or a read's edge) never end the run, so one
/// long binary output is one summary line, whatever the seed and the read size.
#[test]
fn c37_a_long_random_output_is_one_run() {
    for seed in 1..=40 {
        let data = random_through_pty(seed, 300_000);
        for chunk_len in [4095, 1024] {
            let mut s = Screen::new(config(40, 160), Some(nonce()));
            s.feed(b"dsh> ");
            let a = s.anchor();
            s.feed(b"cmd\r\n");
            for chunk in data.chunks(chunk_len) {
                s.feed(chunk);
            }
            s.feed(b"\r\nafter the binary\r\n");
            s.feed(&prompt_after_success());
            let text = s.render_since(a, 100_000).text;
            let lines: Vec<&str> = text.lines().collect();
            let ctx = format!("seed {seed}, chunk {chunk_len}: {text:?}");
            assert_eq!(lines.len(), 4, "{ctx}");
            assert_eq!(lines[0], "cmd", "{ctx}");
            assert!(
                lines[1].contains("bytes of binary output suppressed"),
                "{ctx}"
            );
            assert_eq!(lines[2..], ["after the binary", "dsh> "], "{ctx}");
        }
    }
}

/// A read of a binary flood can end right after a newline and a short line of printable
/// bytes (random bytes do, now and then): that is no text ending the run, which goes on
/// with the next read.
#[test]
fn c37_a_read_ending_in_a_short_clean_line_does_not_end_the_run() {
    for tail in ["\r\nab\r\n", "\r\nu\r\n", "\r\n\r\n", "\r\nxyz\r\n\r\n"] {
        let mut s = Screen::new(config(40, 160), Some(nonce()));
        s.feed(b"dsh> ");
        let a = s.anchor();
        s.feed(b"cmd\r\n");
        let mut first = b"\xff".to_vec();
        first.extend(random_through_pty(7, 5000));
        first.extend(b"\xff");
        first.extend(tail.as_bytes());
        s.feed(&first);
        let mut second = random_through_pty(8, 5000);
        second.extend(b"\xff\r\nafter the binary\r\n");
        s.feed(&second);
        s.feed(&prompt_after_success());
        let text = s.render_since(a, 100_000).text;
        let lines: Vec<&str> = text.lines().collect();
        let ctx = format!("{tail:?}: {text:?}");
        assert_eq!(lines.len(), 4, "{ctx}");
        assert!(
            lines[1].contains(" bytes of binary output suppressed"),
            "{ctx}"
        );
        assert_eq!(lines[2..], ["after the binary", "dsh> "], "{ctx}");
    }
}
