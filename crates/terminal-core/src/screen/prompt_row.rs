//! Where the shell's prompt is drawn: on a row of its own, below every row holding text.
//!
//! Bash draws its prompt wherever the last command left the cursor. A command that moved the
//! cursor up (`tput cup 0 0`, a progress display going back over its lines) or ended with a
//! carriage return (`printf 'value=42\r'`) left it above, or at the start of, text still on
//! screen: the prompt was drawn over that text, and the next commands' output was written
//! over the rows below, mixing older text into every line (`echo $?` read `130lier-build…`).
//! At a prompt's `D` mark (the command's end, before the prompt's text), the cursor goes to
//! the first column of the row after the lowest row holding text, the screen scrolling a row
//! when there is none; every row of the screen, and of history, stays as it was. Nothing moves
//! when the cursor's row holds nothing and no row below it holds anything: after every command
//! whose output ended with a line end. Output that did not end with one (`printf abc`) gets
//! the prompt on the next row, as zsh and fish draw it. Nor when the line editor draws the
//! prompt it reads at again in place (leaving a history search): the text on the row is its
//! line. A render from where the cursor was, whose output wrote nothing on the rows an
//! earlier program left there (the shell's line end after an interrupt passing over them),
//! starts at the new place.
//!
//! A scroll region (DECSTBM) or origin mode (DECOM) a command left set (a progress display
//! killed part way, as apt's keeps a region above its bar) is reset there too, the cursor
//! staying where it is: every later line scrolled within the region, out of order with the
//! rows around it. (A reset in the prompt string itself would home the cursor.)

use super::Screen;
use super::feed::modes;

impl Screen {
    /// At a verified `D` mark on the main screen: resets a scroll region or origin mode left
    /// set and moves the cursor below the text left at or after it (see the module docs).
    pub(super) fn prompt_below_left_text(&mut self) {
        if self.region.is_some() || self.modes & (modes::REGION | modes::ORIGIN) != 0 {
            let (row, col) = self.parser.screen().cursor_position();
            self.emulate(format!("\x1b[?6l\x1b[r\x1b[{};{}H", row + 1, col + 1).as_bytes());
            self.region = None;
            self.modes &= !(modes::REGION | modes::ORIGIN);
        }
        let screen = self.parser.screen();
        let (row, col) = screen.cursor_position();
        let (rows, cols) = (self.config.rows, self.config.cols);
        let holds_text = |r: u16, from: u16| {
            (from..cols).any(|c| screen.cell(r, c).is_some_and(vt100::Cell::has_contents))
        };
        // The rows below the cursor, unless known blank without a look (see `blank_rows`):
        // after a line end at the bottom of what the screen holds, as after most commands.
        let below_blank = self.blank.from().is_some_and(|from| from <= row + 1);
        let lowest_below = if below_blank {
            None
        } else {
            (row + 1..rows).rev().find(|&r| holds_text(r, 0))
        };
        let Some(lowest) = lowest_below
            .or_else(|| (holds_text(row, col) || (col > 0 && holds_text(row, 0))).then_some(row))
        else {
            return;
        };
        let to = if lowest + 1 < rows {
            format!("\x1b[{};1H", lowest + 2)
        } else {
            format!("\x1b[{rows};1H\r\n")
        };
        let at = self.cursor_unsynced();
        self.emulate(to.as_bytes());
        // A render from an anchor whose output wrote nothing on the rows from the anchor's
        // down to the cursor's, each one an earlier program left (output since the last
        // result that only passed over them: the shell's line end after an interrupt), starts
        // at the prompt's row: those rows are no output of it. Not when rows between the
        // cursor's and the prompt's hold text no earlier program left there: the output wrote
        // them before it went up (`printf 'y\033[H\n'`), and the render shows them.
        let to = self.cursor_unsynced();
        let base = self.history().end_abs();
        let screen = self.parser.screen();
        let holding: Vec<u64> = (at.row + 1..to.row)
            .filter(|&abs| {
                abs.checked_sub(base)
                    .and_then(|r| u16::try_from(r).ok())
                    .is_none_or(|r| {
                        (0..cols).any(|c| screen.cell(r, c).is_some_and(vt100::Cell::has_contents))
                    })
            })
            .collect();
        for anchor in self.anchors.iter_mut().flatten() {
            let untouched = |r: u64| {
                anchor
                    .left_at_cursor
                    .iter()
                    .any(|left| left.abs == r && left.written_to == 0 && !left.skipped)
            };
            if !anchor.pending_main
                && anchor.pos.row <= at.row
                && (anchor.pos.row..=at.row).all(untouched)
                && holding.iter().all(|&r| untouched(r))
            {
                anchor.pos = to;
                anchor.prefix = None;
                anchor.left_at_cursor.retain(|left| left.abs >= to.row);
            }
        }
    }
}
