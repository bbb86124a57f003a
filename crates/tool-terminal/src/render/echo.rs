//! The echo of a long text the send typed (a heredoc writing a file, a block pasted into a
//! REPL): the terminal shows every line again after its prompt (`> `, `... `), so a send of
//! 2000 lines came back as 2000 lines of its own text, crowding out what the command printed.
//! A send result shows the first and last lines of such a run and a marker with how many
//! lines it left out; the structured result and `terminal_read` pages keep every line. The
//! fold comes after the output was fitted to the result cap (which bounds the structured
//! viewport too), so an echo over the cap still leaves an omission between the kept first and
//! newest lines, each part folded.

use std::borrow::Cow;

/// Fewest consecutive echoed lines that fold.
const FOLD_MIN_LINES: usize = 12;

/// Echoed lines kept before the marker (the command line and the first lines of its text).
const KEEP_FIRST: usize = 3;

/// Echoed lines kept after the marker (the end of the text, a heredoc's delimiter).
const KEEP_LAST: usize = 2;

/// Longest row (trimmed, in bytes) that an empty line of the text can echo as: a prompt alone
/// (`>`, `...`, `dsh>`).
const PROMPT_ONLY_MAX_BYTES: usize = 12;

/// The marker standing for `lines` echoed lines left out.
pub(crate) fn echo_marker(lines: usize) -> String {
    format!("[… {lines} more lines echoing the text this send typed]")
}

/// Whether screen line `row` is the echo of `typed` (one line of the send's text): it ends with
/// the line (after a prompt), spaces at either end aside; an empty line echoes as a prompt
/// alone.
fn echoes(row: &str, typed: &str) -> bool {
    let (row, typed) = (row.trim_end(), typed.trim());
    if typed.is_empty() {
        row.len() <= PROMPT_ONLY_MAX_BYTES && !row.chars().any(char::is_alphanumeric)
            || row.is_empty()
    } else {
        row.ends_with(typed)
    }
}

/// `viewport` with each run of at least [`FOLD_MIN_LINES`] lines echoing consecutive lines of
/// `typed` (the send's text) shown as its first [`KEEP_FIRST`] and last [`KEEP_LAST`] lines
/// around [`echo_marker`]; unchanged (borrowed) when no run folds. A run may start at any line
/// of the text (the viewport can begin inside the echo), and a line of the text that echoes
/// otherwise (a TAB shown as spaces) is skipped over.
pub(crate) fn fold_echo<'a>(viewport: &'a str, typed: &str) -> Cow<'a, str> {
    let sent: Vec<&str> = typed.trim_end_matches(['\n', '\r']).lines().collect();
    if sent.len() < FOLD_MIN_LINES {
        return Cow::Borrowed(viewport);
    }
    let rows: Vec<&str> = viewport.split('\n').collect();
    // Runs of echoed rows, as half-open row ranges.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while at < rows.len() {
        // A run starts where a non-empty line of the text echoes, and goes on while the next
        // lines do (skipping at most one line of the text that shows otherwise).
        let Some(mut next) = sent
            .iter()
            .position(|line| !line.trim().is_empty() && echoes(rows[at], line))
        else {
            at += 1;
            continue;
        };
        let start = at;
        next += 1;
        at += 1;
        while at < rows.len() && next < sent.len() {
            if echoes(rows[at], sent[next]) {
                next += 1;
                at += 1;
            } else if at + 1 < rows.len()
                && next + 1 < sent.len()
                && !sent[next + 1].trim().is_empty()
                && echoes(rows[at + 1], sent[next + 1])
            {
                // This row shows its line otherwise (a TAB as spaces): the next one echoes.
                next += 2;
                at += 2;
            } else {
                break;
            }
        }
        if at - start >= FOLD_MIN_LINES {
            runs.push((start, at));
        }
    }
    if runs.is_empty() {
        return Cow::Borrowed(viewport);
    }
    let mut out: Vec<Cow<'_, str>> = Vec::with_capacity(rows.len());
    let mut from = 0;
    for (start, end) in runs {
        out.extend(
            rows[from..start + KEEP_FIRST]
                .iter()
                .map(|r| Cow::Borrowed(*r)),
        );
        out.push(Cow::Owned(echo_marker(
            end - start - KEEP_FIRST - KEEP_LAST,
        )));
        out.extend(rows[end - KEEP_LAST..end].iter().map(|r| Cow::Borrowed(*r)));
        from = end;
    }
    out.extend(rows[from..].iter().map(|r| Cow::Borrowed(*r)));
    Cow::Owned(out.join("\n"))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    /// A heredoc's text typed at the shell's continuation prompt.
    fn heredoc(lines: usize) -> (String, String) {
        let body: Vec<String> = (1..=lines).map(|i| format!("row {i}: data")).collect();
        let typed = format!("cat > f.txt <<'EOF'\n{}\nEOF", body.join("\n"));
        let echo: Vec<String> = body.iter().map(|l| format!("> {l}")).collect();
        let viewport = format!(
            "dsh> cat > f.txt <<'EOF'\n{}\n> EOF\ndsh> ",
            echo.join("\n")
        );
        (typed, viewport)
    }

    #[test]
    fn a_long_echo_keeps_its_ends_around_a_count() {
        let (typed, viewport) = heredoc(40);
        assert_eq!(
            fold_echo(&viewport, &typed),
            "dsh> cat > f.txt <<'EOF'\n> row 1: data\n> row 2: data\n[… 37 more lines echoing the text this send typed]\n> row 40: data\n> EOF\ndsh> "
        );
        insta::assert_snapshot!("echo_marker", echo_marker(37));
    }

    #[test]
    fn output_after_the_echo_stays_and_short_texts_are_untouched() {
        let (mut typed, viewport) = heredoc(20);
        typed.push_str("\nwc -l f.txt");
        let viewport = viewport + "wc -l f.txt\n20 f.txt\ndsh> ";
        let folded = fold_echo(&viewport, &typed);
        assert!(
            folded.ends_with("> EOF\ndsh> wc -l f.txt\n20 f.txt\ndsh> "),
            "{folded}"
        );
        assert!(folded.contains("[… 18 more lines echoing"), "{folded}");
        let (typed, viewport) = heredoc(8);
        assert!(matches!(fold_echo(&viewport, &typed), Cow::Borrowed(_)));
        // Output that happens to repeat a few lines of the text does not fold.
        let typed = (1..=30)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let viewport = "dsh> x\nline 1\nline 2\nsomething else\nline 3\ndsh> ";
        assert!(matches!(fold_echo(viewport, &typed), Cow::Borrowed(_)));
    }

    #[test]
    fn a_viewport_that_begins_inside_the_echo_and_a_line_shown_otherwise_still_fold() {
        let (mut typed, viewport) = heredoc(60);
        typed = typed.replace("row 30: data", "row 30:\tdata");
        let tail: Vec<&str> = viewport.lines().skip(20).collect();
        let tail = tail.join("\n");
        let folded = fold_echo(&tail, &typed);
        assert!(
            folded.starts_with(
                "> row 20: data\n> row 21: data\n> row 22: data\n[… 37 more lines echoing"
            ),
            "{folded}"
        );
        assert!(folded.ends_with("> row 60: data\n> EOF\ndsh> "), "{folded}");
    }

    #[test]
    fn blank_lines_of_the_text_echo_as_a_prompt_alone() {
        let block: Vec<String> = (0..15)
            .map(|i| {
                if i % 3 == 2 {
                    String::new()
                } else {
                    format!("x{i} = {i}")
                }
            })
            .collect();
        let typed = block.join("\n");
        let echo: Vec<String> = block
            .iter()
            .enumerate()
            .map(|(i, l)| format!("{}{l}", if i == 0 { ">>> " } else { "... " }))
            .collect();
        let viewport = format!("{}\n>>> ", echo.join("\n"));
        let folded = fold_echo(&viewport, &typed);
        assert!(folded.contains("[… 9 more lines echoing"), "{folded}");
        assert!(folded.ends_with(">>> "), "{folded}");
    }
}
