//! A program still running at a send's deadline: the result says whether it is the command
//! typed alone or one command of a longer command line (a loop, a list) that may run more after it,
//! so stopping means stopping the whole line (a loop's `sleep` named alone read as if it were
//! all that ran).

use dsh_terminal_core::{BackendSession as _, TerminalSignal, WaitReason};

use crate::support::{Shell, config, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_running_in_a_loop_is_said_to_be_one_command_of_its_line() {
    within(async {
        let sh = Shell::open(config()).await;
        for (line, in_line) in [
            ("while :; do sleep 1; done", true),
            ("true && sleep 30", true),
            ("sleep 30", false),
        ] {
            let r = sh.send_within(line, true, 1500).await;
            assert_eq!(r.wait_reason, WaitReason::Timeout, "{line}: {r:?}");
            let said = |text: &str| r.notices.iter().any(|n| n.starts_with(text));
            assert_eq!(
                said("[timeout: sleep is still running, as one command of a longer command line"),
                in_line,
                "{line}: {r:?}"
            );
            assert_eq!(
                said("[timeout: sleep is still running: poll"),
                !in_line,
                "{line}: {r:?}"
            );
            sh.session
                .signal(TerminalSignal::Sigint)
                .unwrap_or_else(|e| panic!("{line}: {e}"));
            let r = sh.send("echo back").await;
            assert!(r.viewport.contains("\nback\n"), "{line}: {r:?}");
        }
        // A line that put a command in the background with `&`: SIGINT stops the rest only,
        // and the result says what it leaves running.
        let r = sh.send_within("sleep 3000 & sleep 30", true, 1500).await;
        assert!(
            r.notices.iter().any(
                |n| n.contains("that also put commands in the background with &")
                    && n.contains("those put in the background keep running")
            ),
            "{r:?}"
        );
        sh.session
            .signal(TerminalSignal::Sigint)
            .unwrap_or_else(|e| panic!("{e}"));
        let r = sh.send("kill %1; wait; echo jobs-done").await;
        assert!(r.viewport.contains("\njobs-done\n"), "{r:?}");
        // A command substitution's program runs in the shell's own process group: the shell
        // is said to run the line, a substitution named among what that may be.
        let r = sh.send_within("echo $(sleep 30)", true, 1500).await;
        assert!(
            r.notices.iter().any(
                |n| n.starts_with("[shell: the shell itself is still running")
                    && n.contains("a command substitution $(…)")
            ),
            "{r:?}"
        );
        sh.session
            .signal(TerminalSignal::Sigint)
            .unwrap_or_else(|e| panic!("{e}"));
        let r = sh.send("echo back").await;
        assert!(r.viewport.contains("\nback\n"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A REPL busy with a statement or query at a send's deadline, whether its command line names
/// the REPL (`python3 -q`) or not (`sqlite3` given a database, IPython run as a script): the
/// result says SIGINT interrupts the statement and the REPL stays (not that SIGINT stops it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_busy_at_the_deadline_is_said_to_keep_its_state_on_sigint() {
    within(async {
        let dir = crate::support::TempDir::new("busy-repl");
        let sh = Shell::open(config()).await;
        let db = dir.0.join("t.db");
        for (start, busy) in [
            ("python3 -q".to_owned(), "import time; time.sleep(30)"),
            (
                format!("sqlite3 '{}'", db.display()),
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c;",
            ),
        ] {
            let r = sh.send(&start).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            let r = sh.send_within(busy, true, 1000).await;
            assert_eq!(r.wait_reason, WaitReason::Timeout, "{start}: {r:?}");
            assert!(
                r.notices
                    .iter()
                    .any(|n| n.contains("to interrupt the statement (the REPL stays")),
                "{start}: {r:?}"
            );
            sh.session
                .signal(TerminalSignal::Sigint)
                .unwrap_or_else(|e| panic!("{e}"));
            let r = sh.send_raw("\u{4}", false).await;
            assert!(r.viewport.ends_with("dsh> "), "{start}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}
