//! Fitting a foreground send's output into the result budget (`max_result_bytes`).
//!
//! Output that does not fit keeps its first lines (the command line and what the command
//! printed first, at most a quarter of the budget; kept by the core while the send ran when
//! the scrollback no longer holds them) and its newest lines, both cut at line boundaries,
//! and records what was left out between them ([`OmittedOutput`]): the line and byte counts,
//! how many of those lines are no longer retained, and the `terminal_read` arguments that
//! page the retained ones. A single line longer than a quarter of the room keeps its start and
//! end around a marker with the bytes cut from its middle. The viewport
//! of a send is the newest part of the session's scrollback when the send settles (except a
//! full-screen program's screen, which gets no arguments), so its lines count back from the
//! newest retained line the way `terminal_read`'s newest-relative offsets do.

use dsh_terminal_core::{LineStart, SendHead};

use crate::render::{self, TRUNCATED, tail_lines};
use crate::schema::{InputModeOutput, OmittedOutput, ReadPointer, SendOutput};

/// Share of the output room the first lines may take, as a divisor (a quarter).
const HEAD_SHARE_DIVISOR: usize = 4;

/// Fewest bytes a line keeps when it is cut around a marker (its first and last halves), while
/// the room allows: a quarter of a small room would keep little of it beside the marker.
const MIN_CUT_LINE_BYTES: usize = 512;

/// How `room` bytes of output are shared when not all of it fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Budget {
    /// Bytes the first lines may take: a quarter of the room (whole lines only, so none when
    /// the first line is longer).
    pub(crate) head_room: usize,
    /// Bytes over which a line is cut around a marker: a quarter of the room, at least
    /// [`MIN_CUT_LINE_BYTES`] while that is at most half the room.
    pub(crate) max_line: usize,
}

impl Budget {
    /// The budget for `room` bytes of output.
    pub(crate) fn for_room(room: usize) -> Self {
        Self {
            head_room: room / HEAD_SHARE_DIVISOR,
            max_line: (room / HEAD_SHARE_DIVISOR).max(MIN_CUT_LINE_BYTES.min(room / 2)),
        }
    }
}

/// Where a send's omission line points `terminal_read`: the session, and the number of the
/// viewport's last line (from the session's first line) when known.
#[derive(Clone, Copy)]
pub(crate) struct Pages<'a> {
    pub(crate) session_id: &'a str,
    pub(crate) newest_line: Option<u64>,
}

impl Pages<'_> {
    /// The pointer to the `count` lines ending `offset` lines before the viewport's last.
    fn pointer(self, offset: u64, count: u64) -> ReadPointer {
        ReadPointer::new(self.session_id, offset, count, self.newest_line)
    }
}

/// Fits a foreground send's viewport so that its render is within `max_bytes`, keeping the
/// first and the newest lines (see the module docs). Marks the output truncated when anything
/// was cut; a background send is left as it is. A kept head is always placed, with the
/// omission line that says what lies between it and the viewport, even when the viewport
/// alone fits (short lines: the scrollback's row bound, not the byte bound, lost the start).
/// A render that fits only because runs of one line repeated fold into a count leaves the
/// structured viewport folded the same way (see [`fold_structured_repeats`]).
pub(crate) fn fit_send(output: &mut SendOutput, pages: Pages<'_>, max_bytes: usize) {
    let session_id = pages.session_id;
    let kept_head = matches!(output, SendOutput::Foreground { head: Some(_), .. });
    if !matches!(output, SendOutput::Foreground { .. }) {
        return;
    }
    if !kept_head {
        let rendered = render::render_send(output, usize::MAX);
        if rendered.len() <= max_bytes {
            fold_structured_repeats(output, &rendered, max_bytes);
            return;
        }
    }
    let was_truncated = matches!(
        output,
        SendOutput::Foreground {
            truncated: true,
            ..
        }
    );
    let (fixed, omission_reserve) = mark_cut(output, session_id, max_bytes);
    let SendOutput::Foreground {
        viewport,
        truncated,
        input_mode,
        omitted,
        head,
        ..
    } = output
    else {
        return;
    };
    let room = max_bytes.saturating_sub(fixed);
    // A line over a quarter of the room keeps its start and end around a cut marker, so that
    // one huge line does not crowd out (or itself become) the whole omission.
    let Budget {
        head_room,
        max_line,
    } = Budget::for_room(room);
    // A viewport that begins inside one huge line shows that line's kept start, then its end.
    let joined = head
        .as_ref()
        .and_then(|h| h.line_start.as_ref())
        .map(|start| join_line_start(viewport, start, max_line, true));
    // Bytes of each viewport line as the program printed it (with its newline), before any
    // cut: what an omission counts. A joined first line counts its cut-off start too.
    let start_bytes = head
        .as_ref()
        .and_then(|h| h.line_start.as_ref())
        .map_or(0, |start| start.text.len() as u64 + start.omitted_bytes);
    let original_lines: Vec<u64> = viewport
        .split_inclusive('\n')
        .enumerate()
        .map(|(i, line)| line.len() as u64 + if i == 0 { start_bytes } else { 0 })
        .collect();
    let original_bytes = |lines: std::ops::Range<usize>| {
        original_lines
            .get(lines)
            .unwrap_or_default()
            .iter()
            .sum::<u64>()
    };
    let (mut text, lines_cut) = match render::cut_long_lines(viewport, max_line) {
        (std::borrow::Cow::Owned(cut), true) => (cut, true),
        _ => (std::mem::take(viewport), joined.is_some()),
    };
    if let Some(first) = joined {
        text.replace_range(..text.find('\n').unwrap_or(text.len()), &first);
    }
    if let Some(mut head) = head.take() {
        let head_lines: Vec<u64> = head
            .text
            .split_inclusive('\n')
            .map(|line| line.len() as u64)
            .collect();
        if let (std::borrow::Cow::Owned(cut), true) = render::cut_long_lines(&head.text, max_line) {
            head.text = cut;
        }
        let printed = Printed {
            head_lines: &head_lines,
            viewport_bytes: &original_bytes,
        };
        let kept = fit_with_kept_head(viewport, &head, &text, &printed, room, head_room, pages);
        // Nothing between the kept head and the tail (one huge line cut in its middle has its
        // own marker): no omission line.
        *omitted = (kept.lines > 0).then_some(kept);
        return;
    }
    let head_len = whole_lines_within(&text, head_room);
    let rest = &text[head_len..];
    let tail = tail_lines(rest, room - head_len);
    let gap = head_len..head_len + rest.len() - tail.len();
    // One line left out (a huge line, already cut around its marker) whose cut form fits the
    // bytes the omission line would take: shown instead of the omission line that would stand
    // for it.
    let one_line_fits = text[gap.clone()].matches('\n').count() <= 1
        && head_len + gap.len() + tail.len() <= room + omission_reserve;
    if gap.is_empty() || one_line_fits {
        // No line to leave out after all: the output stays whole but for over-long lines'
        // middles.
        *truncated = was_truncated || lines_cut || !gap.is_empty();
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
        bytes: original_bytes(first_omitted as usize..last_omitted as usize + 1),
        not_retained_lines: 0,
        terminal_read: pageable.then(|| pages.pointer(newest - last_omitted, lines)),
    });
    *viewport = format!("{}{tail}", &text[..head_len]);
}

/// The first line of `text` (the end of a huge line) preceded by the line's kept `start`: the
/// start's first and the line's last `max_line / 2` bytes around the line-cut marker, which
/// counts every byte between them (`about` when the count is an estimate: the scrollback may
/// have dropped some; `at least` when the scrollback no longer keeps the line's start, which
/// then is not shown).
pub(crate) fn join_line_start(
    viewport: &str,
    start: &LineStart,
    max_line: usize,
    about: bool,
) -> String {
    let keep = max_line / 2;
    let first = &viewport[..viewport.find('\n').unwrap_or(viewport.len())];
    let shown_start = dsh_output_retention::head_slice(&start.text, keep);
    let last = dsh_output_retention::tail_slice(first, keep);
    let omitted = (start.text.len() - shown_start.len()) as u64
        + start.omitted_bytes
        + (first.len() - last.len()) as u64;
    let marker = if start.start_dropped {
        render::line_cut_marker_at_least(omitted)
    } else if about {
        render::line_cut_marker_about(omitted)
    } else {
        render::line_cut_marker(usize::try_from(omitted).unwrap_or(usize::MAX))
    };
    format!("{shown_start}{marker}{last}")
}

/// The sizes of a kept head's and a viewport's lines as printed, before over-long lines were
/// cut for the result: what an omission counts.
struct Printed<'a> {
    /// Bytes of each of the head's lines, with its newline.
    head_lines: &'a [u64],
    /// Bytes of a range of the viewport's lines, with their newlines.
    viewport_bytes: &'a dyn Fn(std::ops::Range<usize>) -> u64,
}

/// Sets `viewport` to the kept head's first lines and the newest lines of `text` (a viewport
/// that lost its start); returns what was left out between them: the head's other lines, the
/// rows no longer retained, and the start of `text` (pageable), counted as `printed`.
fn fit_with_kept_head(
    viewport: &mut String,
    head: &SendHead,
    text: &str,
    printed: &Printed<'_>,
    room: usize,
    head_room: usize,
    pages: Pages<'_>,
) -> OmittedOutput {
    let head_len = whole_lines_within(&head.text, head_room);
    let tail = tail_lines(text, room - head_len);
    let retained_gap = &text[..text.len() - tail.len()];
    let head_rest = &head.text[head_len..];
    // The head's lines left out: the scrollback dropped its first `lines_dropped` lines; the
    // others are pageable, just before the rows between the head and the viewport.
    let head_rest_lines = head_rest.matches('\n').count() as u64;
    let head_shown = head.text[..head_len].matches('\n').count() as u64;
    let head_rest_dropped = head
        .lines_dropped
        .saturating_sub(head_shown)
        .min(head_rest_lines);
    let gap_lines = retained_gap.matches('\n').count() as u64;
    let retained_lines =
        gap_lines + head.retained_lines_before + (head_rest_lines - head_rest_dropped);
    let not_retained = head.lines_between + head_rest_dropped;
    let newest = text.matches('\n').count() as u64;
    let omitted = OmittedOutput {
        after_line: head.text[..head_len].matches('\n').count(),
        lines: retained_lines + not_retained,
        bytes: (printed.viewport_bytes)(0..gap_lines as usize)
            + printed
                .head_lines
                .iter()
                .skip(head_shown as usize)
                .sum::<u64>()
            + head.retained_bytes_before,
        not_retained_lines: not_retained,
        // The page ends just before the kept tail, and reaches back over the gap.
        terminal_read: (retained_lines > 0)
            .then(|| pages.pointer(newest + 1 - gap_lines, retained_lines)),
    };
    *viewport = format!("{}{tail}", &head.text[..head_len]);
    omitted
}

/// Marks a foreground send cut, with the widest omission it could get, and returns the bytes
/// its render within `max_bytes` needs besides the kept output (metadata, omission line,
/// truncation marker) and, of those, the omission line's. The omission line is the long one
/// (with the `terminal_read` arguments) when it leaves at least its own length for output,
/// else the short one, which the render then uses too (it falls back to it when the long one
/// does not fit).
fn mark_cut(output: &mut SendOutput, session_id: &str, max_bytes: usize) -> (usize, usize) {
    let (kept_head, output_bytes) = match output {
        SendOutput::Foreground {
            head, output_bytes, ..
        } => (head.is_some(), *output_bytes),
        SendOutput::Background { .. } => (false, 0),
    };
    let widest = widest_omission(session_id, kept_head, count_bound(output_bytes));
    let long = render::omission_line(&widest).len() + 1;
    let short = render::short_omission_line(&widest).len() + 1;
    if let SendOutput::Foreground {
        truncated, omitted, ..
    } = output
    {
        *truncated = true;
        *omitted = Some(widest);
    }
    let fixed = render::send_metadata(output).len() + TRUNCATED.len();
    let omission = omission_room(max_bytes.saturating_sub(fixed), long, short);
    (fixed + omission, omission)
}

/// Bytes the omission line takes out of `available` (output and omission line together):
/// the `long` one when it leaves at least its own length for output, else the `short` one.
pub(crate) fn omission_room(available: usize, long: usize, short: usize) -> usize {
    if available.saturating_sub(long) >= long {
        long
    } else {
        short
    }
}

/// A bound on every count of an omission from an output of `output_bytes` bytes: lines left
/// out, and their bytes, are at most the output's, and a `terminal_read` offset into it at
/// most its lines and the prompt's; with a digit to spare. An omission line sized by it
/// leaves room for output a caller can read beside the paging arguments under a small cap
/// (sized by `u64::MAX`, a 400-byte cap lost the arguments to a line the counts never
/// need); the render falls back to the short line in any case when the long one does not fit.
fn count_bound(output_bytes: u64) -> u64 {
    output_bytes.saturating_mul(10).saturating_add(1000)
}

/// The omission with the longest line: every count at its widest (`bound`), the
/// `terminal_read` arguments present, and (`not_retained`) the "no longer retained" wording.
fn widest_omission(session_id: &str, not_retained: bool, bound: u64) -> OmittedOutput {
    OmittedOutput {
        after_line: 0,
        lines: bound,
        bytes: bound,
        not_retained_lines: if not_retained { bound } else { 0 },
        terminal_read: Some(ReadPointer {
            session_id: session_id.to_owned(),
            offset: bound,
            count: bound,
            from_line: Some(bound),
        }),
    }
}

/// Bytes of the longest omission line any output of session `session_id` can get.
pub(crate) fn widest_omission_len(session_id: &str) -> usize {
    [false, true]
        .map(|not_retained| {
            render::omission_line(&widest_omission(session_id, not_retained, u64::MAX)).len()
        })
        .into_iter()
        .max()
        .unwrap_or(0)
}

/// Bytes of the longest short omission line (see [`render::short_omission_line`]).
pub(crate) fn widest_short_omission_len() -> usize {
    [0, u64::MAX]
        .map(|not_retained| {
            let omitted = OmittedOutput {
                not_retained_lines: not_retained,
                ..widest_omission("", false, u64::MAX)
            };
            render::short_omission_line(&omitted).len()
        })
        .into_iter()
        .max()
        .unwrap_or(0)
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

/// A viewport over `max_bytes` whose render (`rendered`) fits because runs of one line
/// repeated fold into a count there: the structured viewport holds them folded too (it held
/// every line, many times the bound), when the text renders the same from it.
fn fold_structured_repeats(output: &mut SendOutput, rendered: &str, max_bytes: usize) {
    let SendOutput::Foreground { viewport, .. } = output else {
        return;
    };
    if viewport.len() <= max_bytes {
        return;
    }
    let std::borrow::Cow::Owned(folded) = render::fold_repeats(viewport) else {
        return;
    };
    let original = std::mem::replace(viewport, folded);
    if render::render_send(output, usize::MAX) != rendered
        && let SendOutput::Foreground { viewport, .. } = output
    {
        *viewport = original;
    }
}

#[cfg(test)]
mod tests;
