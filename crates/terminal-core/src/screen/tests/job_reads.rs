//! Consuming reads of a line the program went back into: its text after the cursor is
//! handed out once, and a write over it gives the row whole; of lines the cursor moved up
//! over.

use pretty_assertions::assert_eq;

use super::job_window::JobWindow;

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
        let text = JobWindow::read_each(pieces, 6, 20);
        assert_eq!(text, want, "{pieces:?}");
    }
}

/// Consuming reads of a line longer than the screen is wide that the program went back up
/// into (`\e[A` from its last row onto the one above, then text): the line is given whole, as
/// it reads now, its rows before the cursor's too; the read after that does not give its last
/// row again. What the program writes next on that row (after a line end from the row above,
/// the cursor lands on it) joins the line, over the row's text, as the screen shows it.
#[test]
fn reads_of_a_wrapped_line_the_cursor_went_up_into_keep_its_first_rows() {
    let long = "0".repeat(25);
    let edited = format!("{}UP{}", &long[..5], &long[7..20]);
    for pieces in [
        &[&long[..], "", "\x1b[AUP", "", "\r\n", "", "next\r\n"][..],
        &[&long[..], "\x1b[AUP", "\r\n", "next\r\n"],
        &[&long[..], "\x1b[AUP", "\r\nnext\r\n"],
    ] {
        let text = JobWindow::read_each(pieces, 6, 20);
        assert_eq!(text, format!("{edited}next0\n"), "{pieces:?}");
    }
}

/// Consuming reads of output that moved the cursor up over lines it printed and rewrote the
/// top one: every line stays, the rows below the cursor too.
#[test]
fn reads_after_the_cursor_moved_up_over_printed_lines_keep_the_lines_below() {
    for (pieces, want) in [
        (
            &[
                "l1\r\nl2\r\nl3\r\nl4\r\nl5\r\nl6\r\n\x1b[6A",
                "X\r\n",
                "",
                "more\r\n",
            ][..],
            "X1\nmore\nl3\nl4\nl5\nl6",
        ),
        (
            &["alpha\r\nbravo\r\ncharlie\r\n\x1b[2A", "B\r\n", ""],
            "alpha\nBravo\ncharlie",
        ),
    ] {
        let text = JobWindow::read_each(pieces, 12, 20);
        assert_eq!(text, want, "{pieces:?}");
    }
}
