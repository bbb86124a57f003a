//! The "foreground group is blocked reading the terminal" classifier (kernel-true stdin
//! detection).
//!
//! Flow, for every process whose `pgrp` is the group and every thread of it:
//! 1. the thread must be asleep (`S`); anything running, stopped or in disk sleep means the
//!    group is not waiting;
//! 2. `/proc/PID/task/TID/syscall` names the blocking syscall and its arguments (a `poll`
//!    resumed after a stop and a continue shows as `restart_syscall`: [`thread_syscall`]
//!    names it `poll` again);
//! 3. the syscall is matched against the tty: `read`-family on an fd that is the tty;
//!    `select`/`pselect6` whose read set (read from the process's memory) holds the tty fd;
//!    `poll`/`ppoll` whose pollfd array holds the tty fd with `POLLIN`; `epoll_wait`-family
//!    whose epoll instance watches the tty with `EPOLLIN` (per `/proc/PID/fdinfo/EPFD`).
//!
//! The group waits when no thread runs and at least one thread is blocked on the tty.
//! Unreadable data is a miss.

use std::fs;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::procfs;
use super::scope::ProcessScope;

/// Largest `select` fd set / `poll` array this classifier reads from another process.
const MAX_SCAN_FDS: u64 = 65_536;

/// `EPOLLIN` as printed in epoll fdinfo `events:`.
const EPOLLIN: u32 = 0x001;

/// Syscall numbers that matter to the classifier, for the running architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    expect(dead_code, reason = "no syscall table for this architecture")
)]
pub(super) enum Blocking {
    /// `read`, `readv`, `pread64`, `preadv`, `preadv2`: fd is arg0.
    Read,
    /// `select` / `pselect6`: nfds arg0, read set arg1.
    Select,
    /// `poll` / `ppoll`: pollfd array arg0, nfds arg1.
    Poll,
    /// `epoll_wait` / `epoll_pwait` / `epoll_pwait2`: epfd arg0.
    Epoll,
}

#[cfg(target_arch = "x86_64")]
pub(super) fn classify_syscall(nr: i64) -> Option<Blocking> {
    match nr {
        0 | 17 | 19 | 295 | 327 => Some(Blocking::Read),
        23 | 270 => Some(Blocking::Select),
        7 | 271 => Some(Blocking::Poll),
        232 | 281 | 441 => Some(Blocking::Epoll),
        _ => None,
    }
}

#[cfg(target_arch = "aarch64")]
pub(super) fn classify_syscall(nr: i64) -> Option<Blocking> {
    match nr {
        63 | 65 | 67 | 69 | 286 => Some(Blocking::Read),
        72 => Some(Blocking::Select),
        73 => Some(Blocking::Poll),
        22 | 441 => Some(Blocking::Epoll),
        _ => None,
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(super) fn classify_syscall(_nr: i64) -> Option<Blocking> {
    None
}

/// The numbers of `write` and `writev`.
#[cfg(target_arch = "x86_64")]
const WRITES: [i64; 2] = [1, 20];
#[cfg(target_arch = "aarch64")]
const WRITES: [i64; 2] = [64, 66];
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const WRITES: [i64; 0] = [];

/// Whether process `pid` is blocked in a write (`write`, `writev`): a REPL echoing the line it
/// takes in blocks there while its terminal's output is full (the session's reader of it is
/// behind on a loaded machine). One `/proc` read.
pub(crate) fn blocked_writing(pid: i32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/syscall"))
        .ok()
        .and_then(|text| parse_syscall(&text))
        .is_some_and(|call| WRITES.contains(&call.nr))
}

/// One line of `/proc/PID/task/TID/syscall`: the syscall number and its six arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SyscallLine {
    pub(super) nr: i64,
    pub(super) args: [u64; 6],
}

/// Parses `/proc/.../syscall`; `None` for `running`, `-1 sp pc` (not in a syscall) and garbage.
pub(super) fn parse_syscall(text: &str) -> Option<SyscallLine> {
    let mut words = text.split_ascii_whitespace();
    let nr: i64 = words.next()?.parse().ok()?;
    if nr < 0 {
        return None;
    }
    let mut args = [0u64; 6];
    for slot in &mut args {
        let word = words.next()?;
        let hex = word.strip_prefix("0x").unwrap_or(word);
        *slot = u64::from_str_radix(hex, 16).ok()?;
    }
    Some(SyscallLine { nr, args })
}

/// `restart_syscall` on x86_64: what a thread is in once a stop and a continue (SIGTSTP,
/// then `fg`) interrupted a `poll` (also a `nanosleep`, a futex wait): the kernel resumes the
/// call through it, and `/proc/.../syscall` names it instead of the call, with the call's
/// arguments still in their registers.
#[cfg(target_arch = "x86_64")]
const RESTART_SYSCALL: i64 = 219;

/// `poll` on x86_64.
#[cfg(target_arch = "x86_64")]
const POLL: i64 = 7;

/// The syscall thread `base` (`/proc/PID/task/TID`) sleeps in, from its `syscall` file's
/// `text`: as [`parse_syscall`], but a `poll` resumed through [`RESTART_SYSCALL`] (its
/// `wchan` is poll's sleep) is named `poll` again, with its arguments, so a program waiting
/// on the terminal in `poll` (gdb, Python's `select.poll`) still counts as reading it after
/// a stop and a continue.
pub(super) fn thread_syscall(base: &Path, text: &str) -> Option<SyscallLine> {
    let call = parse_syscall(text)?;
    #[cfg(target_arch = "x86_64")]
    if call.nr == RESTART_SYSCALL
        && fs::read_to_string(base.join("wchan"))
            .is_ok_and(|wchan| wchan.starts_with("poll_schedule_timeout"))
    {
        return Some(SyscallLine { nr: POLL, ..call });
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = base;
    Some(call)
}

/// What the tty is, so fds of other processes can be matched against it.
#[derive(Debug)]
pub(super) struct Tty {
    path: PathBuf,
    /// `st_rdev` of the character device, when `stat` worked.
    rdev: Option<u64>,
    /// `(st_dev, st_ino)` of the device node, for epoll `ino:`/`sdev:` matching.
    node: Option<(u64, u64)>,
}

impl Tty {
    pub(super) fn new(path: &Path) -> Self {
        let meta = fs::metadata(path).ok();
        Self {
            path: path.to_path_buf(),
            rdev: meta.as_ref().map(MetadataExt::rdev).filter(|&r| r != 0),
            node: meta.as_ref().map(|m| (m.dev(), m.ino())),
        }
    }

    /// Whether fd `fd` of process `pid` is this tty.
    fn is_fd(&self, pid: i32, fd: u64) -> bool {
        let link = PathBuf::from(format!("/proc/{pid}/fd/{fd}"));
        if let Some(rdev) = self.rdev {
            // stat follows the magic link to the open file itself (`/dev/pts/N` under any
            // devpts mount). `/dev/tty` stays its own inode (5:0) but reads from the process's
            // controlling terminal, so it is this tty when that terminal is (getpass, sudo,
            // `read < /dev/tty`).
            return fs::metadata(&link).is_ok_and(|m| {
                is_char_device(&m)
                    && (m.rdev() == rdev
                        || (m.rdev() == DEV_TTY_RDEV && controlling_tty_nr(pid) == Some(rdev)))
            });
        }
        fs::read_link(&link).is_ok_and(|target| target == self.path)
    }
}

/// `st_rdev` of `/dev/tty` (major 5, minor 0).
const DEV_TTY_RDEV: u64 = 5 << 8;

/// Field 7 (`tty_nr`) of `/proc/PID/stat`: the controlling terminal's device number, in the
/// same encoding as `st_rdev` for the devices concerned.
fn controlling_tty_nr(pid: i32) -> Option<u64> {
    let stat = fs::read(format!("/proc/{pid}/stat")).ok()?;
    let close = stat.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(stat.get(close + 1..)?).ok()?;
    // After `comm)`: state, ppid, pgrp, session, tty_nr.
    rest.split_ascii_whitespace()
        .nth(4)?
        .parse::<i64>()
        .ok()
        .and_then(|v| u64::try_from(v).ok())
}

fn is_char_device(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_char_device()
}

/// Whether process group `pgid` is provably blocked waiting for input from the terminal
/// `tty_path` (the PTY slave, e.g. `/dev/pts/3`; `portable-pty`'s `tty_name()`).
///
/// True when no thread of the group is running, stopped or in disk sleep, and at least one
/// thread is asleep in: `read`/`readv`/`pread64` on an fd that is the tty (any fd, so `less`
/// reading `/dev/tty` on fd 3 counts); `select`/`pselect6` whose read set holds the tty fd;
/// `poll`/`ppoll` polling the tty for `POLLIN`; or `epoll_wait`/`epoll_pwait`/`epoll_pwait2` on
/// an epoll instance that watches the tty for `EPOLLIN` (node, libuv). `sleep`, busy loops,
/// `wait4`, `futex` and pipe reads are not waiting. Only x86_64 and aarch64 syscall tables are
/// known; other architectures always get `false`. Needs ptrace-level access to the group's
/// processes (same user); anything unreadable is a miss. Costs roughly one `/proc` scan.
#[must_use]
pub fn is_group_waiting_on_tty(pgid: i32, tty_path: &Path) -> bool {
    is_group_waiting_on_tty_in(pgid, tty_path, &ProcessScope::everywhere())
}

/// [`is_group_waiting_on_tty`] looking for the group's members only in `scope`.
pub(crate) fn is_group_waiting_on_tty_in(pgid: i32, tty_path: &Path, scope: &ProcessScope) -> bool {
    group_tty_reader_in(pgid, tty_path, scope).is_some()
}

/// The member of process group `pgid` (found in `scope`) that waits for input on the terminal
/// at `tty_path`, when the group waits by [`is_group_waiting_on_tty`]'s rule: the lowest pid
/// among the members with a thread asleep on the tty. `git commit` waiting in its editor
/// yields the editor, not git.
pub(crate) fn group_tty_reader_in(pgid: i32, tty_path: &Path, scope: &ProcessScope) -> Option<i32> {
    reader_of(pgid, tty_path, scope).map(|(pid, _)| pid)
}

/// The thread of [`group_tty_reader_in`]'s member that waits on the terminal (its first such
/// thread), with the CPU time it has run so far: a later [`ReaderThread::ran_since`] tells
/// whether it woke up in between.
pub(crate) fn group_tty_reader_thread_in(
    pgid: i32,
    tty_path: &Path,
    scope: &ProcessScope,
) -> Option<ReaderThread> {
    let (pid, tid) = reader_of(pgid, tty_path, scope)?;
    let base = PathBuf::from(format!("/proc/{pid}/task/{tid}"));
    let timed = fs::read_to_string(base.join("syscall"))
        .ok()
        .as_deref()
        .and_then(|text| thread_syscall(&base, text))
        .is_some_and(|call| super::wait_timeout::tty_wait_timeout(pid, call).is_some());
    Some(ReaderThread {
        pid,
        tid,
        ran_ns: procfs::thread_ran_ns(pid, tid),
        timed,
    })
}

/// The lowest-pid member of group `pgid` with a thread asleep on the terminal, and that thread.
fn reader_of(pgid: i32, tty_path: &Path, scope: &ProcessScope) -> Option<(i32, i32)> {
    if pgid <= 0 {
        return None;
    }
    let tty = Tty::new(tty_path);
    let members: Vec<i32> = scope
        .stats()
        .into_iter()
        .filter(|s| s.pgrp == pgid && !s.is_zombie())
        .map(|s| s.pid)
        .collect();
    let mut reader: Option<(i32, i32)> = None;
    for pid in members {
        let task_dir = PathBuf::from(format!("/proc/{pid}/task"));
        for tid in procfs::numeric_entries(&task_dir) {
            match thread_verdict(pid, tid, &tty) {
                Thread::Busy => return None,
                Thread::OnTty if reader.is_none_or(|(r, _)| pid < r) => reader = Some((pid, tid)),
                Thread::OnTty | Thread::Elsewhere => {}
            }
        }
    }
    reader
}

/// Whether a process found in `scope` outside group `pgid` has a thread asleep reading the
/// terminal at `tty_path`: a terminal multiplexer's server reads its client's terminal itself
/// (tmux's client hands the server its terminal and waits on a socket), so the keys typed to
/// the client in the foreground are taken there.
pub(crate) fn tty_read_outside_group_in(pgid: i32, tty_path: &Path, scope: &ProcessScope) -> bool {
    thread_on_tty_in(tty_path, scope, |pgrp| pgrp != pgid)
}

/// Whether a member of group `pgid` found in `scope` has a thread asleep reading the terminal
/// at `tty_path`, whatever its other threads and members do (`cat | busy-program`: `cat`
/// reads the terminal while the program beside it computes).
pub(crate) fn group_member_reads_tty_in(pgid: i32, tty_path: &Path, scope: &ProcessScope) -> bool {
    pgid > 0 && thread_on_tty_in(tty_path, scope, |pgrp| pgrp == pgid)
}

/// Whether a live process found in `scope` whose process group `in_groups` accepts has a
/// thread asleep reading the terminal at `tty_path`.
fn thread_on_tty_in(
    tty_path: &Path,
    scope: &ProcessScope,
    in_groups: impl Fn(i32) -> bool,
) -> bool {
    let tty = Tty::new(tty_path);
    scope
        .stats()
        .into_iter()
        .filter(|s| in_groups(s.pgrp) && !s.is_zombie())
        .any(|s| {
            let task_dir = PathBuf::from(format!("/proc/{}/task", s.pid));
            procfs::numeric_entries(&task_dir)
                .into_iter()
                .any(|tid| thread_verdict(s.pid, tid, &tty) == Thread::OnTty)
        })
}

/// A thread found asleep on the terminal, and the CPU time it had run by then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ReaderThread {
    /// Its process.
    pub(crate) pid: i32,
    /// The thread.
    pub(crate) tid: i32,
    /// Nanoseconds it had run on a CPU (`/proc/PID/task/TID/schedstat`), `None` when that
    /// could not be read.
    pub(crate) ran_ns: Option<u64>,
    /// Its wait had a timeout: a timer of the program's was already pending (node's REPL
    /// keeps one), so a timer pending after the input is not by itself work the input started.
    pub(crate) timed: bool,
}

impl ReaderThread {
    /// Whether the thread has run since it was found asleep: it woke up (input arrived, a
    /// timer or signal fired) and, if it waits again, left its wait in between, though no
    /// probe may have seen it away. A thread that is gone has left; `false` when its CPU time
    /// could not be read either time. Blocking `/proc` read.
    pub(crate) fn ran_since(&self) -> bool {
        let Some(before) = self.ran_ns else {
            return false;
        };
        procfs::thread_ran_ns(self.pid, self.tid).is_none_or(|now| now != before)
    }
}

/// What one thread is doing, for the classifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Thread {
    /// Running, runnable, stopped, in disk sleep or unreadable state: the group is not waiting.
    Busy,
    /// Asleep in a syscall that waits for tty input.
    OnTty,
    /// Asleep in something else (timer, futex, pipe, child wait), or already exited.
    Elsewhere,
}

fn thread_verdict(pid: i32, tid: i32, tty: &Tty) -> Thread {
    let base = PathBuf::from(format!("/proc/{pid}/task/{tid}"));
    let Some(st) = procfs::read_stat_file(&base.join("stat")) else {
        // The thread exited between listing and reading.
        return Thread::Elsewhere;
    };
    match st.state {
        'S' => {}
        'Z' | 'X' | 'x' => return Thread::Elsewhere,
        _ => return Thread::Busy,
    }
    let Some(call) = fs::read_to_string(base.join("syscall"))
        .ok()
        .as_deref()
        .and_then(|text| thread_syscall(&base, text))
    else {
        return Thread::Elsewhere;
    };
    if blocked_on_tty(pid, call, tty) {
        Thread::OnTty
    } else {
        Thread::Elsewhere
    }
}

pub(super) fn blocked_on_tty(pid: i32, call: SyscallLine, tty: &Tty) -> bool {
    let [a0, a1, ..] = call.args;
    match classify_syscall(call.nr) {
        Some(Blocking::Read) => tty.is_fd(pid, a0),
        Some(Blocking::Select) => select_has_tty(pid, a0, a1, tty),
        Some(Blocking::Poll) => poll_has_tty(pid, a0, a1, tty),
        Some(Blocking::Epoll) => epoll_has_tty(pid, a0, tty, 0),
        None => false,
    }
}

/// `select(nfds, readfds, ...)`: read the fd set from the process and test each set bit.
fn select_has_tty(pid: i32, nfds: u64, readfds: u64, tty: &Tty) -> bool {
    if nfds == 0 || readfds == 0 {
        return false;
    }
    let nfds = nfds.min(MAX_SCAN_FDS);
    let Ok(len) = usize::try_from(nfds.div_ceil(64) * 8) else {
        return false;
    };
    match read_remote(pid, readfds, len) {
        // fd_set is an array of `unsigned long` (64-bit here); fd n is bit n % 64 of word n / 64.
        Some(bits) => {
            let words: Vec<u64> = bits
                .chunks_exact(8)
                .map(|w| u64::from_ne_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
                .collect();
            (0..nfds).any(|fd| {
                let word = usize::try_from(fd / 64)
                    .ok()
                    .and_then(|i| words.get(i))
                    .copied()
                    .unwrap_or(0);
                word & (1 << (fd % 64)) != 0 && tty.is_fd(pid, fd)
            })
        }
        // Memory unreadable: only the single-fd case is decidable (fd 0 being the tty).
        None => nfds == 1 && tty.is_fd(pid, 0),
    }
}

/// `poll(fds, nfds, ...)`: read the `struct pollfd` array and look for the tty with `POLLIN`.
fn poll_has_tty(pid: i32, fds: u64, nfds: u64, tty: &Tty) -> bool {
    const POLLFD_BYTES: u64 = 8; // int fd; short events; short revents;
    if fds == 0 || nfds == 0 {
        return false;
    }
    let Ok(len) = usize::try_from(nfds.min(MAX_SCAN_FDS) * POLLFD_BYTES) else {
        return false;
    };
    let Some(raw) = read_remote(pid, fds, len) else {
        return false;
    };
    raw.chunks_exact(8).any(|entry| {
        let fd = i32::from_ne_bytes([entry[0], entry[1], entry[2], entry[3]]);
        let events = i16::from_ne_bytes([entry[4], entry[5]]);
        let wants_input = rustix::event::PollFlags::from_bits_retain(events as u16)
            .intersects(rustix::event::PollFlags::IN | rustix::event::PollFlags::RDNORM);
        wants_input && u64::try_from(fd).is_ok_and(|fd| tty.is_fd(pid, fd))
    })
}

/// `epoll_wait(epfd, ...)`: the epoll instance's fdinfo lists each watched target as
/// `tfd: N events: HEX data: HEX pos:0 ino:HEX sdev:HEX`. Nested epoll instances are followed
/// one level deep.
fn epoll_has_tty(pid: i32, epfd: u64, tty: &Tty, depth: u8) -> bool {
    let Ok(info) = fs::read_to_string(format!("/proc/{pid}/fdinfo/{epfd}")) else {
        return false;
    };
    info.lines().filter_map(parse_tfd_line).any(|target| {
        if target.events & EPOLLIN == 0 {
            return false;
        }
        if tty.is_fd(pid, target.fd) || target.is_node(tty) {
            return true;
        }
        depth == 0 && is_epoll_fd(pid, target.fd) && epoll_has_tty(pid, target.fd, tty, depth + 1)
    })
}

/// One `tfd:` line of an epoll fdinfo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EpollTarget {
    fd: u64,
    events: u32,
    ino: Option<u64>,
    sdev: Option<u64>,
}

impl EpollTarget {
    /// Whether the watched file is the tty's device node (the fd may have been closed or be in
    /// another process that shares the epoll instance).
    fn is_node(&self, tty: &Tty) -> bool {
        let (Some((dev, ino)), Some(t_ino), Some(sdev)) = (tty.node, self.ino, self.sdev) else {
            return false;
        };
        // `sdev` is the kernel's dev_t (major << 20 | minor); convert to the userspace encoding.
        let (major, minor) = (sdev >> 20, sdev & 0xf_ffff);
        let user_dev = rustix::fs::makedev(major as u32, minor as u32);
        t_ino == ino && user_dev == dev
    }
}

fn parse_tfd_line(line: &str) -> Option<EpollTarget> {
    let rest = line.strip_prefix("tfd:")?;
    let mut words = rest.split_ascii_whitespace();
    let fd = words.next()?.parse().ok()?;
    let mut target = EpollTarget {
        fd,
        events: 0,
        ino: None,
        sdev: None,
    };
    let mut pending: Option<&str> = None;
    for word in words {
        // Both `events: 19` (separate value) and `ino:3` (glued) forms occur.
        let (key, value) = match (pending.take(), word.split_once(':')) {
            (Some(key), _) => (key, word),
            (None, Some((key, ""))) => {
                pending = Some(key);
                continue;
            }
            (None, Some((key, value))) => (key, value),
            (None, None) => continue,
        };
        let parsed = u64::from_str_radix(value, 16).ok();
        match key {
            "events" => target.events = parsed.and_then(|v| u32::try_from(v).ok())?,
            "ino" => target.ino = parsed,
            "sdev" => target.sdev = parsed,
            _ => {}
        }
    }
    Some(target)
}

fn is_epoll_fd(pid: i32, fd: u64) -> bool {
    fs::read_link(format!("/proc/{pid}/fd/{fd}"))
        .is_ok_and(|t| t.as_os_str() == "anon_inode:[eventpoll]")
}

/// Reads `len` bytes at `addr` of process `pid` through `/proc/PID/mem` (the same ptrace
/// access check as `process_vm_readv`, without unsafe code).
pub(super) fn read_remote(pid: i32, addr: u64, len: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; len];
    let mem = fs::File::open(format!("/proc/{pid}/mem")).ok()?;
    mem.read_exact_at(&mut buf, addr).ok()?;
    Some(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_syscall_lines() {
        let line = "0 0x0 0x55d0c8a0 0x20000 0x0 0x0 0x0 0x7ffd 0x7f12\n";
        assert_eq!(
            parse_syscall(line),
            Some(SyscallLine {
                nr: 0,
                args: [0, 0x55d0_c8a0, 0x20000, 0, 0, 0]
            })
        );
        assert_eq!(parse_syscall("running\n"), None);
        assert_eq!(parse_syscall("-1 0x7ffd 0x7f12\n"), None);
        assert_eq!(parse_syscall("7 0x1 0x2\n"), None);
    }

    #[test]
    fn parses_epoll_fdinfo_lines() {
        let line = "tfd:       18 events:       19 data:               12  pos:0 ino:3 sdev:19";
        assert_eq!(
            parse_tfd_line(line),
            Some(EpollTarget {
                fd: 18,
                events: 0x19,
                ino: Some(3),
                sdev: Some(0x19)
            })
        );
        assert_eq!(parse_tfd_line("pos:\t0"), None);
        assert_eq!(parse_tfd_line("tfd: x events: 1"), None);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn x86_64_syscall_table() {
        assert_eq!(classify_syscall(0), Some(Blocking::Read));
        assert_eq!(classify_syscall(270), Some(Blocking::Select));
        assert_eq!(classify_syscall(271), Some(Blocking::Poll));
        assert_eq!(classify_syscall(281), Some(Blocking::Epoll));
        for not_input in [61, 202, 230, 35] {
            assert_eq!(classify_syscall(not_input), None, "syscall {not_input}");
        }
    }
}
