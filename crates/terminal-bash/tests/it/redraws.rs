//! Programs that redraw rows in place above where a send started (a multi-line progress
//! display, a status block), against real bash: every result shows those rows as the screen
//! does.

use dsh_terminal_core::{BackendSession, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, within};

/// A multi-line progress display that updates its first line and goes back down with line
/// feeds, polled after the send's deadline: the lines it passed over keep their text (shown
/// blank, they read as erased), and the result says older text is mixed in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_a_progress_display_passes_over_keep_their_text() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = TempDir::new("redraw");
        let fifo = dir.0.join("go");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let r = sh
            .send_within(
                &format!(
                    r"printf 'job1: running\njob2: running\njob3: running\n'; read -r _ < {}; printf '\033[3A\rjob1: done\033[K\n\n\n'; echo end",
                    fifo.display()
                ),
                true,
                1500,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        assert!(r.viewport.contains("job3: running"), "{r:?}");
        let writer = fifo.clone();
        tokio::task::spawn_blocking(move || std::fs::write(writer, "go\n"))
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|e| panic!("{e}"));
        let r = sh.send_raw("", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(
            r.viewport,
            "job1: done\njob2: running\njob3: running\nend\ndsh> ",
            "{r:?}"
        );
        assert!(r.notices.iter().any(|n| n.starts_with("[screen: ")), "{r:?}");
        // A row an earlier command printed, passed over by a redraw of the row above it.
        sh.send("seq 1 5").await;
        let r = sh.send(r"printf '\033[3AZZ\n\n\n'").await;
        assert_eq!(
            r.viewport,
            "ZZ\n5\ndsh> printf '\\033[3AZZ\\n\\n\\n'\ndsh> ",
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// A full-screen program in raw mode (curses's `raw()`: the terminal's signal keys off) that
/// reads no keys: the result says so and names SIGTERM to stop it (SIGINT would go as a Ctrl-C
/// key, which it never reads), and SIGTERM does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raw_mode_program_reading_no_keys_is_named_with_sigterm() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(
                "python3 -c \"import curses,time; s=curses.initscr(); curses.raw(); \
                 s.addstr(0, 0, 'raw-' + 'screen'); s.refresh(); time.sleep(120)\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
        assert!(r.viewport.contains("raw-screen"), "{r:?}");
        assert!(
            r.notices.iter().any(
                |n| n.starts_with("[input: python3 does not read the terminal")
                    && n.contains("terminal_signal SIGTERM stops python3")
            ),
            "{r:?}"
        );
        let s = sh
            .session
            .signal(dsh_terminal_core::TerminalSignal::Sigterm)
            .unwrap();
        assert!(s.delivered, "{s:?}");
        let r = sh.send("echo after-$((6*7))").await;
        assert!(r.viewport.lines().any(|l| l == "after-42"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Text a command prints and then erases from the middle of the screen before any result
/// showed it (up a row and erase it or its end, erase everything below, or write over it) is
/// said to be gone, with the last such line; a progress line redrawn in place (`\r`, erase to
/// its end) is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_erased_before_they_were_shown_are_said_to_be() {
    within(async {
        let sh = Shell::open(config()).await;
        let erased = |r: &dsh_terminal_core::SendResult, text: &str| {
            r.notices
                .iter()
                .any(|n| n.starts_with("[screen: the program erased or wrote over") && n.contains(text))
        };
        let r = sh
            .send("python3 -c \"print('ERROR: disk full'); print('\\x1b[1A\\x1b[2K', end=''); print('all good')\"")
            .await;
        assert!(r.viewport.lines().any(|l| l == "all good"), "{r:?}");
        assert!(erased(&r, "`ERROR: disk full`"), "{r:?}");
        let r = sh
            .send("printf 'FAILED test_a\\nFAILED test_b\\n\\033[2A\\033[J'; echo '3 passed'")
            .await;
        assert!(erased(&r, "2 lines"), "{r:?}");
        assert!(erased(&r, "`FAILED test_b`"), "{r:?}");
        // Up a row and erase to its end (`tput cuu1; tput el`), from the row's start or its
        // middle (a row erased twice is a status line's: what it held is named when it reads
        // as a problem).
        let r = sh
            .send("printf 'WARN: retrying\\n\\033[1A\\033[K'; printf 'step failed on disk\\n\\033[1A\\033[5C\\033[K'; echo done")
            .await;
        assert!(erased(&r, "2 lines"), "{r:?}");
        assert!(erased(&r, "the first was `WARN: retrying`"), "{r:?}");
        assert!(erased(&r, "`failed on disk`"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "step done"), "{r:?}");
        // Up a row (or to a row by its number) and written over: a status line padded with
        // spaces over an error, a word over another.
        let r = sh
            .send("echo start; echo 'FAILED: disk'; printf '\\033[1A\\r%-20s\\n' 'all passed'")
            .await;
        assert!(r.viewport.lines().any(|l| l == "all passed"), "{r:?}");
        assert!(erased(&r, "`FAILED: disk`"), "{r:?}");
        let r = sh
            .send("clear; echo first; echo ERROR-second; printf '\\033[2;1HOVER\\033[4;1H'")
            .await;
        assert!(erased(&r, "`ERROR-second`"), "{r:?}");
        // A line rewritten with more of itself, or the same, lost nothing.
        let r = sh
            .send("echo 'Downloading'; printf '\\033[1A\\rDownloading... done\\n'; echo same; printf '\\033[1Asame\\n'")
            .await;
        assert!(r.notices.iter().all(|n| !n.contains("erased")), "{r:?}");
        // An error under the frames of a status line that redraws its row.
        let r = sh
            .send("echo 'FAIL: test_login'; for s in a b; do printf '\\033[1A\\033[2K%s retrying...\\n' $s; done")
            .await;
        assert!(erased(&r, "it was `FAIL: test_login`"), "{r:?}");
        // The same text printed by an earlier command, still on screen, is no copy of it.
        sh.send("echo 'bravo two'").await;
        let r = sh
            .send("printf 'alpha one\\nbravo two\\ncharlie\\n\\033[2A'; echo ERR")
            .await;
        assert!(r.viewport.lines().any(|l| l == "ERRvo two"), "{r:?}");
        assert!(erased(&r, "it was `bravo two`"), "{r:?}");
        // Progress lines redrawn in place, however the row is cleared (erase to its end or
        // whole, before or after the new text, lines printed between frames), and a status
        // row pinned at the bottom that is rewritten and cleared at the end.
        for progress in [
            "for i in 10 20 30; do printf '\\r%s%%\\033[K' $i; done; echo",
            "for i in 1 2 3; do printf '\\r\\033[K'; echo \"Compiling c$i\"; printf 'Building %d/3' $i; done; printf '\\r\\033[K'; echo Finished",
            "for i in 1 2 3; do printf '\\r\\033[2KDownloading %d%%' $((i*30)); done; printf '\\r\\033[2K'; echo done",
            "echo setting up; for i in 1 2 3; do printf '\\0337\\033[40;1HProgress: [%d%%]\\0338' $((i*30)); echo unpack $i; done; printf '\\0337\\033[40;1H\\033[2K\\0338'; echo ok",
        ] {
            let r = sh.send(progress).await;
            assert!(r.notices.iter().all(|n| !n.contains("erased")), "{progress}: {r:?}");
        }
        // Erased on the row just printed, as a `\r` progress line clears itself: a line that
        // reports a problem is named; and short lines a number tells apart are no frames.
        for (erase, text) in [
            ("printf 'ERROR here\\033[1K\\n'; echo END", "`ERROR here`"),
            ("printf 'keep\\nWARN: lost\\033[2K\\rnew\\n'", "`WARN: lost`"),
            ("echo D1; printf '\\033[1A\\033[2K'; echo D2", "`D1`"),
            ("printf 'ERR1\\nERR2\\n\\033[2A\\033[J'; echo G4", "`ERR1`"),
        ] {
            let r = sh.send(erase).await;
            assert!(erased(&r, text), "{erase}: {r:?}");
        }
        // A count of zero problems is none: a status block's counter redrawn is no loss.
        let r = sh
            .send("printf 'warnings: 0\\n'; printf '\\033[1A\\033[2Kwarnings: 1\\n'; printf '\\033[1A\\033[2K'; echo finished")
            .await;
        assert!(r.notices.iter().all(|n| !n.contains("erased")), "{r:?}");
        // Lines rewritten in place with newer figures (a multi-line progress display).
        let r = sh
            .send("printf 'layer 1: 10%%\\nlayer 2: 10%%\\n'; for p in 50 100; do printf '\\033[2A\\033[2Klayer 1: %s%%\\n\\033[2Klayer 2: %s%%\\n' $p $p; done")
            .await;
        assert!(r.viewport.lines().any(|l| l == "layer 2: 100%"), "{r:?}");
        assert!(r.notices.iter().all(|n| !n.contains("erased")), "{r:?}");
        let r = sh.send("echo plain").await;
        assert!(r.notices.is_empty(), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Lines a command hid before any result showed them are named, however it hid them: written
/// over with other words after the same leading figures, shortened and the rest erased,
/// wrapped over by a long line, erased selectively, pushed off the screen by inserted lines,
/// reverse indexes or a scroll down, or moved under the cursor by one and written over.
/// Frames of transient displays (a spinner, a status block redrawn and cleared) and lines an
/// earlier result showed (a poll after a timeout, the previous command's output) are not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn erased_lines_are_named_but_not_frames_or_lines_already_shown() {
    within(async {
        let sh = Shell::open(config()).await;
        let erased = |r: &dsh_terminal_core::SendResult| {
            r.notices
                .iter()
                .find(|n| n.starts_with("[screen: the program erased or wrote over"))
                .cloned()
        };
        for (hide, lost) in [
            (
                "printf 'Step 3/10: ERROR linking libfoo\\n\\033[1A\\033[2KStep 4/10: compiling bar\\n'",
                "`Step 3/10: ERROR linking libfoo`",
            ),
            (
                "printf 'ERROR: secret failure in module\\nline3\\n\\033[2A\\rERROR: secret\\033[K\\033[2B\\r'",
                "`ERROR: secret failure in module`",
            ),
            (
                "printf 'line1\\nERROR: wrapped over\\n\\033[2A\\033[6G'; printf '=%.0s' $(seq 1 400); echo",
                "`ERROR: wrapped over`",
            ),
            (
                "printf 'ERROR: selective\\nline3\\n\\033[2A\\033[?2K\\033[2B'",
                "`ERROR: selective`",
            ),
            (
                "printf 'ERROR: pushed off\\n\\033[1A\\033[40L'",
                "`ERROR: pushed off`",
            ),
            // Pushed off a full screen's bottom by lines inserted at the top, reverse indexes
            // at the top, a scroll down; and a line a scroll down moved under the cursor,
            // written over by the next one.
            (
                "seq 1 36; echo 'kiwi pie'; printf '\\033[H\\033[3L\\033[40;1H'",
                "`kiwi pie`",
            ),
            (
                "seq 1 36; echo 'kiwi pie'; printf '\\033[H\\033M\\033M\\033M\\033[40;1H'",
                "`kiwi pie`",
            ),
            (
                "seq 1 36; echo 'kiwi pie'; printf '\\033[3T\\033[40;1H'",
                "`kiwi pie`",
            ),
            (
                "echo 'apple pie'; echo 'banana split'; printf '\\033[2T'; echo durian",
                "`apple pie`",
            ),
            // Written over on its own row after `\r`, when it reads as a problem.
            (
                "printf 'ERROR: token expired'; sleep 0.2; printf '\\r%-30s\\n' 'refreshed token'",
                "`ERROR: token expired`",
            ),
            (
                "printf 'Error: connection reset\\r\\033[KRetrying...\\n'",
                "`Error: connection reset`",
            ),
            (
                "printf '⠋ fetching\\n\\033[1A\\033[2K⠙ Error: ECONNRESET\\n\\033[1A\\033[2K✔ fetched\\n'",
                "`⠙ Error: ECONNRESET`",
            ),
            (
                "printf 'test_a ok\\ntest_b FAILED\\ntest_c ok\\n\\033[3A\\033[J'; echo '2 passed'",
                "among them `test_b FAILED`",
            ),
        ] {
            let r = sh.send(&format!("clear; echo start; {hide}; echo done")).await;
            let notice = erased(&r);
            assert!(notice.as_ref().is_some_and(|n| n.contains(lost)), "{hide}: {r:?}");
        }
        for frames in [
            "for f in ⠋ ⠙ ⠹; do printf '%s Working\\n' $f; printf '\\033[1A\\033[2K'; done; echo done",
            "for i in 1 2 3; do printf 'RUNS a.test.js\\nRUNS b.test.js\\n\\033[2A\\033[J'; done; echo PASS",
            "for i in 1 2 3; do printf 'Downloading a %d%%\\n' $((i*30)); printf '\\033[1A\\033[2K'; done; echo ok",
            "printf 'Errors so far: 1\\rErrors so far: 2\\rErrors so far: 3\\n'",
        ] {
            let r = sh.send(frames).await;
            assert_eq!(erased(&r), None, "{frames}: {r:?}");
        }
        // The previous command's lines, erased by the next.
        sh.send("for i in 1 2 3 4 5 6; do echo \"old $i\"; done").await;
        let r = sh.send("printf '\\033[4A\\033[J'; echo hi").await;
        assert_eq!(erased(&r), None, "{r:?}");
        // A line a result already showed, erased while a poll waits.
        let r = sh
            .send_within("printf 'ERROR: shown early\\n'; sleep 3; printf '\\033[1A\\033[2K'; echo ok", true, 1500)
            .await;
        if r.viewport.contains("ERROR: shown early") {
            let r = sh.send_within("", false, 20_000).await;
            assert!(r.viewport.contains("ok"), "{r:?}");
            assert_eq!(erased(&r), None, "{r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// Text ended by carriage returns alone (a file with CR line ends) is written over on one
/// row, and a shorter text leaves a longer one's end after it: the row shows as on a
/// terminal, and the result says it mixes texts; a progress line redrawn in place, or a row
/// showing one of the texts whole, does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_that_mixes_texts_written_over_one_another_is_said_to() {
    const MIXED: &str = "[screen: texts were written on one row";
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("printf 'id,name,email\\r1,alice,a@x.org\\r2,bob,b@y\\r'; echo")
            .await;
        assert!(r.viewport.contains("\n2,bob,b@y@x.org\n"), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with(MIXED) && n.contains("\"2,bob,b@y@x.org\"")),
            "{r:?}"
        );
        let r = sh
            .send("for i in 1 2 3; do printf '\\rstep %d of 3' $i; done; echo")
            .await;
        assert!(r.viewport.contains("\nstep 3 of 3\n"), "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        // A row showing an earlier text whole (the newer repeats its start), also after a
        // screenful of output and printed late: no note.
        for command in [
            "printf 'Loading...\\rLoading\\n'",
            "seq 1 3000; printf 'Working...\\rWorking.\\rWorking..\\n'",
            "sleep 0.2; printf 'Loading...\\r'; sleep 0.2; printf 'Loading'; echo",
        ] {
            let r = sh.send(command).await;
            assert_eq!(r.exit_code, Some(0), "{command}: {r:?}");
            assert!(
                !r.notices.iter().any(|n| n.starts_with(MIXED)),
                "{command}: {r:?}"
            );
        }
        sh.close().await;
    })
    .await;
}

/// A status line redrawn in place line after line (`check a`, `check b`, `check c`) is a
/// display's frames, but a frame that reports a problem in other words than an error's
/// (`missing dependency`, `skipping`) is named when it was erased, with the frames counted
/// apart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_frame_reporting_a_problem_is_named_once_erased() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("printf 'check a: fine\\n\\033[1A\\033[2Kcheck b: missing dependency libfoo, skipping\\n\\033[1A\\033[2Kcheck c: fine\\n'")
            .await;
        assert!(r.viewport.contains("\ncheck c: fine\n"), "{r:?}");
        assert!(
            r.notices.iter().any(|n| n.starts_with(
                "[screen: the program erased or wrote over a line it printed (besides 1 row of a display it redrew in place)"
            ) && n.contains("`check b: missing dependency libfoo, skipping`")),
            "{r:?}"
        );
        // Frames that report nothing are not named.
        let r = sh
            .send("printf 'Compiling foo\\n\\033[1A\\033[2KCompiling bar\\n\\033[1A\\033[2KFinished\\n'")
            .await;
        assert!(r.notices.is_empty(), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Output a command printed below its start before it moved the cursor above it (to the
/// screen's top) and ended: the result shows its command line and that output, the prompt
/// after them, with the screen full of earlier lines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_printed_before_a_jump_to_the_top_is_shown() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("seq 1 60").await;
        let r = sh.send("printf 'y\\033[1;1H\\n'").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(
            r.viewport.starts_with("printf 'y\\033[1;1H\\n'\ny\n"),
            "{r:?}"
        );
        let r = sh.send("echo after").await;
        assert!(r.viewport.lines().any(|l| l == "after"), "{r:?}");
        sh.close().await;
    })
    .await;
}
