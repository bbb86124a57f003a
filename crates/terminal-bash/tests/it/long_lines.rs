//! Long lines (field case C26): a line over the terminal's 4095-byte canonical limit reaches
//! its reader whole where nothing cuts it, or is refused with the limit named; never cut.

use dsh_terminal_bash::BashConfig;
use dsh_terminal_core::{BackendSession, TerminalErrorCode, TerminalSignal, WaitReason};
use pretty_assertions::assert_eq;

use crate::input::python313;
use crate::support::{Shell, config, within};

/// A shell (1.5 s per send) whose `read -r line` waits for a line, whose length it then
/// prints (`len=N`).
async fn shell_reading_a_line() -> Shell {
    let sh = Shell::open(BashConfig {
        timeout_ms: 1500,
        ..config()
    })
    .await;
    let r = sh.send("read -r line; echo \"len=${#line}\"").await;
    assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
    sh
}

/// Field case C26: a line over the terminal's 4095-byte canonical limit is refused with the
/// limit named (a `read`, and typed-ahead input while a command runs), never cut; a raw-mode
/// reader (readline at the prompt) gets it whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c26_long_lines_are_delivered_whole_or_refused_with_the_limit() {
    within(async {
        let long = "x".repeat(6000);
        let sh = shell_reading_a_line().await;
        let err = sh.try_send(&long, true).await.unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::InvalidRequest);
        assert!(err.message().contains("4095-byte line limit"), "{err}");
        assert!(err.message().contains("file"), "{err}");
        // Nothing was sent: the program still reads, and a short line arrives whole.
        let r = sh.send("short").await;
        assert!(r.viewport.lines().any(|l| l == "len=5"), "{r:?}");
        // At the prompt, readline reads raw: the whole line arrives.
        let r = sh.send(&format!("v={long}; echo \"len=${{#v}}\"")).await;
        assert!(r.viewport.lines().any(|l| l == "len=6000"), "{r:?}");
        // Typed ahead while a command runs (the terminal is back in canonical mode).
        let r = sh.send("sleep 3; echo slept").await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let err = sh
            .try_send(&format!("echo {long}"), true)
            .await
            .unwrap_err();
        assert!(err.message().contains("4095-byte line limit"), "{err}");
        crate::support::wait_until("the sleep finished", || {
            sh.session.transcript().contains("slept\ndsh> ")
        })
        .await;
        let r = sh.send("echo after").await;
        assert!(r.viewport.lines().any(|l| l == "after"), "{r:?}");
        assert!(!r.viewport.contains("xxxx"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Field case C26 across sends: a canonical-mode line built from several `submit: false`
/// sends counts the bytes typed before toward the line limit, so its tail is refused by name
/// instead of cut by the kernel; the part typed so far stays and can be finished. Text typed
/// to readline (raw), or after the line ended, starts afresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c26_a_line_typed_in_pieces_counts_every_piece_toward_the_limit() {
    within(async {
        let (a, b) = ("a".repeat(3000), "b".repeat(3000));
        let sh = shell_reading_a_line().await;
        sh.send_raw(&a, false).await;
        let err = sh.try_send(&b, true).await.unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::InvalidRequest);
        assert!(err.message().contains("3000 bytes typed before"), "{err}");
        assert!(err.message().contains("4095-byte line limit"), "{err}");
        // Nothing of it was sent: what was typed before arrives whole with a piece that fits.
        let r = sh.send(&"c".repeat(1095)).await;
        assert!(r.viewport.lines().any(|l| l == "len=4095"), "{r:?}");
        // The same typed ahead while a command blocked for good elsewhere runs (it opens a
        // FIFO no one writes: canonical mode until the prompt, and its text goes at once),
        // the command held until the pieces are in.
        let gate =
            std::env::temp_dir().join(format!("dsh-c26-gate-{}", crate::support::unique_id()));
        let r = sh
            .send(&format!(
                "mkfifo '{g}'; cat '{g}' > /dev/null; echo slept",
                g = gate.display()
            ))
            .await;
        assert!(
            matches!(
                r.wait_reason,
                WaitReason::Timeout | WaitReason::InferredIdle
            ),
            "{r:?}"
        );
        // Held for the idle window first (the program may be starting up).
        sh.send_within(&format!("echo {a}"), false, 10_000).await;
        let err = sh
            .try_send(&format!("{b} | wc -c"), true)
            .await
            .unwrap_err();
        assert!(err.message().contains("4095-byte line limit"), "{err}");
        // Ended with a short tail instead: the whole command runs once the prompt is back.
        let r = sh.send_within(" | wc -c", true, 10_000).await;
        std::fs::write(&gate, "go").unwrap();
        crate::support::wait_until("the typed-ahead command ran", || {
            sh.session.transcript().contains("\n3001\n")
        })
        .await;
        drop(r);
        let _ = std::fs::remove_file(&gate);
        // At the prompt readline reads raw: pieces of any total length make one command.
        let r = sh.send("echo ok").await;
        assert!(r.viewport.lines().any(|l| l == "ok"), "{r:?}");
        sh.send_raw(&format!("v={a}"), false).await;
        let r = sh.send(&format!("{b}; echo \"len=${{#v}}\"")).await;
        assert!(r.viewport.lines().any(|l| l == "len=6000"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Field cases C26 and C27 with other programs of the same kinds: a REPL that reads raw
/// (readline) takes a long line whole while `cat` (canonical) refuses it by name; an
/// interrupt reaches a REPL the way its Ctrl-C would, and the REPL stays usable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_lines_and_interrupts_reach_other_programs_as_a_terminal_would() {
    within(async {
        let long = "y".repeat(5000);
        let sh = Shell::open(config()).await;
        let r = sh.send("cat").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let err = sh.try_send(&long, true).await.unwrap_err();
        assert!(err.message().contains("4095-byte line limit"), "{err}");
        let r = sh.send_raw("\u{4}", false).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let mut pythons = vec!["python3".to_owned()];
        pythons.extend(python313());
        for py in pythons {
            let r = sh.send(&format!("{py} -q")).await;
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            let r = sh.send(&format!("len('{long}')")).await;
            assert!(r.viewport.lines().any(|l| l == "5000"), "{py}: {r:?}");
            let r = sh
                .session
                .start_send(dsh_terminal_core::SendRequest {
                    text: "import time; time.sleep(30)".to_owned(),
                    submit: true,
                    timeout: Some(std::time::Duration::from_millis(1500)),
                })
                .unwrap_or_else(|e| panic!("{py}: {e}"))
                .done()
                .await
                .unwrap_or_else(|e| panic!("{py}: {e}"));
            assert_eq!(r.wait_reason, WaitReason::Timeout, "{py}: {r:?}");
            sh.session
                .signal(TerminalSignal::Sigint)
                .unwrap_or_else(|e| panic!("{py}: {e}"));
            let r = sh.send("print(6 * 7)").await;
            assert!(r.viewport.contains("KeyboardInterrupt"), "{py}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "42"), "{py}: {r:?}");
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}
