//! Signals where no prompt of our shell (with its marks) comes back: under a shell that
//! replaced ours (`exec bash --norc`), to a REPL that did (`exec python3`), or to one our shell
//! runs in its own process group with job control off (`set +m`). What reads the terminal
//! there reading it again is what says the signal played out, so the next send goes at once:
//! it waited out the aftermath's bound (1 s), and a shorter deadline ran out before the text
//! was read (`bash is still running`, the text running after the result came back).

use std::time::Duration;

use dsh_terminal_core::{BackendSession, SendResult, TerminalSignal, WaitReason};

use crate::support::{Shell, config, within};

/// A deadline shorter than the aftermath's bound: a send that waits that out times out.
const SHORT_MS: u64 = 900;

/// Sends `signal` and looks at its effect as `terminal_signal` does, then sends `text` within
/// [`SHORT_MS`]: it settles reading, with no notice about its input.
async fn signal_then_send(sh: &Shell, signal: TerminalSignal, text: &str) -> SendResult {
    let s = sh
        .session
        .signal(signal)
        .unwrap_or_else(|e| panic!("{signal}: {e}"));
    assert!(s.delivered, "{s:?}");
    sh.session
        .after_signal(s.target_pgid, Duration::from_secs(1))
        .await;
    let r = sh.send_within(text, true, SHORT_MS).await;
    assert_eq!(
        r.wait_reason,
        WaitReason::StdinRead,
        "{signal} {text}: {r:?}"
    );
    assert!(
        r.notices.iter().all(|n| !n.starts_with("[input:")),
        "{signal} {text}: {r:?}"
    );
    r
}

/// After `exec bash --norc`, a job stopped (SIGTSTP) or ended (SIGINT) leaves that shell back
/// at its prompt, and a shell stopped itself (`suspend`) is continued and back at it: the
/// next command runs within a short deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_that_replaced_ours_takes_the_next_command_at_once_after_a_signal() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("exec bash --norc").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("python3 -q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = signal_then_send(&sh, TerminalSignal::Sigtstp, "echo stopped-$((6*7))").await;
        assert!(r.viewport.lines().any(|l| l == "stopped-42"), "{r:?}");
        let r = sh.send_within("sleep 20", true, 300).await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = signal_then_send(&sh, TerminalSignal::Sigint, "echo ended-$((6*7))").await;
        assert!(r.viewport.lines().any(|l| l == "ended-42"), "{r:?}");
        let r = sh.send_within("suspend", true, 300).await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh
            .send_within("echo continued-$((6*7))", true, SHORT_MS)
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "continued-42"), "{r:?}");
        let r = sh.send("kill -KILL %1; wait").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A REPL in our shell's own process group (it replaced our shell, or our shell runs it with
/// job control off) catches SIGINT and reads at its prompt again: the next statement runs
/// within a short deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_in_the_shells_group_takes_the_next_statement_at_once_after_sigint() {
    within(async {
        for setup in [&["exec python3 -q"][..], &["set +m", "python3 -q"][..]] {
            let sh = Shell::open(config()).await;
            for line in setup {
                sh.send(line).await;
            }
            let r = sh.send("import time").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{setup:?}: {r:?}");
            let r = signal_then_send(&sh, TerminalSignal::Sigint, "print(6 * 7)").await;
            assert!(r.viewport.lines().any(|l| l == "42"), "{setup:?}: {r:?}");
            let r = sh.send_within("time.sleep(20)", true, 300).await;
            assert_eq!(r.wait_reason, WaitReason::Timeout, "{setup:?}: {r:?}");
            let r = signal_then_send(&sh, TerminalSignal::Sigint, "print(6 * 8)").await;
            assert!(r.viewport.lines().any(|l| l == "48"), "{setup:?}: {r:?}");
            sh.close().await;
        }
    })
    .await;
}
