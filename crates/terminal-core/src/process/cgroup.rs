//! [`SessionCgroup`]: a cgroup v2 per session, killed as a whole with `cgroup.kill`
//! (measured here: the only method that stops all five background forms on its own).
//!
//! Layout: `<base>/dsh-<hostpid>/<session>`, where `<base>` is this process's own cgroup in the
//! first writable cgroup2 mount (delegation friendly), or that mount's root. Cgroups left by a
//! host that died (its pid no longer exists) are killed and removed the first time this process
//! creates one, so a killed host's sessions do not outlive the next start.
//!
//! Creating a session cgroup also makes sure this host's watchdog runs (see
//! [`watchdog`](super::watchdog)): a helper outside the session cgroups that `cgroup.kill`s
//! `dsh-<hostpid>` as soon as the host dies, even by SIGKILL, and removes the directories.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Prefix of the per-host-process parent directory.
const HOST_DIR_PREFIX: &str = "dsh-";

/// How many `<name>.N` variants [`SessionCgroup::create`] tries when the name is taken.
const MAX_NAME_ATTEMPTS: u32 = 1000;

/// A cgroup v2 of one session.
///
/// Move the shell in with [`add_pid`](Self::add_pid) right after spawn, before any input is
/// sent; every process it starts then inherits the cgroup, whatever it does with sessions,
/// process groups or parents. [`kill`](Self::kill) SIGKILLs them all atomically. The directory
/// is removed by [`remove`](Self::remove) or on drop (best effort: a cgroup with live
/// processes cannot be removed).
#[derive(Debug)]
pub struct SessionCgroup {
    path: PathBuf,
    removed: AtomicBool,
    /// Created here (removed with its session) or adopted from a launcher (left to it).
    owned: bool,
}

impl SessionCgroup {
    /// Creates `<cgroup2 base>/dsh-<hostpid>/<name>` (characters outside `[A-Za-z0-9_.-]` in
    /// `name` become `_`; a taken name gets a `.N` suffix). `None` when no writable cgroup2
    /// exists (unprivileged without a delegated subtree, cgroup v1 only, read-only mount);
    /// the reason is logged at debug level.
    ///
    /// Also starts this host process's watchdog the first time (and restarts it if it died),
    /// which kills every session cgroup of the host once the host is gone, however it died.
    #[must_use]
    pub fn create(name: &str) -> Option<Self> {
        let base = cgroup2_base()?;
        sweep_stale_host_dirs_once(base);
        let host_dir = base.join(format!("{HOST_DIR_PREFIX}{}", std::process::id()));
        let name = sanitize(name);
        for attempt in 0..MAX_NAME_ATTEMPTS {
            let leaf = if attempt == 0 {
                name.clone()
            } else {
                format!("{name}.{attempt}")
            };
            let path = host_dir.join(&leaf);
            // A sibling session's `remove` may rmdir the host dir between our mkdirs: retry.
            let created = fs::create_dir_all(&host_dir).and_then(|()| fs::create_dir(&path));
            match created {
                Ok(()) => {
                    tracing::debug!(path = %path.display(), "session cgroup created");
                    // Before any process is moved in, so a host killed from here on is covered.
                    super::watchdog::watch_cgroup2_host_dir(&host_dir);
                    return Some(Self {
                        path,
                        removed: AtomicBool::new(false),
                        owned: true,
                    });
                }
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
                Err(err) if err.kind() == io::ErrorKind::NotFound && attempt < 3 => {}
                Err(err) => {
                    tracing::debug!(path = %path.display(), %err, "no session cgroup");
                    return None;
                }
            }
        }
        tracing::debug!(name, "no free session cgroup name");
        None
    }

    /// `path`, a cgroup v2 directory someone else made for one session (a launcher's
    /// resource-limit cgroup), used for tracking and teardown like a created one and left to
    /// its maker to remove.
    #[must_use]
    pub fn adopt(path: PathBuf) -> Self {
        Self {
            path,
            removed: AtomicBool::new(false),
            owned: false,
        }
    }

    /// The cgroup directory.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Moves process `pid` (all its threads) into this cgroup; its future children are born
    /// in it.
    ///
    /// # Errors
    /// The write to `cgroup.procs` failed (no such process, permission denied, cgroup removed).
    pub fn add_pid(&self, pid: i32) -> io::Result<()> {
        if pid <= 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("invalid pid {pid}"),
            ));
        }
        fs::write(self.path.join("cgroup.procs"), pid.to_string())
    }

    /// The pids currently in the cgroup (empty when it is unreadable or gone).
    #[must_use]
    pub fn pids(&self) -> Vec<i32> {
        read_pids(&self.path)
    }

    /// SIGKILLs every process in the cgroup (`echo 1 > cgroup.kill`, Linux 5.14+). On older
    /// kernels without `cgroup.kill`, each member is SIGKILLed by pid (a few rounds, to catch
    /// forks).
    ///
    /// # Errors
    /// Writing `cgroup.kill` failed for a reason other than the file missing.
    pub fn kill(&self) -> io::Result<()> {
        match fs::write(self.path.join("cgroup.kill"), "1") {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == io::ErrorKind::NotFound && self.path.is_dir() => {
                for _ in 0..4 {
                    let pids = self.pids();
                    if pids.is_empty() {
                        break;
                    }
                    // Membership was read from cgroup.procs just before; a pid freed and reused
                    // in between is the accepted risk of this fallback.
                    for pid in pids.into_iter().filter_map(rustix::process::Pid::from_raw) {
                        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                    }
                }
                Ok(())
            }
            Err(err) => Err(err),
        }
    }

    /// Removes the cgroup directory (and the per-host parent when it is the last one). Fails
    /// silently while the cgroup still has processes; idempotent once it succeeded. An
    /// adopted cgroup ([`adopt`](Self::adopt)) is left alone.
    pub fn remove(&self) {
        if !self.owned || self.removed.load(Ordering::Acquire) {
            return;
        }
        match fs::remove_dir(&self.path) {
            Ok(()) => {
                self.removed.store(true, Ordering::Release);
                if let Some(parent) = self.path.parent() {
                    // Succeeds only once no sibling session cgroup is left.
                    let _ = fs::remove_dir(parent);
                }
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                self.removed.store(true, Ordering::Release)
            }
            Err(err) => {
                tracing::debug!(path = %self.path.display(), %err, "session cgroup not removed")
            }
        }
    }
}

impl Drop for SessionCgroup {
    fn drop(&mut self) {
        self.remove();
    }
}

fn read_pids(dir: &Path) -> Vec<i32> {
    fs::read_to_string(dir.join("cgroup.procs"))
        .map(|t| {
            t.lines()
                .filter_map(|l| l.trim().parse().ok())
                .filter(|&p: &i32| p > 0)
                .collect()
        })
        .unwrap_or_default()
}

fn sanitize(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    match cleaned.as_str() {
        "" | "." | ".." => format!("session{cleaned}"),
        _ => cleaned,
    }
}

/// Set (to any value) in a host's environment, it makes the host act as if no writable
/// cgroup2 existed: no session cgroups (for tests of the other cleanup paths, and for hosts
/// whose cgroup tree must not be touched).
pub const NO_CGROUP2_ENV: &str = "DSH_NO_CGROUP2";

/// The directory session cgroups go under, found once per process.
fn cgroup2_base() -> Option<&'static Path> {
    static BASE: OnceLock<Option<PathBuf>> = OnceLock::new();
    BASE.get_or_init(|| {
        if std::env::var_os(NO_CGROUP2_ENV).is_some() {
            tracing::debug!("{NO_CGROUP2_ENV} is set: no session cgroups");
            return None;
        }
        find_cgroup2_base()
    })
    .as_deref()
}

fn find_cgroup2_base() -> Option<PathBuf> {
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").ok()?;
    let own = fs::read_to_string("/proc/self/cgroup").ok()?;
    // The unified hierarchy line is `0::/path`.
    let own_path = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .unwrap_or("/")
        .trim()
        .to_owned();
    for (mount_root, mount_point) in cgroup2_mounts(&mountinfo) {
        let mut candidates = Vec::new();
        if let Ok(rel) = Path::new(&own_path).strip_prefix(&mount_root) {
            candidates.push(mount_point.join(rel));
        }
        candidates.push(mount_point.clone());
        for dir in candidates {
            if is_writable_cgroup(&dir) {
                tracing::debug!(base = %dir.display(), "cgroup2 base for session cgroups");
                return Some(dir);
            }
        }
    }
    tracing::debug!("no writable cgroup2 mount; sessions rely on the subreaper and sweeps");
    None
}

/// `(root within the hierarchy, mount point)` of every read-write cgroup2 mount.
fn cgroup2_mounts(mountinfo: &str) -> Vec<(PathBuf, PathBuf)> {
    mountinfo
        .lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let mut fstype = right.split_ascii_whitespace();
            if fstype.next()? != "cgroup2" {
                return None;
            }
            let fields: Vec<&str> = left.split_ascii_whitespace().collect();
            let (root, point, opts) = (fields.get(3)?, fields.get(4)?, fields.get(5)?);
            if opts.split(',').any(|o| o == "ro") {
                return None;
            }
            Some((
                PathBuf::from(unescape_mountinfo(root)),
                PathBuf::from(unescape_mountinfo(point)),
            ))
        })
        .collect()
}

/// mountinfo escapes space, tab, newline and backslash as `\ooo`.
fn unescape_mountinfo(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| u8::from_str_radix(d, 8).ok());
        match (bytes[i], octal) {
            (b'\\', Some(b)) => {
                out.push(b);
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether sub-cgroups can be made in `dir` and processes moved (`cgroup.procs` and the dir
/// are writable for us).
fn is_writable_cgroup(dir: &Path) -> bool {
    use rustix::fs::{Access, access};
    dir.join("cgroup.procs").is_file()
        && access(dir, Access::WRITE_OK | Access::EXEC_OK).is_ok()
        && access(dir.join("cgroup.procs"), Access::WRITE_OK).is_ok()
}

/// Kills and removes `dsh-<pid>` directories whose host process no longer exists (once per
/// process).
fn sweep_stale_host_dirs_once(base: &Path) {
    static SWEPT: OnceLock<()> = OnceLock::new();
    SWEPT.get_or_init(|| sweep_stale_host_dirs(base));
}

fn sweep_stale_host_dirs(base: &Path) {
    let Ok(entries) = fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(HOST_DIR_PREFIX))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let host_dir = entry.path();
        let mut killed = 0usize;
        for session in fs::read_dir(&host_dir).into_iter().flatten().flatten() {
            let dir = session.path();
            if !dir.is_dir() {
                continue;
            }
            killed += read_pids(&dir).len();
            let _ = fs::write(dir.join("cgroup.kill"), "1");
            // Succeeds once the killed processes are gone; otherwise the next host retries.
            let _ = fs::remove_dir(&dir);
        }
        let _ = fs::remove_dir(&host_dir);
        tracing::info!(dir = %host_dir.display(), killed, "killed processes left by a dead host");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cgroup2_mounts() {
        let info = "30 25 0:26 / /sys/fs/cgroup/unified rw,relatime shared:5 - cgroup2 cgroup2 rw\n\
                    31 25 0:27 / /sys/fs/cgroup/cpu rw,relatime shared:6 - cgroup cgroup rw,cpu\n\
                    40 25 0:28 /user.slice /mnt/with\\040space ro,relatime - cgroup2 cgroup2 rw\n\
                    41 25 0:28 /a /mnt/cg rw - cgroup2 cgroup2 rw\n";
        assert_eq!(
            cgroup2_mounts(info),
            vec![
                (PathBuf::from("/"), PathBuf::from("/sys/fs/cgroup/unified")),
                (PathBuf::from("/a"), PathBuf::from("/mnt/cg")),
            ]
        );
        assert_eq!(unescape_mountinfo("/mnt/with\\040space"), "/mnt/with space");
    }

    #[test]
    fn sanitizes_names() {
        assert_eq!(sanitize("pty-1"), "pty-1");
        assert_eq!(sanitize("a/b c"), "a_b_c");
        assert_eq!(sanitize(".."), "session..");
        assert_eq!(sanitize(""), "session");
    }
}
