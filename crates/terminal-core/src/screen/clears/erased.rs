//! [`Erased`]: the rows of text a running command erased or wrote over before a result
//! showed them, and which of them a result names.

use super::frames::{line_shape, transient_row};

/// Longest erased row text kept, in bytes (cut between characters).
const ERASED_ROW_MAX_BYTES: usize = 200;

/// Most distinct erased texts kept between takes (the rows past them are counted only).
const ERASED_TEXTS_MAX: usize = 32;

/// Text a running command erased from the middle of the main screen since the last take: a
/// whole row (`ESC [ 2 K`), a row up to the cursor (`ESC [ 1 K`) or from it (`ESC [ K`) once
/// the cursor left the row it last printed on (not a progress line redrawn in place), the
/// rows from the cursor down (`ESC [ J`), or a row written over, deleted or pushed off the
/// screen; only while a command runs (not the shell's line editor's redraws), and only rows
/// no earlier result showed.
#[derive(Debug, Default)]
pub(crate) struct Erased {
    /// Rows with text erased.
    rows: u64,
    /// Each distinct text erased (trimmed, cut at [`ERASED_ROW_MAX_BYTES`]) in the order first
    /// erased, with how many rows had it; at most [`ERASED_TEXTS_MAX`].
    texts: Vec<(String, u64)>,
}

impl Erased {
    pub(super) fn note(&mut self, text: &str) {
        self.rows += 1;
        let text = dsh_output_retention::head_slice(text, ERASED_ROW_MAX_BYTES);
        if let Some(seen) = self.texts.iter_mut().find(|(t, _)| t == text) {
            seen.1 += 1;
        } else if self.texts.len() < ERASED_TEXTS_MAX {
            self.texts.push((text.to_owned(), 1));
        }
    }

    /// What was lost, leaving out the frames of transient displays: the rows still missing
    /// (those past [`ERASED_TEXTS_MAX`] texts included) with the first and the last of their
    /// texts; `None` when nothing is left. A text is a frame when it reads as one by itself
    /// (`frames::transient_row`: a spinner, a progress figure), when it was erased more than
    /// once or its shape was (a display redrawn frame by frame), or when a line of `rendered`
    /// (the result's text) begins with it or has its shape (redrawn with newer figures).
    pub(crate) fn not_redrawn(&self, rendered: &str) -> Option<(u64, String, String)> {
        let shapes: Vec<String> = self.texts.iter().map(|(t, _)| line_shape(t)).collect();
        let shown: Vec<(&str, String)> = rendered
            .lines()
            .map(|line| (line.trim(), line_shape(line)))
            .collect();
        let lost: Vec<&(String, u64)> = self
            .texts
            .iter()
            .zip(&shapes)
            .filter(|&((text, n), shape)| {
                *n == 1
                    && !transient_row(text)
                    && shapes.iter().filter(|s| *s == shape).count() == 1
                    && !shown
                        .iter()
                        .any(|(line, s)| line.starts_with(text.as_str()) || s == shape)
            })
            .map(|(entry, _)| entry)
            .collect();
        let (first, last) = (lost.first()?, lost.last()?);
        let kept: u64 = self.texts.iter().map(|(_, n)| n).sum();
        let rows = lost.len() as u64 + self.rows.saturating_sub(kept);
        Some((rows, first.0.clone(), last.0.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_texts_a_redraw_put_back_are_left_out_and_the_first_lost_is_named() {
        let mut erased = Erased::default();
        for text in [
            "FAIL: test_a",
            "layer 1: 10%",
            "42",
            "| retrying",
            "/ retrying",
            "RUNS src/x.test.js",
            "RUNS src/x.test.js",
            "Step 3/10: ERROR linking",
            "⠋ Working",
        ] {
            erased.note(text);
        }
        let rendered = "layer 1: 100%\n- retrying\nStep 4/10: compiling\nok";
        assert_eq!(
            erased.not_redrawn(rendered),
            Some((
                2,
                "FAIL: test_a".to_owned(),
                "Step 3/10: ERROR linking".to_owned()
            ))
        );
        assert_eq!(
            erased.not_redrawn("FAIL: test_a\nStep 3/10: ERROR linking now"),
            None
        );
    }
}
