//! Real-process tests of `dsh_terminal_core::process`: the tty-wait classifier on real PTYs,
//! identity fencing, tree capture and whole-session teardown (field cases C17–C21).
//!
//! Every test waits on `/proc` states with generous deadlines (never fixed sleeps) and reaps
//! every process it starts. Pids of the long sleeps are unique per test (`sleep 71xx`, ...) so
//! tests running in parallel never look at each other's processes.

#![expect(
    clippy::expect_used,
    reason = "test helpers outside #[test] functions expect like the tests do"
)]

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dsh_terminal_core::process::{
    GroupActivity, ProcessIdentity, ProcessScope, SessionCgroup, TeardownConfig, TreeTracker,
    enable_child_subreaper, foreground_pgid, group_activity, group_name, is_group_waiting_on_tty,
    kill_session_now, reap_adopted_zombies, stat, terminate_session,
};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use rustix::process::Signal;

/// Generous upper bound for anything a test waits on.
const DEADLINE: Duration = Duration::from_secs(20);

/// Polls `check` until it returns `Some`, panicking with `what` after [`DEADLINE`].
fn wait_for<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Pids whose command line is exactly `argv`.
fn pids_with_cmdline(argv: &[&str]) -> Vec<i32> {
    let want: Vec<u8> = argv.iter().flat_map(|a| a.bytes().chain([0])).collect();
    fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == want))
        .collect()
}

fn one_pid_with_cmdline(argv: &[&str]) -> i32 {
    wait_for(&format!("process {argv:?}"), || {
        match pids_with_cmdline(argv).as_slice() {
            [pid] => Some(*pid),
            _ => None,
        }
    })
}

/// Live (non-zombie) members of process group `pgid`.
fn group_members(pgid: i32) -> Vec<dsh_terminal_core::process::StatInfo> {
    fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(stat)
        .filter(|s| s.pgrp == pgid && s.state != 'Z')
        .collect()
}

/// A program running as the session leader of a fresh PTY (as the pty layer spawns shells).
struct PtyProgram {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
    tty: PathBuf,
    pid: i32,
}

impl PtyProgram {
    fn spawn(argv: &[&str]) -> Self {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 80,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let tty = pair.master.tty_name().expect("tty name");
        let mut cmd = CommandBuilder::new(argv[0]);
        cmd.args(&argv[1..]);
        let child = pair.slave.spawn_command(cmd).expect("spawn");
        drop(pair.slave);
        let pid = child.process_id().expect("pid") as i32;
        Self {
            child,
            _master: pair.master,
            tty,
            pid,
        }
    }

    fn assert_waiting(&self, pgid: i32, expected: bool, what: &str) {
        if expected {
            wait_for(&format!("{what} to be seen waiting on the tty"), || {
                is_group_waiting_on_tty(pgid, &self.tty).then_some(())
            });
        } else {
            for _ in 0..20 {
                assert!(
                    !is_group_waiting_on_tty(pgid, &self.tty),
                    "{what} must not count as waiting on the tty"
                );
            }
        }
    }
}

impl Drop for PtyProgram {
    fn drop(&mut self) {
        // Kill the whole session (pipelines included) and reap what comes back to us.
        if let Some(root) = ProcessIdentity::of(self.pid) {
            let mut tracker = TreeTracker::new(root);
            tracker.refresh();
            let captured: Vec<i32> = tracker.captured().iter().map(|id| id.pid).collect();
            kill_session_now(root, &mut tracker, None);
            let _ = self.child.wait();
            wait_for("the pty program's processes to die", || {
                reap_adopted_zombies(&|pid| !captured.contains(&pid));
                captured
                    .iter()
                    .all(|&pid| stat(pid).is_none_or(|s| s.state == 'Z'))
                    .then_some(())
            });
            reap_adopted_zombies(&|pid| !captured.contains(&pid));
        } else {
            let _ = self.child.wait();
        }
    }
}

/// Waits until the group's leader runs `comm` and every member is asleep.
fn wait_settled(pgid: i32, comm: &str) {
    wait_for(&format!("group {pgid} running {comm} to settle"), || {
        let members = group_members(pgid);
        let leader_ok = members.iter().any(|s| s.pid == pgid && s.comm == comm);
        (leader_ok && members.iter().all(|s| s.state == 'S')).then_some(())
    });
}

#[cfg(target_arch = "x86_64")]
const SELECT_SYSCALLS: &[i64] = &[23, 270];
#[cfg(target_arch = "aarch64")]
const SELECT_SYSCALLS: &[i64] = &[72];
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const SELECT_SYSCALLS: &[i64] = &[];

fn syscall_nr(pid: i32) -> Option<i64> {
    fs::read_to_string(format!("/proc/{pid}/syscall"))
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

const KNOWN_ARCH: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

mod teardown;
mod tty_wait;
