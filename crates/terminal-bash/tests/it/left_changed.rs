//! A program that leaves the session changed: the terminal modes the session started with
//! come back at the prompt, or the result says what was left changed (field case C30).

use dsh_terminal_core::{InputMode, SendResult, WaitReason};

use crate::support::{Shell, config, within};

/// The viewport and the notices, as the model reads them.
fn shown(r: &SendResult) -> String {
    let mut text = r.viewport.clone();
    for notice in &r.notices {
        text.push('\n');
        text.push_str(notice);
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alternate_screen_left_on_is_given_back_at_the_prompt() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("echo old-1; echo old-2").await;
        let r = sh.send("printf '\\033[?1049h'; echo in-alt").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        insta::assert_snapshot!("alternate_screen_left_on", shown(&r));
        // Said once; the next results are plain main-screen results.
        let r = sh.send("echo at-prompt").await;
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        assert_eq!(r.viewport, "echo at-prompt\nat-prompt\ndsh> ", "{r:?}");
        // Leaving the alternate screen again replays no old lines as new.
        let r = sh.send("printf '\\033[?1049l'; echo after-leave").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.contains("after-leave"), "{r:?}");
        assert!(!r.viewport.contains("old-"), "{r:?}");
        assert!(!r.viewport.contains("at-prompt"), "{r:?}");
        sh.close().await;
    })
    .await;
}
