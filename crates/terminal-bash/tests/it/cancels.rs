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

/// A cancel says whether it took effect: not when the line (builtins alone) ran to its end
/// within the grace the shell gets to start a program, and always when a program of the line
/// ran (its interrupt went to it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_says_whether_its_interrupt_reached_the_command() {
    within(async {
        let sh = Shell::open(quick_config()).await;
        let mut missed = 0;
        // Rounds until one cancel came after its line ended (a loaded machine may run the line
        // past the interrupt's grace, which delivers it).
        for round in 0..20 {
            if missed > 0 {
                break;
            }
            let op = sh.start_within(&format!("echo r{round}; echo s{round}"), 20_000);
            // The line done: the cancel comes as a job_kill after the call that started the
            // job returned.
            crate::support::wait_until("the line ran", || {
                sh.session
                    .transcript()
                    .lines()
                    .any(|l| l.trim() == format!("s{round}"))
            })
            .await;
            op.cancel();
            let r = op
                .done()
                .await
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            if !op.cancel_took_effect() {
                // Nothing stopped it: it ran to its end.
                assert!(
                    r.viewport.lines().any(|l| l == format!("s{round}")),
                    "{r:?}"
                );
                assert_eq!(r.exit_code, Some(0), "{r:?}");
                missed += 1;
            }
        }
        assert!(
            missed > 0,
            "every cancel of a line of builtins was delivered"
        );
        let op = sh.start_within("sleep 30", 20_000);
        crate::support::wait_until("sleep runs", || {
            op.progress()
                .last_line
                .is_some_and(|l| l.contains("sleep 30"))
        })
        .await;
        assert!(op.cancel());
        let r = op.done().await.expect("the cancelled sleep settles");
        assert!(op.cancel_took_effect(), "{r:?}");
        assert_eq!(r.exit_code, Some(130), "{r:?}");
        sh.close().await;
    })
    .await;
}
