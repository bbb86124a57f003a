//! Insert mode (IRM, `CSI 4 h`): a character printed while it is on pushes the rest of its row
//! right instead of writing over it, as on a terminal (`abc`, `\r`, insert mode, `X` shows
//! `Xabc`). The emulator has no insert mode, so each character is preceded by an insert of as
//! many blank cells as it takes (ICH, `CSI n @`). `CSI 4 l` turns it off, and so does each
//! prompt of the session's shell.

use super::Screen;
use super::region::char_width;

impl Screen {
    /// Called with each ground-state text byte at `bytes[i]` while insert mode is on, with
    /// everything before `seg_start` already emulated: before a character's first byte,
    /// emulates up to it and inserts the blank cells it takes.
    pub(super) fn before_inserted_text(&mut self, bytes: &[u8], i: usize, seg_start: &mut usize) {
        let width = match bytes[i] {
            // Controls and UTF-8 continuation bytes print no character of their own.
            0x00..=0x1f | 0x7f..=0xbf => return,
            _ => match char_width(&bytes[i..]) {
                // A combining mark joins the cell before.
                0 => return,
                w => w,
            },
        };
        self.emulate(&bytes[*seg_start..i]);
        *seg_start = i;
        self.emulate(format!("\x1b[{width}@").as_bytes());
    }
}
