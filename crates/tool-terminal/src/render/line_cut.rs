//! Cutting over-long lines: a line's first and last bytes around a marker that counts the
//! bytes left out of its middle and says how to see them.

/// The marker that stands for the middle of one over-long line:
/// `[… B bytes of this line omitted; …]`.
pub fn line_cut_marker(bytes: usize) -> String {
    cut_marker(&bytes.to_string())
}

/// [`line_cut_marker`] for a count that is an estimate: `[… about B bytes of this line
/// omitted; …]`.
pub fn line_cut_marker_about(bytes: u64) -> String {
    cut_marker(&format!("about {bytes}"))
}

/// [`line_cut_marker`] for a line whose start the scrollback no longer keeps, so more than
/// the `bytes` counted were left out: `[… at least B bytes of this line omitted; …]`.
pub fn line_cut_marker_at_least(bytes: u64) -> String {
    cut_marker(&format!("at least {bytes}"))
}

fn cut_marker(count: &str) -> String {
    format!(
        "[… {count} {LINE_CUT}; to see them, write the output to a file and read it in pieces, e.g. with cut -c or head -c]"
    )
}

/// Bytes over which a line is cut to its first and last `max_line_bytes / 2` around
/// [`line_cut_marker`]: `max_line_bytes` and the widest marker's own length, so that a cut
/// always makes the line shorter.
pub(crate) fn cut_over(max_line_bytes: usize) -> usize {
    max_line_bytes + line_cut_marker(usize::MAX).len()
}

/// The words of [`line_cut_marker`] that tell a cut line.
pub(super) const LINE_CUT: &str = "bytes of this line omitted";

/// `text` with every line longer than `max_line_bytes` cut to its first and last
/// `max_line_bytes / 2` bytes around [`line_cut_marker`]; whether any line was cut. A line the
/// cut would not shorten (the marker is longer than what it replaces) stays whole. Cuts never
/// split a UTF-8 code point, and the line count stays the same.
pub fn cut_long_lines(text: &str, max_line_bytes: usize) -> (std::borrow::Cow<'_, str>, bool) {
    let cut = |line: &str| line.len() > cut_over(max_line_bytes);
    if !text.split('\n').any(cut) {
        return (std::borrow::Cow::Borrowed(text), false);
    }
    let keep = max_line_bytes / 2;
    let mut out = String::with_capacity(text.len().min(4 * max_line_bytes));
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if !cut(line) {
            out.push_str(line);
            continue;
        }
        let first = dsh_output_retention::head_slice(line, keep);
        let last = dsh_output_retention::tail_slice(line, keep);
        out.push_str(first);
        out.push_str(&line_cut_marker(line.len() - first.len() - last.len()));
        out.push_str(last);
    }
    (std::borrow::Cow::Owned(out), true)
}
