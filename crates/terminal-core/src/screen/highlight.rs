//! Text the screen shows highlighted: in reverse video (SGR 7), or on a background colour of
//! its own (SGR 41-47, 100-107, `48;5;n`, `48;2;r;g;b`). Plain text drops the attributes, and
//! with them what a highlight means: which item of a menu is selected (curses' `A_REVERSE`, a
//! dialog's bar), which button has the focus, where a pager's search matched, what an editor
//! selected. A result's notice quotes the highlighted text ([`Screen::highlighted_since`]).
//!
//! A highlight stands apart from what surrounds it. Left out:
//! - The screen's background: a paint over more than half the cells read that reaches the
//!   last column on more than half their rows (a themed program's screen, curses' colour pair
//!   on black), wherever it is (the top row a menu item left is no highlight).
//! - A stack of rows painted alike over just the same columns that is an area, not a
//!   selection: it spans the screen's width (a screen drawn all in reverse), one of its runs
//!   holds only blanks or box parts (a window with its border or an empty row), text follows
//!   it on one of its rows, unless it is reverse video (a column of line numbers or of log
//!   levels on a background, a sidebar, an editor's block selection; stacked search matches
//!   in reverse video are named), or each of its runs starts with a blank and one ends with two (a
//!   padded window, a popup menu's items). Any other stack is an editor's selection of lines
//!   (vim's `V` on lines of one length, each with the blank after its end): its rows are
//!   quoted.
//! - A run split off by what it holds, inside runs painted alike on the rows above and below
//!   (a window's row around the item drawn in it).
//! - Runs of blanks and box parts (window shadows and borders, empty bars).
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

/// How `cell` is painted (`None`: plain, on the terminal's own background); with
/// `reverse_only`, only reverse video counts (a background colour is plain).
fn paint(cell: &vt100::Cell, reverse_only: bool) -> Option<Paint> {
    if cell.inverse() {
        return Some(Paint::Reverse);
    }
    match cell.bgcolor() {
        vt100::Color::Default => None,
        _ if reverse_only => None,
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
fn row_runs(screen: &vt100::Screen, row: u16, cols: u16, reverse_only: bool) -> (Vec<Run>, String) {
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
        let painted = paint(cell, reverse_only);
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

/// One row read: its painted runs, its text, and the column after its last cell that says
/// something (0 on a row of blanks).
struct RowRead {
    runs: Vec<Run>,
    text: String,
    text_end: u16,
}

/// Reads visible row `row` (`cols` cells).
fn read_row(screen: &vt100::Screen, row: u16, cols: u16, reverse_only: bool) -> RowRead {
    let (runs, text) = row_runs(screen, row, cols, reverse_only);
    let text_end = (0..cols)
        .rev()
        .find(|&col| {
            screen
                .cell(row, col)
                .is_some_and(|cell| says_something(cell.contents()))
        })
        .map_or(0, |col| col + 1);
    RowRead {
        runs,
        text,
        text_end,
    }
}

/// The screen's background among `read` (see the [module docs](self)), if one paint is it.
fn background(read: &[RowRead], cols: u16) -> Option<Paint> {
    let mut counts: Vec<(Paint, usize, usize)> = Vec::new();
    for row in read {
        for run in &row.runs {
            let cells = usize::from(run.end - run.start);
            let last = usize::from(run.end == cols);
            match counts.iter_mut().find(|(paint, ..)| *paint == run.paint) {
                Some((_, n, rows)) => {
                    *n += cells;
                    *rows += last;
                }
                None => counts.push((run.paint, cells, last)),
            }
        }
    }
    let (all_cells, all_rows) = (read.len() * usize::from(cols), read.len());
    counts
        .into_iter()
        .find(|&(_, cells, rows)| cells * 2 > all_cells && rows * 2 > all_rows)
        .map(|(paint, ..)| paint)
}

/// The rows of `screen` with highlighted text (see the [module docs](self)) from visible
/// position `from` up to `until` (row, column; `until` excluded, `(rows, 0)` for the screen's
/// end). A run counts where it starts. With `reverse_only`, only reverse video is a highlight
/// (see [`Screen::highlighted_since`]).
pub(super) fn highlighted_rows(
    screen: &vt100::Screen,
    from: (u16, u16),
    until: (u16, u16),
    reverse_only: bool,
) -> Vec<HighlightedRow> {
    let (rows, cols) = (screen.size().0.get(), screen.size().1.get());
    let last = until.0.min(rows - 1);
    if from.0 > last || from >= until {
        return Vec::new();
    }
    // The rows scanned, and one more on each side for context.
    let first_read = from.0.saturating_sub(1);
    let last_read = last.saturating_add(1).min(rows - 1);
    let read: Vec<RowRead> = (first_read..=last_read)
        .map(|row| read_row(screen, row, cols, reverse_only))
        .collect();
    let back = background(&read, cols);
    let at = |row: u16| {
        usize::from(row)
            .checked_sub(usize::from(first_read))
            .and_then(|i| read.get(i))
    };
    // The run of row `row` (when there is one) painted as `run` over just its columns.
    let same = |row: Option<u16>, run: &Run| {
        row.and_then(at).and_then(|read| {
            read.runs
                .iter()
                .find(|o| o.paint == run.paint && (o.start, o.end) == (run.start, run.end))
                .map(|o| (read, o))
        })
    };
    // Row `row` has a run painted as `run` over all its columns.
    let covered = |row: Option<u16>, run: &Run| {
        row.and_then(at).is_some_and(|read| {
            read.runs
                .iter()
                .any(|o| o.paint == run.paint && o.start <= run.start && o.end >= run.end)
        })
    };
    let in_area = |row: u16, run: &Run| {
        if Some(run.paint) == back {
            return true;
        }
        let (above, below) = (row.checked_sub(1), row.checked_add(1));
        // Split off by what the row holds, inside an area going on above and below.
        let split = at(row)
            .is_some_and(|read| read.runs.iter().filter(|o| o.paint == run.paint).count() > 1);
        if split && covered(above, run) && covered(below, run) {
            return true;
        }
        // The stack of rows painted over just these columns, this one among them.
        let Some(this) = at(row) else {
            return false;
        };
        let mut stack = vec![(this, run)];
        let mut up = above;
        while let Some(next) = same(up, run) {
            stack.push(next);
            up = up.and_then(|r| r.checked_sub(1));
        }
        let mut down = below;
        while let Some(next) = same(down, run) {
            stack.push(next);
            down = down.and_then(|r| r.checked_add(1));
        }
        if stack.len() < 2 {
            return false;
        }
        (run.start == 0 && run.end == cols)
            || stack.iter().any(|(line, o)| {
                // Text after a column of reverse video is no gutter: a pager's or an editor's
                // search matches stacked at the start of their lines (`/foo` in less).
                !says_something(&o.text) || (line.text_end > o.end && o.paint != Paint::Reverse)
            })
            || (stack.iter().all(|(_, o)| o.text.starts_with(' '))
                && stack.iter().any(|(_, o)| o.text.ends_with("  ")))
    };
    let mut found = Vec::new();
    for row in from.0..=last {
        let Some(RowRead { runs, text, .. }) = at(row) else {
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
        // On the main screen only reverse video: there a background colour marks a kind of
        // output (`ls`'s other-writable directories, a red ` ERROR ` label, a test runner's
        // ` PASS ` badge) far more often than a selection.
        highlighted_rows(self.parser.screen(), from, until, !self.alternate)
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
        highlighted_rows(parser.screen(), (0, 0), (10, 0), false)
            .into_iter()
            .map(|row| {
                let runs = row.runs.into_iter().map(|r| &*r.leak()).collect();
                (row.row, runs)
            })
            .collect()
    }

    /// A pager's search matches in reverse video at the start of consecutive lines, text after
    /// each: all named (taken for a column of line numbers, none was); the same column on a
    /// background colour stays a gutter.
    #[test]
    fn stacked_search_matches_in_reverse_video_are_named() {
        let less = "\x1b[7mfoo\x1b[27m1 x\r\n\x1b[7mfoo\x1b[27m2 yy\r\n\x1b[7mfoo\x1b[27m3 zzz";
        let rows: Vec<u16> = scan(less).into_iter().map(|(row, _)| row).collect();
        assert_eq!(rows, [0, 1, 2]);
        let gutter = "\x1b[44m 1\x1b[m alpha\r\n\x1b[44m 2\x1b[m beta\r\n\x1b[44m 3\x1b[m gamma";
        assert_eq!(scan(gutter), []);
    }

    #[test]
    fn a_menus_reverse_video_item_is_highlighted() {
        let menu = "Choose:\r\n\r\n  Install\r\n  \x1b[7mRemove\x1b[m\r\n  Quit";
        assert_eq!(scan(menu), [(3, vec!["Remove"])]);
        let rows = {
            let mut parser = parser();
            parser.process(menu.as_bytes());
            highlighted_rows(parser.screen(), (0, 0), (10, 0), false)
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
        // A screen drawn all in reverse video, and a column of line numbers on a background
        // (text follows it).
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
    fn an_editors_selection_of_lines_of_one_length_is_highlighted() {
        // vim's `ggVG` on five lines of one length: each line and the blank after its end on
        // grey, but for the cursor's cell on the last; from the top row, as from lower down.
        let lines = "\x1b[47mitem 1 \x1b[m\r\n\x1b[47mitem 2 \x1b[m\r\n\x1b[47mitem 3 \x1b[m\r\n";
        let selection = format!("{lines}\x1b[47mitem 4 \x1b[m\r\ni\x1b[47mtem 5 \x1b[m\r\n~");
        assert_eq!(
            scan(&selection),
            [
                (0, vec!["item 1"]),
                (1, vec!["item 2"]),
                (2, vec!["item 3"]),
                (3, vec!["item 4"]),
                (4, vec!["tem 5"])
            ]
        );
        assert_eq!(scan(&format!("item 0\r\n{selection}")).len(), 5);
        // Indented lines, each starting with a blank.
        assert_eq!(
            scan("\x1b[47m  if x: \x1b[m\r\n\x1b[47m  y = 1 \x1b[m\r\n").len(),
            2
        );
        // But a column beside text (log levels on a background) and a padded popup's items are
        // areas, however many rows they take.
        for n in [2, 9] {
            let levels: String = (1..=n)
                .map(|i| format!("\x1b[44m INFO \x1b[m line {i}\r\n"))
                .collect();
            assert!(scan(&levels).is_empty(), "{n} rows");
        }
        let popup = "foo\x1b[45m foo    \x1b[m\r\n   \x1b[45m foobar \x1b[m";
        assert!(scan(popup).is_empty());
    }

    #[test]
    fn the_screens_background_is_no_highlight_on_its_edge_rows() {
        // A curses menu on black (its colour pair), its first item selected, then its second:
        // the first row, back on black, is no highlight though no row above covers it.
        let mut parser = parser();
        parser.process(
            b"\x1b[?1049h\x1b[1;10r\x1b[37m\x1b[40m\x1b[H\x1b[2J\x1b[0;7m\x1b[37m\x1b[40mapple\r\
              \x1b[2d\x1b[m\x1b[37m\x1b[40mbanana\r\x1b[3dcherry\r\x1b[4ddate",
        );
        let rows = |parser: &vt100::Parser| -> Vec<(u16, Vec<String>)> {
            highlighted_rows(parser.screen(), (0, 0), (10, 0), false)
                .into_iter()
                .map(|row| (row.row, row.runs))
                .collect()
        };
        assert_eq!(rows(&parser), [(0, vec!["apple".to_owned()])]);
        parser.process(b"\x1b[Happle\r\x1b[2d\x1b[0;7m\x1b[37m\x1b[40mbanana\x1b[4d\x08\x08");
        assert_eq!(rows(&parser), [(1, vec!["banana".to_owned()])]);
        // No item selected: text on the background alone, the last row's too.
        parser.process(b"\x1b[m\x1b[37m\x1b[40m\x1b[2;1Hbanana\x1b[10;1Hstatus");
        assert!(rows(&parser).is_empty());
    }

    #[test]
    fn the_scan_keeps_to_its_rows_and_columns() {
        let mut parser = parser();
        parser.process(b"\x1b[7mold\x1b[m dsh> \x1b[7mnew\x1b[m\r\n\x1b[7mprompt\x1b[m $ ");
        let runs = |from: (u16, u16), until: (u16, u16)| -> Vec<Vec<String>> {
            highlighted_rows(parser.screen(), from, until, false)
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
