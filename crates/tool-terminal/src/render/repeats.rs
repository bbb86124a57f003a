//! Runs of one line repeated (a `yes` flood, a loop printing the same line): a result shows
//! the line once and a marker with how many times it repeats, so a flood's tail does not fill
//! the model's context with copies. Send results and background acknowledgements fold;
//! `terminal_read` pages, job reads and the structured results keep every line.

use std::borrow::Cow;

/// Fewest copies of a line in a row that are folded.
const FOLD_MIN_LINES: usize = 5;

/// The marker standing for `more` further copies of the line above it.
pub(crate) fn repeat_marker(more: usize) -> String {
    format!("[… the line above repeats {more} more times]")
}

/// `text` with each run of at least [`FOLD_MIN_LINES`] identical lines that are not blank
/// shown as the line once and [`repeat_marker`], where that is shorter; unchanged (borrowed)
/// when no run folds.
pub(crate) fn fold_repeats(text: &str) -> Cow<'_, str> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut pieces: Vec<Cow<'_, str>> = Vec::with_capacity(lines.len());
    let mut folded = false;
    let mut at = 0;
    while at < lines.len() {
        let line = lines[at];
        let run = lines[at..].iter().take_while(|l| **l == line).count();
        let marker = repeat_marker(run - 1);
        if run >= FOLD_MIN_LINES
            && !line.trim().is_empty()
            && (run - 1) * (line.len() + 1) > marker.len() + 1
        {
            pieces.push(Cow::Borrowed(line));
            pieces.push(Cow::Owned(marker));
            folded = true;
        } else {
            pieces.extend(lines[at..at + run].iter().map(|l| Cow::Borrowed(*l)));
        }
        at += run;
    }
    if folded {
        Cow::Owned(pieces.join("\n"))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn long_runs_of_one_line_fold_and_nothing_else_changes() {
        let flood = format!(
            "dsh> yes spam\n{}^C\ndsh> echo ok\nok\ndsh> ",
            "spam\n".repeat(500)
        );
        assert_eq!(
            fold_repeats(&flood),
            "dsh> yes spam\nspam\n[… the line above repeats 499 more times]\n^C\ndsh> echo ok\nok\ndsh> "
        );
        // Short runs, blank lines and runs whose marker would be longer stay as they are.
        for text in [
            "y\ny\ny\ny\n",
            "\n\n\n\n\n\n\n\nx",
            "a\na\na\na\na\na\nb",
            "same\nsame\nother\nsame",
        ] {
            assert!(matches!(fold_repeats(text), Cow::Borrowed(_)), "{text:?}");
        }
        // A run at the end, without a newline after it, folds too.
        assert_eq!(
            fold_repeats(&format!("start\n{}", ["abcdefghij"; 20].join("\n"))),
            "start\nabcdefghij\n[… the line above repeats 19 more times]"
        );
        insta::assert_snapshot!("repeat_marker", repeat_marker(41));
    }
}
