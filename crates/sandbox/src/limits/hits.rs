//! When a session ran into its caps: the cgroups' event counters, and the lines that tell the
//! model so.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Where a session's cap events are counted, and the caps (for the notices).
#[derive(Debug, Default)]
pub(super) struct HitSources {
    /// The pids cgroup (its `pids.events` counts refused forks, v1 and v2) and its cap.
    pub(super) pids: Option<(PathBuf, u64)>,
    /// The memory cgroup, its cap, and where it counts out-of-memory kills.
    pub(super) memory: Option<(PathBuf, u64, OomCounter)>,
    /// The two counter files, each opened at its first read and re-read in place after.
    open: [OnceLock<File>; 2],
}

/// The file and key of the out-of-memory kill counter.
#[derive(Clone, Copy, Debug)]
pub(super) enum OomCounter {
    /// cgroup v2: `memory.events`, `oom_kill N`.
    V2,
    /// cgroup v1: `memory.oom_control`, `oom_kill N`.
    V1,
}

/// How often a session's caps stopped it so far (counters only grow).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LimitHits {
    /// Forks refused at the process cap.
    pub refused_forks: u64,
    /// Processes the kernel killed at the memory cap.
    pub oom_kills: u64,
}

impl HitSources {
    pub(super) fn read(&self) -> LimitHits {
        LimitHits {
            refused_forks: self.pids.as_ref().map_or(0, |(dir, _)| {
                counter(&self.open[0], || dir.join("pids.events"), "max")
            }),
            oom_kills: self.memory.as_ref().map_or(0, |(dir, _, file)| {
                let name = match file {
                    OomCounter::V2 => "memory.events",
                    OomCounter::V1 => "memory.oom_control",
                };
                counter(&self.open[1], || dir.join(name), "oom_kill")
            }),
        }
    }

    /// One line per cap that stopped something since `earlier`.
    pub(super) fn notices(&self, earlier: LimitHits, now: LimitHits) -> Vec<String> {
        self.stops(earlier, now)
            .into_iter()
            .map(|stop| {
                let advice = match stop {
                    CapStop::Pids(_) => "End what keeps starting processes",
                    CapStop::Memory(_) => {
                        "Use less memory at once (files in memory-backed file systems count \
                         too: a confined session's /tmp, /dev/shm and /run; delete those no \
                         longer needed)"
                    }
                };
                format!("[limit: {stop}. {advice}; the cap is the operator's setting]")
            })
            .collect()
    }

    /// Each cap that stopped something since `earlier`.
    pub(super) fn stops(&self, earlier: LimitHits, now: LimitHits) -> Vec<CapStop> {
        let mut stops = Vec::new();
        if let Some((_, cap)) = &self.pids
            && now.refused_forks > earlier.refused_forks
        {
            stops.push(CapStop::Pids(*cap));
        }
        if let Some((_, cap, _)) = &self.memory
            && now.oom_kills > earlier.oom_kills
        {
            stops.push(CapStop::Memory(*cap));
        }
        stops
    }
}

/// A cap that stopped something; shown as what happened (`this session reached its memory
/// cap of 4096 MiB; the kernel killed a process of it (out of memory)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapStop {
    /// Forks were refused at the process cap (the cap, in processes).
    Pids(u64),
    /// The kernel killed a process at the memory cap (the cap, in bytes).
    Memory(u64),
}

impl std::fmt::Display for CapStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Pids(cap) => write!(
                f,
                "this session reached its cap of {cap} processes; new processes were refused (fork: Resource temporarily unavailable)"
            ),
            Self::Memory(bytes) => write!(
                f,
                "this session reached its memory cap of {} MiB; the kernel killed a process of it (out of memory)",
                bytes / (1024 * 1024)
            ),
        }
    }
}

/// The `key N` value of a flat-keyed cgroup file; 0 when absent or unreadable. The file is
/// opened once (kept in `cell`) and then read with `pread` at offset 0, which makes the kernel
/// regenerate its text: a read per send costs one system call instead of a path walk, an open,
/// a read and a close.
fn counter(cell: &OnceLock<File>, path: impl FnOnce() -> PathBuf, key: &str) -> u64 {
    let file = match cell.get() {
        Some(file) => file,
        None => match File::open(path()) {
            Ok(file) => cell.get_or_init(|| file),
            Err(_) => return 0,
        },
    };
    // These files hold a few short lines (the longest, cgroup v2 `memory.events`, ~60 bytes).
    let mut buf = [0u8; 1024];
    let n = file.read_at(&mut buf, 0).unwrap_or(0);
    String::from_utf8_lossy(&buf[..n])
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn notices_name_the_cap_that_stopped_something() {
        let dir = std::env::temp_dir().join(format!("dsh-hits-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        fs::write(dir.join("pids.events"), "max 0\n").unwrap_or_else(|e| panic!("{e}"));
        fs::write(
            dir.join("memory.events"),
            "low 0\nhigh 0\nmax 7\noom 1\noom_kill 0\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let sources = HitSources {
            pids: Some((dir.clone(), 48)),
            memory: Some((dir.clone(), 256 << 20, OomCounter::V2)),
            ..HitSources::default()
        };
        let before = sources.read();
        assert_eq!(before, LimitHits::default());
        assert!(sources.notices(before, before).is_empty());
        fs::write(dir.join("pids.events"), "max 12\n").unwrap_or_else(|e| panic!("{e}"));
        fs::write(dir.join("memory.events"), "max 9\noom 2\noom_kill 1\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let after = sources.read();
        assert_eq!(
            after,
            LimitHits {
                refused_forks: 12,
                oom_kills: 1
            }
        );
        let notices = sources.notices(before, after).join("\n");
        // Removed before the snapshot is judged: a failing one leaves nothing behind.
        let _ = fs::remove_dir_all(&dir);
        insta::assert_snapshot!(notices);
    }
}
