//! The lines of a send still to type when the session's shell ended: it never read them.

use super::Pacing;
use crate::session::input::BLOCK_END_KEY;

/// The lines of a send the session's shell ended before reading (see
/// [`Pacing::drop_at_shell_end`]), as line numbers of the input (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::session::send) struct UntypedAtShellEnd {
    /// The line typed last: the shell ended at it (its `exit`, `exec`, `kill -9 $$`, a
    /// failing command under errexit, a Ctrl-D).
    pub(in crate::session::send) ended_at: usize,
    /// The first line not typed that holds text: `ended_at` itself when its rest after the
    /// key that ended the shell (a Ctrl-D) holds text.
    pub(in crate::session::send) first: usize,
    /// The last line not typed that holds text.
    pub(in crate::session::send) last: usize,
}

impl Pacing {
    /// Drops the steps not typed yet: the session's shell has ended (exited, or was killed),
    /// so nothing will read them. Returns which lines of the input they were, from the first
    /// to the last that holds text (a blank line or a lone line end runs nothing: an `exit` on
    /// the input's last line, the Enter after it or after a Ctrl-D, leaves nothing to name);
    /// an Enter that only ends a Python block is no line of the input.
    pub(in crate::session::send) fn drop_at_shell_end(&mut self) -> Option<UntypedAtShellEnd> {
        self.answer_check = None;
        self.passed = None;
        self.front_ends_a_block = false;
        let planned = self.statements_planned;
        let ended_at = self.line_ends_taken + usize::from(!self.newest_ends_line);
        let mut number = self.line_ends_taken + 1;
        let mut with_text: Option<(usize, usize)> = None;
        for step in std::mem::take(&mut self.pending) {
            if planned && step.as_slice() == BLOCK_END_KEY {
                continue;
            }
            for b in step {
                if b == b'\n' || b == b'\r' {
                    number += 1;
                } else if b > b' ' && b != 0x7f {
                    with_text = Some((with_text.map_or(number, |(first, _)| first), number));
                }
            }
        }
        with_text.map(|(first, last)| UntypedAtShellEnd {
            ended_at: ended_at.max(1),
            first,
            last,
        })
    }
}
