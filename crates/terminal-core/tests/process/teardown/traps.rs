//! C19: a job's EXIT, TERM and HUP traps run before teardown kills its group, a stopped job's too.

use super::*;

/// C19 shape: `bash -c '<traps>; sleep N & wait'` as the shell's foreground job; teardown must
/// let the trap write `cleaned` before the group dies, and leave no `sleep N`.
fn run_trap_case(traps: &str, sleep_secs: &str, stop_first: bool) {
    enable_child_subreaper();
    let dir =
        std::env::temp_dir().join(format!("dsh-proc-trap-{sleep_secs}-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    let trap_file = dir.join("agent-trap.txt");
    let _ = fs::remove_file(&trap_file);
    let traps = traps.replace("FILE", &trap_file.display().to_string());
    let script = format!("set -m; bash -c '{traps}; sleep {sleep_secs} & wait'; read -r _hold");
    let mut shell = Shell::spawn(
        &script,
        &format!("trap-{sleep_secs}-{}", std::process::id()),
    );
    let mut tracker = shell.tracker();
    shell.go();
    let sleeper = one_pid_with_cmdline(&["sleep", sleep_secs]);
    // The traps are installed before `sleep` starts, so they are armed now.
    let inner = wait_for("the trapping bash", || {
        stat(sleeper)
            .map(|s| s.ppid)
            .filter(|&pp| pp != shell.id.pid && stat(pp).is_some_and(|p| p.comm == "bash"))
    });
    tracker.refresh();
    let captured: HashSet<i32> = tracker.captured().iter().map(|id| id.pid).collect();
    assert!(
        captured.contains(&sleeper) && captured.contains(&inner),
        "captured {captured:?}"
    );
    if stop_first {
        // Like a job suspended with ^Z: its trap can only run once it is continued.
        let id = ProcessIdentity::of(inner).expect("identity");
        assert!(id.signal(Signal::STOP));
        wait_for("the trapping bash to stop", || {
            stat(inner).filter(|s| s.state == 'T').map(|_| ())
        });
    }

    let report = teardown(shell.id, &mut tracker, None, 10, Runtime::CurrentThread);
    assert_eq!(report.survivors, Vec::<i32>::new());
    assert!(
        report.stopped >= 3,
        "inner bash, sleep and the shell: {report:?}"
    );
    assert_eq!(
        fs::read_to_string(&trap_file).ok().as_deref(),
        Some("cleaned\n"),
        "the trap ran ({traps})"
    );
    assert!(
        pids_with_cmdline(&["sleep", sleep_secs]).is_empty(),
        "no sleep {sleep_secs} remains"
    );
    let shell_pid = shell.id.pid;
    shell.reap();
    assert_gone(shell_pid, "the shell");
    assert_gone(sleeper, "the trapped job's sleep");
    assert_gone(inner, "the trapping bash");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn c19_exit_trap_runs_before_the_group_dies() {
    run_trap_case(r#"trap "echo cleaned > FILE" EXIT"#, "7301", false);
}

#[test]
fn c19_term_trap_runs_before_the_group_dies() {
    // SIGTERM comes first and alone: a TERM-only trap is not cut short by SIGHUP.
    run_trap_case(r#"trap "echo cleaned > FILE; exit 0" TERM"#, "7302", false);
}

#[test]
fn c19_hup_trap_of_a_term_ignoring_job_runs() {
    // A job that ignores SIGTERM (like a nested interactive shell) is hung up instead.
    run_trap_case(
        r#"trap "" TERM; trap "echo cleaned > FILE; exit 0" HUP"#,
        "7303",
        false,
    );
}

#[test]
fn c19_stopped_job_is_continued_so_its_trap_runs() {
    run_trap_case(r#"trap "echo cleaned > FILE; exit 0" TERM"#, "7304", true);
}
