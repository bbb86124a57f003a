//! Programs stopped with SIGTSTP and continued with `fg`: a program waiting on the terminal
//! when it was stopped waits on it again once continued, and takes what is sent to it.

use dsh_terminal_core::{BackendSession, SendResult, SignalDelivery, TerminalSignal, WaitReason};

use crate::support::{Shell, config, installed, within};

/// Sends SIGTSTP to the session's foreground, checks how it went (`delivery`, when given),
/// and polls: the result, which shows the job stopped.
async fn suspend(sh: &Shell, delivery: Option<SignalDelivery>) -> SendResult {
    let s = sh
        .session
        .signal(TerminalSignal::Sigtstp)
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(delivery) = delivery {
        assert_eq!(s.delivery, delivery, "{s:?}");
    }
    let r = sh.send_raw("", false).await;
    assert!(r.viewport.contains("Stopped"), "{r:?}");
    r
}

/// A program that waits for the terminal in `poll` (Python's `select.poll`, gdb's event loop):
/// stopped and continued, the kernel resumes its wait through `restart_syscall`, and it still
/// counts as reading the terminal (the `fg` settles as waiting for input, the answer reaches
/// it), as it did before the stop.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_polling_the_terminal_reads_again_after_fg() {
    within(async {
        let sh = Shell::open(config()).await;
        let mut programs = vec![(
            "python3 -c \"import select,sys; p=select.poll(); p.register(0, select.POLLIN); \
             print('Name?', end=' ', flush=True); p.poll(); \
             print('got', sys.stdin.readline().strip())\""
                .to_owned(),
            "alice",
            "got alice",
        )];
        if installed("gdb") {
            programs.push(("gdb -q -nx".to_owned(), "print 6*7", "$1 = 42"));
        }
        for (start, answer, answered) in programs {
            let r = sh.send(&start).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            suspend(&sh, None).await;
            // gdb waits on the terminal among its own event sources, and draws no prompt
            // again: its wait may be said to be for input or among other sources.
            let r = sh.send_within("fg", true, 20_000).await;
            assert!(
                r.wait_reason == WaitReason::StdinRead
                    || (start.starts_with("gdb") && r.wait_reason == WaitReason::InferredIdle),
                "{start}: {r:?}"
            );
            let r = sh.send_within(answer, true, 20_000).await;
            assert!(r.viewport.lines().any(|l| l == answered), "{start}: {r:?}");
            if start.starts_with("gdb") {
                let r = sh.send("quit").await;
                assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            }
            assert!(sh.send("true").await.exit_code == Some(0), "{start}");
        }
        sh.close().await;
    })
    .await;
}

/// SIGTSTP to a REPL that turned the terminal's signal keys off (node) goes as the
/// terminal's Ctrl-Z key, as SIGINT goes as its Ctrl-C: the REPL puts the terminal back and
/// stops itself, `fg` brings it back at its prompt, and the next line is echoed once and runs
/// (sent as a signal, node stopped with its raw modes in place, drew no prompt once continued
/// and its lines showed twice).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigtstp_to_a_repl_with_its_signal_keys_off_goes_as_ctrl_z() {
    if !installed("node") {
        eprintln!("node is not installed: a REPL that takes Ctrl-Z as a key is not exercised");
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        sh.send("let v = 7").await;
        let r = suspend(&sh, Some(SignalDelivery::SuspendCharacter)).await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        let r = sh.send("fg").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with("> "), "{r:?}");
        let r = sh.send("v * 6").await;
        assert_eq!(
            r.viewport.lines().filter(|l| l.ends_with("v * 6")).count(),
            1,
            "{r:?}"
        );
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        let r = sh.send(".exit").await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A program that reads keys raw but does not suspend itself on Ctrl-Z (a prompt_toolkit
/// prompt, which would insert `^Z` into its line) gets SIGTSTP as a signal, and stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigtstp_to_a_raw_reader_that_takes_ctrl_z_as_a_key_stops_it() {
    let has_prompt_toolkit = std::process::Command::new("python3")
        .args(["-c", "import prompt_toolkit"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_prompt_toolkit {
        eprintln!("prompt_toolkit is not installed: its raw prompt is not exercised");
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(
                "python3 -c \"from prompt_toolkit import prompt; print('got', prompt('Name: '))\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = suspend(&sh, Some(SignalDelivery::ProcessGroup)).await;
        assert!(!r.viewport.contains("^Z"), "{r:?}");
        let r = sh.send("kill -KILL %1; wait").await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// SIGTSTP to vim in insert mode (its signal keys off) goes as the signal, which vim handles
/// by suspending itself: a Ctrl-Z key would be inserted into the file as a character, and the
/// commands sent next (`fg`) typed after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigtstp_to_vim_in_insert_mode_suspends_it() {
    if !installed("vim") {
        eprintln!("vim is not installed: its insert mode is not exercised");
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let dir = crate::support::TempDir::new("vim-tstp");
        let file = dir.0.join("notes.txt");
        sh.send(&format!("vim -u NONE -N '{}'", file.display()))
            .await;
        sh.send_raw("ihello from vim", false).await;
        suspend(&sh, Some(SignalDelivery::ProcessGroup)).await;
        sh.send("fg").await;
        sh.send_raw("\u{1b}:wq", true).await;
        let r = sh.send("echo done-$((6*7))").await;
        assert!(r.viewport.lines().any(|l| l == "done-42"), "{r:?}");
        let written = std::fs::read_to_string(&file).unwrap_or_default();
        assert_eq!(written, "hello from vim\n");
        sh.close().await;
    })
    .await;
}

/// With job control off (`set +m`) a command runs in the shell's own process group: SIGTSTP
/// is refused (it would stop the command, which the shell then waits for forever), naming
/// the cause, and SIGINT still interrupts the command; in a nested shell too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigtstp_with_job_control_off_is_refused() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("set +m").await;
        refuses_sigtstp_then_interrupts(&sh, "top").await;
        // The same in a nested shell with job control off.
        sh.send("set -m").await;
        let r = sh.send("bash --norc").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        sh.send("set +m").await;
        refuses_sigtstp_then_interrupts(&sh, "nested").await;
        sh.close().await;
    })
    .await;
}

/// Runs a command in a shell with job control off, checks that SIGTSTP is refused while it
/// runs and that SIGINT ends it, and that the shell (`label`) runs the next command.
async fn refuses_sigtstp_then_interrupts(sh: &Shell, label: &str) {
    // The command's process prints once it runs (in the shell's group: no foreground group
    // of its own shows it).
    let mut r = sh
        .send_within(
            "bash -c 'echo sta''rted; exec sleep 30'; echo after",
            true,
            300,
        )
        .await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut seen = r.viewport.clone();
    while !seen.lines().any(|l| l == "started") && std::time::Instant::now() < deadline {
        r = sh.send_within("", false, 100).await;
        seen.push_str(&r.viewport);
    }
    assert!(seen.lines().any(|l| l == "started"), "{label}: {r:?}");
    let err = sh
        .session
        .signal(TerminalSignal::Sigtstp)
        .expect_err("SIGTSTP with job control off");
    assert!(
        err.to_string().contains("job control is off"),
        "{label}: {err}"
    );
    sh.session
        .signal(TerminalSignal::Sigint)
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    let r = sh.send(&format!("echo {label}-$((6*7))")).await;
    assert!(
        r.viewport.lines().any(|l| l == format!("{label}-42")),
        "{r:?}"
    );
}

/// With job control off (`set +m`) a REPL the shell starts runs in the shell's own process
/// group: it is a program all the same, so sends go to it as to any REPL (the keys that clear
/// the shell's line or repair its marks were typed into it, and `print(1+1)` ran as
/// `4~print(1+1)`), the result names it, and no notice says the shell lost its prompt marks.
/// A SIGTERM that ends it is no signal the shell ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_run_with_job_control_off_is_a_program() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send("set +m").await;
        let r = sh.send("python3 -q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.foreground.as_deref(), Some("python3"), "{r:?}");
        let r = sh.send("print(6 * 7)\nx = 5\nprint(x * 2)").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "10"), "{r:?}");
        assert!(r.notices.iter().all(|n| !n.starts_with("[shell:")), "{r:?}");
        let s = sh
            .session
            .signal(TerminalSignal::Sigterm)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!s.shell_targeted, "{s:?}");
        let r = sh.send("echo back-$((6*7))").await;
        assert!(r.viewport.lines().any(|l| l == "back-42"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A job whose leader is a subshell the shell forked (a pipeline that starts with a loop, a
/// `( … )` list: our shell's command line, in a group of its own) stops on SIGTSTP like any
/// job, and `fg` continues it; in a nested interactive shell too. (It was refused as a
/// command of a shell with job control off.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigtstp_stops_a_job_led_by_a_forked_subshell() {
    within(async {
        let sh = Shell::open(config()).await;
        for (label, nested) in [("top", false), ("nested", true)] {
            if nested {
                let r = sh.send("bash --norc").await;
                assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            }
            for job in [
                "while :; do sleep 1; done | cat",
                "(sleep 100; echo x-$((6*7)))",
            ] {
                let r = sh.send_within(job, true, 300).await;
                assert_eq!(r.wait_reason, WaitReason::Timeout, "{label} {job}: {r:?}");
                suspend(&sh, None).await;
                let r = sh.send_within("fg", true, 300).await;
                assert_eq!(r.wait_reason, WaitReason::Timeout, "{label} {job}: {r:?}");
                sh.session
                    .signal(TerminalSignal::Sigint)
                    .unwrap_or_else(|e| panic!("{label} {job}: {e}"));
                let r = sh.send(&format!("echo {label}-$((6*7))")).await;
                assert!(
                    r.viewport.lines().any(|l| l == format!("{label}-42")),
                    "{label} {job}: {r:?}"
                );
            }
        }
        sh.close().await;
    })
    .await;
}
