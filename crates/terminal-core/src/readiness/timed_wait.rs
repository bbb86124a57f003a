//! The timed waits of the stdin tier of [`Readiness`]: a program waiting on the terminal with
//! a timeout settles a send once its timer passed with nothing printed (see the module docs of
//! `readiness`), and a key reader's such wait once its output appends no rows.

use std::time::{Duration, Instant};

use super::{KEY_TIMER_LOOK, Observation, Readiness, TIMED_WAIT_MARGIN, TIMED_WAIT_SILENCE_LEAD};

impl Readiness {
    /// Whether a terminal wait of `fg` (`waiting`) may settle by the rule for waits with a
    /// timeout (see the stdin tier in [`Readiness::evaluate`]); true for any other wait.
    /// Tracks since when such a wait has been seen.
    pub(super) fn timed_wait_passed(&mut self, waiting: bool, fg: i32, o: &Observation) -> bool {
        let unprompted = waiting
            && !o.alternate_screen
            && !(o.prompt_at_cursor || o.question_at_cursor || self.prompt_seen);
        if let Some(wakes_in) = o.fg_key_wakes_in.filter(|_| unprompted) {
            self.timed_wait_since = None;
            return self.key_timer_passed(fg, wakes_in, o);
        }
        self.key_wait_since = None;
        let timed = unprompted && o.fg_wakes_in.is_some();
        let Some(wakes_in) = o.fg_wakes_in.filter(|_| timed) else {
            self.timed_wait_since = None;
            return true;
        };
        let since = match self.timed_wait_since {
            Some((group, at)) if group == fg && at >= o.last_output_at => at,
            _ => o.now,
        };
        self.timed_wait_since = Some((fg, since));
        // The timer's step passed, or the output has been quiet for nearly the idle window
        // (a probe still comes before silence settles the send as `inferred_idle`).
        let by_timer = since.checked_add(wakes_in.saturating_add(TIMED_WAIT_MARGIN));
        let by_quiet = o.last_output_at
            + self
                .silence_needed()
                .saturating_sub(TIMED_WAIT_SILENCE_LEAD);
        o.now >= by_timer.map_or(by_quiet, |at| at.min(by_quiet))
    }

    /// [`Readiness::timed_wait_passed`] for a key reader's wait with a timeout (`wakes_in`, see
    /// [`Observation::fg_key_wakes_in`]), no prompt before the cursor on the main screen. A
    /// redraw in place (`top`'s frames: the cursor homed, the rows rewritten) is a key
    /// reader's screen, not work: only output that took the cursor below every row it reached
    /// since the wait was first seen (a line printed, the screen scrolled), or that changed
    /// the text before the cursor on that lowest row (a progress line redrawn with `\r`
    /// beside a read for `q`, as ffmpeg prints), starts the wait over.
    /// It passes once its timeout (at most [`KEY_TIMER_LOOK`]) and the margin have passed with
    /// no row appended; for a send or poll with its own deadline, once no row was appended
    /// for nearly the idle window (a program quiet between steps of its work, `flutter run`
    /// building, polling for `q` every 100 ms meanwhile, is waited for as silence would).
    fn key_timer_passed(&mut self, fg: i32, wakes_in: Duration, o: &Observation) -> bool {
        let start_over = self.key_wait_since.is_none_or(|k| {
            k.group != fg
                // A row appended below every row the cursor reached.
                || o.cursor_row.zip(k.lowest).is_some_and(|(row, lowest)| row > lowest)
                || (o.cursor_row.is_some() && k.lowest.is_none())
                // Its line redrawn in place: new text before the cursor on that lowest row,
                // and no sequence that moves the cursor up since (`top`'s frames home it, and
                // its cursor may rest after a row it rewrote).
                || (o.cursor_row.is_some()
                    && o.cursor_row == k.lowest
                    && o.cursor_text.is_some()
                    && o.cursor_text != k.text
                    && o.cursor_jumps == k.jumps)
        });
        let wait = match self.key_wait_since {
            Some(k) if !start_over => KeyWait {
                text: o.cursor_text.or(k.text),
                jumps: o.cursor_jumps,
                ..k
            },
            _ => KeyWait {
                group: fg,
                since: o.now,
                lowest: o.cursor_row,
                text: o.cursor_text,
                jumps: o.cursor_jumps,
            },
        };
        self.key_wait_since = Some(wait);
        // From the output that appended the newest row, when a probe saw it only later (it
        // must come before silence would settle the send as `inferred_idle`).
        let by_quiet = wait.since.min(o.last_output_at)
            + self
                .silence_needed()
                .saturating_sub(TIMED_WAIT_SILENCE_LEAD);
        if self.timing.waits_out_timed_waits {
            return o.now >= by_quiet;
        }
        let by_timer = wait.since + wakes_in.min(KEY_TIMER_LOOK) + TIMED_WAIT_MARGIN;
        o.now >= by_timer.min(by_quiet)
    }
}

/// A key reader's terminal wait with a timeout, as [`Readiness::key_timer_passed`] follows it.
#[derive(Clone, Copy, Debug)]
pub(super) struct KeyWait {
    /// The group that waits.
    group: i32,
    /// Since when, with no row appended nor its line redrawn.
    since: Instant,
    /// The lowest row the cursor reached since (`Observation::cursor_row`).
    lowest: Option<u64>,
    /// The newest look's `Observation::cursor_text`.
    text: Option<u64>,
    /// The newest look's `Observation::cursor_jumps`.
    jumps: u64,
}
