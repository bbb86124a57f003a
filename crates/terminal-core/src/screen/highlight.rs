//! Text the screen shows highlighted: in reverse video (SGR 7), or on a background colour of
//! its own (SGR 41-47, 100-107, `48;5;n`, `48;2;r;g;b`). Plain text drops the attributes, and
//! with them what a highlight means: which item of a menu is selected (curses' `A_REVERSE`, a
//! dialog's bar), which button has the focus, where a pager's search matched, what an editor
//! selected. A result's notice quotes the highlighted text ([`Screen::highlighted_since`]).
//!
//! A highlight stands apart from what surrounds it. A run of cells painted alike (reverse
//! video, or one background colour) is part of an area rather than a mark when the row above
//! or below has a run painted the same over just the same columns, or both rows have one
//! over all its columns: a themed program's screen or window background, a sidebar, a column
//! of line numbers, a screen drawn all in reverse. Such runs are left out, and so are runs of
//! blanks and box parts (window shadows and borders, empty bars). So is a rectangular
//! selection (an editor's block selection), and a row of a selection over several rows that
//! the rows on both sides cover.
//!
//! The scan reads the visible screen's cells once per result, from the result's start (our
//! shell's prompt, when it is back, left out: a prompt drawn in reverse video highlights
//! nothing), plus the rows right above and below for context: rows × columns cell reads.

use std::borrow::Cow;

use super::{AnchorId, Screen};

/// One row with highlighted text on it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HighlightedRow {
    /// The row, counted from 0 at the top of the screen.
    pub(crate) row: u16,
    /// The text of each highlighted run on the row, in column order, blanks around it trimmed.
    pub(crate) runs: Vec<String>,
    /// The row's whole text, trailing blanks trimmed.
    pub(crate) text: String,
}

/// How a cell is painted, where it is not plain text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Paint {
    /// Reverse video (whatever its colours).
    Reverse,
    /// A background colour.
    Back(vt100::Color),
}

/// How `cell` is painted (`None`: plain, on the terminal's own background).
fn paint(cell: &vt100::Cell) -> Option<Paint> {
    if cell.inverse() {
        return Some(Paint::Reverse);
    }
    match cell.bgcolor() {
        vt100::Color::Default => None,
        colour => Some(Paint::Back(colour)),
    }
}

/// A run of cells painted alike on one row: columns `start..end`, and their text.
#[derive(Debug)]
struct Run {
    start: u16,
    end: u16,
    paint: Paint,
    text: String,
}

/// The painted runs of visible row `row` (`cols` cells), in column order, and the row's text
/// (one character per cell, empty cells as blanks).
fn row_runs(screen: &vt100::Screen, row: u16, cols: u16) -> (Vec<Run>, String) {
    let mut runs = Vec::new();
    let mut text = String::new();
    let mut open: Option<Run> = None;
    for col in 0..cols {
        let Some(cell) = screen.cell(row, col) else {
            break;
        };
        if cell.is_wide_continuation() {
            // The second cell of a wide character belongs to its first cell's run.
            if let Some(run) = open.as_mut() {
                run.end = col + 1;
            }
            continue;
        }
        let shown = if cell.has_contents() {
            cell.contents()
        } else {
            " "
        };
        text.push_str(shown);
        let painted = paint(cell);
        let same = open.as_ref().is_some_and(|run| Some(run.paint) == painted);
        match open.as_mut() {
            Some(run) if same => {
                run.end = col + 1;
                run.text.push_str(shown);
            }
            _ => {
                runs.extend(open.take());
                open = painted.map(|paint| Run {
                    start: col,
                    end: col + 1,
                    paint,
                    text: shown.to_owned(),
                });
            }
        }
    }
    runs.extend(open);
    (runs, text)
}

/// Whether `text` holds more than blanks and the parts of boxes and bars (box drawing and
/// block elements: a window's border, a scroll bar).
fn says_something(text: &str) -> bool {
    text.chars()
        .any(|c| !c.is_whitespace() && !('\u{2500}'..='\u{259F}').contains(&c))
}

/// Row text as the screen's text shows it (the emulator's stand-ins restored).
fn restored(text: &str) -> String {
    match super::utf8::restore(text) {
        Cow::Borrowed(text) => text.to_owned(),
        Cow::Owned(text) => text,
    }
}

/// The rows of `screen` with highlighted text (see the [module docs](self)) from visible
/// position `from` up to `until` (row, column; `until` excluded, `(rows, 0)` for the screen's
/// end). A run counts where it starts.
pub(super) fn highlighted_rows(
    screen: &vt100::Screen,
    from: (u16, u16),
    until: (u16, u16),
) -> Vec<HighlightedRow> {
    let (rows, cols) = (screen.size().0.get(), screen.size().1.get());
    let last = until.0.min(rows - 1);
    if from.0 > last || from >= until {
        return Vec::new();
    }
    // The rows scanned, and one more on each side for context.
    let first_read = from.0.saturating_sub(1);
    let last_read = last.saturating_add(1).min(rows - 1);
    let read: Vec<(Vec<Run>, String)> = (first_read..=last_read)
        .map(|row| row_runs(screen, row, cols))
        .collect();
    let at = |row: u16| {
        usize::from(row)
            .checked_sub(usize::from(first_read))
            .and_then(|i| read.get(i))
    };
    // Row `row` (when there is one) has a run painted as `run` over all its columns (`exact`:
    // over just those columns).
    let covered = |row: Option<u16>, run: &Run, exact: bool| {
        row.and_then(at).is_some_and(|(runs, _)| {
            runs.iter().any(|o| {
                o.paint == run.paint
                    && if exact {
                        (o.start, o.end) == (run.start, run.end)
                    } else {
                        o.start <= run.start && o.end >= run.end
                    }
            })
        })
    };
    // Part of an area: the row above or below goes on with the same columns (a box, a
    // column, a screen's background), or both cover it (inside a box split by what it holds).
    let in_area = |row: u16, run: &Run| {
        let (above, below) = (row.checked_sub(1), row.checked_add(1));
        covered(above, run, true)
            || covered(below, run, true)
            || (covered(above, run, false) && covered(below, run, false))
    };
    let mut found = Vec::new();
    for row in from.0..=last {
        let Some((runs, text)) = at(row) else {
            continue;
        };
        let lower = if row == from.0 { from.1 } else { 0 };
        let upper = if row == until.0 { until.1 } else { cols };
        let texts: Vec<String> = runs
            .iter()
            .filter(|run| (lower..upper).contains(&run.start))
            .filter(|run| says_something(&run.text) && !in_area(row, run))
            .map(|run| restored(run.text.trim()))
            .collect();
        if !texts.is_empty() {
            found.push(HighlightedRow {
                row,
                runs: texts,
                text: restored(text.trim_end()),
            });
        }
    }
    found
}

impl Screen {
    /// The rows with highlighted text (see the [module docs](self)) among those a render from
    /// `id` shows: the whole screen while a full-screen program holds the alternate one; else
    /// the visible rows from the anchor's start, up to our shell's prompt when it is back.
    pub(crate) fn highlighted_since(&mut self, id: AnchorId) -> Vec<HighlightedRow> {
        self.materialize();
        let rows = self.parser.screen().size().0.get();
        let (from, until) = if self.alternate {
            ((0, 0), (rows, 0))
        } else {
            let Some(start) = self.anchor_render_start(id) else {
                return Vec::new();
            };
            let base = self.history().end_abs();
            // Rows above the screen's top are out of reach: from its first row.
            let visible = |pos: super::Position| match pos.row.checked_sub(base) {
                Some(row) => (u16::try_from(row).unwrap_or(rows).min(rows), pos.col),
                None => (0, 0),
            };
            let prompt = self
                .prompt
                .prompt_start_at
                .filter(|&at| self.after_prompt_end() && at >= start);
            (visible(start), prompt.map_or((rows, 0), visible))
        };
        highlighted_rows(self.parser.screen(), from, until)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 10×40 emulator with no scrollback.
    fn parser() -> vt100::Parser {
        let size = |n| std::num::NonZeroU16::new(n).unwrap_or(std::num::NonZeroU16::MIN);
        vt100::Parser::new(size(10), size(40), 0)
    }

    /// The highlighted rows of a 10×40 screen that got `bytes`, from its top to its end.
    fn scan(bytes: &str) -> Vec<(u16, Vec<&'static str>)> {
        let mut parser = parser();
        parser.process(bytes.as_bytes());
        highlighted_rows(parser.screen(), (0, 0), (10, 0))
            .into_iter()
            .map(|row| {
                let runs = row.runs.into_iter().map(|r| &*r.leak()).collect();
                (row.row, runs)
            })
            .collect()
    }

    #[test]
    fn a_menus_reverse_video_item_is_highlighted() {
        let menu = "Choose:\r\n\r\n  Install\r\n  \x1b[7mRemove\x1b[m\r\n  Quit";
        assert_eq!(scan(menu), [(3, vec!["Remove"])]);
        let rows = {
            let mut parser = parser();
            parser.process(menu.as_bytes());
            highlighted_rows(parser.screen(), (0, 0), (10, 0))
        };
        assert_eq!(rows[0].text, "  Remove");
        // Plain text, bold and colours of the text itself are no highlight.
        assert!(scan("plain \x1b[1mbold\x1b[m \x1b[31mred\x1b[m \x1b[4munder\x1b[m").is_empty());
    }

    #[test]
    fn a_background_colour_bar_and_search_matches_are_highlighted() {
        // A selection bar over a whole row (htop), and the matches of a search (vim's
        // hlsearch, less's reverse video), several on a row.
        let bar = format!(
            "  PID CMD\r\n    1 init\r\n\x1b[46m{:<40}\x1b[m\r\n    3 sleep",
            "    2 bash"
        );
        assert_eq!(scan(&bar), [(2, vec!["2 bash"])]);
        let matches =
            "\x1b[7ma\x1b[27mlph\x1b[7ma\x1b[27m bet\x1b[7ma\x1b[27m\r\nzet\x1b[103ma\x1b[m";
        assert_eq!(scan(matches), [(0, vec!["a", "a", "a"]), (1, vec!["a"])]);
        // Colours given in 256-colour and direct-colour form too, and a wide character.
        assert_eq!(
            scan("x \x1b[48;5;236mpick\x1b[m y \x1b[48;2;1;2;3m中文\x1b[m"),
            [(0, vec!["pick", "中文"])]
        );
    }

    #[test]
    fn areas_and_blank_runs_are_no_highlight() {
        // A themed screen: every row on a blue background, a window of grey rows over it with
        // its shadow, and a red item in the window: only the item stands apart.
        let mut themed = String::from("\x1b[44m\x1b[2J\x1b[1;1Hbacktitle");
        for row in 3..=7 {
            themed.push_str(&format!(
                "\x1b[{row};5H\x1b[47m  window text     \x1b[40m  "
            ));
        }
        themed.push_str("\x1b[5;7H\x1b[41mItem two\x1b[m");
        // Its border, box parts on the window's background.
        themed.push_str("\x1b[47m\x1b[3;5H┌────────────────┐\x1b[7;5H└────────────────┘\x1b[m");
        assert_eq!(scan(&themed), [(4, vec!["Item two"])]);
        // A screen drawn all in reverse video, and a column of line numbers on a background.
        let reversed = "\x1b[7mone\x1b[K\r\ntwo\x1b[K\r\nthree\x1b[K\x1b[m";
        assert!(scan(reversed).is_empty());
        let numbered =
            "\x1b[100m  1 \x1b[mfirst\r\n\x1b[100m  2 \x1b[msecond\r\n\x1b[100m  3 \x1b[m";
        assert!(scan(numbered).is_empty());
        // Reverse-video blanks (a cursor drawn by the program, an empty bar) mark no text.
        assert!(scan("name: \x1b[7m \x1b[m\r\n\x1b[7m      \x1b[m").is_empty());
    }

    #[test]
    fn a_selection_over_rows_keeps_the_rows_the_others_do_not_cover() {
        // vim's visual selection (grey background) of four lines of different lengths.
        let selection = "\x1b[47malpha beta \x1b[m\r\n\x1b[47mgamma delta \x1b[m\r\n\x1b[47mepsilon \x1b[m\r\n\x1b[47mzeta \x1b[m";
        assert_eq!(
            scan(selection),
            [
                (0, vec!["alpha beta"]),
                (1, vec!["gamma delta"]),
                (2, vec!["epsilon"]),
                (3, vec!["zeta"])
            ]
        );
        // From the middle of a line to the start of the next (vim's `vj`).
        assert_eq!(
            scan("\x1b[47malpha beta \x1b[m\r\n\x1b[47mg\x1b[mamma"),
            [(0, vec!["alpha beta"]), (1, vec!["g"])]
        );
        // A block selection is a rectangle: left out.
        assert!(scan("a\x1b[47mbc\x1b[md\r\ne\x1b[47mfg\x1b[mh").is_empty());
        // One line alone, and part of a line.
        assert_eq!(
            scan("alpha \x1b[47mbeta\x1b[m\r\ngamma"),
            [(0, vec!["beta"])]
        );
    }

    #[test]
    fn the_scan_keeps_to_its_rows_and_columns() {
        let mut parser = parser();
        parser.process(b"\x1b[7mold\x1b[m dsh> \x1b[7mnew\x1b[m\r\n\x1b[7mprompt\x1b[m $ ");
        let runs = |from: (u16, u16), until: (u16, u16)| -> Vec<Vec<String>> {
            highlighted_rows(parser.screen(), from, until)
                .into_iter()
                .map(|row| row.runs)
                .collect()
        };
        assert_eq!(runs((0, 9), (1, 0)), [vec!["new".to_owned()]]);
        assert_eq!(runs((0, 0), (10, 0)).len(), 2);
        assert!(runs((1, 0), (1, 0)).is_empty());
        assert!(runs((5, 0), (10, 0)).is_empty());
    }
}
