//! What a caller holds of a [`SendOp`]: its result, its output so far (consumed by each
//! read), its progress, and its cancellation.

use std::sync::atomic::Ordering;

use crate::backend::OperationHandle;
use crate::error::{TerminalError, TerminalErrorCode};
use crate::types::{InputMode, SendProgress, SendRead, SendResult};

use crate::readiness::Settle;
use crate::types::TerminalSignal;

use super::super::result::OutputNotes;
use super::SendOp;

/// What the session's signal, cancel and close paths do to a send.
impl SendOp {
    /// Drops the input this send has not typed yet (a signal reached the foreground).
    pub(in crate::session) fn drop_untyped(&self) {
        self.untyped_dropped.store(true, Ordering::SeqCst);
        self.wake.notify_one();
    }

    /// Drops the text this send holds for a reader that has not come (see `hold`): a signal
    /// discarded input typed ahead.
    pub(in crate::session) fn drop_held(&self) {
        self.held_dropped.store(true, Ordering::SeqCst);
        self.wake.notify_one();
    }

    /// Hands `signal` to this send (see `Span::requested_signal`); `false` once settled or
    /// cancelled.
    pub(in crate::session) fn request_signal(&self, signal: TerminalSignal) -> bool {
        // A send being cancelled (`job_kill`) takes no signal for a command of its own: its
        // cancel already interrupted what ran, and the shell then holding the terminal is
        // back at its prompt, not starting a command (the signal's answer said it would go to
        // "the command just sent", which no send had typed).
        if self.is_settled() || self.span().cancel_requested {
            return false;
        }
        self.span().requested_signal = Some(signal);
        self.wake.notify_one();
        true
    }

    /// Resolves at the next explicit wake-up (cancel, close).
    pub(in crate::session) async fn woken(&self) {
        self.wake.notified().await;
    }

    /// Ends a pending send because the session closed: it settles as `session_exit`.
    pub(in crate::session) fn settle_on_close(&self) {
        self.settle(Settle::Exit, None);
        self.wake.notify_one();
    }
}

#[async_trait::async_trait]
impl OperationHandle for SendOp {
    async fn done(&self) -> Result<SendResult, TerminalError> {
        let mut rx = self.result.subscribe();
        match rx.wait_for(Option::is_some).await {
            Ok(v) => v.clone().unwrap_or_else(|| Err(abandoned())),
            Err(_) => Err(abandoned()),
        }
    }

    fn read_output(&self) -> SendRead {
        let mut st = self.shared.lock();
        let mut span = self.span();
        if self.is_settled() {
            // Settling publishes its result last: until then (or after a failure) there is
            // nothing to hand out, and the next read still gets it.
            return match &*self.result.borrow() {
                Some(Ok(result)) if !std::mem::replace(&mut span.final_delta_read, true) => {
                    // A full-screen program's screen already handed out as it is now.
                    if result.input_mode == InputMode::AlternateScreen
                        && span.last_screen.as_deref() == Some(result.viewport.as_str())
                    {
                        return SendRead::default();
                    }
                    SendRead {
                        delta: result.viewport.clone(),
                        truncated: result.truncated,
                        lost_lines: span.final_lost_lines,
                        restarts_line: span.final_restarts_line,
                        rewound_lines: span.final_rewound_lines,
                        screen: result.input_mode == InputMode::AlternateScreen,
                        newest_line: result.newest_line,
                        notices: Vec::new(),
                        head: String::new(),
                    }
                }
                _ => SendRead::default(),
            };
        }
        let Some(anchor) = span.anchor else {
            return SendRead::default();
        };
        let alternate = st.screen.alternate_screen();
        // This send's first read of a full-screen program's screen that an earlier render
        // showed as it is now (the send before, or the job's previous send, handed it out).
        let shown_before =
            alternate && span.last_screen.is_none() && st.screen.alternate_unchanged_since_shown();
        let from = st.screen.anchor_position(anchor);
        let consumed = st.screen.consume_since(anchor, self.shared.max_read_bytes);
        // Output dropped before this read took it: the send's first lines among it, which the
        // screen kept (see `SendRead::head`).
        let head = from
            .filter(|_| consumed.rows.truncated() && !alternate)
            .and_then(|from| {
                st.screen
                    .head_lines_between(from, consumed.rows.first_row())
            });
        let notes = st.screen.take_read_notes();
        drop(st);
        let copied_line_ends = consumed.rows.line_ends();
        let newest_line = consumed.rows.last_line();
        let mut rendered = consumed.rows.render(self.shared.max_read_bytes);
        let lost_lines =
            super::span::lost_lines(consumed.lost_line_ends, copied_line_ends, &rendered)
                .map(|lost| lost.saturating_sub(head.as_ref().map_or(0, |(_, lines)| *lines)));
        let head = head.map(|(text, _)| text).unwrap_or_default();
        if alternate {
            // The alternate screen renders whole each time: only a changed one is new.
            span.alternate_handed_out = true;
            if shown_before || span.last_screen.as_deref() == Some(rendered.text.as_str()) {
                span.last_screen = Some(rendered.text);
                return SendRead::default();
            }
            span.last_screen = Some(rendered.text.clone());
            // A whole screen: what comes after it starts a line of its own.
            if !rendered.text.is_empty() && !rendered.text.ends_with('\n') {
                rendered.text.push('\n');
            }
        } else {
            span.last_screen = None;
        }
        let notices = OutputNotes::of(&notes, &rendered.text).notices();
        span.read_notes.absorb(notes);
        drop(span);
        SendRead {
            notices,
            delta: rendered.text,
            truncated: rendered.truncated,
            lost_lines,
            head,
            restarts_line: consumed.restarts_line,
            rewound_lines: consumed.rewound_lines,
            screen: alternate,
            newest_line,
        }
    }

    fn output_shown(&self) {
        // The state's lock first, as settling takes them. Only while this send's span is
        // the screen's current one (settling takes its anchor).
        let mut st = self.shared.lock();
        if self.span().anchor.is_some() {
            st.screen.raise_erased_floor();
        }
    }

    fn discard_result(&self) {
        self.span().result_discarded = true;
    }

    fn in_background(&self) {
        // The state's lock first, as settling takes them.
        let mut st = self.shared.lock();
        self.span().background = true;
        super::stale_reader::forget(&mut st, self.identity());
    }

    fn cancel(&self) -> bool {
        if self.is_settled() {
            return false;
        }
        self.span().cancel_requested = true;
        self.wake.notify_one();
        true
    }

    fn cancel_took_effect(&self) -> bool {
        // Text the cancel kept from being written or typed (a notice says which lines) did
        // not run either.
        let refused = self.refused.lock().is_some();
        let span = self.span();
        span.cancel_interrupted
            || (span.cancel_requested && (refused || span.entered_none || span.cancelled_unwritten))
    }

    fn is_finished(&self) -> bool {
        self.finished.load(Ordering::SeqCst)
    }

    fn is_settled(&self) -> bool {
        SendOp::is_settled(self)
    }

    fn output_bytes(&self) -> u64 {
        let st = self.shared.lock();
        st.bytes_read.saturating_sub(self.span().bytes_from)
    }

    fn progress(&self) -> SendProgress {
        /// Enough of the newest output to find its last line.
        const LAST_LINE_BYTES: usize = 1024;
        let mut st = self.shared.lock();
        let span = self.span();
        let snapshot = span.anchor.map(|anchor| {
            st.screen
                .with_open_binary_run(|screen| screen.peek_since(anchor, LAST_LINE_BYTES))
        });
        let output_bytes = st.bytes_read.saturating_sub(span.bytes_from);
        drop((span, st));
        let last_line = snapshot.and_then(|snapshot| {
            snapshot
                .render(LAST_LINE_BYTES)
                .text
                .lines()
                .rev()
                .map(str::trim_end)
                .find(|l| !l.is_empty())
                .map(str::to_owned)
        });
        SendProgress {
            output_bytes,
            last_line,
        }
    }
}

fn abandoned() -> TerminalError {
    TerminalError::new(
        TerminalErrorCode::Transport,
        "PTY send was abandoned before it settled",
    )
}
