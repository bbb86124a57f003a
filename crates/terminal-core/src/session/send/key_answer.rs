//! A key sent with Enter to a program that asks for one key (`read -n 1` at a `[y/N]`): the
//! program takes the key as it comes, and the Enter after it would be a key of its own, which
//! the next prompt takes as its answer (a second `[Y/n]`'s default, or the shell running the
//! send's next line as a command). The key goes without its Enter, as the send began or as
//! one of its paced lines, and the result says so. A yes/no question answered with the word
//! (`yes`, `no`) gets the word's first key first, and the rest (the word's other keys, the
//! Enter) only while the reader reads on, as below: to a reader of one key they would be keys
//! of their own too (`es` run as a command once the program is done), and the result says
//! only the first key went.
//!
//! Neither the modes nor the question tell a reader of one key from one of several or of a
//! line (`read -n 3` at `Proceed? [y/N] `, a program of its own that reads keys up to Enter),
//! so the keys go one at a time, each (and the Enter after the last) only once the reader
//! shows it took the one before as part of a line: it reads again, in the same process
//! group, with that key echoed right before the cursor where the cursor was (`read -n 3` at
//! `PIN: ` takes `123` and no Enter; a line editor in raw mode at `[y/N]`, node's
//! `readline.question`, gets `yes` and its Enter). A reader that went on (printed, moved the
//! cursor, ended, echoed nothing) took what it had, and the rest is dropped, as above (`abc`
//! to `read -n 1` at `Select [a,b,c]: ` types `a`, and `bc` never starts `bc` in the shell;
//! `yes` to `read -n 1` at `[y/N]` types `y`). With the terminal's echo off, a reader whose
//! cursor is anywhere from where the answer began to the width of the keys typed so far took
//! the key too: a PIN read shows nothing, others print `*`, and a line editor that draws
//! after it reads again (prompt_toolkit) shows the keys late. Keys are printable characters
//! of any script, one or two columns wide. That is a yes/no word at a yes/no question (with
//! or without its Enter), an answer of one printable key, or of up to 1024 keys (to a pager,
//! only keys starting with a letter or digit: `/` or `:` opens its prompt elsewhere), in
//! cbreak mode (`Which environment (1=dev 2=prod): `, then a second `read -n 1`), and in raw
//! mode (Python's `tty.setraw`, node's `setRawMode`, click's `getchar`) at a question or a
//! prompt for a value (not a shell's or a REPL's prompt, whose line editor takes lines
//! whole).
//!
//! A line to a raw-mode reader at a prompt that neither asks nor is a REPL's (`Press any key
//! to continue... `, a menu ending in `> `, no prompt at all: `stty raw -echo; dd bs=1
//! count=1`) goes likewise, its first key alone: the modes do not tell a key reader from a line
//! editor there (node's `setRawMode` key reader has its REPL's modes, Python's `tty.setraw`
//! linenoise's, and both read with `VMIN` 1 and `VTIME` 0), but the reader does once it took
//! the key. A line editor shows it on its line and reads again, and gets the rest whole (no
//! key at a time: see `RestKind::Line`); a key reader that went on (ended, printed its next
//! prompt, restored the terminal) gets none of it, and the result says only the first key
//! went (`yes` to `dd bs=1 count=1` types `y`, and `es` never runs in the shell). GNU
//! readline's modes (the signal keys on) are a line editor's only, and so is a REPL's by its
//! command line (`node`, not `node -e …`): both take lines whole (see `raw_line`).
//!
//! Keys with Enter to a full-screen program go likewise, the Enter only while the program
//! still holds its screen once it read them (see `full_screen`).

use std::sync::atomic::Ordering;

use crate::pty::TtyModes;
use crate::readiness::Settle;
use crate::screen::Position;

use super::super::input;
use super::super::observe::{ends_like_a_question, is_repl_prompt};
use super::super::shared::{Shared, State};
use super::SendOp;
use super::pacing::Pacing;

mod full_screen;
mod raw_line;

/// Most keys an answer to a key reader may have for them to go one at a time (see the module
/// docs); longer text goes as sent.
const MAX_KEYS_ONE_AT_A_TIME: usize = 1024;

/// What a send (or one of its paced lines) to a program asking for keys types instead of its
/// text (see [`plan`]).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct KeyAnswer {
    /// The key typed now, alone (no Enter).
    pub(super) key: String,
    /// The rest of the answer, typed only when the reader shows it took the key as part of a
    /// line (see the module docs).
    pub(super) checked: (Vec<u8>, AnswerCheck),
}

/// What a checked answer's rest is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RestKind {
    /// The Enter alone.
    Enter,
    /// A yes/no word's other keys, each typed once the reader took the one before, then the
    /// Enter if it was sent: dropped at the word's first key, the result says only that key
    /// went.
    Word,
    /// More keys, each typed once the reader took the one before, then the Enter.
    Keys,
    /// The rest of a line (its other keys and the Enter) to a raw-mode reader at a prompt
    /// that neither asks nor is a REPL's: typed whole once the reader shows the first key
    /// (a line editor), dropped otherwise (a key reader), the result saying only the first
    /// key went (see the module docs).
    Line,
}

/// What decides whether the rest of a key answer goes (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct AnswerCheck {
    /// The foreground process group the key went to.
    fg: Option<i32>,
    /// The cursor when the answer's first key went.
    start: Position,
    /// The cursor when this key went.
    at: Position,
    /// Columns the answer's keys typed so far take on screen, this one's included.
    cols: u16,
    /// The key (a printable character one or two columns wide; the first of an answer is no
    /// space).
    key: char,
    /// What the rest is.
    kind: RestKind,
    /// The keys went to a full-screen program (see `full_screen`): how often the screen had
    /// left the alternate screen then (`Screen::alternate_leave_count`). The rest goes while
    /// that program still holds the screen (`AnswerCheck::holds_screen`), whatever the cursor
    /// shows (a key command redraws anywhere); `start`, `at`, `cols` and `key` are not asked.
    full_screen: Option<u64>,
}

impl AnswerCheck {
    /// The cursor when the answer's first key went; `None` for keys to a full-screen
    /// program, which answer no prompt on a row.
    pub(super) fn start(&self) -> Option<Position> {
        self.full_screen.is_none().then_some(self.start)
    }

    /// Whether the reader, group `fg` now, shows it took the key as part of a line: the same
    /// group. With the terminal's echo on (`echo`: it echoes each key as it comes), the key
    /// echoed (see [`AnswerCheck::echoed`]). With echo off, a program echoes, if at all, once
    /// it gets to it (prompt_toolkit draws after it reads again): the cursor anywhere from
    /// where the answer's first key went to the cells of the keys typed so far, counted along
    /// the rows (a PIN read shows nothing, others `*` or the keys). Keys to a full-screen
    /// program: it still holds its screen (see `AnswerCheck::holds_screen`).
    fn shows_key(&self, st: &mut State, fg: Option<i32>, echo: bool) -> bool {
        if self.full_screen.is_some() {
            return self.holds_screen(st, fg);
        }
        if fg != self.fg {
            return false;
        }
        if echo {
            return self.echoed(st, fg, false);
        }
        // Counted along the rows: a long answer wraps at the screen's edge.
        let cols = st.screen.cols();
        let (now, start) = (offset(st.screen.cursor(), cols), offset(self.start, cols));
        (start..=start + u64::from(self.cols)).contains(&now)
    }

    /// Whether the reader, group `fg` now, shows the key echoed: the same group, the cursor
    /// the key's width on from the key's cell (along the rows: the echo wraps at the screen's
    /// edge, where the cursor stays on the last column until the next key), after the key.
    /// The key's cell is the cursor's when the key went, or the next row's first when the
    /// cursor stood on the last column then (its wrap pending). With `masks`, a mask drawn
    /// for the key (`*`, `•`, `●`: a password prompt) counts too. Keys to a full-screen
    /// program count as dealt with while it still holds its screen (see
    /// `AnswerCheck::holds_screen`).
    fn echoed(&self, st: &mut State, fg: Option<i32>, masks: bool) -> bool {
        if self.full_screen.is_some() {
            return self.holds_screen(st, fg);
        }
        let cols = st.screen.cols();
        let now = st.screen.cursor();
        let width = key_width(self.key);
        let wrapped = Position {
            row: self.at.row + 1,
            col: 0,
        };
        let cells = if self.at.col + 1 >= cols { 2 } else { 1 };
        fg == self.fg
            && [self.at, wrapped].into_iter().take(cells).any(|cell| {
                let after = Position {
                    row: cell.row,
                    col: cell.col + width,
                };
                let pending_wrap = after.col >= cols && now.row == cell.row && now.col + 1 == cols;
                (offset(now, cols) == offset(after, cols) || pending_wrap)
                    && (self.key == ' '
                        || st.screen.text_before(after).is_some_and(|row| {
                            row.ends_with(self.key) || (masks && row.ends_with(['*', '•', '●']))
                        }))
            })
    }
}

/// `pos` counted in cells from the screen's first row (`cols` a row), so that text wrapping
/// at the edge goes on counting.
fn offset(pos: Position, cols: u16) -> u64 {
    pos.row * u64::from(cols) + u64::from(pos.col)
}

/// Columns `key` takes on screen (0 for a control or combining character).
fn key_width(key: char) -> u16 {
    unicode_width::UnicodeWidthChar::width(key).map_or(0, |w| u16::try_from(w).unwrap_or(0))
}

/// What a send of `text` (+ Enter when `submit`) begun now to the foreground group `fg`
/// types when it answers a program asking for keys (see [`plan`]); `None` also when text was
/// typed on the line without Enter before (a key that goes on such a line, a pager's `/`
/// search, keeps its Enter), but on the alternate screen, where the Enter goes to a program
/// that reads on whatever was typed before (see `full_screen`: `:` sent alone, then `wq`).
pub(super) fn key_answer(
    st: &mut State,
    shared: &Shared,
    modes: Option<TtyModes>,
    fg: Option<i32>,
    shell_line_editor: bool,
    (text, submit): (&str, bool),
) -> Option<KeyAnswer> {
    // The shell's line editor (every command typed at the prompt) returns before any work.
    if shell_line_editor || modes.is_none_or(|m| m.canonical) {
        return None;
    }
    if st.typed_unended && !st.screen.alternate_screen() {
        return None;
    }
    let keyed = if submit {
        [input::without_doubled_enter(text, true).as_bytes(), b"\r"].concat()
    } else {
        text.as_bytes().to_vec()
    };
    plan(st, shared, modes, fg, shell_line_editor, &keyed)
}

/// What `keyed` (a send's keys, or one of its paced lines, with its Enter) types now to the
/// foreground group `fg` reading in `modes` on the main screen, or on the alternate screen
/// (see `full_screen`), not at the shell's line editor (`shell_line_editor`) nor a REPL's
/// prompt, nor through a relay (see [`relays_keys`]) (see the module docs); `None`: it goes
/// as it is.
fn plan(
    st: &mut State,
    shared: &Shared,
    modes: Option<TtyModes>,
    fg: Option<i32>,
    shell_line_editor: bool,
    keyed: &[u8],
) -> Option<KeyAnswer> {
    let planned = plan_keys(st, shared, modes, fg, shell_line_editor, keyed)?;
    // Asked last: a scan of the session's processes, only for text that would be cut.
    (!fg.is_some_and(|pgid| relays_keys(shared, pgid))).then_some(planned)
}

/// Programs that relay the keys typed to a program elsewhere, over a socket: a remote or
/// container shell's client, a multiplexer's client, a serial console.
const REMOTE_RELAYS: &[&str] = &[
    "ssh",
    "mosh-client",
    "telnet",
    "docker",
    "podman",
    "kubectl",
    "lxc",
    "incus",
    "tmux",
    "screen",
    "socat",
    "nc",
    "ncat",
    "minicom",
    "picocom",
];

/// Whether process group `pgid` relays the keys typed to a program in another terminal
/// (`script`, Python's `pty.spawn`, `expect`: it holds a terminal's master side) or elsewhere
/// ([`REMOTE_RELAYS`]): this terminal's modes are the relay's raw ones, not those of the
/// program that reads (a `read -s` behind `script` is no key reader), and nothing here shows
/// whether it took a key, so the text goes as sent. Blocking `/proc` reads.
pub(super) fn relays_keys(shared: &Shared, pgid: i32) -> bool {
    shared
        .processes()
        .into_iter()
        .any(|s| s.pgrp == pgid && !s.is_zombie() && REMOTE_RELAYS.contains(&s.comm.as_str()))
        || crate::process::group_holds_pty_master_in(pgid, &shared.scope)
}

/// [`plan`] for any foreground (the relay left aside).
fn plan_keys(
    st: &mut State,
    shared: &Shared,
    modes: Option<TtyModes>,
    fg: Option<i32>,
    shell_line_editor: bool,
    keyed: &[u8],
) -> Option<KeyAnswer> {
    let modes = modes.filter(|m| !m.canonical)?;
    if shell_line_editor {
        return None;
    }
    if st.screen.alternate_screen() {
        return full_screen::keys(st, fg, keyed);
    }
    if !modes.single_keys() {
        if st
            .screen
            .cursor_row_prefix()
            .is_some_and(|row| is_repl_prompt(&row))
        {
            return None;
        }
        if !asks(st, asks_in_raw_mode) {
            return raw_line::first_key_alone(st, (modes, shared.shell_pgid()), fg, keyed);
        }
    }
    if let Some(key) = input::yes_no_word_key(keyed).filter(|_| asks(st, input::asks_yes_or_no)) {
        let rest = keyed[key.len()..].to_vec();
        let key = std::str::from_utf8(&key).ok()?;
        return checked(st, fg, key, rest, (RestKind::Word, None));
    }
    one_at_a_time(st, shared, fg, keyed)
}

/// `keyed` as keys typed one at a time, each once the reader took the one before (see the
/// module docs): one printable key and its Enter, or up to [`MAX_KEYS_ONE_AT_A_TIME`] keys,
/// but not to a pager when the first is no letter or digit (its command line, `/pattern` or
/// `:n`, starts with a key that opens a prompt, where the text typed next goes on another
/// column).
fn one_at_a_time(
    st: &mut State,
    shared: &Shared,
    fg: Option<i32>,
    keyed: &[u8],
) -> Option<KeyAnswer> {
    let (keys, enter) = keys_and_enter(keyed)?;
    let count = keys.chars().count();
    let one_by_one = count == 1
        || (count <= MAX_KEYS_ONE_AT_A_TIME
            && (keys.starts_with(char::is_alphanumeric)
                || !fg.is_some_and(|pgid| super::pager_guard::runs_a_pager(shared, pgid))));
    one_by_one
        .then(|| next_key(st, fg, keys, enter, None))
        .flatten()
}

/// The first of `keys` (one at least) as a checked answer whose rest is the other keys and
/// `enter`, or `enter` alone after the last key; `before`: the check of the answer's key
/// before it, which passed. `None` (it goes as it is) for a last key with no Enter after it.
fn next_key(
    st: &mut State,
    fg: Option<i32>,
    keys: &str,
    enter: &[u8],
    before: Option<AnswerCheck>,
) -> Option<KeyAnswer> {
    let first = keys.chars().next()?;
    let (key, rest) = keys.split_at(first.len_utf8());
    if rest.is_empty() && enter.is_empty() {
        return None;
    }
    let kind = if rest.is_empty() {
        RestKind::Enter
    } else {
        RestKind::Keys
    };
    checked(
        st,
        fg,
        key,
        [rest.as_bytes(), enter].concat(),
        (kind, before),
    )
}

/// `keyed` as printable keys (one at least, spaces among them; each one or two columns wide)
/// and the Enter ending it (`\r`, `\n` or `\r\n`); `None` for anything else.
fn keys_and_enter(keyed: &[u8]) -> Option<(&str, &[u8])> {
    let keys = keyed
        .strip_suffix(b"\r\n")
        .or_else(|| keyed.strip_suffix(b"\r"))
        .or_else(|| keyed.strip_suffix(b"\n"))?;
    let text = std::str::from_utf8(keys).ok()?;
    (!text.is_empty() && text.chars().all(|c| c == ' ' || is_key(c)))
        .then(|| (text, &keyed[keys.len()..]))
}

/// The rest of a yes/no word whose first key the reader took (`es`, `o`, with or without the
/// Enter) as its keys and the Enter, if any (see [`keys_and_enter`]).
fn word_rest(rest: &[u8]) -> Option<(&str, &[u8])> {
    keys_and_enter(rest).or_else(|| {
        let text = std::str::from_utf8(rest).ok()?;
        (!text.is_empty() && text.chars().all(is_key)).then(|| (text, &rest[rest.len()..]))
    })
}

/// Whether `c` is a printable key other than a space: no control character, one or two
/// columns wide.
fn is_key(c: char) -> bool {
    c != ' ' && !c.is_control() && key_width(c) > 0
}

/// A key answer of `key` whose `rest` goes only once the reader shows the key (see the
/// module docs), of `kind`, after the check `before` of the answer's key before it (when
/// there was one); `None` (the text goes as sent) for a key that is no single printable
/// character.
fn checked(
    st: &mut State,
    fg: Option<i32>,
    key: &str,
    rest: Vec<u8>,
    (kind, before): (RestKind, Option<AnswerCheck>),
) -> Option<KeyAnswer> {
    let mut chars = key.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    if !(c == ' ' || is_key(c)) {
        return None;
    }
    let at = st.screen.cursor();
    let width = key_width(c).max(1);
    let (start, cols) = match before {
        Some(before) => (before.start, before.cols.saturating_add(width)),
        None => (at, width),
    };
    let check = AnswerCheck {
        fg,
        start,
        at,
        cols,
        key: c,
        kind,
        full_screen: None,
    };
    Some(KeyAnswer {
        key: key.to_owned(),
        checked: (rest, check),
    })
}

/// What the rest of a checked key answer does once the reader settled after its key.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum AnswerRest {
    /// No checked answer is pending, or the reader shows the key: the rest goes as a paced
    /// step.
    Types,
    /// The screen may not show the reader's output yet: decide at a later turn.
    NotYet,
    /// The reader took what it had: the rest was dropped.
    Dropped,
}

/// Whether `row` asks what a program reading raw keys may take key by key: a yes/no choice,
/// or a question or prompt for a value (`Which environment (1=dev 2=prod): `, `Overwrite?`,
/// `Mode [fast/slow]`). A shell's or a REPL's prompt (`$`, `#`, `>`, nothing on a fresh row
/// after a timer's output) is a line editor's, whose lines go whole.
pub(super) fn asks_in_raw_mode(row: &str) -> bool {
    let row = row.trim_end();
    input::asks_yes_or_no(row)
        || row.ends_with([':', '?'])
        || (row.ends_with([')', ']']) && ends_like_a_question(row))
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
    /// Whether a key answer's pending rest waits on a check whose key the reader, group `fg`,
    /// shows echoed (or masked) now (see `AnswerCheck::echoed`): it has dealt with the key,
    /// also when it waits among other event sources (node's `readline.question` in raw mode),
    /// so the rest need not wait for its output to go quiet (each key waited 150 ms).
    pub(super) fn answer_key_echoed(&self, pacing: &Pacing, fg: Option<i32>) -> bool {
        pacing
            .answer_check()
            .is_some_and(|check| check.echoed(&mut self.shared.lock(), fg, true))
    }

    /// What to type of `line`, a paced line (or the rest of a checked answer whose check
    /// passed) about to go to a reader that waits on the main screen, group `fg`: cut to
    /// its key when it answers a program asking for keys, the rest then pending in `pacing`
    /// ahead of the later lines (see the module docs).
    pub(super) fn key_step(
        &self,
        shared: &Shared,
        line: Vec<u8>,
        pacing: &mut Pacing,
        fg: Option<i32>,
    ) -> Vec<u8> {
        let modes = shared.pty.modes();
        let mut st = shared.lock();
        let planned = match pacing.take_passed_check() {
            // Keys one at a time, a yes/no word's among them, go on with the next one; an
            // Enter, or a line editor's rest of a line, goes as it is.
            Some(check) if check.kind == RestKind::Keys => keys_and_enter(&line)
                .and_then(|(keys, enter)| next_key(&mut st, fg, keys, enter, Some(check))),
            Some(check) if check.kind == RestKind::Word => word_rest(&line)
                .and_then(|(keys, enter)| next_key(&mut st, fg, keys, enter, Some(check))),
            Some(_) => None,
            None => {
                let shell_line_editor =
                    fg == Some(shared.shell_pgid()) && modes.is_some_and(TtyModes::line_editing);
                plan(&mut st, shared, modes, fg, shell_line_editor, &line)
            }
        };
        drop(st);
        let Some(planned) = planned else {
            return line;
        };
        let (rest, check) = planned.checked;
        pacing.uncount(&rest);
        pacing.check_answer_rest(rest, check);
        planned.key.into_bytes()
    }

    /// What the rest of a checked key answer pending in `pacing` does now that its reader,
    /// group `fg`, settled for `release` (see [`AnswerRest`]); the rest goes only to a
    /// reader that reads again and shows the key. A dropped rest (only that step: later
    /// lines of the send go on) is said in the result as a withheld Enter, word or keys.
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
            let echo = self.shared.pty.modes().is_none_or(|m| m.echo);
            if check.shows_key(&mut self.shared.lock(), fg, echo) {
                pacing.passed_check(check);
                return AnswerRest::Types;
            }
        }
        // The line did not go whole to the prompt it was said to answer (a command line to a
        // raw-mode question: see `waiting_prompt`): the notice of the keys held back below
        // tells what went instead.
        self.withdraw_line_to_prompt(pacing.newest_line_number());
        let dropped = pacing.drop_next();
        // Keys typed with echo off are a secret's: their rest is not quoted.
        let hidden = self.span().typed_hidden;
        if matches!(check.kind, RestKind::Keys | RestKind::Line)
            && !hidden
            && let Some(rest) = dropped
                .as_deref()
                .and_then(|d| d.strip_suffix(b"\r").or_else(|| d.strip_suffix(b"\n")))
                .and_then(|rest| std::str::from_utf8(rest).ok())
                .filter(|rest| !rest.trim().is_empty())
        {
            // The rest of a line the send meant as one (a command after a key prompt).
            *self.keys_withheld_rest.lock() = Some(rest.to_owned());
        }
        let withheld = match check.kind {
            RestKind::Enter => &self.enter_withheld,
            RestKind::Word => &self.rest_withheld,
            RestKind::Keys | RestKind::Line => &self.keys_withheld,
        };
        withheld.store(true, Ordering::SeqCst);
        if check.kind == RestKind::Word {
            self.enter_withheld.store(true, Ordering::SeqCst);
        }
        AnswerRest::Dropped
    }
}

#[cfg(test)]
mod tests;
