//! Strings a line end cut off (see `scan::Step::StringAborted`): a program that began an OSC
//! (`ESC ]`) or a DCS, SOS, PM or APC string (`ESC P`, `ESC X`, `ESC ^`, `ESC _`) and never
//! ended it (a stray sequence, a log cut off inside a hyperlink) hides the text after it, as
//! on a terminal, up to the line's end. What it hid is kept for the result to quote.

use super::Screen;
pub(crate) use super::scan::UnendedString;

impl Screen {
    /// The first string a line end cut off since the last call, and how many were; clears
    /// it. Strings with nothing but blanks in their body are not counted (nothing was hidden).
    pub(crate) fn take_unended_string(&mut self) -> Option<(UnendedString, u64)> {
        self.scanner.take_unended()
    }
}
