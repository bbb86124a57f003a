//! [`Erased`]: the rows of text a running command erased or wrote over before a result
//! showed them, and which of them a result names.

use std::collections::HashMap;

use super::frames::{line_shape, reads_as_a_problem, same_display, transient_row};

/// Longest erased row text kept, in bytes (cut between characters).
const ERASED_ROW_MAX_BYTES: usize = 200;

/// Most distinct erased texts kept between takes (the rows past them are counted only).
const ERASED_TEXTS_MAX: usize = 32;

/// Most rows whose erases are counted between takes.
const ROWS_COUNTED_MAX: usize = 256;

/// Text a running command erased from the middle of the main screen since the last take: a
/// whole row (`ESC [ 2 K`), a row up to the cursor (`ESC [ 1 K`) or from it (`ESC [ K`) once
/// the cursor left the row it last printed on (not a progress line redrawn in place), the
/// rows from the cursor down (`ESC [ J`), or a row written over, deleted or pushed off the
/// screen; only while a command runs (not the shell's line editor's redraws), and only rows
/// no earlier result showed. A REPL's line editor runs as the command: its redraws of the
/// input line are told apart when the result is made (see [`Erased::not_redrawn`]).
#[derive(Debug, Default)]
pub(crate) struct Erased {
    /// Rows with text erased.
    rows: u64,
    /// Each distinct text erased (trimmed, cut at [`ERASED_ROW_MAX_BYTES`]) in the order first
    /// erased, with how many rows had it, the (absolute) row it was first erased from and,
    /// when the erase took only the row's end (from the cursor, with a prompt or other text
    /// before it), the row's whole text then (trimmed, cut alike); at most
    /// [`ERASED_TEXTS_MAX`].
    texts: Vec<(String, u64, u64, Option<String>)>,
    /// How many times each row had text erased (at most [`ROWS_COUNTED_MAX`] rows).
    erases_by_row: HashMap<u64, u32>,
    /// Texts erased from rows an earlier result showed (at most [`ERASED_TEXTS_MAX`]): not
    /// lost, and the same text erased again from a row no result showed is a frame of the
    /// same display (a status line redrawn below the line that took its place), which the
    /// reader saw already.
    shown_texts: Vec<String>,
}

impl Erased {
    /// Notes `text` erased from absolute row `row`; `line` is the row's whole text when the
    /// erase took only its end (see `texts`).
    pub(super) fn note(&mut self, row: u64, text: &str, line: Option<&str>) {
        self.rows += 1;
        if let Some(n) = self.erases_by_row.get_mut(&row) {
            *n += 1;
        } else if self.erases_by_row.len() < ROWS_COUNTED_MAX {
            self.erases_by_row.insert(row, 1);
        }
        let text = dsh_output_retention::head_slice(text, ERASED_ROW_MAX_BYTES);
        if let Some(seen) = self.texts.iter_mut().find(|(t, ..)| t == text) {
            seen.1 += 1;
        } else if self.texts.len() < ERASED_TEXTS_MAX {
            let line =
                line.map(|l| dsh_output_retention::head_slice(l, ERASED_ROW_MAX_BYTES).to_owned());
            self.texts.push((text.to_owned(), 1, row, line));
        }
    }

    /// Notes `text` erased from a row an earlier result showed (see `shown_texts`).
    pub(super) fn note_shown(&mut self, text: &str) {
        let text = dsh_output_retention::head_slice(text, ERASED_ROW_MAX_BYTES);
        if self.shown_texts.len() < ERASED_TEXTS_MAX && !self.shown_texts.iter().any(|t| t == text)
        {
            self.shown_texts.push(text.to_owned());
        }
    }

    /// What was lost, leaving out the frames of transient displays: the rows still missing
    /// (those past [`ERASED_TEXTS_MAX`] texts included) with the first and the last of their
    /// texts; `None` when nothing is left. A text is a frame when it reads as one by itself
    /// (`frames::transient_row`: a spinner, a progress figure), when it was erased more than
    /// once or its shape was (a display redrawn frame by frame), when a line of `rendered` (the result's text) begins with it or has its shape
    /// (redrawn with newer figures), or when its row was erased again or another text erased
    /// starts with the same word, and it does not read as a problem (a status block's rows:
    /// the files under test, a layer's state; an error under a spinner still counts). Shapes
    /// too short to tell a display by (`D1`, `ERR3`) make no frames (see
    /// `frames::same_display`). Nor is a text lost whose row, as it read before the erase,
    /// begins a line of `rendered`: a line editor's redraw of its input line (JLine erases a
    /// closing brace after the continuation prompt, `   ...>     }`, and writes it back
    /// re-indented, `   ...> }`). Lines are compared with spacing aside (see [`spaced`]).
    pub(crate) fn not_redrawn(&self, rendered: &str) -> Option<ErasedLines> {
        let shapes: Vec<String> = self.texts.iter().map(|(t, ..)| line_shape(t)).collect();
        let shown: Vec<(String, String)> = rendered
            .lines()
            .map(|line| (spaced(line), line_shape(line)))
            .collect();
        let lost: Vec<&(String, u64, u64, Option<String>)> = self
            .texts
            .iter()
            .zip(&shapes)
            .filter(|&((text, n, row, line), shape)| {
                let redrawn_row = self.erases_by_row.get(row).is_some_and(|&e| e > 1);
                let first_word = text.split_whitespace().next();
                let kin = self
                    .texts
                    .iter()
                    .filter(|(t, ..)| t.split_whitespace().next() == first_word)
                    .count()
                    > 1;
                let problem = reads_as_a_problem(text);
                let shown_before = self.shown_texts.iter().any(|t| t == text);
                *n == 1
                    && !shown_before
                    && (!(transient_row(text) || redrawn_row || kin) || problem)
                    && shapes.iter().filter(|s| same_display(s, shape)).count() <= 1
                    && !begins_a_line(&shown, text)
                    && !line.as_deref().is_some_and(|l| begins_a_line(&shown, l))
                    && !shown.iter().any(|(_, s)| same_display(s, shape))
            })
            .map(|(entry, _)| entry)
            .collect();
        let (first, last) = (lost.first()?, lost.last()?);
        let kept: u64 = self.texts.iter().map(|(_, n, ..)| n).sum();
        let problem = lost
            .iter()
            .skip(1)
            .take(lost.len().saturating_sub(2))
            .find(|(t, ..)| !reads_as_a_problem(&first.0) && reads_as_a_problem(t))
            .map(|(t, ..)| t.clone());
        let rows = lost.len() as u64 + self.rows.saturating_sub(kept);
        Some(ErasedLines {
            rows,
            frames: self.rows.saturating_sub(rows),
            first: first.0.clone(),
            last: last.0.clone(),
            problem,
        })
    }
}

/// `text` with its ends trimmed and each run of whitespace made one space: a line editor
/// redrawing its input line may change the indent (JLine re-indents a closing brace) or the
/// padding after its prompt, and the line loses nothing by that.
fn spaced(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether a line of `shown` (a result's lines, [`spaced`], with their shapes) begins with
/// `text`, spacing aside: the text was redrawn with the same words or more.
fn begins_a_line(shown: &[(String, String)], text: &str) -> bool {
    let text = spaced(text);
    shown
        .iter()
        .any(|(line, _)| line.starts_with(text.as_str()))
}

/// The lines a result says were lost (see [`Erased::not_redrawn`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ErasedLines {
    /// How many rows.
    pub(crate) rows: u64,
    /// How many other rows erased were left out as a transient display's frames.
    pub(crate) frames: u64,
    /// The text of the first and the last.
    pub(crate) first: String,
    pub(crate) last: String,
    /// A line between them that reads as a problem (an error, a failure), when the first does
    /// not.
    pub(crate) problem: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_texts_a_redraw_put_back_are_left_out_and_the_first_lost_is_named() {
        let mut erased = Erased::default();
        for (row, text) in [
            (1, "FAIL: test_a"),
            (2, "layer 1: 10%"),
            (3, "42"),
            (4, "| retrying"),
            (4, "/ retrying"),
            (5, "RUNS src/x.test.js"),
            (5, "RUNS src/x.test.js"),
            (6, "Step 3/10: ERROR linking"),
            (7, "⠋ Working"),
            // A status block's rows, each erased at every frame, or once each as the block
            // moves down.
            (8, "Compiling src/a.cc"),
            (8, "Compiling src/b.cc"),
            (10, "RUNS src/a.test.js"),
            (11, "RUNS src/b.test.js"),
            // An error under a spinner that redraws its row.
            (9, "ERROR: connection refused"),
            (9, "⠙ retrying"),
        ] {
            erased.note(row, text, None);
        }
        let rendered = "layer 1: 100%\n- retrying\nStep 4/10: compiling\nok";
        let lines = |rows, frames, first: &str, last: &str, problem: Option<&str>| ErasedLines {
            rows,
            frames,
            first: first.to_owned(),
            last: last.to_owned(),
            problem: problem.map(str::to_owned),
        };
        assert_eq!(
            erased.not_redrawn(rendered),
            Some(lines(
                3,
                12,
                "FAIL: test_a",
                "ERROR: connection refused",
                None
            ))
        );
        assert_eq!(
            erased.not_redrawn(
                "FAIL: test_a\nStep 3/10: ERROR linking now\nERROR: connection refused"
            ),
            None
        );
        // A problem between lines that report none is named too.
        let mut erased = Erased::default();
        for (row, text) in [(1, "test_a ok"), (2, "test_b FAILED"), (3, "test_c ok")] {
            erased.note(row, text, None);
        }
        assert_eq!(
            erased.not_redrawn("2 passed"),
            Some(lines(3, 0, "test_a ok", "test_c ok", Some("test_b FAILED")))
        );
    }

    /// Short lines a number tells apart (`D1`, `ERR3`) are lines of their own, not frames of
    /// one display: erased, they are named even when a line of their shape is shown or was
    /// erased with them.
    #[test]
    fn short_numbered_lines_and_problems_of_one_shape_are_no_frames() {
        let named = |notes: &[(u64, &str)], rendered: &str| {
            let mut erased = Erased::default();
            for &(row, text) in notes {
                erased.note(row, text, None);
            }
            erased
                .not_redrawn(rendered)
                .map(|l| (l.rows, l.first, l.last))
        };
        assert_eq!(
            named(&[(1, "D1")], "D2"),
            Some((1, "D1".to_owned(), "D1".to_owned()))
        );
        assert_eq!(
            named(&[(1, "ERR1"), (2, "ERR2"), (3, "ERR3")], "G4"),
            Some((3, "ERR1".to_owned(), "ERR3".to_owned()))
        );
        // A display's rows, long enough to tell, stay frames.
        assert_eq!(
            named(&[(1, "Fetching index 3 of 9")], "Fetching index 9 of 9"),
            None
        );
    }
}
