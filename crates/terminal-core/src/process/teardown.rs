//! Whole-session teardown (the seed's §3.10, going further per direction item 5).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::time::Instant;

use super::cgroup::SessionCgroup;
use super::procfs::{self, IdentityStatus, ProcessIdentity, StatInfo};
use super::tree::TreeTracker;

/// How often teardown re-checks whether processes have exited.
const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// Teardown tunables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TeardownConfig {
    /// How long each tier waits for its processes to exit before escalating (the seed's
    /// `disposeGraceMs`, default 3000 ms). A session whose processes exit promptly takes far
    /// less; one whose processes resist every signal takes at most about eight graces.
    pub grace: Duration,
}

impl Default for TeardownConfig {
    fn default() -> Self {
        Self {
            grace: Duration::from_millis(3000),
        }
    }
}

/// What a teardown did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TeardownReport {
    /// Distinct processes signalled (or killed through the cgroup), the interactive shell
    /// included; a launcher between the server and that shell (the sandbox's processes) is
    /// ours, not the session's, and not counted.
    pub stopped: usize,
    /// Pids still alive at the end (sorted); empty on success.
    pub survivors: Vec<i32>,
}

/// Bookkeeping shared by the tiers.
#[derive(Debug, Default)]
struct Signalled(HashSet<ProcessIdentity>);

impl Signalled {
    /// Sends `sig` to each target: whole process groups where every live member of the group
    /// is a target and its leader is one of them (so the pgid is fenced by the leader's
    /// identity, and children forked mid-signal are still hit), single processes otherwise.
    /// Groups are read from `table` when the caller has just read one that holds every
    /// process of the session (its scan found `targets`), otherwise from a fresh scan.
    fn send(&mut self, targets: &[ProcessIdentity], sig: Signal, table: Option<&[StatInfo]>) {
        if targets.is_empty() {
            return;
        }
        let wanted: HashSet<ProcessIdentity> = targets.iter().copied().collect();
        let scanned;
        let table = match table {
            Some(table) => table,
            None => {
                scanned = procfs::scan_all();
                &scanned
            }
        };
        let mut groups: HashMap<i32, Vec<&StatInfo>> = HashMap::new();
        for s in table.iter().filter(|s| !s.is_zombie()) {
            groups.entry(s.pgrp).or_default().push(s);
        }
        let mut done: HashSet<ProcessIdentity> = HashSet::new();
        let mut handled: HashSet<i32> = HashSet::new();
        for s in table
            .iter()
            .filter(|s| wanted.contains(&s.identity()) && !s.is_zombie())
        {
            let pgid = s.pgrp;
            if !handled.insert(pgid) {
                continue;
            }
            let members = groups.get(&pgid).map(Vec::as_slice).unwrap_or_default();
            let whole = members.iter().all(|m| wanted.contains(&m.identity()))
                && members.iter().any(|m| m.pid == pgid);
            // The group's live, captured leader was checked just above.
            let group_signalled = whole
                && pgid > 1
                && Pid::from_raw(pgid).is_some_and(|g| kill_process_group(g, sig).is_ok());
            if group_signalled {
                done.extend(members.iter().map(|m| m.identity()));
            }
        }
        for id in targets {
            if done.contains(id) || id.signal(sig) {
                self.0.insert(*id);
            }
        }
        // A stopped process handles HUP/TERM only once continued.
        if sig != Signal::KILL && sig != Signal::CONT && sig != Signal::STOP {
            for s in table
                .iter()
                .filter(|s| matches!(s.state, 'T' | 't') && wanted.contains(&s.identity()))
            {
                let _ = s.identity().signal(Signal::CONT);
            }
        }
    }
}

/// Whole-session teardown: stops every process the session started, then the shell.
///
/// `shell` is the session's first process; `launched` is the interactive shell when it runs
/// under a launcher (a sandbox's `bwrap`) as a descendant of `shell`. Both are frozen
/// (SIGSTOP) before anything else is signalled, so neither can run the rest of a command line
/// (`sleep 100; deploy`) once its current command is stopped; the launched shell is left out
/// of the polite tiers (they would continue it) and gets SIGKILL right after tier 2, as a
/// frozen `shell` does in tier 3.
///
/// 1. Refresh `tracker` in its scope (the session cgroup's members when it has one, where
///    every session process is born; otherwise every process) and capture. SIGTERM to
///    captured descendants (whole process groups where the group is entirely captured;
///    SIGHUP at once instead to those that ignore SIGTERM, e.g. nested interactive shells),
///    sent while they are all frozen (SIGSTOP first, SIGCONT after: none runs the next step
///    of a chain between its child's death and its own signal). After half the grace,
///    SIGHUP to survivors. TERM comes first and alone so that a `trap ... TERM` or a
///    SIGTERM handler runs uninterrupted (C19); the later HUP reaches what only a terminal
///    hangup stops.
/// 2. Once they are gone or `grace` has passed: SIGKILL survivors plus descendants found
///    meanwhile, and wait up to `grace`.
/// 3. Stop the shell: SIGHUP + SIGTERM (+ SIGCONT), wait up to `grace`, SIGKILL, wait up to
///    `grace`. The caller reaps the shell through its own wait; this only signals it and waits
///    until it is dead or a zombie.
/// 4. Sweep every process (anything forked meanwhile or moved out of the cgroup; session-id
///    and environ-tag sweeps as backstop): TERM, grace, KILL. Then `cgroup.kill` when a
///    cgroup exists, wait up to `grace` for it to empty and remove it. The cgroup is killed after the shell so the shell still gets its
///    SIGHUP (in tier 2 already when the shell is gone).
/// 5. Reap captured zombies that were re-parented to this process (subreaper), never the
///    shell.
///
/// Waits poll `/proc` every 10 ms against deadlines (a `stat` read per awaited process). The
/// scans and signals between them (a full scan reads every `/proc/PID/stat`, a few
/// milliseconds with many processes; signals reuse the scan that found their targets) run
/// without holding up the runtime's other tasks (`block_in_place` on a multi-threaded
/// runtime). A session with nothing left running returns at once. `stopped` counts distinct
/// processes signalled (or killed through the cgroup), shell included; `survivors` lists
/// whatever is still alive at the end.
///
/// # Panics
/// Outside a tokio runtime with the time driver enabled (it uses `tokio::time::sleep`).
///
/// # Cancel safety
/// Not cancel safe: dropping the future mid-way leaves processes half stopped. Follow a
/// cancelled teardown with [`kill_session_now`].
pub async fn terminate_session(
    shell: ProcessIdentity,
    launched: Option<ProcessIdentity>,
    tracker: &mut TreeTracker,
    cgroup: Option<&SessionCgroup>,
    config: &TeardownConfig,
) -> TeardownReport {
    let launched = launched.filter(|l| *l != shell);
    let launchers = launched
        .map(|l| launcher_chain(shell, l))
        .unwrap_or_default();
    let (mut signalled, frozen) = off_workers(|| begin_teardown(shell, tracker, cgroup));
    let launched_frozen = launched.filter(|l| l.is_alive() && l.signal(Signal::STOP));
    if let Some(l) = launched_frozen {
        signalled.0.insert(l);
    }
    // The captured processes but the frozen launched shell (continuing it to handle a polite
    // signal would let it run the next command).
    let captured_now = |tracker: &mut TreeTracker, deep: bool| {
        let (mut ids, table) = captured_now(tracker, deep);
        ids.retain(|id| Some(*id) != launched_frozen);
        (ids, table)
    };

    // Tier 1: polite signals to the captured descendants. Tiers 1 and 2 look only in the
    // session's scope (its cgroup, when it has one: every session process is born there);
    // tier 4's sweep looks at every process, for anything that left the cgroup.
    let first = off_workers(|| captured_now(tracker, false));
    polite_stop(&first, config.grace, &mut signalled).await;

    // Tier 2: SIGKILL whatever survived, plus anything new.
    let second = off_workers(|| {
        let (second, table) = captured_now(tracker, false);
        signalled.send(&second, Signal::KILL, Some(&table));
        if let Some(cg) = cgroup.filter(|_| !shell.is_alive()) {
            kill_cgroup(cg, tracker, &mut signalled);
        }
        second
    });
    wait_all_gone(&second, config.grace).await;
    // The launched shell, frozen since the start: its jobs are gone.
    if let Some(l) = launched_frozen.filter(ProcessIdentity::is_alive) {
        let _ = l.signal(Signal::KILL);
        wait_all_gone(&[l], config.grace).await;
    }

    // Tier 3: the shell itself. A frozen shell gets SIGKILL at once: resuming it to handle a
    // polite signal would let it run the next command first, and its jobs are already gone.
    if frozen && shell.is_alive() {
        let _ = shell.signal(Signal::KILL);
        wait_all_gone(&[shell], config.grace).await;
    }
    if shell.is_alive() {
        for sig in [Signal::HUP, Signal::TERM, Signal::CONT] {
            if shell.signal(sig) {
                signalled.0.insert(shell);
            }
        }
        if !wait_all_gone(&[shell], config.grace).await && shell.signal(Signal::KILL) {
            signalled.0.insert(shell);
            wait_all_gone(&[shell], config.grace).await;
        }
    }

    // Tier 4: sweep what appeared meanwhile, then the cgroup as the final backstop.
    let late = off_workers(|| captured_now(tracker, true));
    if !polite_stop(&late, config.grace, &mut signalled).await {
        let stubborn = off_workers(|| {
            let (stubborn, table) = captured_now(tracker, true);
            signalled.send(&stubborn, Signal::KILL, Some(&table));
            stubborn
        });
        wait_all_gone(&stubborn, config.grace).await;
    }
    if let Some(cg) = cgroup {
        off_workers(|| kill_cgroup(cg, tracker, &mut signalled));
        let deadline = Instant::now() + config.grace;
        while !cg.pids().is_empty() && Instant::now() < deadline {
            tokio::time::sleep(POLL_INTERVAL).await;
        }
        cg.remove();
    }
    let (last, _) = off_workers(|| captured_now(tracker, true));
    wait_all_gone(&last, config.grace).await;

    // Reap the zombies that came back to us as subreaper (never the shell: not captured).
    let (reaped, survivors) = off_workers(|| {
        let reaped = tracker.reap_zombies();
        let mut survivors: Vec<i32> = tracker.captured().iter().map(|id| id.pid).collect();
        if shell.is_alive() {
            survivors.push(shell.pid);
        }
        if let Some(cg) = cgroup {
            survivors.extend(
                cg.pids()
                    .into_iter()
                    .filter(|&pid| procfs::stat(pid).is_some_and(|s| !s.is_zombie())),
            );
        }
        survivors.sort_unstable();
        survivors.dedup();
        (reaped, survivors)
    });
    let report = TeardownReport {
        stopped: signalled.0.difference(&launchers).count(),
        survivors,
    };
    tracing::debug!(shell = shell.pid, stopped = report.stopped, reaped, survivors = ?report.survivors, "session teardown");
    report
}

/// The processes from `shell` (the process the server started) down to the parent of
/// `launched` (the interactive shell a launcher such as the sandbox started), read from
/// `/proc` before teardown begins; empty when `launched` is not below `shell`.
fn launcher_chain(shell: ProcessIdentity, launched: ProcessIdentity) -> HashSet<ProcessIdentity> {
    let mut chain = HashSet::new();
    let mut pid = launched.pid;
    // A launcher is a few layers deep (bubblewrap: two); the bound guards against a cycle
    // read from a table that changed under us.
    for _ in 0..8 {
        let Some(parent) = procfs::stat(pid).map(|s| s.ppid) else {
            break;
        };
        let Some(identity) = ProcessIdentity::of(parent) else {
            break;
        };
        chain.insert(identity);
        if identity == shell {
            return chain;
        }
        if parent <= 1 {
            break;
        }
        pid = parent;
    }
    HashSet::new()
}

/// A refresh of `tracker` (`deep`: every process, else its scope), then what it holds and
/// the table the refresh read.
fn captured_now(tracker: &mut TreeTracker, deep: bool) -> (Vec<ProcessIdentity>, Vec<StatInfo>) {
    let table = tracker.refresh_table(deep);
    (tracker.captured(), table)
}

/// Runs `f`, blocking `/proc` scans and signals, without holding up other tasks: on a
/// multi-threaded runtime the worker first hands its other tasks to another thread
/// (`block_in_place`); on a current-thread runtime (or none) it runs inline.
fn off_workers<R>(f: impl FnOnce() -> R) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// SIGTERM (SIGHUP at once to those ignoring SIGTERM), wait up to half of `grace`, SIGHUP to
/// survivors, wait for the rest of `grace`. Returns whether all of `targets` are gone.
///
/// The first signals go to `targets` frozen (SIGSTOP, then SIGCONT once every one has its
/// signal pending): a process that saw its child die between two of them could otherwise start
/// the next step of its chain (`sleep 1; deploy` run by a detached `sh`) before its own signal
/// landed. Each takes its signal as it is continued, a `trap … TERM` handler included. One
/// that ignores both SIGTERM and SIGHUP gets SIGKILL at once instead of after the grace.
///
/// A PID namespace's init seen from outside (a sandbox's `bwrap`) is signalled too but not
/// waited for: the kernel drops every signal but SIGKILL sent to it from an ancestor
/// namespace unless it installed a handler, so it ends only when its last child does (or by
/// the caller's SIGKILL). Waiting for it would spend the whole grace whenever it outlives
/// its children, e.g. a sandboxed session closed while still starting.
async fn polite_stop(
    (targets, table): &(Vec<ProcessIdentity>, Vec<StatInfo>),
    grace: Duration,
    signalled: &mut Signalled,
) -> bool {
    if targets.is_empty() {
        return true;
    }
    let waited = off_workers(|| {
        signalled.send(targets, Signal::STOP, Some(table));
        // What ignores both polite signals cannot be stopped politely: SIGKILL at once rather
        // than after the grace (it would run meanwhile). A PID namespace's init is left to
        // its children's end: killing it would kill them before their traps run.
        let (kill_now, polite): (Vec<ProcessIdentity>, Vec<ProcessIdentity>) =
            targets.iter().partition(|id| {
                ignores(id.pid, Signal::TERM)
                    && ignores(id.pid, Signal::HUP)
                    && !is_namespace_init(id.pid)
            });
        signalled.send(&kill_now, Signal::KILL, Some(table));
        let (hup_now, term): (Vec<ProcessIdentity>, Vec<ProcessIdentity>) =
            polite.iter().partition(|id| ignores(id.pid, Signal::TERM));
        signalled.send(&term, Signal::TERM, Some(table));
        signalled.send(&hup_now, Signal::HUP, Some(table));
        signalled.send(targets, Signal::CONT, Some(table));
        targets
            .iter()
            .copied()
            .filter(|id| !is_namespace_init(id.pid))
            .collect::<Vec<_>>()
    });
    let all_gone = || targets.iter().all(|id| !id.is_alive());
    if wait_all_gone(&waited, grace / 2).await {
        return all_gone();
    }
    off_workers(|| {
        let stubborn: Vec<ProcessIdentity> = targets
            .iter()
            .copied()
            .filter(ProcessIdentity::is_alive)
            .collect();
        signalled.send(&stubborn, Signal::HUP, None);
    });
    wait_all_gone(&waited, grace.saturating_sub(grace / 2)).await && all_gone()
}

/// Whether process `pid` is the init (PID 1) of a PID namespace below ours: the last of the
/// ids in `NSpid:` of `/proc/PID/status` is 1 and there are several. Unreadable counts as no.
fn is_namespace_init(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|status| {
        status
            .lines()
            .find_map(|l| l.strip_prefix("NSpid:"))
            .is_some_and(|ids| {
                let ids: Vec<&str> = ids.split_whitespace().collect();
                ids.len() > 1 && ids.last() == Some(&"1")
            })
    })
}

/// Reads the cgroup members into the tracker (so they are counted and reaped), then
/// `cgroup.kill`s them.
fn kill_cgroup(cg: &SessionCgroup, tracker: &mut TreeTracker, signalled: &mut Signalled) {
    let members: Vec<ProcessIdentity> = cg
        .pids()
        .into_iter()
        .filter_map(procfs::stat)
        .filter(|s| !s.is_zombie())
        .map(|s| s.identity())
        .collect();
    tracker.adopt_pids(&members.iter().map(|id| id.pid).collect::<Vec<_>>());
    if members.is_empty() {
        return;
    }
    match cg.kill() {
        Ok(()) => signalled.0.extend(members),
        Err(err) => tracing::debug!(path = %cg.path().display(), %err, "cgroup.kill failed"),
    }
}

/// Whether process `pid` ignores signal `sig` (its bit is set in `SigIgn` of
/// `/proc/PID/status`). Unreadable counts as not ignored.
fn ignores(pid: i32, sig: Signal) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        .unwrap_or(0);
    u32::try_from(sig.as_raw() - 1).is_ok_and(|bit| bit < 64 && mask & (1 << bit) != 0)
}

/// Waits until none of `ids` is alive (dead or zombie), polling every 10 ms, for at most
/// `grace`. Returns whether they all went.
async fn wait_all_gone(ids: &[ProcessIdentity], grace: Duration) -> bool {
    let deadline = Instant::now() + grace;
    loop {
        if ids.iter().all(|id| id.status() != IdentityStatus::Alive) {
            return true;
        }
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        tokio::time::sleep(POLL_INTERVAL.min(deadline - now)).await;
    }
}

/// The common start of both teardowns: adopt the cgroup's members, then freeze the shell so
/// that, when its foreground job is stopped, it cannot run the rest of the command line
/// (`sleep 5; touch x` would touch x during close). Returns whether the shell was frozen.
fn begin_teardown(
    shell: ProcessIdentity,
    tracker: &mut TreeTracker,
    cgroup: Option<&SessionCgroup>,
) -> (Signalled, bool) {
    let mut signalled = Signalled::default();
    if let Some(cg) = cgroup {
        tracker.adopt_pids(&cg.pids());
    }
    let frozen = shell.is_alive() && shell.signal(Signal::STOP);
    if frozen {
        signalled.0.insert(shell);
    }
    (signalled, frozen)
}

/// Synchronous best-effort SIGKILL of everything captured, the shell and the cgroup, for host
/// exit and `Drop` paths that cannot await. Does not wait or reap.
pub fn kill_session_now(
    shell: ProcessIdentity,
    tracker: &mut TreeTracker,
    cgroup: Option<&SessionCgroup>,
) {
    let (mut signalled, _) = begin_teardown(shell, tracker, cgroup);
    let (captured, table) = captured_now(tracker, true);
    signalled.send(&captured, Signal::KILL, Some(&table));
    let _ = shell.signal(Signal::KILL);
    if let Some(cg) = cgroup {
        let _ = cg.kill();
    }
    // Anything forked between the scan and the kills.
    let (captured, table) = captured_now(tracker, true);
    signalled.send(&captured, Signal::KILL, Some(&table));
}
