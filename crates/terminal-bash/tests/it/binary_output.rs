//! Binary and mis-encoded output (field case C37 and its kind) against real bash: a short,
//! honest summary of binary bytes, text around and among them, invalid bytes as U+FFFD.

use dsh_terminal_core::WaitReason;
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, newest_lines, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C37: binary output becomes a short, honest summary; the session stays usable.
async fn c37_binary_output_is_summarised_not_dumped() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("head -c 3000000 /dev/urandom").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0));
        assert!(r.viewport.len() < 2000, "{:?}", r.viewport);
        assert!(
            r.viewport.contains("bytes of binary output suppressed")
                && r.viewport.contains("xxd | head"),
            "{:?}",
            r.viewport
        );
        assert!(r.viewport.ends_with("dsh> "), "{:?}", r.viewport);
        // The summary is the whole story: no advice on text encodings beside it.
        assert!(!says_undecodable(&r), "{r:?}");
        let r = sh.send("echo still-usable").await;
        assert_eq!(r.viewport, "echo still-usable\nstill-usable\ndsh> ");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C37, mixed: text written in the same burst as binary bytes stays (before and
/// after the binary run); only the run becomes the summary line, with no stray bytes of it.
async fn c37_text_in_the_same_burst_as_binary_stays() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = TempDir::new("c37");
        sh.send(&format!("cd '{}'", dir.0.display())).await;
        // Random bytes from fixed seeds (three per size): varied, yet the same on every run.
        let made = sh
            .send("python3 -c \"import random\nfor k in range(3):\n  for n in (300, 5000):\n    open('c37-%d-%d' % (n, k), 'wb').write(random.Random(37 * n + k).randbytes(n))\"")
            .await;
        assert_eq!(made.exit_code, Some(0), "{made:?}");
        let cases = [
            (
                "{ cat c37-5000-K; printf '\\nRESULT: 42\\nline2\\n'; } | cat",
                &["RESULT: 42", "line2"][..],
            ),
            (
                "printf 'text-before\\n'; cat c37-5000-K; printf '\\ntext-after\\n'",
                &["text-before", "text-after"][..],
            ),
            (
                "{ printf 'HEADER ok\\n'; cat c37-300-K; printf '\\n'; seq -f 'row %g' 1 20; } | cat",
                &["HEADER ok", "row 1", "row 20"][..],
            ),
        ];
        for (command, kept) in cases {
            for k in 0..3 {
                let command = command.replace('K', &k.to_string());
                let r = sh.send(&command).await;
                assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
                // The command line, then only the text sent and one summary line (the prompt
                // may come with this result or the next: the readiness race is another fix).
                let lines: Vec<&str> = r
                    .viewport
                    .lines()
                    .skip(1)
                    .filter(|l| *l != "dsh> ")
                    .collect();
                for line in kept {
                    assert!(lines.contains(line), "{line}: {:?}", r.viewport);
                }
                let summaries = lines
                    .iter()
                    .filter(|l| l.contains("bytes of binary output suppressed"))
                    .count();
                assert_eq!(summaries, 1, "{:?}", r.viewport);
                // Random bytes may end in a newline and a few clean bytes of their own, which
                // read as one short line after the summary (a known, rare ambiguity).
                let stray = lines
                    .iter()
                    .skip_while(|l| !l.contains("bytes of binary output suppressed"))
                    .nth(1)
                    .is_some_and(|l| l.chars().count() <= 3 && !kept.contains(l));
                let rows = if kept.contains(&"row 1") { 18 } else { 0 };
                assert_eq!(
                    lines.len(),
                    kept.len() + 1 + rows + usize::from(stray),
                    "{:?}",
                    r.viewport
                );
                // Settle a late prompt before the next round.
                sh.send("true").await;
            }
        }
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// A program's own U+FFFD comes through in results and pages; invalid bytes show as U+FFFD.
async fn a_printed_replacement_character_comes_through() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(r"printf '\xef\xbf\xbd\n'; printf 'a\xef\xbf\xbdb\n'; printf 'c\xffd\n'")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(
            r.viewport
                .ends_with("\n\u{fffd}\na\u{fffd}b\nc\u{fffd}d\ndsh> "),
            "{:?}",
            r.viewport
        );
        // Only the invalid byte's line asks for an encoding: a program's own U+FFFD is text.
        assert!(says_undecodable(&r), "{r:?}");
        let r = sh.send(r"printf 'a\xef\xbf\xbdb\n'").await;
        assert!(!says_undecodable(&r), "{r:?}");
        let r = sh.send("seq 1 100").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(!says_undecodable(&r), "{r:?}");
        let page = newest_lines(&sh, 500);
        assert!(
            page.text.contains("\n\u{fffd}\na\u{fffd}b\nc\u{fffd}d\n"),
            "{:?}",
            page.text
        );
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C37's kind: text lines a program writes between binary frames. The summary
/// says how many lines of text it holds and how to see them; every line is counted there or
/// shown.
async fn c37_text_lines_among_binary_are_counted_in_the_summary() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("python3 -c \"import random,sys\nr = random.Random(7)\nfor i in range(12):\n  sys.stdout.buffer.write(bytes(b if b != 10 else 0 for b in r.randbytes(64)) + b'\\nreadable line %d\\n' % i)\"")
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let mut counted = 0;
        let mut shown = 0;
        for line in r.viewport.lines() {
            if line.starts_with("readable line ") {
                shown += 1;
            } else if let Some(rest) = line.split(", with ").nth(1) {
                assert!(line.contains("bytes of binary output suppressed"), "{line}");
                assert!(line.contains("`strings` or `grep -a`"), "{line}");
                counted += rest
                    .split(' ')
                    .next()
                    .and_then(|n| n.parse::<u32>().ok())
                    .unwrap_or_else(|| panic!("{line}"));
            }
        }
        assert_eq!(counted + shown, 12, "{:?}", r.viewport);
        assert!(counted > 0, "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
}

/// Field case C37 with a pause: a result that comes while the program still writes binary
/// output (its deadline passed, or its output went quiet) shows the run so far as one line,
/// and the next poll's result shows the whole run as one summary line, with no stray bytes
/// of it as lines of their own, whatever the read sizes leave at the pause, and says that its
/// count is the whole run's. (The output starts
/// and ends with a byte no text has: random bytes that start or end with a newline and a few
/// printable ones look like text lines written around binary output, and show as such.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c37_binary_output_across_a_pause_stays_one_run() {
    within(async {
        let sh = Shell::open(config()).await;
        for round in 0..4 {
            let first = sh
                .send_within(
                    "echo start; printf '\\377'; head -c 3000 /dev/urandom; sleep 2; head -c 3000 /dev/urandom; printf '\\377'; echo; echo tail-text",
                    true,
                    1000,
                )
                .await;
            assert!(
                first.viewport.contains("\nstart\n[")
                    && first.viewport.ends_with("bytes of binary output suppressed so far]"),
                "round {round}: {first:?}"
            );
            let mut rest = sh.send_within("", false, 30_000).await;
            while rest.exit_code.is_none() {
                assert_ne!(rest.wait_reason, WaitReason::Timeout, "{rest:?}");
                rest = sh.send_within("", false, 30_000).await;
            }
            let lines: Vec<&str> = rest.viewport.lines().collect();
            let ctx = format!("round {round}: {first:?} then {rest:?}");
            assert_eq!(lines.len(), 3, "{ctx}");
            assert!(
                is_summary(lines[0]),
                "{ctx}"
            );
            assert_eq!(lines[1..], ["tail-text", "dsh> "], "{ctx}");
            // The count is the whole run's, the bytes the first result counted included, and
            // the result says so (it read as that many more bytes).
            assert!(
                rest.notices
                    .iter()
                    .any(|n| n.starts_with("[output: the first line is the count of the binary output the previous result ended in")),
                "{ctx}"
            );
        }
        sh.close().await;
    })
    .await;
}

/// Field case C37 in bursts: binary output with short pauses between its bursts (the send
/// watches the quiet terminal meanwhile) is still one run, one summary line. (The bursts hold
/// no newline: random bytes between two newlines now and then pass for a line of text, which
/// shows as one, between two runs, where a read of the terminal ends on it.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c37_binary_output_in_bursts_stays_one_run() {
    within(async {
        let sh = Shell::open(config()).await;
        for round in 0..3 {
            let r = sh
                .send(
                    "printf '\\377'; for i in $(seq 12); do head -c 100000 /dev/urandom | tr -d '\\n'; sleep 0.05; done; printf '\\377'; echo; echo END",
                )
                .await;
            let lines: Vec<&str> = r.viewport.lines().collect();
            let ctx = format!("round {round}: {r:?}");
            assert_eq!(lines.len(), 4, "{ctx}");
            assert!(is_summary(lines[1]), "{ctx}");
            assert_eq!(lines[2..], ["END", "dsh> "], "{ctx}");
        }
        sh.close().await;
    })
    .await;
}

/// Whether `line` is a binary run's summary line. Random bytes may hold a line that passes
/// for text now and then, which the summary then counts (", with 1 line of text among them").
/// Text in a legacy 8-bit encoding (Latin-1 here) shows as U+FFFD, as on a terminal, and
/// the result says how to read it; the next send's result does not repeat that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_in_another_encoding_is_said_to_need_it() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send(r"printf 'Gr\xfc\xdfe aus K\xf6ln\n'").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(
            r.viewport
                .contains("\nGr\u{fffd}\u{fffd}e aus K\u{fffd}ln\n"),
            "{r:?}"
        );
        assert!(says_undecodable(&r), "{r:?}");
        let r = sh
            .send(r"printf 'Gr\xfc\xdfe\n' | iconv -f latin1 -t utf-8")
            .await;
        assert!(r.viewport.contains("\nGrüße\n"), "{r:?}");
        assert!(!says_undecodable(&r), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A line of text in another encoding right before binary bytes stays, as a UTF-8 line
/// does (it was taken into the binary run: its first byte that is not UTF-8 began the run).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_in_another_encoding_before_binary_stays() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            // Random bytes from a fixed seed, starting with a control byte no text has: fresh
            // random ones may begin with a short line of printable ones, which is text.
            .send(r"printf 'caf\xe9 line is long enough\n'; python3 -c 'import random, sys; r = random.Random(7); sys.stdout.buffer.write(bytes([1] + [r.randrange(256) for _ in range(2000)]))'; echo; echo tail")
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(
            r.viewport.contains("\ncaf\u{fffd} line is long enough\n["),
            "{r:?}"
        );
        assert!(r.viewport.contains("bytes of binary output suppressed"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Whether the result says its output was not UTF-8.
fn says_undecodable(r: &dsh_terminal_core::SendResult) -> bool {
    r.notices.iter().any(|n| n.starts_with("[encoding: "))
}

fn is_summary(line: &str) -> bool {
    line.starts_with('[')
        && (line.contains(" bytes of binary output suppressed;")
            || line.contains(" bytes of binary output suppressed, with "))
}

/// What a summary line's advice says.
const ADVICE: &str = "xxd | head";

/// The default result cap of a send (`--max-result-bytes`, applied by the tool layer).
const RESULT_CAP: usize = 32 * 1024;

/// The tester's command: 200 text lines, each followed by 200 random bytes. Every text line
/// shows, or (when a read of the terminal took it together with the frames around it, where
/// it cannot be told from random bytes) is counted in a summary line; the advice comes once,
/// and the whole output fits a result (it came back as 165 copies of the advice and 49 text
/// lines cut by the cap).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_between_binary_frames_fits_with_the_advice_once() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("(for i in $(seq 200); do echo \"text line $i of log\"; head -c 200 /dev/urandom; echo; done) | head -c 100000")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let text = &r.viewport;
        assert_eq!(text.matches(ADVICE).count(), 1, "{text}");
        let summaries: Vec<&str> = text
            .lines()
            .filter(|l| l.contains(" bytes of binary output suppressed"))
            .collect();
        assert!(summaries[0].contains(ADVICE), "{text}");
        let mut shown = 0;
        for i in 1..=200 {
            let line = format!("text line {i} of log");
            let copies = text.lines().filter(|l| *l == line).count();
            assert!(copies <= 1, "{line}: {text}");
            shown += copies;
        }
        let counted: usize = summaries
            .iter()
            .filter_map(|l| l.split_once(", with ")?.1.split(' ').next()?.parse::<usize>().ok())
            .sum();
        assert!(shown + counted >= 200, "{shown} shown, {counted} counted: {text}");
        assert!(text.len() < RESULT_CAP, "{} bytes: {text}", text.len());
        sh.close().await;
    })
    .await;
}
