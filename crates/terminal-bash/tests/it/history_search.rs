//! Keys sent to readline's incremental history search (Ctrl-R) act as typed in a terminal,
//! and the results show the line as readline holds it.

use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, within};

/// An Enter sent as a key after a Ctrl-R search runs the command the search found, as a
/// terminal's Enter key does (Ctrl-J only ends the search): sent alone as `\r` or `\n`, or in
/// the same send as the search. A search left with an arrow key shows the line it left at the
/// prompt, after the prompt, as a terminal shows it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_enter_key_after_a_history_search_runs_the_line_found() {
    within(async {
        let dir = TempDir::new("isearch");
        let sh = Shell::open(config()).await;
        sh.send(&format!("cd {}", dir.0.display())).await;
        for (i, keys) in [
            &["\u{12}mark-0", "\r"][..],
            &["\u{12}mark-1", "\n"][..],
            &["\u{12}mark-2\r"][..],
        ]
        .into_iter()
        .enumerate()
        {
            sh.send(&format!("echo mark-{i}-$((40+2)) >> rs.log")).await;
            let (last, before) = keys.split_last().unwrap();
            for key in before {
                sh.send_raw(key, false).await;
            }
            let r = sh.send_raw(last, false).await;
            assert_eq!(r.exit_code, Some(0), "{keys:?}: {r:?}");
            let r = sh.send(&format!("grep -c '^mark-{i}-42$' rs.log")).await;
            assert!(r.viewport.lines().any(|l| l == "2"), "{keys:?}: {r:?}");
        }
        sh.send("echo mark-3 >> rs.log").await;
        sh.send_raw("\u{12}mark-3", false).await;
        let r = sh.send_raw("\u{1b}[C", false).await;
        assert!(
            r.viewport
                .lines()
                .any(|l| l.ends_with("> echo mark-3 >> rs.log")),
            "{r:?}"
        );
        let r = sh.send("").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = sh.send("grep -c '^mark-3$' rs.log").await;
        assert!(r.viewport.lines().any(|l| l == "2"), "{r:?}");
        sh.close().await;
    })
    .await;
}
