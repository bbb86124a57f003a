//! Byte budgets for model-visible text: keep the head, the tail, or both, cut only on UTF-8
//! boundaries, and count exactly what was left out (the seed's §7.1).
//!
//! [`TextRetainer`] is the one output-budget type of the workspace: every tool and job that
//! bounds text uses it (or the [`head`] / [`tail`] conveniences built on it) instead of ad-hoc
//! truncation. Memory is bounded by the budget: the head is a fixed-capacity buffer, the tail a
//! ring buffer, and a pushed chunk is only borrowed. [`TextRetainer::finish`] returns a
//! [`Retained`] whose [`Omitted`] count is the number of input bytes absent from the text,
//! including partial code points trimmed at a cut.
//!
//! ```
//! use dsh_output_retention::{Omitted, Strategy, TextRetainer, describe_omitted};
//!
//! let mut r = TextRetainer::new(Strategy::HeadTail { head_bytes: 4, tail_bytes: 4 });
//! r.push_str("head-");
//! r.push_str("middle-");
//! r.push_str("tail");
//! let out = r.finish();
//! assert_eq!(out.text, "headtail");
//! assert_eq!(out.omitted_bytes, Omitted::Exact(8));
//! assert_eq!(describe_omitted(&out.omitted_bytes, "bytes"), "Omitted 8 bytes.");
//! ```

#![forbid(unsafe_code)]

use std::collections::VecDeque;

/// Which part of the input a [`TextRetainer`] keeps. Budgets are in bytes of UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Keep the first `max_bytes` bytes (the result may be up to 3 bytes shorter when the cut
    /// falls inside a code point).
    Head {
        /// Byte budget for the kept prefix.
        max_bytes: usize,
    },
    /// Keep the last `max_bytes` bytes (cut forward to the next code point boundary).
    Tail {
        /// Byte budget for the kept suffix.
        max_bytes: usize,
    },
    /// Keep the first `head_bytes` and the last `tail_bytes` bytes; drop the middle.
    HeadTail {
        /// Byte budget for the kept prefix.
        head_bytes: usize,
        /// Byte budget for the kept suffix.
        tail_bytes: usize,
    },
}

impl Strategy {
    fn budgets(self) -> (usize, usize) {
        match self {
            Strategy::Head { max_bytes } => (max_bytes, 0),
            Strategy::Tail { max_bytes } => (0, max_bytes),
            Strategy::HeadTail {
                head_bytes,
                tail_bytes,
            } => (head_bytes, tail_bytes),
        }
    }
}

/// What [`TextRetainer::push`] reports about one chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushOutcome {
    /// Every byte of this chunk is currently retained (later pushes may still evict tail bytes).
    pub kept: bool,
    /// Some byte of the input so far was dropped by the budget (cumulative).
    pub truncated: bool,
}

/// How many input bytes are absent from a [`Retained::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Omitted {
    /// Nothing was omitted.
    None,
    /// Exactly this many input bytes are absent from the text (dropped by the budget, plus
    /// partial code points trimmed at a cut).
    Exact(u64),
}

impl Omitted {
    /// The omitted byte count (0 for [`Omitted::None`]).
    pub fn count(&self) -> u64 {
        match self {
            Omitted::None => 0,
            Omitted::Exact(n) => *n,
        }
    }
}

/// The result of [`TextRetainer::finish`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retained {
    /// The retained text. For valid UTF-8 input it is at most the budget in bytes; invalid
    /// input decodes lossily (each invalid sequence becomes U+FFFD, which may lengthen it).
    pub text: String,
    /// Whether the budget dropped any byte (never set for upstream incompleteness).
    pub truncated: bool,
    /// How many input bytes are absent from `text`.
    pub omitted_bytes: Omitted,
    /// Byte offset in `text` where the omitted bytes were (end for head, 0 for tail, between
    /// the halves for head+tail); `None` when nothing was omitted. Use it to place a marker.
    pub gap_offset_bytes: Option<usize>,
}

impl Retained {
    /// The text with `marker` inserted where bytes were omitted; the text unchanged otherwise.
    pub fn text_with_marker(&self, marker: &str) -> String {
        match self.gap_offset_bytes {
            None => self.text.clone(),
            Some(at) => {
                let at = at.min(self.text.len());
                let mut out = String::with_capacity(self.text.len().saturating_add(marker.len()));
                out.push_str(self.text.get(..at).unwrap_or(&self.text));
                out.push_str(marker);
                out.push_str(self.text.get(at..).unwrap_or(""));
                out
            }
        }
    }
}

/// A streaming head / tail / head+tail byte budget (the seed's §7.1).
///
/// Bytes fill the head budget first; after that they enter a tail ring of `tail` budget bytes,
/// evicting its oldest bytes. Memory never exceeds the two budgets.
#[derive(Debug, Clone)]
pub struct TextRetainer {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total_bytes: u64,
    dropped_bytes: u64,
}

impl TextRetainer {
    /// A retainer with the given strategy. Zero budgets are allowed (everything is omitted).
    pub fn new(strategy: Strategy) -> Self {
        let (head_cap, tail_cap) = strategy.budgets();
        Self {
            head_cap,
            tail_cap,
            // Capacity grows with actual input (a huge budget for small text costs nothing).
            head: Vec::new(),
            tail: VecDeque::new(),
            total_bytes: 0,
            dropped_bytes: 0,
        }
    }

    /// Pushes raw bytes (need not be valid UTF-8, and may split a code point across chunks).
    pub fn push(&mut self, chunk: &[u8]) -> PushOutcome {
        self.total_bytes = self.total_bytes.saturating_add(chunk.len() as u64);
        let room = self.head_cap.saturating_sub(self.head.len());
        let (to_head, rest) = chunk.split_at(room.min(chunk.len()));
        self.head.extend_from_slice(to_head);

        let mut dropped_from_chunk = 0usize;
        if rest.len() >= self.tail_cap {
            // The chunk alone fills the tail: everything already there is evicted.
            dropped_from_chunk = rest.len() - self.tail_cap;
            self.dropped_bytes = self
                .dropped_bytes
                .saturating_add(self.tail.len() as u64)
                .saturating_add(dropped_from_chunk as u64);
            self.tail.clear();
            self.tail.extend(&rest[dropped_from_chunk..]);
        } else {
            let overflow = self
                .tail
                .len()
                .saturating_add(rest.len())
                .saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.dropped_bytes = self.dropped_bytes.saturating_add(overflow as u64);
            self.tail.extend(rest);
        }
        PushOutcome {
            kept: dropped_from_chunk == 0,
            truncated: self.dropped_bytes > 0,
        }
    }

    /// Pushes text.
    pub fn push_str(&mut self, text: &str) -> PushOutcome {
        self.push(text.as_bytes())
    }

    /// Total bytes pushed so far (saturating).
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Whether the budget has dropped any byte so far.
    pub fn is_truncated(&self) -> bool {
        self.dropped_bytes > 0
    }

    /// Decodes the retained bytes.
    ///
    /// When nothing was dropped, head and tail are decoded as one buffer (a code point that
    /// straddles the internal split survives). Otherwise a trailing incomplete code point is
    /// trimmed from the head and leading continuation bytes are dropped from the tail; the two
    /// sides are decoded separately, so no code point is glued across the gap.
    pub fn finish(self) -> Retained {
        let Self {
            mut head,
            tail,
            dropped_bytes,
            ..
        } = self;
        let mut tail: Vec<u8> = tail.into();
        if dropped_bytes == 0 {
            head.extend_from_slice(&tail);
            return Retained {
                text: decode_lossy(head),
                truncated: false,
                omitted_bytes: Omitted::None,
                gap_offset_bytes: None,
            };
        }
        let head_keep = complete_prefix_len(&head);
        let head_trimmed = head.len() - head_keep;
        head.truncate(head_keep);
        let tail_skip = leading_continuation_len(&tail);
        tail.drain(..tail_skip);
        let omitted = dropped_bytes
            .saturating_add(head_trimmed as u64)
            .saturating_add(tail_skip as u64);
        let mut text = decode_lossy(head);
        let gap = text.len();
        text.push_str(&decode_lossy(tail));
        Retained {
            text,
            truncated: true,
            omitted_bytes: Omitted::Exact(omitted),
            gap_offset_bytes: Some(gap),
        }
    }
}

fn decode_lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// Length of `bytes` without a trailing incomplete UTF-8 sequence: walk back over at most 3
/// continuation bytes to a lead byte; if that lead declares more bytes than are present, cut
/// before it. A non-lead byte or an invalid lead (>= 0xF8) is left alone.
fn complete_prefix_len(bytes: &[u8]) -> usize {
    let len = bytes.len();
    let continuation = bytes
        .iter()
        .rev()
        .take(3)
        .take_while(|&&b| is_continuation(b))
        .count();
    let Some(lead_at) = len.checked_sub(continuation + 1) else {
        return len;
    };
    let lead = bytes[lead_at];
    let needed = match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => return len,
    };
    if needed > continuation + 1 {
        lead_at
    } else {
        len
    }
}

/// Number of leading continuation bytes (at most 3, the most a valid sequence can have).
fn leading_continuation_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(3)
        .take_while(|&&b| is_continuation(b))
        .count()
}

/// The longest prefix of `text` of at most `max_bytes` bytes that ends on a char boundary.
pub fn head(text: &str, max_bytes: usize) -> String {
    head_slice(text, max_bytes).to_owned()
}

/// The longest suffix of `text` of at most `max_bytes` bytes that starts on a char boundary.
pub fn tail(text: &str, max_bytes: usize) -> String {
    tail_slice(text, max_bytes).to_owned()
}

/// Borrowing form of [`head`].
pub fn head_slice(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..cluster_boundary(text, end, Direction::Back)]
}

/// Borrowing form of [`tail`].
pub fn tail_slice(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut start = text.len() - max_bytes;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[cluster_boundary(text, start, Direction::Forward)..]
}

/// How far a cut may move to reach a grapheme cluster's boundary, in bytes: a cluster longer
/// than this (a pile of combining marks) is cut at a code point instead, so a cut never eats
/// much of the budget.
const MAX_CLUSTER_SHIFT_BYTES: usize = 64;

/// Which way [`cluster_boundary`] moves a cut.
#[derive(Clone, Copy)]
enum Direction {
    Back,
    Forward,
}

/// The nearest grapheme cluster boundary (Unicode's extended clusters) to the code point
/// boundary `at`, moving `direction`: a cut there never parts a letter from its accents, an
/// emoji sequence at its joiners, or a flag's two halves. `at` itself when it is one, or when
/// the nearest is more than [`MAX_CLUSTER_SHIFT_BYTES`] away.
fn cluster_boundary(text: &str, at: usize, direction: Direction) -> usize {
    use unicode_segmentation::GraphemeCursor;
    let mut cursor = GraphemeCursor::new(at, text.len(), true);
    if cursor.is_boundary(text, 0).unwrap_or(true) {
        return at;
    }
    let moved = match direction {
        Direction::Back => cursor.prev_boundary(text, 0),
        Direction::Forward => cursor.next_boundary(text, 0),
    };
    match moved {
        Ok(Some(to)) if to.abs_diff(at) <= MAX_CLUSTER_SHIFT_BYTES => to,
        _ => at,
    }
}

/// The newest whole lines of `text` within `max_bytes` bytes: its longest suffix within them
/// that starts at a line start (after a `\n`, or at the text's start); empty when not even its
/// last line fits. A piece of a line reads as something it is not (the end of an omission
/// line, `15` of `4615`).
pub fn tail_whole_lines(text: &str, max_bytes: usize) -> &str {
    let kept = tail_slice(text, max_bytes);
    let start = text.len() - kept.len();
    if start == 0 || text[..start].ends_with('\n') {
        return kept;
    }
    match kept.find('\n') {
        Some(i) => &kept[i + 1..],
        None => "",
    }
}

/// `content` then `suffix` (lines after it, each starting with `\n`: a result's fact or status
/// lines) within `max_bytes`: the newest whole lines of `content` that fit beside `suffix`, or
/// `suffix` alone without its first newline; when `suffix` does not fit either, its newest
/// whole lines, cut only when not even its last line fits.
pub fn whole_lines_before(content: &str, suffix: &str, max_bytes: usize) -> String {
    if suffix.len() >= max_bytes {
        let lines = tail_whole_lines(suffix, max_bytes).trim_start_matches('\n');
        return if lines.is_empty() {
            tail(suffix, max_bytes)
        } else {
            lines.to_owned()
        };
    }
    let kept = tail_whole_lines(content, max_bytes - suffix.len());
    if kept.is_empty() {
        suffix.trim_start_matches('\n').to_owned()
    } else {
        format!("{kept}{suffix}")
    }
}

/// `Omitted N <unit>.` for an exact non-zero count; `""` when nothing was omitted.
pub fn describe_omitted(omitted: &Omitted, unit: &str) -> String {
    match omitted {
        Omitted::Exact(n) if *n > 0 => format!("Omitted {n} {unit}."),
        _ => String::new(),
    }
}

/// Joins [`describe_omitted`] with a tool-supplied recovery sentence (single space; empty
/// halves dropped). For example `Omitted 12 bytes. Call terminal_read for the rest.`
pub fn format_retention_notice(omitted: &Omitted, unit: &str, recovery: &str) -> String {
    let clause = describe_omitted(omitted, unit);
    match (clause.is_empty(), recovery.is_empty()) {
        (true, _) => recovery.to_owned(),
        (false, true) => clause,
        (false, false) => format!("{clause} {recovery}"),
    }
}

/// This crate's invariant companion. No runtime invariant: a pure library with no service
/// state (its properties are covered by property tests).
pub fn invariant_companion() -> dsh_invariants::Companion {
    dsh_invariants::Companion::none(
        "dsh-output-retention",
        "no runtime invariant: a pure library with no service state",
    )
}

#[cfg(test)]
mod tests;
