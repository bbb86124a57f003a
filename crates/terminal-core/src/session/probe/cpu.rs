//! [`CpuWatch`]: whether a foreground group keeps computing between two probes, told by the
//! CPU time its processes used (the children they waited for included) and by the children
//! they reaped. A shell loop that runs one short-lived command after another
//! (`for f in *; do x=$(cmd "$f"); done`) spends most moments of its work waiting for a
//! child, or between two, so a single look at its threads' states often finds none running;
//! its CPU time grows all the same, and on a loaded machine, where it gets little CPU, its
//! reaped children's page faults still do.

use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::process::GroupUsage;

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
    usage: GroupUsage,
    at: Instant,
}

/// The last CPU time reading of the session's foreground group (see the module docs).
#[derive(Debug, Default)]
pub(in crate::session) struct CpuWatch(Mutex<Option<CpuSample>>);

impl CpuWatch {
    /// Notes that group `pgid` had used `usage` `at` a probe, and says whether, since the
    /// previous reading of the same group, it used at least [`COMPUTING_SHARE`] of the time
    /// (and [`MIN_TICKS`]) or reaped a child (its children's page faults grew); false with no
    /// such reading.
    pub(in crate::session) fn computing(&self, pgid: i32, usage: GroupUsage, at: Instant) -> bool {
        let now = CpuSample { pgid, usage, at };
        let Some(last) = self.0.lock().replace(now).filter(|last| last.pgid == pgid) else {
            return false;
        };
        if usage.child_faults > last.usage.child_faults {
            return true;
        }
        let grown = usage.cpu_ticks.saturating_sub(last.usage.cpu_ticks);
        let per_second = rustix::param::clock_ticks_per_second().max(1);
        let used = Duration::from_secs_f64(grown as f64 / per_second as f64);
        grown >= MIN_TICKS
            && used.as_secs_f64() >= at.duration_since(last.at).as_secs_f64() * COMPUTING_SHARE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticks(cpu_ticks: u64) -> GroupUsage {
        GroupUsage {
            cpu_ticks,
            child_faults: 0,
        }
    }

    #[test]
    fn growth_beside_the_wall_time_between_readings_of_one_group_tells() {
        let watch = CpuWatch::default();
        let t0 = Instant::now();
        let per_second = rustix::param::clock_ticks_per_second().max(1);
        // No earlier reading: nothing to tell from.
        assert!(!watch.computing(7, ticks(100), t0));
        // A whole core for a second.
        assert!(watch.computing(7, ticks(100 + per_second), t0 + Duration::from_secs(1)));
        // A tenth of a core: housekeeping.
        assert!(!watch.computing(
            7,
            ticks(100 + per_second + per_second / 10),
            t0 + Duration::from_secs(2)
        ));
        // Another group's reading does not count for this one.
        assert!(!watch.computing(9, ticks(10 * per_second), t0 + Duration::from_secs(3)));
        // Less than the least growth, however short the time.
        assert!(!watch.computing(
            9,
            ticks(10 * per_second + MIN_TICKS - 1),
            t0 + Duration::from_secs(3)
        ));
        // Time counted down (a member that left took its ticks along): not computing.
        assert!(!watch.computing(9, ticks(0), t0 + Duration::from_secs(4)));
    }

    #[test]
    fn a_child_reaped_between_readings_tells_however_little_cpu_it_got() {
        let watch = CpuWatch::default();
        let t0 = Instant::now();
        let at = |cpu_ticks, child_faults| GroupUsage {
            cpu_ticks,
            child_faults,
        };
        assert!(!watch.computing(7, at(100, 500), t0));
        // Under load: one tick in a second, but children were reaped.
        assert!(watch.computing(7, at(101, 620), t0 + Duration::from_secs(1)));
        // None since: idle.
        assert!(!watch.computing(7, at(101, 620), t0 + Duration::from_secs(2)));
    }
}
