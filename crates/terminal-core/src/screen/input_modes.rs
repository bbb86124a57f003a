//! The input modes a program set on the terminal: the form in which pastes and cursor keys
//! reach it.

use super::Screen;

impl Screen {
    /// Whether the program enabled bracketed paste (DECSET 2004).
    pub(crate) fn bracketed_paste(&self) -> bool {
        self.parser.screen().bracketed_paste()
    }

    /// Whether the program turned on application cursor keys (DECCKM, `ESC [ ? 1 h`: curses
    /// programs that enable their keypad, `less`, vim): a terminal then sends the arrow keys,
    /// Home and End as `ESC O A` rather than `ESC [ A`, and such a program knows only that
    /// form.
    pub(crate) fn application_cursor(&self) -> bool {
        self.parser.screen().application_cursor()
    }
}
