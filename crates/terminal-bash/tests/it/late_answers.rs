//! A send meant for a reader the last result left waiting, which ended by itself since (a
//! `read -t` or `timeout` that ran out, a REPL that died): the shell's prompt is back, and the
//! text is refused once rather than run as a command (a password would be echoed and kept in
//! the shell's history). Sent again, or after a poll that shows the prompt, it goes to the
//! shell.

use dsh_terminal_core::{TerminalErrorCode, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, config, newest_lines, wait_until, within};

/// Waits until the newest screen line is our prompt again after a line holding `after`.
async fn until_prompt_after(sh: &Shell, after: &str) {
    wait_until(&format!("the prompt after {after:?}"), || {
        let text = newest_lines(sh, 4).text;
        let lines: Vec<&str> = text.lines().collect();
        lines.len() >= 2
            && lines[lines.len() - 1].trim_end() == "dsh>"
            && lines[lines.len() - 2].contains(after)
    })
    .await;
}

/// A password prompt that timed out: the late answer is refused, naming the prompt, and
/// never reaches the shell; the same text sent again is the shell's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_answer_to_a_reader_that_timed_out_is_refused_once() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("read -t 1 -s -p 'Password: ' pw; echo; echo \"got=${#pw}\"")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        until_prompt_after(&sh, "got=0").await;
        let err = sh.try_send("hunter2", true).await.unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::InvalidRequest, "{err}");
        assert!(err.message().contains("(at `Password:`)"), "{err}");
        // Nothing was typed: the shell's next command line is the next send's alone.
        let r = sh.send("echo \"last=[$(fc -ln -1)]\"").await;
        assert!(!r.viewport.contains("hunter2"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // The guard was used up by the refused send: nothing else is refused.
        let r = sh.send("read -t 1 -p 'Name: ' n; echo \"n=[$n]\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        until_prompt_after(&sh, "n=[]").await;
        assert!(sh.try_send("bob", true).await.is_err());
        let r = sh.send("echo again").await;
        assert!(r.viewport.lines().any(|l| l == "again"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A poll after the reader ended shows the prompt back, and the text after it goes to the
/// shell; an answer in time still reaches its reader.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_that_shows_the_prompt_back_lets_the_next_text_through() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("timeout 1 cat; echo \"cat=$?\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        until_prompt_after(&sh, "cat=124").await;
        let r = sh.send_raw("", false).await;
        assert!(r.viewport.contains("cat=124"), "{r:?}");
        let r = sh.send("echo through").await;
        assert!(r.viewport.lines().any(|l| l == "through"), "{r:?}");
        let r = sh.send("read -p 'Name: ' n; echo \"n=[$n]\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("bob").await;
        assert!(r.viewport.lines().any(|l| l == "n=[bob]"), "{r:?}");
        sh.close().await;
    })
    .await;
}
