//! The silence tier of [`Readiness`]: how long output must stay quiet, and whether quiet may
//! settle a send as `inferred_idle` (see the module docs of `readiness`).

use std::time::{Duration, Instant};

use super::{Observation, REDRAW_PAUSE, Readiness, SilenceRule};

impl Readiness {
    /// The output silence that settles as `inferred_idle`: the idle window, plus the
    /// hand-off grace once a prompt mark was seen.
    pub(super) fn silence_needed(&self) -> Duration {
        if self.mark_seen {
            self.timing.idle_silence + self.timing.handoff_grace
        } else {
            self.timing.idle_silence
        }
    }

    /// When output silence alone would settle (for scheduling the next wake-up); on the
    /// alternate screen, also a pause between redraws once the idle window has passed since
    /// the send started (see [`REDRAW_PAUSE`]).
    pub(crate) fn silence_deadline(&self, last_output_at: Instant) -> Instant {
        let silent = last_output_at + self.silence_needed();
        if self.alternate {
            silent.min((self.started + self.silence_needed()).max(last_output_at + REDRAW_PAUSE))
        } else {
            silent
        }
    }

    /// Whether output silence may settle now: always under [`SilenceRule::PureSilence`];
    /// under [`SilenceRule::KernelIdle`], when a full-screen program has the alternate screen
    /// on (what it shows is what the caller needs, and such programs rarely end by
    /// themselves), when nothing but the shell's own prompt holds the terminal, or when the
    /// newest verdict about the current foreground says it is not busy (a verdict about a
    /// group that has since left, such as a finished `sleep`, does not count: the next probe
    /// decides).
    pub(super) fn silence_may_settle(&self, o: &Observation) -> bool {
        self.timing.silence_rule == SilenceRule::PureSilence
            || o.alternate_screen
            || !self.wants_probe(o.fg, o.prompt, o.tty_line_editing)
            || self
                .busy
                .is_some_and(|(group, busy)| Some(group) == o.fg && !busy)
    }
}
