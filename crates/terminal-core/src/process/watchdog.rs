//! Host-death watchdog: kills every process the host's sessions started once the host is gone,
//! however it died (field cases C20 and C36: `kill -9` of `dsh-mcp` must not leave `sleep
//! 1000 &`, `nohup`, `setsid` or double-forked daemons running, with or without cgroup v2).
//!
//! One small `/bin/sh` helper per host process, started with the first session. Its stdin is
//! a pipe whose write end only the host holds (close-on-exec, so no session shell inherits
//! it). While the host lives it tells the helper, one line each, how its sessions' processes
//! can be found (an `awk` child of the helper keeps that registry, so each line costs the same
//! however many sessions are registered and the host's writes never wait on a helper that fell
//! behind):
//! - `cg2 <dir>`: the host's cgroup v2 directory (`<base>/dsh-<hostpid>`, see
//!   [`SessionCgroup`]); `cgroup.kill` there kills every session cgroup below at once;
//! - `cg <dir>` / `-cg <dir>`: another cgroup directory of one session (e.g. a cgroup v1
//!   resource-limit group, see [`watch_cgroup_dir`]); its `cgroup.procs` members are killed;
//! - `sid <pid>` / `-sid <pid>`: a session's POSIX session id (its shell's pid, see
//!   [`watch_session`]); every process in that session is killed;
//! - `file <path>` / `-file <path>`: a file a session needs only while it starts (a shell's
//!   generated rc file, see [`watch_file`]); it is removed;
//! - and always the environment tag: every process whose environment holds a variable
//!   starting with [`host_tag`] (each session's tag begins with it) is killed.
//!
//! When the host dies the kernel closes the write end, the helper reads EOF and sweeps, every
//! 50 ms for up to [`CLEANUP_WAIT_MS`], until a sweep finds nothing left, removing the cgroup
//! v2 directories as they empty. After a normal host exit the sessions are already closed
//! (and unregistered), so it finds nothing and exits at once.
//!
//! The helper stays in the host's own cgroup (never in a session's), runs in a process group of
//! its own (a Ctrl-C or `killpg` aimed at the host's group does not reach it) and ignores
//! HUP/INT/TERM/QUIT/PIPE, so whatever stops the host does not stop it first; only SIGKILL does.
//! It inherits no stdout/stderr (the host's stdout is the MCP channel) and no environment. If
//! it dies while the host lives, the next registration starts another and replays what the
//! host registered so far.
//!
//! Limits: a process that left the session (`setsid`), cleared its environment and is in no
//! cgroup of the session escapes. A session id is unregistered when the session closes, so a
//! reused pid never makes the helper kill an unrelated session. Without `/bin/sh` the watchdog
//! cannot start (logged at warn; the next host start still sweeps stale cgroup directories).
//! On kernels without `cgroup.kill` (before 5.14) the helper SIGKILLs the member pids instead.
//! Nested cgroups made inside a session (only possible for root) are not removed. Fds the host
//! leaks without close-on-exec are inherited by the helper for the host's lifetime (std, tokio
//! and portable-pty set close-on-exec on everything they open).
//!
//! [`SessionCgroup`]: super::SessionCgroup

use std::collections::BTreeSet;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use parking_lot::Mutex;

/// How long the helper keeps sweeping after the host died, in milliseconds.
pub(crate) const CLEANUP_WAIT_MS: u64 = 5_000;

/// `$0` of the helper, so it is recognisable in `ps` (`/bin/sh -c … dsh-watchdog <tag>`).
const HELPER_NAME: &str = "dsh-watchdog";

/// The helper script (POSIX sh, awk and grep). `$1` is the environment-tag prefix
/// (`DSH_PTY_TAG=<host tag>-`), `$2` the sweep window in milliseconds.
const SCRIPT: &str = r#"trap '' HUP INT TERM QUIT PIPE
tag=$1 nl='
'
# Only the host holds the write end of stdin: EOF means the host is gone. awk keeps the
# registry (constant work per line, memory bounded by what is registered) and prints what is
# still registered at EOF; without awk the whole log is kept and replayed below.
if command -v awk >/dev/null 2>&1; then
    live=$(awk '
        { kind = $1; arg = substr($0, length(kind) + 2) }
        kind == "cg2" { g[arg] = 1 }
        kind == "cg" { c[arg] = 1 }
        kind == "-cg" { delete c[arg] }
        kind == "sid" { s[arg] = 1 }
        kind == "-sid" { delete s[arg] }
        kind == "file" { f[arg] = 1 }
        kind == "-file" { delete f[arg] }
        END {
            for (arg in g) print "cg2 " arg
            for (arg in c) print "cg " arg
            for (arg in s) print "sid " arg
            for (arg in f) print "file " arg
        }')
else
    live=$(cat)
fi
cg2='' cgs="$nl" sids=' ' files="$nl"
while read -r kind arg; do
    case $kind in
        cg2) cg2="$cg2$arg$nl" ;;
        cg) cgs="$cgs$arg$nl" ;;
        -cg) case $cgs in *"$nl$arg$nl"*) cgs=${cgs%%"$nl$arg$nl"*}$nl${cgs#*"$nl$arg$nl"} ;; esac ;;
        sid) sids="$sids$arg " ;;
        -sid) case $sids in *" $arg "*) sids=${sids%%" $arg "*}" "${sids#*" $arg "} ;; esac ;;
        file) files="$files$arg$nl" ;;
        -file) case $files in *"$nl$arg$nl"*) files=${files%%"$nl$arg$nl"*}$nl${files#*"$nl$arg$nl"} ;; esac ;;
    esac
done <<EOF
$live
EOF
printf '%s' "$files" | while IFS= read -r f; do [ -n "$f" ] && rm -f -- "$f"; done
# One sweep; prints one line per process it signalled.
sweep() {
    printf '%s' "$cg2" | while IFS= read -r d; do
        [ -d "$d" ] || continue
        if [ -e "$d/cgroup.kill" ]; then
            [ -n "$(cat "$d"/*/cgroup.procs 2>/dev/null)" ] && echo 1 > "$d/cgroup.kill" && echo k
        else
            for f in "$d"/*/cgroup.procs; do
                [ -f "$f" ] || continue
                while read -r p; do kill -9 "$p" && echo k; done < "$f"
            done
        fi
    done
    printf '%s' "$cgs" | while IFS= read -r d; do
        [ -f "$d/cgroup.procs" ] || continue
        while read -r p; do kill -9 "$p" && echo k; done < "$d/cgroup.procs"
    done
    for s in /proc/[0-9]*/stat; do
        read -r line < "$s" || continue
        set -- ${line##*) }
        [ "$1" = Z ] && continue
        case "$sids" in *" $4 "*) p=${s#/proc/}; kill -9 "${p%/stat}" && echo k ;; esac
    done
    for e in $(grep -lsz -e "^$tag" /proc/[0-9]*/environ); do
        p=${e#/proc/}
        kill -9 "${p%/environ}" && echo k
    done
}
n=$(($2 / 50)) i=0
s=0.05
sleep "$s" 2>/dev/null || { s=1 n=$(($2 / 1000)); }
while :; do
    found=$(sweep 2>/dev/null)
    printf '%s' "$cg2" | while IFS= read -r d; do
        for c in "$d"/*/; do [ -d "$c" ] && rmdir "$c" 2>/dev/null; done
        rmdir "$d" 2>/dev/null
    done
    left=$(printf '%s' "$cg2" | while IFS= read -r d; do [ -d "$d" ] && echo "$d"; done)
    [ -z "$found" ] && [ -z "$left" ] && exit 0
    i=$((i + 1))
    [ "$i" -le "$n" ] || exit 1
    sleep "$s"
done
"#;

/// What the host registered, replayed to a restarted helper.
#[derive(Default)]
struct Registered {
    cg2: BTreeSet<PathBuf>,
    cgroups: BTreeSet<PathBuf>,
    sids: BTreeSet<i32>,
    files: BTreeSet<PathBuf>,
}

/// The helper of this host process, and helpers whose state could not be read (kept, never
/// dropped: dropping a live helper's `Child` would close its pipe and fire it).
struct State {
    /// The current helper. Never waited on while it runs (it exits only after the host does);
    /// only polled with `try_wait` to restart it if something killed it.
    current: Option<Child>,
    /// Earlier helpers that `try_wait` could not account for (perhaps reaped elsewhere,
    /// perhaps alive); their pipe ends stay open for the host's lifetime.
    retired: Vec<Child>,
    registered: Registered,
}

static WATCHDOG: Mutex<State> = Mutex::new(State {
    current: None,
    retired: Vec::new(),
    registered: Registered {
        cg2: BTreeSet::new(),
        cgroups: BTreeSet::new(),
        sids: BTreeSet::new(),
        files: BTreeSet::new(),
    },
});

/// The environment-variable prefix every session of this host carries (`<name>=<tag>-`), for
/// [`host_tag`].
pub(crate) fn tag_prefix(name: &str) -> String {
    format!("{name}={}-", host_tag())
}

/// A random tag of this host process (generated once). Each session's environment tag starts
/// with it, so the watchdog finds every session's processes by environment alone.
#[must_use]
pub fn host_tag() -> &'static str {
    static TAG: OnceLock<String> = OnceLock::new();
    TAG.get_or_init(|| {
        let mut bytes = [0u8; 8];
        if getrandom::fill(&mut bytes).is_err() {
            // Still unique per live host: the pid plus the start time.
            return format!("h{}x{:?}", std::process::id(), std::time::SystemTime::now());
        }
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    })
}

/// Registers the host's cgroup v2 directory (`<base>/dsh-<hostpid>`).
pub(crate) fn watch_cgroup2_host_dir(dir: &Path) {
    update(
        |r| r.cg2.insert(dir.to_path_buf()),
        &format!("cg2 {}", dir.display()),
    );
}

/// Registers `dir` (a cgroup directory with a `cgroup.procs` file holding only processes of
/// one session, such as a cgroup v1 resource-limit group): if the host dies, its members are
/// killed. Starts the watchdog if needed.
pub fn watch_cgroup_dir(dir: &Path) {
    update(
        |r| r.cgroups.insert(dir.to_path_buf()),
        &format!("cg {}", dir.display()),
    );
}

/// Unregisters a directory given to [`watch_cgroup_dir`] (the session is gone).
pub fn unwatch_cgroup_dir(dir: &Path) {
    update(|r| r.cgroups.remove(dir), &format!("-cg {}", dir.display()));
}

/// Registers the POSIX session led by `sid` (a session shell's pid): if the host dies, every
/// process in that session is killed. Starts the watchdog if needed.
pub fn watch_session(sid: i32) {
    update(|r| r.sids.insert(sid), &format!("sid {sid}"));
}

/// Unregisters a session id given to [`watch_session`] (call once the session is closed, so a
/// reused pid is never swept).
pub fn unwatch_session(sid: i32) {
    update(|r| r.sids.remove(&sid), &format!("-sid {sid}"));
}

/// Registers `path`, a file one session needs only while it starts (a shell's generated rc
/// file): if the host dies before [`unwatch_file`], the helper removes it. Starts the watchdog
/// if needed.
pub fn watch_file(path: &Path) {
    update(
        |r| r.files.insert(path.to_path_buf()),
        &format!("file {}", path.display()),
    );
}

/// Unregisters a path given to [`watch_file`] (the host removed the file itself).
pub fn unwatch_file(path: &Path) {
    update(
        |r| r.files.remove(path),
        &format!("-file {}", path.display()),
    );
}

/// Applies `change` to the registry and tells the helper `line` (starting or restarting it,
/// with a replay of everything registered, when needed). Failures are logged at warn level;
/// sessions work without the watchdog, they just do not die with a SIGKILLed host.
fn update(change: impl FnOnce(&mut Registered) -> bool, line: &str) {
    if !line.bytes().all(|b| b != b'\n') {
        tracing::warn!(line, "not passed to the host watchdog: contains a newline");
        return;
    }
    let mut state = WATCHDOG.lock();
    if !change(&mut state.registered) {
        return;
    }
    if ensure_running(&mut state) {
        // Just (re)started: the replay included this line.
        return;
    }
    let written = state
        .current
        .as_mut()
        .and_then(|c| c.stdin.as_mut())
        .map(|stdin| writeln!(stdin, "{line}").and_then(|()| stdin.flush()));
    if let Some(Err(err)) = written {
        tracing::warn!(%err, "host watchdog unreachable; starting another");
        if let Some(child) = state.current.take() {
            state.retired.push(child);
        }
        ensure_running(&mut state);
    }
}

/// Makes sure a helper runs; returns `true` when it started one (and replayed the registry).
fn ensure_running(state: &mut State) -> bool {
    if let Some(mut child) = state.current.take() {
        match child.try_wait() {
            Ok(None) => {
                state.current = Some(child);
                return false;
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
    match spawn() {
        Ok(mut child) => {
            tracing::debug!(pid = child.id(), "host watchdog started");
            let r = &state.registered;
            let replay: String = r
                .cg2
                .iter()
                .map(|d| format!("cg2 {}\n", d.display()))
                .chain(r.cgroups.iter().map(|d| format!("cg {}\n", d.display())))
                .chain(r.sids.iter().map(|s| format!("sid {s}\n")))
                .chain(r.files.iter().map(|f| format!("file {}\n", f.display())))
                .collect();
            if let Some(stdin) = child.stdin.as_mut()
                && let Err(err) = stdin
                    .write_all(replay.as_bytes())
                    .and_then(|()| stdin.flush())
            {
                tracing::warn!(%err, "cannot brief the host watchdog");
            }
            state.current = Some(child);
        }
        Err(err) => tracing::warn!(%err, "no host watchdog; sessions may outlive a killed host"),
    }
    true
}

fn spawn() -> std::io::Result<Child> {
    let child = Command::new("/bin/sh")
        .arg("-c")
        .arg(SCRIPT)
        .arg(HELPER_NAME)
        .arg(tag_prefix(crate::session::ENVIRON_TAG))
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
/// session). For diagnostics and tests.
#[must_use]
pub fn host_watchdog_pid() -> Option<u32> {
    let state = WATCHDOG.lock();
    state.current.as_ref().map(Child::id)
}
