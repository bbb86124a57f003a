//! The echo of a long text the send typed (a heredoc writing a file, a block pasted into a
//! REPL): the terminal shows every line again after its prompt (`> `, `... `), so a send of
//! 2000 lines came back as 2000 lines of its own text, crowding out what the command printed.
//! A send result shows the first and last lines of such a run and a marker with how many
//! lines it left out; the structured result and `terminal_read` pages keep every line. The
//! fold comes after the output was fitted to the result cap (which bounds the structured
//! viewport too), so an echo over the cap still leaves an omission between the kept first and
//! newest lines, each part folded. Only rows that are a continuation prompt and then the
//! next line of the text fold: a row that differs (a program's output, even one that repeats
//! lines of the text with changes or numbers) ends the run and shows. The text is echoed once
//! and in order, so a run only takes lines of the text after the ones an earlier run took: a
//! program that prints the text again as the echo looked (`awk '{print "> " $0}'` of a
//! heredoc) shows whole after the folded echo; so does a long line's second copy.

use std::borrow::Cow;

use unicode_width::UnicodeWidthChar as _;

/// Fewest consecutive echoed lines that fold.
const FOLD_MIN_LINES: usize = 12;

/// Echoed lines kept before the marker (the command line and the first lines of its text).
const KEEP_FIRST: usize = 3;

/// Echoed lines kept after the marker (the end of the text, a heredoc's delimiter).
const KEEP_LAST: usize = 2;

/// Longest continuation prompt (trimmed, in bytes): `>`, `...`, `...:`, `->`.
const PROMPT_MAX_BYTES: usize = 12;

/// The marker standing for `lines` echoed lines left out.
pub(crate) fn echo_marker(lines: usize) -> String {
    format!("[… {lines} more lines echoing the text this send typed]")
}

/// Shortest line of the text, in bytes, whose echo is cut (a long one-line command, a
/// `python3 -c` program): its echo would cost as much of the result again.
const LONG_LINE_MIN_BYTES: usize = 1024;

/// Bytes of such a line's echo kept on each side of [`line_echo_marker`].
const LONG_LINE_KEEP_BYTES: usize = 160;

/// The marker standing for `bytes` left out of the echo of one long line the send typed.
pub(crate) fn line_echo_marker(bytes: usize) -> String {
    format!("[… {bytes} more bytes echoing the line this send typed]")
}

/// Columns between the tab stops a line editor shows a typed TAB up to (readline's).
const TAB_STOP_COLS: usize = 8;

/// Most characters of a row tried as the prompt before a typed line with a TAB inside.
const TAB_PROMPT_MAX_CHARS: usize = 64;

/// The prompt (trimmed) before `typed` on screen line `row` when the row echoes that line of
/// the send's text: the row is the prompt and then the line, spaces at their ends aside (an
/// empty line echoes as the prompt alone), a TAB inside the line shown as it or as spaces up
/// to the next tab stop (a line editor's echo: bash reading a heredoc's lines); `None` when
/// it does not end with the line.
fn echo_prompt<'r>(row: &'r str, typed: &str) -> Option<&'r str> {
    let (row, typed) = (row.trim_end(), typed.trim());
    if let Some(prompt) = row.strip_suffix(typed) {
        return Some(prompt.trim());
    }
    if !typed.contains('\t') {
        return None;
    }
    let mut col = 0;
    row.char_indices()
        .take(TAB_PROMPT_MAX_CHARS)
        .find(|&(at, c)| {
            let found = tabs_shown_as_spaces(typed, col) == row[at..];
            col += c.width().unwrap_or(0);
            found
        })
        .map(|(at, _)| row[..at].trim())
}

/// `line` as a line editor shows it from column `col`: each TAB as spaces up to the next
/// tab stop (a wide character takes two columns).
fn tabs_shown_as_spaces(line: &str, mut col: usize) -> String {
    let mut shown = String::with_capacity(line.len() + TAB_STOP_COLS);
    for c in line.chars() {
        if c == '\t' {
            let to = (col / TAB_STOP_COLS + 1) * TAB_STOP_COLS;
            shown.extend(std::iter::repeat_n(' ', to - col));
            col = to;
        } else {
            shown.push(c);
            col += c.width().unwrap_or(0);
        }
    }
    shown
}

/// `viewport` with the TABs of `typed`'s lines back in their echo: a line editor shows a TAB
/// the send typed as spaces up to the next tab stop (bash reading a heredoc's lines), so a
/// Makefile recipe's or a TSV line's TAB read as spaces in the result. Each line of the text
/// with a TAB is looked for once, in order, after the row that echoed the one before it, on a
/// row where a prompt precedes it (program output keeps its own TABs as TABs); unchanged
/// (borrowed) when there is none.
pub(crate) fn restore_typed_tabs<'a>(viewport: &'a str, typed: &str) -> Cow<'a, str> {
    if !typed.contains('\t') {
        return Cow::Borrowed(viewport);
    }
    let mut rows: Vec<Cow<'_, str>> = viewport.split('\n').map(Cow::Borrowed).collect();
    let mut from = 0;
    let mut changed = false;
    for (n, line) in typed.lines().map(str::trim_end).enumerate() {
        if !line.contains('\t') {
            continue;
        }
        // The text's first line may start the viewport, without the prompt before it (whose
        // width, unknown here, set the tab stops' columns).
        let at_start = n == 0
            && (0..TAB_PROMPT_MAX_CHARS)
                .any(|col| rows[0].trim_end() == tabs_shown_as_spaces(line, col));
        let found = if at_start {
            Some((0, 0))
        } else {
            rows[from..]
                .iter()
                .enumerate()
                .find_map(|(i, row)| tabbed_echo_start(row, line).map(|at| (from + i, at)))
        };
        if let Some((i, at)) = found {
            rows[i] = Cow::Owned(format!("{}{line}", &rows[i][..at]));
            from = i + 1;
            changed = true;
        }
    }
    if !changed {
        return Cow::Borrowed(viewport);
    }
    Cow::Owned(rows.join("\n"))
}

/// Where on `row` the echo of `line` (which holds a TAB) starts, shown with its TABs as spaces
/// ([`tabs_shown_as_spaces`]) after a prompt: the first such place after a blank (a prompt's
/// `> `: a TAB's spaces would match from any column they cover), else the first.
fn tabbed_echo_start(row: &str, line: &str) -> Option<usize> {
    let row = row.trim_end();
    let mut col = 0;
    let mut first = None;
    for (at, c) in row.char_indices().take(TAB_PROMPT_MAX_CHARS) {
        if at > 0 && !row[..at].trim().is_empty() && tabs_shown_as_spaces(line, col) == row[at..] {
            if row[..at].ends_with(' ') {
                return Some(at);
            }
            first = first.or(Some(at));
        }
        col += c.width().unwrap_or(0);
    }
    first
}

/// Whether `prompt` can be a continuation prompt (`>`, `...`, `...:` of IPython): short, not
/// empty, and no letters or digits, so a program's output that ends with a line of the text
/// (`cat -n`, `failed: item1`, the line itself) is not taken for its echo.
fn continuation_prompt(prompt: &str) -> bool {
    !prompt.is_empty()
        && prompt.len() <= PROMPT_MAX_BYTES
        && !prompt.chars().any(char::is_alphanumeric)
}

/// Most lines of the text a run's first row is tried against (repeated lines match it
/// several times; the longest run wins).
const START_CANDIDATES: usize = 8;

/// Where a run of echoed rows starting at row `at` ends (exclusive), and so how many rows it
/// has, with the index in `sent` of the line after the run's last: the row ends with a
/// non-empty line of the text from `sent[from..]` (after whatever prompt: the command line
/// at the shell's, or the first row the viewport kept), and each next row echoes the text's
/// next line after one continuation prompt, the same for the whole run. A row that differs
/// ends the run. Of the lines the first row ends with, the one whose run is longest.
fn run_end(rows: &[&str], at: usize, sent: &[&str], from: usize) -> (usize, usize) {
    sent.iter()
        .enumerate()
        .skip(from)
        .filter(|(_, line)| !line.trim().is_empty() && echo_prompt(rows[at], line).is_some())
        .take(START_CANDIDATES)
        .map(|(first, _)| {
            let mut prompt = None;
            let mut end = at + 1;
            for line in &sent[first + 1..] {
                let Some(p) = rows
                    .get(end)
                    .and_then(|row| echo_prompt(row, line))
                    .filter(|p| continuation_prompt(p))
                else {
                    break;
                };
                if *prompt.get_or_insert(p) != p {
                    break;
                }
                end += 1;
            }
            (end, first + end - at)
        })
        .max_by_key(|&(end, _)| end)
        .unwrap_or((at, from))
}

/// `viewport` with each run of at least [`FOLD_MIN_LINES`] rows echoing consecutive lines of
/// `typed` (the send's text; see [`run_end`]) shown as its first [`KEEP_FIRST`] and last
/// [`KEEP_LAST`] rows around [`echo_marker`]; unchanged (borrowed) when no run folds.
/// Then a row that echoes a line of `typed` of at least [`LONG_LINE_MIN_BYTES`] (after
/// whatever prompt) keeps the line's first and last [`LONG_LINE_KEEP_BYTES`] around
/// [`line_echo_marker`].
pub(crate) fn fold_echo<'a>(viewport: &'a str, typed: &str) -> Cow<'a, str> {
    match fold_echo_lines(viewport, typed, None).0 {
        Cow::Borrowed(v) => cut_long_echoes(v, typed),
        Cow::Owned(v) => Cow::Owned(cut_long_echoes(&v, typed).into_owned()),
    }
}

/// `viewport` folded as [`fold_echo`] does, when the `lines` left out of it after its line
/// `after_line` (unmarked) are lines of `typed` echoed inside one run: the rows before them
/// end a run of echoed rows (at least [`KEEP_FIRST`]) and the rows after them (at least
/// [`KEEP_LAST`]) go on with the line of the text that many lines later. The run's one marker
/// counts them with its other left-out rows; `None` when the left-out lines are not so.
pub(crate) fn fold_echo_across(
    viewport: &str,
    typed: &str,
    after_line: usize,
    lines: usize,
) -> Option<String> {
    let (folded, merged) = fold_echo_lines(viewport, typed, Some((after_line, lines)));
    merged.then(|| cut_long_echoes(&folded, typed).into_owned())
}

/// `typed` when it holds a line whose echo [`cut_long_echoes`] cuts (a copy to look for it
/// in the output with); `None` otherwise.
pub(crate) fn with_long_lines(typed: &str) -> Option<String> {
    typed
        .lines()
        .any(|line| line.trim().len() >= LONG_LINE_MIN_BYTES)
        .then(|| typed.to_owned())
}

/// The rows of `viewport` that echo a long line of `typed` (see [`fold_echo`]) cut around
/// [`line_echo_marker`]; unchanged (borrowed) when there is none.
pub(crate) fn cut_long_echoes<'a>(viewport: &'a str, typed: &str) -> Cow<'a, str> {
    let long: Vec<&str> = typed
        .lines()
        .map(str::trim)
        .filter(|line| line.len() >= LONG_LINE_MIN_BYTES)
        .collect();
    if long.is_empty() {
        return Cow::Borrowed(viewport);
    }
    let mut changed = false;
    // Each long line echoes once: a later row that ends with it is a program's output.
    let mut echoed = vec![false; long.len()];
    let rows: Vec<Cow<'_, str>> = viewport
        .split('\n')
        .map(|row| {
            let Some((prompt, line)) = long
                .iter()
                .enumerate()
                .find(|&(i, line)| !echoed[i] && echo_prompt(row, line).is_some())
                .map(|(i, line)| {
                    echoed[i] = true;
                    let row = row.trim_end();
                    (&row[..row.len() - line.len()], *line)
                })
            else {
                return Cow::Borrowed(row);
            };
            changed = true;
            let first = dsh_output_retention::head_slice(line, LONG_LINE_KEEP_BYTES);
            let last = dsh_output_retention::tail_slice(line, LONG_LINE_KEEP_BYTES);
            Cow::Owned(format!(
                "{prompt}{first}{}{last}",
                line_echo_marker(line.len() - first.len() - last.len())
            ))
        })
        .collect();
    if !changed {
        return Cow::Borrowed(viewport);
    }
    Cow::Owned(rows.join("\n"))
}

/// [`fold_echo`]'s folding of runs of echoed lines; with `gap` (`after_line`, `lines`: see
/// [`fold_echo_across`]), also whether a run took those left-out lines in.
fn fold_echo_lines<'a>(
    viewport: &'a str,
    typed: &str,
    gap: Option<(usize, usize)>,
) -> (Cow<'a, str>, bool) {
    let sent: Vec<&str> = typed.trim_end_matches(['\n', '\r']).lines().collect();
    if sent.len() < FOLD_MIN_LINES {
        return (Cow::Borrowed(viewport), false);
    }
    let rows: Vec<&str> = viewport.split('\n').collect();
    // Runs of echoed rows, as half-open row ranges, with the lines left out inside them.
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    let mut merged = false;
    let mut at = 0;
    // The first line of the text no folded run has taken yet.
    let mut from = 0;
    while at < rows.len() {
        let (mut end, mut next) = run_end(&rows, at, &sent, from);
        let mut hidden = 0;
        if let Some((after, lines)) = gap
            && end == after
            && end - at >= KEEP_FIRST
        {
            let (rest_end, rest_next) = run_end(&rows, end, &sent, next + lines);
            if rest_end - end >= KEEP_LAST && rest_next - (rest_end - end) == next + lines {
                (end, next, hidden, merged) = (rest_end, rest_next, lines, true);
            }
        }
        if end - at + hidden >= FOLD_MIN_LINES {
            runs.push((at, end, hidden));
            from = next;
        }
        at = end.max(at + 1);
    }
    if runs.is_empty() {
        return (Cow::Borrowed(viewport), false);
    }
    let mut out: Vec<Cow<'_, str>> = Vec::with_capacity(rows.len());
    let mut from = 0;
    for (start, end, hidden) in runs {
        out.extend(
            rows[from..start + KEEP_FIRST]
                .iter()
                .map(|r| Cow::Borrowed(*r)),
        );
        out.push(Cow::Owned(echo_marker(
            end - start - KEEP_FIRST - KEEP_LAST + hidden,
        )));
        out.extend(rows[end - KEEP_LAST..end].iter().map(|r| Cow::Borrowed(*r)));
        from = end;
    }
    out.extend(rows[from..].iter().map(|r| Cow::Borrowed(*r)));
    (Cow::Owned(out.join("\n")), merged)
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

    /// One long line's echo keeps its ends around a byte count; the command's output, and a
    /// line shorter than the bound, stay whole.
    #[test]
    fn a_long_lines_echo_keeps_its_ends_around_a_count() {
        let args: String = (0..1500).map(|i| format!(" a{i:04}")).collect();
        let typed = format!("echo{args} | wc -w");
        let viewport = format!("dsh> {typed}\n1500\ndsh> ");
        let folded = fold_echo(&viewport, &typed);
        let first = &typed[..LONG_LINE_KEEP_BYTES];
        let last = &typed[typed.len() - LONG_LINE_KEEP_BYTES..];
        assert_eq!(
            folded,
            format!(
                "dsh> {first}{}{last}\n1500\ndsh> ",
                line_echo_marker(typed.len() - 2 * LONG_LINE_KEEP_BYTES)
            )
        );
        insta::assert_snapshot!("line_echo_marker", line_echo_marker(8680));
        let short = "echo short line";
        let viewport = format!("dsh> {short}\nshort line\ndsh> ");
        assert!(matches!(fold_echo(&viewport, short), Cow::Borrowed(_)));
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
        assert!(folded.contains("[… 17 more lines echoing"), "{folded}");
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
    fn a_viewport_that_begins_inside_the_echo_or_after_an_omission_still_folds() {
        let (typed, viewport) = heredoc(60);
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
        let cut = format!("dsh> x\n[… 19 lines (400 bytes) omitted; page them]\n{tail}");
        assert!(fold_echo(&cut, &typed).contains("[… 37 more lines echoing"));
    }

    /// Lines the result cap left out of the middle of the echo are counted in its one marker;
    /// lines left out that are not (all) the echo are not.
    #[test]
    fn lines_left_out_of_the_echo_fold_into_its_marker() {
        let (typed, viewport) = heredoc(60);
        let rows: Vec<&str> = viewport.split('\n').collect();
        // Rows 11..=30 of the text (viewport rows 11..31) left out after viewport line 11.
        let cut = [&rows[..11], &rows[31..]].concat().join("\n");
        let folded = fold_echo_across(&cut, &typed, 11, 20).expect("echo only");
        assert_eq!(folded, fold_echo(&viewport, &typed));
        // Counted wrong, or with the program's output after the gap: not the echo.
        assert_eq!(fold_echo_across(&cut, &typed, 11, 19), None);
        let mixed = [&rows[..11], &["output line"], &rows[31..]]
            .concat()
            .join("\n");
        assert_eq!(fold_echo_across(&mixed, &typed, 11, 20), None);
        // Too few echoed rows kept before the gap to keep around the marker.
        let short = [&rows[..2], &rows[22..]].concat().join("\n");
        assert_eq!(fold_echo_across(&short, &typed, 2, 20), None);
    }

    /// Output that repeats lines of the text, changed or not, is the program's: a run ends at
    /// the first row that is not the echo, and rows without a continuation prompt before the
    /// line (the line alone, `cat -n`'s numbers, `failed: item`) are no echo.
    #[test]
    fn program_output_like_the_text_is_never_folded() {
        let lines: Vec<String> = (0..30).map(|i| format!("line {i}")).collect();
        let typed = format!("sed 's/^line 15$/QQQQ/' <<'EOF'\n{}\nEOF", lines.join("\n"));
        let echo: Vec<String> = lines.iter().map(|l| format!("> {l}")).collect();
        let mut output = lines.clone();
        output[15] = "QQQQ".to_owned();
        let viewport = format!(
            "sed 's/^line 15$/QQQQ/' <<'EOF'\n{}\n> EOF\n{}\ndsh> ",
            echo.join("\n"),
            output.join("\n")
        );
        let folded = fold_echo(&viewport, &typed);
        assert!(folded.contains("[… 27 more lines echoing"), "{folded}");
        assert!(
            folded.ends_with(&format!("> EOF\n{}\ndsh> ", output.join("\n"))),
            "{folded}"
        );
        for shown in [
            lines
                .iter()
                .enumerate()
                .map(|(i, l)| format!("{:6}\t{l}", i + 1))
                .collect::<Vec<_>>(),
            lines.iter().map(|l| format!("failed: {l}")).collect(),
        ] {
            let viewport = format!("dsh> other\n{}\ndsh> ", shown.join("\n"));
            assert!(
                matches!(fold_echo(&viewport, &typed), Cow::Borrowed(_)),
                "{viewport}"
            );
        }
        // A changed row in the middle of the echo itself ends the run there.
        let mut echo_changed = echo.clone();
        echo_changed[6] = "> WWWW".to_owned();
        let viewport = format!("sed x\n{}\n> EOF\ndsh> ", echo_changed.join("\n"));
        let typed_sed = typed.replacen("sed 's/^line 15$/QQQQ/' <<'EOF'", "sed x", 1);
        let folded = fold_echo(&viewport, &typed_sed);
        assert!(folded.contains("> WWWW"), "{folded}");
    }

    /// A program that prints the text again exactly as its echo looked (`awk` prefixing
    /// `> `, `cat` of a long line) shows whole after the folded echo: the text echoes once.
    #[test]
    fn output_that_looks_like_the_echo_again_shows_whole() {
        let lines: Vec<String> = (1..=13).map(|i| format!("item {i}")).collect();
        let typed = format!(
            "awk '{{print \"> \" $0}}' <<'EOF'\n{}\nEOF",
            lines.join("\n")
        );
        let echo: Vec<String> = lines.iter().map(|l| format!("> {l}")).collect();
        let viewport = format!(
            "dsh> awk '{{print \"> \" $0}}' <<'EOF'\n{}\n> EOF\n{}\ndsh> ",
            echo.join("\n"),
            echo.join("\n")
        );
        let folded = fold_echo(&viewport, &typed);
        assert!(folded.contains("[… 10 more lines echoing"), "{folded}");
        assert!(
            folded.ends_with(&format!("> EOF\n{}\ndsh> ", echo.join("\n"))),
            "{folded}"
        );
        let line = "x".repeat(2000);
        let viewport = format!("dsh> cat\n{line}\n{line}\n");
        let folded = fold_echo(&viewport, &line);
        assert!(folded.contains("more bytes echoing"), "{folded}");
        assert!(folded.ends_with(&format!("\n{line}\n")), "{folded}");
    }

    #[test]
    fn the_tabs_of_typed_lines_come_back_in_their_echo() {
        let typed = "cat > Makefile <<'EOF'\nall:\n\techo built\nname\tqty\nEOF";
        let viewport = "dsh> cat > Makefile <<'EOF'\n> all:\n>       echo built\n> name  qty\n> EOF\n        echo built\ndsh> ";
        assert_eq!(
            restore_typed_tabs(viewport, typed),
            "dsh> cat > Makefile <<'EOF'\n> all:\n> \techo built\n> name\tqty\n> EOF\n        echo built\ndsh> "
        );
        // The command line itself at the viewport's start (its prompt before the viewport).
        assert_eq!(
            restore_typed_tabs("echo \"a       b\"\na\tb", "echo \"a\tb\""),
            "echo \"a\tb\"\na\tb"
        );
        // Program output with spaces where the text has a TAB, and no prompt, stays.
        assert_eq!(
            restore_typed_tabs("ls\n        echo built", "ls\n\techo built"),
            "ls\n        echo built"
        );
        assert!(matches!(
            restore_typed_tabs("x", "no tabs"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn tabs_a_line_editor_showed_as_spaces_still_echo() {
        let typed: String = (0..30).map(|i| format!("row {i}\tcol\n")).collect();
        let typed = format!("cat > t.txt <<'EOF'\n{typed}EOF");
        let mut viewport = String::from("dsh> cat > t.txt <<'EOF'\n");
        for i in 0..30 {
            // `> row 7` ends at column 7 (one space to the stop), `> row 12` at 8 (eight).
            let shown = tabs_shown_as_spaces(&format!("row {i}\tcol"), 2);
            viewport.push_str(&format!("> {shown}\n"));
        }
        viewport.push_str("> EOF\ndsh> ");
        assert!(viewport.contains("> row 7 col\n> row 8 col\n> row 9 col\n> row 10        col\n"));
        let folded = fold_echo(&viewport, &typed);
        assert!(folded.contains(&echo_marker(27)), "{folded}");
        // Wide characters take two columns before a TAB (`> 表` ends at column 4).
        assert_eq!(echo_prompt("> 表    x", "表\tx"), Some(">"));
        assert_eq!(echo_prompt("> 表      x", "表\tx"), None);
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
