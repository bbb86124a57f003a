//! Field cases about exit statuses (C07 typed-ahead commands, C08 strict mode, C09 `exit`,
//! and errexit turning on) against real bash, named after their ids.
//!
//! Compiled twice, as `cases.rs` is: as `cases_status` (unconfined sessions) and as
//! `confined::cases_status`, where every session runs in the `workspace-write` sandbox.

use dsh_terminal_core::{
    BackendSession, InputMode, SendResult, SessionStatus, TerminalErrorCode, WaitReason,
};
use pretty_assertions::assert_eq;

use super::support::{Shell, TempDir, config, within};

/// Whether `r` warns that the session's shell has errexit on.
fn says_errexit_on(r: &SendResult) -> bool {
    r.notices
        .iter()
        .any(|n| n.starts_with("[shell: errexit is on in the session's shell (set -e)"))
}

/// The warning for errexit comes whenever it turns on in the session's shell, however that
/// happens (`set -o errexit`, a sourced script), and not for `set -e` in a child shell or a
/// subshell, whose failure does not end the session, nor for errtrace (`set -E`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errexit_turning_on_in_the_sessions_shell_is_said() {
    within(async {
        let sh = Shell::open(config()).await;
        for line in ["bash -c 'set -e; true'", "( set -e; true )"] {
            let r = sh.send(line).await;
            assert_eq!(r.exit_code, Some(0), "{r:?}");
            assert!(!says_errexit_on(&r), "{line}: {r:?}");
        }
        let r = sh.send("set -o errexit").await;
        assert!(says_errexit_on(&r), "{r:?}");
        let r = sh.send("set +e").await;
        assert!(r.notices.is_empty(), "{r:?}");
        let dir = TempDir::new("errexit");
        let script = dir.0.join("strict.sh");
        std::fs::write(&script, "set -eu\n").unwrap_or_else(|e| panic!("{e}"));
        let r = sh.send(&format!("source {}", script.display())).await;
        assert!(says_errexit_on(&r), "{r:?}");
        let r = sh.send("set +e; echo relaxed").await;
        assert!(r.notices.is_empty(), "{r:?}");
        let r = sh.send("false; echo alive").await;
        assert!(r.viewport.contains("\nalive\n"), "{r:?}");
        // errtrace (`E` in `$-`) is no errexit, also where patterns ignore case.
        let r = sh
            .send("shopt -s nocasematch; trap 'echo ERR-trap' ERR; set -o errtrace")
            .await;
        assert!(!says_errexit_on(&r), "{r:?}");
        let r = sh.send("false; echo still-here").await;
        assert!(r.viewport.contains("ERR-trap\nstill-here\n"), "{r:?}");
        assert!(!says_errexit_on(&r), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A trap on `ERR` that exits, set in the session's shell, ends it at the first failure as
/// errexit does: the send that sets it says so, and so does the one it ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exiting_err_trap_in_the_sessions_shell_is_said() {
    const SET: &str = "[shell: this send set a trap on ERR that exits in the session's shell";
    const ENDED: &str =
        "[shell: this send set a trap on ERR that exits in the session's shell itself, so";
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("( trap 'exit 3' ERR; false ); echo sub-$?").await;
        assert!(r.viewport.contains("\nsub-3\n"), "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        let r = sh.send("trap 'exit 3' ERR").await;
        assert!(r.notices.iter().any(|n| n.starts_with(SET)), "{r:?}");
        let r = sh.send("trap - ERR; false; echo alive").await;
        assert!(r.viewport.contains("\nalive\n"), "{r:?}");
        let r = sh.send("trap 'echo bye; exit 4' ERR; false").await;
        assert_eq!(r.wait_reason, WaitReason::SessionExit, "{r:?}");
        assert!(r.notices.iter().any(|n| n.starts_with(ENDED)), "{r:?}");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C08.
async fn c08_strict_mode_exit_is_reported_at_once() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("set -euo pipefail").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0));
        assert!(says_errexit_on(&r), "warned as it turns on: {r:?}");
        let r = sh.send("echo strict-ok").await;
        assert_eq!(r.exit_code, Some(0), "marks work under set -u: {r:?}");
        assert!(r.notices.is_empty(), "said once: {r:?}");
        let r = sh.send("false").await;
        assert_eq!(r.wait_reason, WaitReason::SessionExit, "{r:?}");
        assert_eq!(
            r.session_status,
            SessionStatus::Exited {
                exit_code: Some(1),
                signal: None
            }
        );
        let err = sh.try_send("echo alive", true).await.unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::Exited);
        assert!(err.message().contains("has exited"), "{err}");
        sh.close().await;
        // Turned on and failing in one send: no prompt came between, and the exit's result
        // says what ended the shell.
        let sh = Shell::open(config()).await;
        let r = sh.send("set -e; false; echo x").await;
        assert_eq!(r.wait_reason, WaitReason::SessionExit, "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[shell: this send turned on errexit (set -e)")),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Field case C09.
async fn c09_exit_status_is_reported_at_once() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("exit 3").await;
        assert_eq!(r.wait_reason, WaitReason::SessionExit, "{r:?}");
        let exited_3 = SessionStatus::Exited {
            exit_code: Some(3),
            signal: None,
        };
        assert_eq!(r.session_status, exited_3);
        assert_eq!(sh.session.status(), exited_3);
        let err = sh.try_send("echo later", true).await.unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::Exited);
        sh.close().await;
    })
    .await;
}

/// Field case C07: a command sent while another still runs is typed ahead (as in a real
/// terminal); its result reports its own exit status as `exit_code` and the earlier command's
/// as an earlier exit, so neither is lost or misattributed. Several lines sent at once report
/// every status the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c07_typed_ahead_command_reports_its_own_and_the_earlier_exit() {
    within(async {
        let shell = Shell::open(super::support::quick_config()).await;
        let r = shell.send("sleep 1.5; false").await;
        assert_ne!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = shell.send("echo B").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "B"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(crate::support::earlier(&r), vec![1], "{r:?}");

        let r = shell.send("(exit 3)\n(exit 4)\ntrue").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(crate::support::earlier(&r), vec![3, 4], "{r:?}");
        // A compound command over several lines passes through continuation prompts without
        // settling on them.
        let r = shell.send("for i in 1 2\ndo echo n$i\ndone").await;
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "n2"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let r = shell.send("echo plain").await;
        assert!(r.earlier_exits.is_empty(), "{r:?}");
        shell.close().await;
    })
    .await;
}

/// Field case C07, the same kind at length: every line of a long multi-line send reports its
/// status, in order, also past a thousand lines (counts stay exact however many).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c07_a_long_multi_line_send_reports_every_earlier_exit() {
    within(async {
        let shell = Shell::open(super::support::config()).await;
        for lines in [30, 150, 1500] {
            let text: Vec<String> = (1..=lines)
                .map(|i| format!("echo {i}; (exit $(({i}%3)))"))
                .collect();
            // A deadline generous for a loaded machine: 1500 lines are paced one by one.
            let r = shell.send_within(&text.join("\n"), true, 100_000).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert_eq!(r.exit_code, Some(lines % 3), "{r:?}");
            let expected: Vec<i32> = (1..lines).map(|i| i % 3).collect();
            assert_eq!(
                crate::support::earlier(&r),
                expected,
                "{lines} lines: {r:?}"
            );
        }
        shell.close().await;
    })
    .await;
}

/// Field case C07, lines that run no command: blank and comment-only lines in a multi-line
/// send bring a prompt back with the previous status, and are not counted as commands; in a
/// fresh session too, before any command ran.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c07_blank_and_comment_lines_are_not_counted_as_commands() {
    within(async {
        let shell = Shell::open(super::support::config()).await;
        for text in ["", "# a comment", "\n\n"] {
            let r = shell.send(text).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{text:?}: {r:?}");
            assert_eq!(r.exit_code, None, "{text:?}: {r:?}");
            assert!(crate::support::earlier(&r).is_empty(), "{text:?}: {r:?}");
        }
        for (text, earlier, last) in [
            ("(exit 3)\n\n\n\n\necho end", vec![3], Some(0)),
            ("false\n# a comment\n\n   \ntrue", vec![1], Some(0)),
            ("true\n(exit 4)\n\n", vec![0], Some(4)),
            // No command ran: no status is this send's.
            ("# only a comment\n\n", vec![], None),
            ("", vec![], None),
        ] {
            let r = shell.send(text).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{text:?}: {r:?}");
            assert_eq!(crate::support::earlier(&r), earlier, "{text:?}: {r:?}");
            assert_eq!(r.exit_code, last, "{text:?}: {r:?}");
        }
        shell.close().await;
    })
    .await;
}
