//! A prompt exactly as wide as the terminal's row (`dsh> ` at 5 columns, a user's `PS1` as
//! long as the row): readline writes a space and a carriage return after it to wrap the cursor
//! to the next row, which is no text typed at the prompt. Each command's prompt is found, with
//! its exit status, at every width.

use dsh_terminal_bash::BashConfig;
use dsh_terminal_core::WaitReason;
use pretty_assertions::assert_eq;

use crate::support::{Shell, config, within};

/// `false` at a prompt `prompt` (the default when `None`) on a terminal `cols` wide: its
/// status is told, and no notice says the prompt marks are gone.
async fn false_is_told(cols: u16, prompt: Option<String>) {
    let sh = Shell::open(BashConfig { cols, ..config() }).await;
    if let Some(prompt) = &prompt {
        let r = sh.send(&format!("PS1='{prompt}'")).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{cols}: {r:?}");
    }
    for _ in 0..2 {
        let r = sh.send("false").await;
        assert_eq!(
            (r.wait_reason, r.exit_code),
            (WaitReason::StdinRead, Some(1)),
            "{cols} {prompt:?}: {r:?}"
        );
        assert!(
            r.notices
                .iter()
                .all(|n| !n.contains("prompt marks are gone")),
            "{cols}: {:?}",
            r.notices
        );
    }
    sh.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_as_wide_as_the_row_is_found() {
    within(async {
        // `dsh> ` fills a row of 5 exactly; 4 and 6 wrap it or not; at 1 every character
        // fills a row.
        for cols in [1, 4, 5, 6] {
            false_is_told(cols, None).await;
        }
        false_is_told(40, Some(format!("{}> ", "y".repeat(38)))).await;
        false_is_told(80, Some(format!("{}> ", "x".repeat(78)))).await;
    })
    .await;
}
