//! The syscalls a thread asleep outside the terminal waits in, by number, and how each
//! waits: on a timer, on events with or without a timeout, on children, on a futex.

use super::super::tty_wait::{Blocking, SyscallLine, classify_syscall};
use super::Wait;

/// Syscall kinds the activity rules tell apart (beyond the terminal-input ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Sleep,
    /// `select`-family: nfds arg0, timeout pointer at `timeout_arg`.
    Select,
    /// `poll`: nfds arg1, timeout in ms arg2 (negative: none).
    Poll,
    /// `ppoll`: nfds arg1, timeout pointer arg2 (null: none).
    Ppoll,
    /// `wait4`: the pid waited for in arg0 (`-1`, `0` or a negative group: any of several).
    Wait4,
    /// `waitid`: the id type in arg0 (`P_PID` is 1), the id in arg1.
    Waitid,
    Futex,
}

#[cfg(target_arch = "x86_64")]
pub(super) fn kind(nr: i64) -> Option<Kind> {
    match nr {
        // `restart_syscall` (219): a timed wait (a sleep, a poll or futex with a timeout) the
        // kernel resumes after the process was stopped and continued.
        35 | 219 | 230 => Some(Kind::Sleep),
        23 | 270 => Some(Kind::Select),
        7 => Some(Kind::Poll),
        271 => Some(Kind::Ppoll),
        61 => Some(Kind::Wait4),
        247 => Some(Kind::Waitid),
        202 => Some(Kind::Futex),
        _ => None,
    }
}

#[cfg(target_arch = "aarch64")]
pub(super) fn kind(nr: i64) -> Option<Kind> {
    match nr {
        101 | 115 | 128 => Some(Kind::Sleep),
        72 => Some(Kind::Select),
        73 => Some(Kind::Ppoll),
        260 => Some(Kind::Wait4),
        95 => Some(Kind::Waitid),
        98 => Some(Kind::Futex),
        _ => None,
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(super) fn kind(_nr: i64) -> Option<Kind> {
    None
}

/// How a thread asleep in syscall `call` (not on the terminal) waits.
pub(super) fn sleeping_wait(call: SyscallLine) -> Wait {
    let [a0, a1, a2, a3, a4, _] = call.args;
    match kind(call.nr) {
        Some(Kind::Sleep) => Wait::Timer,
        // No fd sets at all: select used as a sleep.
        Some(Kind::Select) if a0 == 0 || (a1 == 0 && a2 == 0 && a3 == 0) => {
            if a4 == 0 {
                Wait::Event
            } else {
                Wait::Timer
            }
        }
        Some(Kind::Poll) if a1 == 0 => {
            // The timeout is a C int: its low 32 bits, negative for "none".
            if (a2 as u32 as i32) < 0 {
                Wait::Event
            } else {
                Wait::Timer
            }
        }
        Some(Kind::Ppoll) if a1 == 0 => {
            if a2 == 0 {
                Wait::Event
            } else {
                Wait::Timer
            }
        }
        Some(Kind::Wait4) => Wait::Children {
            of: i32::try_from(a0 as i64).ok().filter(|&pid| pid > 0),
        },
        Some(Kind::Waitid) => Wait::Children {
            // P_PID
            of: (a0 == 1).then(|| i32::try_from(a1).ok()).flatten(),
        },
        Some(Kind::Futex) => Wait::Other,
        _ if has_timeout(call) => Wait::TimedEvent,
        _ => Wait::Event,
    }
}

/// Whether event wait `call` (on fds) has a timeout: `select`'s and `pselect6`'s timeout
/// pointer, `poll`'s milliseconds (negative: none), `ppoll`'s and `epoll_pwait2`'s timespec
/// pointer, `epoll_wait`'s and `epoll_pwait`'s milliseconds. A zero timeout (a non-blocking
/// check) counts too. Any other call (`read`, `accept`, `recvfrom`) has none.
fn has_timeout(call: SyscallLine) -> bool {
    let [_, _, a2, a3, a4, _] = call.args;
    // A C int timeout argument: negative means none.
    let int_timeout = |t: u64| (t as u32 as i32) >= 0;
    match classify_syscall(call.nr) {
        Some(Blocking::Select) => a4 != 0,
        Some(Blocking::Poll) if kind(call.nr) == Some(Kind::Poll) => int_timeout(a2),
        Some(Blocking::Poll) => a2 != 0,
        Some(Blocking::Epoll) if is_epoll_pwait2(call.nr) => a3 != 0,
        Some(Blocking::Epoll) => int_timeout(a3),
        _ => false,
    }
}

/// `epoll_pwait2` takes a timespec pointer; the older epoll waits take milliseconds.
pub(super) fn is_epoll_pwait2(nr: i64) -> bool {
    nr == 441
}
