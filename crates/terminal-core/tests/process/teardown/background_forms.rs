//! C18: every form a background job can take (plain, `setsid`, `nohup`, disowned, a subshell's)
//! is stopped at teardown, with and without the session cgroup, and so is a job moved out of
//! it.

use super::*;

fn five_forms_script(base: u32) -> String {
    // Job control on, as in an interactive shell: every job gets its own process group, and
    // `setsid` forks (the job is a group leader), so form 2 leaves both tree and session.
    format!(
        "set -m
sleep {a} &
setsid sleep {b} &
nohup bash -c 'sleep {c}' >/dev/null 2>&1 &
sleep {d} & disown
(sleep {e} &)
wait
read -r _hold",
        a = base + 1,
        b = base + 2,
        c = base + 3,
        d = base + 4,
        e = base + 5,
    )
}

fn run_five_forms(base: u32, use_cgroup: bool) {
    enable_child_subreaper();
    let tag = format!("five-forms-{base}-{}", std::process::id());
    let mut shell = Shell::spawn(&five_forms_script(base), &tag);
    let cgroup = if use_cgroup {
        SessionCgroup::create(&format!("test-{base}"))
    } else {
        None
    };
    if use_cgroup && cgroup.is_none() {
        eprintln!("note: no writable cgroup2 here; C18 runs on subreaper + sweeps only");
    }
    if let Some(cg) = &cgroup {
        cg.add_pid(shell.id.pid)
            .expect("move the shell into its cgroup");
        assert_eq!(cg.pids(), vec![shell.id.pid]);
    }
    let mut tracker = shell.tracker();
    if let Some(cg) = &cgroup {
        tracker.attach_cgroup(cg);
    }
    shell.go();

    let forms: Vec<i32> = (1..=5)
        .map(|k| {
            let secs = (base + k).to_string();
            one_pid_with_cmdline(&["sleep", &secs])
        })
        .collect();
    // Identities of the five, taken now, to check nothing survives under the same identity.
    let ids: Vec<ProcessIdentity> = forms
        .iter()
        .map(|&pid| ProcessIdentity::of(pid).expect("identity"))
        .collect();
    tracker.refresh();

    let report = teardown(
        shell.id,
        &mut tracker,
        cgroup.as_ref(),
        5,
        Runtime::CurrentThread,
    );

    assert_eq!(report.survivors, Vec::<i32>::new(), "report: {report:?}");
    for (k, id) in ids.iter().enumerate() {
        assert!(
            !id.is_alive(),
            "form {} (pid {}) survived teardown",
            k + 1,
            id.pid
        );
    }
    assert!(!shell.id.is_alive(), "the shell must be stopped");
    // Five sleeps + the nohup one is `bash -c 'sleep'` (exec'd, one process) + the shell.
    assert!(
        report.stopped >= 6,
        "stopped counts every signalled process: {report:?}"
    );
    let shell_pid = shell.id.pid;
    shell.reap();
    assert_gone(shell_pid, "the shell");
    for (k, pid) in forms.iter().enumerate() {
        assert_gone(*pid, &format!("form {}", k + 1));
    }
    if let Some(cg) = cgroup {
        assert_eq!(cg.pids(), Vec::<i32>::new());
        let path = cg.path().to_path_buf();
        cg.remove();
        assert!(!path.exists(), "the session cgroup is removed once empty");
    }
}

#[test]
fn c18_teardown_stops_all_five_background_forms_with_cgroup() {
    run_five_forms(7100, true);
}

/// The root of the cgroup2 hierarchy `dir` is in: its highest ancestor that is a cgroup.
fn cgroup_root(dir: &Path) -> PathBuf {
    let mut root = dir.to_path_buf();
    while let Some(parent) = root.parent().filter(|p| p.join("cgroup.procs").exists()) {
        root = parent.to_path_buf();
    }
    root
}

/// Teardown on a multi-threaded runtime (its `/proc` scans run outside the workers) of a
/// session scanned through its cgroup, where a background job was moved out of the cgroup:
/// the scoped tiers cannot see it, the sweep over every process must.
#[test]
fn a_job_moved_out_of_the_session_cgroup_is_still_stopped() {
    enable_child_subreaper();
    let Some(cg) = SessionCgroup::create("test-escape") else {
        eprintln!("note: no writable cgroup2 here; the cgroup escape is not exercised");
        return;
    };
    let tag = format!("escape-{}", std::process::id());
    let mut shell = Shell::spawn("setsid sleep 7801 & sleep 7802 & wait; read -r _hold", &tag);
    cg.add_pid(shell.id.pid)
        .expect("move the shell into its cgroup");
    let mut tracker = shell
        .tracker()
        .with_scope(ProcessScope::cgroup_members(cg.path()));
    tracker.attach_cgroup(&cg);
    shell.go();
    let escaped = one_pid_with_cmdline(&["sleep", "7801"]);
    let stayed = one_pid_with_cmdline(&["sleep", "7802"]);
    let root = cgroup_root(cg.path());
    let moved = fs::write(root.join("cgroup.procs"), escaped.to_string()).is_ok();
    if moved {
        assert!(!cg.pids().contains(&escaped), "the job left the cgroup");
    } else {
        eprintln!(
            "note: cannot move a process to {}; escape not exercised",
            root.display()
        );
    }
    let ids = [escaped, stayed].map(|pid| ProcessIdentity::of(pid).expect("identity"));

    let report = teardown(shell.id, &mut tracker, Some(&cg), 5, Runtime::MultiThread);

    assert_eq!(report.survivors, Vec::<i32>::new(), "report: {report:?}");
    for id in ids {
        assert!(!id.is_alive(), "pid {} survived teardown", id.pid);
    }
    let shell_pid = shell.id.pid;
    shell.reap();
    assert_gone(shell_pid, "the shell");
    assert_gone(escaped, "the job moved out of the cgroup");
    assert_gone(stayed, "the job in the cgroup");
    cg.remove();
}

#[test]
fn c18_teardown_stops_all_five_background_forms_without_cgroup() {
    // Subreaper + descendant/session sweeps + environ tag, no cgroup.
    run_five_forms(7200, false);
}
