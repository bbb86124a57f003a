//! Linux `/proc` inspection and whole-session process-tree teardown.
//!
//! Responsibilities:
//! - [`ProcessIdentity`]: pid + start time, the fence that keeps PID reuse from redirecting a
//!   signal; [`stat`] parses `/proc/PID/stat` robustly.
//! - Foreground facts: [`foreground_pgid`], [`group_name`], and the kernel-true "blocked
//!   reading the terminal" classifier [`is_group_waiting_on_tty`], and [`group_activity`]
//!   (reading the terminal, idle, or busy) for the silence rule.
//! - Capture: [`TreeTracker`] remembers every process a session ever started (descendants by
//!   ppid, session members, cgroup members, environ tag), [`SessionCgroup`] puts a session in a
//!   cgroup v2 of its own, [`enable_child_subreaper`] makes orphans come back to this process.
//! - Host death: a watchdog helper (started with the first session, see
//!   [`host_watchdog_pid`]) kills every process of this host's sessions once the host is gone,
//!   even after a SIGKILL: by cgroup ([`SessionCgroup`], [`watch_cgroup_dir`]), by session id
//!   ([`watch_session`]) and by the environment tag every session carries ([`host_tag`]).
//! - Exit statuses of processes that are not our children (a shell under a sandbox
//!   launcher): `ExitWatch`, through a pidfd.
//! - Teardown: [`terminate_session`] (HUP/TERM, grace, KILL, shell, sweeps, reaping) and the
//!   synchronous [`kill_session_now`] for host exit.
//!
//! Everything here is Linux-only and best effort: unreadable `/proc` data is a miss, never an
//! error.

mod activity;
mod cgroup;
mod environ;
mod exit_status;
mod listening;
mod procfs;
mod reap;
mod scope;
mod teardown;
mod tree;
mod tty_wait;
mod wait_timeout;
mod watchdog;

pub use activity::{GroupActivity, group_activity};
pub(crate) use activity::{
    GroupUsage, TtyReaders, group_activity_and_readers_in, group_holds_pty_master_in,
    group_look_in, group_relays_in,
};
pub use cgroup::{NO_CGROUP2_ENV, SessionCgroup};
pub(crate) use exit_status::ExitWatch;
pub use procfs::{
    IdentityStatus, ProcessIdentity, StatInfo, foreground_pgid, group_name, pgid_in_own_namespace,
    pid_in_own_namespace, stat,
};
pub(crate) use procfs::{
    age, cmdline, exe_name, fd_leaves_stdin, group_member, holds_a_file_to_read, ignores_signal,
    stdin_is_terminal,
};
pub use reap::{enable_child_subreaper, reap_adopted_zombies};
pub use scope::ProcessScope;
pub use teardown::{TeardownConfig, TeardownReport, kill_session_now, terminate_session};
pub use tree::TreeTracker;
pub use tty_wait::is_group_waiting_on_tty;
pub(crate) use tty_wait::{
    ReaderThread, blocked_writing, group_member_reads_tty_in, group_tty_reader_in,
    group_tty_reader_thread_in, is_group_waiting_on_tty_in, tty_read_outside_group_in,
};
pub use watchdog::{
    host_tag, host_watchdog_pid, unwatch_cgroup_dir, unwatch_file, unwatch_session,
    watch_cgroup_dir, watch_file, watch_session,
};
