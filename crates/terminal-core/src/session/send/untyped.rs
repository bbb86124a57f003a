//! What a send says of the lines it did not type itself: those its settling leaves to be
//! typed ahead, and, for a send whose result nobody sees, what it said of its input, passed
//! on to the next result that shows its output.

use super::super::input;
use super::SendOp;

impl SendOp {
    /// Notes, for the result, that the lines not typed yet (`untyped`: the first one's number,
    /// from 1, and how many, as `Pacing::untyped_lines` counts them) go typed ahead as the send
    /// settles without their reader taking them (see `Pacing::on_settle`): the result must not
    /// read as theirs. Not when the result already says why input went untyped.
    pub(super) fn note_typed_ahead(&self, untyped: Option<(usize, usize)>) {
        if let Some((first, count)) = untyped {
            self.refused
                .lock()
                .get_or_insert_with(|| input::typed_ahead_lines_notice(first, count));
        }
    }

    /// This result's notice of its input (`own`), and the one a send before it whose result
    /// nobody saw left (see `State::input_notice_unseen`). A result nobody sees (`unseen`: a
    /// cancelled call's, whose untyped lines the agent would otherwise never hear of) passes
    /// its own on instead, said as the earlier send's.
    pub(super) fn pass_on_input_notice(
        &self,
        own: Option<String>,
        unseen: bool,
    ) -> (Option<String>, Option<String>) {
        let mut st = self.shared.lock();
        if unseen {
            if let Some(notice) = own {
                st.input_notice_unseen = Some(input::earlier_send_notice(&notice));
            }
            return (None, None);
        }
        (own, st.input_notice_unseen.take())
    }
}
