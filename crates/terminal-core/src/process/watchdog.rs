//! Host-death watchdog: kills every session cgroup of this host process once the host is gone,
//! however it died (field case C20: `kill -9` of `dsh-mcp` must not leave `sleep 1000 &`,
//! `nohup`, `setsid` or double-forked daemons running).
//!
//! One small `/bin/sh` helper per host process, started with the first [`SessionCgroup`]
//! (`<base>/dsh-<hostpid>`). Its stdin is a pipe whose write end only the host holds (close-on-
//! exec, so no session shell inherits it); the kernel closes that end when the host dies, the
//! helper reads EOF, writes `1` to `dsh-<hostpid>/cgroup.kill` (recursive: every session cgroup
//! below dies at once), waits up to [`CLEANUP_WAIT_MS`] for the cgroups to empty, removes them
//! and the host directory, and exits. After a normal host exit the sessions are already closed
//! and removed, so it finds nothing and exits at once.
//!
//! The helper stays in the host's own cgroup (never in a session's), runs in a process group of
//! its own (a Ctrl-C or `killpg` aimed at the host's group does not reach it) and ignores
//! HUP/INT/TERM/QUIT/PIPE, so whatever stops the host does not stop it first; only SIGKILL does.
//! It inherits no stdout/stderr (the host's stdout is the MCP channel) and no environment.
//!
//! Limits: without a writable cgroup2 no session cgroup exists and no watchdog is started (a
//! killed host's orphans then survive until someone kills them; the subreaper and sweeps only
//! work while the host lives). Without `/bin/sh` the watchdog cannot start (logged at warn; the
//! next host start still sweeps the stale directory). On kernels without `cgroup.kill` (before
//! 5.14) the helper SIGKILLs the member pids instead, a few rounds to catch forks. Nested
//! cgroups made inside a session (only possible for root) are not removed. Fds the host leaks
//! without close-on-exec are inherited by the helper for the host's lifetime (std, tokio and
//! portable-pty set close-on-exec on everything they open).
//!
//! [`SessionCgroup`]: super::SessionCgroup

use parking_lot::Mutex;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// How long the helper waits for the killed cgroups to empty before giving up on removing them
/// (the next host start sweeps what is left).
pub(crate) const CLEANUP_WAIT_MS: u64 = 5_000;

/// `$0` of the helper, so it is recognisable in `ps` (`/bin/sh -c … dsh-watchdog <dir>`).
const HELPER_NAME: &str = "dsh-watchdog";

/// The helper script (POSIX sh). `$1` is the host directory, `$2` the cleanup wait in
/// milliseconds.
const SCRIPT: &str = r#"trap '' HUP INT TERM QUIT PIPE
# Only the host holds the write end of stdin: EOF means the host is gone.
while read -r _; do :; done
d=$1
[ -d "$d" ] || exit 0
kill_all() {
    if [ -e "$d/cgroup.kill" ]; then
        echo 1 > "$d/cgroup.kill"
    else
        for f in "$d"/*/cgroup.procs; do
            [ -f "$f" ] || continue
            while read -r p; do kill -9 "$p"; done < "$f"
        done
    fi
}
kill_all 2>/dev/null
# Poll every 50 ms (every 1 s where sleep takes whole seconds only), $2 ms in all.
s=0.05 n=$(($2 / 50))
sleep "$s" 2>/dev/null || { s=1 n=$(($2 / 1000)); }
i=0
while :; do
    for c in "$d"/*/; do
        [ -d "$c" ] && rmdir "$c" 2>/dev/null
    done
    rmdir "$d" 2>/dev/null && exit 0
    [ -d "$d" ] || exit 0
    i=$((i + 1))
    [ "$i" -le "$n" ] || exit 1
    kill_all 2>/dev/null
    sleep "$s"
done
"#;

/// The helper of this host process, and helpers whose state could not be read (kept, never
/// dropped: dropping a live helper's `Child` would close its pipe and fire it).
struct State {
    /// The current helper. Never waited on while it runs (it exits only after the host does);
    /// only polled with `try_wait` to restart it if something killed it.
    current: Option<Child>,
    /// Earlier helpers that `try_wait` could not account for (perhaps reaped elsewhere,
    /// perhaps alive); their pipe ends stay open for the host's lifetime.
    retired: Vec<Child>,
}

static WATCHDOG: Mutex<State> = Mutex::new(State {
    current: None,
    retired: Vec::new(),
});

/// Makes sure a host-death watchdog for `host_dir` (`<base>/dsh-<hostpid>`) runs: starts one
/// the first time, and again if the previous one died while the host lives. Failures are
/// logged at warn level; the session cgroup works without the watchdog, it just does not
/// survive the host's SIGKILL.
pub(crate) fn ensure_host_watchdog(host_dir: &Path) {
    let mut state = WATCHDOG.lock();
    if let Some(mut child) = state.current.take() {
        match child.try_wait() {
            Ok(None) => {
                state.current = Some(child);
                return;
            }
            // Dead and reaped by us: dropping it only closes a pipe nobody reads.
            Ok(Some(status)) => {
                tracing::warn!(pid = child.id(), %status, "host watchdog died; restarting it");
            }
            // Most likely reaped by someone else (`reap_adopted_zombies`); keep the handle in
            // case it still runs.
            Err(err) => {
                tracing::warn!(pid = child.id(), %err, "host watchdog lost; starting another");
                state.retired.push(child);
            }
        }
    }
    match spawn(host_dir) {
        Ok(child) => {
            tracing::debug!(pid = child.id(), dir = %host_dir.display(), "host watchdog started");
            state.current = Some(child);
        }
        Err(err) => tracing::warn!(
            %err,
            dir = %host_dir.display(),
            "no host watchdog; sessions may outlive a killed host"
        ),
    }
}

fn spawn(host_dir: &Path) -> std::io::Result<Child> {
    let child = Command::new("/bin/sh")
        .arg("-c")
        .arg(SCRIPT)
        .arg(HELPER_NAME)
        .arg(host_dir)
        .arg(CLEANUP_WAIT_MS.to_string())
        .env_clear()
        .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
        .env("LC_ALL", "C")
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()?;
    if let Some(stdin) = &child.stdin {
        // std already opens it close-on-exec; state it, since a session shell inheriting this
        // end would keep the watchdog from ever firing. Never fail here: dropping `child`
        // would close the pipe and make the helper kill the live host's sessions.
        if let Err(err) = rustix::io::fcntl_setfd(stdin, rustix::io::FdFlags::CLOEXEC) {
            tracing::debug!(%err, "could not re-set close-on-exec on the watchdog pipe");
        }
    }
    Ok(child)
}

/// The pid of this host process's watchdog helper, if one is running (started with the first
/// session cgroup; `None` without a writable cgroup2). For diagnostics and tests.
#[must_use]
pub fn host_watchdog_pid() -> Option<u32> {
    let state = WATCHDOG.lock();
    state.current.as_ref().map(Child::id)
}
