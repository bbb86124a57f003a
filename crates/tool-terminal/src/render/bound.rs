//! Cutting a result's text to its byte cap: the newest lines of a body with its metadata
//! kept whole where it fits (when not, whole lines after `[wait: …]` are left out, the facts
//! and notices first and `[exit: N]` last), or the head of a whole text (errors, policy text).

use dsh_output_retention::{head, tail, whole_lines_before};

use super::TRUNCATED;
use crate::schema::StatusOutput;

/// The newest part of `content` within `max_bytes`, starting at a line boundary when the cut
/// would otherwise leave a partial first line (a fragment like `15` of `4615` reads as a real
/// line). A partial line is kept only when nothing else would remain.
pub fn tail_lines(content: &str, max_bytes: usize) -> String {
    let kept = tail(content, max_bytes);
    if kept.len() == content.len() {
        return kept;
    }
    let cut_at_line_start = content[..content.len() - kept.len()].ends_with('\n');
    if cut_at_line_start {
        return kept;
    }
    match kept.find('\n') {
        Some(i) if i + 1 < kept.len() => kept[i + 1..].to_owned(),
        _ => kept,
    }
}

pub(super) fn fit_with_prefix(prefix: &str, content: &str, max_bytes: usize) -> String {
    let fixed = format!("{prefix}{TRUNCATED}");
    if fixed.len() >= max_bytes {
        return head(&fixed, max_bytes);
    }
    format!(
        "{prefix}{}{TRUNCATED}",
        tail(content, max_bytes - fixed.len())
    )
}

pub(super) fn bound_body_with_suffix(
    content: &str,
    metadata: &str,
    upstream_truncated: bool,
    max_bytes: usize,
) -> String {
    let marker = if upstream_truncated { TRUNCATED } else { "" };
    let complete = format!("{content}{metadata}{marker}");
    if complete.len() <= max_bytes {
        return complete;
    }
    let metadata = shed_metadata_lines(metadata, max_bytes.saturating_sub(TRUNCATED.len()));
    whole_lines_before(content, &format!("{metadata}{TRUNCATED}"), max_bytes)
}

/// `metadata` (lines each starting with `\n`) made shorter than `max_bytes` by leaving out whole
/// lines after its first (`[wait: …]` in a send's), so that a small cap cuts none of them in
/// the middle: first the facts and notices between it and the last line, longest first; then
/// a last line that only says the session runs on (`[session: running]`, which `[wait: …]`
/// implies); the exit status (`[exit: N]`, the fact a model needs most) last. Any other last
/// line (`[session: exited …]`) is kept. Unchanged when it is already shorter, or when its
/// first and last lines alone are not (the seed's cut of the metadata's tail then applies).
fn shed_metadata_lines(metadata: &str, max_bytes: usize) -> std::borrow::Cow<'_, str> {
    /// The order lines are left out in: the lower first, the longer first among equals.
    fn shed_rank(line: &str, is_last: bool) -> u8 {
        if line.starts_with("[exit: ") {
            2
        } else if is_last {
            1
        } else {
            0
        }
    }
    if metadata.len() < max_bytes {
        return std::borrow::Cow::Borrowed(metadata);
    }
    let Some(rest) = metadata.strip_prefix('\n') else {
        return std::borrow::Cow::Borrowed(metadata);
    };
    let lines: Vec<&str> = rest.split('\n').collect();
    let [first, .., last] = lines.as_slice() else {
        return std::borrow::Cow::Borrowed(metadata);
    };
    let line_bytes = |line: &str| line.len() + 1;
    if line_bytes(first) + line_bytes(last) >= max_bytes {
        return std::borrow::Cow::Borrowed(metadata);
    }
    let last_index = lines.len() - 1;
    let running = super::session_line(&StatusOutput::Running);
    let sheddable = |i: usize| i < last_index || lines[i] == running;
    let mut order: Vec<usize> = (1..lines.len()).filter(|&i| sheddable(i)).collect();
    order.sort_by_key(|&i| {
        (
            shed_rank(lines[i], i == last_index),
            std::cmp::Reverse(lines[i].len()),
        )
    });
    let mut kept = vec![true; lines.len()];
    let mut total = metadata.len();
    for i in order {
        if total < max_bytes {
            break;
        }
        kept[i] = false;
        total -= line_bytes(lines[i]);
    }
    let mut out = String::with_capacity(total);
    for (line, _) in lines.iter().zip(&kept).filter(|(_, keep)| **keep) {
        out.push('\n');
        out.push_str(line);
    }
    std::borrow::Cow::Owned(out)
}

/// Bounds one complete result text to `max_bytes`, keeping its head and appending
/// [`TRUNCATED`] (seed `boundTerminalText`). If the marker alone does not fit, returns the tail
/// of the marker cut to the cap.
pub fn bound_terminal_text(text: &str, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text.to_owned();
    }
    if TRUNCATED.len() >= max_bytes {
        return tail(TRUNCATED, max_bytes);
    }
    format!("{}{TRUNCATED}", head(text, max_bytes - TRUNCATED.len()))
}
