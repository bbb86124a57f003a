//! A key sent with Enter to a program that asks for one key (`read -n 1` at a `[y/N]`): the
//! program takes the key as it comes, and the Enter after it would be a key of its own, which
//! the next prompt takes as its answer (a second `[Y/n]`'s default, or the shell running the
//! send's next line as a command). The key goes without its Enter, as the send began or as
//! one of its paced lines, and the result says so. A yes/no question answered with the word
//! (`yes`, `no`) gets the word's first key alone: the rest of the word would be keys of their
//! own too (`es` run as a command once the program is done).
//!
//! Where the modes and the question do not tell a key reader from a reader of a line, the
//! key goes first and the rest (the word's other keys, the Enter) only once the reader shows
//! it took the key as part of a line: it reads again, in the same process group, with the
//! key echoed right before the cursor where the cursor was (`read -n 3` at `How many? `, a
//! line editor in raw mode at `[y/N]`: node's `readline.question`). A reader that went on
//! (printed, moved the cursor, ended) took the key alone, and the rest is dropped, as above.
//! That is a one-key answer in cbreak mode to anything but a yes/no or "any key" question
//! (`Which environment (1=dev 2=prod): `, then a second `read -n 1`), and a one-key or
//! yes/no-word answer at a yes/no question in raw mode (Python's `tty.setraw`, node's
//! `setRawMode`: the Enter went to the shell as an empty command, the word's rest as `es`).

use std::sync::atomic::Ordering;

use crate::pty::TtyModes;
use crate::readiness::Settle;
use crate::screen::Position;

use super::super::input;
use super::super::observe::is_repl_prompt;
use super::super::shared::{Shared, State};
use super::SendOp;
use super::pacing::Pacing;

/// What a send to a program asking for one key types instead of its text.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct KeyAnswer {
    /// The key typed, alone (no Enter).
    pub(super) key: String,
    /// The send's text was a word (`yes`) of which only the first key goes.
    pub(super) rest_withheld: bool,
    /// The rest of the answer, typed only when the reader shows it took the key as part of a
    /// line (see the module docs); `None`: the key goes alone whatever the reader does.
    pub(super) checked: Option<(Vec<u8>, AnswerCheck)>,
}

/// What decides whether the rest of a key answer goes (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct AnswerCheck {
    /// The foreground process group the key went to.
    fg: Option<i32>,
    /// The cursor when the key went.
    at: Position,
    /// The key (a printable ASCII character other than the space).
    key: char,
    /// The rest is a word's other keys (`es` of `yes`) and its Enter.
    word: bool,
}

impl AnswerCheck {
    /// Whether the reader, group `fg` now, shows the key on its line: the same group, the
    /// cursor one column right of where it was, after the key.
    fn shows_key(&self, st: &mut State, fg: Option<i32>) -> bool {
        let now = st.screen.cursor();
        fg == self.fg
            && now.row == self.at.row
            && now.col == self.at.col + 1
            && st
                .screen
                .cursor_row_prefix()
                .is_some_and(|row| row.ends_with(self.key))
    }
}

/// What a send of `text` (+ Enter when `submit`) begun now to the foreground group `fg`
/// types when it answers a program asking for one key (see the module docs): the terminal in
/// cbreak or raw mode on the main screen, not at the shell's line editor
/// (`shell_line_editor`) nor a REPL's prompt, and no text typed without Enter before (a key
/// that goes on such a line, a pager's `/` search, keeps its Enter). `None`: the text goes
/// as sent.
pub(super) fn key_answer(
    st: &mut State,
    modes: Option<TtyModes>,
    fg: Option<i32>,
    shell_line_editor: bool,
    (text, submit): (&str, bool),
) -> Option<KeyAnswer> {
    let modes = modes.filter(|m| !m.canonical)?;
    if st.screen.alternate_screen() || st.typed_unended || shell_line_editor {
        return None;
    }
    let keyed = if submit {
        [input::without_doubled_enter(text, true).as_bytes(), b"\r"].concat()
    } else {
        text.as_bytes().to_vec()
    };
    if modes.single_keys() {
        if let Some((key, rest_withheld)) = key_of(st, &keyed, asks_for_a_key) {
            return answer(key, rest_withheld, None);
        }
        let key = input::one_key_and_enter(&keyed)?;
        return checked(st, fg, key, b"\r".to_vec(), false);
    }
    if st
        .screen
        .cursor_row_prefix()
        .is_some_and(|row| is_repl_prompt(&row))
        || !asks(st, input::asks_yes_or_no)
    {
        return None;
    }
    match input::one_key_and_enter(&keyed) {
        Some(key) => checked(st, fg, key, b"\r".to_vec(), false),
        None => {
            let key = input::yes_no_word_key(&keyed)?;
            let rest = keyed[key.len()..].to_vec();
            checked(st, fg, key, rest, true)
        }
    }
}

/// A key answer of `key` alone.
fn answer(
    key: Vec<u8>,
    rest_withheld: bool,
    checked: Option<(Vec<u8>, AnswerCheck)>,
) -> Option<KeyAnswer> {
    Some(KeyAnswer {
        key: String::from_utf8(key).ok()?,
        rest_withheld,
        checked,
    })
}

/// A key answer of `key` whose `rest` goes only once the reader shows the key (see the
/// module docs); `None` (the text goes as sent) for a key that is no printable ASCII
/// character or is a space, which an echo would not tell apart.
fn checked(
    st: &mut State,
    fg: Option<i32>,
    key: Vec<u8>,
    rest: Vec<u8>,
    word: bool,
) -> Option<KeyAnswer> {
    let &[byte] = key.as_slice() else { return None };
    if !byte.is_ascii_graphic() {
        return None;
    }
    let check = AnswerCheck {
        fg,
        at: st.screen.cursor(),
        key: char::from(byte),
        word,
    };
    answer(key, false, Some((rest, check)))
}

/// What the rest of a checked key answer does once the reader settled after its key.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum AnswerRest {
    /// No checked answer is pending, or the reader shows the key: the rest goes as a paced
    /// step.
    Types,
    /// The screen may not show the reader's output yet: decide at a later turn.
    NotYet,
    /// The reader took the key alone: the rest was dropped.
    Dropped,
}

/// Whether `row` asks for a key so plainly that a key reader in cbreak mode takes the key
/// alone, whatever it does next: a yes/no choice or "press any key" (a question that only
/// ends in `?` may read a line in cbreak mode: `read -n 3` at `How many copies? `).
fn asks_for_a_key(row: &str) -> bool {
    input::asks_yes_or_no(row) || row.to_ascii_lowercase().contains("any key")
}

/// The key `keyed` (a send's keys, or one paced line with its Enter) comes down to at the
/// question before the cursor, and whether more than its Enter was left out: one key and
/// its Enter at a question `question` recognises, a `yes`/`no` word at a yes/no question.
fn key_of(st: &mut State, keyed: &[u8], question: fn(&str) -> bool) -> Option<(Vec<u8>, bool)> {
    if let Some(key) = input::one_key_and_enter(keyed) {
        return asks(st, question).then_some((key, false));
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
        let Some((key, rest_withheld)) = key_of(&mut shared.lock(), &line, input::asks_for_one_key)
        else {
            return line;
        };
        self.enter_withheld.store(true, Ordering::SeqCst);
        if rest_withheld {
            self.rest_withheld.store(true, Ordering::SeqCst);
        }
        key
    }

    /// What the rest of a checked key answer pending in `pacing` does now that its reader,
    /// group `fg`, settled for `release` (see [`AnswerRest`]); the rest goes only to a
    /// reader that reads again and shows the key. A dropped rest is said in the result as a
    /// withheld Enter (and word).
    pub(super) fn answer_rest(
        &self,
        pacing: &mut Pacing,
        release: Option<Settle>,
        fg: Option<i32>,
    ) -> AnswerRest {
        let Some(reason) = release else {
            return AnswerRest::Types;
        };
        let Some(check) = pacing.take_answer_check() else {
            return AnswerRest::Types;
        };
        if reason == Settle::StdinWait {
            if !self.shared.output_drained() {
                pacing.check_answer(check);
                return AnswerRest::NotYet;
            }
            if check.shows_key(&mut self.shared.lock(), fg) {
                return AnswerRest::Types;
            }
        }
        pacing.discard();
        self.enter_withheld.store(true, Ordering::SeqCst);
        if check.word {
            self.rest_withheld.store(true, Ordering::SeqCst);
        }
        AnswerRest::Dropped
    }
}
