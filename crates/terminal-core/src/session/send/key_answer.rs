//! A key sent with Enter to a program that asks for one key (`read -n 1` at a `[y/N]`): the
//! program takes the key as it comes, and the Enter after it would be a key of its own, which
//! the next prompt takes as its answer (a second `[Y/n]`'s default, or the shell running the
//! send's next line as a command). The key goes without its Enter, as the send began or as
//! one of its paced lines, and the result says so.

use std::sync::atomic::Ordering;

use crate::pty::TtyModes;

use super::super::input;
use super::super::shared::{Shared, State};
use super::SendOp;

/// Whether a send of `text` (+ Enter when `submit`) begun now types a key to a program asking
/// for one (see the module docs): the terminal in cbreak mode on the main screen, a key
/// question before the cursor, and no text typed without Enter before (a key that goes on
/// such a line, a pager's `/` search, keeps its Enter).
pub(super) fn withholds_enter(
    st: &mut State,
    modes: Option<TtyModes>,
    text: &str,
    submit: bool,
) -> bool {
    let keyed = if submit {
        [input::without_doubled_enter(text, true).as_bytes(), b"\r"].concat()
    } else {
        text.as_bytes().to_vec()
    };
    input::one_key_and_enter(&keyed).is_some()
        && !st.screen.alternate_screen()
        && !st.typed_unended
        && modes.is_some_and(TtyModes::single_keys)
        && asks_for_one_key(st)
}

/// Whether the text before the cursor asks for one key, or, with the cursor at the start of
/// an empty row, the row above it does (a question printed on its own line, then `read -n 1`).
fn asks_for_one_key(st: &mut State) -> bool {
    match st.screen.cursor_row_prefix() {
        Some(row) if !row.trim().is_empty() => input::asks_for_one_key(&row),
        _ => st
            .screen
            .row_above_cursor(0)
            .is_some_and(|above| input::asks_for_one_key(&above)),
    }
}

impl SendOp {
    /// `line`, a paced line about to be typed to a reader that waits on the main screen, without
    /// its Enter when it is one key for a program asking for one (see the module docs).
    pub(super) fn key_without_enter(&self, shared: &Shared, line: Vec<u8>) -> Vec<u8> {
        let Some(key) = input::one_key_and_enter(&line) else {
            return line;
        };
        if !shared.pty.modes().is_some_and(TtyModes::single_keys)
            || !asks_for_one_key(&mut shared.lock())
        {
            return line;
        }
        self.enter_withheld.store(true, Ordering::SeqCst);
        key
    }
}
