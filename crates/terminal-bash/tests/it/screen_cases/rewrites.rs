//! Lines a program rewrites (a carriage return, cursor moves, line editing) after a result or a
//! poll showed them: they come back whole, and the result says they were rewritten.

use pretty_assertions::assert_eq;

use super::*;

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

/// Status lines redrawn with `\r` between lines of output, read by polls: a poll's output that
/// starts on the row a carriage return ended the poll before on writes over that row, which
/// the result calls texts written over one another after carriage returns, never a cursor
/// moved up over older text (nothing moved up).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_after_a_carriage_return_says_the_row_was_written_over_not_moved_up() {
    within(async {
        let sh = Shell::open(config()).await;
        let mut results = vec![
            sh.send_within(
                "for i in $(seq 1 20); do echo \"msg $i\"; printf 'progress %d/20\\r' $i; sleep 0.1; done; echo finished",
                true,
                700,
            )
            .await,
        ];
        while results.last().unwrap().wait_reason != WaitReason::StdinRead {
            assert!(results.len() < 60, "{results:?}");
            results.push(sh.send_within("", false, 700).await);
        }
        assert!(results.len() > 1, "{results:?}");
        for r in &results {
            assert!(
                !r.notices.iter().any(|n| n.contains("the cursor was moved up")),
                "{r:?}"
            );
        }
        assert!(
            results[1..].iter().any(|r| r
                .notices
                .iter()
                .any(|n| n.starts_with("[screen: texts were written on one row"))),
            "{results:?}"
        );
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// A line the last result showed whole, with the cursor moved back into it (`\b`, `CSI G`,
/// `\r`), then written over where the cursor was: the next result shows the row as it is
/// now, not the new text alone after the old text before the cursor (`abX` for `abXdef`).
async fn text_written_over_a_shown_line_where_the_cursor_was_shows_the_row_whole() {
    within(async {
        let sh = Shell::open(config()).await;
        let long = "0".repeat(170);
        let cases = [
            (r"abcdef\033[3G".to_owned(), "abXdef".to_owned()),
            (r"abcdef\b\b".to_owned(), "abcdXf".to_owned()),
            (
                format!(r"{long}\r"),
                format!("{}X{}", &long[..160], &long[161..]),
            ),
        ];
        for (first, whole) in cases {
            let r = sh
                .send(&format!("printf '{first}'; read -rs _; printf 'X\\n'"))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh.send("").await;
            assert!(r.viewport.lines().any(|l| l == whole), "{whole}: {r:?}");
            assert!(
                !r.notices
                    .iter()
                    .any(|n| n.contains("goes on from the unfinished line")),
                "{r:?}"
            );
        }
        sh.close().await;
    })
    .await;
}
