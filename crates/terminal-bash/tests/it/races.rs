//! Regressions for interrupt races seen under load through MCP: a send made right after an
//! interrupt must report its own command, never the interrupted command's prompt, and must not
//! lose typed characters to bash's interrupt handling. Each is repeated to catch the race.

use dsh_terminal_core::{BackendSession, TerminalSignal, WaitReason};

use crate::support::{Shell, quick_config, within};

const ROUNDS: usize = 15;

/// `sleep 100` settles by silence; SIGINT; then `echo` at once, as a model would send it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_right_after_sigint_reports_its_own_command() {
    within(async {
        let shell = Shell::open(quick_config()).await;
        let mut previous = None;
        for round in 0..ROUNDS {
            let r = shell.send("sleep 100").await;
            assert_ne!(
                r.wait_reason,
                WaitReason::StdinRead,
                "round {round}: {r:?}\nprevious: {previous:?}\ntranscript: {}",
                shell.session.transcript()
            );
            shell
                .session
                .signal(TerminalSignal::Sigint)
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            let marker = format!("ok-{round}");
            let r = shell.send(&format!("echo {marker}")).await;
            assert!(
                r.viewport.lines().any(|l| l == marker),
                "round {round}: {:?}",
                r.viewport
            );
            assert_eq!(r.exit_code, Some(0), "round {round}: {r:?}");
            previous = Some(r);
        }
        shell.close().await;
    })
    .await;
}

/// A typed Ctrl-C (submit false) at an idle prompt, then a command at once: no character of
/// the command is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_ctrl_c_then_command_loses_nothing() {
    within(async {
        let shell = Shell::open(quick_config()).await;
        for round in 0..ROUNDS {
            shell.send_raw("\u{3}", false).await;
            let marker = format!("x-{round}");
            let r = shell.send(&format!("echo {marker}")).await;
            assert!(
                r.viewport.lines().any(|l| l == marker),
                "round {round}: {:?}",
                r.viewport
            );
        }
        shell.close().await;
    })
    .await;
}

/// SIGINT at an idle prompt through the signal path, then a command at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_at_idle_prompt_then_command_loses_nothing() {
    within(async {
        let shell = Shell::open(quick_config()).await;
        for round in 0..ROUNDS {
            shell
                .session
                .signal(TerminalSignal::Sigint)
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            // (Not sent at an idle prompt; a typed Ctrl-C above exercises the real signal.)
            let marker = format!("y-{round}");
            let r = shell.send(&format!("echo {marker}")).await;
            assert!(
                r.viewport.lines().any(|l| l == marker),
                "round {round}: {:?}",
                r.viewport
            );
        }
        shell.close().await;
    })
    .await;
}
