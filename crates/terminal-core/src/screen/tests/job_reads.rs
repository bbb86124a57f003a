//! Consuming reads of a line the program went back into: its text after the cursor is
//! handed out once, and a write over it gives the row whole.

use pretty_assertions::assert_eq;

use super::job_window::JobWindow;
use super::*;

/// Consuming reads while the program went back into its line and paused (`\r`, backspaces, a
/// cursor move left, each read shown to the agent): the text after the cursor is handed out
/// once (every read repeated it: `Doneing...ing...ing...`), and text then written over the
/// row's start gives the row whole, as it is (not the new text alone).
#[test]
fn reads_of_a_line_the_cursor_went_back_into_hand_its_text_out_once() {
    for (pieces, want) in [
        (
            &["Loading...", "\rDone", "", "", "\r\n"][..],
            "Doneing...\n",
        ),
        (&["abcdef\x08\x08", "", "", "X\r\n"], "abcdXf\n"),
        (&["hello", "\x1b[2D", "", "Z\r\n"], "helZo\n"),
        (&["abcdef\r", "", "XY", "", "\r\n"], "XYcdef\n"),
        (&["[    ]\r[", "#", "", "#", "#", "#", "\r\n"], "[####]\n"),
        (&["aaaa", "\rbb", "", "\rc", "\r\n"], "cbaa\n"),
    ] {
        let mut s = Screen::new(config(6, 20), None);
        let a = s.anchor();
        let mut w = JobWindow::default();
        for piece in pieces {
            s.feed(piece.as_bytes());
            w.read(&mut s, a);
            s.raise_erased_floor();
        }
        assert_eq!(w.text(), want, "{pieces:?}");
    }
}
