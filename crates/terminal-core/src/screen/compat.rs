//! Sequences vt100 ignores that terminals carry out, given to it as ones it has.
//!
//! - `CSI s` / `CSI u` (save and restore the cursor, SCOSC / SCORC; parameters are ignored as
//!   xterm and tmux do, but not with a private marker or an intermediate, so neither a
//!   keyboard-protocol `CSI > 1 u` nor `CSI SP u`, nor DECSLRM while left and right margins
//!   are enabled): `ESC 7` / `ESC 8`. A program that saves the cursor, draws lower down and
//!   restores it (a status line) would otherwise leave the cursor, and the prompt after it,
//!   where it drew.
//! - `ESC D` (index: down one row, scrolling at the bottom) and `ESC E` (next line): `\n` and
//!   `\r\n` (vt100's line feed keeps the column, as index does).
//! - Modes 1047 (the alternate screen, cleared when left) and 1048 (save or restore the
//!   cursor): mode 47 and `ESC 7` / `ESC 8`; leaving 1047 clears the alternate screen first.
//!   Among the other modes of a DECSET or DECRST too (`CSI ? 25 ; 1047 l`).
//! - DECSTBM (`CSI t ; b r`) puts the cursor home, `CSI H` (vt100 puts it on the region's top
//!   row; `CSI H` goes there only in origin mode, as a terminal's home does).
//!
//! - A cursor move right after a character in the last column (`CSI A`–`D`, `a`, `e`, and a
//!   backspace): vt100 keeps the cursor past that column until the next character wraps the
//!   line, and moves from there; a terminal's cursor is on the last column, so a move to the
//!   left ends one column further left (`\t` to the edge, a character, then `\b` or
//!   `CSI 3 D` overwrote the wrong cell), and after any move the next character is written on
//!   the cursor's row (see [`Screen::after_move_from_wrap_pending`]).
//!
//! The stand-in is emulated right after the sequence, which vt100 has consumed as a no-op.
//! One sequence vt100 carries out differently is replaced instead (its final byte becomes a
//! CAN, which ends a sequence with no effect):
//! - `CSI ? 1049 l` when no cursor was saved on the main screen (no `ESC 7`, `CSI s`, mode
//!   1048 or 1049 since the start or a reset): vt100 restores a cursor never saved, the top
//!   left corner, and the next output overwrites the top rows; tmux leaves the cursor alone
//!   (a stray `tput rmcup`). It leaves an alternate screen (mode 47) and restores nothing:
//!   the cursor stays where it is, as below. (Among other modes, vt100 carries it out and the
//!   cursor is put back.) Nor on the main screen the prompt gave back while the program had
//!   the alternate screen on: the program's own leave, in a later command, would put the
//!   cursor back above the prompts and command lines since, and the next output overwrite
//!   them (on a terminal those were drawn on the alternate screen it leaves).
//! - `ESC M` (reverse index) on the top row above a region with a top margin: vt100 scrolls
//!   the region down; a terminal does nothing (the cursor cannot go up, and it is outside the
//!   region).
//!
//! xterm has one cursor for both screens; vt100 keeps one per screen. Switching screens by
//! modes 47 and 1047 leaves xterm's cursor where it is (the alternate screen starts at the
//! main screen's cursor, and the main screen goes on where the alternate screen left it), and
//! so does entering by mode 1049, which saves it first (and clears the alternate screen
//! without moving it). So after such a switch the cursor is put back where it was
//! ([`keeps_cursor`]); only a restore (mode 1049 or 1048 reset) moves it. Left as vt100 does
//! it: a switch while origin mode is on (each screen keeps its cursor); and a switch right
//! after a character in the last column puts the cursor back on that column (the next
//! character overwrites it instead of wrapping).

use super::scan::Sequence;
use super::{Screen, feed::modes};

/// The terminal state a stand-in depends on, before the sequence.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct State {
    /// The alternate screen is on.
    pub(super) alternate: bool,
    /// Left and right margins are enabled (DECLRMM, mode 69): `CSI Pl ; Pr s` sets them.
    pub(super) left_right_margins: bool,
    /// A cursor was saved on the main screen since the start or a reset.
    pub(super) main_cursor_saved: bool,
    /// The cursor is on the screen's top row, above the main screen's scroll region.
    pub(super) above_region: bool,
    /// The prompt gave the main screen back while a program's alternate screen was on, and
    /// no alternate screen was entered since.
    pub(super) left_by_prompt: bool,
}

/// How vt100 is made to carry out a sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StandIn {
    /// vt100 ignores the sequence: these bytes, after it, do what it does.
    After(&'static [u8]),
    /// vt100 would do something else: these bytes, in place of its final byte.
    Instead(&'static [u8]),
}

/// How to carry out `seq` in vt100 when it does not do what a terminal does (`None`: it does).
pub(super) fn stand_in(seq: Sequence, state: State) -> Option<StandIn> {
    if seq.csi
        && seq.final_byte == b'l'
        && seq.has_dec_mode(1049)
        && !seq.more_params
        && (!state.main_cursor_saved || (state.left_by_prompt && !state.alternate))
    {
        return Some(StandIn::Instead(if state.alternate {
            b"\x1b[?47l"
        } else {
            b""
        }));
    }
    if !seq.csi && seq.intermediate.is_none() && seq.final_byte == b'M' && state.above_region {
        return Some(StandIn::Instead(b""));
    }
    after(seq, state).map(StandIn::After)
}

/// The bytes that carry out `seq` after vt100 ignored it.
fn after(seq: Sequence, state: State) -> Option<&'static [u8]> {
    let plain = seq.private.is_none() && seq.intermediate.is_none();
    let (alt_screen, cursor) = (seq.has_dec_mode(1047), seq.has_dec_mode(1048));
    match (seq.csi, seq.final_byte) {
        (true, b's') if plain && !state.left_right_margins => Some(b"\x1b7"),
        (true, b'r') if plain => Some(b"\x1b[H"),
        (true, b'u') if plain => Some(b"\x1b8"),
        // The cursor is saved on the main screen before the switch.
        (true, b'h') => match (cursor, alt_screen) {
            (true, true) => Some(b"\x1b7\x1b[?47h"),
            (true, false) => Some(b"\x1b7"),
            (false, true) => Some(b"\x1b[?47h"),
            (false, false) => None,
        },
        // The cursor is restored on the main screen after the switch.
        (true, b'l') => match (cursor, alt_screen && state.alternate) {
            (true, true) => Some(b"\x1b[2J\x1b[?47l\x1b8"),
            (true, false) => Some(b"\x1b8"),
            (false, true) => Some(b"\x1b[2J\x1b[?47l"),
            (false, false) => None,
        },
        (false, b'D') if seq.intermediate.is_none() => Some(b"\n"),
        (false, b'E') if seq.intermediate.is_none() => Some(b"\r\n"),
        _ => None,
    }
}

/// Whether `seq` saves the cursor of the screen it is on (`ESC 7`, `CSI s` as a save, modes 1048
/// and 1049 set).
pub(super) fn saves_cursor(seq: Sequence, state: State) -> bool {
    match (seq.csi, seq.final_byte) {
        (false, b'7') => seq.intermediate.is_none(),
        (true, b'h') => seq.has_dec_mode(1048) || seq.has_dec_mode(1049),
        (true, b's') => after(seq, state).is_some(),
        _ => false,
    }
}

/// Whether the cursor stays where it was across `seq`, a switch of screens that restores no
/// cursor (see the [module docs](self)): modes 47 and 1047, 1049 set, and 1049 reset with no
/// cursor saved on the main screen; but not with mode 1048 reset, which restores one.
fn keeps_cursor(seq: Sequence, state: State) -> bool {
    let switch = seq.has_dec_mode(47) || seq.has_dec_mode(1047);
    match (seq.csi, seq.final_byte) {
        (true, b'h') => switch || seq.has_dec_mode(1049),
        (true, b'l') if seq.has_dec_mode(1048) => false,
        (true, b'l') if seq.has_dec_mode(1049) => {
            !state.main_cursor_saved || (state.left_by_prompt && !state.alternate)
        }
        (true, b'l') => switch,
        _ => false,
    }
}

impl Screen {
    /// The terminal state the stand-ins depend on, now.
    pub(super) fn compat_state(&self) -> State {
        let alternate = self.parser.screen().alternate_screen();
        State {
            alternate,
            left_right_margins: self.modes & modes::LEFT_RIGHT != 0,
            main_cursor_saved: self.main_cursor_saved,
            left_by_prompt: self.left_by_prompt,
            above_region: self.region.is_some_and(|r| r.top > 0)
                && !alternate
                && self.parser.screen().cursor_position().0 == 0,
        }
    }

    /// Emulates `final_byte`, which ends `seq` (everything before it is emulated), or what
    /// stands in for it; a switch of screens leaves the cursor where it was.
    pub(super) fn emulate_sequence_end(&mut self, seq: Sequence, final_byte: u8) {
        if self.tab_moves(seq) {
            return;
        }
        let state = self.compat_state();
        let before = self.parser.screen().cursor_position();
        self.conceal_before_sequence(seq, state.alternate);
        if !state.alternate && saves_cursor(seq, state) {
            self.main_cursor_saved = true;
        }
        match stand_in(seq, state) {
            Some(StandIn::After(bytes)) => {
                self.emulate(&[final_byte]);
                self.emulate(bytes);
            }
            Some(StandIn::Instead(bytes)) => {
                self.emulate(b"\x18");
                self.emulate(bytes);
            }
            None => self.emulate(&[final_byte]),
        }
        if keeps_cursor(seq, state)
            && self.modes & modes::ORIGIN == 0
            && self.parser.screen().cursor_position() != before
        {
            let (row, col) = before;
            self.emulate(format!("\x1b[{};{}H", row + 1, col + 1).as_bytes());
        }
        if seq.csi
            && seq.private.is_none()
            && seq.intermediate.is_none()
            && matches!(seq.final_byte, b'A' | b'B' | b'C' | b'D' | b'a' | b'e')
            && before.1 >= self.config.cols
        {
            self.after_move_from_wrap_pending(seq.final_byte == b'D');
        }
        self.conceal_after_sequence(seq);
    }

    /// After a cursor move (`back`: one to the left, a backspace or CUB) that vt100 began past
    /// the last column, where it keeps the cursor once a character filled that column (the
    /// line wraps at the next one): a terminal's cursor was on the last column, so a move to
    /// the left ends one column further left, and no move leaves a wrap pending (the next
    /// character is written on the cursor's row, not wrapped to the row below it).
    pub(super) fn after_move_from_wrap_pending(&mut self, back: bool) {
        if back {
            self.emulate(b"\x1b[D");
        }
        let cols = self.config.cols;
        if self.parser.screen().cursor_position().1 >= cols {
            self.emulate(format!("\x1b[{cols}G").as_bytes());
        }
    }
}
