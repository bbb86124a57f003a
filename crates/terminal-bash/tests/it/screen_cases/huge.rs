//! Outputs over the result cap: the first lines are kept with the newest, and what lies between
//! is counted in lines.

use pretty_assertions::assert_eq;

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// A send that prints more than the scrollback holds still has its command line and first
/// lines: the head is kept while the send runs.
async fn a_huge_output_keeps_its_first_lines() {
    within(async {
        let sh = Shell::open(config()).await;
        for (command, first, last) in [
            ("seq 1 300000", "1\n2\n3\n", "300000\n"),
            (
                "for i in $(seq 1 30000); do echo line-$i-xxx; done",
                "line-1-xxx\nline-2-xxx\n",
                "line-30000-xxx\n",
            ),
        ] {
            let r = sh.send(command).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{command}: {r:?}");
            assert!(r.truncated, "{command}");
            assert!(r.viewport.ends_with(&format!("\n{last}dsh> ")), "{command}");
            let head = r.head.unwrap_or_else(|| panic!("{command}: no head"));
            assert!(
                head.text.starts_with(&format!("{command}\n{first}")),
                "{command}: {:?}",
                head.text
            );
            assert!(head.lines_between > 0, "{command}: {head:?}");
            assert_eq!(
                head.lines_dropped,
                u64::try_from(head.text.lines().count()).unwrap()
            );
            assert_eq!(head.retained_lines_before, 0, "{command}: {head:?}");
            // An ordinary send has none.
            let r = sh.send("echo small").await;
            assert_eq!(r.head, None, "{r:?}");
        }
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// A send's head is counted against its viewport exactly: lines wider than the screen (two
/// rows each) that the scrollback still holds are pageable, not reported dropped; and output
/// about the size of the scrollback is never both in the head and in the viewport.
async fn a_kept_head_counts_retained_lines_and_never_repeats_the_viewport() {
    within(async {
        let sh = Shell::open(config()).await;
        // 1500 lines of 206 characters: about 310 KB, more than a render holds, all retained.
        let r = sh
            .send("for i in $(seq 1500); do printf 'L%05d%0201d\\n' $i 0; done")
            .await;
        assert!(r.truncated, "{r:?}");
        let head = r.head.clone().unwrap_or_else(|| panic!("no head: {r:?}"));
        assert_eq!((head.lines_between, head.lines_dropped), (0, 0), "{head:?}");
        let first_in_view = r
            .viewport
            .lines()
            .find_map(|l| l.strip_prefix('L')?.get(..5)?.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("{:?}", &r.viewport[..200]));
        let head_lines = u64::try_from(head.text.lines().count()).unwrap();
        // The command line, the head's output lines, the retained lines before the viewport,
        // then the viewport's first line (the byte bound may have cut its start off).
        let fragment = u64::from(!r.viewport.starts_with('L'));
        assert_eq!(
            head_lines - 1 + head.retained_lines_before + fragment + 1,
            first_in_view,
            "{head:?}"
        );
        // Their bytes as terminal_read joins them (207 characters and a newline each), and the
        // cut-off start of the viewport's first line: every byte from the head's end to the
        // viewport is counted once.
        let first_line = r.viewport.lines().next().unwrap_or_default().len() as u64;
        assert_eq!(
            head.retained_bytes_before,
            head.retained_lines_before * 208 + fragment * (207 - first_line),
            "{head:?}"
        );
        // Output about the size of the scrollback: the head stops where the viewport starts.
        let r = sh.send("seq 1 10040").await;
        let first_in_view: u64 = r.viewport.lines().next().unwrap().parse().unwrap();
        if let Some(head) = &r.head {
            let last_in_head: u64 = head.text.lines().last().unwrap().parse().unwrap_or(0);
            assert!(
                last_in_head < first_in_view,
                "{head:?} then {first_in_view}"
            );
        }
        sh.close().await;
    })
    .await;
}

/// The lines the scrollback dropped between a send's head and the rest of its output are
/// counted as lines, not screen rows: a soft-wrapped line of 3 MB (18750 rows) counts once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropped_lines_are_counted_as_lines_not_rows() {
    within(async {
        let sh = Shell::open(config()).await;
        let command = "head -c 3000000 /dev/zero | tr '\\0' a; echo; seq 1 20000";
        let r = sh.send(command).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with("\n20000\ndsh> "), "{:?}", r.viewport);
        let head = r.head.clone().unwrap_or_else(|| panic!("no head: {r:?}"));
        // After the command line: the long line and 20000 short ones, part of them retained.
        assert!(
            head.lines_between > 0 && head.lines_between <= 20_001,
            "{head:?}"
        );
        assert!(
            head.lines_between + head.retained_lines_before <= 20_001,
            "{head:?}"
        );
        sh.close().await;
    })
    .await;
}

/// One line far longer than the result's byte bound, its start still in the scrollback or
/// already dropped, of narrow or wide characters: the result keeps the line's start, and the
/// bytes between that start and the end it shows are counted (about, for dropped rows).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_line_keeps_its_start_and_counts_what_lies_between() {
    within(async {
        let sh = Shell::open(config()).await;
        // (command, the line's first characters, its bytes)
        let numbers = |n: u64| (1..=n).map(|i| i.to_string().len() as u64 + 1).sum::<u64>();
        let cases = [
            (
                "seq 1 400000 | tr '\\n' ' '; echo; echo NEXT".to_owned(),
                "1 2 3 4 5 6 ",
                numbers(400_000),
            ),
            (
                "seq 1 1000000 | tr '\\n' ' '; echo; echo NEXT".to_owned(),
                "1 2 3 4 5 6 ",
                numbers(1_000_000),
            ),
            (
                "python3 -c \"print('字' * 2000000)\"; echo NEXT".to_owned(),
                "字字字字",
                6_000_000,
            ),
        ];
        for (command, start, line_bytes) in cases {
            let r = sh.send(&command).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{command}");
            assert!(r.viewport.ends_with("\nNEXT\ndsh> "), "{command}");
            let head = r
                .head
                .clone()
                .unwrap_or_else(|| panic!("no head: {command}"));
            assert_eq!(head.text.lines().count(), 1, "{command}: {head:?}");
            let line = head
                .line_start
                .unwrap_or_else(|| panic!("{command}: no line start: {:?}", head.text));
            assert!(line.text.starts_with(start), "{command}: {:?}", line.text);
            // What the three parts hold is the whole line, the gap within a tenth.
            let shown_end = r.viewport.find('\n').unwrap() as u64;
            let between = line_bytes - line.text.len() as u64 - shown_end;
            let error = line.omitted_bytes.abs_diff(between);
            assert!(
                error * 10 <= between,
                "{command}: {} bytes counted, {between} between",
                line.omitted_bytes
            );
        }
        sh.close().await;
    })
    .await;
}
