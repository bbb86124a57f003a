//! A job the shell's output shows stopped is said stopped, not finished, with how to go on:
//! stopped in the foreground by the Ctrl-Z key (as `terminal_signal SIGTSTP` says it), or in
//! the background for reading the terminal; once, not at every prompt after. And text a
//! deadline overtook before the shell was done with it is said typed, never a bare timeout.

use dsh_terminal_core::{SendResult, TerminalErrorCode, WaitReason};

use crate::support::{Shell, TempDir, config, within};

/// The `[job: …]` notices of `r`.
fn job_notices(r: &SendResult) -> Vec<&String> {
    r.notices
        .iter()
        .filter(|n| n.starts_with("[job:"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_stopped_by_the_ctrl_z_key_is_said_stopped_once() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send_within("sleep 100", true, 1500).await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send_raw("\u{1a}", false).await;
        assert!(r.viewport.contains("Stopped"), "{r:?}");
        assert_eq!(
            job_notices(&r),
            vec![&format!(
                "[job: {}]",
                dsh_terminal_core::stopped_job_advice("sleep")
            )],
            "{r:?}"
        );
        // Still stopped at the next prompt: not said again.
        let r = sh.send("jobs").await;
        assert!(r.viewport.contains("Stopped"), "{r:?}");
        assert!(job_notices(&r).is_empty(), "{r:?}");
        // Continued and stopped again: said again.
        let r = sh.send_within("fg", true, 1500).await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send_raw("\u{1a}", false).await;
        assert_eq!(job_notices(&r).len(), 1, "{r:?}");
        sh.send("kill -9 %1").await;
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_in_the_background_stopped_for_reading_the_terminal_is_said_stopped() {
    within(async {
        let sh = Shell::open(config()).await;
        // cat reads the terminal from the background: the kernel stops it (SIGTTIN), and the
        // shell says `Stopped` at a prompt after.
        let mut r = sh.send("cat > /dev/null &").await;
        for _ in 0..50 {
            if !job_notices(&r).is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            r = sh.send("true").await;
        }
        let notices = job_notices(&r);
        assert_eq!(notices.len(), 1, "{r:?}");
        assert!(
            notices[0].starts_with("[job: cat, a job in the background, is stopped")
                && notices[0].contains("send fg to bring it to the foreground"),
            "{r:?}"
        );
        let r = sh.send("true").await;
        assert!(job_notices(&r).is_empty(), "{r:?}");
        sh.send("kill -9 %1").await;
        sh.close().await;
    })
    .await;
}

/// A deadline of a millisecond or two passes before the shell has read the line, echoed it,
/// or started its program: the result says the text was typed (and names no fork of the shell
/// as the program), and every line runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_a_tiny_deadline_overtakes_is_said_typed() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = TempDir::new("typed-unfinished");
        let log = dir.0.join("log");
        let rounds = 20;
        for round in 0..rounds {
            let line = format!("echo {round} >> {}; sleep 0.05", log.display());
            let r = sh.send_within(&line, true, 1 + round % 3).await;
            if r.wait_reason == WaitReason::Timeout {
                assert_ne!(r.foreground.as_deref(), Some("bash"), "{r:?}");
                assert!(
                    r.foreground.is_some()
                        || r.notices.iter().any(|n| {
                            n.contains("it was typed into the terminal")
                                || n.starts_with("[shell: the shell itself is still running")
                        }),
                    "round {round}: {r:?}"
                );
            }
            // Wait for its prompt (once the text is written: the result may come before).
            loop {
                match sh.try_send("", false).await {
                    Ok(r) if r.wait_reason == WaitReason::StdinRead => break,
                    Ok(_) => {}
                    Err(e)
                        if matches!(
                            e.code(),
                            TerminalErrorCode::SendActive | TerminalErrorCode::InputPending
                        ) =>
                    {
                        tokio::task::yield_now().await;
                    }
                    Err(e) => panic!("poll failed: {e}"),
                }
            }
        }
        let ran = std::fs::read_to_string(&log).unwrap();
        assert_eq!(ran.lines().count(), rounds as usize, "{ran}");
        sh.close().await;
    })
    .await;
}
