//! Cursor moves by tab stops, with the cells a TAB skips recorded (see [`super::tabs`]): HT,
//! and the forward and backward tabulation sequences (CHT `CSI n I`, CBT `CSI n Z`), which
//! vt100 ignores. Tab stops are every eight columns until a program sets its own (HTS
//! `ESC H` sets one at the cursor, TBC `CSI g` clears the cursor's and `CSI 3 g` all, as
//! `tabs -4` does; a full reset brings the default back), which vt100 ignores too: the cursor
//! then moves to the program's stops, and the cells a TAB skips are a TAB run all the same
//! (a Makefile recipe read after `tabs 4` keeps its TAB: what the program wrote matters more
//! to a reader of the text than the width the terminal gave it).

use super::Screen;
use super::scan::Sequence;

/// Columns between tab stops.
const TAB_WIDTH: u16 = 8;

impl Screen {
    /// Emulates one TAB and records the cells it skipped (see [`super::tabs`]); returns the
    /// cursor's column after it.
    ///
    /// On the main screen a TAB past the last tab stop goes to the last column, as a
    /// terminal's does, and the character after it is written there (a `\r` after it goes
    /// back to the same row's start). A TAB from the last column does not stay there, where a
    /// terminal would write the text after it over the same cell again (a TSV row reaching
    /// the right edge would lose its fields there): when that cell is empty, its run goes to
    /// the row's end and the text after it wraps to the next row, as text longer than the row
    /// does. After a character in the last column (the line wraps at its next character), the
    /// TAB itself wraps and skips from the next row's start.
    pub(super) fn emulate_tab(&mut self) -> u16 {
        let cols = self.parser.screen().size().1.get();
        let (row, from) = self.parser.screen().cursor_position();
        let main = !self.parser.screen().alternate_screen();
        if main && from >= cols {
            // A blank in the next row's first cell wraps the line there; the TAB goes on
            // from it.
            self.emulate(b" ");
            let (row, first) = self.parser.screen().cursor_position();
            let (to, _) = self.tab_target(first, cols);
            self.emulate(format!("\x1b[{}G", to + 1).as_bytes());
            let tabs = self.parser.callbacks_mut().tabs_mut(false);
            tabs.record(row, first.saturating_sub(1), to);
            return to;
        }
        let (mut to, past_last_stop) = self.tab_target(from, cols);
        self.emulate(format!("\x1b[{}G", to + 1).as_bytes());
        let last_cell_empty = !self
            .parser
            .screen()
            .cell(row, to)
            .is_some_and(vt100::Cell::has_contents);
        if main && from + 1 == cols && past_last_stop && last_cell_empty {
            // A blank in the empty last cell: the next character wraps.
            self.emulate(b" ");
            to = cols;
        }
        self.parser
            .callbacks_mut()
            .tabs_mut(!main)
            .record(row, from, to);
        if main && to + 1 == cols && last_cell_empty {
            self.tab_to_last_column = Some((row, from));
        }
        to
    }

    /// Before `bytes` are emulated after a TAB that moved the cursor into the empty last
    /// column (past the last tab stop): when the first character they print (after any SGR)
    /// is two columns wide, it cannot fit there and goes to the next row's start, as a
    /// terminal's does, but vt100 flags no wrap for it (the row's text does not reach the
    /// column before the last, so [`super::row_text::row_continues`] cannot tell either) and
    /// the line came back as two. A blank goes into the last cell first, as for a TAB from the
    /// last column: the character wraps as text longer than the row does, the row flagged
    /// wrapped, and the TAB's run reaches the row's end. A narrow character is written in the
    /// last column as before.
    pub(super) fn wrap_wide_after_tab(&mut self, bytes: &[u8]) {
        use unicode_width::UnicodeWidthChar;
        let Some((row, from)) = self.tab_to_last_column.take() else {
            return;
        };
        let screen = self.parser.screen();
        let cols = screen.size().1.get();
        let still_there = !screen.alternate_screen()
            && screen.cursor_position() == (row, cols - 1)
            && !screen
                .cell(row, cols - 1)
                .is_some_and(vt100::Cell::has_contents)
            && self.modes & super::feed::modes::NO_WRAP == 0;
        let wide = first_printed_char(bytes).and_then(UnicodeWidthChar::width) == Some(2);
        if still_there && wide {
            self.parser.process(b" ");
            self.parser
                .callbacks_mut()
                .tabs_mut(false)
                .record(row, from, cols);
        }
    }

    /// The column a TAB from column `from` moves to on a row of `cols` columns: the next tab
    /// stop (the program's own, or every [`TAB_WIDTH`] columns), else the last column; and
    /// whether it went past the last stop.
    fn tab_target(&self, from: u16, cols: u16) -> (u16, bool) {
        let next = match &self.tab_stops {
            Some(stops) => stops.iter().copied().find(|&stop| stop > from),
            None => Some((from - from % TAB_WIDTH).saturating_add(TAB_WIDTH)),
        };
        match next.filter(|&stop| stop < cols) {
            Some(stop) => (stop, false),
            None => (cols - 1, true),
        }
    }

    /// Carries out CHT (`CSI n I`: `n` TABs) and CBT (`CSI n Z`: back `n` tab stops, to the
    /// row's start at most), which vt100 ignores; returns whether `seq` was one of them.
    pub(super) fn tab_moves(&mut self, seq: Sequence) -> bool {
        let plain = seq.private.is_none() && seq.intermediate.is_none();
        let col = self.parser.screen().cursor_position().1;
        let cols = self.parser.screen().size().1.get();
        match (seq.csi, seq.final_byte) {
            // RIS: the default stops again (the emulator carries out the rest).
            (false, b'c') if plain => {
                self.tab_stops = None;
                return false;
            }
            // HTS: a stop at the cursor's column.
            (false, b'H') if plain => {
                let stops = self
                    .tab_stops
                    .get_or_insert_with(|| default_stops(cols).collect());
                if let Err(at) = stops.binary_search(&col) {
                    stops.insert(at, col);
                }
                // Set back to the default ones (`tabs -8`, which sets one at the first column
                // too, where no TAB goes): TABs are TAB runs again.
                if stops
                    .iter()
                    .copied()
                    .filter(|&c| c > 0 && c < cols)
                    .eq(default_stops(cols))
                {
                    self.tab_stops = None;
                }
                self.emulate(&[seq.final_byte]);
                return true;
            }
            // TBC: the cursor's stop (0), or every stop (3).
            (true, b'g') if plain && matches!(seq.first_param, 0 | 3) => {
                let stops = self
                    .tab_stops
                    .get_or_insert_with(|| default_stops(cols).collect());
                if seq.first_param == 3 {
                    stops.clear();
                } else {
                    stops.retain(|&stop| stop != col);
                }
                self.emulate(&[seq.final_byte]);
                return true;
            }
            _ => {}
        }
        if !seq.csi || !plain || !matches!(seq.final_byte, b'I' | b'Z') {
            return false;
        }
        // vt100 ends the sequence, doing nothing with it.
        self.emulate(&[seq.final_byte]);
        let cols = self.parser.screen().size().1.get();
        let count = seq.first_param.clamp(1, cols);
        if seq.final_byte == b'I' {
            for _ in 0..count {
                self.emulate_tab();
            }
        } else {
            let col = self.parser.screen().cursor_position().1.min(cols - 1);
            let target = match &self.tab_stops {
                Some(stops) => {
                    let before = stops.iter().filter(|&&stop| stop < col).count();
                    let back = usize::from(count).min(before);
                    if back == 0 { 0 } else { stops[before - back] }
                }
                None => {
                    let stops = col.div_ceil(TAB_WIDTH);
                    (stops - stops.min(count)) * TAB_WIDTH
                }
            };
            self.emulate(format!("\x1b[{}G", target + 1).as_bytes());
        }
        true
    }
}

/// The first character `bytes` print, after any SGR sequences (`ESC [ … m`); `None` when
/// something else comes first (a control character, another sequence, a cut-off one).
fn first_printed_char(bytes: &[u8]) -> Option<char> {
    let mut rest = bytes;
    while let Some(params) = rest.strip_prefix(b"\x1b[") {
        let end = params
            .iter()
            .position(|&b| !matches!(b, b'0'..=b'9' | b';' | b':'))?;
        if params[end] != b'm' {
            return None;
        }
        rest = &params[end + 1..];
    }
    let head = &rest[..rest.len().min(4)];
    let valid = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    valid.chars().next().filter(|c| !c.is_control())
}

/// The default tab stops of a screen `cols` wide: every eight columns after the first.
fn default_stops(cols: u16) -> impl Iterator<Item = u16> {
    (1..)
        .map(|n| n * TAB_WIDTH)
        .take_while(move |&stop| stop < cols)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    /// Renders what `bytes` leave on a 24×80 screen, from its start.
    fn shown(bytes: &[u8]) -> String {
        let mut s = super::super::tests::plain_screen();
        let a = s.anchor();
        s.feed(bytes);
        s.render_since(a, 10_000).text
    }

    /// Stops a program set (`tabs -4` clears them all, then sets one every four columns) move
    /// the cursor as a terminal does, and the cells a TAB skipped still come back as a TAB
    /// (those a back-tab moved over, as the blanks shown).
    #[test]
    fn a_programs_own_tab_stops_place_the_text_after_a_tab() {
        let mut tabs4 = b"\x1b[3g".to_vec();
        for col in (5..80).step_by(4) {
            tabs4.extend_from_slice(format!("\x1b[{col}G\x1bH").as_bytes());
        }
        tabs4.extend_from_slice(b"\r");
        let mut out = tabs4.clone();
        out.extend_from_slice(b"a\tb\tc\r\n");
        assert_eq!(shown(&out), "a\tb\tc\n");
        // A later write over a TAB's cells makes them plain cells.
        let mut out = tabs4.clone();
        out.extend_from_slice(b"a\tb\x1b[2DX\r\n");
        assert_eq!(shown(&out), "a  Xb\n");
        // Every stop cleared: a TAB goes to the last column.
        assert_eq!(shown(b"\x1b[3gp\tq\r\n"), "p\tq\n");
        // One stop cleared (TBC 0 at the cursor): the TAB goes on to the next.
        assert_eq!(shown(b"\x1b[9G\x1b[g\rx\ty\r\n"), "x\ty\n");
        // Past the program's last stop on the main screen, the text after the TAB wraps to
        // the next row instead of overwriting the last column (`tabs 2,10`: no field lost).
        let mut out = b"\x1b[3g\x1b[2G\x1bH\x1b[10G\x1bH\r".to_vec();
        out.extend_from_slice(b"a\tb\tc\td\r\n");
        assert_eq!(shown(&out), "a\tb\tc\td\n");
        // CBT goes back to the program's stops.
        let mut out = tabs4.clone();
        out.extend_from_slice(b"\x1b[11G\x1b[Zz\r\n");
        assert_eq!(shown(&out), format!("{}z\n", " ".repeat(8)));
        // Stops set back to the default ones (`tabs -8`), or a full reset: TABs as before.
        let mut out = tabs4.clone();
        out.extend_from_slice(b"\x1b[3g");
        for col in (1..80).step_by(8) {
            out.extend_from_slice(format!("\x1b[{col}G\x1bH").as_bytes());
        }
        out.extend_from_slice(b"\ra\tb\r\n");
        assert_eq!(shown(&out), "a\tb\n");
        let mut out = tabs4;
        out.extend_from_slice(b"\x1bca\tb\r\n");
        assert_eq!(shown(&out), "a\tb\n");
        assert_eq!(shown(b"a\tb\r\n"), "a\tb\n");
    }

    /// A TAB past the last stop to the empty last column, then a wide character, which cannot
    /// fit there: it goes to the next row's start, and the line stays one line, as a terminal
    /// soft-wraps it (field case: `printf 'x%.0s' $(seq 152); printf '\t日b\n'` on a screen
    /// 160 wide came back as two lines). So for every lead that leaves the TAB in the last
    /// column, with the TAB in a chunk of its own, with colour before the character, and in
    /// history; a narrow character is still written in the last column.
    #[test]
    fn a_wide_character_after_a_tab_to_the_last_column_keeps_its_line_whole() {
        for lead in 72..80 {
            let x = "x".repeat(lead);
            let line = format!("{x}\t日b");
            assert_eq!(shown(format!("{line}\r\n").as_bytes()), format!("{line}\n"));
            let mut s = super::super::tests::plain_screen();
            let a = s.anchor();
            s.feed(format!("{x}\t").as_bytes());
            s.feed("日b\r\n".as_bytes());
            let text = s.render_since(a, 10_000).text;
            assert_eq!(text, format!("{line}\n"), "lead {lead}");
            assert_eq!(
                shown(format!("{x}\t\x1b[31m日\x1b[mb\r\n").as_bytes()),
                format!("{line}\n"),
                "lead {lead}"
            );
            // Scrolled into history.
            let mut s = super::super::Screen::new(super::super::tests::config(3, 80), None);
            s.feed(format!("{line}\r\n").as_bytes());
            for _ in 0..5 {
                s.feed(b"y\r\n");
            }
            assert!(
                s.transcript().starts_with(&format!("{line}\ny\n")),
                "lead {lead}: {:?}",
                s.transcript()
            );
        }
        let x = "x".repeat(72);
        assert_eq!(shown(format!("{x}\tb\r\n").as_bytes()), format!("{x}\tb\n"));
    }
}
