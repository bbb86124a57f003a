//! Programs told to read a counted amount of the terminal in canonical mode (`head -c 5`,
//! `dd bs=1 count=1`): the terminal hands them a line, they take their count and end, and the
//! rest of the line would stay queued for the shell, which would run it as a command. A send
//! longer than what they take is refused before anything is typed; one within it goes; the
//! wait is described as the counted read it is, not as a line.

use dsh_terminal_core::{TerminalErrorCode, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, config, within};

/// A line longer than `dd bs=1 count=1` or `head -c 5` takes is refused, naming the count,
/// and none of it runs in the shell; text within the count reaches the reader, and the next
/// command runs as sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_longer_than_a_counted_read_is_refused() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("printf 'Continue? '; dd bs=1 count=1 2>/dev/null; echo; echo done-dd")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let err = sh.try_send("yecho LEFTOVER-RAN", true).await.unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::InvalidRequest);
        let message = err.message();
        assert!(
            message.starts_with("nothing was typed: dd reads 1 read(s) of at most 1 bytes"),
            "{message}"
        );
        assert!(message.contains("echo LEFTOVER-RAN"), "{message}");
        let r = sh.send("y").await;
        assert!(r.viewport.lines().any(|l| l == "done-dd"), "{r:?}");
        assert!(!r.viewport.contains("LEFTOVER-RAN"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");

        let r = sh.send("head -c 5; echo; echo rc=$?").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: head reads 5 bytes (characters) of its input")),
            "{r:?}"
        );
        assert!(
            r.notices
                .iter()
                .all(|n| !n.contains("waits for a line of input")),
            "{r:?}"
        );
        let err = sh.try_send("abcdefgh", true).await.unwrap_err();
        assert!(err.message().contains("\"fgh\""), "{err}");
        let r = sh.send("abcde").await;
        assert!(r.viewport.lines().any(|l| l == "abcde"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "rc=0"), "{r:?}");
        assert!(!r.viewport.contains("command not found"), "{r:?}");

        // `head -n 1` takes one line: two are refused, one goes.
        let r = sh.send("head -n 1; echo rc=$?").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(sh.try_send("one\necho TWO-RAN", true).await.is_err());
        let r = sh.send("one").await;
        assert!(r.viewport.lines().any(|l| l == "rc=0"), "{r:?}");
        assert!(!r.viewport.contains("TWO-RAN"), "{r:?}");

        let r = sh.send("echo next-$((6*7))").await;
        assert!(r.viewport.lines().any(|l| l == "next-42"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// What earlier sends typed to a counted reader counts: after `ab` and its Enter, `head -c 8`
/// takes five more bytes, and a longer line is refused (its `id` ran in the shell). A loop
/// whose readers take a line each, or a script's, takes the rest with its next reader: the
/// lines go (they were refused as if the shell read next).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_counted_reader_counts_what_it_took_and_a_loop_reads_on() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("head -c 8; echo; echo HEADDONE").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("ab").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let err = sh.try_send("abcdeid", true).await.unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::InvalidRequest);
        assert!(err.message().contains("\"id\""), "{err}");
        let r = sh.send("abcd").await;
        assert!(r.viewport.lines().any(|l| l == "HEADDONE"), "{r:?}");
        assert!(!r.viewport.contains("uid="), "{r:?}");

        let r = sh
            .send("for i in 1 2 3; do x=$(head -n 1); echo \"got $i: $x\"; done")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("apple\nbanana\ncherry").await;
        for line in ["got 1: apple", "got 2: banana", "got 3: cherry"] {
            assert!(r.viewport.lines().any(|l| l == line), "{line}: {r:?}");
        }
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A text's own trailing line end is its Enter, not a second one (`first\n` to `head -n 2`
/// counted two lines, and the answer `second\n` was refused); keys the terminal's line
/// editing takes are no text of the line: Ctrl-C interrupts the reader (it was refused as
/// text the shell would run).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_counted_readers_answers_end_with_one_enter_and_ctrl_c_goes() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("head -n 2; echo HEAD2-DONE").await;
        let r = sh.send("first\n").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("second\n").await;
        assert!(r.viewport.lines().any(|l| l == "HEAD2-DONE"), "{r:?}");
        let r = sh.send("head -c 3; echo; echo rc=$?").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        sh.send_raw("ab", false).await;
        // The interrupt ends the whole command line, as at a terminal.
        let r = sh.send_raw("\u{3}", false).await;
        assert_eq!(r.exit_code, Some(130), "{r:?}");
        sh.close().await;
    })
    .await;
}
