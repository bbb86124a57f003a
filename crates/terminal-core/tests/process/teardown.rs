//! Identity fencing, tree capture, whole-session teardown (C17, C20, C21; C18's background forms and C19's traps in the submodules), cgroups and orphan reaping.

use super::*;

mod background_forms;
mod traps;

#[test]
fn identity_fencing_never_signals_a_dead_or_different_process() {
    let mut child = Command::new("sleep")
        .arg("7003")
        .spawn()
        .expect("spawn sleep");
    let pid = child.id() as i32;
    let id = ProcessIdentity::of(pid).expect("identity");
    assert!(id.is_alive());

    // Same pid, other start time: never signalled.
    let impostor = ProcessIdentity {
        pid,
        start_time: id.start_time.wrapping_add(1),
    };
    assert!(!impostor.is_alive());
    assert!(!impostor.signal(Signal::KILL));
    assert!(
        id.is_alive(),
        "the real process must survive a fenced signal"
    );

    assert!(id.signal(Signal::KILL));
    wait_for("sleep to become a zombie", || {
        (!id.is_alive()).then_some(())
    });
    // A zombie counts as gone and is not signalled.
    assert!(!id.signal(Signal::KILL));
    child.wait().expect("reap sleep");
    assert!(!id.is_alive());
    assert!(!id.signal(Signal::KILL));
    assert_eq!(ProcessIdentity::of(0), None);
    assert_eq!(ProcessIdentity::of(-1), None);
}

/// A stand-in for a session shell: `setsid bash -c <script>` (its own session, like a PTY
/// shell), held at `read` until the test is ready (so it can be put in a cgroup first).
struct Shell {
    child: Child,
    id: ProcessIdentity,
    tag: String,
}

impl Shell {
    /// `script` runs after the go line; a trailing `read -r _hold` keeps the shell alive (at
    /// its "prompt") until teardown stops it.
    fn spawn(script: &str, tag: &str) -> Self {
        let full = format!("read -r _go; {script}");
        let child = Command::new("setsid")
            .args(["bash", "--norc", "--noprofile", "-c", &full])
            .env("DSH_TEST_SESSION_TAG", tag)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn setsid bash");
        let pid = child.id() as i32;
        // setsid(1) execs in place when the caller is not a group leader (ours is not).
        let id = wait_for("the shell to be a session leader", || {
            stat(pid)
                .filter(|s| s.session == pid && s.comm == "bash")
                .map(|s| s.identity())
        });
        Self {
            child,
            id,
            tag: tag.to_owned(),
        }
    }

    fn tracker(&self) -> TreeTracker {
        TreeTracker::new(self.id).with_environ_tag("DSH_TEST_SESSION_TAG", &self.tag)
    }

    fn go(&mut self) {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        stdin.write_all(b"go\n").expect("write go");
    }

    fn reap(mut self) {
        drop(self.child.stdin.take());
        // The shell was stopped by teardown; this only collects its status.
        self.child.wait().expect("reap shell");
    }
}

/// The tokio runtime a teardown runs on.
enum Runtime {
    CurrentThread,
    /// Two workers: teardown's `/proc` scans leave the workers (`block_in_place`).
    MultiThread,
}

/// [`terminate_session`] with a grace of `grace_secs`, on a fresh runtime of `kind`.
fn teardown(
    shell: ProcessIdentity,
    tracker: &mut TreeTracker,
    cgroup: Option<&SessionCgroup>,
    grace_secs: u64,
    kind: Runtime,
) -> dsh_terminal_core::process::TeardownReport {
    let mut builder = match kind {
        Runtime::CurrentThread => tokio::runtime::Builder::new_current_thread(),
        Runtime::MultiThread => tokio::runtime::Builder::new_multi_thread(),
    };
    if matches!(kind, Runtime::MultiThread) {
        builder.worker_threads(2);
    }
    let runtime = builder.enable_time().build().expect("runtime");
    let config = TeardownConfig {
        grace: Duration::from_secs(grace_secs),
    };
    runtime.block_on(terminate_session(shell, None, tracker, cgroup, &config))
}

/// A shell run by a launcher (a sandbox's `bwrap` runs the session's bash as its descendant):
/// teardown freezes it before stopping its command, so the rest of its command line never
/// runs, even though it survives SIGTERM and SIGHUP (an interactive shell ignores SIGTERM; a
/// handler here, which its children do not inherit as an ignored signal would be).
#[test]
fn a_launched_shell_never_runs_the_rest_of_its_command_line() {
    let marker = std::env::temp_dir().join(format!("dsh-launched-{}", std::process::id()));
    let _ = fs::remove_file(&marker);
    let inner = format!("trap : TERM HUP; sleep 7013; touch '{}'", marker.display());
    let mut launcher = Shell::spawn(
        &format!("bash --norc --noprofile -c \"{inner}\"; :"),
        "launched",
    );
    let mut tracker = launcher.tracker();
    launcher.go();
    let inner_pid = one_pid_with_cmdline(&["bash", "--norc", "--noprofile", "-c", &inner]);
    let launched = ProcessIdentity::of(inner_pid).expect("the launched shell's identity");
    let sleep = one_pid_with_cmdline(&["sleep", "7013"]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let config = TeardownConfig {
        grace: Duration::from_secs(5),
    };
    let report = runtime.block_on(terminate_session(
        launcher.id,
        Some(launched),
        &mut tracker,
        None,
        &config,
    ));
    assert_eq!(report.survivors, Vec::<i32>::new());
    assert_gone(sleep, "sleep 7013");
    assert_gone(inner_pid, "the launched shell");
    assert!(
        !marker.exists(),
        "the launched shell ran the rest of its line"
    );
    launcher.reap();
}

/// A detached `sh` running a chain (`sleep …; touch marker`, started by `( … &)`) never runs
/// the chain's next step at teardown: it is frozen with its `sleep` before either is
/// signalled, so it cannot see the `sleep` die before its own signal lands. Repeated, as the
/// race it closes was a matter of scheduling.
#[test]
fn a_detached_chain_never_runs_its_next_step_at_teardown() {
    for round in 0..20 {
        let marker = std::env::temp_dir().join(format!("dsh-chain-{}-{round}", std::process::id()));
        let _ = fs::remove_file(&marker);
        let sleep_arg = format!("7015.{round}");
        let mut shell = Shell::spawn(
            &format!(
                "(sh -c 'sleep {sleep_arg}; touch {}' &); read -r _hold",
                marker.display()
            ),
            "chain",
        );
        let mut tracker = shell.tracker();
        shell.go();
        let sleep = one_pid_with_cmdline(&["sleep", &sleep_arg]);
        let report = teardown(shell.id, &mut tracker, None, 5, Runtime::MultiThread);
        assert_eq!(report.survivors, Vec::<i32>::new());
        assert_gone(sleep, "the chain's sleep");
        // The sh that ran the chain is gone too (it was the sleep's parent).
        assert!(
            pids_with_cmdline(&[
                "sh",
                "-c",
                &format!("sleep {sleep_arg}; touch {}", marker.display())
            ])
            .is_empty()
        );
        assert!(!marker.exists(), "round {round}: the chain's next step ran");
        shell.reap();
    }
}

/// A process that ignores both SIGTERM and SIGHUP is killed at once, not after the grace: a
/// chain it runs (`sleep 2; touch marker`, its signals ignored) has no time to go on.
#[test]
fn a_process_ignoring_both_polite_signals_is_killed_at_once() {
    let marker = std::env::temp_dir().join(format!("dsh-deaf-{}", std::process::id()));
    let _ = fs::remove_file(&marker);
    let chain = format!("trap '' TERM HUP; sleep 7016; touch {}", marker.display());
    let mut shell = Shell::spawn(&format!("(sh -c \"{chain}\" &); read -r _hold"), "deaf");
    let mut tracker = shell.tracker();
    shell.go();
    let sleep = one_pid_with_cmdline(&["sleep", "7016"]);
    let started = Instant::now();
    let report = teardown(shell.id, &mut tracker, None, 30, Runtime::MultiThread);
    assert_eq!(report.survivors, Vec::<i32>::new());
    assert_gone(sleep, "the deaf chain's sleep");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "no grace is spent on what ignores every polite signal ({:?})",
        started.elapsed()
    );
    assert!(!marker.exists(), "the deaf chain went on");
    shell.reap();
}

/// Asserts `pid` no longer exists at all (dead and reaped, by us or its parent).
fn assert_gone(pid: i32, what: &str) {
    wait_for(&format!("{what} (pid {pid}) to be reaped"), || {
        stat(pid).is_none().then_some(())
    });
}

#[test]
fn c17_reparented_descendants_stay_captured() {
    enable_child_subreaper();
    // The middle process starts its own session, so once it dies its child is neither in the
    // shell's tree nor in its session: only the tracker's memory keeps it.
    let script = "setsid sh -c 'sleep 7401 & exec sleep 7402' & wait";
    let mut shell = Shell::spawn(script, "none");
    let mut tracker = TreeTracker::new(shell.id);
    shell.go();
    let grandchild = one_pid_with_cmdline(&["sleep", "7401"]);
    let middle = one_pid_with_cmdline(&["sleep", "7402"]);
    wait_for("the grandchild to be a child of the middle process", || {
        (stat(grandchild)?.ppid == middle).then_some(())
    });
    tracker.refresh();
    let gid = ProcessIdentity::of(grandchild).expect("identity");
    assert!(tracker.captured().contains(&gid));

    let mid = ProcessIdentity::of(middle).expect("identity");
    assert!(mid.signal(Signal::KILL));
    let me = std::process::id() as i32;
    wait_for("the grandchild to be re-parented to us (subreaper)", || {
        (stat(grandchild)?.ppid == me).then_some(())
    });
    tracker.refresh();
    assert!(
        tracker.captured().contains(&gid),
        "re-parented descendant stays captured"
    );
    assert!(
        !tracker.captured().contains(&mid),
        "dead processes are not captured"
    );

    kill_session_now(shell.id, &mut tracker, None);
    wait_for("the grandchild to die", || (!gid.is_alive()).then_some(()));
    // The grandchild is our zombie now; the tracker reaps it (it captured it).
    wait_for("the adopted zombie to be reaped", || {
        tracker.reap_zombies();
        stat(grandchild).is_none().then_some(())
    });
    let shell_pid = shell.id.pid;
    shell.reap();
    assert_gone(shell_pid, "the shell");
}

#[test]
fn c21_dead_shell_teardown_is_quick_and_clean() {
    // The shell killed itself (`kill -9 $$`): teardown finds nothing to stop but still sweeps.
    let mut shell = Shell::spawn("kill -9 $$", "none");
    let mut tracker = TreeTracker::new(shell.id);
    shell.go();
    wait_for("the shell to die", || (!shell.id.is_alive()).then_some(()));
    let started = Instant::now();
    let report = teardown(shell.id, &mut tracker, None, 30, Runtime::CurrentThread);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "no grace is spent on a dead session"
    );
    assert_eq!(report.stopped, 0);
    assert_eq!(report.survivors, Vec::<i32>::new());
    shell.reap();
}

/// A PID namespace's init seen from outside drops every signal but SIGKILL (a sandbox's
/// `bwrap`, here a `sleep` that is PID 1 of its namespace): teardown does not spend its grace
/// waiting for SIGTERM or SIGHUP to stop it, and still leaves nothing running.
#[test]
fn a_pid_namespace_init_is_not_waited_for_after_signals_it_cannot_receive() {
    let probe = Command::new("bwrap")
        .args([
            "--unshare-pid",
            "--as-pid-1",
            "--dev-bind",
            "/",
            "/",
            "true",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("bwrap cannot make a PID namespace here (.ci/run installs it): not exercised");
        return;
    }
    enable_child_subreaper();
    let script = "bwrap --unshare-pid --as-pid-1 --dev-bind / / sleep 7501 & read -r _hold";
    let mut shell = Shell::spawn(script, "none");
    let mut tracker = TreeTracker::new(shell.id);
    shell.go();
    let init = wait_for("sleep as its namespace's PID 1", || {
        let pid = one_pid_with_cmdline(&["sleep", "7501"]);
        let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let nspid = status.lines().find_map(|l| l.strip_prefix("NSpid:"))?;
        nspid.split_whitespace().last().filter(|&id| id == "1")?;
        ProcessIdentity::of(pid)
    });
    const GRACE_SECS: u64 = 60;
    let started = Instant::now();
    let report = teardown(
        shell.id,
        &mut tracker,
        None,
        GRACE_SECS,
        Runtime::MultiThread,
    );
    assert!(
        started.elapsed() < Duration::from_secs(GRACE_SECS / 2),
        "the grace was spent waiting for a namespace init ({:?})",
        started.elapsed()
    );
    assert!(!init.is_alive(), "the namespace init was stopped");
    assert_eq!(report.survivors, Vec::<i32>::new());
    let shell_pid = shell.id.pid;
    shell.reap();
    assert_gone(shell_pid, "the shell");
}

#[test]
fn cgroup_lifecycle() {
    let Some(cg) = SessionCgroup::create("test-lifecycle") else {
        eprintln!("note: no writable cgroup2 here; cgroup lifecycle not exercised");
        return;
    };
    let other = SessionCgroup::create("test-lifecycle").expect("a second cgroup with a taken name");
    assert_ne!(cg.path(), other.path());
    let mut child = Command::new("sleep")
        .arg("7501")
        .spawn()
        .expect("spawn sleep");
    let pid = child.id() as i32;
    cg.add_pid(pid).expect("add pid");
    assert_eq!(cg.pids(), vec![pid]);
    cg.remove();
    assert!(cg.path().exists(), "a populated cgroup is not removed");
    cg.kill().expect("cgroup.kill");
    child.wait().expect("reap sleep");
    wait_for("the cgroup to empty", || cg.pids().is_empty().then_some(()));
    let path = cg.path().to_path_buf();
    drop(cg);
    assert!(!path.exists(), "drop removes an empty cgroup");
    assert!(cg_add_rejects_bad_pid(&other));
}

fn cg_add_rejects_bad_pid(cg: &SessionCgroup) -> bool {
    cg.add_pid(0).is_err() && cg.add_pid(-5).is_err()
}

#[test]
fn c21_adopted_orphan_zombies_are_reaped_by_pid() {
    assert!(
        enable_child_subreaper(),
        "PR_SET_CHILD_SUBREAPER needs no privilege"
    );
    let mut parent = Command::new("sh")
        .args(["-c", "sleep 7601 & exit 0"])
        .spawn()
        .expect("spawn sh");
    parent.wait().expect("reap sh");
    let orphan = one_pid_with_cmdline(&["sleep", "7601"]);
    let me = std::process::id() as i32;
    wait_for("the orphan to be re-parented to us", || {
        (stat(orphan)?.ppid == me).then_some(())
    });
    let id = ProcessIdentity::of(orphan).expect("identity");
    assert!(id.signal(Signal::KILL));
    wait_for("the orphan to be reaped", || {
        // Claim every other child: only the orphan may be reaped here.
        reap_adopted_zombies(&|pid| pid != orphan);
        stat(orphan).is_none().then_some(())
    });
    assert_eq!(reap_adopted_zombies(&|pid| pid != orphan), 0);
}
