//! Erases of the main screen that would drop text the model has not seen: before the
//! emulator applies one, the rows it erases move into history, so a clear never drops or
//! trims output printed during a send (every line still reaches its result, in order) and
//! `terminal_read` still pages what was on screen before it. Erases of rows in the middle
//! of the screen (a line erased after moving up to it, `ESC [ 1 A ESC [ 2 K`, or everything
//! below the cursor, `ESC [ J`) cannot move rows into history without reordering the
//! screen: while a command runs, the text they erase is noted instead ([`Erased`]), for the
//! result to say. So is the rest of a row erased after the cursor left the row it last
//! printed on (`ESC [ 1 A ESC [ K`, `tput cuu1; tput el`): erasing the rest of the row just
//! printed is how a `\r` progress line redraws, and is not noted. And so is a row of text
//! written over after a sequence moved the cursor onto it (up a row and print a status line
//! padded with spaces over an error): the row's text then is noted when it changes into
//! anything that does not begin with it.

use super::Screen;
use super::row_moves::RowMap;
use super::scan::Sequence;

/// Longest erased row text kept, in bytes (cut between characters).
const ERASED_ROW_MAX_BYTES: usize = 200;

/// Most distinct erased texts kept between takes (the rows past them are counted only).
const ERASED_TEXTS_MAX: usize = 32;

/// Most stems of rows rewritten in place kept between takes (see [`Clears::progress_stems`]).
const PROGRESS_STEMS_MAX: usize = 16;

/// Longest stem [`line_stem`] compares, in characters.
const STEM_MAX_CHARS: usize = 12;

/// What stays the same when a progress display rewrites a line in place (`layer 2: ====
/// 90%` and then `… 100%`, `c 3` and then `c 10`): the text before its first digit, trimmed,
/// at most [`STEM_MAX_CHARS`] characters; `None` when nothing comes before a digit (a line of
/// figures reads as a redrawn count).
pub(crate) fn line_stem(text: &str) -> Option<String> {
    let before = text
        .trim()
        .split(|c: char| c.is_ascii_digit())
        .next()
        .unwrap_or_default()
        .trim_end();
    (!before.is_empty()).then(|| before.chars().take(STEM_MAX_CHARS).collect())
}

/// Text a running command erased from the middle of the main screen since the last take: a
/// whole row (`ESC [ 2 K`), a row up to the cursor (`ESC [ 1 K`) or from it (`ESC [ K`) once
/// the cursor left the row it last printed on (not a progress line redrawn in place), the
/// rows from the cursor down (`ESC [ J`), or a row written over; only while a command runs
/// (not the shell's line editor's redraws).
#[derive(Debug, Default)]
pub(crate) struct Erased {
    /// Rows with text erased.
    rows: u64,
    /// Each distinct text erased (trimmed, cut at [`ERASED_ROW_MAX_BYTES`]) in the order first
    /// erased, with how many rows had it; at most [`ERASED_TEXTS_MAX`].
    texts: Vec<(String, u64)>,
}

impl Erased {
    fn note(&mut self, text: &str) {
        self.rows += 1;
        let text = dsh_output_retention::head_slice(text, ERASED_ROW_MAX_BYTES);
        if let Some(seen) = self.texts.iter_mut().find(|(t, _)| t == text) {
            seen.1 += 1;
        } else if self.texts.len() < ERASED_TEXTS_MAX {
            self.texts.push((text.to_owned(), 1));
        }
    }

    /// What was lost, once the texts a redraw put back are left out: the rows still missing
    /// (those past [`ERASED_TEXTS_MAX`] texts included) with the first and the last of their
    /// texts; `None` when every kept text came back. A text came back when a line of
    /// `rendered` (the result's text) begins with it or has its [`line_stem`] (a progress
    /// display rewrote it with newer figures); a text of figures alone reads as a redrawn
    /// count.
    pub(crate) fn not_redrawn(&self, rendered: &str) -> Option<(u64, String, String)> {
        let stems: Vec<(&str, Option<String>)> = rendered
            .lines()
            .map(|line| (line.trim(), line_stem(line)))
            .collect();
        let lost: Vec<&(String, u64)> = self
            .texts
            .iter()
            .filter(|(text, _)| {
                let stem = line_stem(text);
                stem.is_some()
                    && !stems
                        .iter()
                        .any(|(line, s)| line.starts_with(text.as_str()) || *s == stem)
            })
            .collect();
        let (first, last) = (lost.first()?, lost.last()?);
        let kept: u64 = self.texts.iter().map(|(_, n)| n).sum();
        let rows = lost.iter().map(|(_, n)| n).sum::<u64>() + self.rows.saturating_sub(kept);
        Some((rows, first.0.clone(), last.0.clone()))
    }
}

/// What the screen keeps for noting erases (see [`Erased`]).
#[derive(Debug, Default)]
pub(crate) struct Clears {
    /// Noted since the last take.
    erased: Option<Erased>,
    /// The cursor is on the row it last printed text on: no line feed and no sequence took it
    /// to another row since (an erase to the row's end then trims a line being redrawn).
    on_printed_row: bool,
    /// A row of text a running command's sequence moved the cursor onto: its absolute number
    /// and its text then, until it changes or the cursor leaves it.
    revisited: Option<(u64, String)>,
    /// The [`line_stem`]s of rows rewritten in place with newer figures since the last take
    /// (a progress display's rows, such as a status row pinned at the bottom): erasing such
    /// a row loses nothing worth a notice. At most [`PROGRESS_STEMS_MAX`].
    progress_stems: Vec<String>,
}

impl Screen {
    /// Notes that printed text (`printed`), or a line feed (`!printed`), went to the screen.
    pub(super) fn note_printed(&mut self, printed: bool) {
        self.clears.on_printed_row = printed;
    }

    /// Notes that a sequence took the cursor from row `before` to row `after` (absolute).
    pub(super) fn note_cursor_row(&mut self, before: u64, after: u64) {
        if before == after {
            return;
        }
        self.clears.on_printed_row = false;
        self.check_revisited();
        if !self.command_running() || self.parser.screen().alternate_screen() {
            return;
        }
        let text = self.visible_row_text(after).unwrap_or_default();
        if !text.trim().is_empty() {
            self.clears.revisited = Some((after, text));
        }
    }

    /// The text of absolute row `row` while it is on screen.
    fn visible_row_text(&self, row: u64) -> Option<String> {
        let visible = u16::try_from(row.checked_sub(self.history().end_abs())?).ok()?;
        (visible < self.config.rows).then(|| {
            let cols = self.config.cols;
            super::row_text::row_text(self.parser.screen(), &[], visible, 0, cols)
        })
    }

    /// Settles the row the cursor was moved onto (see [`Clears::revisited`]): once its text
    /// changed, notes the text it had unless the new text begins with it (rewritten the same,
    /// or extended); forgets it then, or when the cursor left it unchanged.
    fn check_revisited(&mut self) {
        let Some((row, before)) = self.clears.revisited.take() else {
            return;
        };
        let Some(now) = self.visible_row_text(row) else {
            return;
        };
        if now.trim_end() == before.trim_end() {
            if self.cursor_unsynced().row == row {
                self.clears.revisited = Some((row, before));
            }
            return;
        }
        let before = before.trim();
        if now.trim().starts_with(before) {
            return;
        }
        match line_stem(before) {
            Some(stem) if line_stem(&now) == Some(stem.clone()) => {
                if self.clears.progress_stems.len() < PROGRESS_STEMS_MAX
                    && !self.clears.progress_stems.contains(&stem)
                {
                    self.clears.progress_stems.push(stem);
                }
            }
            _ => self.note_erased_text(before),
        }
    }

    /// Notes `text` (trimmed) as erased, unless it is a row of a progress display.
    fn note_erased_text(&mut self, text: &str) {
        if line_stem(text).is_some_and(|stem| self.clears.progress_stems.contains(&stem)) {
            return;
        }
        self.clears
            .erased
            .get_or_insert_with(Erased::default)
            .note(text);
    }

    /// Called right before `seq` is emulated: when it erases the whole main screen (ED 2, ED 0
    /// from the home position, a full reset), the rows in use move into history; when it
    /// erases the rows above the cursor (ED 1), those rows do, and the rows below are
    /// renumbered after them (returned, for what refers to rows by number). Selective erases
    /// (DECSED, `CSI ? J`) count as erases: the emulator applies them alike.
    pub(super) fn before_clear(&mut self, seq: Sequence) -> Option<RowMap> {
        self.check_revisited();
        // An erase of the row moved onto is counted as one (or not) by itself.
        if seq.csi && matches!(seq.final_byte, b'K' | b'J') {
            self.clears.revisited = None;
        }
        if self.parser.screen().alternate_screen() {
            return None;
        }
        let (cursor_row, cursor_col) = self.parser.screen().cursor_position();
        let erase = seq.csi && matches!(seq.private, None | Some(b'?')) && seq.final_byte == b'J';
        let reset = !seq.csi && seq.intermediate.is_none() && seq.final_byte == b'c';
        let whole = reset
            || (erase
                && (seq.first_param == 2
                    || (seq.first_param == 0 && (cursor_row, cursor_col) == (0, 0))));
        if whole {
            let rows = self.rows_in_use();
            self.push_visible_rows(rows);
            return None;
        }
        if self.command_running() {
            self.note_erased(seq);
        }
        // ED 1: the rows above the cursor (the cursor's row only up to the cursor, so it stays
        // on screen). Every other sequence returns before the rows are read (this runs for
        // each sequence the screen is fed, prompt marks included).
        if !erase || seq.first_param != 1 || cursor_row == 0 {
            return None;
        }
        let rows = cursor_row.min(self.rows_in_use());
        if rows == 0 {
            return None;
        }
        let first = self.history().end_abs();
        self.push_visible_rows(rows);
        // The pushed rows keep their numbers; the rows below come after them now.
        let map = RowMap::Scrolled {
            first,
            top: first,
            bottom: first + u64::from(rows) - 1,
            n: u64::from(rows),
        };
        self.apply_row_map(map);
        Some(map)
    }

    /// Notes the text `seq` erases from the middle of the main screen (see [`Erased`]).
    fn note_erased(&mut self, seq: Sequence) {
        if !seq.csi
            || seq.private.is_some()
            || seq.intermediate.is_some()
            || !matches!((seq.final_byte, seq.first_param), (b'K', _) | (b'J', 0))
            || (seq.final_byte == b'K' && self.clears.on_printed_row)
        {
            return;
        }
        let (cursor_row, cursor_col) = self.parser.screen().cursor_position();
        let cols = self.config.cols;
        let spans: Vec<(u16, u16, u16)> = match (seq.final_byte, seq.first_param) {
            (b'K', 0) => vec![(cursor_row, cursor_col, cols.saturating_sub(cursor_col))],
            (b'K', 1) => vec![(cursor_row, 0, cursor_col.saturating_add(1).min(cols))],
            (b'K', 2) => vec![(cursor_row, 0, cols)],
            (b'J', 0) => {
                let below = (cursor_row + 1..self.rows_in_use()).map(|row| (row, 0, cols));
                std::iter::once((cursor_row, cursor_col, cols.saturating_sub(cursor_col)))
                    .chain(below)
                    .collect()
            }
            _ => return,
        };
        for (row, start, width) in spans {
            let text = super::row_text::row_text(self.parser.screen(), &[], row, start, width);
            let text = text.trim();
            if !text.is_empty() {
                self.note_erased_text(text);
            }
        }
    }

    /// What was erased since the last take (see [`Erased`]), and forgets it.
    pub(crate) fn take_erased(&mut self) -> Option<Erased> {
        self.check_revisited();
        self.clears.progress_stems.clear();
        self.clears.erased.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_a_redraw_put_back_are_left_out_and_the_first_lost_is_named() {
        let mut erased = Erased::default();
        for text in [
            "FAIL: test_a",
            "layer 1: 10%",
            "layer 1: 50%",
            "42",
            "| retrying",
        ] {
            erased.note(text);
        }
        erased.note("| retrying");
        let rendered = "layer 1: 100%\n- retrying\nok";
        assert_eq!(
            erased.not_redrawn(rendered),
            Some((3, "FAIL: test_a".to_owned(), "| retrying".to_owned()))
        );
        assert_eq!(
            erased.not_redrawn("FAIL: test_a\n| retrying\nlayer 1: 1%"),
            None
        );
    }
}
