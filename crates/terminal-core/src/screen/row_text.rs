//! One row's text: the emulator's cells as a string (TAB runs restored, U+FFFD restored), and
//! cuts of such text by cell column.

use std::borrow::Cow;

/// The text of every visible row, as [`row_text`] gives it from column 0 over `cols` cells.
pub(super) fn visible_rows_text<'a>(
    screen: &vt100::Screen,
    runs: impl Fn(u16) -> &'a [(u16, u16)],
    cols: u16,
) -> Vec<String> {
    visible_rows_text_from(screen, runs, cols, 0)
}

/// The text of the visible rows from `first` to the bottom (index 0 is row `first`), as
/// [`row_text`] gives it from column 0 over `cols` cells. Rows above `first` are never
/// rendered.
pub(super) fn visible_rows_text_from<'a>(
    screen: &vt100::Screen,
    runs: impl Fn(u16) -> &'a [(u16, u16)],
    cols: u16,
    first: u16,
) -> Vec<String> {
    (first..screen.size().0.get())
        .map(|r| row_text(screen, runs(r), r, 0, cols))
        .collect()
}

/// Row `row`'s text over cells `0..width` exactly as vt100 writes a row (`Screen::rows`),
/// rendering no other row: vt100's one-row accessors (`rows(..).nth(row)`, `contents_between`
/// within one row) render every row above it first.
pub(super) fn plain_row(screen: &vt100::Screen, row: u16, width: u16) -> String {
    if row == 0 {
        return screen.rows(0, width).next().unwrap_or_default();
    }
    // From the end of the row above: nothing of it is written, only its line break.
    let cols = screen.size().1.get();
    let mut text = screen.contents_between(row - 1, cols, row, width);
    if text.starts_with('\n') {
        text.remove(0);
    }
    text
}

/// The text of visible row `row` from cell column `start` over `width` cells: one character
/// per cell (the second cell of a wide character adds none), empty cells as spaces only
/// before later text, and `\t` for a recorded TAB run whose cells are all still empty.
pub(super) fn row_text(
    screen: &vt100::Screen,
    runs: &[(u16, u16)],
    row: u16,
    start: u16,
    width: u16,
) -> String {
    if runs.is_empty() && start == 0 {
        // vt100 writes a row prefix the same way, in one pass over the row's cells (each
        // `Screen::cell` lookup walks the rows).
        let plain = plain_row(screen, row, width);
        return match super::utf8::restore(&plain) {
            Cow::Borrowed(_) => plain,
            Cow::Owned(restored) => restored,
        };
    }
    row_text_walk(screen, runs, row, start, width)
}

/// [`row_text`] cell by cell.
pub(super) fn row_text_walk(
    screen: &vt100::Screen,
    runs: &[(u16, u16)],
    row: u16,
    start: u16,
    width: u16,
) -> String {
    // A space written into a run leaves it a TAB, as in history rows (see `restore_tabs`).
    let filled = |c: u16| {
        screen
            .cell(row, c)
            .is_some_and(|cell| cell.has_contents() && cell.contents() != " ")
    };
    let end = start.saturating_add(width).min(screen.size().1.get());
    let mut out = String::new();
    let mut blanks = 0usize;
    let mut runs = runs
        .iter()
        .filter(|&&(a, b)| a >= start && b <= end)
        .peekable();
    let mut col = start;
    while col < end {
        while runs.next_if(|&&(a, _)| a < col).is_some() {}
        if let Some(&&(a, b)) = runs.peek()
            && a == col
        {
            runs.next();
            if !(a..b).any(filled) {
                out.extend(std::iter::repeat_n(' ', std::mem::take(&mut blanks)));
                out.push('\t');
                col = b;
                continue;
            }
        }
        let Some(cell) = screen.cell(row, col) else {
            break;
        };
        col += 1;
        if cell.is_wide_continuation() {
            continue;
        }
        if cell.has_contents() {
            out.extend(std::iter::repeat_n(' ', std::mem::take(&mut blanks)));
            out.push_str(&super::utf8::restore(cell.contents()));
        } else {
            blanks += 1;
        }
    }
    out
}

/// Whether visible row `row` continues on the next row: vt100's wrap flag, or a wide
/// character that did not fit in the row's last column and went to the next row's start.
/// vt100 (like tmux) does not flag that wrap, so the line would otherwise break in two there.
///
/// Never on the alternate screen: a full-screen program draws rows, one result line each, as
/// the screen shows them. The flag a row got when text went past its edge outlives what the
/// program draws later: vim marks each row of a long line wrapped, and after `:set nowrap`
/// redraws only the rows below it (moving the cursor, no erase reaching the flagged row's last
/// cell, which is all that clears the flag), so the line's first row would be joined with the
/// `~` row now under it; a split window, a scrolled or redrawn buffer, a pager's next page
/// likewise.
pub(super) fn row_continues(screen: &vt100::Screen, row: u16, cols: u16) -> bool {
    if screen.alternate_screen() {
        return false;
    }
    if screen.row_wrapped(row) {
        return true;
    }
    let filled = |col: u16| {
        screen
            .cell(row, col)
            .is_some_and(|c| c.has_contents() || c.is_wide_continuation())
    };
    cols >= 2
        && !filled(cols - 1)
        && filled(cols - 2)
        && screen.cell(row + 1, 0).is_some_and(vt100::Cell::is_wide)
}

/// Whether a row of `prev_text` (not flagged wrapped) continues into a row starting with
/// `next_text`, on a screen `cols` wide: the row filled all but its last column and the next
/// row starts with a wide character, which could not fit there (see [`row_continues`]).
/// `prev_text` is only fetched when `next_text` starts with a wide character, so the rows
/// of a flood (ASCII) cost one character's check.
pub(super) fn wide_char_pushed_down<'a>(
    prev_text: impl FnOnce() -> Option<&'a str>,
    next_text: &str,
    cols: u16,
) -> bool {
    use unicode_width::UnicodeWidthChar as _;
    next_text.chars().next().and_then(|c| c.width()) == Some(2)
        && prev_text().is_some_and(|prev| fills_all_but_last_column(prev, cols))
}

/// Whether a row of `text` (not flagged wrapped) filled all but the last column of a screen
/// `cols` wide: a wide character after it could not fit there (see [`row_continues`]).
pub(super) fn fills_all_but_last_column(text: &str, cols: u16) -> bool {
    use unicode_width::UnicodeWidthChar as _;
    !text.contains('\t')
        && text
            .chars()
            .map(|c| c.width().unwrap_or(1).min(2))
            .sum::<usize>()
            == usize::from(cols).saturating_sub(1)
}

/// The part of `text` from cell column `col` on (wide characters take two cells; a `\t`, a
/// recorded TAB run, reaches the next default tab stop; a zero-width character, such as a
/// combining mark, belongs to the cell before it, as the emulator keeps it there).
pub(super) fn skip_cols(text: &str, col: u16) -> &str {
    use unicode_width::UnicodeWidthChar as _;
    /// The terminal's default tab stops: every 8 columns.
    const TAB_STOP: usize = 8;
    let mut used = 0usize;
    for (i, c) in text.char_indices() {
        if used >= usize::from(col) && !(i > 0 && c.width() == Some(0)) {
            return &text[i..];
        }
        used = if c == '\t' {
            (used / TAB_STOP + 1) * TAB_STOP
        } else {
            used + c.width().unwrap_or(1).min(2)
        };
    }
    ""
}
