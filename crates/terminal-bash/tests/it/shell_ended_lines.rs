//! Lines of a send after the one that ended the session's shell are never typed: the result
//! names them and the line the shell ended at. A nested shell's end is no such end (the
//! lines after it run in the session's shell), and an end on the input's last line leaves
//! nothing to name.

use dsh_terminal_core::{SessionStatus, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, config, within};

/// Every way a line ends the session's shell (`exit` alone or after other commands on its
/// line, `exec`, `kill -9 $$`, errexit and a failing command, a Ctrl-D with `ignoreeof`
/// off, the outer shell's `exit` after a nested one's) leaves the lines after it untyped,
/// and the result says which and at which line the shell ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_after_the_line_that_ended_the_shell_are_named_as_not_run() {
    within(async {
        for (text, untyped) in [
            (
                "echo a\nexit 2\necho never-$((1+1))",
                "line 3 of the input was not typed: the session's shell ended at line 2 ",
            ),
            (
                "echo a; exit 3\necho never-$((1+1))\necho nor-$((2+2))",
                "lines 2–3 of the input were not typed: the session's shell ended at line 1 ",
            ),
            (
                "echo a\nexec true\necho never-$((1+1))",
                "line 3 of the input was not typed: the session's shell ended at line 2 ",
            ),
            (
                "echo a\nkill -9 $$\necho never-$((1+1))",
                "line 3 of the input was not typed: the session's shell ended at line 2 ",
            ),
            (
                "set -e\nfalse\necho never-$((1+1))\n\necho nor-$((2+2))",
                "lines 3–5 of the input were not typed: the session's shell ended at line 2 ",
            ),
            (
                "set +o ignoreeof\n\u{4}\necho never-$((1+1))",
                "line 3 of the input was not typed: the session's shell ended at line 2 ",
            ),
            (
                "bash --norc --noprofile\nexit\nexit 5\necho never-$((1+1))",
                "line 4 of the input was not typed: the session's shell ended at line 3 ",
            ),
        ] {
            let sh = Shell::open(config()).await;
            let r = sh.send(text).await;
            assert_eq!(r.wait_reason, WaitReason::SessionExit, "{text:?}: {r:?}");
            assert!(
                matches!(r.session_status, SessionStatus::Exited { .. }),
                "{text:?}: {r:?}"
            );
            let named: Vec<&String> = r
                .notices
                .iter()
                .filter(|n| n.starts_with(&format!("[input: {untyped}")))
                .collect();
            assert_eq!(named.len(), 1, "{text:?}: {r:?}");
            // Nothing of the lines after it ran (nor was echoed).
            assert!(!r.viewport.contains("never-"), "{text:?}: {r:?}");
            assert!(!sh.session.transcript().contains("never-"), "{text:?}");
            sh.close().await;
        }
    })
    .await;
}

/// An end on the input's last line (blank lines after it included) names no line; a nested
/// shell's `exit` is followed by the next line in the session's shell, which runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_end_on_the_last_line_or_of_a_nested_shell_names_no_line() {
    within(async {
        for text in ["echo a\nexit 2", "echo a\nexit 2\n\n", "echo a; kill -9 $$"] {
            let sh = Shell::open(config()).await;
            let r = sh.send(text).await;
            assert_eq!(r.wait_reason, WaitReason::SessionExit, "{text:?}: {r:?}");
            assert!(
                !r.notices.iter().any(|n| n.starts_with("[input:")),
                "{text:?}: {r:?}"
            );
            sh.close().await;
        }
        let sh = Shell::open(config()).await;
        let r = sh
            .send("bash --norc --noprofile\nexit 4\necho ran-$((1+1))")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "ran-2"), "{r:?}");
        assert!(!r.notices.iter().any(|n| n.starts_with("[input:")), "{r:?}");
        sh.close().await;
    })
    .await;
}
