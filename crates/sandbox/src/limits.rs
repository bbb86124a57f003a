//! [`ResourceLimits`]: a cap on the processes and memory of each session.
//!
//! Mechanisms, best first, chosen once per host process ([`LimitMechanism::detect`]):
//! - **cgroup v1** `pids` / `memory` hierarchies (writable ones): a directory per session,
//!   `dsh-<hostpid>-<n>-<session>`, with `pids.max` and `memory.limit_in_bytes` (plus
//!   `memory.memsw.limit_in_bytes` where swap accounting exists). The session's first process
//!   joins it before it runs the shell, so everything the session starts is counted, whatever
//!   it does with sessions, process groups or parents.
//! - **rlimits** through util-linux `prlimit`: `RLIMIT_NPROC` (per user, and ignored for root)
//!   and `RLIMIT_AS` (address space, a loose stand-in for memory). Weak, and reported so.
//! - **none**: reported in `--help` and in every open result.
//!
//! Not used yet: cgroup v2 `pids` / `memory` controllers (a delegated cgroup2 subtree). The
//! terminal engine moves each session into a cgroup2 of its own for cleanup; limits there need
//! that engine to write them, which it does not do yet.
//!
//! Limits are applied by wrapping the argv in a tiny `/bin/sh` prelude that joins the cgroups
//! and `exec`s the real program, so nothing runs unlimited, not even the first instruction of
//! the shell. Directories of a session are removed when its [`LimitGuard`] drops; directories
//! left by a host that died are killed and removed the first time a later host sets limits.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::SandboxError;

/// Prefix of every per-session limit directory.
const DIR_PREFIX: &str = "dsh-";

/// Where `prlimit` is looked for.
const PRLIMIT: &str = "/usr/bin/prlimit";

/// The prelude: joins every cgroup named before `--`, then `exec`s what follows it.
const PRELUDE: &str = r#"for f do
  [ "$f" = -- ] && break
  echo $$ > "$f" || { echo "dsh: cannot join the session's limit cgroup $f" >&2; exit 125; }
done
while [ "$1" != -- ]; do shift; done
shift
exec "$@"
"#;

/// Caps for one session; `None` leaves a resource uncapped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionLimits {
    /// Most processes (and threads) the session may have at once.
    pub max_pids: Option<u64>,
    /// Most memory the session's processes may use together, in bytes.
    pub max_memory_bytes: Option<u64>,
}

impl SessionLimits {
    /// Whether any cap is set.
    #[must_use]
    pub fn any(&self) -> bool {
        self.max_pids.is_some() || self.max_memory_bytes.is_some()
    }
}

/// How limits are enforced on this host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LimitMechanism {
    /// cgroup v1 hierarchies: the directory new session cgroups go under, per controller.
    CgroupV1 {
        /// The `pids` hierarchy directory, when writable.
        pids: Option<PathBuf>,
        /// The `memory` hierarchy directory, when writable.
        memory: Option<PathBuf>,
    },
    /// Per-process rlimits through `prlimit` (weak: see the module docs).
    Rlimit,
    /// Nothing can enforce limits here.
    Unavailable,
}

impl LimitMechanism {
    /// The best mechanism this host offers (found once per process).
    #[must_use]
    pub fn detect() -> Self {
        static DETECTED: OnceLock<LimitMechanism> = OnceLock::new();
        DETECTED.get_or_init(detect_uncached).clone()
    }

    /// One line for `--help` and open results, e.g. `cgroup v1 (pids, memory)`.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Self::CgroupV1 { pids, memory } => {
                let names: Vec<&str> = [("pids", pids.is_some()), ("memory", memory.is_some())]
                    .into_iter()
                    .filter_map(|(n, on)| on.then_some(n))
                    .collect();
                format!("cgroup v1 ({})", names.join(", "))
            }
            Self::Rlimit => {
                "rlimits only (RLIMIT_NPROC per user, not binding for root; RLIMIT_AS for memory)"
                    .to_owned()
            }
            Self::Unavailable => "none available on this host (sessions are not capped)".to_owned(),
        }
    }
}

fn detect_uncached() -> LimitMechanism {
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let own = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let pids = v1_base(&mountinfo, &own, "pids");
    let memory = v1_base(&mountinfo, &own, "memory");
    if pids.is_some() || memory.is_some() {
        for dir in pids.iter().chain(memory.iter()) {
            sweep_dead_hosts(dir);
        }
        return LimitMechanism::CgroupV1 { pids, memory };
    }
    if Path::new(PRLIMIT).is_file() {
        LimitMechanism::Rlimit
    } else {
        LimitMechanism::Unavailable
    }
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

fn is_writable(dir: &Path) -> bool {
    use rustix::fs::{Access, access};
    dir.join("cgroup.procs").is_file() && access(dir, Access::WRITE_OK | Access::EXEC_OK).is_ok()
}

/// Kills and removes `dsh-<pid>-*` directories whose host process is gone.
fn sweep_dead_hosts(base: &Path) {
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
        kill_members(&dir);
        if fs::remove_dir(&dir).is_ok() {
            tracing::info!(dir = %dir.display(), "removed a limit cgroup left by a dead host");
        }
    }
}

fn members(dir: &Path) -> Vec<i32> {
    fs::read_to_string(dir.join("cgroup.procs"))
        .map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// SIGKILLs every member, a few rounds to catch forks.
fn kill_members(dir: &Path) {
    for _ in 0..8 {
        let pids = members(dir);
        if pids.is_empty() {
            return;
        }
        for pid in pids {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }
}

/// The limits service: one set of caps, applied to every session it is asked to wrap.
#[derive(Clone, Debug)]
pub struct ResourceLimits {
    limits: SessionLimits,
    mechanism: LimitMechanism,
}

/// The argv to run a session under its limits, and the guard that removes its cgroups.
#[derive(Debug)]
pub struct Limited {
    /// The wrapped argv.
    pub argv: Vec<OsString>,
    /// Keep it for the session's lifetime.
    pub guard: LimitGuard,
}

/// The cgroup directories of one session; removed on drop (best effort, after killing what is
/// left in them).
#[derive(Debug, Default)]
pub struct LimitGuard {
    dirs: Vec<PathBuf>,
}

impl LimitGuard {
    /// The session's cgroup directories (each has a `cgroup.procs` listing its members).
    #[must_use]
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }
}

impl Drop for LimitGuard {
    fn drop(&mut self) {
        for dir in &self.dirs {
            kill_members(dir);
            if let Err(err) = fs::remove_dir(dir) {
                tracing::debug!(dir = %dir.display(), %err, "limit cgroup not removed");
            }
        }
    }
}

impl ResourceLimits {
    /// `limits`, enforced with the host's best mechanism.
    #[must_use]
    pub fn new(limits: SessionLimits) -> Self {
        Self::with_mechanism(limits, LimitMechanism::detect())
    }

    /// `limits`, enforced with `mechanism` (for tests and hosts that know better).
    #[must_use]
    pub fn with_mechanism(limits: SessionLimits, mechanism: LimitMechanism) -> Self {
        Self { limits, mechanism }
    }

    /// The caps.
    #[must_use]
    pub fn limits(&self) -> SessionLimits {
        self.limits
    }

    /// The mechanism.
    #[must_use]
    pub fn mechanism(&self) -> &LimitMechanism {
        &self.mechanism
    }

    /// A notice for the open result when caps are configured but nothing on this host can
    /// enforce them (or only part of them); `None` when they are enforced or none are set.
    #[must_use]
    pub fn notice(&self) -> Option<String> {
        if !self.limits.any() {
            return None;
        }
        let (pids_on, memory_on) = match &self.mechanism {
            LimitMechanism::CgroupV1 { pids, memory } => (pids.is_some(), memory.is_some()),
            LimitMechanism::Rlimit | LimitMechanism::Unavailable => (false, false),
        };
        let missing: Vec<&str> = [
            ("process", self.limits.max_pids.is_some() && !pids_on),
            (
                "memory",
                self.limits.max_memory_bytes.is_some() && !memory_on,
            ),
        ]
        .into_iter()
        .filter_map(|(name, missing)| missing.then_some(name))
        .collect();
        (!missing.is_empty()).then(|| {
            format!(
                "[limits: the {} cap is not enforced: {}]",
                missing.join(" and "),
                self.mechanism.describe()
            )
        })
    }

    /// Wraps `argv` so the session `label` runs under the caps.
    ///
    /// # Errors
    /// [`SandboxError::Limits`] when a cgroup cannot be created or configured (nothing is left
    /// behind), or `argv` is empty.
    pub fn apply(&self, label: &str, argv: Vec<OsString>) -> Result<Limited, SandboxError> {
        if argv.is_empty() {
            return Err(SandboxError::EmptyArgv);
        }
        let mut limited = self.apply_caps(label, argv)?;
        if let Some(notice) = self.notice() {
            // Printed on the terminal before the shell starts, so the open result shows it.
            let mut argv: Vec<OsString> = vec![
                "/bin/sh".into(),
                "-c".into(),
                r#"printf '%s\r\n' "$0"; exec "$@""#.into(),
                notice.into(),
            ];
            argv.append(&mut limited.argv);
            limited.argv = argv;
        }
        Ok(limited)
    }

    fn apply_caps(&self, label: &str, argv: Vec<OsString>) -> Result<Limited, SandboxError> {
        if !self.limits.any() {
            return Ok(Limited {
                argv,
                guard: LimitGuard::default(),
            });
        }
        match &self.mechanism {
            LimitMechanism::CgroupV1 { pids, memory } => self.apply_v1(label, argv, pids, memory),
            LimitMechanism::Rlimit => {
                let mut wrapped: Vec<OsString> = vec![PRLIMIT.into()];
                if let Some(n) = self.limits.max_pids {
                    wrapped.push(format!("--nproc={n}").into());
                }
                if let Some(b) = self.limits.max_memory_bytes {
                    wrapped.push(format!("--as={b}").into());
                }
                wrapped.push("--".into());
                wrapped.extend(argv);
                Ok(Limited {
                    argv: wrapped,
                    guard: LimitGuard::default(),
                })
            }
            LimitMechanism::Unavailable => Ok(Limited {
                argv,
                guard: LimitGuard::default(),
            }),
        }
    }

    fn apply_v1(
        &self,
        label: &str,
        argv: Vec<OsString>,
        pids: &Option<PathBuf>,
        memory: &Option<PathBuf>,
    ) -> Result<Limited, SandboxError> {
        // Unique in this process even when several services mint the same session ids.
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let leaf = format!(
            "{DIR_PREFIX}{}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            sanitize(label)
        );
        let mut guard = LimitGuard::default();
        let fail = |what: &str, path: &Path, e: std::io::Error| {
            SandboxError::Limits(format!("{what} {}: {e}", path.display()))
        };
        if let (Some(max), Some(base)) = (self.limits.max_pids, pids) {
            let dir = base.join(&leaf);
            fs::create_dir(&dir).map_err(|e| fail("cannot create", &dir, e))?;
            guard.dirs.push(dir.clone());
            let file = dir.join("pids.max");
            fs::write(&file, max.to_string()).map_err(|e| fail("cannot write", &file, e))?;
        }
        if let (Some(max), Some(base)) = (self.limits.max_memory_bytes, memory) {
            let dir = base.join(&leaf);
            fs::create_dir(&dir).map_err(|e| fail("cannot create", &dir, e))?;
            guard.dirs.push(dir.clone());
            let file = dir.join("memory.limit_in_bytes");
            fs::write(&file, max.to_string()).map_err(|e| fail("cannot write", &file, e))?;
            // With swap accounting, also cap memory + swap, so the session cannot swap out
            // past its cap.
            let memsw = dir.join("memory.memsw.limit_in_bytes");
            if memsw.is_file() {
                fs::write(&memsw, max.to_string()).map_err(|e| fail("cannot write", &memsw, e))?;
            }
        }
        let mut wrapped: Vec<OsString> = vec!["/bin/sh".into(), "-c".into(), PRELUDE.into()];
        wrapped.push("dsh-limits".into());
        wrapped.extend(guard.dirs.iter().map(|d| d.join("cgroup.procs").into()));
        wrapped.push("--".into());
        wrapped.extend(argv);
        Ok(Limited {
            argv: wrapped,
            guard,
        })
    }
}

fn sanitize(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
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

    #[test]
    fn notice_names_what_is_not_enforced() {
        let caps = SessionLimits {
            max_pids: Some(10),
            max_memory_bytes: Some(1 << 20),
        };
        let none = ResourceLimits::with_mechanism(caps, LimitMechanism::Unavailable);
        assert_eq!(
            none.notice().as_deref(),
            Some(
                "[limits: the process and memory cap is not enforced: none available on this host (sessions are not capped)]"
            )
        );
        let pids_only = ResourceLimits::with_mechanism(
            caps,
            LimitMechanism::CgroupV1 {
                pids: Some(PathBuf::from("/p")),
                memory: None,
            },
        );
        assert_eq!(
            pids_only.notice().as_deref(),
            Some("[limits: the memory cap is not enforced: cgroup v1 (pids)]")
        );
        let uncapped =
            ResourceLimits::with_mechanism(SessionLimits::default(), LimitMechanism::Unavailable);
        assert_eq!(uncapped.notice(), None);
    }

    #[test]
    fn rlimit_wraps_with_prlimit() {
        let caps = SessionLimits {
            max_pids: Some(10),
            max_memory_bytes: None,
        };
        let l = ResourceLimits::with_mechanism(caps, LimitMechanism::Rlimit)
            .apply("pty-1", vec!["bash".into()])
            .unwrap();
        // RLIMIT_NPROC is weak, so the session is told it is not really capped.
        assert_eq!(
            &l.argv[3..],
            &[
                OsString::from(
                    "[limits: the process cap is not enforced: rlimits only (RLIMIT_NPROC per user, not binding for root; RLIMIT_AS for memory)]"
                ),
                OsString::from(PRLIMIT),
                "--nproc=10".into(),
                "--".into(),
                "bash".into()
            ]
        );
    }
}
