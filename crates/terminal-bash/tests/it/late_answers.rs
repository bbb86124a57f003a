//! A send meant for a reader the last result left waiting, which ended by itself since (a
//! `read -t` or `timeout` that ran out, a REPL that died): the shell's prompt is back, and the
//! text is refused once rather than run as a command (a password would be echoed and kept in
//! the shell's history). Sent again, or after a poll or a read of the newest lines that
//! shows the prompt, it goes to the shell.

use dsh_terminal_core::{BackendSession, TerminalErrorCode, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, config, newest_lines, wait_until, within};

/// Waits until our shell draws a prompt after the `drawn` it had drawn (without a read of
/// the screen, which would show the prompt back).
async fn until_prompt_after(sh: &Shell, drawn: u64) {
    wait_until("the shell's next prompt", || {
        sh.session.prompts_drawn().is_some_and(|now| now > drawn)
    })
    .await;
}

/// Prompts our shell has drawn so far.
fn drawn(sh: &Shell) -> u64 {
    sh.session
        .prompts_drawn()
        .expect("a shell session counts its prompts")
}

/// A password prompt that timed out: the late answer is refused, naming the prompt, and
/// never reaches the shell; the same text sent again is the shell's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_answer_to_a_reader_that_timed_out_is_refused_once() {
    within(async {
        let sh = Shell::open(config()).await;
        let before = drawn(&sh);
        let r = sh
            .send("read -t 1 -s -p 'Password: ' pw; echo; echo \"got=${#pw}\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        until_prompt_after(&sh, before).await;
        let err = sh.try_send("hunter2", true).await.unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::InvalidRequest, "{err}");
        assert!(err.message().contains("(at `Password:`)"), "{err}");
        // Nothing was typed: the shell's next command line is the next send's alone.
        let r = sh.send("echo \"last=[$(fc -ln -1)]\"").await;
        assert!(!r.viewport.contains("hunter2"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // The guard was used up by the refused send: nothing else is refused.
        let before = drawn(&sh);
        let r = sh.send("read -t 1 -p 'Name: ' n; echo \"n=[$n]\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        until_prompt_after(&sh, before).await;
        assert!(sh.try_send("bob", true).await.is_err());
        let r = sh.send("echo again").await;
        assert!(r.viewport.lines().any(|l| l == "again"), "{r:?}");
        // A terminal_signal clears the guard, also one not sent (the prompt is back).
        let before = drawn(&sh);
        sh.send("read -t 1 -p 'Name: ' n; echo \"n=[$n]\"").await;
        until_prompt_after(&sh, before).await;
        let signal = sh
            .session
            .signal(dsh_terminal_core::TerminalSignal::Sigint)
            .unwrap();
        assert!(!signal.delivered, "{signal:?}");
        let r = sh.send("echo after-signal").await;
        assert!(r.viewport.lines().any(|l| l == "after-signal"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A poll, or a read of the newest lines, after the reader ended shows the prompt back, and
/// the text after it goes to the shell; an answer in time still reaches its reader.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_or_read_that_shows_the_prompt_back_lets_the_next_text_through() {
    within(async {
        let sh = Shell::open(config()).await;
        for look in ["poll", "read"] {
            let before = drawn(&sh);
            let r = sh.send("timeout 1 cat; echo \"cat=$?\"").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{look}: {r:?}");
            until_prompt_after(&sh, before).await;
            let shown = if look == "poll" {
                sh.send_raw("", false).await.viewport
            } else {
                newest_lines(&sh, 3).text
            };
            assert!(shown.contains("cat=124"), "{look}: {shown:?}");
            let r = sh.send("echo through").await;
            assert!(r.viewport.lines().any(|l| l == "through"), "{look}: {r:?}");
        }
        let r = sh.send("read -p 'Name: ' n; echo \"n=[$n]\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("bob").await;
        assert!(r.viewport.lines().any(|l| l == "n=[bob]"), "{r:?}");
        sh.close().await;
    })
    .await;
}
