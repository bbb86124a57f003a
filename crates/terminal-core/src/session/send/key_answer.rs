//! A key sent with Enter to a program that asks for one key (`read -n 1` at a `[y/N]`): the
//! program takes the key as it comes, and the Enter after it would be a key of its own, which
//! the next prompt takes as its answer (a second `[Y/n]`'s default, or the shell running the
//! send's next line as a command). The key goes without its Enter, as the send began or as
//! one of its paced lines, and the result says so. A yes/no question answered with the word
//! (`yes`, `no`) gets the word's first key alone: the rest of the word would be keys of their
//! own too (`es` run as a command once the program is done).

use std::sync::atomic::Ordering;

use crate::pty::TtyModes;

use super::super::input;
use super::super::shared::{Shared, State};
use super::SendOp;

/// What a send to a program asking for one key types instead of its text.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct KeyAnswer {
    /// The key typed, alone (no Enter).
    pub(super) key: String,
    /// The send's text was a word (`yes`) of which only the first key goes.
    pub(super) rest_withheld: bool,
}

/// What a send of `text` (+ Enter when `submit`) begun now types when it answers a program
/// asking for one key (see the module docs): the terminal in cbreak mode on the main screen, a
/// key question before the cursor, and no text typed without Enter before (a key that goes
/// on such a line, a pager's `/` search, keeps its Enter). `None`: the text goes as sent.
pub(super) fn key_answer(
    st: &mut State,
    modes: Option<TtyModes>,
    text: &str,
    submit: bool,
) -> Option<KeyAnswer> {
    if st.screen.alternate_screen() || st.typed_unended || !modes.is_some_and(TtyModes::single_keys)
    {
        return None;
    }
    let keyed = if submit {
        [input::without_doubled_enter(text, true).as_bytes(), b"\r"].concat()
    } else {
        text.as_bytes().to_vec()
    };
    let (key, rest_withheld) = key_of(st, &keyed)?;
    Some(KeyAnswer {
        key: String::from_utf8(key).ok()?,
        rest_withheld,
    })
}

/// The key `keyed` (a send's keys, or one paced line with its Enter) comes down to at the
/// question before the cursor, and whether more than its Enter was left out: one key and
/// its Enter at any key question, a `yes`/`no` word at a yes/no question.
fn key_of(st: &mut State, keyed: &[u8]) -> Option<(Vec<u8>, bool)> {
    if let Some(key) = input::one_key_and_enter(keyed) {
        return asks(st, input::asks_for_one_key).then_some((key, false));
    }
    let key = input::yes_no_word_key(keyed)?;
    asks(st, input::asks_yes_or_no).then_some((key, true))
}

/// Whether the text before the cursor asks what `question` recognises, or, with the cursor
/// at the start of an empty row, the row above it does (a question printed on its own line,
/// then `read -n 1`).
fn asks(st: &mut State, question: fn(&str) -> bool) -> bool {
    match st.screen.cursor_row_prefix() {
        Some(row) if !row.trim().is_empty() => question(&row),
        _ => st
            .screen
            .row_above_cursor(0)
            .is_some_and(|above| question(&above)),
    }
}

impl SendOp {
    /// `line`, a paced line about to be typed to a reader that waits on the main screen, cut
    /// to its key when it answers a program asking for one (see the module docs).
    pub(super) fn key_without_enter(&self, shared: &Shared, line: Vec<u8>) -> Vec<u8> {
        if !shared.pty.modes().is_some_and(TtyModes::single_keys) {
            return line;
        }
        let Some((key, rest_withheld)) = key_of(&mut shared.lock(), &line) else {
            return line;
        };
        self.enter_withheld.store(true, Ordering::SeqCst);
        if rest_withheld {
            self.rest_withheld.store(true, Ordering::SeqCst);
        }
        key
    }
}
