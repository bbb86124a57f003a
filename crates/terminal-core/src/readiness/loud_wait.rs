//! A program blocked reading the terminal while output keeps coming: a background job's log
//! over its prompt (`(while :; do echo log; done) &`, a chatty server started with `&`), which
//! may never go quiet. Its read is seen again and again, and is no less a wait for input.

use std::time::Duration;

use super::{Observation, Readiness};

/// How long probes must keep finding the same program blocked in a plain read of the terminal,
/// output coming all the while, before its wait counts as one for input.
pub(crate) const LOUD_WAIT_HOLD: Duration = Duration::from_secs(1);

impl Readiness {
    /// Whether group `fg`'s wait for input (`waiting`, a probe's verdict) has held for
    /// [`LOUD_WAIT_HOLD`] while output kept coming: a plain blocking read of the terminal (no
    /// other event sources, no timeout: a program still at work between two steps of a timer
    /// or an event loop is neither), by a program other than the shell (whose prompt its
    /// marks tell), with no probe finding it away meanwhile.
    pub(super) fn loud_wait_held(&mut self, waiting: bool, fg: i32, o: &Observation) -> bool {
        let plain = waiting
            && fg != self.shell_pgid
            && !o.fg_wait_among_others
            && o.fg_wakes_in.is_none()
            && o.fg_key_wakes_in.is_none();
        if !plain {
            self.loud_wait_since = None;
            return false;
        }
        let (group, since) = *self.loud_wait_since.get_or_insert((fg, o.now));
        if group != fg {
            self.loud_wait_since = Some((fg, o.now));
            return false;
        }
        o.now >= since + LOUD_WAIT_HOLD
    }
}
