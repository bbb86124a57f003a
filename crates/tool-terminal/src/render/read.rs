//! `terminal_read`'s page: its text, or what an empty page means, and its footer (the
//! range, the pointer to older lines, the full-screen program's line).

use crate::schema::{ReadOutput, ReadPointer};

use super::TRUNCATED;
use super::bound::bound_body_with_suffix;

/// `terminal_read`: the page (or `(no retained output)`, which says how many lines the
/// scrollback holds when the offset is past them, with no range then) and `[lines: B-E of T]`.
pub fn render_read(result: &ReadOutput, max_bytes: usize) -> String {
    let past_end;
    let mut beyond_retained = false;
    // A page past the retained lines holds nothing to cut: no truncation marker.
    let mut truncated = result.truncated;
    let body = if !result.text.is_empty() {
        result.text.as_str()
    } else if result.truncated
        && result.line_end == result.line_begin
        && result.line_begin < result.total_lines
    {
        // Lines are there, but none fits beside the footer in this cap.
        past_end = format!(
            "(no line of this page fits in the {max_bytes}-byte result cap; the scrollback holds {})",
            lines_held(result.total_lines)
        );
        past_end.as_str()
    } else if result.total_lines > 0 && result.line_begin >= result.total_lines {
        // An offset past the retained lines: say how far back they go (an empty range such as
        // `[lines: 900-900 of 52]` would say nothing more).
        truncated = false;
        beyond_retained = true;
        past_end = format!(
            "(no retained output at offset {}: the scrollback holds {}, offset 0 being the newest)",
            result.line_begin,
            lines_held(result.total_lines)
        );
        past_end.as_str()
    } else {
        "(no retained output)"
    };
    let mut metadata = if beyond_retained {
        String::new()
    } else {
        read_footer(
            result.line_begin,
            result.line_end,
            result.total_lines,
            result.first_line,
        )
    };
    let screen = if result.alternate_screen {
        READ_ALTERNATE_SCREEN
    } else {
        ""
    };
    // The pointer only where it fits beside the page's lines: under a tiny cap the footer's
    // range says where the next page starts (the structured result keeps the pointer).
    if let Some(older) = result.older.as_ref().map(older_line) {
        let marker = if truncated { TRUNCATED.len() } else { 0 };
        if body.len() + metadata.len() + older.len() + screen.len() + marker <= max_bytes {
            metadata.push_str(&older);
        }
    }
    // Whole, but reaching back to the oldest line kept after older output was dropped: the
    // line says so, and no truncation marker says otherwise.
    if truncated
        && result.older.is_none()
        && result.line_end >= result.total_lines
        && !result.text.is_empty()
    {
        metadata.push_str(OLDEST_RETAINED);
        truncated = false;
    }
    metadata.push_str(screen);
    bound_body_with_suffix(body, &metadata, truncated, max_bytes)
}

/// The line of a `terminal_read` page that is whole and reaches back to the oldest line the
/// scrollback kept, older output having been dropped.
const OLDEST_RETAINED: &str = "\n[lines: the page is whole and starts at the oldest line kept: \
     older output went past the scrollback's limit and was dropped, so no page goes further back]";

/// `terminal_read`'s line while a full-screen program holds the terminal, with its leading
/// newline.
pub(crate) const READ_ALTERNATE_SCREEN: &str = "\n[screen: a full-screen program holds the terminal; the newest lines are its screen, and the shell's lines it covers page again once it exits]";

/// `terminal_read`'s pointer to the requested lines a page could not hold, with its leading
/// newline.
pub(crate) fn older_line(older: &ReadPointer) -> String {
    format!(
        "\n[older lines of the range: terminal_read {}]",
        pointer_args(older)
    )
}

/// `terminal_read`'s arguments for `read` as JSON: by line number when known (right however
/// much output follows), else by offset.
pub(super) fn pointer_args(read: &ReadPointer) -> String {
    let session = serde_json::Value::from(read.session_id.as_str());
    match read.from_line {
        Some(from_line) => format!(
            "{{\"sessionId\": {session}, \"fromLine\": {from_line}, \"count\": {}}}",
            read.count
        ),
        None => format!(
            "{{\"sessionId\": {session}, \"offset\": {}, \"count\": {}}}",
            read.offset, read.count
        ),
    }
}

/// `terminal_read`'s footer line, with its leading newline.
/// A page's footer: its newest-relative range of the retained lines (`[lines: 0-5 of 42]`, the
/// seed's), or, for a page asked for by `fromLine` whose first line is `from_line_first`, its
/// range in `fromLine`'s numbers, counted from the session's first line, and how many lines
/// that numbering has reached (`[lines: fromLine 10-13 of 602]`; the end exclusive, as in the
/// other form).
pub(crate) fn read_footer(
    line_begin: u64,
    line_end: u64,
    total_lines: u64,
    from_line_first: Option<u64>,
) -> String {
    match from_line_first {
        Some(first) => {
            let end = first + (line_end - line_begin);
            format!("\n[lines: fromLine {first}-{end} of {}]", end + line_begin)
        }
        None => format!("\n[lines: {line_begin}-{line_end} of {total_lines}]"),
    }
}

/// `n` lines of scrollback, as a read's text counts them (`1 line`, `52 lines`).
fn lines_held(n: u64) -> String {
    if n == 1 {
        "1 line".to_owned()
    } else {
        format!("{n} lines")
    }
}
