//! Field cases about screen-to-text fidelity (clears, TABs, binary output) against real bash,
//! named after their ids.

use dsh_terminal_core::{BackendSession, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, newest_lines, unique_id, wait_until, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C28: a clear never drops or trims text printed during the send.
async fn c28_clear_keeps_every_line_of_the_send_in_order() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("clear; echo hello world; echo second line").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(
            r.viewport.ends_with("hello world\nsecond line\ndsh> "),
            "{:?}",
            r.viewport
        );
        let r = sh.send("echo before; clear; echo after").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(
            r.viewport.ends_with("\nbefore\nafter\ndsh> "),
            "{:?}",
            r.viewport
        );
        // Other ways to clear the screen keep the send's lines too: erase above from the last
        // row (ED 1), a selective erase (DECSED).
        for clear in [r"\033[40;1H\033[1J\033[H", r"\033[?2J\033[H"] {
            let r = sh
                .send(&format!(
                    "printf 'u1\\nu2\\n'; printf '{clear}'; echo after"
                ))
                .await;
            assert!(
                r.viewport.contains("\nu1\nu2\n") && r.viewport.ends_with("\nafter\ndsh> "),
                "{clear}: {:?}",
                r.viewport
            );
        }
        // What was on screen before the clears is still paged, in order.
        let page = newest_lines(&sh, 100);
        let hello = page.text.find("hello world\nsecond line");
        let before = page.text.find("before\n");
        assert!(
            hello.is_some() && before.is_some() && hello < before,
            "{:?}",
            page.text
        );
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C28, the same kind: a scroll region and a full-screen redraw over the send.
async fn c28_scroll_regions_and_redraws_keep_printed_lines() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(
                r"clear; printf '\033[1;5r\033[1;1H'; for i in 1 2 3 4 5 6 7 8 9; do echo region-$i; done; printf '\033[r\033[H\033[2J'; echo redrawn",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let mut at = 0;
        for i in 1..=9 {
            let line = format!("region-{i}\n");
            let found = r.viewport[at..].find(&line);
            assert!(found.is_some(), "{line:?} in order in {:?}", r.viewport);
            at += found.unwrap_or(0) + line.len();
        }
        assert!(r.viewport.ends_with("redrawn\ndsh> "), "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C29: TABs the program wrote come back as TABs.
async fn c29_tabs_come_back_as_tabs_in_results_and_pages() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = std::env::temp_dir().join(format!("dsh-c29-{}", unique_id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("t.txt");
        let r = sh
            .send(&format!(
                r"printf 'all:\n\techo built\nname\tqty\nwidget\t3\n' > '{0}'; cat '{0}'",
                file.display()
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(
            r.viewport
                .ends_with("\nall:\n\techo built\nname\tqty\nwidget\t3\ndsh> "),
            "{:?}",
            r.viewport
        );
        // Pages keep them too, also once the rows scrolled into history.
        let r = sh.send("seq 1 100").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let page = newest_lines(&sh, 500);
        assert!(
            page.text
                .contains("all:\n\techo built\nname\tqty\nwidget\t3\n"),
            "{:?}",
            page.text
        );
        // TSV rows that reach the right edge (the default 160 columns) keep every field.
        let rows: Vec<String> = (140..160)
            .map(|lead| format!("{}\tB\t\tC\tDD", "x".repeat(lead)))
            .collect();
        std::fs::write(&file, rows.join("\n") + "\n").unwrap();
        let r = sh.send(&format!("cat '{}'", file.display())).await;
        for row in &rows {
            assert!(r.viewport.lines().any(|l| l == row), "{row:?}: {r:?}");
        }
        // Colour output that erases to the line's end after each match (grep's) keeps them.
        std::fs::write(&file, "id\tname\tcity\n1\tfoo\tparis\n").unwrap();
        let r = sh
            .send(&format!("grep --color=always -H foo '{}'", file.display()))
            .await;
        let want = format!("{}:1\tfoo\tparis", file.display());
        assert!(r.viewport.lines().any(|l| l == want), "{r:?}");
        // Under a program's own tab stops a TAB moves to them and still comes back as a TAB
        // (a later write over its cells makes them plain cells); `tabs -8` after.
        let r = sh
            .send(r"tabs -4; printf 'a\tb\tc\033[3Dxy\n'; tabs -8; printf 'c\td\n'")
            .await;
        assert!(r.viewport.lines().any(|l| l == "a\tb xyc"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "c\td"), "{r:?}");
        let r = sh.send(r"tabs 4; printf 'all:\n\techo hi\n'").await;
        assert!(r.viewport.lines().any(|l| l == "\techo hi"), "{r:?}");
        sh.send("tabs 8").await;
        let _ = std::fs::remove_dir_all(&dir);
        sh.close().await;
    })
    .await;
}

/// A line of wide characters longer than the screen: where a wide character does not fit in
/// a row's last column it starts the next row, and the line still comes back whole, in the
/// result and in pages once it scrolled into history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_line_of_wide_characters_comes_back_whole() {
    within(async {
        let sh = Shell::open(config()).await;
        let cols = usize::from(config().cols);
        // One column short of the row, then wide characters: the first cannot fit there.
        let line = format!("{}{}", "a".repeat(cols - 1), "日本語".repeat(40));
        let r = sh
            .send(&format!(
                "printf 'a%.0s' $(seq 1 {}); for i in $(seq 1 40); do printf '日本語'; done; echo",
                cols - 1
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == line), "{:?}", r.viewport);
        let r = sh.send("seq 1 100").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let page = newest_lines(&sh, 500);
        assert!(page.text.lines().any(|l| l == line), "{:?}", page.text);
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C28, the same kind: a scroll region below a status line (a top margin), and
/// one ending above the bottom row; every line printed in it reaches the result in order.
async fn c28_regions_with_margins_keep_every_printed_line() {
    within(async {
        let sh = Shell::open(config()).await;
        for (region, bottom) in [("2;24", 24), ("3;18", 18), ("1;20", 20)] {
            let r = sh
                .send(&format!(
                    r"printf '\033[H\033[2Jstatus: building\033[{region}r\033[{bottom};1H'; for i in $(seq 1 80); do echo row-$i; done; printf 'a%.0s' $(seq 1 150); echo; printf '\033[r\033[24;1H'; echo finished"
                ))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{region}: {r:?}");
            let mut at = 0;
            for i in 1..=80 {
                let line = format!("\nrow-{i}\n");
                let found = r.viewport[at..].find(&line);
                assert!(found.is_some(), "{region}: {line:?} in order in {:?}", r.viewport);
                at += found.unwrap_or(0) + line.len() - 1;
            }
            assert!(r.viewport.contains(&"a".repeat(150)), "{region}: {:?}", r.viewport);
            assert!(r.viewport.contains("status: building"), "{region}: {:?}", r.viewport);
            assert!(r.viewport.ends_with("finished\ndsh> "), "{region}: {:?}", r.viewport);
            let page = newest_lines(&sh, 500);
            assert!(page.text.contains("\nrow-1\nrow-2\n"), "{region}: {:?}", page.text);
        }
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C28, the same kind: a region with a top margin left set (a program killed
/// before it reset it; DECSTBM homes the cursor). The rows above it stay on screen while
/// later commands scroll the region, and never show in their results.
async fn c28_rows_above_a_region_left_set_stay_out_of_later_results() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("clear; echo TOP-A; echo TOP-B").await;
        sh.send(r"printf '\033[4;8r'; echo set-region").await;
        sh.send("echo C1; echo C2").await;
        for first in [1, 11, 21] {
            let command = format!("seq {first} {}", first + 8);
            let r = sh.send(&command).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let lines: Vec<String> = (first..first + 9).map(|n| n.to_string()).collect();
            assert_eq!(
                r.viewport,
                format!("{command}\n{}\ndsh> ", lines.join("\n")),
                "{command}"
            );
        }
        sh.send(r"printf '\033[r'").await;
        // An earlier command's lines that a region in the middle of the screen scrolls away
        // are gone, as on a terminal, not spliced into the scrollback out of order.
        sh.send("clear; seq 1 60").await;
        let r = sh
            .send(
                r#"printf '\033[30;38r\033[38;1H'; for i in 1 2 3 4 5; do echo "mid$i"; done; printf '\033[r\033[40;1H'; echo out"#,
            )
            .await;
        assert!(
            r.viewport.contains("mid1\nmid2\nmid3\nmid4\nmid5\n") && r.viewport.ends_with("\nout\ndsh> "),
            "{:?}",
            r.viewport
        );
        let page = newest_lines(&sh, 200).text;
        let run: Vec<String> = (20..=40).map(|n| n.to_string()).collect();
        assert!(page.contains(&format!("\n{}\n", run.join("\n"))), "{page:?}");
        sh.close().await;
    })
    .await;
}

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
/// Field cases C28, C29 and C37 with other inputs of the same kinds: a clear without a home
/// move and a full reset keep earlier lines; TABs at odd columns; an executable is binary
/// while base64 text is not.
async fn screen_cases_hold_for_other_inputs_of_their_kinds() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send(r"printf 'one\ntwo\n\033[2J'; echo three").await;
        assert!(r.viewport.contains("one\ntwo\n"), "{:?}", r.viewport);
        assert!(r.viewport.ends_with("three\ndsh> "), "{:?}", r.viewport);
        let r = sh.send(r"printf 'x-before\n\033c'; echo after-reset").await;
        assert!(r.viewport.contains("x-before\n"), "{:?}", r.viewport);
        assert!(
            r.viewport.ends_with("after-reset\ndsh> "),
            "{:?}",
            r.viewport
        );
        let r = sh.send(r"printf '1234567\tX\nab\t\tY\n'").await;
        assert!(
            r.viewport.ends_with("\n1234567\tX\nab\t\tY\ndsh> "),
            "{:?}",
            r.viewport
        );
        let r = sh.send("cat \"$(type -P ls)\"").await;
        assert!(
            r.viewport.contains("bytes of binary output suppressed"),
            "{:?}",
            r.viewport
        );
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh
            .send("head -c 3000 /dev/zero | base64 -w 0 | head -c 2000; echo")
            .await;
        assert!(r.viewport.contains(&"A".repeat(1000)), "{:?}", r.viewport);
        assert!(!r.viewport.contains("suppressed"), "{:?}", r.viewport);
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// A line the last result showed only up to the cursor, then rewritten in place (`\r` and
/// erase line, a `\r` progress line): the next result shows the rewritten line whole.
async fn a_line_rewritten_after_a_result_showed_its_start_comes_back_whole() {
    within(async {
        let sh = Shell::open(config()).await;
        let cases = [
            (
                "hint: Waiting for your editor to close the file... ",
                r"\r\033[Kerror: There was a problem with the editor, full message here\n",
                "error: There was a problem with the editor, full message here",
            ),
            (
                "Building [=====>    ] 50/100",
                r"\r\033[2Kwarning: unused variable x\nBuilding [==========] 100/100\n",
                "warning: unused variable x",
            ),
            (
                "Downloading 30% ...",
                r"\rDone: 6 files fetched OK\n",
                "Done: 6 files fetched OK",
            ),
        ];
        for (first, rewrite, whole) in cases {
            // `read -s` holds the program at the half-written line without echoing the Enter.
            let r = sh
                .send(&format!(
                    r"printf 'Compiling\n{first}'; read -rs _; printf '{rewrite}'"
                ))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert!(r.viewport.contains(first.trim_end()), "{r:?}");
            let r = sh.send("").await;
            assert!(r.viewport.lines().any(|l| l == whole), "{whole}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// The same for a send read while it runs (a background job's output): the rewritten line
/// comes back whole in the next read.
async fn a_line_rewritten_between_reads_of_a_running_send_comes_back_whole() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = TempDir::new("rewrite");
        let fifo = dir.0.join("go");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let op = sh
            .session
            .start_send(dsh_terminal_core::SendRequest {
                text: format!(
                    r"printf 'Compiling a\nBuilding [=>   ] 10/100'; read -r _ < {}; printf '\r\033[2Kwarning: unused variable y\nBuilding [=====] 100/100\n'",
                    fifo.display()
                ),
                submit: true,
                timeout: Some(std::time::Duration::from_secs(60)),
            })
            .unwrap_or_else(|e| panic!("{e}"));
        let mut seen = String::new();
        wait_until("the progress line shows", || {
            seen.push_str(&op.read_output().delta);
            seen.contains("10/100")
        })
        .await;
        let writer = fifo.clone();
        tokio::task::spawn_blocking(move || std::fs::write(writer, "go\n"))
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|e| panic!("{e}"));
        let r = op.done().await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let rest = op.read_output().delta;
        assert!(
            rest.lines().any(|l| l == "warning: unused variable y"),
            "{rest:?}"
        );
        // The settled text is handed out once.
        let again = op.read_output();
        assert!(again.delta.is_empty(), "{again:?}");
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

/// A file cut off inside an OSC 8 hyperlink, or a stray title introducer, leaves an OSC the
/// program never ended: the output after it, of the same command and the next ones, still
/// shows (the OSC ends at the line end) and the exit status comes back; the result quotes
/// the text the string hid (the rest of its line), which showed nowhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_after_an_unterminated_osc_is_shown() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = TempDir::new("osc");
        let log = dir.0.join("trunc.log");
        std::fs::write(
            &log,
            "start of log\n\x1b]8;;http://example.com/very/long/lin",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let r = sh
            .send(&format!(
                "cat {}; echo; echo 'ERROR: disk full'; false",
                log.display()
            ))
            .await;
        assert_eq!(r.exit_code, Some(1), "{r:?}");
        assert!(r.viewport.contains("\nstart of log\n"), "{r:?}");
        assert!(r.viewport.contains("\nERROR: disk full\n"), "{r:?}");
        let hid = |r: &dsh_terminal_core::SendResult, text: &str| {
            r.notices.iter().any(|n| {
                n.starts_with("[screen: the output began an escape string") && n.contains(text)
            })
        };
        assert!(hid(&r, "example.com/very/long/lin"), "{r:?}");
        // The rest of the line is the OSC's payload (a terminal takes it as the title too).
        let r = sh
            .send("printf '\\033]0;title'; echo IN-TITLE; seq 1 3")
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.ends_with("\n1\n2\n3\ndsh> "), "{r:?}");
        assert!(hid(&r, "0;titleIN-TITLE"), "{r:?}");
        // So does a DCS, SOS, PM or APC string left open (a breaker's).
        for opener in ["\\eP", "\\e_", "\\e^", "\\eX"] {
            let r = sh
                .send(&format!(
                    "printf 'start{opener}'; seq 1 5; echo 'ERROR found'"
                ))
                .await;
            assert_eq!(r.exit_code, Some(0), "{r:?}");
            assert!(
                r.viewport.ends_with("\n2\n3\n4\n5\nERROR found\ndsh> "),
                "{opener}: {r:?}"
            );
            assert!(hid(&r, "\"1\""), "{opener}: {r:?}");
        }
        // A string that ends hides nothing the result must name.
        let r = sh.send("printf '\\e]0;title\\a\\eP$q\\e\\\\ok\\n'").await;
        assert!(r.viewport.contains("\nok\n"), "{r:?}");
        assert!(
            r.notices
                .iter()
                .all(|n| !n.starts_with("[screen: the output began")),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// A line a running program left unfinished when a send returned (at its deadline) goes on
/// in the poll that sees it end, which says its first line continues that one (results join
/// as the screen's text does); a character split across the two results too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_left_unfinished_is_said_to_go_on_in_the_next_poll() {
    within(async {
        let sh = Shell::open(config()).await;
        for (command, first, rest, quoted) in [
            (
                "printf 'Downloading... '; sleep 3; echo done; echo next",
                "Downloading... ",
                "done\nnext\n",
                "`Downloading...`",
            ),
            (
                "printf 'C\\344'; sleep 3; printf '\\270\\255D\\n'",
                "C",
                "中D\n",
                "`C`",
            ),
        ] {
            let r = sh.send_within(command, true, 1500).await;
            assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
            assert!(r.viewport.ends_with(first), "{command}: {r:?}");
            let r = sh.send_within("", false, 20_000).await;
            assert_eq!(r.exit_code, Some(0), "{r:?}");
            assert!(r.viewport.starts_with(rest), "{command}: {r:?}");
            assert!(
                r.notices.iter().any(|n| n
                    .starts_with("[output: the first line goes on from the unfinished line")
                    && n.contains(quoted)),
                "{command}: {r:?}"
            );
            // Said once: the next result starts on a line of its own.
            let r = sh.send("echo after").await;
            assert!(r.notices.is_empty(), "{r:?}");
        }
        // Not when the program ended the line at once; said by each poll that goes on with it.
        let r = sh
            .send_within(
                "printf 'abc'; sleep 3; printf '\\n'; echo second",
                true,
                1500,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send_within("", false, 20_000).await;
        assert!(r.viewport.contains("second\n"), "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        sh.send_within(
            "printf 'Loading'; sleep 2; printf '.'; sleep 6; echo ' ok'",
            true,
            1500,
        )
        .await;
        for (rest, timeout_ms) in [(".", 3500), (" ok\n", 20_000)] {
            let r = sh.send_within("", false, timeout_ms).await;
            assert!(r.viewport.starts_with(rest), "{r:?}");
            assert!(
                r.notices
                    .iter()
                    .any(|n| n.contains("the unfinished line") && n.contains("`Loading")),
                "{r:?}"
            );
        }
        sh.close().await;
    })
    .await;
}

/// Output that moves the cursor up above lines it wrote (and lines earlier results showed):
/// the prompt comes back on a row of its own below them (not drawn over them, nor above them),
/// and the next command's output is written on fresh rows, with no older text mixed in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_after_output_moved_up_comes_below_the_text_left_there() {
    within(async {
        let sh = Shell::open(config()).await;
        let mixed = |r: &dsh_terminal_core::SendResult| {
            r.notices.iter().any(|n| n.starts_with("[screen: "))
        };
        sh.send("echo alpha-line; echo beta-line").await;
        sh.send("echo gamma-line").await;
        let r = sh.send(r"printf '\033[5A'; echo UP").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // What the output wrote over an earlier line shows as the screen does.
        assert!(r.viewport.starts_with("UPpha-line\n"), "{r:?}");
        assert!(r.viewport.ends_with("\ndsh> "), "{r:?}");
        let r = sh.send("echo plain; echo $?").await;
        assert_eq!(r.viewport, "echo plain; echo $?\nplain\n0\ndsh> ", "{r:?}");
        assert!(!mixed(&r), "{r:?}");
        // A carriage return ending the output: the prompt does not overwrite the line.
        let r = sh.send(r"printf 'value=42\r'").await;
        assert!(r.viewport.contains("\nvalue=42\ndsh> "), "{r:?}");
        // A jump home: every later line is the later command's own.
        for _ in 0..3 {
            sh.send("seq 1 30 | sed 's/$/ passed in 0.50s/'").await;
        }
        sh.send("tput cup 0 0").await;
        let r = sh.send("echo 7; printf 'x\\ty\\n'").await;
        assert_eq!(
            r.viewport, "echo 7; printf 'x\\ty\\n'\n7\nx\ty\ndsh> ",
            "{r:?}"
        );
        assert!(!mixed(&r), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A program that goes back up into lines an earlier result showed and writes them again
/// (here after the send's deadline, so a poll sees it) has those lines shown again as they
/// read now, with a notice saying so: the poll does not look like plain new output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_rewritten_after_a_result_showed_them_are_said_to_be() {
    within(async {
        let sh = Shell::open(config()).await;
        let said = |r: &dsh_terminal_core::SendResult| {
            r.notices
                .iter()
                .any(|n| n.starts_with("[screen: the output went back up 1 line into text"))
        };
        let r = sh
            .send_within(
                r"printf 'line1\nline2\n'; sleep 3; printf '\033[1A\033[2KREPLACED\n'",
                true,
                1500,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "line2"), "{r:?}");
        assert!(!said(&r), "{r:?}");
        let r = sh.send_within("", false, 20_000).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.starts_with("REPLACED\n"), "{r:?}");
        assert!(said(&r), "{r:?}");
        // Plain output after a result shows none of this.
        let r = sh.send("echo plain").await;
        assert!(!said(&r), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Keys that edit the shell's command line (a history search and its abort, Ctrl-A on a
/// line that wraps, Ctrl-C) make readline redraw the line's own rows: no result says the
/// output was written over earlier text or went back into lines shown before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editing_the_command_line_mixes_no_older_text_in() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("echo one; echo two; echo three").await;
        let long = format!("echo {}", "z".repeat(usize::from(config().cols) + 10));
        for keys in ["\u{12}one", "\u{7}", "\u{3}", &long, "\u{1}", "\u{3}"] {
            let r = sh.send_raw(keys, false).await;
            assert!(
                r.notices.iter().all(|n| !n.starts_with("[screen: ")),
                "{keys:?}: {r:?}"
            );
        }
        sh.close().await;
    })
    .await;
}
