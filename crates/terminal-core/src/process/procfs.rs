//! `/proc/PID/stat` parsing, process identities and whole-table scans.

use std::fs;
use std::io::Read;
use std::path::Path;

use rustix::io::Errno;
use rustix::process::{Pid, PidfdFlags, Signal, kill_process, pidfd_open, pidfd_send_signal};

/// Identity fence: a pid plus its start time (field 22 of `/proc/PID/stat`, in clock ticks since
/// boot), so that PID reuse never redirects a signal to an unrelated process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProcessIdentity {
    /// The process id.
    pub pid: i32,
    /// Start time in clock ticks since boot (field 22 of `/proc/PID/stat`).
    pub start_time: u64,
}

impl ProcessIdentity {
    /// The identity of the process currently holding `pid` (zombies included), or `None` when
    /// no such process exists or its `stat` is unreadable.
    #[must_use]
    pub fn of(pid: i32) -> Option<Self> {
        stat(pid).map(|s| s.identity())
    }

    /// Whether `pid` still belongs to this identity (same start time) and is not a zombie.
    /// A zombie counts as gone: it can no longer run or react to signals.
    #[must_use]
    pub fn is_alive(&self) -> bool {
        self.status() == IdentityStatus::Alive
    }

    /// Where this identity stands right now: running, a zombie, or gone (pid free or reused).
    #[must_use]
    pub fn status(&self) -> IdentityStatus {
        match stat(self.pid) {
            Some(s) if s.start_time == self.start_time => {
                if s.is_zombie() {
                    IdentityStatus::Zombie
                } else {
                    IdentityStatus::Alive
                }
            }
            _ => IdentityStatus::Gone,
        }
    }

    /// Sends `sig` to this process if, and only if, the pid still carries this identity and
    /// is not a zombie. Returns whether the signal was delivered.
    ///
    /// The pid is pinned with a pidfd first and the identity re-checked after, so the signal
    /// can never reach a process that reused the pid (without a pidfd, e.g. on kernels before
    /// 5.3 or with the fd table full, it falls back to check-then-`kill`).
    #[must_use = "the return value says whether the signal was delivered"]
    pub fn signal(&self, sig: Signal) -> bool {
        let Some(pid) = Pid::from_raw(self.pid).filter(|_| self.pid > 0) else {
            return false;
        };
        match pidfd_open(pid, PidfdFlags::empty()) {
            Ok(fd) => {
                // The pidfd refers to whatever process held the pid at open time. If that
                // process still has our start time now, it is ours (a pid is not reused while
                // its holder exists, and the pidfd keeps referring to it even if it dies).
                if !self.is_alive() {
                    return false;
                }
                pidfd_send_signal(&fd, sig).is_ok()
            }
            Err(Errno::SRCH) => false,
            // No pidfd support (ENOSYS), fd table full (EMFILE), ...: check, then kill by pid.
            Err(_) => self.is_alive() && kill_process(pid, sig).is_ok(),
        }
    }
}

/// Where a [`ProcessIdentity`] stands, as read from `/proc` right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdentityStatus {
    /// The process exists with the same start time and is not a zombie.
    Alive,
    /// The process has exited but has not been reaped yet.
    Zombie,
    /// The pid is free, or now belongs to a different process.
    Gone,
}

/// The fields of `/proc/PID/stat` that process inspection needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatInfo {
    /// Field 1: process (or thread) id.
    pub pid: i32,
    /// Field 2: the command name without the parentheses (at most 15 bytes, lossily UTF-8;
    /// control characters shown as `?`).
    pub comm: String,
    /// Field 3: state letter (`R`, `S`, `D`, `T`, `t`, `Z`, `X`, `I`, ...).
    pub state: char,
    /// Field 4: parent pid.
    pub ppid: i32,
    /// Field 5: process group id.
    pub pgrp: i32,
    /// Field 6: session id.
    pub session: i32,
    /// Field 8: foreground process group of the controlling terminal, `-1` without one.
    pub tpgid: i32,
    /// Field 22: start time in clock ticks since boot.
    pub start_time: u64,
    /// Fields 14 to 17: CPU time in clock ticks, in user and kernel mode, of the process and
    /// of the children it has waited for (a shell loop's short-lived commands add theirs to
    /// it as they are reaped).
    pub cpu_ticks: u64,
    /// Fields 11 and 13: page faults (minor and major) of the children it has waited for,
    /// which grow as each is reaped (a forked child faults in pages at once), however little
    /// CPU time it got on a loaded machine.
    pub child_faults: u64,
}

impl StatInfo {
    /// Parses the contents of a `/proc/PID/stat` (or `/proc/PID/task/TID/stat`) file.
    ///
    /// The command name may contain spaces, parentheses and even newlines, so it is taken as
    /// everything between the first `(` and the *last* `)`; no later field can contain `)`.
    #[must_use]
    pub fn parse(text: &[u8]) -> Option<Self> {
        let open = text.iter().position(|&b| b == b'(')?;
        let close = text.iter().rposition(|&b| b == b')')?;
        if close < open {
            return None;
        }
        let pid = std::str::from_utf8(text.get(..open)?)
            .ok()?
            .trim()
            .parse()
            .ok()?;
        let comm = printable(&String::from_utf8_lossy(text.get(open + 1..close)?));
        let rest = std::str::from_utf8(text.get(close + 1..)?).ok()?;
        // rest[0] is field 3 (state); field N is rest[N - 3].
        let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
        let field = |n: usize| fields.get(n - 3).copied();
        let state = field(3)?.chars().next()?;
        Some(Self {
            pid,
            comm,
            state,
            ppid: field(4)?.parse().ok()?,
            pgrp: field(5)?.parse().ok()?,
            session: field(6)?.parse().ok()?,
            tpgid: field(8)?.parse().ok()?,
            start_time: field(22)?.parse().ok()?,
            cpu_ticks: (14..=17)
                .filter_map(|n| field(n)?.parse::<i64>().ok())
                .map(|ticks| ticks.max(0).unsigned_abs())
                .sum(),
            child_faults: [11, 13]
                .into_iter()
                .filter_map(|n| field(n)?.parse::<u64>().ok())
                .sum(),
        })
    }

    /// This process's identity (pid + start time).
    #[must_use]
    pub fn identity(&self) -> ProcessIdentity {
        ProcessIdentity {
            pid: self.pid,
            start_time: self.start_time,
        }
    }

    /// Whether the process has exited (zombie `Z` or dead `X`).
    #[must_use]
    pub fn is_zombie(&self) -> bool {
        matches!(self.state, 'Z' | 'X' | 'x')
    }
}

/// Reads and parses `/proc/<pid>/stat`; `None` when the process does not exist (or the file is
/// unreadable or malformed).
#[must_use]
pub fn stat(pid: i32) -> Option<StatInfo> {
    if pid <= 0 {
        return None;
    }
    read_stat_file(&Path::new("/proc").join(pid.to_string()).join("stat"))
}

/// The file name of the program image process `pid` runs (`/proc/<pid>/exe`, symlinks
/// resolved: `python3.11` for a script started by its own name through a `#!` line, or a
/// virtualenv's `python` link); `None` when unreadable (gone, or another user's).
pub(crate) fn exe_name(pid: i32) -> Option<String> {
    if pid <= 0 {
        return None;
    }
    let path = fs::read_link(Path::new("/proc").join(pid.to_string()).join("exe")).ok()?;
    Some(printable(&path.file_name()?.to_string_lossy()))
}

/// `name` (a program's command name or file name) with each control character (a newline,
/// an escape) shown as `?`, as `ps` shows them: a program's name goes into results' status
/// lines (`[foreground: NAME]`), where a name such as `x\n[exit: 0]` would forge one.
fn printable(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// `/proc/<pid>/cmdline`: the program image's arguments, NUL-separated (a process that
/// `exec`s another program gets new ones); `None` when unreadable.
pub(crate) fn cmdline(pid: i32) -> Option<Vec<u8>> {
    if pid <= 0 {
        return None;
    }
    fs::read(Path::new("/proc").join(pid.to_string()).join("cmdline")).ok()
}

/// Process `pid`'s id in its own PID namespace (the last `NSpid` entry of
/// `/proc/<pid>/status`): what the processes of a sandboxed session see as its id; `pid`
/// itself outside a PID namespace, or when the status cannot be read.
#[must_use]
pub fn pid_in_own_namespace(pid: i32) -> i32 {
    if pid <= 0 {
        return pid;
    }
    fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("status"))
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("NSpid:"))?;
            line.split_whitespace().last()?.parse().ok()
        })
        .unwrap_or(pid)
}

/// Process group `pgid`'s id in its members' own PID namespace (the last `NSpgid` entry of a
/// live member's `/proc/<pid>/status`: the leader, else the youngest member): what the
/// processes of a sandboxed session see as the group's id, also once the group's leader is
/// gone (`true | less`: the group keeps the leader's id). `pgid` itself outside a PID
/// namespace, or when no member can be read.
#[must_use]
pub fn pgid_in_own_namespace(pgid: i32) -> i32 {
    if pgid <= 0 {
        return pgid;
    }
    group_member(pgid)
        .and_then(|member| {
            let status = fs::read_to_string(
                Path::new("/proc")
                    .join(member.pid.to_string())
                    .join("status"),
            )
            .ok()?;
            let line = status.lines().find(|l| l.starts_with("NSpgid:"))?;
            line.split_whitespace().last()?.parse().ok()
        })
        .unwrap_or(pgid)
}

/// Whether process `pid`'s standard input is a terminal (a character device): a program
/// reading the terminal on another descriptor (`xargs -p` asking on `/dev/tty`, its data from
/// a pipe) does not take the terminal as its data. `false` when it cannot be read.
pub(crate) fn stdin_is_terminal(pid: i32) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    pid > 0
        && fs::metadata(Path::new("/proc").join(pid.to_string()).join("fd/0"))
            .is_ok_and(|m| m.file_type().is_char_device())
}

/// Whether process `pid` holds a regular file open for reading only, on a descriptor past its
/// standard three: a file it was given and reads (`gzip -k a.txt` asking whether to overwrite
/// `a.txt.gz` holds `a.txt` open). Not a file it writes (`tee out.txt`), nor one it read and
/// closed (`sed -f script.sed`). `false` when the descriptors cannot be read.
pub(crate) fn holds_a_file_to_read(pid: i32) -> bool {
    /// The access mode bits of a descriptor's flags (`O_ACCMODE`); `O_RDONLY` is 0.
    const ACCESS_MODE: u32 = 0o3;
    if pid <= 0 {
        return false;
    }
    let proc = Path::new("/proc").join(pid.to_string());
    let Ok(entries) = fs::read_dir(proc.join("fd")) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let name = entry.file_name();
        let Some(fd) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            return false;
        };
        fd > 2
            && fs::metadata(entry.path()).is_ok_and(|m| m.is_file())
            && fs::read_to_string(proc.join("fdinfo").join(fd.to_string()))
                .ok()
                .and_then(|info| {
                    info.lines()
                        .find_map(|l| l.strip_prefix("flags:"))
                        .and_then(|flags| u32::from_str_radix(flags.trim(), 8).ok())
                })
                .is_some_and(|flags| flags & ACCESS_MODE == 0)
    })
}

/// Whether process `pid` ignores signal `signo` (its bit in `SigIgn` of `/proc/PID/status`);
/// `None` when that cannot be read.
pub(crate) fn ignores_signal(pid: i32, signo: i32) -> Option<bool> {
    let bit = u32::try_from(signo).ok()?.checked_sub(1)?;
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())?;
    Some(mask.checked_shr(bit).is_some_and(|m| m & 1 == 1))
}

/// Whether process `pid`'s file descriptor `fd` (1: standard output, 2: standard error) is
/// another file than its standard input (the terminal, for a shell): `exec >file` or
/// `exec 2>file` in the shell, or closed (`exec 1>&-`). `false` when standard input or the
/// other descriptor cannot be read.
pub(crate) fn fd_leaves_stdin(pid: i32, fd: u8) -> bool {
    use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
    if pid <= 0 {
        return false;
    }
    let meta = |n: u8| {
        fs::metadata(
            Path::new("/proc")
                .join(pid.to_string())
                .join(format!("fd/{n}")),
        )
    };
    // `/dev/tty` (character device 5:0) is the process's controlling terminal.
    const DEV_TTY: u64 = 5 << 8;
    let is_char = |m: &fs::Metadata| m.file_type().is_char_device();
    match (meta(0), meta(fd)) {
        // The terminal under another name: its own device, or `/dev/tty` (`exec >/dev/tty`).
        (Ok(stdin), Ok(other)) if is_char(&stdin) && is_char(&other) => {
            other.rdev() != stdin.rdev() && other.rdev() != DEV_TTY
        }
        (Ok(stdin), Ok(other)) => (stdin.dev(), stdin.ino()) != (other.dev(), other.ino()),
        // Closed (`exec 1>&-`): nothing of it reaches the terminal either.
        (Ok(_), Err(e)) => e.kind() == std::io::ErrorKind::NotFound,
        _ => false,
    }
}

/// How long process `pid` has existed: the time since boot (`/proc/uptime`) less its start
/// time (`/proc/PID/stat` field 22, in clock ticks). `None` when either cannot be read.
pub(crate) fn age(pid: i32) -> Option<std::time::Duration> {
    let started = stat(pid)?.start_time;
    let uptime: f64 = fs::read_to_string("/proc/uptime")
        .ok()?
        .split_ascii_whitespace()
        .next()?
        .parse()
        .ok()?;
    let ticks = rustix::param::clock_ticks_per_second().max(1);
    let age = uptime - started as f64 / ticks as f64;
    Some(std::time::Duration::from_secs_f64(age.max(0.0)))
}

/// Nanoseconds thread `tid` of process `pid` has run on a CPU: the first field of
/// `/proc/PID/task/TID/schedstat` (the kernel's `sum_exec_runtime`). `None` when the thread
/// is gone or the kernel keeps no such file.
pub(crate) fn thread_ran_ns(pid: i32, tid: i32) -> Option<u64> {
    let text = fs::read_to_string(format!("/proc/{pid}/task/{tid}/schedstat")).ok()?;
    text.split_ascii_whitespace().next()?.parse().ok()
}

pub(crate) fn read_stat_file(path: &Path) -> Option<StatInfo> {
    let mut buf = Vec::with_capacity(512);
    fs::File::open(path).ok()?.read_to_end(&mut buf).ok()?;
    StatInfo::parse(&buf)
}

/// Every numeric entry of `dir` (`/proc` or `/proc/PID/task`).
pub(crate) fn numeric_entries(dir: &Path) -> Vec<i32> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid > 0)
        .collect()
}

/// `stat` of every process currently in `/proc` (processes that vanish mid-scan are skipped).
pub(crate) fn scan_all() -> Vec<StatInfo> {
    numeric_entries(Path::new("/proc"))
        .into_iter()
        .filter_map(stat)
        .collect()
}

/// `stat` of every process listed in `procs` (a cgroup's `cgroup.procs`: one pid per line);
/// `None` when the list cannot be read.
pub(crate) fn scan_listed(procs: &Path) -> Option<Vec<StatInfo>> {
    let list = fs::read_to_string(procs).ok()?;
    Some(
        list.lines()
            .filter_map(|l| l.trim().parse::<i32>().ok())
            .filter(|&pid| pid > 0)
            .filter_map(stat)
            .collect(),
    )
}

/// The foreground process group of the terminal controlled by `shell_pid`: the `tpgid` field of
/// its `stat`, when positive (the seed's §3.8). `None` when the shell is gone or has no
/// controlling terminal.
#[must_use]
pub fn foreground_pgid(shell_pid: i32) -> Option<i32> {
    stat(shell_pid).map(|s| s.tpgid).filter(|&tpgid| tpgid > 0)
}

/// The command name (`comm`, e.g. `python3`) of process group `pgid`: its leader's when the
/// leader is still running, otherwise the youngest live member's. `None` when the group has no
/// live member.
#[must_use]
pub fn group_name(pgid: i32) -> Option<String> {
    group_member(pgid).map(|s| s.comm)
}

/// The process that stands for group `pgid`: its leader when still running, otherwise the
/// youngest live member (a pipeline whose first command ended). `None` when the group has no
/// live member.
pub(crate) fn group_member(pgid: i32) -> Option<StatInfo> {
    if pgid <= 0 {
        return None;
    }
    if let Some(leader) = stat(pgid).filter(|s| s.pgrp == pgid && !s.is_zombie()) {
        return Some(leader);
    }
    scan_all()
        .into_iter()
        .filter(|s| s.pgrp == pgid && !s.is_zombie())
        .max_by_key(|s| (s.start_time, s.pid))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "1234 (a b) c)) S 1 1234 1234 34816 1300 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";

    /// Outside a PID namespace a process's id is its own; an unreadable one stays as given.
    #[test]
    fn a_pid_in_its_own_namespace() {
        let me = i32::try_from(std::process::id()).unwrap_or(i32::MAX);
        let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
        let nspid = status
            .lines()
            .find(|l| l.starts_with("NSpid:"))
            .unwrap_or("");
        if nspid.split_whitespace().count() == 2 {
            assert_eq!(pid_in_own_namespace(me), me);
        }
        assert_eq!(pid_in_own_namespace(i32::MAX), i32::MAX);
        assert_eq!(pid_in_own_namespace(0), 0);
        // This process's own group, numbered outside any PID namespace.
        let group = rustix::process::getpgrp().as_raw_nonzero().get();
        assert_eq!(pgid_in_own_namespace(group), group);
        assert_eq!(pgid_in_own_namespace(i32::MAX), i32::MAX);
    }

    #[test]
    fn parses_comm_with_spaces_and_parens() {
        let s = StatInfo::parse(SAMPLE.as_bytes());
        assert_eq!(
            s,
            Some(StatInfo {
                pid: 1234,
                comm: "a b) c)".to_owned(),
                state: 'S',
                ppid: 1,
                pgrp: 1234,
                session: 1234,
                tpgid: 1300,
                start_time: 987_654,
                cpu_ticks: 3,
                child_faults: 0,
            })
        );
    }

    #[test]
    fn parses_comm_with_newline_and_open_paren() {
        let text = "77 (x\n(y) Z 5 6 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0";
        let s = StatInfo::parse(text.as_bytes());
        // Control characters show as `?` (a name must not forge a status line).
        assert_eq!(s.as_ref().map(|s| s.comm.as_str()), Some("x?(y"));
        assert_eq!(s.as_ref().map(StatInfo::is_zombie), Some(true));
        assert_eq!(s.map(|s| (s.tpgid, s.start_time)), Some((-1, 42)));
    }

    #[test]
    fn rejects_truncated_and_garbage() {
        assert_eq!(StatInfo::parse(b""), None);
        assert_eq!(StatInfo::parse(b"12 (x) S 1 2 3"), None);
        assert_eq!(
            StatInfo::parse(b"12 x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"),
            None
        );
        assert_eq!(
            StatInfo::parse(b"ab (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"),
            None
        );
    }

    /// A file held open for reading counts; one held open for writing, or the file a process
    /// reads as its standard input, does not.
    #[test]
    fn a_file_held_open_to_read() {
        let dir = std::env::temp_dir().join(format!("procfs-held-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.txt");
        fs::write(&file, "hi\n").unwrap();
        let held = |redirect: &str| {
            let mut child = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("exec sleep 30 {redirect}\"$0\""))
                .arg(&file)
                .stdin(std::process::Stdio::null())
                .spawn()
                .unwrap();
            let pid = i32::try_from(child.id()).unwrap();
            // Until `sh` has become `sleep` with its descriptors set.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while stat(pid).is_none_or(|s| s.comm != "sleep")
                && std::time::Instant::now() < deadline
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            let holds = holds_a_file_to_read(pid);
            let _ = child.kill();
            let _ = child.wait();
            holds
        };
        assert!(held("3<"));
        assert!(!held("3>>"));
        assert!(!held("<"));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn own_stat_is_alive() {
        let me = std::process::id() as i32;
        let s = stat(me);
        assert_eq!(s.as_ref().map(|s| s.pid), Some(me));
        let id = ProcessIdentity::of(me);
        assert!(id.is_some_and(|id| id.is_alive()));
        let stale = id.map(|id| ProcessIdentity {
            pid: id.pid,
            start_time: id.start_time + 1,
        });
        // SIGCONT to a running process (this test) is harmless; the stale identity must block it.
        assert!(stale.is_some_and(|id| !id.is_alive() && !id.signal(Signal::CONT)));
    }
}
