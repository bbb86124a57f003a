//! TAB fidelity: where a program's horizontal TABs moved the cursor.
//!
//! A terminal turns HT into a cursor movement to the next tab stop and writes nothing into
//! the cells it skips, so a screen-true render would show a run of spaces. The screen records
//! each TAB's run of skipped cells per visible row; a render emits `\t` for a recorded run
//! whose cells are still empty (a later write into the run turns it back into plain cells).
//! Erases, line insertions and scroll-region changes forget the runs of the rows they touch.

use std::borrow::Cow;
use std::collections::VecDeque;

/// The TAB runs of one row: `(first_col, end_col)` cell ranges, in column order.
pub(crate) type TabRuns = Vec<(u16, u16)>;

/// TAB runs per visible row of one screen (main or alternate).
#[derive(Debug, Default)]
pub(crate) struct TabTable {
    rows: VecDeque<TabRuns>,
}

impl TabTable {
    /// A table for `rows` visible rows.
    pub(crate) fn new(rows: u16) -> Self {
        Self {
            rows: (0..rows).map(|_| TabRuns::new()).collect(),
        }
    }

    /// Records that a TAB on `row` moved the cursor from `from` to `to`.
    pub(crate) fn record(&mut self, row: u16, from: u16, to: u16) {
        if to <= from {
            return;
        }
        if let Some(runs) = self.rows.get_mut(usize::from(row)) {
            runs.retain(|&(a, b)| b <= from || a >= to);
            let at = runs.partition_point(|&(a, _)| a < from);
            runs.insert(at, (from, to));
        }
    }

    /// The runs of a visible row.
    pub(crate) fn row(&self, row: u16) -> &[(u16, u16)] {
        self.rows.get(usize::from(row)).map_or(&[], Vec::as_slice)
    }

    /// The top row scrolled off: returns its runs and shifts the others up.
    pub(crate) fn scroll_up(&mut self) -> TabRuns {
        let top = self.rows.pop_front().unwrap_or_default();
        self.rows.push_back(TabRuns::new());
        top
    }

    /// Forgets the runs of one row.
    pub(crate) fn clear_row(&mut self, row: u16) {
        if let Some(runs) = self.rows.get_mut(usize::from(row)) {
            runs.clear();
        }
    }

    /// Forgets the runs of one row that end past column `col` (the ones at and after it).
    pub(crate) fn clear_row_from(&mut self, row: u16, col: u16) {
        if let Some(runs) = self.rows.get_mut(usize::from(row)) {
            runs.retain(|&(_, end)| end <= col);
        }
    }

    /// Forgets the runs of rows `from..` (to the bottom).
    pub(crate) fn clear_from(&mut self, from: u16) {
        for runs in self.rows.iter_mut().skip(usize::from(from)) {
            runs.clear();
        }
    }

    /// Forgets the runs of rows `..=to`.
    pub(crate) fn clear_to(&mut self, to: u16) {
        for runs in self.rows.iter_mut().take(usize::from(to) + 1) {
            runs.clear();
        }
    }

    /// Forgets every run.
    pub(crate) fn clear(&mut self) {
        self.rows.iter_mut().for_each(Vec::clear);
    }

    /// Takes the runs of every row (for rows moved into history), leaving them empty.
    pub(crate) fn take_row(&mut self, row: u16) -> TabRuns {
        self.rows
            .get_mut(usize::from(row))
            .map(std::mem::take)
            .unwrap_or_default()
    }
}

/// Puts `\t` back into a row's plain text (one character per cell, wide characters two
/// cells, trailing empty cells omitted) for every run whose cells are all spaces; a run that
/// starts at or past where the text ends is a trailing TAB (after the blank cells before it,
/// as the visible render writes it).
pub(crate) fn restore_tabs<'a>(text: &'a str, runs: &[(u16, u16)]) -> Cow<'a, str> {
    use unicode_width::UnicodeWidthChar as _;
    if runs.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut runs = runs.iter().peekable();
    let mut col: u16 = 0;
    let mut chars = text.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        while runs.next_if(|&&(a, _)| a < col).is_some() {}
        if let Some(&&(a, b)) = runs.peek()
            && a == col
        {
            // Blank over the run's cells the text reaches (a row's text may end inside it: the
            // blank a TAB from the last column wrote at the next row's start).
            let span = usize::from(b - a);
            let (reached, blank) = text[i..]
                .chars()
                .take(span)
                .fold((0, true), |(n, blank), ch| (n + 1, blank && ch == ' '));
            if blank {
                out.push('\t');
                for _ in 0..reached {
                    chars.next();
                }
                col = b;
                runs.next();
                continue;
            }
            runs.next();
        }
        out.push(c);
        chars.next();
        col = col.saturating_add(u16::try_from(c.width().unwrap_or(1).min(2)).unwrap_or(1));
    }
    // Runs past the text (trailing TABs over empty cells) come out as the visible render
    // writes them: the blank cells before a run, then the TAB.
    for &(a, b) in runs {
        if a >= col {
            out.extend(std::iter::repeat_n(' ', usize::from(a - col)));
            out.push('\t');
            col = b;
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_spaces_become_tabs_and_overwritten_runs_stay_text() {
        assert_eq!(restore_tabs("all:", &[]), "all:");
        assert_eq!(restore_tabs("        echo", &[(0, 8)]), "\techo");
        assert_eq!(restore_tabs("name    qty", &[(4, 8)]), "name\tqty");
        assert_eq!(restore_tabs("name xx qty", &[(4, 8)]), "name xx qty");
        assert_eq!(restore_tabs("a", &[(1, 8)]), "a\t");
        assert_eq!(restore_tabs("ab", &[(0, 8), (8, 9)]), "ab      \t");
        assert_eq!(restore_tabs("中文    x", &[(4, 8)]), "中文\tx");
    }

    #[test]
    fn recording_replaces_overlapping_runs() {
        let mut t = TabTable::new(2);
        t.record(0, 4, 8);
        t.record(0, 0, 8);
        assert_eq!(t.row(0), &[(0, 8)]);
        t.record(0, 9, 16);
        assert_eq!(t.row(0), &[(0, 8), (9, 16)]);
        assert_eq!(t.scroll_up(), vec![(0, 8), (9, 16)]);
        assert!(t.row(0).is_empty());
    }
}
