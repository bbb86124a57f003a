//! Which mechanism enforces the caps on this host ([`LimitMechanism::detect`]), and the sweep
//! of cgroups that hosts which died left behind.
//!
//! Preference: the cgroup version that covers more of the two controllers (`pids`,
//! `memory`), cgroup v2 on a tie; then rlimits through `prlimit`; else nothing.
//!
//! cgroup v2 counts only where the controllers are delegated to us: a writable cgroup2
//! directory (this process's own cgroup, else the mount's root) whose `cgroup.subtree_control`
//! enables them for its children, or can be made to (the controller is in its
//! `cgroup.controllers` and the directory holds no process, which the kernel requires before
//! it hands a controller down; a mount's root is exempt).

use std::fs;
use std::path::{Path, PathBuf};

use super::{DIR_PREFIX, LimitMechanism, PRLIMIT};

/// The controllers the caps use.
const CONTROLLERS: [&str; 2] = ["pids", "memory"];

pub(super) fn detect_uncached() -> LimitMechanism {
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let own = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let v2 = v2_base(&mountinfo, &own);
    let v1 = (
        v1_base(&mountinfo, &own, "pids"),
        v1_base(&mountinfo, &own, "memory"),
    );
    let mechanism = choose(v2, v1, Path::new(PRLIMIT).is_file());
    match &mechanism {
        LimitMechanism::CgroupV2 { base, .. } => sweep_dead_hosts(base),
        LimitMechanism::CgroupV1 { pids, memory } => {
            for dir in pids.iter().chain(memory.iter()) {
                sweep_dead_hosts(dir);
            }
        }
        LimitMechanism::Rlimit | LimitMechanism::Unavailable => {}
    }
    mechanism
}

/// The preference order of the module docs, over what the host offers.
fn choose(
    v2: Option<(PathBuf, bool, bool)>,
    v1: (Option<PathBuf>, Option<PathBuf>),
    prlimit: bool,
) -> LimitMechanism {
    let v2_count = v2
        .as_ref()
        .map_or(0, |(_, p, m)| usize::from(*p) + usize::from(*m));
    let v1_count = usize::from(v1.0.is_some()) + usize::from(v1.1.is_some());
    match v2 {
        Some((base, pids, memory)) if v2_count > 0 && v2_count >= v1_count => {
            LimitMechanism::CgroupV2 { base, pids, memory }
        }
        _ if v1_count > 0 => LimitMechanism::CgroupV1 {
            pids: v1.0,
            memory: v1.1,
        },
        _ if prlimit => LimitMechanism::Rlimit,
        _ => LimitMechanism::Unavailable,
    }
}

/// The cgroup2 directory session cgroups go under, with whether `pids` and `memory` are
/// delegated there (see the module docs). Enables a delegable controller in
/// `cgroup.subtree_control` on the way.
fn v2_base(mountinfo: &str, own: &str) -> Option<(PathBuf, bool, bool)> {
    let own_path = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .unwrap_or("/")
        .trim();
    for line in mountinfo.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        if right.split_ascii_whitespace().next() != Some("cgroup2") {
            continue;
        }
        let f: Vec<&str> = left.split_ascii_whitespace().collect();
        let (Some(root), Some(point), Some(opts)) = (f.get(3), f.get(4), f.get(5)) else {
            continue;
        };
        if opts.split(',').any(|o| o == "ro") {
            continue;
        }
        let point = PathBuf::from(point);
        let mut candidates = Vec::new();
        if let Ok(rel) = Path::new(own_path).strip_prefix(root)
            && !rel.as_os_str().is_empty()
        {
            candidates.push(point.join(rel));
        }
        candidates.push(point.clone());
        for dir in candidates {
            if !is_writable(&dir) {
                continue;
            }
            let is_root = dir == point;
            let [pids, memory] = CONTROLLERS.map(|c| delegate(&dir, c, is_root));
            if pids || memory {
                return Some((dir, pids, memory));
            }
        }
    }
    None
}

/// Whether `controller` reaches the children of `dir`, enabling it there when it may.
fn delegate(dir: &Path, controller: &str, is_root: bool) -> bool {
    let has = |file: &str| {
        fs::read_to_string(dir.join(file))
            .unwrap_or_default()
            .split_ascii_whitespace()
            .any(|c| c == controller)
    };
    if has("cgroup.subtree_control") {
        return true;
    }
    if !has("cgroup.controllers") || !(is_root || super::members(dir).is_empty()) {
        return false;
    }
    fs::write(dir.join("cgroup.subtree_control"), format!("+{controller}")).is_ok()
}

/// The writable directory of `controller`'s v1 hierarchy that session cgroups go under: this
/// process's own cgroup there when writable (so the host's own limits still apply), else the
/// hierarchy's root.
fn v1_base(mountinfo: &str, own: &str, controller: &str) -> Option<PathBuf> {
    let (root, point) = mountinfo.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let mut r = right.split_ascii_whitespace();
        if r.next()? != "cgroup" {
            return None;
        }
        let opts = r.nth(1)?;
        if !opts.split(',').any(|o| o == controller) {
            return None;
        }
        let f: Vec<&str> = left.split_ascii_whitespace().collect();
        if f.get(5)?.split(',').any(|o| o == "ro") {
            return None;
        }
        Some((PathBuf::from(f.get(3)?), PathBuf::from(f.get(4)?)))
    })?;
    let own_path = own.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let _ = parts.next()?;
        parts
            .next()?
            .split(',')
            .any(|c| c == controller)
            .then(|| parts.next())
            .flatten()
    });
    let mut candidates = Vec::new();
    if let Some(rel) = own_path.and_then(|p| Path::new(p).strip_prefix(&root).ok()) {
        candidates.push(point.join(rel));
    }
    candidates.push(point);
    candidates.into_iter().find(|dir| is_writable(dir))
}

pub(super) fn is_writable(dir: &Path) -> bool {
    use rustix::fs::{Access, access};
    dir.join("cgroup.procs").is_file() && access(dir, Access::WRITE_OK | Access::EXEC_OK).is_ok()
}

/// Kills and removes `dsh-<pid>-*` directories whose host process is gone.
pub(super) fn sweep_dead_hosts(base: &Path) {
    let Ok(entries) = fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(DIR_PREFIX))
            .and_then(|n| n.split_once('-'))
            .and_then(|(p, _)| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let dir = entry.path();
        super::kill_members(&dir);
        if fs::remove_dir(&dir).is_ok() {
            tracing::info!(dir = %dir.display(), "removed a limit cgroup left by a dead host");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_v1_hierarchies_from_mountinfo() {
        let info = "35 31 0:32 / /nonexistent/memory rw,relatime - cgroup cgroup rw,memory\n\
                    39 31 0:36 / /nonexistent/pids rw,relatime - cgroup cgroup rw,pids\n\
                    41 31 0:38 / /nonexistent/unified rw,relatime - cgroup2 cgroup2 rw\n";
        // Not writable (they do not exist), so nothing is chosen.
        assert_eq!(v1_base(info, "8:pids:/\n", "pids"), None);
        assert_eq!(v1_base(info, "", "cpu"), None);
    }

    /// A fake cgroup2 tree: `dir` with the given controller files and processes.
    fn cgroup_dir(dir: &Path, controllers: &str, subtree: &str, procs: &str) {
        fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
        fs::write(dir.join("cgroup.controllers"), controllers).unwrap_or_else(|e| panic!("{e}"));
        fs::write(dir.join("cgroup.subtree_control"), subtree).unwrap_or_else(|e| panic!("{e}"));
        fs::write(dir.join("cgroup.procs"), procs).unwrap_or_else(|e| panic!("{e}"));
    }

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("dsh-limits-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn v2_is_used_only_where_the_controllers_are_delegated() {
        let mount = scratch("v2");
        let info = format!(
            "41 31 0:38 / {} rw,relatime - cgroup2 cgroup2 rw\n",
            mount.display()
        );
        // This machine's case: a writable cgroup2 without the controllers (they are bound to
        // v1 hierarchies): not used.
        cgroup_dir(&mount, "hugetlb", "", "1\n");
        assert_eq!(v2_base(&info, "0::/\n"), None);
        // Our own cgroup enables both for its children (a delegated subtree).
        let own = mount.join("user.slice/agent.service");
        cgroup_dir(&own, "cpu pids memory", "pids memory", "1234\n");
        assert_eq!(
            v2_base(&info, "0::/user.slice/agent.service\n"),
            Some((own.clone(), true, true))
        );
        // Delegated but not enabled, and our own processes sit in it: the kernel would refuse
        // to enable them, so only the mount's root (exempt) is left, which offers memory.
        cgroup_dir(&own, "pids memory", "", "1234\n");
        cgroup_dir(&mount, "memory", "", "1\n");
        assert_eq!(
            v2_base(&info, "0::/user.slice/agent.service\n"),
            Some((mount.clone(), false, true))
        );
        let _ = fs::remove_dir_all(&mount);
    }

    #[test]
    fn the_version_covering_more_controllers_wins_then_rlimits() {
        let p = |s: &str| Some(PathBuf::from(s));
        let v2 = Some((PathBuf::from("/v2"), true, true));
        assert_eq!(
            choose(v2.clone(), (p("/p"), p("/m")), true),
            LimitMechanism::CgroupV2 {
                base: PathBuf::from("/v2"),
                pids: true,
                memory: true
            }
        );
        let memory_only = Some((PathBuf::from("/v2"), false, true));
        assert_eq!(
            choose(memory_only, (p("/p"), p("/m")), true),
            LimitMechanism::CgroupV1 {
                pids: p("/p"),
                memory: p("/m")
            }
        );
        assert_eq!(choose(None, (None, None), true), LimitMechanism::Rlimit);
        assert_eq!(
            choose(None, (None, None), false),
            LimitMechanism::Unavailable
        );
    }
}
