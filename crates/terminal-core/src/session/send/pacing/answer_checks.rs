//! The checks on a key answer's rest (see `key_answer`): the rest goes as the next step only
//! once its reader shows the key the answer typed.

use super::{Pacing, line_ends};
use crate::screen::Position;
use crate::session::send::key_answer::AnswerCheck;

impl Pacing {
    /// `rest`, the rest of a key answer just handed out, goes as the next step (before the
    /// send's later lines) only when `check` passes (see `key_answer`).
    pub(in crate::session::send) fn check_answer_rest(
        &mut self,
        rest: Vec<u8>,
        check: AnswerCheck,
    ) {
        self.pending.push_front(rest);
        self.front_ends_a_block = false;
        self.answer_check = Some(check);
    }

    /// Notes that `check`, of the next step (an answer's rest), passed.
    pub(in crate::session::send) fn passed_check(&mut self, check: AnswerCheck) {
        self.passed = Some(check);
    }

    /// The check of an answer's rest that passed, taken off: the step handed out next is
    /// that rest.
    pub(in crate::session::send) fn take_passed_check(&mut self) -> Option<AnswerCheck> {
        self.passed.take()
    }

    /// `rest`, cut off a step already handed out (a key answer's), is no longer counted as
    /// taken: it counts when it goes, or when it is dropped ([`Pacing::drop_next`]).
    pub(in crate::session::send) fn uncount(&mut self, rest: &[u8]) {
        self.line_ends_taken = self.line_ends_taken.saturating_sub(line_ends(rest));
    }

    /// Where the key answer whose rest waits on a check began (its first key's cursor; none
    /// for keys to a full-screen program).
    pub(in crate::session::send) fn answer_start(&self) -> Option<Position> {
        self.answer_check.and_then(|check| check.start())
    }

    /// The check a key answer's pending rest waits on.
    pub(in crate::session::send) fn answer_check(&self) -> Option<AnswerCheck> {
        self.answer_check
    }

    /// The check a key answer's pending rest waits on, taken off.
    pub(in crate::session::send) fn take_answer_check(&mut self) -> Option<AnswerCheck> {
        self.answer_check.take()
    }

    /// Puts back a check [`Pacing::take_answer_check`] took, not decided yet.
    pub(in crate::session::send) fn check_answer(&mut self, check: AnswerCheck) {
        self.answer_check = Some(check);
    }
}
