//! The stdin-wait classifier on real PTYs, and `/proc` stat parsing.

use super::*;

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

/// A job its debugger single-steps (gdb's `stepi`, or `next` over a line that loops) spends
/// much of its time in tracing stop (`t`), held by gdb between steps: it is busy at every
/// look, never idle (counted as stopped, a `next` over a long loop was reported quiet and
/// idle after a few seconds).
#[test]
fn a_job_its_debugger_single_steps_is_busy() {
    if Command::new("gdb").arg("--version").output().is_err() {
        eprintln!("note: gdb missing; the single-stepped job case is skipped");
        return;
    }
    let p = PtyProgram::spawn(&[
        "gdb",
        "-q",
        "-nx",
        "-batch",
        "-ex",
        "starti",
        "-ex",
        "stepi 1000000000",
        "--args",
        "/bin/sh",
        "-c",
        "while :; do :; done",
    ]);
    // gdb hands the terminal to its inferior's own group while it steps it.
    let inferior = wait_for("gdb to step sh in the foreground", || {
        let fg = stat(p.pid)?.tpgid;
        (fg != p.pid && stat(fg)?.comm == "sh").then_some(fg)
    });
    let mut traced = 0;
    for _ in 0..200 {
        if stat(inferior).is_some_and(|s| s.state == 't') {
            traced += 1;
        }
        let activity = group_activity(inferior, &p.tty);
        assert!(
            !matches!(activity, GroupActivity::Idle),
            "a single-stepped job must count as busy, not {activity:?}"
        );
    }
    eprintln!("{traced} of 200 looks found sh in tracing stop");
}
