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
    ProcessIdentity, SessionCgroup, TeardownConfig, TreeTracker, enable_child_subreaper,
    foreground_pgid, group_name, is_group_waiting_on_tty, kill_session_now, reap_adopted_zombies,
    stat, terminate_session,
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

#[test]
fn c04_cat_reading_the_tty_is_waiting() {
    let p = PtyProgram::spawn(&["cat"]);
    p.assert_waiting(p.pid, KNOWN_ARCH, "cat");
}

#[test]
fn python_input_is_waiting() {
    let p = PtyProgram::spawn(&["python3", "-c", "input()"]);
    p.assert_waiting(p.pid, KNOWN_ARCH, "python3 input()");
}

#[test]
fn python_select_on_stdin_is_waiting() {
    let p = PtyProgram::spawn(&[
        "python3",
        "-c",
        "import select,sys; select.select([sys.stdin],[],[])",
    ]);
    p.assert_waiting(p.pid, KNOWN_ARCH, "python3 select([stdin])");
}

#[test]
fn python_poll_on_stdin_is_waiting() {
    let p = PtyProgram::spawn(&[
        "python3",
        "-c",
        "import select,sys; p=select.poll(); p.register(sys.stdin, select.POLLIN); p.poll()",
    ]);
    p.assert_waiting(p.pid, KNOWN_ARCH, "python3 poll(stdin)");
}

#[test]
fn python_epoll_on_stdin_is_waiting() {
    let p = PtyProgram::spawn(&[
        "python3",
        "-c",
        "import select,sys; e=select.epoll(); e.register(sys.stdin.fileno(), select.EPOLLIN); e.poll()",
    ]);
    p.assert_waiting(p.pid, KNOWN_ARCH, "python3 epoll(stdin)");
}

#[test]
fn select_on_the_tty_opened_as_fd_3_is_waiting() {
    // nfds = 4 and stdin is /dev/null: only reading the fd_set from memory can decide.
    let p = PtyProgram::spawn(&[
        "python3",
        "-c",
        "import os,select; fd=os.open(os.ttyname(0), os.O_RDONLY|os.O_NOCTTY); \
         os.dup2(os.open('/dev/null', os.O_RDONLY), 0); select.select([fd],[],[])",
    ]);
    p.assert_waiting(
        p.pid,
        KNOWN_ARCH,
        "select([fd 3 = tty]) with stdin /dev/null",
    );
}

#[test]
fn select_on_a_pipe_with_tty_stdin_is_not_waiting() {
    let p = PtyProgram::spawn(&[
        "python3",
        "-c",
        "import os,select; r,w=os.pipe(); select.select([r],[],[])",
    ]);
    wait_for("python3 to block in select", || {
        syscall_nr(p.pid)
            .filter(|nr| SELECT_SYSCALLS.contains(nr))
            .map(|_| ())
    });
    p.assert_waiting(p.pid, false, "select on a pipe");
}

#[test]
fn cat_reading_the_tty_on_fd_3_is_waiting() {
    // `less` shape: stdin is not the tty, the tty is opened again (fd 3) and read.
    let p = PtyProgram::spawn(&["sh", "-c", "exec cat \"$(tty)\" </dev/null"]);
    p.assert_waiting(p.pid, KNOWN_ARCH, "cat reading the tty on fd 3");
}

#[test]
fn pipeline_with_a_tty_reader_is_waiting() {
    let p = PtyProgram::spawn(&["sh", "-c", "cat | grep x"]);
    wait_for("cat and grep to start", || {
        let comms: HashSet<String> = group_members(p.pid).into_iter().map(|s| s.comm).collect();
        (comms.contains("cat") && comms.contains("grep")).then_some(())
    });
    p.assert_waiting(p.pid, KNOWN_ARCH, "cat | grep");
}

#[test]
fn pipe_reader_and_sleeper_are_not_waiting() {
    let p = PtyProgram::spawn(&["sh", "-c", "sleep 7001 | cat"]);
    wait_for("sleep | cat to settle", || {
        let members = group_members(p.pid);
        let comms: HashSet<&str> = members.iter().map(|s| s.comm.as_str()).collect();
        (comms.contains("sleep") && comms.contains("cat") && members.iter().all(|s| s.state == 'S'))
            .then_some(())
    });
    p.assert_waiting(p.pid, false, "sleep | cat");
}

#[test]
fn sleep_is_not_waiting() {
    let p = PtyProgram::spawn(&["sleep", "7002"]);
    wait_settled(p.pid, "sleep");
    p.assert_waiting(p.pid, false, "sleep");
}

#[test]
fn busy_loop_is_not_waiting() {
    let p = PtyProgram::spawn(&["python3", "-c", "while True: pass"]);
    wait_for("python3 busy loop to run", || {
        stat(p.pid)
            .filter(|s| s.comm == "python3" && s.state == 'R')
            .map(|_| ())
    });
    p.assert_waiting(p.pid, false, "busy loop");
}

#[test]
fn c24_node_stdin_listener_is_waiting() {
    if !Path::new("/usr/bin/node").exists() {
        eprintln!("note: /usr/bin/node missing; node epoll case skipped");
        return;
    }
    let p = PtyProgram::spawn(&["/usr/bin/node", "-e", "process.stdin.on('data',()=>{})"]);
    p.assert_waiting(p.pid, KNOWN_ARCH, "node stdin listener (epoll)");
}

#[test]
fn foreground_group_of_a_job_control_shell_names_the_program() {
    let p = PtyProgram::spawn(&[
        "bash",
        "--norc",
        "--noprofile",
        "-c",
        "set -m; python3 -c 'input()'; true",
    ]);
    let pgid = wait_for("python3 to own the terminal", || {
        foreground_pgid(p.pid)
            .filter(|&pg| pg != p.pid && group_name(pg).as_deref() == Some("python3"))
    });
    assert_eq!(foreground_pgid(p.pid), Some(pgid));
    p.assert_waiting(pgid, KNOWN_ARCH, "python3 in the foreground");
    // The shell's own group (waiting in wait4) is not reading the terminal.
    assert!(!is_group_waiting_on_tty(p.pid, &p.tty));
    // A group that does not exist is never waiting and has no name.
    assert!(!is_group_waiting_on_tty(i32::MAX, &p.tty));
    assert_eq!(group_name(i32::MAX), None);
    if let Some(id) = ProcessIdentity::of(pgid) {
        let _ = id.signal(Signal::KILL);
    }
}

#[test]
fn stat_parses_a_comm_with_spaces_and_parens() {
    let mut child = Command::new("python3")
        .args(["-c", "import ctypes,sys; ctypes.CDLL(None).prctl(15, b'a) (b c)', 0, 0, 0); sys.stdin.read()"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawn python3");
    let pid = child.id() as i32;
    let info = wait_for("the renamed comm", || {
        stat(pid).filter(|s| s.comm == "a) (b c)")
    });
    assert_eq!(info.pid, pid);
    assert_eq!(info.ppid, std::process::id() as i32);
    assert!(info.start_time > 0);
    drop(child.stdin.take());
    child.wait().expect("reap python3");
}

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

/// Asserts `pid` no longer exists at all (dead and reaped, by us or its parent).
fn assert_gone(pid: i32, what: &str) {
    wait_for(&format!("{what} (pid {pid}) to be reaped"), || {
        stat(pid).is_none().then_some(())
    });
}

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

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let config = TeardownConfig {
        grace: Duration::from_secs(5),
    };
    let report = runtime.block_on(terminate_session(
        shell.id,
        &mut tracker,
        cgroup.as_ref(),
        &config,
    ));

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

#[test]
fn c18_teardown_stops_all_five_background_forms_without_cgroup() {
    // Subreaper + descendant/session sweeps + environ tag, no cgroup.
    run_five_forms(7200, false);
}

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

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let report = runtime.block_on(terminate_session(
        shell.id,
        &mut tracker,
        None,
        &TeardownConfig {
            grace: Duration::from_secs(10),
        },
    ));
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
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let started = Instant::now();
    let report = runtime.block_on(terminate_session(
        shell.id,
        &mut tracker,
        None,
        &TeardownConfig {
            grace: Duration::from_secs(5),
        },
    ));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "no grace is spent on a dead session"
    );
    assert_eq!(report.stopped, 0);
    assert_eq!(report.survivors, Vec::<i32>::new());
    shell.reap();
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
