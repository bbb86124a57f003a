//! [`CpuWatch`]: whether a foreground group keeps computing between two probes, told by the
//! CPU time its processes used (the children they waited for included). A shell loop that
//! runs one short-lived command after another (`for f in *; do x=$(cmd "$f"); done`) spends
//! most moments of its work waiting for a child, or between two, so a single look at its
//! threads' states often finds none running; its CPU time grows all the same.

use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// Least share of the wall time between two probes that a group's CPU time must grow by for
/// the group to count as computing: a loop of commands uses a whole core, an idle runtime's
/// housekeeping (a garbage collector, a JIT compiler's thread) a few percent.
const COMPUTING_SHARE: f64 = 0.25;

/// Least growth, in clock ticks, that counts (one tick is the accounting's unit, 10 ms at
/// the usual 100 Hz): a single tick can be a rounding of work done before the first probe.
const MIN_TICKS: u64 = 2;

/// One probe's reading of a group's CPU time.
#[derive(Clone, Copy, Debug)]
struct CpuSample {
    pgid: i32,
    ticks: u64,
    at: Instant,
}

/// The last CPU time reading of the session's foreground group (see the module docs).
#[derive(Debug, Default)]
pub(in crate::session) struct CpuWatch(Mutex<Option<CpuSample>>);

impl CpuWatch {
    /// Notes that group `pgid` had used `ticks` clock ticks of CPU time `at` a probe, and
    /// says whether it used at least [`COMPUTING_SHARE`] of the time since the previous
    /// reading of the same group (and [`MIN_TICKS`]); false with no such reading.
    pub(in crate::session) fn computing(&self, pgid: i32, ticks: u64, at: Instant) -> bool {
        let now = CpuSample { pgid, ticks, at };
        let Some(last) = self.0.lock().replace(now).filter(|last| last.pgid == pgid) else {
            return false;
        };
        let grown = ticks.saturating_sub(last.ticks);
        let per_second = rustix::param::clock_ticks_per_second().max(1);
        let used = Duration::from_secs_f64(grown as f64 / per_second as f64);
        grown >= MIN_TICKS
            && used.as_secs_f64() >= at.duration_since(last.at).as_secs_f64() * COMPUTING_SHARE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_beside_the_wall_time_between_readings_of_one_group_tells() {
        let watch = CpuWatch::default();
        let t0 = Instant::now();
        let per_second = rustix::param::clock_ticks_per_second().max(1);
        // No earlier reading: nothing to tell from.
        assert!(!watch.computing(7, 100, t0));
        // A whole core for a second.
        assert!(watch.computing(7, 100 + per_second, t0 + Duration::from_secs(1)));
        // A tenth of a core: housekeeping.
        assert!(!watch.computing(
            7,
            100 + per_second + per_second / 10,
            t0 + Duration::from_secs(2)
        ));
        // Another group's reading does not count for this one.
        assert!(!watch.computing(9, 10 * per_second, t0 + Duration::from_secs(3)));
        // Less than the least growth, however short the time.
        assert!(!watch.computing(
            9,
            10 * per_second + MIN_TICKS - 1,
            t0 + Duration::from_secs(3)
        ));
        // Time counted down (a member that left took its ticks along): not computing.
        assert!(!watch.computing(9, 0, t0 + Duration::from_secs(4)));
    }
}
