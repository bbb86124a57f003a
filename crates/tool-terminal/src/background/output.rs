//! A background send's unread output, kept as whole lines within the job's result budget.
//!
//! The job drains the send's consuming reads often (so the core's own read bound rarely drops
//! anything) into an [`OutputWindow`]: the first lines since the previous `job_output` read
//! (at most a quarter of the room), the newest lines, and counts of what lies between them.
//! Memory is bounded by the budget. A read then shows those lines around the foreground
//! send's omission line (`fit`'s texts: one home per fact), with `terminal_read` arguments
//! that page the left-out lines the scrollback still holds, counted back from the line being
//! written (the newest line, offset 0) at the moment of the read.
//!
//! While the job runs, the line being written (the text after the last newline) is held back
//! until it ends, so a read never ends with a fragment of a line; it is shown in a note after
//! the read's whole lines (when the note fits the room, and always when nothing else is new),
//! and as it is once the job has ended. Each kept line longer than a
//! quarter of the room keeps its start and end around `render::line_cut_marker` (when that
//! makes it shorter). Under a limit too small for the long omission line beside any output,
//! the short one stands for the left-out lines (`render::short_omission_line`).

use std::collections::VecDeque;

use dsh_output_retention::{head_slice, tail_slice};

use crate::fit::Budget;
use crate::render;
use crate::schema::{OmittedOutput, ReadPointer};

/// Bytes of a job's output limit left for the job tools' status line (`[status: …]`), so they
/// never have to cut the output: at most a quarter of a small limit (a status line is about 50
/// bytes; a longer one makes them cut the output's oldest whole lines instead).
pub(crate) const STATUS_RESERVE: usize = 256;

/// [`STATUS_RESERVE`] for a job whose results are bounded to `limit` bytes.
pub(crate) fn status_reserve(limit: usize) -> usize {
    STATUS_RESERVE.min(limit / 4)
}

/// The note that shows the line being written when a read has nothing else new.
pub(crate) fn unfinished_line_note(line: &str) -> String {
    format!("[line still being written, shown whole once it ends: {line}]")
}

/// What lies between a read's first lines and its newest lines.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Gap {
    /// Lines left out (estimated ones included).
    lines: u64,
    /// Bytes left out (screen text, each line with its newline; estimated ones included).
    bytes: u64,
    /// Of `lines`, how many were estimated: the core dropped them before the job read them.
    estimated: u64,
    /// The newest lines of the gap that were counted one by one after its last estimated part:
    /// their `terminal_read` offsets are exact.
    exact_newest: u64,
}

/// See the module docs.
#[derive(Debug)]
pub(crate) struct OutputWindow {
    /// Bytes for a read's output, omission line included.
    room: usize,
    /// The limit leaves too little room for the long omission line: reads use the short one.
    short_omission: bool,
    /// Bytes for a read's first lines.
    head_room: usize,
    /// Longest line kept whole.
    max_line: usize,
    /// Lines longer than this are cut around the line-cut marker (`render::cut_over`).
    cut_over: usize,
    head: String,
    /// Whether lines still go to `head` (until one does not fit, or something was lost).
    head_open: bool,
    /// The newest whole lines, each ending in `\n`, with the bytes the program printed for
    /// each (its newline included).
    tail: VecDeque<(String, u64)>,
    tail_bytes: usize,
    gap: Gap,
    /// The line being written: its start, and the bytes cut from its middle when it outgrew
    /// `max_line` (the start is then its first half, `carry_end` its newest half).
    carry: String,
    carry_cut: u64,
    carry_end: String,
    /// How `carry_cut` counts: exactly, or about (the core dropped part of the line before
    /// the job read it: counted from the raw bytes the terminal read).
    carry_count: CutCount,
    /// Lines an earlier read showed that the program went back up into and rewrote since:
    /// the next read shows them again and says so.
    rewound_shown: u64,
    /// The number of the line being written (from the session's first line), as the newest
    /// output pushed gave it (see [`OutputWindow::note_newest_line`]).
    newest_line: Option<u64>,
    /// What the core said about the text of output pushed since the last read (see
    /// `SendRead::notices`), each once.
    notices: Vec<String>,
}

/// How a cut's byte count counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum CutCount {
    #[default]
    Exact,
    About,
}

impl OutputWindow {
    /// A window for a job whose results are bounded to `limit` bytes; `session_id` sizes the
    /// widest omission line.
    pub(crate) fn new(limit: usize, session_id: &str) -> Self {
        let available = limit.saturating_sub(status_reserve(limit));
        let long = crate::fit::widest_omission_len(session_id) + 1;
        let short = crate::fit::widest_short_omission_len() + 1;
        let omission = crate::fit::omission_room(available, long, short);
        let short_omission = omission != long;
        let room = available.saturating_sub(omission).max(1);
        let Budget {
            head_room,
            max_line,
        } = Budget::for_room(room);
        Self {
            room,
            short_omission,
            head_room,
            max_line,
            cut_over: render::cut_over(max_line),
            head: String::new(),
            head_open: true,
            tail: VecDeque::new(),
            tail_bytes: 0,
            gap: Gap::default(),
            carry: String::new(),
            carry_cut: 0,
            carry_end: String::new(),
            carry_count: CutCount::Exact,
            rewound_shown: 0,
            newest_line: None,
            notices: Vec::new(),
        }
    }

    /// Notes what the core said about the text of the output just pushed (see
    /// `SendRead::notices`): the next read says it after its output, while the job runs (once
    /// it ended, the job's last notices say it for its whole send).
    pub(crate) fn note_notices(&mut self, notices: Vec<String>) {
        for notice in notices {
            if !self.notices.contains(&notice) {
                self.notices.push(notice);
            }
        }
    }

    /// The output just pushed ends with line number `line` (from the session's first line;
    /// `None` when not known): an omission points `terminal_read` at its lines by number.
    pub(crate) fn note_newest_line(&mut self, line: Option<u64>) {
        self.newest_line = line;
    }

    /// The line being written, as far as it is kept (`None` when there is none, or when it
    /// outgrew the line bound).
    pub(crate) fn unfinished(&self) -> Option<&str> {
        (self.carry_cut == 0 && !self.carry.is_empty()).then_some(self.carry.as_str())
    }

    /// Adds `text`, the output that follows what was pushed before. When `rewritten`, its
    /// first line is the whole line being written (the program rewrote it from its start),
    /// not its continuation.
    pub(crate) fn push(&mut self, text: &str, rewritten: bool) {
        if rewritten {
            self.clear_carry();
        }
        for segment in text.split_inclusive('\n') {
            match segment.strip_suffix('\n') {
                Some(rest) => {
                    self.extend_carry(rest);
                    let printed = self.carry_printed_bytes();
                    let line = self.take_carry();
                    self.push_line(line, printed);
                }
                None => self.extend_carry(segment),
            }
        }
    }

    /// Takes back the newest `lines` whole lines no read has shown yet, and the line being
    /// written: the program redrew them (a progress display moved up to rewrite its rows), and
    /// the output pushed next shows them as they are now. Lines a read already showed stay,
    /// and the next read says they were rewritten; lines only the gap counts stay.
    pub(crate) fn rewind(&mut self, lines: u64) {
        if lines == 0 {
            return;
        }
        self.clear_carry();
        let mut left = lines;
        while left > 0
            && let Some((line, _)) = self.tail.pop_back()
        {
            self.tail_bytes -= line.len();
            left -= 1;
        }
        if self.gap.lines > 0 {
            return;
        }
        while left > 0 && !self.head.is_empty() {
            let body = &self.head[..self.head.len() - 1];
            let start = body.rfind('\n').map_or(0, |i| i + 1);
            self.head.truncate(start);
            left -= 1;
        }
        self.rewound_shown += left;
    }

    /// Records output the core dropped before the job read it (`text` is the newest part of
    /// that span, starting anywhere in a line): about `lost_lines` lines and `lost_bytes`
    /// bytes, then `text`'s whole lines. With `one_line`, the dropped output held no line end:
    /// `text` continues the line being written (a huge line, its start dropped too when the
    /// read before ended at a line end), whose cut then counts the dropped bytes (about).
    pub(crate) fn push_after_loss(
        &mut self,
        text: &str,
        lost_lines: u64,
        lost_bytes: u64,
        one_line: bool,
    ) {
        if one_line {
            self.skip_in_carry(lost_bytes);
            self.push(text, false);
            return;
        }
        self.head_open = false;
        // Everything not shown yet now lies before an uncounted stretch: the gap.
        while let Some((_, printed)) = self.tail.pop_front() {
            self.gap.lines += 1;
            self.gap.bytes += printed;
        }
        self.tail_bytes = 0;
        // The line being written and the start of `text` are parts of lines cut by the loss.
        let (fragment, rest) = match text.find('\n') {
            Some(i) => text.split_at(i + 1),
            None => (text, ""),
        };
        let partial = self.carry.len() as u64 + self.carry_cut + self.carry_end.len() as u64;
        self.clear_carry();
        let lines = lost_lines + 1;
        self.gap.lines += lines;
        self.gap.estimated += lines;
        self.gap.bytes += lost_bytes + partial + fragment.len() as u64;
        self.gap.exact_newest = 0;
        if rest.is_empty() && !fragment.ends_with('\n') {
            // No line of `text` is whole: the line being written continues from nowhere known.
            return;
        }
        self.push(rest, false);
    }

    /// Renders and forgets the unread output: the first lines, the omission line, the newest
    /// lines, then the line being written when `finished` (or, alone in a note, when nothing
    /// else is new). `retained_lines` is the session's retained line count now (`None` when the
    /// session is gone), which bounds what `terminal_read` can still page.
    pub(crate) fn take(
        &mut self,
        finished: bool,
        retained_lines: Option<u64>,
        session_id: &str,
    ) -> String {
        // The line being written of a job that ended is shown whole: room is made for it
        // among the newest lines, as for a line that ended (the read must stay within the
        // job's limit, whose cut would drop the first lines instead).
        let last = finished.then(|| self.take_carry());
        let last_len = last.as_ref().map_or(0, String::len);
        while self.head.len() + self.tail_bytes + last_len > self.room
            && let Some((old, printed)) = self.tail.pop_front()
        {
            self.tail_bytes -= old.len();
            self.gap.lines += 1;
            self.gap.bytes += printed;
            self.gap.exact_newest += 1;
        }
        let mut out = std::mem::take(&mut self.head);
        if self.gap.lines > 0 {
            // The line being written is offset 0; the newest kept whole line is offset 1.
            let newest = self.tail.len() as u64 + 1;
            let pageable = retained_lines
                .map_or(0, |total| total.saturating_sub(newest))
                .min(self.gap.exact_newest);
            let omitted = OmittedOutput {
                after_line: 0,
                lines: self.gap.lines,
                bytes: self.gap.bytes,
                not_retained_lines: self.gap.lines - pageable,
                terminal_read: (pageable > 0)
                    .then(|| ReadPointer::new(session_id, newest, pageable, self.newest_line)),
            };
            out.push_str(&if self.short_omission {
                render::short_omission_line(&omitted)
            } else {
                render::omission_line(&omitted)
            });
            out.push('\n');
        }
        for (line, _) in self.tail.drain(..) {
            out.push_str(&line);
        }
        self.tail_bytes = 0;
        self.gap = Gap::default();
        self.head_open = true;
        if let Some(line) = last {
            out.push_str(&line);
        } else if let Some(line) = self.unfinished_shown() {
            // After the read's whole lines when it fits the room (a prompt without a newline
            // is often what the model must see next). The line of a binary run going on says
            // so itself.
            let note = if dsh_terminal_core::is_open_binary_run_line(&line) {
                line
            } else {
                unfinished_line_note(&line)
            };
            if out.is_empty() {
                out = note;
            } else if out.len() + note.len() <= self.room {
                out.push_str(&note);
            }
        }
        // Lines earlier reads showed were rewritten: said after what shows them now.
        let rewound = std::mem::take(&mut self.rewound_shown);
        if rewound > 0 {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            // The reads took every rewound line again, unchanged ones too (see `rewind`).
            out.push_str(&dsh_terminal_core::rewound_notice(rewound, false));
        }
        let notices = std::mem::take(&mut self.notices);
        if !finished && !notices.is_empty() {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&notices.join("\n"));
        }
        out
    }

    /// The line being written as a note shows it: whole, or its start and newest end around
    /// the line-cut marker once it outgrew the line bound; `None` when there is none.
    fn unfinished_shown(&self) -> Option<String> {
        if self.carry.is_empty() && self.carry_end.is_empty() {
            return None;
        }
        let mut line = self.carry.clone();
        if self.carry_cut > 0 {
            line.push_str(&match self.carry_count {
                CutCount::Exact => {
                    render::line_cut_marker(usize::try_from(self.carry_cut).unwrap_or(usize::MAX))
                }
                CutCount::About => render::line_cut_marker_about(self.carry_cut),
            });
        }
        line.push_str(&self.carry_end);
        Some(line)
    }

    fn clear_carry(&mut self) {
        self.carry.clear();
        self.carry_end.clear();
        self.carry_cut = 0;
        self.carry_count = CutCount::Exact;
    }

    /// `lost_bytes` of the line being written were dropped before the job read them: its
    /// kept start stays, the end kept so far and the lost bytes become its cut.
    fn skip_in_carry(&mut self, lost_bytes: u64) {
        if self.carry_cut == 0 && self.carry_end.is_empty() {
            let start = head_slice(&self.carry, self.max_line / 2).len();
            self.carry_end = self.carry.split_off(start);
        }
        self.carry_cut += self.carry_end.len() as u64 + lost_bytes;
        self.carry_end.clear();
        self.carry_count = CutCount::About;
    }

    /// Bytes of the line being written as the program printed it (what a cut left out
    /// included).
    fn carry_printed_bytes(&self) -> u64 {
        self.carry.len() as u64 + self.carry_cut + self.carry_end.len() as u64
    }

    /// Appends to the line being written, keeping its start and end within `max_line` once
    /// it is over `cut_over`.
    fn extend_carry(&mut self, text: &str) {
        let whole = self.carry_cut == 0 && self.carry_end.is_empty();
        if whole && self.carry.len() + text.len() <= self.cut_over {
            self.carry.push_str(text);
            return;
        }
        let keep = self.max_line / 2;
        if whole {
            // First overflow: the start (of what was kept and `text` together) stays, the
            // rest becomes the end.
            self.carry.push_str(text);
            let start = head_slice(&self.carry, keep).len();
            self.carry_end = self.carry.split_off(start);
        } else {
            self.carry_end.push_str(text);
        }
        let end = tail_slice(&self.carry_end, keep).len();
        let cut = self.carry_end.len() - end;
        if cut > 0 {
            self.carry_end.drain(..cut);
            self.carry_cut += cut as u64;
        }
    }

    /// The line being written, whole or cut around `render::line_cut_marker`, and resets it.
    fn take_carry(&mut self) -> String {
        let line = self.unfinished_shown().unwrap_or_default();
        self.clear_carry();
        line
    }

    /// Adds one whole line (without its newline; `printed` bytes as the program printed it):
    /// to the first lines while they have room, else to the newest lines, moving the oldest of
    /// those into the gap (counted by what was printed).
    fn push_line(&mut self, mut line: String, printed: u64) {
        // Already within the line bound (or cut around its marker) by the carry: cutting it
        // again would cut the marker itself.
        line.push('\n');
        if self.head_open && self.head.len() + line.len() <= self.head_room {
            self.head.push_str(&line);
            return;
        }
        self.head_open = false;
        self.tail_bytes += line.len();
        self.tail.push_back((line, printed + 1));
        let tail_room = self.room - self.head.len().min(self.room);
        while self.tail_bytes > tail_room
            && let Some((old, printed)) = self.tail.pop_front()
        {
            self.tail_bytes -= old.len();
            self.gap.lines += 1;
            self.gap.bytes += printed;
            self.gap.exact_newest += 1;
        }
    }
}

#[cfg(test)]
mod tests;
