//! What a foreground job is doing, as the kernel reports it: reading the terminal, idle
//! (blocked indefinitely on something else, or stopped), or busy (computing, sleeping on a
//! timer, or waiting on children that are busy). Output silence means "ready" only for an
//! idle job.
//!
//! Every thread of every process in the group is classified from `/proc/PID/task/TID/stat`
//! and `.../syscall`; a thread waiting for its children pulls the children outside the group
//! into the verdict. The verdict, first match wins:
//! 1. a thread running, in disk sleep or in tracing stop (`t`: held by its debugger or tracer
//!    between steps, as gdb's `next` over a long loop keeps it most of the time; a debugger
//!    at its prompt takes the terminal, so its stopped inferior is no foreground job) →
//!    [`GroupActivity::Busy`] ([`GroupActivity::BusyReadingTty`] when another thread of its
//!    process reads the terminal); so does a process waiting for its children with one
//!    that ended and is not reaped yet (the wait returns at once: a loop between two
//!    short-lived commands);
//! 2. a thread blocked on terminal input (and none stopped) → [`GroupActivity::ReadingTty`]
//!    (the same rule as [`super::is_group_waiting_on_tty`]); a wait with a timeout of unknown
//!    length when another thread of its process sleeps on a timer (it wakes by itself);
//! 3. a thread waiting for events with no timeout (`accept`, `poll`/`select`/`epoll` on at
//!    least one fd, a pipe or socket read, ...) or stopped → [`GroupActivity::Idle`] (a
//!    server's housekeeping timer in another thread does not make it busy);
//! 4. a thread waiting for events with a timeout, every such wait having one (an event loop
//!    with a timer pending, `asyncio.sleep`, a client's poll on its socket) →
//!    [`GroupActivity::TimedWait`], or [`GroupActivity::Idle`] when a process of the group
//!    holds a listening socket (a server waiting for connections, its loop waking on a
//!    timer: Python's `http.server`);
//! 5. a thread sleeping on a timer (`nanosleep`, `clock_nanosleep`, `poll`/`select` on no
//!    fd with a timeout) → [`GroupActivity::Busy`];
//! 6. no live thread at all (the job just ended; its shell is taking the terminal back) →
//!    [`GroupActivity::Busy`];
//! 7. otherwise (futex waits, children that are idle) → [`GroupActivity::Idle`].
//!
//! Rules 3 to 5 weigh the threads of one process together (a server's event loop with a
//! housekeeping timer is idle); across processes, one that the rules call busy on its own
//! keeps an otherwise idle group busy: in `sleep 5 | cat`, `cat` waits on a pipe only because
//! `sleep` has not finished; likewise one waiting with a timeout on its own makes an otherwise
//! idle group a timed wait (`curl … | cat`).

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::procfs::{self, StatInfo};
use super::scope::ProcessScope;
use super::tty_wait::{
    Blocking, SyscallLine, Tty, blocked_on_tty, classify_syscall, thread_syscall,
};
use super::wait_timeout::tty_wait_timeout;
use syscalls::{Kind, is_epoll_pwait2, kind, sleeping_wait};

mod syscalls;

/// What a process group is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupActivity {
    /// Blocked reading the terminal. `only_tty`: every such wait watches the terminal alone
    /// and without a timeout (a `read`, or a `select`/`poll`/`epoll` on one fd with no
    /// timeout); a wait among other event sources (an event loop's timers, signals, sockets)
    /// or with a timeout (an editor awaiting a terminal response before it exits) is weaker
    /// evidence that the program is done with its input.
    ReadingTty {
        /// Every terminal wait watches the terminal alone, without a timeout.
        only_tty: bool,
        /// The shortest timeout among the terminal waits that have one: the program wakes by
        /// itself within it (an event loop's timer, a `select` loop's period), so it may still
        /// be at work. `None` when every terminal wait waits for input (or another event)
        /// alone. A timeout that cannot be read from the process's memory counts as
        /// [`Duration::MAX`].
        wakes_in: Option<Duration>,
    },
    /// Blocked indefinitely on something other than the terminal, or stopped.
    Idle,
    /// Blocked on events other than the terminal, every such wait with a timeout: the program
    /// wakes by itself (an event loop with a timer pending, `asyncio.sleep`, a client such as
    /// curl polling its socket, a server's periodic `select`). Idle to the silence rule,
    /// unless the send gave its own deadline (see `ReadinessTiming::waits_out_timed_waits`).
    TimedWait,
    /// Computing, sleeping on a timer, or waiting on children that are busy.
    Busy,
    /// Computing in one thread while another thread of the same process is blocked reading
    /// the terminal (a spinner thread beside `getpass`, a worker beside a "press Enter to
    /// cancel" reader): busy, unless a prompt before the cursor says the read is for input
    /// now (the send's observation decides).
    BusyReadingTty,
}

/// How one thread waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    Running,
    Stopped,
    OnTty {
        only_tty: bool,
        wakes_in: Option<Duration>,
    },
    /// Waiting for events (fds) with no timeout.
    Event,
    /// Waiting for events (fds) with a timeout.
    TimedEvent,
    Timer,
    /// Waiting for a child to change state: `of` the one child waited for, `None` for any.
    Children {
        of: Option<i32>,
    },
    Other,
}

fn thread_wait(pid: i32, tid: i32, tty: &Tty) -> Option<Wait> {
    let base = PathBuf::from(format!("/proc/{pid}/task/{tid}"));
    let st = procfs::read_stat_file(&base.join("stat"))?;
    match st.state {
        'S' => {}
        'T' => return Some(Wait::Stopped),
        // Tracing stop: its tracer works on it (see the module's rule 1).
        't' => return Some(Wait::Running),
        'Z' | 'X' | 'x' => return None,
        _ => return Some(Wait::Running),
    }
    let text = fs::read_to_string(base.join("syscall")).ok();
    // The thread woke between the two reads: it runs.
    if text.as_deref().is_some_and(|t| t.trim() == "running") {
        return Some(Wait::Running);
    }
    let Some(call) = text.as_deref().and_then(|text| thread_syscall(&base, text)) else {
        return Some(Wait::Other);
    };
    if blocked_on_tty(pid, call, tty) {
        Some(Wait::OnTty {
            only_tty: watches_one_fd(pid, call),
            wakes_in: tty_wait_timeout(pid, call),
        })
    } else {
        Some(sleeping_wait(call))
    }
}

/// Whether a terminal wait watches one fd only (the terminal) and has no timeout: a `read`, a
/// `select` with `nfds` ≤ 1 and no timeout, a `poll` on one entry with no timeout, or an epoll
/// instance with one target and no timeout.
fn watches_one_fd(pid: i32, call: SyscallLine) -> bool {
    let [a0, a1, a2, a3, a4, _] = call.args;
    // A C int timeout argument: negative means none.
    let no_int_timeout = |t: u64| (t as u32 as i32) < 0;
    match classify_syscall(call.nr) {
        Some(Blocking::Read) => true,
        Some(Blocking::Select) => a0 <= 1 && a4 == 0,
        Some(Blocking::Poll) => {
            a1 == 1
                && if kind(call.nr) == Some(Kind::Poll) {
                    no_int_timeout(a2)
                } else {
                    a2 == 0
                }
        }
        Some(Blocking::Epoll) => {
            let no_timeout = if is_epoll_pwait2(call.nr) {
                a3 == 0
            } else {
                no_int_timeout(a3)
            };
            no_timeout
                && fs::read_to_string(format!("/proc/{pid}/fdinfo/{a0}"))
                    .is_ok_and(|info| info.lines().filter(|l| l.starts_with("tfd:")).count() == 1)
        }
        None => false,
    }
}

/// Whether a live process of group `pgid` (found in `scope`) holds a socket or a terminal's
/// master side. A program waiting on the terminal among other event sources that does relays
/// another side's output (`ssh`, `docker exec -it`, `script`), which may still be coming; an
/// event loop without one (node's REPL: pipes, eventfds) serves only its own work. Costs one
/// `/proc/PID/fd` listing per member.
pub(crate) fn group_relays_in(pgid: i32, scope: &ProcessScope) -> bool {
    group_holds_in(pgid, scope, |target| {
        target.starts_with("socket:") || is_pty_master(target)
    })
}

/// Whether a live process of group `pgid` (found in `scope`) holds a terminal's master side:
/// it runs a program in a terminal of its own and relays its keys there (`script`, Python's
/// `pty.spawn`, `expect`), so the modes of this terminal are the relay's, not the program's.
/// Costs one `/proc/PID/fd` listing per member.
pub(crate) fn group_holds_pty_master_in(pgid: i32, scope: &ProcessScope) -> bool {
    group_holds_in(pgid, scope, is_pty_master)
}

/// Whether an fd's link `target` is a terminal's master side, opened through a `ptmx` node:
/// `/dev/ptmx`, or the one of a devpts instance wherever it is mounted (`/dev/pts/ptmx`, a
/// sandbox's private instance).
fn is_pty_master(target: &str) -> bool {
    target.ends_with("/ptmx")
}

/// Whether a live process of group `pgid` (found in `scope`) has an fd whose link target
/// passes `wanted`.
fn group_holds_in(pgid: i32, scope: &ProcessScope, wanted: impl Fn(&str) -> bool) -> bool {
    scope
        .stats()
        .into_iter()
        .filter(|s| s.pgrp == pgid && !s.is_zombie())
        .any(|s| holds_fd(s.pid, &wanted))
}

fn holds_fd(pid: i32, wanted: &impl Fn(&str) -> bool) -> bool {
    let Ok(entries) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    entries
        .flatten()
        .any(|entry| fs::read_link(entry.path()).is_ok_and(|t| wanted(&t.to_string_lossy())))
}

/// The waits of one process's threads, `main` being its main thread's: when the main thread
/// runs an event loop with a timer pending (a timed event wait), helper threads waiting on
/// events with no timeout do not make the process idle (node: libuv's helper threads wait in
/// `epoll_pwait` with none while the main loop waits for a `setTimeout`). A server whose main
/// loop waits with no timeout stays idle beside a housekeeping timer thread.
fn with_main_event_loop(mut waits: Vec<Wait>, main: Option<Wait>) -> Vec<Wait> {
    if main == Some(Wait::TimedEvent) {
        waits.retain(|w| *w != Wait::Event);
    }
    waits
}

/// The waits of one process's threads, when one of them sleeps on a timer beside a terminal
/// wait (a worker printing its progress while another thread waits for "press Enter to
/// cancel"): the process wakes by itself, so its terminal waits count as ones with a timeout,
/// of a length not known ([`Duration::MAX`]) where they had none.
fn with_timer_beside_tty(waits: Vec<Wait>) -> Vec<Wait> {
    if !waits.contains(&Wait::Timer) {
        return waits;
    }
    waits
        .into_iter()
        .map(|wait| match wait {
            Wait::OnTty { only_tty, wakes_in } => Wait::OnTty {
                only_tty,
                wakes_in: Some(wakes_in.unwrap_or(Duration::MAX)),
            },
            wait => wait,
        })
        .collect()
}

/// Folds the thread waits of each process of a group into the group verdict (the module's
/// rules; a process with no live thread is left out, and a stopped one keeps the group idle).
fn group_verdict(processes: &[Vec<Wait>]) -> GroupActivity {
    let all = processes.concat();
    let on_its_own = |v: GroupActivity| processes.iter().any(|p| !p.is_empty() && verdict(p) == v);
    match verdict(&all) {
        GroupActivity::Idle | GroupActivity::TimedWait
            if !all.contains(&Wait::Stopped) && on_its_own(GroupActivity::Busy) =>
        {
            GroupActivity::Busy
        }
        // `curl … | cat`: `cat` waits on its pipe only because curl is not done.
        GroupActivity::Idle
            if !all.contains(&Wait::Stopped) && on_its_own(GroupActivity::TimedWait) =>
        {
            GroupActivity::TimedWait
        }
        v => v,
    }
}

/// Folds thread waits into a verdict (the module's rules).
fn verdict(waits: &[Wait]) -> GroupActivity {
    let has = |w: Wait| waits.contains(&w);
    let on_tty: Vec<(bool, Option<Duration>)> = waits
        .iter()
        .filter_map(|w| match w {
            Wait::OnTty { only_tty, wakes_in } => Some((*only_tty, *wakes_in)),
            _ => None,
        })
        .collect();
    if has(Wait::Running) {
        GroupActivity::Busy
    } else if !on_tty.is_empty() && !has(Wait::Stopped) {
        GroupActivity::ReadingTty {
            only_tty: on_tty.iter().all(|&(only, _)| only),
            wakes_in: on_tty.iter().filter_map(|&(_, wakes)| wakes).min(),
        }
    } else if has(Wait::Event) || has(Wait::Stopped) {
        GroupActivity::Idle
    } else if has(Wait::TimedEvent) {
        GroupActivity::TimedWait
    } else if has(Wait::Timer) || waits.is_empty() {
        // No thread left to wait on: the job just ended and its shell is taking the terminal
        // back (about to print), which is not an idle job.
        GroupActivity::Busy
    } else {
        GroupActivity::Idle
    }
}

/// What process group `pgid` on the terminal `tty_path` is doing (see the module docs).
/// Unreadable thread data counts as idle (the seed's silence rule). Costs roughly one `/proc` scan.
#[must_use]
pub fn group_activity(pgid: i32, tty_path: &Path) -> GroupActivity {
    group_activity_and_readers_in(pgid, tty_path, &ProcessScope::everywhere()).0
}

/// The threads found asleep on the terminal by one look at a group's activity (see
/// [`group_activity_and_readers_in`]).
#[derive(Debug, Default)]
pub(crate) struct TtyReaders {
    /// Process and thread ids.
    threads: Vec<(i32, i32)>,
    tty: Option<Tty>,
}

impl TtyReaders {
    /// Whether every one of these threads sleeps on the terminal still (the same thread or
    /// another may have taken input since; one that did and runs now, or waits elsewhere,
    /// is not done with it). Blocking `/proc` reads, one pair per thread.
    pub(crate) fn still_waiting(&self) -> bool {
        let Some(tty) = &self.tty else {
            return false;
        };
        self.threads
            .iter()
            .all(|&(pid, tid)| asleep_on_tty(pid, tid, tty))
    }
}

/// Whether thread `tid` of process `pid` sleeps in a syscall that waits for input on `tty`
/// (what [`thread_wait`] calls [`Wait::OnTty`], without reading the wait's kind).
fn asleep_on_tty(pid: i32, tid: i32, tty: &Tty) -> bool {
    let base = PathBuf::from(format!("/proc/{pid}/task/{tid}"));
    procfs::read_stat_file(&base.join("stat")).is_some_and(|st| st.state == 'S')
        && fs::read_to_string(base.join("syscall"))
            .ok()
            .as_deref()
            .and_then(|text| thread_syscall(&base, text))
            .is_some_and(|call| blocked_on_tty(pid, call, tty))
}

/// [`group_activity`] looking for the group's members (and their children) only in `scope`,
/// with the threads its verdict found asleep on the terminal: a
/// reading verdict is only as new as this look, and a thread that takes input right after
/// it (input written before the look, still on its way through the terminal's line
/// discipline) no longer waits, which [`TtyReaders::still_waiting`] tells.
pub(crate) fn group_activity_and_readers_in(
    pgid: i32,
    tty_path: &Path,
    scope: &ProcessScope,
) -> (GroupActivity, TtyReaders) {
    let (activity, readers, _) = group_look_in(pgid, tty_path, scope);
    (activity, readers)
}

/// What a group's processes have used so far, the children they waited for included, summed
/// over the processes a look went through (see [`group_look_in`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct GroupUsage {
    /// CPU time in clock ticks (`StatInfo::cpu_ticks`).
    pub(crate) cpu_ticks: u64,
    /// Page faults of the reaped children (`StatInfo::child_faults`).
    pub(crate) child_faults: u64,
}

/// [`group_activity_and_readers_in`], with what its processes have used (all zero when a
/// running thread decided the verdict).
pub(crate) fn group_look_in(
    pgid: i32,
    tty_path: &Path,
    scope: &ProcessScope,
) -> (GroupActivity, TtyReaders, GroupUsage) {
    let tty = Tty::new(tty_path);
    let mut threads = Vec::new();
    let mut usage = GroupUsage::default();
    let activity = group_activity_noting_readers(pgid, &tty, scope, &mut threads, &mut usage);
    let readers = TtyReaders {
        threads,
        tty: Some(tty),
    };
    (activity, readers, usage)
}

/// [`group_activity_and_readers_in`]'s verdict, pushing onto `readers` each thread it finds
/// asleep on the terminal, and setting `usage` (see [`group_look_in`]).
fn group_activity_noting_readers(
    pgid: i32,
    tty: &Tty,
    scope: &ProcessScope,
    readers: &mut Vec<(i32, i32)>,
    usage: &mut GroupUsage,
) -> GroupActivity {
    if pgid <= 0 {
        return GroupActivity::Idle;
    }
    let (zombies, all): (Vec<StatInfo>, Vec<StatInfo>) =
        scope.stats().into_iter().partition(StatInfo::is_zombie);
    let mut members: Vec<i32> = all
        .iter()
        .filter(|s| s.pgrp == pgid)
        .map(|s| s.pid)
        .collect();
    let mut seen: HashSet<i32> = members.iter().copied().collect();
    let mut processes = Vec::new();
    while let Some(pid) = members.pop() {
        let task_dir = PathBuf::from(format!("/proc/{pid}/task"));
        let mut awaits_children = false;
        let mut waited_for = Vec::new();
        let mut waits = Vec::new();
        let mut main_wait = None;
        let mut running = false;
        for tid in procfs::numeric_entries(&task_dir) {
            match thread_wait(pid, tid, tty) {
                Some(Wait::Running) => running = true,
                Some(Wait::Children { of }) => {
                    awaits_children = true;
                    waited_for.push(of);
                }
                Some(w) => {
                    if tid == pid {
                        main_wait = Some(w);
                    }
                    if matches!(w, Wait::OnTty { .. }) {
                        readers.push((pid, tid));
                    }
                    waits.push(w);
                }
                None => {}
            }
        }
        // A terminal read in a helper thread beside a thread waiting on other event sources
        // (an input pump: jline's reader thread in jshell reads the terminal all the time,
        // beside the threads that talk to its execution engine): the read goes on whatever
        // the program does with what it read, so it is a wait among others, no sign that the
        // program is done with its input.
        if !main_wait.is_some_and(|w| matches!(w, Wait::OnTty { .. }))
            && waits
                .iter()
                .any(|w| matches!(w, Wait::Event | Wait::TimedEvent))
        {
            for wait in &mut waits {
                if let Wait::OnTty { only_tty, .. } = wait {
                    *only_tty = false;
                }
            }
        }
        if running {
            let reads = waits.iter().any(|w| matches!(w, Wait::OnTty { .. }));
            return if reads {
                GroupActivity::BusyReadingTty
            } else {
                GroupActivity::Busy
            };
        }
        processes.push(with_timer_beside_tty(with_main_event_loop(
            waits, main_wait,
        )));
        // Waiting for children with one that ended and is not reaped yet: the wait returns at
        // once (a loop between two short-lived commands: `xargs -n1`, `for …; do cmd; done`).
        if zombies
            .iter()
            .any(|z| z.ppid == pid && waited_for.iter().any(|of| of.is_none_or(|of| of == z.pid)))
        {
            return GroupActivity::Busy;
        }
        if awaits_children {
            // Children outside the group (a job that started its own groups) count too.
            for child in all.iter().filter(|s| s.ppid == pid) {
                if seen.insert(child.pid) {
                    members.push(child.pid);
                }
            }
        }
    }
    for s in all.iter().filter(|s| seen.contains(&s.pid)) {
        usage.cpu_ticks += s.cpu_ticks;
        usage.child_faults += s.child_faults;
    }
    match group_verdict(&processes) {
        // A server waiting for connections, its loop waking on a timer (Python's
        // `http.server` polls every half second): idle, as one blocked in `accept`.
        GroupActivity::TimedWait
            if seen
                .iter()
                .any(|&pid| super::listening::holds_listening_socket(pid)) =>
        {
            GroupActivity::Idle
        }
        verdict => verdict,
    }
}

#[cfg(test)]
mod tests;
