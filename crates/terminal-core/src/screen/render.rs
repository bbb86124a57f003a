//! Rendering: screen-true text from an anchor, the visible screen, the transcript and
//! newest-relative pages, all tail-bounded on UTF-8 boundaries.

use std::borrow::Cow;

use super::left_rows::LeftRow;
use super::row_text::{row_continues, row_text, skip_cols};
use super::snapshot::{RowsSnapshot, Stop};
use super::suggestion::{only_suggestion_from, typed_after_prompt};
use super::{AnchorId, Position, Rendered, Screen};

impl Screen {
    /// Screen-true text from the anchor to the end, tail-bounded to `max_bytes`. On the
    /// alternate screen: the rendered visible screen.
    #[cfg(test)]
    pub(crate) fn render_since(&mut self, id: AnchorId, max_bytes: usize) -> Rendered {
        self.snapshot_since(id, max_bytes).render(max_bytes)
    }

    /// The rows [`Screen::render_since`] renders, copied out (at most about `max_bytes` of
    /// them), so the caller can render after releasing the lock the screen sits behind.
    pub(crate) fn snapshot_since(&mut self, id: AnchorId, max_bytes: usize) -> RowsSnapshot {
        self.copy_since(id, max_bytes, true)
    }

    /// [`Screen::snapshot_since`] for a look the model is not shown (a progress report): a
    /// full-screen program's screen does not count as shown by it (a background job's next
    /// read would take it as handed out already, and never show it).
    pub(crate) fn peek_since(&mut self, id: AnchorId, max_bytes: usize) -> RowsSnapshot {
        self.copy_since(id, max_bytes, false)
    }

    /// The rows from `id` (see [`Screen::snapshot_since`]); on the alternate screen, the
    /// screen, which counts as shown when `shown`.
    fn copy_since(&mut self, id: AnchorId, max_bytes: usize, shown: bool) -> RowsSnapshot {
        self.materialize();
        if self.alternate {
            if shown {
                self.alternate_shown = Some(self.alternate_screen_text());
            }
            return self.collect_rows(self.history().end_abs(), 0, Stop::Bytes(max_bytes), &[]);
        }
        match self.anchor_render_start(id) {
            Some(pos) => {
                // Taken out for the copy (the anchor keeps them).
                let left = self.take_anchor_left_rows(id);
                let snapshot = self.snapshot_past_left_rows(pos, max_bytes, &left);
                self.restore_anchor_left_rows(id, left);
                snapshot
            }
            None => RowsSnapshot::default(),
        }
    }

    /// The text of each visible row from `first` down ([`visible_rows_text_from`], with the
    /// TAB runs of the alternate or the main screen), rendering none of the rows known blank
    /// (their text is empty); what the render finds is remembered ([`blank_rows`]).
    ///
    /// [`blank_rows`]: super::blank_rows
    pub(super) fn visible_rows_from(&self, alternate: bool, first: u16) -> Vec<String> {
        let screen = self.parser.screen();
        let rows = screen.size().0.get();
        let first = first.min(rows);
        let end = self.blank.from().unwrap_or(rows).clamp(first, rows);
        let runs = self.parser.callbacks().tabs(alternate);
        let text_of = |r: u16| row_text(screen, runs.row(r), r, 0, self.config.cols.max(1));
        // Debug builds (every test) check what the tracking claims.
        #[cfg(debug_assertions)]
        for r in end..rows {
            let text = text_of(r);
            assert!(text.is_empty(), "row {r} is known blank but holds {text:?}");
        }
        let mut texts: Vec<String> = (first..end).map(text_of).collect();
        let last_text = texts
            .iter()
            .rposition(|text| !text.is_empty())
            .and_then(|i| u16::try_from(i).ok())
            .map(|i| first + i);
        self.blank.found(first, last_text);
        texts.resize(usize::from(rows.saturating_sub(first)), String::new());
        texts
    }

    /// The text of row `pos.row` before column `pos.col`, trailing spaces trimmed (`None` when
    /// the row is no longer retained or the column is 0). Visible rows and history rows are cut
    /// the same way, so the text stays equal when the row scrolls into history.
    pub(super) fn row_prefix(&self, pos: Position) -> Option<String> {
        if pos.col == 0 {
            return None;
        }
        let history = self.history();
        let base = history.end_abs();
        let full = if pos.row >= base {
            let r = u16::try_from(pos.row - base).ok()?;
            let screen = self.parser.screen();
            if r >= screen.size().0.get() {
                return None;
            }
            let runs = self.parser.callbacks().tabs(self.alternate);
            Cow::Owned(row_text(screen, runs.row(r), r, 0, self.config.cols.max(1)))
        } else {
            Cow::Borrowed(history.get(pos.row)?.0)
        };
        let rest = skip_cols(&full, pos.col);
        Some(
            full[..full.len() - rest.len()]
                .trim_end_matches(' ')
                .to_owned(),
        )
    }

    /// The rows from `from` to the end of the content (trailing blank rows and trailing
    /// spaces trimmed, explicit text before the cursor kept), the newest about `max_bytes`.
    pub(super) fn snapshot_from(&mut self, from: Position, max_bytes: usize) -> RowsSnapshot {
        self.snapshot_past_left_rows(from, max_bytes, &[])
    }

    /// [`Screen::snapshot_from`], not ending on rows of `left` (the text an earlier program
    /// left at and below the cursor when the render's anchor was placed, see
    /// [`Screen::rows_left_at_cursor`]) that are unchanged, nor showing their unchanged text
    /// after the prompt.
    fn snapshot_past_left_rows(
        &mut self,
        from: Position,
        max_bytes: usize,
        left: &[LeftRow],
    ) -> RowsSnapshot {
        self.materialize();
        let first = self.history().first_abs();
        let lost = from.row < first;
        let (row, col) = if lost {
            (first, 0)
        } else {
            (from.row, from.col)
        };
        let mut snapshot = self.collect_rows(row, col, Stop::Bytes(max_bytes), left);
        snapshot.truncated |= lost;
        snapshot
    }

    /// The whole transcript (history plus screen), unbounded. For tests and diagnostics.
    pub(crate) fn transcript(&mut self) -> String {
        self.materialize();
        self.render_rows(self.history().first_abs(), 0, usize::MAX)
            .text
    }

    fn render_rows(&self, start_abs: u64, start_col: u16, max_bytes: usize) -> Rendered {
        self.collect_rows(start_abs, start_col, Stop::Bytes(max_bytes), &[])
            .render(max_bytes)
    }

    /// Copies the rows from `start_abs` (cell column `start_col`) to the end of the content,
    /// newest first until `stop` holds: the visible rows as their text, the history rows
    /// as stored (trailing spaces trimmed unless soft-wrapped). Rows of `left` (text an
    /// earlier program left, see [`Screen::rows_left_at_cursor`]) below the cursor whose text is
    /// unchanged do not count as content, those a clear moved into history unchanged are left
    /// out, and their unchanged text after the prompt (on the start row after its column, on
    /// the cursor's row after the cursor) is not shown.
    pub(super) fn collect_rows(
        &self,
        start_abs: u64,
        start_col: u16,
        stop: Stop,
        left: &[LeftRow],
    ) -> RowsSnapshot {
        let screen = self.parser.screen();
        let cols = self.config.cols.max(1);
        let history = self.history();
        let base = history.end_abs();
        let runs = self.parser.callbacks().tabs(self.alternate);
        let (cursor_row, cursor_col) = screen.cursor_position();
        // Rows above the start are never copied; those above the cursor cannot be the end
        // either, so neither is rendered.
        let first = u16::try_from(start_abs.saturating_sub(base))
            .unwrap_or(u16::MAX)
            .min(cursor_row);
        let visible = self.visible_rows_from(self.alternate, first);
        let left_at = |abs: u64| {
            left.binary_search_by_key(&abs, |row| row.abs)
                .ok()
                .map(|i| &left[i])
        };
        let old_at = |abs: u64| left_at(abs).map(|row| row.text.as_str());
        let old_text = |r: usize| old_at(base + r as u64);
        // Left there, and unchanged: no output since the anchor wrote on it.
        let unchanged = |r: usize, text: &str| {
            left_at(base + r as u64).is_some_and(|row| row.written_to == 0 && row.text == text)
        };
        // The first column that may hold text left there: none the output wrote.
        let written_to = |abs: u64| left_at(abs).map_or(0, |row| row.written_to);
        // Grey text a line editor draws after the cursor or below it is its suggestion for keys
        // typed at its prompt (fish, IPython, node: Enter leaves it out, see `suggestion`);
        // with nothing typed, a prompt's default (`Port: ` then grey `8080`), shown. Typed: the
        // copy starts after a prompt on the cursor's line (wrapped rows), before the cursor;
        // else the text before the cursor does not end as a prompt does.
        let cursor_abs = base + u64::from(cursor_row);
        let row_wraps = |abs: u64| match abs.checked_sub(base) {
            Some(r) => u16::try_from(r).is_ok_and(|r| row_continues(screen, r, cols)),
            None => history.get(abs).is_some_and(|(_, wrapped)| wrapped),
        };
        let line_from_start =
            start_col > 0 && start_abs < cursor_abs && (start_abs..cursor_abs).all(row_wraps);
        let typed_on_cursor_line = !self.alternate
            && match start_col > 0 && start_abs == cursor_abs {
                true => start_col < cursor_col,
                false => {
                    line_from_start
                        || typed_after_prompt(&row_text(
                            screen,
                            runs.row(cursor_row),
                            cursor_row,
                            0,
                            cursor_col,
                        ))
                }
            };
        // A line editor's suggestion below the cursor (node's preview of the value) is no
        // content (see `suggestion`).
        let suggestion_below = |r: usize| {
            typed_on_cursor_line
                && r > usize::from(cursor_row)
                && u16::try_from(r).is_ok_and(|r| only_suggestion_from(screen, r, 0, cols))
        };
        let last_content = visible
            .iter()
            .enumerate()
            .rposition(|(i, text)| {
                let r = i + usize::from(first);
                let left_unchanged = r > usize::from(cursor_row) && unchanged(r, text);
                !text.trim_end_matches(' ').is_empty() && !left_unchanged && !suggestion_below(r)
            })
            .map_or(0, |i| i + usize::from(first));
        let end_visible = last_content.max(usize::from(cursor_row));
        // From the cursor down in a scroll region that stops above the screen's last row: the
        // region's rows the output has not reached yet, blank (the cursor's too, when nothing
        // is written on it and text follows), are no lines of it; the text pinned below the
        // region (a status line, as apt and dpkg keep one) is.
        let unreached = self
            .region
            .filter(|region| {
                !self.alternate
                    && (region.top..region.bottom).contains(&cursor_row)
                    && region.bottom + 1 < screen.size().0.get()
            })
            .map(|region| {
                // The cursor's row stays the text's last line when nothing follows it.
                let cursor_row_kept = cursor_col > 0 || last_content <= usize::from(cursor_row);
                usize::from(cursor_row) + usize::from(cursor_row_kept)..=usize::from(region.bottom)
            });
        let end_abs = base + end_visible as u64;
        if start_abs > end_abs {
            return RowsSnapshot::default();
        }
        let mut pieces: Vec<(Cow<'_, str>, bool)> = Vec::new();
        let mut mixed = false;
        // Mixed on a row other than the start's (see `RowsSnapshot::mixed_at_start_only`).
        let mut mixed_elsewhere = false;
        let mut cursor_piece = None;
        let rows = (usize::from(first)..).zip(&visible);
        for (r, full) in rows.take((end_visible + 1).saturating_sub(usize::from(first))) {
            let abs = base + r as u64;
            if abs < start_abs {
                continue;
            }
            let Ok(r16) = u16::try_from(r) else { break };
            let erased_blank = || {
                matches!(stop, Stop::Bytes(_)) && r16 != cursor_row && self.erased_blank_row(abs)
            };
            if (unreached.as_ref().is_some_and(|rows| rows.contains(&r)) || erased_blank())
                && full.trim_end_matches(' ').is_empty()
            {
                continue;
            }
            // A row an earlier program left, unchanged, between rows this output wrote.
            if abs != start_abs && r16 != cursor_row && unchanged(r, full) {
                match left_at(abs) {
                    // A line feed of this output went down over it after the output went up
                    // above the start (a redraw in place): left as it is on screen, shown so.
                    Some(row) if row.passed && row.above_start => {
                        mixed = true;
                        mixed_elsewhere = true;
                    }
                    // One passed over below the start: a blank line of the output.
                    Some(row) if row.passed => {
                        pieces.push((Cow::Borrowed(""), false));
                        continue;
                    }
                    _ => continue,
                }
            }
            let from_col = if abs == start_abs { start_col } else { 0 };
            let wrapped = row_continues(screen, r16, cols);
            let row_runs = runs.row(r16);
            let text: Cow<'_, str> = if r16 == cursor_row {
                let before = row_text(
                    screen,
                    row_runs,
                    r16,
                    from_col,
                    cursor_col.saturating_sub(from_col),
                );
                let whole: Cow<'_, str> = if from_col == 0 {
                    Cow::Borrowed(full.as_str())
                } else {
                    Cow::Owned(row_text(
                        screen,
                        row_runs,
                        r16,
                        from_col,
                        cols.saturating_sub(from_col),
                    ))
                };
                let trimmed = whole.trim_end_matches(' ');
                // A line editor's suggestion after what was typed is not on the line.
                let suggested = typed_on_cursor_line
                    && only_suggestion_from(screen, cursor_row, cursor_col, cols);
                if trimmed.len() <= before.len() || suggested {
                    Cow::Owned(prompt_spaces_kept(before, cursor_col + 1 >= cols))
                } else {
                    Cow::Owned(trimmed.to_owned())
                }
            } else if from_col > 0 {
                let part = row_text(
                    screen,
                    row_runs,
                    r16,
                    from_col,
                    cols.saturating_sub(from_col),
                );
                Cow::Owned(if wrapped {
                    part
                } else {
                    part.trim_end_matches(' ').to_owned()
                })
            } else if wrapped {
                Cow::Borrowed(full.as_str())
            } else {
                Cow::Borrowed(full.trim_end_matches(' '))
            };
            // Text an earlier program left after the prompt (on the anchor's row, after what
            // was typed there; on the cursor's row, after the cursor), unchanged, is not shown.
            let lower = if r16 == cursor_row {
                cursor_col
            } else if abs == start_abs {
                from_col
            } else {
                0
            };
            let old_from = match old_text(r) {
                Some(old) if lower > 0 && !wrapped => {
                    old_tail_start(full, old, lower.max(written_to(abs)), cols)
                }
                _ => None,
            };
            // A row an earlier program left that this output changed but did not replace
            // from the prompt on, or wrote only the start of: it may still show some of that
            // text (`total: 10` over `total: 1000` shows `total: 1000`).
            let old_after_written = left_at(abs).is_some_and(|row| {
                row.written_to > 0
                    && !skip_cols(full, row.written_to)
                        .trim_end_matches(' ')
                        .is_empty()
            });
            // The output wrote over every cell the earlier text had: none of it is left (a
            // command typed over what a `\r` progress line left on the prompt's row).
            let old_covered = |old: &str| {
                let to = written_to(abs);
                to > 0
                    && !left_at(abs).is_some_and(|row| row.skipped)
                    && skip_cols(old, to).trim_end_matches(' ').is_empty()
            };
            if old_from.is_none()
                && old_text(r).is_some_and(|old| {
                    (old != full.as_str() && !old_covered(old)) || old_after_written
                })
            {
                mixed = true;
                mixed_elsewhere |= abs != start_abs;
            }
            let text = match old_from {
                Some(c) => {
                    let kept =
                        row_text(screen, row_runs, r16, from_col, c.saturating_sub(from_col));
                    let trimmed = kept.trim_end_matches(' ');
                    // On the cursor's row, text before the cursor stays whole (a prompt's
                    // trailing space).
                    Cow::Owned(if r16 == cursor_row && c == cursor_col {
                        prompt_spaces_kept(kept, cursor_col + 1 >= cols)
                    } else {
                        trimmed.to_owned()
                    })
                }
                None => text,
            };
            if r16 == cursor_row {
                cursor_piece = Some(pieces.len());
            }
            pieces.push((text, wrapped));
        }
        // The line ends after the cursor's row among the pieces (none after the last).
        let lines_after_cursor = match cursor_piece {
            Some(at) if !self.alternate => pieces[at..pieces.len().saturating_sub(1)]
                .iter()
                .filter(|(_, wrapped)| !wrapped)
                .count() as u64,
            _ => 0,
        };
        // History row `abs` with whether its line goes on in the next row. On the alternate
        // screen, the newest history row's line goes on on the main screen it covers (hidden),
        // not in the alternate screen's first row.
        let history_row = |abs: u64| {
            history
                .get(abs)
                .map(|(text, wrapped)| (text, wrapped && !(self.alternate && abs + 1 == base)))
        };
        // History rows, newest first, until `stop` holds.
        let first_before_wrapped =
            base > start_abs && history_row(base - 1).is_some_and(|(_, w)| w);
        let mut walk = stop.walk(&pieces, first_before_wrapped);
        let mut older = Vec::new();
        let mut abs = base;
        while abs > start_abs && !walk.done() {
            abs -= 1;
            let Some((text, wrapped)) = history_row(abs) else {
                continue;
            };
            if matches!(stop, Stop::Bytes(_))
                && self.erased_blank_row(abs)
                && text.trim_end_matches(' ').is_empty()
            {
                continue;
            }
            // Rows an earlier program left, moved here unchanged (a clear erased them), and
            // their text after the prompt on the start row, are not this output.
            let old = old_at(abs).filter(|_| !wrapped);
            if abs > start_abs
                && written_to(abs) == 0
                && old.is_some_and(|old| old.trim_end_matches(' ') == text.trim_end_matches(' '))
            {
                continue;
            }
            let text = match old {
                Some(old) if abs == start_abs && start_col > 0 => {
                    match old_tail_start(text, old, start_col.max(written_to(abs)), cols) {
                        Some(c) => &text[..text.len() - skip_cols(text, c).len()],
                        None => text,
                    }
                }
                _ => text,
            };
            let text = if abs == start_abs && start_col > 0 {
                skip_cols(text, start_col)
            } else {
                text
            };
            let text = if wrapped {
                text
            } else {
                text.trim_end_matches(' ')
            };
            let before_wrapped = abs > start_abs && history_row(abs - 1).is_some_and(|(_, w)| w);
            walk.add(text.len(), wrapped, before_wrapped);
            older.push((text, wrapped));
        }
        // Lines wholly before the copied rows (a page counts them; a render never needs them).
        let lines_before = match stop {
            Stop::Lines(_) => (start_abs..abs)
                .filter(|&a| history_row(a).is_some_and(|(_, w)| !w))
                .count() as u64,
            Stop::Bytes(_) => 0,
        };
        let rows = older
            .iter()
            .rev()
            .copied()
            .chain(pieces.iter().map(|(t, w)| (&**t, *w)));
        let mut snapshot = RowsSnapshot::join(rows);
        snapshot.first_row = abs;
        snapshot.lines_before = lines_before;
        snapshot.mixed = mixed;
        snapshot.mixed_elsewhere = mixed_elsewhere;
        snapshot.lines_after_cursor = lines_after_cursor;
        snapshot.last_line = (!self.alternate && snapshot.row_count() > 0)
            .then(|| self.line_ends_before(end_abs))
            .flatten();
        snapshot
    }
}

/// `before` (the cursor row's text before the cursor) with its trailing blanks: kept (a
/// prompt's own, `dsh> `, or blanks typed without Enter), unless the cursor sits at the row's
/// last column (`at_edge`), where blanks are padding to the screen's width (`top` fills its
/// last row with them), trimmed as on every other row.
fn prompt_spaces_kept(before: String, at_edge: bool) -> String {
    if at_edge {
        before.trim_end_matches(' ').to_owned()
    } else {
        before
    }
}

/// The first column from `lower` on where row text `new` goes on exactly as `old` did, with
/// text left there (`None` when its text after `lower` differs to the end, or is blank).
fn old_tail_start(new: &str, old: &str, lower: u16, cols: u16) -> Option<u16> {
    (lower..cols).find(|&c| {
        let rest = skip_cols(new, c).trim_end_matches(' ');
        !rest.is_empty() && rest == skip_cols(old, c).trim_end_matches(' ')
    })
}
