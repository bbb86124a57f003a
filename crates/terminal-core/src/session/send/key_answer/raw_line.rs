//! A line to a raw-mode reader at a prompt that neither asks nor is a REPL's: its first key
//! alone, the rest whole once the reader shows the key (see `key_answer`'s module docs and
//! `RestKind::Line`).

use crate::pty::TtyModes;

use super::super::super::observe::group_runs_a_repl;
use super::super::super::shared::State;
use super::{KeyAnswer, RestKind, checked, is_key};

/// `keyed`, one line to a raw-mode reader at a prompt that neither asks nor is a REPL's, as
/// its first key alone and the rest (the other keys and the Enter) whole once the reader
/// shows the key (see the module docs); `None` (it goes as it is) in GNU readline's modes
/// (a line editor only), to a REPL by its command line (`node`, `python3.13`, `ipython`,
/// `psql`: see `group_runs_a_repl`), whose line editor takes lines whole also where no
/// prompt shows (node while a top-level `await` runs, IPython after a thread's output), for
/// a single key with no Enter, for several lines (each of a paced send comes here on its
/// own), or for a line not starting with a printable key.
///
/// The rest's Enter is a newline where the send's own would be (see `Reader::newline_enter`):
/// to the shell's own `read` with the terminal left raw (`stty raw -echo; read -r x`), or with
/// carriage returns ignored.
pub(super) fn first_key_alone(
    st: &mut State,
    (modes, shell_pgid): (TtyModes, i32),
    fg: Option<i32>,
    keyed: &[u8],
) -> Option<KeyAnswer> {
    if modes.readline_editing() {
        return None;
    }
    let (key, rest, kind) = first_key_and_rest(keyed)?;
    // Asked last: blocking `/proc` reads, only for a line that would be cut.
    if fg.is_some_and(group_runs_a_repl) {
        return None;
    }
    let mut rest = rest.to_vec();
    if (modes.ignores_cr || (fg == Some(shell_pgid) && !modes.maps_cr))
        && rest.ends_with(b"\r")
        && !rest.ends_with(b"\r\n")
    {
        rest.pop();
        rest.push(b'\n');
    }
    checked(st, fg, key, rest, (kind, None))
}

/// `keyed`, one line with or without its Enter, as its first key (printable, no space), the
/// rest and what the rest is: the Enter alone, or more of the line (see `RestKind::Line`).
/// `None` for a key alone, several lines, or a line starting with no printable key.
pub(super) fn first_key_and_rest(keyed: &[u8]) -> Option<(&str, &[u8], RestKind)> {
    let line = std::str::from_utf8(keyed).ok()?;
    let ended = line
        .strip_suffix("\r\n")
        .or_else(|| line.strip_suffix(['\r', '\n']))
        .unwrap_or(line);
    if ended.contains(['\r', '\n']) {
        return None;
    }
    let first = line.chars().next().filter(|&c| is_key(c))?;
    let (key, rest) = line.split_at(first.len_utf8());
    if rest.is_empty() {
        return None;
    }
    let kind = if ended.len() == key.len() {
        RestKind::Enter
    } else {
        RestKind::Line
    };
    Some((key, rest.as_bytes(), kind))
}
