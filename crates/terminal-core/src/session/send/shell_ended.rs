//! The lines of a send its session's shell never read: it ended first (an `exit` on an
//! earlier line, `exec`, `kill -9 $$`, a failing command under errexit, a Ctrl-D).

use super::super::input;
use super::SendOp;
use super::pacing::Pacing;

impl SendOp {
    /// Drops the lines not typed yet once the session's shell has ended, and says in the
    /// result which of them never ran and at which line the shell ended: no later send can
    /// run them in this session. Blank lines left say nothing (an `exit` on the input's last
    /// line). After a notice of where an earlier line went (a prompt it answered), this one
    /// too.
    pub(super) fn note_shell_ended(&self, pacing: &mut Pacing) {
        let Some(left) = pacing.drop_at_shell_end() else {
            return;
        };
        let notice = input::shell_ended_lines_notice(left.ended_at, left.first, left.last);
        let mut refused = self.refused.lock();
        if refused.is_none() {
            *refused = Some(notice);
        } else {
            self.untyped_after_answer.lock().get_or_insert(notice);
        }
    }
}
