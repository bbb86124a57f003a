//! Erases of the main screen that would drop text the model has not seen: before the
//! emulator applies one, the rows it erases move into history, so a clear never drops or
//! trims output printed during a send (every line still reaches its result, in order) and
//! `terminal_read` still pages what was on screen before it. Erases of rows in the middle
//! of the screen (a line erased after moving up to it, `ESC [ 1 A ESC [ 2 K`, or everything
//! below the cursor, `ESC [ J`) cannot move rows into history without reordering the
//! screen: while a command runs, the text they erase from rows this result covers is noted
//! instead ([`Erased`]), for the result to say. So is the rest of a row erased after the
//! cursor left the row it last printed on (`ESC [ 1 A ESC [ K`, `tput cuu1; tput el`):
//! erasing the row just printed is how a `\r` progress line redraws, and is not noted. And
//! so is text written over, deleted or pushed off the screen after a sequence moved the
//! cursor up to it (`rewrites`). Rows of transient displays (progress bars, spinners,
//! status blocks redrawn frame by frame) are told apart when the result is made (`frames`).

mod erased;
mod frames;
mod mixed;
mod rewrites;

pub(crate) use erased::{Erased, ErasedLines};

use super::row_moves::RowMap;
use super::scan::Sequence;
use super::{Position, Screen};

/// Where the numbers rows deleted or pushed off the screen are noted under start (see
/// [`Screen::note_dropped_text`]): past any absolute row.
const DROPPED_ROWS: u64 = 1 << 62;

/// How many erases' blank rows [`Clears::erased_above`] keeps (the oldest are forgotten).
const ERASED_ABOVE_RANGES: usize = 16;

/// What the screen keeps for noting erases (see [`Erased`]).
#[derive(Debug, Default)]
pub(crate) struct Clears {
    /// Noted since the last take.
    erased: Option<Erased>,
    /// Where the current result's span starts: rows above it (and its own row when the span
    /// starts inside it) were shown by an earlier result, and are not noted.
    floor: Option<Position>,
    /// The row after the rows consuming reads in the current span handed out (see
    /// [`Screen::note_handed_out`]).
    handed_out_end: Option<u64>,
    /// The cursor is on the row it last printed text on: no line feed and no sequence took it
    /// to another row since (an erase to the row's end then trims a line being redrawn).
    on_printed_row: bool,
    /// Rows of text a running command's sequence moved the cursor up to (or onto): their
    /// absolute numbers and their text then, each until it changes (see `rewrites`).
    revisited: Vec<(u64, String)>,
    /// How many rows were noted as deleted or pushed off (see [`Screen::note_dropped_text`]).
    dropped: u64,
    /// The shapes of rows rewritten in place as a progress display's (see `frames`) since
    /// the last take: erasing such a row later (a status row pinned at the bottom, cleared at
    /// the end) loses nothing worth a notice.
    progress_shapes: Vec<String>,
    /// Where the text before a carriage return that ended the bytes fed so far ended (see
    /// `Screen::after_return_at_end`).
    return_at_end: Option<Position>,
    /// The row text went back over with carriage returns, until its line feed (see `mixed`).
    returned: Option<mixed::ReturnedRow>,
    /// The first row that ended up showing two texts at once, and how many such rows there
    /// were, since the last take (see `mixed`).
    mixed: Option<(String, u64)>,
    /// The rows (absolute numbers) above the cursor that erases of the whole main screen left
    /// blank while the cursor stayed where it was (`ESC [ 2 J` with no move home, as
    /// `print("\033[2J")` does), or of the rows above the cursor (`ESC [ 1 J`): see
    /// [`Screen::erased_blank_row`]. The newest erase's rows last; an older erase's rows only
    /// as far as they were in history when a newer erase came (rows there keep their
    /// numbers), so a later clear that moves such rows into history does not make them lines.
    erased_above: Vec<std::ops::Range<u64>>,
}

impl Screen {
    /// Called right before `seq` is emulated: when it erases the whole main screen (ED 2, ED 0
    /// from the home position, a full reset), the rows in use move into history; when it
    /// erases the rows above the cursor (ED 1), those rows do, and the rows below are
    /// renumbered after them (returned, for what refers to rows by number). Selective erases
    /// (DECSED, `CSI ? J`) count as erases: the emulator applies them alike.
    pub(super) fn before_clear(&mut self, seq: Sequence) -> Option<RowMap> {
        self.check_revisited();
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
            // ED 2 keeps the cursor where it is (a reset homes it, ED 0 ran from home).
            let base = self.history().end_abs();
            let blank = if erase && seq.first_param == 2 {
                u64::from(cursor_row)
            } else {
                0
            };
            self.note_erased_above(base..base + blank);
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
        // The rows above the cursor stay on the screen, blank: their text is in history now
        // (as after an erase of the whole screen, they are no line of any output).
        let base = self.history().end_abs();
        self.note_erased_above(base..base + u64::from(cursor_row));
        Some(map)
    }

    /// Notes `rows` (absolute, from history's end) as left blank by the erase just made (see
    /// [`Clears::erased_above`]): the rows of earlier erases are kept as far as history holds
    /// them (a clear with the cursor low, then output that scrolled its blank rows into
    /// history, then another clear: those rows stay no lines of the result).
    fn note_erased_above(&mut self, rows: std::ops::Range<u64>) {
        let (kept_from, base) = (self.history().first_abs(), self.history().end_abs());
        let ranges = &mut self.clears.erased_above;
        for range in ranges.iter_mut() {
            range.start = range.start.max(kept_from);
            range.end = range.end.min(base);
        }
        ranges.retain(|range| !range.is_empty());
        if !rows.is_empty() {
            ranges.push(rows);
        }
        if ranges.len() > ERASED_ABOVE_RANGES {
            ranges.remove(0);
        }
    }

    /// Whether row `abs` is one of the rows above the cursor that an erase of the whole main
    /// screen left blank, the cursor staying below them (`ESC [ 2 J` alone), or an erase of
    /// the rows above the cursor (`ESC [ 1 J`): while it holds
    /// nothing it is no line of any output, and a result leaves it out (shown, a clear
    /// printed with the cursor low on the screen gave a result up to a screenful of empty
    /// lines). Once the output writes text on such a row, the row is shown as any other.
    pub(super) fn erased_blank_row(&self, abs: u64) -> bool {
        self.clears
            .erased_above
            .iter()
            .any(|range| range.contains(&abs))
    }

    /// Notes the text `seq` erases from the middle of the main screen (see [`Erased`]): a
    /// whole row (EL 2), a row up to the cursor (EL 1) or from it (EL 0) once the cursor left
    /// the row it last printed on (on that row, only a line that reports a problem), or the
    /// rows from the cursor down (ED 0); selective ones (`CSI ? K`, `CSI ? J`) alike.
    fn note_erased(&mut self, seq: Sequence) {
        let erases_line = seq.final_byte == b'K';
        // On the row it last printed on, an erase is how a `\r` progress line redraws: only
        // a line that reports a problem is noted then (`ERROR here\033[1K`).
        let problems_only = erases_line && self.clears.on_printed_row;
        if !seq.csi
            || !matches!(seq.private, None | Some(b'?'))
            || seq.intermediate.is_some()
            || !(erases_line || (seq.final_byte, seq.first_param) == (b'J', 0))
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
        let base = self.history().end_abs();
        for (row, start, width) in spans {
            // A line editor's suggestion (node's preview of a value, below its line) was no
            // text the program printed (see `suggestion`).
            let end = start.saturating_add(width);
            if !self.alternate
                && super::suggestion::only_suggestion_from(self.parser.screen(), row, start, end)
            {
                continue;
            }
            let abs = base + u64::from(row);
            let text = super::row_text::row_text(self.parser.screen(), &[], row, start, width);
            // A row the cursor went back up to and wrote on is named whole as written over
            // (see `rewrites`), not by the part its redraw erased.
            if problems_only
                && (self.clears.revisited.iter().any(|(r, _)| *r == abs)
                    || !frames::reads_as_a_problem(text.trim()))
            {
                continue;
            }
            // Counted here: not again as a row written over.
            self.clears.revisited.retain(|(r, _)| *r != abs);
            // An erase of the row's end from the cursor keeps the row's whole text with it: a
            // line editor redrawing its input line erases after the prompt and writes the
            // line back (see `Erased::not_redrawn`).
            let line = (start > 0)
                .then(|| super::row_text::row_text(self.parser.screen(), &[], row, 0, cols));
            self.note_erased_text_as(abs, abs, text.trim(), line.as_deref().map(str::trim));
        }
    }

    /// Notes `text` (trimmed) of absolute row `row` as erased, unless it is empty, on a row an
    /// earlier result showed (see [`Clears::floor`]: noted as seen, see `Erased::note_shown`)
    /// or a row of a progress display.
    fn note_erased_text(&mut self, row: u64, text: &str) {
        self.note_erased_text_as(row, row, text, None);
    }

    /// [`Screen::note_erased_text`] of a row deleted or pushed off the screen (see
    /// `rewrites`): noted under a number of its own, so that rows dropped one after another
    /// at the same edge (each a line scrolled away) are not taken for one row erased again
    /// (a status line's frames).
    fn note_dropped_text(&mut self, row: u64, text: &str) {
        self.clears.dropped += 1;
        self.note_erased_text_as(row, DROPPED_ROWS + self.clears.dropped, text, None);
    }

    /// Whether absolute row `row` is one an earlier result showed (see [`Clears::floor`]).
    fn shown_before(&self, row: u64) -> bool {
        self.clears
            .floor
            .is_some_and(|f| row < f.row || (row == f.row && f.col > 0))
    }

    /// Notes `text` of absolute row `row` under the number `id` (see [`Erased`]); `line` is
    /// the row's whole text when the erase took only its end.
    fn note_erased_text_as(&mut self, row: u64, id: u64, text: &str, line: Option<&str>) {
        if !text.is_empty() && self.shown_before(row) {
            self.clears
                .erased
                .get_or_insert_with(Erased::default)
                .note_shown(text);
            return;
        }
        if text.is_empty()
            || self
                .clears
                .progress_shapes
                .contains(&frames::line_shape(text))
        {
            return;
        }
        self.clears
            .erased
            .get_or_insert_with(Erased::default)
            .note(id, text, line);
    }

    /// What was erased since the last take (see [`Erased`]), and forgets it.
    pub(crate) fn take_erased(&mut self) -> Option<Erased> {
        self.check_revisited();
        self.clears.progress_shapes.clear();
        self.clears.erased.take()
    }

    /// A result's span starts at `at`: rows above it (and its own row, when `at` is not at
    /// the row's start) count as shown by an earlier result.
    pub(crate) fn set_erased_floor(&mut self, at: Position) {
        self.clears.floor = Some(at);
        self.clears.handed_out_end = None;
    }

    /// Rows moved as `map` says (inserted or deleted lines, a scroll): the floor and the end
    /// of what consuming reads handed out move with the text they follow.
    pub(super) fn move_erased_floor(&mut self, map: RowMap) {
        if let Some(f) = self.clears.floor {
            let (row, at_edge) = map.row_or_edge(f.row);
            let col = if at_edge { 0 } else { f.col };
            self.clears.floor = Some(Position { row, col });
        }
        if let Some(end) = self.clears.handed_out_end {
            self.clears.handed_out_end = Some(map.row_or_edge(end).0);
        }
    }

    /// A consuming read handed out the text up to `to` (see `Consumed::shown_to`).
    pub(super) fn note_handed_out(&mut self, to: Position) {
        let end = to.row + u64::from(to.col > 0);
        self.clears.handed_out_end = Some(self.clears.handed_out_end.map_or(end, |e| e.max(end)));
    }

    /// The rows consuming reads of the current span handed out that no caller showed yet
    /// (from the floor on, see [`Screen::raise_erased_floor`]): the reader's window holds
    /// them as they were, so they are its output, not text an earlier program left.
    pub(super) fn handed_out_unshown(&self) -> std::ops::Range<u64> {
        let from = self
            .clears
            .floor
            .map_or(0, |f| f.row + u64::from(f.col > 0));
        from..self.clears.handed_out_end.unwrap_or(0)
    }

    /// Everything the current span's consuming reads handed out was shown (a background
    /// job's output read by the agent): those rows count as shown too (the floor only rises).
    pub(crate) fn raise_erased_floor(&mut self) {
        if let Some(row) = self.clears.handed_out_end {
            let at = Position { row, col: 0 };
            self.clears.floor = Some(self.clears.floor.map_or(at, |f| f.max(at)));
        }
    }
}
