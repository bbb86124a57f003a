//! [`Span`]: where a send's viewport starts, and what happened to the send that its driver
//! and its readers act on.

use crate::screen::{AnchorId, ExitTally};
use crate::types::TerminalSignal;

use super::SendOp;

/// Where the send's viewport starts, and the counters at that point.
#[derive(Default)]
pub(super) struct Span {
    pub(super) anchor: Option<AnchorId>,
    /// `State::bytes_read` where the anchor starts.
    pub(super) bytes_from: u64,
    /// `screen.exit_tally()` where the anchor starts.
    pub(super) exits_from: ExitTally,
    pub(super) cancel_requested: bool,
    /// A `terminal_signal` arrived while the shell still held the foreground for this send's
    /// command: the driver delivers it to the command once it starts, as a cancel delivers
    /// its interrupt (the send itself is not cancelled).
    pub(super) requested_signal: Option<TerminalSignal>,
    /// No caller will see the result (its call was cancelled): the next send resumes from
    /// this send's anchor instead of from where it settled.
    pub(super) result_discarded: bool,
    /// The cancel's interrupt went to the foreground (see `State::cancel_unseen`).
    pub(super) cancel_interrupted: bool,
    /// Whether `read_output` already handed out the settled viewport (once, from the
    /// published result, so the settled text is never held twice).
    pub(super) final_delta_read: bool,
    /// What the screen noted over the reads of this send while it ran (see
    /// `Screen::take_read_notes`): the settled result says it too, for the whole span.
    pub(super) read_notes: crate::screen::notes::SpanNotes,
    /// The full-screen program's screen `read_output` handed out last: a read while it is
    /// unchanged hands out nothing (each read of the alternate screen renders it whole).
    pub(super) last_screen: Option<String>,
    /// The send's line went to a program reading it with echo off (a password prompt, at
    /// this prompt text when one showed): the result says the text answered it.
    pub(super) answered_password: Option<String>,
    /// The send began at a reader with echo off (a password prompt, `read -s -n 5`): what
    /// it typed is a secret, never quoted back (a key answer's dropped rest included).
    pub(super) typed_hidden: bool,
    /// A `read_output` handed out a full-screen program's screen: a result that saw it come
    /// and go does not say that what it showed is gone.
    pub(super) alternate_handed_out: bool,
    /// The settled viewport starts at its first row's start (see `SendRead::restarts_line`).
    pub(super) final_restarts_line: bool,
    /// When the settled viewport lost output since the anchor (its byte bound), the line ends
    /// that output held (see `SendRead::lost_lines`).
    pub(super) final_lost_lines: Option<u64>,
    /// Whole lines of earlier reads the settled viewport shows again (see
    /// `SendRead::rewound_lines`).
    pub(super) final_rewound_lines: u64,
    /// The anchor sits inside an unfinished line the previous result ended in (see
    /// `State::resume_line_open`).
    pub(super) continues_line: bool,
    /// The send typed nothing (a poll): the row it settles on is no row input was typed on.
    pub(super) poll: bool,
    /// `screen.alternate_leave_count()` when the send began on the main screen: a full-screen
    /// program that took the screen and left it again before the send settled showed what
    /// no result will (see `SettleFacts::alternate_came_and_went`).
    pub(super) alternate_leaves_from: Option<u64>,
    /// The send runs as a background job (`OperationHandle::in_background`): the job's own
    /// status tells the agent what its program does next, not this send's result.
    pub(super) background: bool,
    /// The text the send held for a reader was not written and the send ends at once, as
    /// this (see `hold`): a cancel dropped it (nothing of it ran, so nothing is interrupted),
    /// the program it waited for went quiet waiting on other events, or a key reader came.
    pub(super) held_settle: Option<crate::readiness::Settle>,
    /// A cancel dropped the held text before any of the send's text was written (see
    /// `SettleFacts::cancelled_unwritten`).
    pub(super) cancelled_unwritten: bool,
    /// A signal or a cancel dropped the send's text before any of its line ends was typed
    /// (see `SettleFacts::entered_none`).
    pub(super) entered_none: bool,
    /// The process groups seen holding the terminal while the send ran (its start included):
    /// a job of one found stopped as it settles was stopped in the foreground (see
    /// `SettleFacts::stopped_jobs`).
    pub(super) foregrounds_seen: Vec<i32>,
    /// The driver wrote the send's text (or began to): it is in the terminal, or goes there
    /// once the write in flight lands (see `SettleFacts::typed_unfinished`).
    pub(super) wrote_input: bool,
}

/// The line ends a render from an anchor left out, when its byte bound cut it (`None` when it
/// did not, or when the count is not known): those between the anchor and the first row
/// copied (`lost_before_copy`) and those of the copy the bound cut (`copied_line_ends`, the
/// copy's, less the rendered text's newlines).
pub(super) fn lost_lines(
    lost_before_copy: Option<u64>,
    copied_line_ends: u64,
    rendered: &crate::screen::Rendered,
) -> Option<u64> {
    let kept = rendered.text.bytes().filter(|&b| b == b'\n').count() as u64;
    lost_before_copy
        .filter(|_| rendered.truncated)
        .map(|lost| lost + copied_line_ends.saturating_sub(kept))
}

/// What the span says of the send's cancel and signals.
impl SendOp {
    pub(super) fn span(&self) -> parking_lot::MutexGuard<'_, Span> {
        self.span.lock()
    }

    /// Tells this send from others while it lives (its address).
    pub(super) fn identity(&self) -> usize {
        std::ptr::from_ref(self).addr()
    }

    pub(super) fn cancel_requested(&self) -> bool {
        self.span().cancel_requested
    }

    /// Cancelled, and no caller will see the result (see `Span::result_discarded`).
    pub(super) fn result_discarded_after_cancel(&self) -> bool {
        let span = self.span();
        span.cancel_requested && span.result_discarded
    }

    /// Whether the driver owes the foreground an interrupt (a cancel, or a SIGINT handed over
    /// by `terminal_signal`). A poll whose caller went away (its result discarded, then
    /// cancelled: a client's timeout) owes none: it typed nothing, and the command it waited
    /// on is an earlier send's, which must not end with it (a build). A poll cancelled as
    /// such (`job_kill` of a background one) interrupts, as any cancel does.
    pub(super) fn interrupt_owed(&self) -> bool {
        let span = self.span();
        (span.cancel_requested && !(span.poll && span.result_discarded))
            || span.requested_signal.is_some()
    }

    /// Notes that a cancel's interrupt went to the foreground once `interrupts` delivered one
    /// (see `Span::cancel_interrupted`); no lock taken before that.
    pub(super) fn note_cancel_delivered(
        &self,
        interrupts: &super::super::cancel::CancelInterrupts,
    ) {
        if interrupts.delivered_at().is_some() {
            let mut span = self.span();
            span.cancel_interrupted |= span.cancel_requested;
        }
    }

    /// The owed signal, and whether it goes as the terminal's key (a cancel's SIGINT: no).
    pub(super) fn signal_owed(&self) -> (TerminalSignal, bool) {
        let span = self.span();
        span.requested_signal
            .filter(|_| !span.cancel_requested)
            .map_or((TerminalSignal::Sigint, false), |signal| (signal, true))
    }
}
