//! The system-call filters every confined session runs under (seccomp BPF, compiled with
//! `seccompiler`, loaded by bubblewrap from a descriptor).
//!
//! A confined session under a server run as root is root on the host's filesystem where it
//! may write (the workspace): without a filter it could leave behind a set-user-ID program
//! owned by root (`chmod 4755`), which any host user then runs as root, since the sandbox's
//! `nosuid` holds only inside it. And the kernel's key rings are not namespaced: a session
//! would read and plant keys in the keyrings of its user on the host (credential caches), and
//! share them with other sessions. So:
//! - [`DENIED`] (`EPERM`): setting the set-user-ID or set-group-ID bit, by `chmod`,
//!   `fchmod`, `fchmodat`, `fchmodat2`, or by creating a file or node with it
//!   (`open`/`openat`/`creat` with `O_CREAT` or `O_TMPFILE`, `mknod`, `mknodat`), as systemd's
//!   `RestrictSUIDSGID=` does; and the key-ring calls `add_key`, `request_key`, `keyctl`;
//!   and `ioctl` TIOCSTI, which pushes bytes into a terminal's input as if typed: a program
//!   could type commands into the session's own shell that no send typed (the session's
//!   terminal is the only one it can open), as Flatpak's filter also refuses. The request is
//!   compared as the kernel reads it, by its low 32 bits.
//!   Not `mkdir`: the kernel drops both bits from the mode it is given (a directory only
//!   inherits set-group-ID from its parent), and `cp -r` creates each directory with its
//!   source's mode, bits included, so refusing it broke copies of such trees for nothing. A
//!   filter cannot tell a directory from a file, so `chmod 755` of a directory that already
//!   has set-group-ID (GNU `chmod` passes the bit back) is refused too: `chmod 00755` or
//!   `g-s` clears it.
//! - [`UNAVAILABLE`] (`ENOSYS`, so programs take their fallback): the calls that would
//!   create files with modes the first filter cannot see, `openat2` (its mode lies in a
//!   struct) and `io_uring_setup` (a ring's operations are no system calls). `ENOSYS` is what
//!   libraries expect from a kernel without them (glibc never needs `openat2`; libuv and
//!   others use io_uring only when it can be set up).
//!
//! Calls of another architecture's ABI (a 32-bit program, `int 0x80`) are not allowed past
//! the filter: `seccompiler` ends such a process (`SIGSYS`), since their call numbers differ.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::fd::OwnedFd;
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The set-user-ID and set-group-ID mode bits.
const SETID_BITS: [u64; 2] = [libc::S_ISUID as u64, libc::S_ISGID as u64];

/// Which filter a program is: see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Filter {
    /// `EPERM` for set-ID modes and the key rings.
    Denied,
    /// `ENOSYS` for `openat2` and io_uring.
    Unavailable,
}

/// The filter that answers `EPERM`.
pub(crate) const DENIED: Filter = Filter::Denied;
/// The filter that answers `ENOSYS`.
pub(crate) const UNAVAILABLE: Filter = Filter::Unavailable;

/// `arg` (a 32-bit argument) has all of `bits` set.
fn has_bits(arg: u8, bits: u64) -> SeccompCondition {
    SeccompCondition::new(
        arg,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::MaskedEq(bits),
        bits,
    )
    .unwrap_or_else(|e| unreachable!("argument index {arg} is valid: {e}"))
}

/// One rule per set-ID bit: the mode argument `mode_arg` has it, with `also` (e.g. the
/// `O_CREAT` flag) holding too.
fn setid_rules(mode_arg: u8, also: &[SeccompCondition]) -> Vec<SeccompRule> {
    SETID_BITS
        .iter()
        .map(|&bit| {
            let mut conditions = also.to_vec();
            conditions.push(has_bits(mode_arg, bit));
            SeccompRule::new(conditions).unwrap_or_else(|e| unreachable!("rule is valid: {e}"))
        })
        .collect()
}

/// Rules for an open call whose flags are argument `flags_arg` and mode `flags_arg + 1`: a
/// set-ID mode with `O_CREAT`, or with `O_TMPFILE`.
fn open_rules(flags_arg: u8) -> Vec<SeccompRule> {
    [libc::O_CREAT, libc::O_TMPFILE]
        .into_iter()
        .flat_map(|flag| setid_rules(flags_arg + 1, &[has_bits(flags_arg, flag as u64)]))
        .collect()
}

/// The rules of `filter`, by call number.
fn rules(filter: Filter) -> BTreeMap<i64, Vec<SeccompRule>> {
    let mut rules = BTreeMap::new();
    match filter {
        Filter::Denied => {
            rules.insert(libc::SYS_fchmod, setid_rules(1, &[]));
            rules.insert(libc::SYS_fchmodat, setid_rules(2, &[]));
            rules.insert(libc::SYS_fchmodat2, setid_rules(2, &[]));
            rules.insert(libc::SYS_mknodat, setid_rules(2, &[]));
            rules.insert(libc::SYS_openat, open_rules(2));
            #[cfg(target_arch = "x86_64")]
            {
                rules.insert(libc::SYS_chmod, setid_rules(1, &[]));
                rules.insert(libc::SYS_mknod, setid_rules(1, &[]));
                rules.insert(libc::SYS_creat, setid_rules(1, &[]));
                rules.insert(libc::SYS_open, open_rules(1));
            }
            for call in [libc::SYS_add_key, libc::SYS_request_key, libc::SYS_keyctl] {
                rules.insert(call, Vec::new());
            }
            let tiocsti =
                SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, libc::TIOCSTI)
                    .and_then(|condition| SeccompRule::new(vec![condition]))
                    .unwrap_or_else(|e| unreachable!("rule is valid: {e}"));
            rules.insert(libc::SYS_ioctl, vec![tiocsti]);
        }
        Filter::Unavailable => {
            for call in [libc::SYS_openat2, libc::SYS_io_uring_setup] {
                rules.insert(call, Vec::new());
            }
        }
    }
    rules
}

/// The architecture this server was built for, when `seccompiler` knows it.
fn target_arch() -> Option<TargetArch> {
    TargetArch::try_from(std::env::consts::ARCH).ok()
}

/// `filter` compiled for this architecture, as the bytes bubblewrap reads (the kernel's
/// `struct sock_filter` array in native byte order: a 16-bit code, two 8-bit jumps, a 32-bit
/// value, per instruction). `None` on an architecture `seccompiler` does not know.
pub(crate) fn program_bytes(filter: Filter) -> Option<Vec<u8>> {
    let errno = match filter {
        Filter::Denied => libc::EPERM,
        Filter::Unavailable => libc::ENOSYS,
    };
    let compiled = SeccompFilter::new(
        rules(filter),
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        target_arch()?,
    )
    .and_then(BpfProgram::try_from)
    .unwrap_or_else(|e| unreachable!("the filter's rules are valid: {e}"));
    let mut bytes = Vec::with_capacity(compiled.len() * 8);
    for instruction in compiled {
        bytes.extend_from_slice(&instruction.code.to_ne_bytes());
        bytes.push(instruction.jt);
        bytes.push(instruction.jf);
        bytes.extend_from_slice(&instruction.k.to_ne_bytes());
    }
    Some(bytes)
}

/// The filters as sealed, read-only in-memory files of this process (made once, closed on
/// `exec`), named by their `/proc/<pid>/fd/<n>` paths, which the sandbox's launcher opens
/// for bubblewrap. Empty when they cannot be made (an unknown architecture, no `memfd`):
/// sessions then run without them, and the failure is logged once.
pub(crate) fn program_paths() -> &'static [String] {
    static PROGRAMS: OnceLock<(Vec<OwnedFd>, Vec<String>)> = OnceLock::new();
    &PROGRAMS
        .get_or_init(|| match sealed_programs() {
            Ok(fds) => {
                let pid = std::process::id();
                let paths = fds
                    .iter()
                    .map(|fd| {
                        use std::os::fd::AsRawFd as _;
                        format!("/proc/{pid}/fd/{}", fd.as_raw_fd())
                    })
                    .collect();
                (fds, paths)
            }
            Err(err) => {
                tracing::error!(
                    %err,
                    "cannot make the sandbox's system-call filters; confined sessions run without them (a session could then set the set-user-ID bit on files it writes and use the host's key rings)"
                );
                (Vec::new(), Vec::new())
            }
        })
        .1
}

fn sealed_programs() -> std::io::Result<Vec<OwnedFd>> {
    use rustix::fs::{MemfdFlags, SealFlags};
    let mut fds = Vec::new();
    for filter in [DENIED, UNAVAILABLE] {
        let bytes = program_bytes(filter).ok_or_else(|| {
            std::io::Error::other(format!(
                "no seccomp support for the {} architecture",
                std::env::consts::ARCH
            ))
        })?;
        let fd = rustix::fs::memfd_create(
            "dsh-sandbox-seccomp",
            MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
        )?;
        let mut file = std::fs::File::from(fd);
        file.write_all(&bytes)?;
        rustix::fs::fcntl_add_seals(
            &file,
            SealFlags::SEAL | SealFlags::SHRINK | SealFlags::GROW | SealFlags::WRITE,
        )?;
        fds.push(OwnedFd::from(file));
    }
    Ok(fds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_programs_compile_to_whole_instructions() {
        for filter in [DENIED, UNAVAILABLE] {
            let bytes = program_bytes(filter).unwrap_or_else(|| panic!("known architecture"));
            assert!(!bytes.is_empty());
            assert_eq!(bytes.len() % 8, 0, "{filter:?}");
        }
    }

    #[test]
    fn the_programs_are_open_for_the_launcher() {
        let paths = program_paths();
        assert_eq!(paths.len(), 2);
        for path in paths {
            let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert_eq!(bytes.len() % 8, 0);
            // Sealed: no one, this process included, can change them.
            assert!(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .and_then(|mut f| f.write_all(b"x"))
                    .is_err()
            );
        }
    }
}
