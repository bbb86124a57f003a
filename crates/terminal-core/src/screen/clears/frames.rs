//! Rows of transient displays: a progress bar, a spinner or a status block redrawn frame by
//! frame erases and rewrites its own rows all the time, and a result that said so for each
//! frame would send the model to run a build again for nothing. A row reads as such a frame
//! when it carries a progress figure or a spinner ([`transient_row`]), or when its
//! [`line_shape`] comes back (a later frame, or the row as the result shows it).

/// Whether `c` draws part of a progress bar or spinner: block elements, box drawing, braille
/// patterns and the ASCII characters bars are drawn with.
fn bar_char(c: char) -> bool {
    matches!(
        c,
        '\u{2500}'..='\u{259F}'
            | '\u{2800}'..='\u{28FF}'
            | '#'
            | '='
            | '>'
            | '<'
            | '-'
            | '*'
            | '.'
            | '|'
            | '/'
            | '\\'
            | '['
            | ']'
    )
}

/// A row's shape: its text without digits, whitespace and bar characters, so a progress
/// display's row redrawn with newer figures, a longer bar or the next spinner frame keeps its
/// shape while a line with other words does not (`Step 3/10: ERROR linking` and `Step 4/10:
/// compiling` differ). Empty for a row of figures alone.
pub(super) fn line_shape(text: &str) -> String {
    text.chars()
        .filter(|&c| !c.is_ascii_digit() && !c.is_whitespace() && !bar_char(c))
        .collect()
}

/// Fewest characters a shape needs to tell one display's rows by (see [`same_display`]): a
/// line of a letter or two and a number (`D1`, `ERR3`, `v2`) is as likely a line of its own
/// as a frame of a display.
const SHAPE_MIN_CHARS: usize = 4;

/// Whether rows of shapes `a` and `b` (see [`line_shape`]) read as frames of one display: the
/// same shape, long enough to tell (see [`SHAPE_MIN_CHARS`]).
pub(super) fn same_display(a: &str, b: &str) -> bool {
    a == b && a.chars().count() >= SHAPE_MIN_CHARS
}

/// Spinner frames a row may start with (then a space): braille patterns and quarter
/// circles. (An ASCII spinner's `|/-\` frames share a shape: see [`line_shape`].)
fn spinner_frame(c: char) -> bool {
    matches!(
        c,
        '\u{2800}'..='\u{28FF}' | '\u{25D0}'..='\u{25D3}' | '\u{25F4}'..='\u{25F7}'
    )
}

/// Shortest run of bar characters that reads as a drawn bar (`━━━`, `###`, `==>`).
const BAR_MIN_CHARS: usize = 3;

/// Whether `text` (a trimmed row) reads as a frame of a transient display by itself: it
/// starts with a spinner frame and a space, or carries a progress figure (a `%`, or a bar: a
/// run of block or box-drawing characters, or of `=#>-.*` between brackets), or has no
/// words at all.
pub(super) fn transient_row(text: &str) -> bool {
    let mut chars = text.chars();
    if let (Some(first), Some(' ')) = (chars.next(), chars.next())
        && spinner_frame(first)
    {
        return true;
    }
    if text.contains('%') || line_shape(text).is_empty() {
        return true;
    }
    let mut run = 0;
    let mut bracketed = None;
    for c in text.chars() {
        run = if matches!(c, '\u{2500}'..='\u{259F}') {
            run + 1
        } else {
            0
        };
        if run >= BAR_MIN_CHARS {
            return true;
        }
        bracketed = match (c, bracketed) {
            ('[', _) => Some(0),
            (']', Some(n)) if n >= BAR_MIN_CHARS => return true,
            ('=' | '#' | '>' | '-' | '.' | '*' | ' ', Some(n)) => Some(n + 1),
            _ => None,
        };
    }
    false
}

/// Words of a line that reports a problem (compared in lower case): such a line is named when
/// it was erased, even from a row redrawn since.
const PROBLEM_WORDS: &[&str] = &[
    "error",
    "fail",
    "fatal",
    "panic",
    "exception",
    "traceback",
    "denied",
    "refused",
    "warn",
    "cannot",
    "can't",
    "not found",
    "invalid",
    "abort",
    "killed",
    "segmentation",
    "timed out",
    "unable",
    "missing",
    "skipping",
    "skipped",
    "no such",
    "could not",
    "couldn't",
    "not installed",
    "unavailable",
    "unsupported",
    "conflict",
    "deprecated",
    "does not exist",
    "non-zero",
    "nonzero",
];

/// Words before a problem word that say there was none (`0 errors`, `no warnings`).
const NONE_BEFORE: &[&str] = &["0 ", "no ", "zero ", "without "];

/// Whether `text` reads as a report of a problem: one of [`PROBLEM_WORDS`] occurs not right
/// after a word that says there was none (`ok (0 errors, 0 skipped)` reports none), nor as a
/// count of zero (`warnings: 0`, `failures=0`).
pub(super) fn reads_as_a_problem(text: &str) -> bool {
    let lower = text.to_lowercase();
    PROBLEM_WORDS.iter().any(|w| {
        lower.match_indices(w).any(|(at, _)| {
            let before = &lower[..at];
            !NONE_BEFORE.iter().any(|none| before.ends_with(none))
                && !counts_zero(&lower[at + w.len()..])
        })
    })
}

/// Whether `after` (the text after a problem word) makes the word a count of zero: the rest
/// of the word, a `:` or `=`, then `0` alone (`warnings: 0`, `errors=0`; not `error: 0x1f`).
fn counts_zero(after: &str) -> bool {
    let rest = after.trim_start_matches(|c: char| c.is_alphabetic());
    let Some(rest) = rest.strip_prefix([':', '=']) else {
        return false;
    };
    let rest = rest.trim_start();
    rest.strip_prefix('0')
        .is_some_and(|tail| !tail.starts_with(|c: char| c.is_alphanumeric() || c == '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_of_progress_displays_read_as_such_and_lines_with_words_do_not() {
        for frame in [
            "⠋ Installing packages",
            "Downloading ━━━━━━╸━━━ 45% 0:00:01",
            "libfoo [###-----]",
            "<====---> 40% EXECUTING [2s]",
            "layer 1: ▇▇▇▇",
            "12.3 / 45.0",
        ] {
            assert!(transient_row(frame), "{frame}");
        }
        for line in [
            "ERROR: disk full",
            "FAIL: test_login expected 200 got 500",
            "[12:00:01] ERROR connection refused to db",
            "src/app.py:42: SyntaxError: invalid syntax",
            "- item one",
            "a [b] c",
        ] {
            assert!(!transient_row(line), "{line}");
        }
        assert_eq!(
            line_shape("epoch 1: 45%|████▌ | 45/100"),
            line_shape("epoch 1: 50%|█████ | 50/100")
        );
        assert_ne!(
            line_shape("Step 3/10: ERROR linking"),
            line_shape("Step 4/10: compiling")
        );
        assert_ne!(
            line_shape("ERROR 42: permission denied"),
            line_shape("ERROR 43")
        );
    }

    #[test]
    fn a_problem_word_after_a_zero_count_reports_none() {
        for line in [
            "Checking b: 0 missing",
            "ok (0 errors, 0 skipped)",
            "done with no warnings",
            "warnings: 0",
            "Errors: 0, Failures: 0",
            "failed=0 skipped=0",
        ] {
            assert!(!reads_as_a_problem(line), "{line}");
        }
        for line in [
            "Checking b: does not exist",
            "returned non-zero exit status 2",
            "0 passed, 3 failed",
            "missing dependency libfoo",
            "warnings: 1",
            "error: 0x1f at offset 3",
            "errors: 0, failures: 2",
        ] {
            assert!(reads_as_a_problem(line), "{line}");
        }
    }
}
