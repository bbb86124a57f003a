//! Sequences vt100 ignores that terminals carry out, given to it as ones it has.
//!
//! - `CSI s` / `CSI u` (save and restore the cursor, SCOSC / SCORC; without parameters, so
//!   neither DECSLRM nor a keyboard-protocol `CSI > 1 u`): `ESC 7` / `ESC 8`. A program that
//!   saves the cursor, draws lower down and restores it (a status line) would otherwise leave
//!   the cursor, and the prompt after it, where it drew.
//! - `ESC D` (index: down one row, scrolling at the bottom) and `ESC E` (next line): `\n` and
//!   `\r\n` (vt100's line feed keeps the column, as index does).
//!
//! The stand-in is emulated right after the sequence, which vt100 has consumed as a no-op.

use super::scan::Sequence;

/// The bytes that carry out `seq` in vt100, when it ignores `seq` itself.
pub(super) fn stand_in(seq: Sequence) -> Option<&'static [u8]> {
    let plain = seq.private.is_none() && seq.first_param == 0 && !seq.more_params;
    match (seq.csi, seq.intermediate, seq.final_byte) {
        (true, _, b's') if plain => Some(b"\x1b7"),
        (true, _, b'u') if plain => Some(b"\x1b8"),
        (false, None, b'D') => Some(b"\n"),
        (false, None, b'E') => Some(b"\r\n"),
        _ => None,
    }
}
