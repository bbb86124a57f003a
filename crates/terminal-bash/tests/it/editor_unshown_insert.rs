//! vim that does not show its mode (`noshowmode`: status-line plugins set it, and `-u NONE`'s
//! vi defaults): after keys that began an insert (`i` sent without Enter, as the refusal in
//! its normal mode advises), text sent with Enter is the file's, until an ESC ends the insert.

use dsh_terminal_core::InputMode;
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, installed, within};

/// A shell command sent with Enter to vim in its normal mode is refused; once `i` (or `o`) was
/// sent without Enter, lines of text, a command line among them, go into the file, also in
/// the sends after it; after the ESC that ends the insert a command is refused again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_goes_to_a_vim_that_shows_no_insert_mode_after_the_key_that_began_it() {
    if !installed("vim") {
        eprintln!("vim is not installed (.ci/run installs it): noshowmode not exercised");
        return;
    }
    // Removed on drop, also when the test fails.
    let temp = TempDir::new("vim-noshowmode");
    let file = temp.0.join("notes.txt");
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(&format!(
                "vim --clean -i NONE -c 'set noshowmode' '{}'",
                file.display()
            ))
            .await;
        assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        refused(&sh, "git status").await;
        // Keys that keep the normal mode (a motion) change nothing.
        sh.send_raw("j", false).await;
        refused(&sh, "make test").await;
        let r = sh.send_raw("i", false).await;
        assert!(!r.viewport.contains("-- INSERT"), "{r:?}");
        for text in ["first line\nsecond line", "make test"] {
            let r = sh.try_send(text, true).await;
            let r = r.unwrap_or_else(|e| panic!("{text:?} refused after i: {e}"));
            assert_eq!(r.input_mode, InputMode::AlternateScreen, "{r:?}");
        }
        sh.send_raw("\u{1b}", false).await;
        refused(&sh, "ls -la").await;
        refused(&sh, "Initial commit").await;
        sh.send_raw("o", false).await;
        if let Err(e) = sh.try_send("Initial commit", true).await {
            panic!("words refused after o: {e}");
        }
        let r = sh.send("\u{1b}:wq").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let saved = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = saved.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(
            lines,
            ["first line", "second line", "make test", "Initial commit"],
            "{saved:?}"
        );
        sh.close().await;
    })
    .await;
}

/// Sends `text` with Enter and checks that the guard of vim's normal mode refused it.
async fn refused(sh: &Shell, text: &str) {
    let e = sh.try_send(text, true).await.expect_err("refused");
    assert!(
        e.message().starts_with("vim holds the terminal"),
        "{text}: {e}"
    );
}
