//! Display modes a command sets that change what the screen keeps of its output: with
//! auto-wrap off, a line wider than the terminal is cut at its right edge, as a terminal shows
//! it, and the result says so (it was cut silently); the prompt turns auto-wrap on again. Text
//! printed in the DEC line-drawing set shows as box parts, and the result quotes it as printed.

use crate::support::{Shell, config, within};

const CUT_NOTICE: &str = "[screen: the program turned auto-wrap off";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_cut_at_the_right_edge_with_auto_wrap_off_is_said_to_be() {
    within(async {
        let sh = Shell::open(config()).await;
        let wide = usize::from(config().cols) + 40;
        let r = sh
            .send(&format!(
                "printf '\\033[?7l'; printf 'q%.0s' $(seq 1 {wide}); echo END"
            ))
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // The last column shows the last character printed, as on a terminal.
        let cut = format!("{}D", "q".repeat(usize::from(config().cols) - 1));
        assert!(r.viewport.lines().any(|l| l == cut), "{r:?}");
        assert!(r.notices.iter().any(|n| n.starts_with(CUT_NOTICE)), "{r:?}");
        // Auto-wrap is on again at the prompt: the same line wraps whole, unsaid.
        let r = sh
            .send(&format!("printf 'w%.0s' $(seq 1 {wide}); echo END"))
            .await;
        assert!(r.viewport.contains("wEND"), "{r:?}");
        assert!(
            r.notices.iter().all(|n| !n.starts_with(CUT_NOTICE)),
            "{r:?}"
        );
        // Auto-wrap off with lines that fit: nothing is cut, nothing said.
        let r = sh.send("printf '\\033[?7l'; echo short").await;
        assert!(
            r.notices.iter().all(|n| !n.starts_with(CUT_NOTICE)),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// Text printed while the DEC line-drawing set is designated (`ESC ( 0` left on) shows as box
/// parts, as on a terminal, and the result quotes it as printed; boxes drawn in the set and
/// left with `ESC ( B` are no text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_printed_in_the_line_drawing_set_is_quoted_as_printed() {
    const DRAWN: &str = "[screen: the output switched the terminal to its line-drawing";
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("printf '\\033(0'; echo 'error: disk quota exceeded'")
            .await;
        assert!(!r.viewport.contains("\nerror: disk"), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with(DRAWN) && n.contains("\"error: disk quota exceeded\"")),
            "{r:?}"
        );
        // The prompt designated ASCII again; a box drawn in the set is no text.
        let r = sh
            .send("printf '\\033(0lqqk\\nx  x\\nmqqj\\033(B\\n'; echo plain")
            .await;
        assert!(r.viewport.contains("┌──┐\n│  │\n└──┘\nplain\n"), "{r:?}");
        assert!(r.notices.iter().all(|n| !n.starts_with(DRAWN)), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Invisible characters a command printed (a byte-order mark before a script's `#!`, a
/// zero-width space): the screen shows nothing for them, one at a line's start is not in the
/// text at all, and the result says the output holds them; plain output says nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invisible_characters_in_the_output_are_said_to_be_there() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("printf '\\357\\273\\277#!/bin/bash\\na\\342\\200\\213b\\n'")
            .await;
        assert!(r.viewport.lines().any(|l| l == "#!/bin/bash"), "{r:?}");
        assert!(
            r.notices.iter().any(|n| n.starts_with(
                "[screen: the output holds 2 invisible characters (the first a byte-order mark, U+FEFF)"
            )),
            "{r:?}"
        );
        let r = sh.send("echo plain").await;
        assert!(r.notices.is_empty(), "{r:?}");
        sh.close().await;
    })
    .await;
}
