//! [`Screen::feed`]: program output in, screen state and events out.
//!
//! 1. The [binary filter](super::binary) counts bytes that are not text instead of emulating
//!    them, and puts one summary line on the screen when text resumes.
//! 2. Text goes to the [flood lines](super::flood) while the screen is in the plain state
//!    they need; anything else first brings the emulator up to date.
//! 3. Otherwise a lock-step scanner splits the text into segments that end right after each
//!    sequence that can move the cursor, carry a mark or clear the screen, and each TAB, so
//!    the screen can act at that point: a clear of the main screen first moves its rows into
//!    history, a TAB records the run of cells it skipped, marks are collected in order, and
//!    anchors below text printed above them move up to it (a program that redraws above the
//!    send's start is still shown).

use super::flood::{FLOOD_BATCH_ROWS, rows_of, split_rows};
use super::region::Region;
use super::row_text::{plain_row, row_continues, visible_rows_text};
use super::scan::{Sequence, Step};
use super::{FeedOutcome, Screen};

mod binary_windows;

/// Terminal modes under which plain lines do not render as plain lines.
pub(super) mod modes {
    /// A scroll region (DECSTBM) is set on the main screen.
    pub(crate) const REGION: u8 = 1;
    /// Auto-wrap (DECAWM) is off.
    pub(crate) const NO_WRAP: u8 = 2;
    /// Insert mode (IRM) is on.
    pub(crate) const INSERT: u8 = 4;
    /// Origin mode (DECOM) is on.
    pub(crate) const ORIGIN: u8 = 8;
    /// Text is drawn from the DEC line-drawing character set (designated into G0, or into G1
    /// with G1 shifted in).
    pub(crate) const CHARSET: u8 = 16;
    /// Left and right margins are enabled (DECLRMM, mode 69).
    pub(crate) const LEFT_RIGHT: u8 = 32;
    /// Text is concealed (SGR 8, [`super::super::conceal`]).
    pub(crate) const CONCEAL: u8 = 64;
}

impl Screen {
    /// Processes program output. Never panics on any input; the work is linear in the chunk.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> FeedOutcome {
        let mut out = FeedOutcome::default();
        if !bytes.is_empty() {
            self.erase_open_run();
        }
        if !bytes.is_empty() && self.binary.passes_whole(bytes) {
            self.note_invisible(bytes);
            self.feed_text(bytes, &mut out);
        } else {
            self.feed_judged(bytes, &mut out);
        }
        self.capture_head_if_due();
        out.replies = std::mem::take(&mut self.parser.callbacks_mut().replies);
        out
    }

    pub(super) fn note_text(&mut self, out: &mut FeedOutcome) {
        out.push_text();
        self.prompt.text_after_mark = true;
        self.has_output = true;
    }

    pub(super) fn feed_text(&mut self, bytes: &[u8], out: &mut FeedOutcome) {
        self.after_return_at_end(bytes.first());
        // A chunk that starts inside a row (reads split lines anywhere): the emulator finishes
        // that row, and plain lines after it may still skip the emulator.
        let can_start = self.flood.is_empty().then(|| self.flood_can_start());
        if can_start == Some(false)
            && let Some(nl) = bytes.iter().position(|&b| b == b'\n')
            && nl + 1 < bytes.len()
        {
            self.feed_segments(&bytes[..=nl], out);
            self.feed_text_from_row_start(&bytes[nl + 1..], out, None);
            return;
        }
        self.feed_text_from_row_start(bytes, out, can_start);
    }

    /// Feeds `bytes`, plain lines past the emulator when they may skip it; `can_start` is
    /// [`Screen::flood_can_start`] when the caller already asked it of this very screen (it
    /// renders the rows below the cursor).
    fn feed_text_from_row_start(
        &mut self,
        bytes: &[u8],
        out: &mut FeedOutcome,
        can_start: Option<bool>,
    ) {
        let mut from = 0;
        // Readline's wrap after a prompt that filled its row goes through the emulator, which
        // tells it from text after the prompt (see `PromptTracker::forced_wrap`).
        let wrap_pending = self.prompt.forced_wrap_left > 0;
        if !wrap_pending
            && (!self.flood.is_empty() || can_start.unwrap_or_else(|| self.flood_can_start()))
        {
            from = self.flood.take(bytes, self.config.cols);
            if from > 0 {
                self.note_text(out);
                self.note_printed(bytes[from - 1] != b'\n');
            }
            if self.flood.rows > usize::from(self.config.rows) + FLOOD_BATCH_ROWS {
                self.compact_flood();
            }
            self.after_flood(bytes, from);
        }
        if from < bytes.len() {
            self.feed_segments(&bytes[from..], out);
        }
        if let Some(&last) = bytes.last() {
            self.last_byte_ascii = last.is_ascii();
        }
    }

    /// Whether plain lines may skip the emulator from here: main screen, plain modes, no
    /// sequence or character in progress, the cursor at a row's start with nothing below.
    fn flood_can_start(&self) -> bool {
        #[cfg(test)]
        if self.no_flood {
            return false;
        }
        let screen = self.parser.screen();
        let (row, col) = screen.cursor_position();
        // A row carriage returns went back over (see `clears::mixed`) is followed to its line
        // feed by the emulator: a flood line written over it after `\r` and an erase would
        // leave the row's record behind, stale.
        if self.alternate
            || self.modes != 0
            || self.returning()
            || col != 0
            || !self.last_byte_ascii
            || !self.scanner.in_ground()
        {
            return false;
        }
        // Text above an anchor's row (a redraw that moved up and erased below) moves the
        // anchor up to it as the emulator writes it (see `segment`): flood lines would skip.
        let abs_row = self.history().end_abs() + u64::from(row);
        if self
            .anchors
            .iter()
            .flatten()
            .any(|a| !a.pending_main && a.pos.row > abs_row)
        {
            return false;
        }
        // The rows from the cursor's down that are not known blank, in one pass that renders
        // no row above it (a row's text is empty exactly when no cell has contents).
        let end = self
            .blank
            .from()
            .unwrap_or_else(|| screen.size().0.get())
            .min(screen.size().0.get());
        // Debug builds (every test) check what the tracking claims.
        #[cfg(debug_assertions)]
        if end < screen.size().0.get() {
            let last = screen.size().0.get() - 1;
            let text = screen.contents_between(end, 0, last, self.config.cols);
            assert!(
                text.bytes().all(|b| b == b'\n'),
                "rows from {end} are known blank but hold {text:?}"
            );
        }
        if end <= row {
            return true;
        }
        if end - row == 1 {
            return plain_row(screen, row, self.config.cols).is_empty();
        }
        screen
            .contents_between(row, 0, end - 1, self.config.cols)
            .bytes()
            .all(|b| b == b'\n')
    }

    /// Moves the oldest pending flood lines into history, keeping a screenful pending. The
    /// first time, the rows the emulator shows above the cursor go first.
    fn compact_flood(&mut self) {
        let keep = usize::from(self.config.rows);
        let cols = self.config.cols;
        if !self.flood.stale {
            let (cursor_row, _) = self.parser.screen().cursor_position();
            self.push_visible_rows(cursor_row);
            self.flood.stale = true;
        }
        let hooks = self.parser.callbacks_mut();
        while let Some(front) = self.flood.front() {
            if self.flood.rows - rows_of(front.len(), cols) < keep {
                break;
            }
            for (text, wrapped) in split_rows(front, cols) {
                hooks.history.push_row(text, wrapped);
            }
            self.flood.pop_front(cols);
        }
    }

    /// Feeds the pending flood lines to the emulator.
    pub(super) fn materialize_flood(&mut self) {
        // Lines that cannot stay on the screen go straight into history first: only the
        // last screenful is emulated.
        if self.flood.rows > usize::from(self.config.rows) {
            self.compact_flood();
        }
        if !self.flood.is_empty() {
            let bytes = self.flood.drain_bytes();
            self.emulate(&bytes);
        }
    }

    /// Brings the emulator fully up to date (flood lines, suppressed binary output) before
    /// the screen is read.
    pub(super) fn materialize(&mut self) {
        if self.show_open_run() {
            return;
        }
        self.erase_open_run();
        let replies_before = self.parser.callbacks().replies.len();
        let mut ignored = FeedOutcome::default();
        // Bytes held after a binary run: the output paused there, so they are the text after
        // the run's last line (whose newline the summary line ends with), or the start of a
        // prompt mark the scanner finishes with the next chunk.
        let held = self.binary.take_held();
        let after_binary = self.binary.suppressing();
        self.flush_binary(&mut ignored);
        let text = match held.strip_prefix(b"\n".as_slice()) {
            Some(rest) if after_binary => rest,
            _ => &held,
        };
        if !text.is_empty() {
            self.note_invisible(text);
            self.feed_text(text, &mut ignored);
        }
        self.materialize_flood();
        // Replies produced while materializing were already produced by the bytes' feed;
        // replies a feed in progress produced before it (a send's head captured at the end
        // of the chunk that asked) are still that feed's to hand out.
        self.parser.callbacks_mut().replies.truncate(replies_before);
    }

    /// Moves the visible rows `0..end_row` of the main screen into history (with their TAB
    /// runs), as a clear screen would otherwise lose them.
    pub(super) fn push_visible_rows(&mut self, end_row: u16) {
        let texts = {
            let tabs = &self.parser.callbacks().tabs_main;
            visible_rows_text(self.parser.screen(), |r| tabs.row(r), self.config.cols)
        };
        for (r, text) in (0..end_row).zip(texts) {
            self.parser.callbacks_mut().tabs_main.take_row(r);
            let wrapped = row_continues(self.parser.screen(), r, self.config.cols);
            self.parser.callbacks_mut().history.push_row(&text, wrapped);
        }
    }

    /// Rows of the main screen that hold something, up to the cursor's: the rows a clear
    /// would erase.
    pub(super) fn rows_in_use(&self) -> u16 {
        let last = self
            .parser
            .screen()
            .rows(0, self.config.cols)
            .collect::<Vec<_>>()
            .iter()
            .rposition(|text| !text.is_empty());
        last.map_or(0, |r| u16::try_from(r + 1).unwrap_or(self.config.rows))
    }

    fn feed_segments(&mut self, bytes: &[u8], out: &mut FeedOutcome) {
        self.segment_row = self.cursor_unsynced().row;
        let mut seg_start = 0;
        let mut text_in_segment = false;
        // Whether the segment printed a character (line ends, carriage returns and backspaces
        // print none), and whether such a cursor move came first: the rows its text wrote
        // start at the first printed character's (`segment_row` is moved there).
        let (mut printed, mut moved_first) = (false, false);
        // While an anchor records rows an earlier program left: the rows each printed line
        // writes are noted there ([`Screen::note_written`]), from the row its first printed
        // byte went to (absolute).
        let mut tracking = self.tracks_left_rows();
        let mut line_row = self.segment_row;
        let mut line_printed = self.parser.screen().cursor_position().1 > 0;
        // While a region with a top margin is set: an upper bound of the cursor column.
        let mut col_bound = None;
        // While auto-wrap is off: an upper bound of the cursor column.
        let mut wrap_bound = None;
        for (i, &b) in bytes.iter().enumerate() {
            let mut step = self.scanner.step(b);
            if step == Step::StringAborted {
                // A string left unterminated ends at the newline: the emulator gets a CAN
                // (which ends it unseen), then the newline as text.
                self.emulate(&bytes[seg_start..i]);
                self.emulate(b"\x18");
                seg_start = i;
                step = Step::Text;
            }
            // Readline's wrap after a prompt that filled its row is not text after it.
            let forced_wrap = self.prompt.forced_wrap(b, step == Step::Text);
            match step {
                Step::Text if b == b'\t' => {
                    text_in_segment = true;
                    self.emulate(&bytes[seg_start..i]);
                    if !std::mem::replace(&mut printed, true) && moved_first {
                        self.segment_row = self.cursor_unsynced().row;
                    }
                    let before = tracking.then(|| self.cursor_unsynced());
                    let to = self.emulate_tab();
                    if let Some(before) = before {
                        self.note_moved_forward(before);
                    }
                    seg_start = i + 1;
                    col_bound = Some(to);
                    wrap_bound = Some(to);
                }
                Step::Text => {
                    text_in_segment |= !forced_wrap;
                    if b < 0x20 {
                        moved_first |= !printed;
                    } else if !std::mem::replace(&mut printed, true) && moved_first {
                        self.emulate(&bytes[seg_start..i]);
                        seg_start = i;
                        self.segment_row = self.cursor_unsynced().row;
                    }
                    match b {
                        // Before the cursor goes back along the row: how far the line got.
                        b'\r' | 0x08 if tracking && line_printed => {
                            self.emulate(&bytes[seg_start..i]);
                            seg_start = i;
                            self.note_written(line_row);
                        }
                        b'\n' | 0x0b | 0x0c if tracking => {
                            self.emulate(&bytes[seg_start..i]);
                            seg_start = i;
                            if line_printed {
                                self.note_written(line_row);
                            } else {
                                self.note_passed();
                            }
                            line_printed = false;
                        }
                        b'\n' | 0x0b | 0x0c | b'\r' | 0x08 => {}
                        // A line's first printed byte: the row it starts on.
                        _ if tracking && !line_printed => {
                            self.emulate(&bytes[seg_start..i]);
                            seg_start = i;
                            line_row = self.cursor_unsynced().row;
                            line_printed = true;
                        }
                        _ => line_printed = true,
                    }
                    // A backspace right after a character in the last column (see
                    // `after_move_from_wrap_pending`).
                    if b == 0x08 {
                        self.emulate(&bytes[seg_start..i]);
                        seg_start = i;
                        if self.parser.screen().cursor_position().1 >= self.config.cols {
                            self.emulate(b"\x08");
                            self.after_move_from_wrap_pending(true);
                            seg_start = i + 1;
                        }
                    }
                    match b {
                        b'\n' | 0x0b | 0x0c => self.before_line_feed(bytes, i, &mut seg_start),
                        b'\r' => self.before_carriage_return(bytes, i, &mut seg_start),
                        0x20.. => self.note_printed(true),
                        _ => {}
                    }
                    if self.modes & modes::INSERT != 0 {
                        self.before_inserted_text(bytes, i, &mut seg_start);
                    }
                    if self.modes & modes::NO_WRAP != 0 {
                        self.before_unwrapped_text(bytes, i, &mut seg_start, &mut wrap_bound);
                    }
                    if self.region.is_some() {
                        self.before_region_text(bytes, i, &mut seg_start, &mut col_bound);
                    }
                }
                // An SGR that turns concealing on or off: from its end.
                Step::SequenceEnd { flush: false } => {
                    if let Some(on) = self.scanner.last_sequence().conceal
                        && on != self.concealed()
                    {
                        self.emulate(&bytes[seg_start..=i]);
                        seg_start = i + 1;
                        self.set_concealed(on);
                    }
                }
                Step::Other | Step::StringAborted => {}
                Step::Skip => {
                    if seg_start < i {
                        self.emulate(&bytes[seg_start..i]);
                    }
                    seg_start = i + 1;
                }
                Step::SequenceEnd { flush: true } => {
                    if std::mem::take(&mut text_in_segment) {
                        self.note_text(out);
                    }
                    self.emulate(&bytes[seg_start..i]);
                    if tracking && line_printed {
                        self.note_written(line_row);
                    }
                    // The rows the text wrote, before the sequence moves the cursor.
                    let mut text_rows =
                        std::mem::take(&mut printed).then(|| self.text_rows_from(self.segment_row));
                    moved_first = false;
                    let seq = self.scanner.last_sequence();
                    let mut moved = self.before_clear(seq);
                    if self.region.is_some() {
                        moved = moved.or(self.before_region_sequence(seq));
                        col_bound = None;
                    }
                    // Rows the sequence moves: the text's rows are where it moves them.
                    if let Some(map) = moved.or_else(|| self.before_row_moves(seq)) {
                        text_rows = text_rows.map(|t| t.moved(map));
                    }
                    self.parser.callbacks_mut().osc_ends_with_bel = b == 0x07;
                    let before = self.cursor_unsynced();
                    self.emulate_sequence_end(seq, b);
                    if tracking {
                        self.note_moved_forward(before);
                    }
                    self.note_cursor_row(before.row, self.cursor_unsynced().row);
                    if let Some(body) = self.scanner.take_finished_dcs() {
                        self.answer_dcs(&body);
                    }
                    seg_start = i + 1;
                    wrap_bound = None;
                    self.after_segment(out, text_rows);
                    self.after_sequence(seq);
                    // The next segment starts where the sequence left the cursor (after a
                    // colour's erase-line in the middle of a printed line, say).
                    let cursor = self.cursor_unsynced();
                    (line_row, line_printed) = (cursor.row, cursor.col > 0);
                    tracking = self.tracks_left_rows();
                }
            }
        }
        if text_in_segment {
            self.note_text(out);
        }
        if seg_start < bytes.len() {
            self.emulate(&bytes[seg_start..]);
        }
        if tracking && line_printed {
            self.note_written(line_row);
        }
        let text_rows = printed.then(|| self.text_rows_from(self.segment_row));
        self.after_segment(out, text_rows);
    }

    /// Forgets TAB runs the sequence erased or moved, and tracks the modes flood lines need.
    fn after_sequence(&mut self, seq: Sequence) {
        use modes::{CHARSET, INSERT, LEFT_RIGHT, NO_WRAP, ORIGIN, REGION};
        let alternate = self.alternate;
        let (row, _) = self.parser.screen().cursor_position();
        let mut modes = self.modes;
        let mut set_mode = |mode: u8, on: bool| {
            if on {
                modes |= mode;
            } else {
                modes &= !mode;
            }
        };
        let on = seq.final_byte == b'h';
        match (seq.csi, seq.private, seq.intermediate, seq.final_byte) {
            (true, None, _, b'h' | b'l') if seq.first_param == 4 => set_mode(INSERT, on),
            (true, Some(b'?'), _, b'h' | b'l') => {
                // The modes of one DECSET/DECRST, wherever they stand (`CSI ? 25 ; 7 l`).
                for (mode, flag, when_on) in [
                    (7, NO_WRAP, false),
                    (6, ORIGIN, true),
                    (69, LEFT_RIGHT, true),
                ] {
                    if seq.has_dec_mode(mode) {
                        set_mode(flag, on == when_on);
                    }
                }
                if on && [47, 1047, 1049].into_iter().any(|m| seq.has_dec_mode(m)) {
                    self.alternate_saved_cursor = seq.has_dec_mode(1049);
                    self.parser.callbacks_mut().tabs_alt.clear();
                }
            }
            (true, None, _, b'r') if !alternate => {
                set_mode(REGION, seq.more_params || seq.first_param > 1);
                self.region = Region::from_decstbm(seq, self.config.rows);
            }
            // Any other set designated is no line drawing (`ESC ( A`, the UK set).
            (false, None, Some(set @ (b'(' | b')')), final_byte) => {
                self.line_drawing.designate(set == b')', final_byte == b'0');
            }
            (false, None, None, b'c') => {
                self.line_drawing.reset();
                set_mode(!0, false);
                self.main_cursor_saved = false;
                self.left_by_prompt = false;
                self.region = None;
                let hooks = self.parser.callbacks_mut();
                hooks.tabs_main.clear();
                hooks.tabs_alt.clear();
            }
            _ => {}
        }
        // Set while the text is drawn from the set (no plain flood line then); the text passes
        // the translator while the set is designated into G0 or G1 at all, which follows SO
        // and SI inside it (see `translate_text`).
        set_mode(CHARSET, self.line_drawing.active());
        self.modes = modes;
        self.note_cursor_away(seq);
        match (seq.csi, seq.private, seq.final_byte, seq.first_param) {
            (true, None, b'J', 0) => {
                self.erased_from_cursor(false, true);
                self.erased_below();
            }
            (true, None, b'K', 0 | 2) => self.erased_from_cursor(seq.first_param == 2, false),
            _ => {}
        }
        self.note_rows_above_anchors();
        if seq.csi && seq.private.is_none() && matches!(seq.final_byte, b'P' | b'@') {
            self.edited_in_place();
        }
        let col = self.parser.screen().cursor_position().1;
        let tabs = self.parser.callbacks_mut().tabs_mut(alternate);
        match (seq.csi, seq.private, seq.final_byte) {
            // Erase from the cursor (EL 0, ECH) and deleting or inserting characters (which
            // shift the cells after the cursor) touch only runs that reach past it: `grep
            // --color` erases to the line's end after each match, a TAB before it stays.
            (true, None, b'K') if seq.first_param == 0 => tabs.clear_row_from(row, col),
            (true, None, b'X' | b'P' | b'@') => tabs.clear_row_from(row, col),
            (true, None, b'K') => tabs.clear_row(row),
            (true, None, b'J') => match seq.first_param {
                0 => tabs.clear_from(row),
                1 => tabs.clear_to(row),
                _ => tabs.clear(),
            },
            (true, None, b'L' | b'M') => tabs.clear_from(row),
            (true, None, b'S' | b'T' | b'r') | (false, None, b'M') => tabs.clear(),
            _ => {}
        }
    }
}
