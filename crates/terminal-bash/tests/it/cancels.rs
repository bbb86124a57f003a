//! Cancelled sends (what `job_kill` does to a background send): the interrupt reaches the
//! send's command, and nothing else.

use dsh_terminal_core::{BackendSession, SendRequest, WaitReason};

use crate::support::{Shell, quick_config, within};

/// A cancel of a command (`sleep`) run by a nested shell interrupts `sleep` only: the nested shell taking
/// the terminal back at its prompt is no new program to interrupt (a second interrupt there
/// made its line editor eat the first key of the next send, which then ran as `cho …`).
/// Repeated: the second interrupt went only when the nested shell was back in time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_in_a_nested_shell_interrupts_only_its_command() {
    within(async {
        let sh = Shell::open(quick_config()).await;
        let r = sh.send("bash --norc").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        for round in 0..20 {
            let op = sh
                .session
                .start_send(SendRequest {
                    text: "bash -c 'echo sl''eeping; exec sleep 30'".to_owned(),
                    submit: true,
                    timeout: None,
                })
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            crate::support::wait_until("the command runs", || {
                op.progress()
                    .last_line
                    .is_some_and(|l| l.trim() == "sleeping")
            })
            .await;
            assert!(op.cancel(), "round {round}");
            op.done()
                .await
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            let r = sh.send(&format!("echo r{round}-$((40+2))")).await;
            assert!(
                r.viewport.lines().any(|l| l == format!("r{round}-42")),
                "round {round}: {r:?}\ntranscript: {}",
                sh.session.transcript()
            );
        }
        sh.close().await;
    })
    .await;
}
