//! The exit statuses the shell's `D` prompt marks carried, counted for a result's span: how
//! many commands finished, how many failed, and where the failed ones stand, exact however
//! many commands one send ran, in bounded memory.

use std::collections::VecDeque;

use crate::types::{EarlierExits, EarlierFailure};

/// Failed commands remembered with their positions (the newest ones); their count is exact
/// beyond it. Bounds a session's memory.
pub(crate) const FAILURES_KEPT: usize = crate::types::EARLIER_FAILURES_KEPT;

/// Where the exit log stood at one moment (a result's start): compared with a later moment it
/// gives the commands that finished in between.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ExitTally {
    /// `D` marks so far (with or without a status).
    marks: u64,
    /// `D` marks that carried a status.
    statuses: u64,
    /// Statuses that were not 0.
    failed: u64,
}

/// Every `D` mark's status, as counts plus the newest [`FAILURES_KEPT`] failures.
#[derive(Clone, Debug, Default)]
pub(crate) struct ExitLog {
    tally: ExitTally,
    /// The newest mark's status (`None`: it carried none, or there was no mark).
    last: Option<i32>,
    /// `(status number, status)` of failed commands, oldest first; status numbers count the
    /// marks that carried a status, from 1.
    failures: VecDeque<(u64, i32)>,
}

impl ExitLog {
    /// Records one `D` mark.
    pub(crate) fn record(&mut self, status: Option<i32>) {
        self.tally.marks += 1;
        self.last = status;
        let Some(code) = status else { return };
        self.tally.statuses += 1;
        if code != 0 {
            self.tally.failed += 1;
            if self.failures.len() == FAILURES_KEPT {
                self.failures.pop_front();
            }
            self.failures.push_back((self.tally.statuses, code));
        }
    }

    /// The newest recorded status when a mark was recorded since `from`.
    pub(crate) fn last_since(&self, from: ExitTally) -> Option<i32> {
        (self.tally.marks > from.marks)
            .then_some(self.last)
            .flatten()
    }

    /// Where the log stands now.
    pub(crate) fn tally(&self) -> ExitTally {
        self.tally
    }

    /// The commands that finished since `from`, without the newest one when `own_last` (the
    /// result reports that one's status as its own).
    pub(crate) fn since(&self, from: ExitTally, own_last: bool) -> EarlierExits {
        let now = self.tally;
        let mut statuses = now.statuses.saturating_sub(from.statuses);
        let mut failed = now.failed.saturating_sub(from.failed);
        let mut last_failure_dropped = false;
        if own_last
            && now.marks > from.marks
            && let Some(code) = self.last
        {
            statuses = statuses.saturating_sub(1);
            if code != 0 {
                failed = failed.saturating_sub(1);
                last_failure_dropped = true;
            }
        }
        let newest = self.failures.len() - usize::from(last_failure_dropped);
        let failures = self
            .failures
            .iter()
            .take(newest)
            .filter(|&&(number, _)| number > from.statuses)
            .map(|&(number, exit_code)| EarlierFailure {
                position: number - from.statuses,
                exit_code,
            })
            .collect();
        EarlierExits {
            finished: statuses,
            failed,
            failures,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(statuses: &[Option<i32>]) -> ExitLog {
        let mut log = ExitLog::default();
        for &s in statuses {
            log.record(s);
        }
        log
    }

    fn failure(position: u64, exit_code: i32) -> EarlierFailure {
        EarlierFailure {
            position,
            exit_code,
        }
    }

    #[test]
    fn counts_and_positions_since_a_tally() {
        let mut l = log(&[Some(1), Some(0)]);
        let from = l.tally();
        for s in [Some(0), Some(2), None, Some(0), Some(3)] {
            l.record(s);
        }
        let all = l.since(from, false);
        assert_eq!((all.finished, all.failed), (4, 2));
        assert_eq!(all.failures, vec![failure(2, 2), failure(4, 3)]);
        // The newest is the result's own: a failure drops out of the counts and the list.
        let earlier = l.since(from, true);
        assert_eq!((earlier.finished, earlier.failed), (3, 1));
        assert_eq!(earlier.failures, vec![failure(2, 2)]);
        // A newest mark without a status leaves the others alone.
        l.record(None);
        assert_eq!(l.since(from, true), l.since(from, false));
        // Nothing since: nothing to drop.
        let now = l.tally();
        assert_eq!(l.since(now, true), EarlierExits::default());
    }

    #[test]
    fn counts_stay_exact_beyond_the_kept_failures() {
        let mut l = log(&[Some(0)]);
        let from = l.tally();
        l.record(Some(7));
        for _ in 0..5000 {
            l.record(Some(0));
        }
        let failures = u64::try_from(FAILURES_KEPT).unwrap() + 10;
        for _ in 0..failures {
            l.record(Some(1));
        }
        l.record(Some(0));
        let e = l.since(from, true);
        assert_eq!((e.finished, e.failed), (5001 + failures, 1 + failures));
        // The newest failures are kept with their positions; the first one's count is not
        // lost with its position.
        assert_eq!(e.failures.len(), FAILURES_KEPT);
        assert_eq!(e.failures[0].position, 5002 + 10);
        assert_eq!(e.failures.last().unwrap().position, 5001 + failures);
    }
}
