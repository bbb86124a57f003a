//! [`ProcessScope`]: where a session's processes are looked for.
//!
//! A full `/proc` scan reads every process's `stat` on the machine (about a millisecond for a
//! few hundred processes); done per probe by many sessions at once, it is most of what a busy
//! host spends. A session whose processes are all born in one cgroup (a launcher joined it
//! before the shell ran) is scanned through that cgroup's member list instead: the cost
//! follows the session's own processes, not the machine's.

use std::path::Path;
use std::sync::Arc;

use super::procfs::{self, StatInfo};

/// Where to look for one session's processes: its cgroup's members, or every process.
#[derive(Clone, Debug, Default)]
pub struct ProcessScope {
    /// The session cgroup's `cgroup.procs`; `None` scans all of `/proc`.
    procs: Option<Arc<Path>>,
}

impl ProcessScope {
    /// Every process in `/proc` (a session without a cgroup).
    #[must_use]
    pub fn everywhere() -> Self {
        Self::default()
    }

    /// The members of the cgroup directory `dir` (v1 or v2), which every process of the
    /// session must have been born in: the session's first process joined it before it ran
    /// anything. A process can leave a cgroup only by writing to another one's
    /// `cgroup.procs`; when the list cannot be read (the cgroup is gone), the scan falls back
    /// to every process.
    #[must_use]
    pub fn cgroup_members(dir: &Path) -> Self {
        Self {
            procs: Some(dir.join("cgroup.procs").into()),
        }
    }

    /// `stat` of every process in scope (processes that vanish mid-scan are skipped).
    pub(crate) fn stats(&self) -> Vec<StatInfo> {
        self.procs
            .as_deref()
            .and_then(procfs::scan_listed)
            .unwrap_or_else(procfs::scan_all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_list_is_read_instead_of_every_process() {
        let dir = std::env::temp_dir().join(format!("dsh-scope-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let me = std::process::id() as i32;
        // A listed pid that does not exist (pid_max is below 2^22) is skipped.
        std::fs::write(dir.join("cgroup.procs"), format!("{me}\n4194305\n")).unwrap();
        let listed: Vec<i32> = ProcessScope::cgroup_members(&dir)
            .stats()
            .iter()
            .map(|s| s.pid)
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(listed, vec![me]);
    }

    #[test]
    fn an_unreadable_member_list_falls_back_to_every_process() {
        let gone = std::env::temp_dir().join(format!("dsh-scope-gone-{}", std::process::id()));
        let all = ProcessScope::cgroup_members(&gone).stats();
        let me = std::process::id() as i32;
        assert!(all.iter().any(|s| s.pid == me));
        // More than this process: the scan covered the machine.
        assert!(all.iter().any(|s| s.pid != me));
        assert!(
            ProcessScope::everywhere()
                .stats()
                .iter()
                .any(|s| s.pid == me)
        );
    }
}
