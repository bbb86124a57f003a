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
//! - DECSTBM (`CSI t ; b r`) puts the cursor home, `CSI H` (vt100 puts it on the region's top
//!   row; `CSI H` goes there only in origin mode, as a terminal's home does).
//!
//! The stand-in is emulated right after the sequence, which vt100 has consumed as a no-op.
//! One sequence vt100 carries out differently is replaced instead (its final byte becomes a
//! CAN, which ends a sequence with no effect):
//! - `CSI ? 1049 l` when no cursor was saved on the main screen (no `ESC 7`, `CSI s`, mode
//!   1048 or 1049 since the start or a reset): vt100 restores a cursor never saved, the top
//!   left corner, and the next output overwrites the top rows; tmux leaves the cursor alone
//!   (a stray `tput rmcup`). It leaves an alternate screen (mode 47) and restores nothing.
//! - `ESC M` (reverse index) on the top row above a region with a top margin: vt100 scrolls
//!   the region down; a terminal does nothing (the cursor cannot go up, and it is outside the
//!   region).

use super::scan::Sequence;

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
    let single_dec_mode = seq.private == Some(b'?') && !seq.more_params;
    if single_dec_mode
        && seq.csi
        && seq.final_byte == b'l'
        && seq.first_param == 1049
        && !state.main_cursor_saved
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
    let single_dec_mode = seq.private == Some(b'?') && !seq.more_params;
    match (seq.csi, seq.final_byte) {
        (true, b's') if plain && !state.left_right_margins => Some(b"\x1b7"),
        (true, b'r') if plain => Some(b"\x1b[H"),
        (true, b'u') if plain => Some(b"\x1b8"),
        (true, b'h') if single_dec_mode => match seq.first_param {
            1047 => Some(b"\x1b[?47h"),
            1048 => Some(b"\x1b7"),
            _ => None,
        },
        (true, b'l') if single_dec_mode => match seq.first_param {
            1047 if state.alternate => Some(b"\x1b[2J\x1b[?47l"),
            1048 => Some(b"\x1b8"),
            _ => None,
        },
        (false, b'D') if seq.intermediate.is_none() => Some(b"\n"),
        (false, b'E') if seq.intermediate.is_none() => Some(b"\r\n"),
        _ => None,
    }
}

/// Whether `seq` saves the cursor of the screen it is on (`ESC 7`, `CSI s` as a save, modes 1048
/// and 1049 set).
pub(super) fn saves_cursor(seq: Sequence, state: State) -> bool {
    let single_dec_mode = seq.private == Some(b'?') && !seq.more_params;
    match (seq.csi, seq.final_byte) {
        (false, b'7') => seq.intermediate.is_none(),
        (true, b'h') => single_dec_mode && matches!(seq.first_param, 1048 | 1049),
        (true, b's') => after(seq, state).is_some(),
        _ => false,
    }
}
