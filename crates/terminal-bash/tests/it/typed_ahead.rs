//! Text sent while a program reads nothing goes in typed ahead: the terminal echoes it at once,
//! and whatever reads the terminal next takes it. A result says so when that was not the
//! shell (a prompt of the same command line took a command meant for the shell, which then
//! never ran), and when a password prompt came after the echo (the secret shows, and the
//! prompt dropped it).

use dsh_terminal_core::WaitReason;

use crate::support::{Shell, config, within};

const TAKEN: &str = "[input: this text went in while sleep ran and read no input (typed ahead)";
const ECHOED: &str = "[input: this text went in while python3 ran and read no input (typed ahead), so the terminal echoed it above; the prompt with echo off";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_typed_ahead_that_a_prompt_took_or_the_terminal_echoed_is_said_to_be() {
    within(async {
        let sh = Shell::open(config()).await;
        let said = |r: &dsh_terminal_core::SendResult, text: &str| {
            r.notices.iter().any(|n| n.starts_with(text))
        };
        // A command typed ahead answers the `read` of the running line.
        let r = sh
            .send_within("sleep 1; read -p 'Name: ' n; echo \"n=$n\"", true, 100)
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send("echo next-command").await;
        assert!(r.viewport.contains("n=echo next-command"), "{r:?}");
        assert!(said(&r, TAKEN), "{r:?}");
        // Typed ahead and run by the shell once the line ended: nothing to say.
        sh.send_within("sleep 1", true, 100).await;
        let r = sh.send("echo ran-after").await;
        assert!(r.viewport.contains("\nran-after\n"), "{r:?}");
        assert!(!said(&r, TAKEN), "{r:?}");
        // A password typed ahead of a prompt that drops it.
        let r = sh
            .send_within(
                "python3 -c \"import getpass, time; time.sleep(1); print('len', len(getpass.getpass('Password: ')))\"",
                true,
                100,
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let r = sh.send("early-secret").await;
        assert!(said(&r, ECHOED), "{r:?}");
        let r = sh.send("the-secret").await;
        assert!(r.viewport.contains("len 10"), "{r:?}");
        assert!(!said(&r, ECHOED), "{r:?}");
        sh.close().await;
    })
    .await;
}
