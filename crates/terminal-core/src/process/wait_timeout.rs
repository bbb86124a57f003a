//! The timeout of a syscall that waits for the terminal: how soon the program wakes by itself
//! (an event loop's timer, a `select` loop's period), for [`super::activity`]'s verdict.

use std::time::Duration;

use super::tty_wait::{SyscallLine, read_remote};

/// Where a waiting syscall keeps its timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimeoutArg {
    /// A C int of milliseconds in argument `n`; negative: none (`poll`, `epoll_wait`).
    Millis(usize),
    /// A pointer to a `struct timespec` in argument `n`; null: none (`pselect6`, `ppoll`,
    /// `epoll_pwait2`).
    Timespec(usize),
    /// A pointer to a `struct timeval` in argument `n`; null: none (`select`).
    Timeval(usize),
}

#[cfg(target_arch = "x86_64")]
fn timeout_arg(nr: i64) -> Option<TimeoutArg> {
    match nr {
        23 => Some(TimeoutArg::Timeval(4)),
        270 => Some(TimeoutArg::Timespec(4)),
        7 => Some(TimeoutArg::Millis(2)),
        271 => Some(TimeoutArg::Timespec(2)),
        232 | 281 => Some(TimeoutArg::Millis(3)),
        441 => Some(TimeoutArg::Timespec(3)),
        _ => None,
    }
}

#[cfg(target_arch = "aarch64")]
fn timeout_arg(nr: i64) -> Option<TimeoutArg> {
    match nr {
        72 => Some(TimeoutArg::Timespec(4)),
        73 => Some(TimeoutArg::Timespec(2)),
        22 => Some(TimeoutArg::Millis(3)),
        441 => Some(TimeoutArg::Timespec(3)),
        _ => None,
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn timeout_arg(_nr: i64) -> Option<TimeoutArg> {
    None
}

/// The timeout of a terminal wait in syscall `call` of process `pid`, when it has one (see
/// [`super::GroupActivity::ReadingTty`]): the value it was called with (`select` writes back what is
/// left only as it returns). A `read` has none.
pub(super) fn tty_wait_timeout(pid: i32, call: SyscallLine) -> Option<Duration> {
    let (n, micros_per_unit) = match timeout_arg(call.nr)? {
        TimeoutArg::Millis(n) => {
            // A C int: its low 32 bits, negative for "none".
            let ms = call.args[n] as u32 as i32;
            return u64::try_from(ms).ok().map(Duration::from_millis);
        }
        TimeoutArg::Timespec(n) => (n, false),
        TimeoutArg::Timeval(n) => (n, true),
    };
    let addr = call.args[n];
    if addr == 0 {
        return None;
    }
    // `{ seconds, nanoseconds }` or `{ seconds, microseconds }`, two 64-bit fields here.
    let Some(raw) = read_remote(pid, addr, 16) else {
        return Some(Duration::MAX);
    };
    let field = |at: usize| {
        raw.get(at..at + 8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map_or(0, i64::from_ne_bytes)
    };
    let secs = u64::try_from(field(0)).unwrap_or(0);
    let sub = u64::try_from(field(8)).unwrap_or(0);
    let nanos = if micros_per_unit {
        sub.saturating_mul(1000)
    } else {
        sub
    };
    Some(Duration::from_secs(secs).saturating_add(Duration::from_nanos(nanos)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn terminal_wait_timeouts_are_read() {
        let me = i32::try_from(std::process::id()).expect("pid fits");
        // The pointer forms are read from the process's memory: this process's own here.
        let timespec: [i64; 2] = [2, 500_000_000];
        let timeval: [i64; 2] = [0, 250_000];
        let at = |t: &[i64; 2]| t.as_ptr() as u64;
        let cases: &[(i64, [u64; 6], Option<Duration>, &str)] = &[
            (0, [0; 6], None, "read has none"),
            (
                281,
                [5, 0, 8, 300, 0, 0],
                Some(Duration::from_millis(300)),
                "epoll_pwait",
            ),
            (
                232,
                [5, 0, 8, 0xffff_ffff, 0, 0],
                None,
                "epoll_wait forever",
            ),
            (
                7,
                [0, 1, 0, 0, 0, 0],
                Some(Duration::ZERO),
                "poll that returns at once",
            ),
            (
                270,
                [1, 0, 0, 0, 0, 0],
                None,
                "pselect6 with no timeout (readline)",
            ),
            (
                270,
                [1, 0, 0, 0, at(&timespec), 0],
                Some(Duration::from_millis(2500)),
                "pselect6 with a timespec",
            ),
            (
                23,
                [1, 0, 0, 0, at(&timeval), 0],
                Some(Duration::from_millis(250)),
                "select with a timeval",
            ),
            (271, [0, 1, 0, 0, 0, 0], None, "ppoll with no timeout"),
            (
                441,
                [5, 0, 8, 8, 0, 0],
                Some(Duration::MAX),
                "an unreadable timeout is finite, length unknown",
            ),
        ];
        for &(nr, args, expected, why) in cases {
            assert_eq!(
                tty_wait_timeout(me, SyscallLine { nr, args }),
                expected,
                "{why}"
            );
        }
    }
}
