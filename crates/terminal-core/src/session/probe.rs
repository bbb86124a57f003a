//! The foreground-probe schedule of one send: probe once output goes quiet, then back off.

use std::time::{Duration, Instant};

use crate::readiness::PROBE_QUIET;

/// When the driver next probes the foreground: once output has been quiet for the current
/// delay, which starts at [`PROBE_QUIET`] when the input lands or a prompt mark arrives and
/// doubles after every probe up to `poll_interval`. A program that prints its prompt and
/// blocks is seen within a millisecond or two; new output only pushes the next probe out, so a
/// flood or a silent long job costs at most one probe per `poll_interval`.
pub(super) struct ProbeSchedule {
    seen_output_at: Instant,
    seen_marks: u64,
    delay: Duration,
    next: Instant,
    max: Duration,
}

impl ProbeSchedule {
    pub(super) fn new(from: Instant, marks: u64, max: Duration) -> Self {
        Self {
            seen_output_at: from,
            seen_marks: marks,
            delay: PROBE_QUIET,
            next: from + PROBE_QUIET,
            max: max.max(PROBE_QUIET),
        }
    }

    /// Starts over from `at` (the input just landed, or a prompt mark arrived).
    pub(super) fn restart(&mut self, at: Instant) {
        self.delay = PROBE_QUIET;
        self.next = at + PROBE_QUIET;
    }

    /// Output (or a mark) at `last_output_at`, `marks` marks seen so far.
    pub(super) fn on_output(&mut self, last_output_at: Instant, marks: u64) {
        if marks != self.seen_marks {
            self.seen_marks = marks;
            self.seen_output_at = last_output_at;
            self.restart(last_output_at);
        } else if last_output_at != self.seen_output_at {
            self.seen_output_at = last_output_at;
            self.next = self.next.max(last_output_at + self.delay);
        }
    }

    pub(super) fn due(&self, now: Instant) -> bool {
        now >= self.next
    }

    pub(super) fn probed(&mut self, now: Instant) {
        self.delay = (self.delay * 2).min(self.max);
        self.next = now + self.delay;
    }

    pub(super) fn next_at(&self) -> Instant {
        self.next
    }
}
