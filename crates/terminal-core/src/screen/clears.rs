//! Erases of the main screen that would drop text the model has not seen: before the
//! emulator applies one, the rows it erases move into history, so a clear never drops or
//! trims output printed during a send (every line still reaches its result, in order) and
//! `terminal_read` still pages what was on screen before it. Erases of rows in the middle
//! of the screen (a line erased after moving up to it, `ESC [ 1 A ESC [ 2 K`, or everything
//! below the cursor, `ESC [ J`) cannot move rows into history without reordering the
//! screen: while a command runs, the text they erase is noted instead ([`Erased`]), for the
//! result to say.

use super::Screen;
use super::row_moves::RowMap;
use super::scan::Sequence;

/// Longest erased row text kept, in bytes (cut between characters).
const ERASED_ROW_MAX_BYTES: usize = 200;

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
/// whole row (`ESC [ 2 K`), a row up to the cursor (`ESC [ 1 K`), or the rows from the cursor
/// down (`ESC [ J`); not the rest of the cursor's row (`ESC [ K`, a progress line redrawn in
/// place), and only while a command runs (not the shell's line editor's redraws).
#[derive(Debug, Default)]
pub(crate) struct Erased {
    /// Rows with text erased.
    pub(crate) rows: u64,
    /// The text of the last of them (trimmed, cut at [`ERASED_ROW_MAX_BYTES`]).
    pub(crate) last: String,
}

impl Screen {
    /// Called right before `seq` is emulated: when it erases the whole main screen (ED 2, ED 0
    /// from the home position, a full reset), the rows in use move into history; when it
    /// erases the rows above the cursor (ED 1), those rows do, and the rows below are
    /// renumbered after them (returned, for what refers to rows by number). Selective erases
    /// (DECSED, `CSI ? J`) count as erases: the emulator applies them alike.
    pub(super) fn before_clear(&mut self, seq: Sequence) -> Option<RowMap> {
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
            || !matches!((seq.final_byte, seq.first_param), (b'K', 1 | 2) | (b'J', 0))
        {
            return;
        }
        let (cursor_row, cursor_col) = self.parser.screen().cursor_position();
        let cols = self.config.cols;
        let spans: Vec<(u16, u16, u16)> = match (seq.final_byte, seq.first_param) {
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
                let erased = self.erased.get_or_insert_with(Erased::default);
                erased.rows += 1;
                erased.last =
                    dsh_output_retention::head_slice(text, ERASED_ROW_MAX_BYTES).to_owned();
            }
        }
    }

    /// What was erased since the last take (see [`Erased`]), and forgets it.
    pub(crate) fn take_erased(&mut self) -> Option<Erased> {
        self.erased.take()
    }
}
