//! [`ResourceLimits`]: a cap on the processes and memory of each session.
//!
//! Mechanisms, best first, chosen once per host process ([`LimitMechanism::detect`], in
//! `detect.rs`):
//! - **cgroup v2** `pids` / `memory` controllers where they are delegated to us: a directory
//!   per session, `dsh-<hostpid>-<n>-<session>`, with `pids.max`, `memory.max` and
//!   `memory.swap.max` 0 (so the cap covers memory + swap, as in v1). The terminal engine
//!   keeps such a session in this cgroup (it tracks and kills the session by it) instead of
//!   moving it into a cgroup of its own.
//! - **cgroup v1** `pids` / `memory` hierarchies (writable ones): a directory per session,
//!   `dsh-<hostpid>-<n>-<session>`, with `pids.max` and `memory.limit_in_bytes` (plus
//!   `memory.memsw.limit_in_bytes` where swap accounting exists). The session's first process
//!   joins it before it runs the shell, so everything the session starts is counted, whatever
//!   it does with sessions, process groups or parents.
//! - **rlimits** through util-linux `prlimit`: `RLIMIT_NPROC` (per user, and ignored for root)
//!   and `RLIMIT_AS` (address space, a loose stand-in for memory). Weak, and reported so.
//! - **none**: reported in `--help` and in every open result.
//!
//! Whichever cgroup version enforces the caps, its event counters tell when a cap was hit
//! ([`LimitGuard::hits`]): forks refused at the pids cap, processes killed at the memory cap.
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

mod detect;
mod hits;
use detect::detect_uncached;
pub use hits::{CapStop, LimitHits};
use hits::{HitSources, OomCounter};

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
    /// A delegated cgroup v2 subtree: the directory new session cgroups go under, and which
    /// of the controllers reach them.
    CgroupV2 {
        /// The directory.
        base: PathBuf,
        /// `pids` is enabled for its children.
        pids: bool,
        /// `memory` is enabled for its children.
        memory: bool,
    },
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
        let names = |pids: bool, memory: bool| {
            [("pids", pids), ("memory", memory)]
                .into_iter()
                .filter_map(|(n, on)| on.then_some(n))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Self::CgroupV2 { pids, memory, .. } => {
                format!("cgroup v2 ({})", names(*pids, *memory))
            }
            Self::CgroupV1 { pids, memory } => {
                format!("cgroup v1 ({})", names(pids.is_some(), memory.is_some()))
            }
            Self::Rlimit => {
                "rlimits only (RLIMIT_NPROC per user, not binding for root; RLIMIT_AS for memory)"
                    .to_owned()
            }
            Self::Unavailable => "none available on this host (sessions are not capped)".to_owned(),
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
    /// The one cgroup v2 directory, when the caps are cgroup v2's.
    unified: Option<PathBuf>,
    /// Where the cap events are counted.
    hits: HitSources,
}

impl LimitGuard {
    /// The session's cgroup directories (each has a `cgroup.procs` listing its members).
    #[must_use]
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The session's cgroup v2 directory, when the caps are cgroup v2's: the session's
    /// processes must stay in it (a terminal engine tracks the session by it instead of
    /// moving the session into a cgroup of its own).
    #[must_use]
    pub fn unified_dir(&self) -> Option<&Path> {
        self.unified.as_deref()
    }

    /// How often the caps stopped the session so far.
    #[must_use]
    pub fn hits(&self) -> LimitHits {
        self.hits.read()
    }

    /// One line for the model per cap that stopped something between `earlier` and `now`
    /// (two readings of [`hits`](Self::hits)), e.g. `[limit: this session reached its cap
    /// of 48 processes; …]`.
    #[must_use]
    pub fn notices(&self, earlier: LimitHits, now: LimitHits) -> Vec<String> {
        self.hits.notices(earlier, now)
    }

    /// Each cap that stopped something between `earlier` and `now` (what
    /// [`notices`](Self::notices) tells, without the advice).
    #[must_use]
    pub fn stops(&self, earlier: LimitHits, now: LimitHits) -> Vec<CapStop> {
        self.hits.stops(earlier, now)
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
            LimitMechanism::CgroupV2 { pids, memory, .. } => (*pids, *memory),
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
            LimitMechanism::CgroupV2 { base, pids, memory } => {
                self.apply_v2(label, argv, base, *pids, *memory)
            }
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

    fn apply_v2(
        &self,
        label: &str,
        argv: Vec<OsString>,
        base: &Path,
        pids: bool,
        memory: bool,
    ) -> Result<Limited, SandboxError> {
        let dir = base.join(leaf_name(label));
        fs::create_dir(&dir).map_err(|e| fail("cannot create", &dir, e))?;
        let mut guard = LimitGuard::default();
        guard.dirs.push(dir.clone());
        guard.unified = Some(dir.clone());
        let write = |file: &str, value: u64| {
            let path = dir.join(file);
            fs::write(&path, value.to_string()).map_err(|e| fail("cannot write", &path, e))
        };
        if let (Some(max), true) = (self.limits.max_pids, pids) {
            write("pids.max", max)?;
            guard.hits.pids = Some((dir.clone(), max));
        }
        if let (Some(max), true) = (self.limits.max_memory_bytes, memory) {
            write("memory.max", max)?;
            guard.hits.memory = Some((dir.clone(), max, OomCounter::V2));
            // Without swap accounting the file is missing, and there is nothing to cap.
            if dir.join("memory.swap.max").is_file() {
                write("memory.swap.max", 0)?;
            }
        }
        Ok(Limited {
            argv: join_prelude(&guard, argv),
            guard,
        })
    }

    fn apply_v1(
        &self,
        label: &str,
        argv: Vec<OsString>,
        pids: &Option<PathBuf>,
        memory: &Option<PathBuf>,
    ) -> Result<Limited, SandboxError> {
        let leaf = leaf_name(label);
        let mut guard = LimitGuard::default();
        if let (Some(max), Some(base)) = (self.limits.max_pids, pids) {
            let dir = base.join(&leaf);
            fs::create_dir(&dir).map_err(|e| fail("cannot create", &dir, e))?;
            guard.dirs.push(dir.clone());
            let file = dir.join("pids.max");
            fs::write(&file, max.to_string()).map_err(|e| fail("cannot write", &file, e))?;
            guard.hits.pids = Some((dir, max));
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
            guard.hits.memory = Some((dir, max, OomCounter::V1));
        }
        Ok(Limited {
            argv: join_prelude(&guard, argv),
            guard,
        })
    }
}

/// `argv` behind the prelude that joins the guard's cgroups.
fn join_prelude(guard: &LimitGuard, argv: Vec<OsString>) -> Vec<OsString> {
    let mut wrapped: Vec<OsString> = vec!["/bin/sh".into(), "-c".into(), PRELUDE.into()];
    wrapped.push("dsh-limits".into());
    wrapped.extend(guard.dirs.iter().map(|d| d.join("cgroup.procs").into()));
    wrapped.push("--".into());
    wrapped.extend(argv);
    wrapped
}

/// `dsh-<hostpid>-<n>-<label>`: unique in this process even when several services mint the
/// same session ids, and tied to the host so a later host can sweep it once this one died.
fn leaf_name(label: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!(
        "{DIR_PREFIX}{}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        sanitize(label)
    )
}

fn fail(what: &str, path: &Path, e: std::io::Error) -> SandboxError {
    SandboxError::Limits(format!("{what} {}: {e}", path.display()))
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
