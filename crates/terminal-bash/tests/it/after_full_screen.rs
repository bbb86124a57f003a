//! The result after a full-screen program gives the screen back: the exits an earlier result
//! (the one showing the program's screen) already reported are not reported again, and a line
//! its caller erased on its own row once the screen was back (git's editor hint) is not said
//! to be lost.

use std::process::Command;

use dsh_terminal_core::{BackendSession, InputMode, TerminalSignal};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, earlier, installed, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_result_after_a_full_screen_program_reports_nothing_twice() {
    if !installed("vim") {
        eprintln!("vim is not installed (.ci/run installs it): not exercised");
        return;
    }
    let dir = TempDir::new("after-full-screen");
    let init = Command::new("git")
        .args(["init", "-q"])
        .arg(&dir.0)
        .status()
        .unwrap();
    assert!(init.success());
    within(async {
        let sh = Shell::open(config()).await;
        // A command interrupted after its result: its 130 comes with the next result (vim's
        // screen), and not again with the one after vim.
        let r = sh.send_within("sleep 30", true, 800).await;
        assert_eq!(r.exit_code, None, "{r:?}");
        assert!(sh.session.signal(TerminalSignal::Sigint).unwrap().delivered);
        let r = sh
            .send(&format!("vim -u NONE '{}'", dir.0.join("f.txt").display()))
            .await;
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        assert_eq!(earlier(&r), vec![130], "{r:?}");
        let r = sh.send(":q").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(earlier(&r), Vec::<i32>::new(), "{r:?}");
        // git's hint while its editor runs, erased once the editor is gone.
        let r = sh
            .send(&format!(
                "cd '{}' && GIT_EDITOR='vim -u NONE' git -c user.name=t -c user.email=t@example.invalid commit -q --allow-empty",
                dir.0.display()
            ))
            .await;
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        sh.send_raw("imsg\u{1b}", false).await;
        let r = sh.send(":wq").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(
            r.notices.iter().all(|n| !n.contains("erased")),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}
