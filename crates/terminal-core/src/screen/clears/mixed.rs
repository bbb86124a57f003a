//! A row written over after carriage returns (`\r` with no `\n`) that ends up showing two
//! writes at once: a shorter text over a longer one leaves the longer one's end after it, as
//! on a terminal (`2,bob,b@y@x.org` from a file with CR line ends, `Doneloading…` from a
//! status line redrawn shorter without an erase). The row reads as a line no program wrote,
//! and the texts written over before it show nowhere: the result quotes the row. A row that
//! shows an earlier text whole (`Loading...` then `Loading`, a spinner's `Working.` over its
//! `Working...`: the newer text repeats the older one's start; or text inserted before it) is
//! a line the program wrote, unless the newer text ends in a number that the older one's end
//! goes on with (`Total: 15` over `Total: 1500`, a count going down without an erase): the row
//! then shows a value the program no longer does.

use unicode_width::UnicodeWidthChar as _;

use super::super::Screen;

/// The row a running command's text went back over with carriage returns.
#[derive(Clone, Debug)]
pub(super) struct ReturnedRow {
    /// Its absolute number.
    row: u64,
    /// The furthest column the texts before the newest reached.
    furthest: u16,
    /// The column the newest text reached.
    newest: u16,
    /// How many texts were written on it, one over another, so far.
    texts: u64,
    /// The row's text when a text that reached further than every one before it ended (the
    /// first text's included).
    longest: Option<String>,
}

impl ReturnedRow {
    /// A text ended at column `col`.
    fn ended(&mut self, col: u16) {
        self.furthest = self.furthest.max(self.newest);
        self.newest = col;
        self.texts += 1;
    }
}

impl Screen {
    /// Whether carriage returns went back over text on a row that has not ended yet.
    pub(in super::super) fn returning(&self) -> bool {
        self.clears.returned.is_some()
    }

    /// A carriage return on the cursor's row (see `before_carriage_return`; the text before
    /// it is emulated) ends the text written since the row's start or the last one: one that
    /// goes back over it (`over`: more of the row follows) starts the row's record, and each
    /// on a recorded row notes where its text ended. One right after another (nothing
    /// written between) ends no text.
    pub(super) fn note_return(&mut self, over: bool) {
        let at = self.cursor_unsynced();
        self.note_text_end(at.row, at.col, over);
    }

    /// A carriage return the flood path took (and the emulator got) went back over the row
    /// (see `after_flood`): the text before it ended where the row's text does.
    pub(super) fn note_flood_return(&mut self) {
        let row = self.cursor_unsynced().row;
        let end = self.row_text_end(row);
        self.note_text_end(row, end, true);
    }

    /// The column after the last text on absolute row `row` (0 when it is off the screen).
    pub(super) fn row_text_end(&self, row: u64) -> u16 {
        self.visible_row_text(row)
            .map_or(0, |text| text_width(text.trim_end()))
    }

    /// A text on absolute row `row` ended at column `col` before a carriage return (see
    /// [`Screen::note_return`]).
    pub(super) fn note_text_end(&mut self, row: u64, col: u16, over: bool) {
        if col == 0 {
            return;
        }
        let on_row = self.clears.returned.as_ref().filter(|r| r.row == row);
        // Read only for a text longer than every one before it (a redraw of the same width,
        // a spinner's frame or a progress bar's, reads nothing).
        let longest = match on_row {
            Some(r) if col <= r.furthest.max(r.newest) => None,
            Some(_) => self.visible_row_text(row),
            None if over => self.visible_row_text(row),
            None => return,
        };
        match self.clears.returned.as_mut() {
            Some(r) if r.row == row => {
                r.ended(col);
                if longest.is_some() {
                    r.longest = longest;
                }
            }
            _ => {
                self.clears.returned = Some(ReturnedRow {
                    row,
                    furthest: 0,
                    newest: col,
                    texts: 1,
                    longest,
                });
            }
        }
    }

    /// Characters were deleted or inserted on the cursor's row (`CSI n P`, `CSI n @`): a line
    /// editor redraws its line in place (readline, after a history search, deletes the
    /// search's prefix and writes its prompt, then moves the cursor over the rest), so what
    /// the row shows is the line it meant, not texts written over one another. A row carriage
    /// returns went back over is no longer followed.
    pub(in super::super) fn edited_in_place(&mut self) {
        let row = self.cursor_unsynced().row;
        if self.clears.returned.as_ref().is_some_and(|r| r.row == row) {
            self.clears.returned = None;
        }
    }

    /// A line feed at byte `i` of `bytes` ends the cursor's row: when carriage returns went
    /// back over it, and the newest text on it ended before an earlier one did with that
    /// one's end still showing after it, the row is noted (see the module docs). The text
    /// before the line feed is emulated first, from `seg_start`.
    pub(in super::super) fn before_line_feed(
        &mut self,
        bytes: &[u8],
        i: usize,
        seg_start: &mut usize,
    ) {
        if let Some(mut returned) = self.clears.returned.take() {
            self.emulate(&bytes[*seg_start..i]);
            *seg_start = i;
            let at = self.cursor_unsynced();
            if at.row == returned.row && at.col > 0 {
                returned.ended(at.col);
            }
            if at.row == returned.row && returned.texts >= 2 && returned.newest < returned.furthest
            {
                self.note_mixed(returned);
            }
        }
        self.note_printed(false);
    }

    /// The first row that showed two texts written over one another since the last call (see
    /// the module docs), and how many such rows there were; clears it. A row carriage returns
    /// went back over that no line feed ended yet (the output's last line, `cat` of a file
    /// with CR line ends) counts once the prompt came back below it.
    pub(crate) fn take_mixed_row(&mut self) -> Option<(String, u64)> {
        if !self.command_running()
            && let Some(returned) = self.clears.returned.take()
            && returned.texts >= 2
            && returned.newest < returned.furthest
        {
            self.note_mixed(returned);
        }
        self.clears.mixed.take()
    }

    /// Notes `returned`'s row when a longer earlier text's end shows after its newest, unless
    /// the row shows that earlier text whole (also moved along the row: characters inserted
    /// before it, `ESC [ 2 @`, pushed it right).
    fn note_mixed(&mut self, returned: ReturnedRow) {
        let shows_whole = |text: &str| {
            returned
                .longest
                .as_deref()
                .map(str::trim)
                .is_some_and(|longest| !longest.is_empty() && text.contains(longest))
        };
        // The newest text's number, continued by the older text's digits, reads as another.
        let number_cut = |text: &str| {
            columns(text, 0, returned.newest).ends_with(|c: char| c.is_ascii_digit())
                && columns(text, returned.newest, returned.furthest)
                    .starts_with(|c: char| c.is_ascii_digit())
        };
        if let Some(text) = self.visible_row_text(returned.row)
            && columns(&text, returned.newest, returned.furthest).trim() != ""
            && (!shows_whole(&text) || number_cut(&text))
        {
            let mixed = self
                .clears
                .mixed
                .get_or_insert_with(|| (text.trim_end().to_owned(), 0));
            mixed.1 += 1;
            // Written over, not erased: the row is said to mix its texts, not to be gone (a
            // problem line remembered at its carriage return, `FAIL long` under `PASS`).
            self.clears
                .revisited
                .retain(|(row, _)| *row != returned.row);
        }
    }
}

/// The columns `text` takes.
fn text_width(text: &str) -> u16 {
    text.chars().fold(0u16, |col, c| {
        col.saturating_add(u16::try_from(c.width().unwrap_or(0)).unwrap_or(0))
    })
}

/// The characters of `text` (a row) that start in columns `from..to`.
fn columns(text: &str, from: u16, to: u16) -> String {
    let mut col = 0u16;
    let mut out = String::new();
    for c in text.chars() {
        if (from..to).contains(&col) {
            out.push(c);
        }
        col = col.saturating_add(u16::try_from(c.width().unwrap_or(0)).unwrap_or(0));
    }
    out
}
