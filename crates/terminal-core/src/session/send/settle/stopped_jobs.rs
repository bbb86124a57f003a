//! The shell's jobs found stopped as a send settles (see `SettleFacts::stopped_jobs`), told by
//! `/proc` (a child of the shell stopped by job control, in a process group of its own), not
//! by the shell's `Stopped` line; and the groups seen in the foreground while the send ran,
//! which tell a job stopped there (the Ctrl-Z key) from one stopped in the background.

use crate::process::StatInfo;
use crate::readiness::Settle;

use super::super::super::result::StoppedJob;
use super::super::super::shared::Shared;
use super::super::SendOp;

impl SendOp {
    /// Notes `fg`, the group holding the terminal, among those seen while the send ran.
    pub(in crate::session::send) fn note_foreground(&self, fg: Option<i32>) {
        if let Some(fg) = fg {
            let mut span = self.span();
            if !span.foregrounds_seen.contains(&fg) {
                span.foregrounds_seen.push(fg);
            }
        }
    }

    /// The shell's jobs stopped now that no result said were stopped before, as the send
    /// settles for `reason`; they are remembered as said, unless nobody sees this result
    /// (`discarded`: the next one says them). Blocking `/proc` reads (the shell's list of
    /// children, and a `stat` of each).
    pub(super) fn newly_stopped_jobs(&self, reason: Settle, discarded: bool) -> Vec<StoppedJob> {
        let shared = &self.shared;
        if reason == Settle::Exit || discarded {
            return Vec::new();
        }
        let stopped = stopped_groups(shared);
        let new: Vec<i32> = {
            let mut st = shared.lock();
            let new = stopped
                .iter()
                .copied()
                .filter(|group| !st.stopped_jobs_seen.contains(group))
                .collect();
            st.stopped_jobs_seen = stopped;
            new
        };
        let seen = self.span().foregrounds_seen.clone();
        new.into_iter()
            .map(|pgid| StoppedJob {
                program: crate::process::group_name(pgid).unwrap_or_else(|| "a job".to_owned()),
                was_in_foreground: seen.contains(&pgid),
            })
            .collect()
    }
}

/// The process groups, other than the shell's own, of the shell's children that job control
/// stopped (state `T`; not `t`, a tracer's stop): its jobs, as the shell's own `wait` sees
/// them. The children are listed by the kernel, else looked for among the session's processes.
fn stopped_groups(shared: &Shared) -> Vec<i32> {
    let shell = shared.shell_pgid();
    let children: Vec<StatInfo> =
        match std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")) {
            Ok(list) => list
                .split_ascii_whitespace()
                .filter_map(|pid| pid.parse::<i32>().ok())
                .filter_map(crate::process::stat)
                .collect(),
            Err(_) => shared
                .processes()
                .into_iter()
                .filter(|s| s.ppid == shell)
                .collect(),
        };
    let mut groups = Vec::new();
    for child in children {
        if child.state == 'T' && child.pgrp != shell && !groups.contains(&child.pgrp) {
            groups.push(child.pgrp);
        }
    }
    groups
}
