//! The exit status of a process that is not our child, through its pidfd.
//!
//! A sandbox launcher (bubblewrap) sits between the PTY and the shell: `waitpid` on the PTY's
//! first process reports the launcher's status, which turns a shell killed by signal N into
//! exit code 128 + N. The kernel keeps the real wait status of a process for every holder of
//! a pidfd to it, whoever reaps it (`PIDFD_GET_INFO` with `PIDFD_INFO_EXIT`, Linux 6.15+):
//! [`ExitWatch`] opens the pidfd while the process lives and reads that status once it is gone.
//! On older kernels [`ExitWatch::status`] returns `None` and the launcher's status stands.

use std::os::fd::OwnedFd;

use rustix::process::{Pid, PidfdFlags, pidfd_open};

/// `struct pidfd_info` of `<linux/pidfd.h>` up to `exit_code` (`PIDFD_INFO_SIZE_VER0`, 64
/// bytes; the kernel accepts any size from that one up).
#[repr(C)]
#[derive(Default)]
struct PidfdInfo {
    mask: u64,
    cgroupid: u64,
    pid: u32,
    tgid: u32,
    ppid: u32,
    ruid: u32,
    rgid: u32,
    euid: u32,
    egid: u32,
    suid: u32,
    sgid: u32,
    fsuid: u32,
    fsgid: u32,
    exit_code: i32,
}

/// `PIDFD_INFO_EXIT`: ask for (and, in the answer, "has") the exit status.
const PIDFD_INFO_EXIT: u64 = 1 << 3;
/// `PIDFD_GET_INFO`: `_IOWR(PIDFS_IOCTL_MAGIC = 0xFF, 11, struct pidfd_info)`.
const PIDFD_GET_INFO: rustix::ioctl::Opcode =
    rustix::ioctl::opcode::read_write::<PidfdInfo>(0xFF, 11);

/// How a watched process ended: exactly one of the two is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExitedWith {
    /// The exit status of a normal exit.
    pub(crate) code: Option<i32>,
    /// The signal that ended it.
    pub(crate) signal: Option<i32>,
}

/// A pidfd on a process whose exit status we want but cannot `waitpid` for.
#[derive(Debug)]
pub(crate) struct ExitWatch {
    pidfd: OwnedFd,
}

impl ExitWatch {
    /// Opens a pidfd on `pid` (`None` when it is gone or pidfds are unsupported). The caller
    /// checks afterwards that `pid` is still the process it means.
    pub(crate) fn open(pid: i32) -> Option<Self> {
        let pidfd = pidfd_open(Pid::from_raw(pid)?, PidfdFlags::empty()).ok()?;
        Some(Self { pidfd })
    }

    /// The process's wait status once it has exited and been reaped (by anyone); `None` while
    /// it lives, or when the kernel does not keep exit statuses for pidfds.
    pub(crate) fn status(&self) -> Option<ExitedWith> {
        let mut info = PidfdInfo {
            mask: PIDFD_INFO_EXIT,
            ..PidfdInfo::default()
        };
        // SAFETY: `PIDFD_GET_INFO` reads and writes exactly a `struct pidfd_info` of the size
        // encoded in the opcode, which is `PidfdInfo` (`repr(C)`, the kernel's field order).
        #[allow(unsafe_code)]
        let answered = unsafe {
            let updater = rustix::ioctl::Updater::<PIDFD_GET_INFO, PidfdInfo>::new(&mut info);
            rustix::ioctl::ioctl(&self.pidfd, updater)
        };
        if answered.is_err() || info.mask & PIDFD_INFO_EXIT == 0 {
            return None;
        }
        Some(decode(info.exit_code))
    }
}

/// Decodes a raw wait status (`WIFEXITED` / `WEXITSTATUS` / `WTERMSIG`).
fn decode(raw: i32) -> ExitedWith {
    let low = raw & 0x7f;
    if low == 0 {
        ExitedWith {
            code: Some((raw >> 8) & 0xff),
            signal: None,
        }
    } else {
        ExitedWith {
            code: None,
            signal: Some(low),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_struct_is_the_kernels_first_version() {
        assert_eq!(std::mem::size_of::<PidfdInfo>(), 64);
    }

    #[test]
    fn decodes_wait_statuses() {
        assert_eq!(
            decode(9),
            ExitedWith {
                code: None,
                signal: Some(9)
            }
        );
        assert_eq!(
            decode(137 << 8),
            ExitedWith {
                code: Some(137),
                signal: None
            }
        );
        assert_eq!(
            decode(0),
            ExitedWith {
                code: Some(0),
                signal: None
            }
        );
    }
}
