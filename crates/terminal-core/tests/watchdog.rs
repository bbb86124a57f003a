//! Field case C20: every process a session started dies when the HOST process is SIGKILLed,
//! through the host-death watchdog that `SessionCgroup::create` starts.
//!
//! The test binary re-executes itself as the host: [`c20_host_process`] acts as the host only
//! when [`HOST_ENV`] is set (otherwise it returns at once), creates a session cgroup, starts a
//! shell in it that leaves `sleep &`, `setsid sleep &`, `nohup sleep &` and double-forked
//! sleeps behind, reports on stdout and blocks. The real test SIGKILLs that host and waits
//! (deadlines, no fixed sleeps) until every one of them is gone, the watchdog has exited and
//! the `dsh-<hostpid>` directory is removed. This process is a child subreaper, so the host's
//! orphans (the watchdog included) come back to it and are reaped here.
//!
//! Without a writable cgroup2 there is no session cgroup and no watchdog: the test prints why
//! and passes.
//!
//! A second host ([`registry_host_process`]) registers and unregisters thousands of sessions
//! before its one live session, whose process only its session id leads to: the watchdog must
//! keep up with the host's registrations (the host reports only once every write went through)
//! and still find that process after the host is SIGKILLed.

#![expect(
    clippy::expect_used,
    reason = "test helpers outside #[test] functions expect like the tests do"
)]

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use dsh_terminal_core::process::{
    IdentityStatus, ProcessIdentity, SessionCgroup, enable_child_subreaper, host_watchdog_pid,
    reap_adopted_zombies, unwatch_cgroup_dir, unwatch_file, unwatch_session, watch_cgroup_dir,
    watch_file, watch_session,
};

/// Generous upper bound for anything the test waits on.
const DEADLINE: Duration = Duration::from_secs(20);

/// Set in the re-executed test binary that plays the host.
const HOST_ENV: &str = "DSH_WATCHDOG_TEST_HOST";

/// Name of the `#[test]` that plays the host.
const HOST_TEST: &str = "c20_host_process";

/// Set in the re-executed test binary that plays the host with a large registry.
const REGISTRY_HOST_ENV: &str = "DSH_WATCHDOG_TEST_REGISTRY_HOST";

/// Name of the `#[test]` that plays the host with a large registry.
const REGISTRY_HOST_TEST: &str = "registry_host_process";

/// Sessions the registry host registers and unregisters again before its live one (each with
/// a session id and a cgroup directory path as long as a real cgroup v1 one).
const CHURN: usize = 3000;

/// Pids of the hosts the tests spawned: their own test waits on them, so the zombie reaping
/// of the other test must leave them alone.
static HOSTS: std::sync::Mutex<Vec<i32>> = std::sync::Mutex::new(Vec::new());

/// Reaps adopted zombies, leaving the test hosts to their own test's `wait`.
fn reap_orphans() {
    let hosts = HOSTS.lock().map(|h| h.clone()).unwrap_or_default();
    reap_adopted_zombies(&|pid| hosts.contains(&pid));
}

/// Spawns this test binary as a host running `test` (with `env` set), remembered in [`HOSTS`].
fn spawn_host(test: &str, env: &str) -> Child {
    let host = Command::new(std::env::current_exe().expect("current test binary"))
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(env, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the host");
    if let Ok(mut hosts) = HOSTS.lock() {
        hosts.push(i32::try_from(host.id()).expect("pid fits i32"));
    }
    host
}

/// Forwards the host's report lines (without [`REPORT`]) to the returned channel.
fn report_lines(host: &mut Child) -> (mpsc::Receiver<String>, std::thread::JoinHandle<()>) {
    let stdout = host.stdout.take().expect("host stdout");
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            // libtest may have started the line (`test c20_host_process ... `).
            if let Some((_, report)) = line.split_once(REPORT) {
                let _ = tx.send(report.to_owned());
            }
        }
    });
    (rx, reader)
}

/// Marker of the host's report lines on stdout (libtest prints its own text too).
const REPORT: &str = "C20-HOST ";

/// The session's shell: waits until it is in the cgroup, then leaves every background form
/// behind and becomes `sleep 2000` itself.
const SESSION_SCRIPT: &str = "read -r _
sleep 2001 </dev/null >/dev/null 2>&1 &
setsid sleep 2002 </dev/null >/dev/null 2>&1 &
nohup sleep 2003 </dev/null >/dev/null 2>&1 &
(sleep 2004 </dev/null >/dev/null 2>&1 &)
setsid sh -c 'sleep 2005 </dev/null >/dev/null 2>&1 &' </dev/null >/dev/null 2>&1
exec sleep 2000 </dev/null >/dev/null 2>&1
";

/// Arguments of the `sleep`s [`SESSION_SCRIPT`] leaves running.
const SLEEPS: [&str; 6] = ["2000", "2001", "2002", "2003", "2004", "2005"];

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

/// Writes one report line to the real stdout (not libtest's capture) and flushes it.
fn report(line: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{REPORT}{line}").expect("write the report line");
    out.flush().expect("flush the report line");
}

/// The host side, run in the re-executed test binary only.
#[test]
fn c20_host_process() {
    if std::env::var_os(HOST_ENV).is_none() {
        return;
    }
    let Some(cgroup) = SessionCgroup::create("c20") else {
        report("skip no writable cgroup2 (unprivileged, cgroup v1 only or read-only mount)");
        return;
    };
    let watchdog = host_watchdog_pid().expect("the first session cgroup starts the watchdog");
    let mut shell = Command::new("/bin/sh")
        .args(["-c", SESSION_SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the session shell");
    cgroup
        .add_pid(i32::try_from(shell.id()).expect("pid fits i32"))
        .expect("move the shell into the session cgroup");
    shell
        .stdin
        .take()
        .expect("shell stdin")
        .write_all(b"go\n")
        .expect("release the shell");
    report(&format!(
        "ready watchdog={watchdog} session={}",
        cgroup.path().display()
    ));
    // Blocks until the test SIGKILLs this process. Should the test die first, stdin reaches
    // EOF: clean up like a host closing its session would.
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    let _ = cgroup.kill();
    let _ = shell.wait();
}

/// Kills the host and the session cgroup, and removes the cgroup directories, if the test
/// fails half-way (a no-op once the watchdog did its job).
struct HostGuard {
    host: Child,
    session: Option<PathBuf>,
}

impl Drop for HostGuard {
    fn drop(&mut self) {
        let _ = self.host.kill();
        let _ = self.host.wait();
        let Some(session) = &self.session else {
            return;
        };
        let _ = fs::write(session.join("cgroup.kill"), "1");
        let start = Instant::now();
        while session.exists() && start.elapsed() < DEADLINE {
            reap_orphans();
            let _ = fs::remove_dir(session);
            std::thread::sleep(Duration::from_millis(5));
        }
        if let Some(host_dir) = session.parent() {
            let _ = fs::remove_dir(host_dir);
        }
    }
}

fn cmdline(pid: i32) -> Option<Vec<u8>> {
    fs::read(format!("/proc/{pid}/cmdline")).ok()
}

fn cgroup_pids(dir: &Path) -> Vec<i32> {
    fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// The unified-hierarchy (`0::`) line of `/proc/PID/cgroup`.
fn unified_cgroup(pid: u32) -> Option<String> {
    let text = fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("0::"))
        .map(str::to_owned)
}

/// The identities of the six session sleeps, once all of them run inside `session`.
fn session_sleeps(session: &Path) -> Vec<ProcessIdentity> {
    wait_for("all six session sleeps inside the session cgroup", || {
        let members = cgroup_pids(session);
        SLEEPS
            .iter()
            .map(|secs| {
                let want = format!("sleep\0{secs}\0").into_bytes();
                let pid = members
                    .iter()
                    .copied()
                    .find(|&pid| cmdline(pid).is_some_and(|c| c == want))?;
                ProcessIdentity::of(pid)
            })
            .collect::<Option<Vec<_>>>()
    })
}

#[test]
fn c20_session_processes_die_when_the_host_is_sigkilled() {
    if std::env::var_os(HOST_ENV).is_some() {
        return;
    }
    // The host's orphans (the watchdog among them) are re-parented here and reaped below.
    assert!(enable_child_subreaper(), "PR_SET_CHILD_SUBREAPER");
    let mut guard = HostGuard {
        host: spawn_host(HOST_TEST, HOST_ENV),
        session: None,
    };
    let (rx, reader) = report_lines(&mut guard.host);
    let line = rx
        .recv_timeout(DEADLINE)
        .expect("the host reports within the deadline");
    if let Some(reason) = line.strip_prefix("skip ") {
        eprintln!("note: C20 watchdog not exercised: {reason}");
        drop(guard);
        reader.join().expect("reader thread");
        return;
    }
    let (watchdog, session) = line
        .strip_prefix("ready watchdog=")
        .and_then(|rest| rest.split_once(" session="))
        .expect("a ready line");
    let watchdog: u32 = watchdog.parse().expect("watchdog pid");
    let session = PathBuf::from(session);
    guard.session = Some(session.clone());
    let host_dir = session.parent().expect("host dir").to_path_buf();
    assert_eq!(
        host_dir.file_name().and_then(|n| n.to_str()),
        Some(format!("dsh-{}", guard.host.id()).as_str()),
        "session cgroups live under dsh-<hostpid>"
    );

    let sleeps = session_sleeps(&session);
    let watchdog_id = ProcessIdentity::of(i32::try_from(watchdog).expect("pid fits i32"))
        .expect("the watchdog runs");
    assert_eq!(
        unified_cgroup(watchdog),
        unified_cgroup(guard.host.id()),
        "the watchdog stays in the host's cgroup, outside every session cgroup"
    );
    assert!(
        !cgroup_pids(&session).contains(&watchdog_id.pid),
        "the watchdog is not in the session cgroup"
    );

    // SIGKILL: the host gets no chance to clean up.
    guard.host.kill().expect("SIGKILL the host");
    guard.host.wait().expect("reap the host");
    reader.join().expect("reader thread");

    let all: Vec<ProcessIdentity> = sleeps.iter().copied().chain([watchdog_id]).collect();
    wait_for(
        "every session process and the watchdog to be gone, and dsh-<hostpid> removed",
        || {
            reap_orphans();
            let gone = all.iter().all(|id| id.status() == IdentityStatus::Gone);
            (gone && !host_dir.exists()).then_some(())
        },
    );
}

/// The registry host, run in the re-executed test binary only: churns through [`CHURN`]
/// sessions, then registers one live session (a `sleep` leading its own POSIX session, in no
/// cgroup and without the environment tag) and blocks.
#[test]
fn registry_host_process() {
    if std::env::var_os(REGISTRY_HOST_ENV).is_none() {
        return;
    }
    let me = std::process::id();
    let dir = |i: usize| {
        PathBuf::from(format!(
            "/sys/fs/cgroup/memory/dsh-watchdog-test-{me}/{i:08}-0123456789abcdef0123456789abcdef"
        ))
    };
    // Session ids above any pid (pid_max is at most 2^22): never a live process.
    let sid = |i: usize| 10_000_000 + i32::try_from(i).expect("small");
    for i in 0..CHURN {
        watch_cgroup_dir(&dir(i));
        watch_session(sid(i));
        watch_file(&dir(i).join("rc"));
    }
    // Newest first: each removal is then of an entry at the end of the registry.
    for i in (0..CHURN).rev() {
        unwatch_cgroup_dir(&dir(i));
        unwatch_session(sid(i));
        unwatch_file(&dir(i).join("rc"));
    }
    // A file still registered when the host dies is removed; one unregistered stays.
    let files = std::env::temp_dir().join(format!("dsh-watchdog-files-{me}"));
    fs::create_dir_all(&files).expect("create the files' directory");
    for name in ["registered", "unregistered"] {
        fs::write(files.join(name), "").expect("write a file");
        watch_file(&files.join(name));
    }
    unwatch_file(&files.join("unregistered"));
    // Not a process group leader, so `setsid` makes the sleep's own pid its session id.
    let mut sleep = Command::new("setsid")
        .args(["sleep", "2010"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn setsid sleep");
    let pid = i32::try_from(sleep.id()).expect("pid fits i32");
    wait_for("the sleep to lead its own session", || {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let session: i32 = stat.rsplit_once(") ")?.1.split(' ').nth(3)?.parse().ok()?;
        (session == pid && cmdline(pid).is_some_and(|c| c.starts_with(b"sleep\0"))).then_some(())
    });
    watch_session(pid);
    let watchdog = host_watchdog_pid().expect("registering starts the watchdog");
    report(&format!(
        "ready watchdog={watchdog} sleep={pid} files={}",
        files.display()
    ));
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    let _ = sleep.kill();
    let _ = sleep.wait();
}

#[test]
fn the_watchdog_keeps_up_with_thousands_of_sessions_and_still_sweeps() {
    if std::env::var_os(REGISTRY_HOST_ENV).is_some() || std::env::var_os(HOST_ENV).is_some() {
        return;
    }
    assert!(enable_child_subreaper(), "PR_SET_CHILD_SUBREAPER");
    let mut guard = HostGuard {
        host: spawn_host(REGISTRY_HOST_TEST, REGISTRY_HOST_ENV),
        session: None,
    };
    let (rx, reader) = report_lines(&mut guard.host);
    let line = rx
        .recv_timeout(DEADLINE)
        .expect("the host gets its registrations through and reports within the deadline");
    let (watchdog, rest) = line
        .strip_prefix("ready watchdog=")
        .and_then(|rest| rest.split_once(" sleep="))
        .expect("a ready line");
    let (sleep, files) = rest.split_once(" files=").expect("a ready line");
    let files = PathBuf::from(files);
    let ids: Vec<ProcessIdentity> = [watchdog, sleep]
        .iter()
        .map(|p| ProcessIdentity::of(p.parse().expect("pid")).expect("the process runs"))
        .collect();
    guard.host.kill().expect("SIGKILL the host");
    guard.host.wait().expect("reap the host");
    reader.join().expect("reader thread");
    wait_for(
        "the registered session's sleep and the watchdog to be gone",
        || {
            reap_orphans();
            ids.iter()
                .all(|id| id.status() == IdentityStatus::Gone)
                .then_some(())
        },
    );
    let registered = files.join("registered").exists();
    let unregistered = files.join("unregistered").exists();
    let _ = fs::remove_dir_all(&files);
    assert!(
        !registered,
        "a file registered at the host's death was left"
    );
    assert!(
        unregistered,
        "a file unregistered before the host died was removed"
    );
}
