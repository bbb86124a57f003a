//! Fitting a foreground send's output into the result budget (`max_result_bytes`).
//!
//! Output that does not fit keeps its first lines (the command line and what the command
//! printed first, as far as the scrollback still holds them; at most a quarter of the budget)
//! and its newest lines, both cut at line
//! boundaries, and records what was left out between them ([`OmittedOutput`]): the line and
//! byte counts, and the `terminal_read` arguments that page exactly those lines. The viewport
//! of a send is the newest part of the session's scrollback when the send settles (except a
//! full-screen program's screen, which gets no arguments), so its lines count back from the
//! newest retained line the way `terminal_read`'s newest-relative offsets do.

use crate::render::{self, TRUNCATED, tail_lines};
use crate::schema::{InputModeOutput, OmittedOutput, ReadPointer, SendOutput};

/// Below this many bytes of room for output, keeping a head is not worth its omission line:
/// only the newest output is kept.
const MIN_BODY_BYTES: usize = 512;

/// Share of the output room the first lines may take, as a divisor (a quarter).
const HEAD_SHARE_DIVISOR: usize = 4;

/// Fits a foreground send's viewport so that its render is within `max_bytes`, keeping the
/// first and the newest lines (see the module docs). Marks the output truncated when anything
/// was cut; a background send is left as it is.
pub(crate) fn fit_send(output: &mut SendOutput, session_id: &str, max_bytes: usize) {
    if !matches!(output, SendOutput::Foreground { .. })
        || render::render_send(output, usize::MAX).len() <= max_bytes
    {
        return;
    }
    let was_truncated = matches!(
        output,
        SendOutput::Foreground {
            truncated: true,
            ..
        }
    );
    let fixed = mark_cut(output, session_id);
    let SendOutput::Foreground {
        viewport,
        truncated,
        input_mode,
        omitted,
        ..
    } = output
    else {
        return;
    };
    let text = std::mem::take(viewport);
    let room = max_bytes.saturating_sub(fixed);
    if room < MIN_BODY_BYTES {
        // Too small for a head: the newest output only (the render bounds it further).
        *omitted = None;
        *viewport = tail_lines(&text, max_bytes);
        return;
    }
    let head_len = whole_lines_within(&text, room / HEAD_SHARE_DIVISOR);
    let rest = &text[head_len..];
    let tail = tail_lines(rest, room - head_len);
    let gap = head_len..head_len + rest.len() - tail.len();
    if gap.is_empty() {
        // Nothing to leave out after all: the output stays whole, as the core reported it.
        *truncated = was_truncated;
        *omitted = None;
        *viewport = text;
        return;
    }
    // Line numbers from the viewport's first line; the last one is the newest retained line.
    let line_at = |at: usize| text[..at].matches('\n').count() as u64;
    let newest = line_at(text.len());
    let first_omitted = line_at(gap.start);
    let last_omitted = line_at(gap.end - 1);
    let lines = last_omitted - first_omitted + 1;
    let pageable = *input_mode != InputModeOutput::AlternateScreen;
    *omitted = Some(OmittedOutput {
        after_line: text[..head_len].matches('\n').count(),
        lines,
        bytes: gap.len() as u64,
        terminal_read: pageable.then(|| ReadPointer {
            session_id: session_id.to_owned(),
            offset: newest - last_omitted,
            count: lines,
        }),
    });
    *viewport = format!("{}{tail}", &text[..head_len]);
}

/// Marks a foreground send cut, with the widest omission it could get, and returns the bytes
/// its render needs besides the kept output (metadata, omission line, truncation marker).
fn mark_cut(output: &mut SendOutput, session_id: &str) -> usize {
    let widest = OmittedOutput {
        after_line: 0,
        lines: u64::MAX,
        bytes: u64::MAX,
        terminal_read: Some(ReadPointer {
            session_id: session_id.to_owned(),
            offset: u64::MAX,
            count: u64::MAX,
        }),
    };
    let omission = render::omission_line(&widest).len() + 1;
    if let SendOutput::Foreground {
        truncated, omitted, ..
    } = output
    {
        *truncated = true;
        *omitted = Some(widest);
    }
    render::send_metadata(output).len() + omission + TRUNCATED.len()
}

/// Length of the longest prefix of `text` made of whole lines (each ending in `\n`) within
/// `max_bytes`.
fn whole_lines_within(text: &str, max_bytes: usize) -> usize {
    let mut len = 0;
    for line in text.split_inclusive('\n') {
        if !line.ends_with('\n') || len + line.len() > max_bytes {
            break;
        }
        len += line.len();
    }
    len
}

#[cfg(test)]
mod tests;
