//! [`TreeTracker`]: every process a session ever started (the seed's §3.10 step 1, going
//! further per direction item 5).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::PathBuf;

use super::cgroup::SessionCgroup;
use super::environ;
use super::procfs::{self, ProcessIdentity, StatInfo};
use super::reap::reap_zombie_child;
use super::scope::ProcessScope;

/// Tracks every process a session ever started, so teardown can find processes that left the
/// shell's tree (reparented orphans, `setsid`, `nohup`, `disown`, double forks).
///
/// A process is adopted when, at some [`refresh`](Self::refresh), it is:
/// - a transitive child (by ppid) of the root or of any process already adopted;
/// - a member of the root's POSIX session (`sid == root pid`);
/// - in the session's cgroup ([`attach_cgroup`](Self::attach_cgroup));
/// - an orphan re-parented to this (subreaper) process whose environment carries the session's
///   tag ([`with_environ_tag`](Self::with_environ_tag)); [`refresh_deep`](Self::refresh_deep)
///   checks the tag on every process started since the root.
///
/// Adoption is identity-fenced: nothing is adopted by pid or sid while the root's pid belongs
/// to a different process (PID reuse), and only processes started no earlier than the root
/// qualify. Adopted identities stay captured after they are reparented; identities that have
/// died are forgotten, so memory stays bounded by the live tree.
#[derive(Clone, Debug)]
pub struct TreeTracker {
    root: ProcessIdentity,
    host_pid: i32,
    seen: HashSet<ProcessIdentity>,
    cgroup_procs: Option<PathBuf>,
    environ_tag: Option<Vec<u8>>,
    /// Where a (non-deep) refresh looks.
    scope: ProcessScope,
}

impl TreeTracker {
    /// A tracker for the session whose top-level process (the shell) is `root`.
    #[must_use]
    pub fn new(root: ProcessIdentity) -> Self {
        Self {
            root,
            host_pid: rustix::process::getpid().as_raw_nonzero().get(),
            seen: HashSet::new(),
            cgroup_procs: None,
            environ_tag: None,
            scope: ProcessScope::everywhere(),
        }
    }

    /// Also adopts processes whose environment holds `name=value` exactly: set that variable
    /// (with a per-session random value) in the shell's environment at spawn, and daemons that
    /// left both the tree and the session (`setsid cmd &`, double forks) are still found
    /// without a cgroup, as long as they keep the inherited environment.
    #[must_use]
    pub fn with_environ_tag(mut self, name: &str, value: &str) -> Self {
        self.environ_tag = Some(format!("{name}={value}").into_bytes());
        self
    }

    /// Makes [`refresh`](Self::refresh) look only in `scope` (every session process must be
    /// born there); [`refresh_deep`](Self::refresh_deep) still scans every process.
    #[must_use]
    pub fn with_scope(mut self, scope: ProcessScope) -> Self {
        self.scope = scope;
        self
    }

    /// Also adopts every process in `cgroup` on each refresh.
    pub fn attach_cgroup(&mut self, cgroup: &SessionCgroup) {
        self.cgroup_procs = Some(cgroup.path().join("cgroup.procs"));
    }

    /// The session's top-level process.
    #[must_use]
    pub fn root(&self) -> ProcessIdentity {
        self.root
    }

    /// Rescans `/proc` (one pass over every `/proc/PID/stat`, about a millisecond; only the
    /// scope's members with [`with_scope`](Self::with_scope)) and adopts new session
    /// processes. Call it often (on every readiness poll): a child reparented
    /// away from the tree before any refresh saw it can only be found by session id, cgroup or
    /// environ tag.
    pub fn refresh(&mut self) {
        self.scan(false);
    }

    /// [`refresh`](Self::refresh) over every process, plus an environ-tag check of every
    /// process started since the root (not just orphans of this process). Each process's
    /// `environ` is read once while it lives, host-wide, whichever tracker asks; used by
    /// teardown.
    pub fn refresh_deep(&mut self) {
        self.scan(true);
    }

    /// Adopts specific pids (their current identities), e.g. members read from a cgroup.
    pub fn adopt_pids(&mut self, pids: &[i32]) {
        for &pid in pids {
            if let Some(s) = procfs::stat(pid).filter(|s| self.eligible(s)) {
                self.seen.insert(s.identity());
            }
        }
    }

    /// Still-alive captured identities, children first (youngest first), excluding the root.
    #[must_use]
    pub fn captured(&self) -> Vec<ProcessIdentity> {
        let mut ids: Vec<_> = self
            .seen
            .iter()
            .copied()
            .filter(ProcessIdentity::is_alive)
            .collect();
        sort_children_first(&mut ids);
        ids
    }

    /// Reaps captured processes that exited and were re-parented to this process (it is a
    /// child subreaper, see [`enable_child_subreaper`](super::enable_child_subreaper)), and
    /// returns how many. Safe to call at any time: only identities this tracker adopted are
    /// waited for, so statuses of children spawned directly by this process (the shell
    /// included) are never taken. Orphans that exited before any refresh saw them need
    /// [`reap_adopted_zombies`](super::reap_adopted_zombies).
    pub fn reap_zombies(&mut self) -> usize {
        let reaped: Vec<ProcessIdentity> = self
            .seen
            .iter()
            .copied()
            .filter(|id| reap_zombie_child(*id))
            .collect();
        for id in &reaped {
            self.seen.remove(id);
        }
        reaped.len()
    }

    /// A refresh (deep or in scope) that also returns the table it read, for a caller that
    /// acts on the same processes right after (teardown's signals).
    pub(crate) fn refresh_table(&mut self, deep: bool) -> Vec<StatInfo> {
        let table = if deep {
            procfs::scan_all()
        } else {
            self.scope.stats()
        };
        self.adopt_from(&table, deep);
        table
    }

    fn scan(&mut self, deep: bool) {
        self.refresh_table(deep);
    }

    fn adopt_from(&mut self, table: &[StatInfo], deep: bool) {
        let by_pid: HashMap<i32, &StatInfo> = table.iter().map(|s| (s.pid, s)).collect();
        let alive = |id: &ProcessIdentity| {
            by_pid
                .get(&id.pid)
                .is_some_and(|s| s.start_time == id.start_time)
        };
        if deep {
            environ::forget_all_but(alive);
        }

        // Forget identities that died (absent, or pid now held by someone else).
        self.seen.retain(alive);

        // Root fence: adopt by root pid / sid only if that pid is still the root, or free (a
        // free pid cannot be anyone's parent, and a session id stays reserved while the
        // session has members, so `sid == root pid` still means the root's session).
        let root_now = by_pid.get(&self.root.pid).map(|s| s.start_time);
        let root_pid_usable = root_now.is_none_or(|t| t == self.root.start_time);
        let mut fresh: Vec<ProcessIdentity> = Vec::new();

        if root_pid_usable {
            fresh.extend(
                table
                    .iter()
                    .filter(|s| s.session == self.root.pid && self.eligible(s))
                    .map(StatInfo::identity),
            );
        }
        if let Some(procs) = &self.cgroup_procs {
            let members = fs::read_to_string(procs).unwrap_or_default();
            fresh.extend(
                members
                    .lines()
                    .filter_map(|l| l.trim().parse::<i32>().ok())
                    .filter_map(|pid| by_pid.get(&pid).copied())
                    .filter(|s| self.eligible(s))
                    .map(StatInfo::identity),
            );
        }
        if let Some(tag) = &self.environ_tag {
            fresh.extend(
                table
                    .iter()
                    .filter(|s| (deep || s.ppid == self.host_pid) && self.eligible(s))
                    .filter(|s| {
                        !self.seen.contains(&s.identity()) && environ::has_entry(s.identity(), tag)
                    })
                    .map(StatInfo::identity),
            );
        }

        // Root check after the scan: if the pid was free and got reused meanwhile, the
        // session-id adoptions of this pass cannot be trusted.
        if root_now.is_none() && procfs::stat(self.root.pid).is_some() {
            tracing::debug!(
                root = self.root.pid,
                "root pid reused during scan; dropping this pass"
            );
            return;
        }
        self.seen.extend(fresh);

        // Transitive children of the root and of every adopted process, to a fixed point.
        let mut children: HashMap<i32, Vec<&StatInfo>> = HashMap::new();
        for s in table {
            children.entry(s.ppid).or_default().push(s);
        }
        let mut frontier: Vec<ProcessIdentity> = self.seen.iter().copied().collect();
        if root_pid_usable {
            frontier.push(self.root);
        }
        while let Some(parent) = frontier.pop() {
            for child in children.get(&parent.pid).into_iter().flatten() {
                let id = child.identity();
                if child.start_time >= parent.start_time
                    && self.eligible(child)
                    && self.seen.insert(id)
                {
                    frontier.push(id);
                }
            }
        }
    }

    fn eligible(&self, s: &StatInfo) -> bool {
        s.pid != self.root.pid && s.pid != self.host_pid && s.start_time >= self.root.start_time
    }
}

/// Children first: a child always starts no earlier than its parent, so youngest first is a
/// valid order (ties broken by pid, highest first).
fn sort_children_first(ids: &mut [ProcessIdentity]) {
    ids.sort_by_key(|id| std::cmp::Reverse((id.start_time, id.pid)));
}
