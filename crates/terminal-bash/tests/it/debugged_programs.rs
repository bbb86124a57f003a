//! Programs a debugger runs (gdb's inferior, a script under pdb or `perl -d`) and a REPL
//! continued with `fg`. Still running at the send's deadline, a debugged program is said to
//! break into the debugger on SIGINT, with no advice to put a server in the background; one
//! that a resume command (`n` over an `input()`, gdb's `run`) left reading at a prompt of its
//! own is said to take the next line as its input, not as a debugger command; a REPL continued
//! at its prompt, which it does not print again, is said to take statements (no Ctrl-D advice,
//! which would end it).

use dsh_terminal_core::{AfterSignal, BackendSession, SendResult, TerminalSignal, WaitReason};

use crate::support::{Shell, TempDir, config, installed, within};

/// The notice of `r` that says its program still runs under `debugger`.
fn still_running_under<'a>(r: &'a SendResult, debugger: &str) -> Option<&'a String> {
    r.notices.iter().find(|n| {
        n.starts_with("[timeout: ")
            && n.contains(&format!("is still running, under the debugger {debugger}"))
    })
}

/// Interrupts the debugged program and polls: the debugger's prompt ends the viewport.
async fn break_in(sh: &Shell, prompt: &str) {
    let s = sh.session.signal(TerminalSignal::Sigint).unwrap();
    assert!(s.delivered, "{s:?}");
    let r = sh.send_within("", false, 10_000).await;
    assert!(r.viewport.trim_end().ends_with(prompt), "{r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_running_under_a_debugger_at_the_deadline_is_said_to_break_into_it() {
    within(async {
        let ws = TempDir::new("debugged-loop");
        let script = ws.0.join("loop.py");
        std::fs::write(&script, "import time\nwhile True:\n    time.sleep(0.1)\n").unwrap();
        let sh = Shell::open(config()).await;
        let mut runs = vec![(
            format!("python3 -m pdb {}", script.display()),
            "c",
            "pdb",
            "(Pdb)",
            "q",
        )];
        if installed("perl") {
            runs.push((
                "perl -d -e 'while (1) { $i++ }'".to_owned(),
                "c",
                "perl -d",
                ">",
                "q",
            ));
        }
        for (start, resume, debugger, prompt, quit) in runs {
            let r = sh.send(&start).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            let r = sh.send_within(resume, true, 2_000).await;
            assert_eq!(r.wait_reason, WaitReason::Timeout, "{start}: {r:?}");
            let notice = still_running_under(&r, debugger);
            assert!(
                notice.is_some_and(|n| n.contains("returns to the debugger's prompt")),
                "{start}: {r:?}"
            );
            assert!(
                !r.notices
                    .iter()
                    .any(|n| n.contains("goes in the background")),
                "{start}: {r:?}"
            );
            break_in(&sh, prompt).await;
            let r = sh.send(quit).await;
            assert!(r.viewport.ends_with("dsh> "), "{start}: {r:?}");
        }
        if installed("gdb") {
            // gdb's inferior is a group of its own, the terminal's foreground.
            let r = sh
                .send_within("gdb -q -nx -ex run --args sleep 30", true, 4_000)
                .await;
            assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
            assert!(still_running_under(&r, "gdb").is_some(), "{r:?}");
            assert!(
                !r.notices
                    .iter()
                    .any(|n| n.contains("goes in the background")),
                "{r:?}"
            );
            break_in(&sh, "(gdb)").await;
            let r = sh.send("kill").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            sh.send("y").await;
            let r = sh.send("quit").await;
            assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// Whether `r` says the program `debugger` runs waits at its own prompt `prompt`.
fn says_program_asks(r: &SendResult, debugger: &str, prompt: &str) -> bool {
    r.notices.iter().any(|n| {
        n.starts_with(&format!("[input: the program the debugger {debugger} runs"))
            && n.contains(&format!("at its own prompt `{prompt}`"))
            && n.contains("not as a debugger command")
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_debugged_programs_question_is_told_from_the_debuggers_prompt() {
    within(async {
        let ws = TempDir::new("debugged-input");
        let script = ws.0.join("inp.py");
        std::fs::write(
            &script,
            "a = input('x? ')\nb = input('y? ')\nprint('got', a, b)\n",
        )
        .unwrap();
        let sh = Shell::open(config()).await;
        let r = sh
            .send(&format!("python3 -m pdb {}", script.display()))
            .await;
        assert!(r.viewport.ends_with("(Pdb) "), "{r:?}");
        // `n` (a statement's name in a REPL, pdb's `next` here) runs the `input()`.
        let r = sh.send("n").await;
        assert!(r.viewport.ends_with("x? "), "{r:?}");
        assert!(says_program_asks(&r, "pdb", "x?"), "{r:?}");
        let r = sh.send("alice").await;
        assert!(r.viewport.ends_with("(Pdb) "), "{r:?}");
        assert!(!says_program_asks(&r, "pdb", "x?"), "{r:?}");
        let r = sh.send("p a").await;
        assert!(r.viewport.lines().any(|l| l == "'alice'"), "{r:?}");
        let r = sh.send("q").await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        if installed("gdb") {
            // gdb's inferior, a group of its own, asks at its own prompt after `run`.
            let r = sh
                .send(
                    "gdb -q -nx --args \"$(python3 -c 'import sys; print(sys.executable)')\" \
                     -c \"a = input('name? '); print('got', a)\"",
                )
                .await;
            assert!(r.viewport.ends_with("(gdb) "), "{r:?}");
            let r = sh.send_within("run", true, 20_000).await;
            assert!(r.viewport.ends_with("name? "), "{r:?}");
            assert!(says_program_asks(&r, "gdb", "name?"), "{r:?}");
            let r = sh.send("alice").await;
            assert!(r.viewport.lines().any(|l| l == "got alice"), "{r:?}");
            assert!(r.viewport.ends_with("(gdb) "), "{r:?}");
            let r = sh.send("quit").await;
            assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// Whether `r`'s notice of the program's read says SIGINT waits for the read to return (an
/// interpreter's own debugger), not that it breaks in at once (gdb's).
fn says_answer_first(r: &SendResult) -> bool {
    r.notices.iter().any(|n| {
        n.starts_with("[input: the program the debugger ")
            && n.contains("does not break in while the read waits")
            && !n.contains("to break into the debugger")
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interpreters_debugger_is_said_to_break_in_only_once_its_programs_read_returns() {
    within(async {
        let ws = TempDir::new("debugged-read-sigint");
        let py = ws.0.join("ask.py");
        std::fs::write(&py, "name = input('Your name: ')\nprint('hi', name)\n").unwrap();
        let sh = Shell::open(config()).await;
        let r = sh.send(&format!("python3 -m pdb {}", py.display())).await;
        assert!(r.viewport.ends_with("(Pdb) "), "{r:?}");
        let r = sh.send("c").await;
        assert!(r.viewport.ends_with("Your name: "), "{r:?}");
        assert!(says_program_asks(&r, "pdb", "Your name:"), "{r:?}");
        assert!(says_answer_first(&r), "{r:?}");
        // As the notice says: the line first, then the debugger's prompt (the program ran to
        // its end, and pdb restarts it).
        let r = sh.send("alice").await;
        assert!(r.viewport.lines().any(|l| l == "hi alice"), "{r:?}");
        assert!(r.viewport.ends_with("(Pdb) "), "{r:?}");
        let r = sh.send("q").await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        if installed("perl") {
            // perl's debugger reads its commands in line mode (no line editor module): its
            // `  DB<1> ` prompt is told all the same.
            let pl = ws.0.join("ask.pl");
            std::fs::write(&pl, "print \"name? \"; my $n = <STDIN>; print \"hi $n\";\n").unwrap();
            let r = sh.send(&format!("perl -d {}", pl.display())).await;
            assert!(r.viewport.trim_end().ends_with("DB<1>"), "{r:?}");
            let r = sh.send("c").await;
            assert!(r.viewport.ends_with("name? "), "{r:?}");
            assert!(says_program_asks(&r, "perl -d", "name?"), "{r:?}");
            assert!(says_answer_first(&r), "{r:?}");
            // A SIGINT at the program's read is noted by the debugger, which breaks in once the
            // read has its line: no program that "ignores SIGINT while it reads" (whose next
            // answer was refused once, with advice to SIGTERM the debugging session).
            let signal = sh.session.signal(TerminalSignal::Sigint).unwrap();
            let after = sh
                .session
                .after_signal(signal.target_pgid, std::time::Duration::from_secs(1))
                .await;
            assert!(!matches!(after, AfterSignal::StillReading(_)), "{after:?}");
            let r = sh.send("bob").await;
            assert!(r.viewport.contains("DB<"), "{r:?}");
            let r = sh.send("c").await;
            assert!(r.viewport.lines().any(|l| l == "hi bob"), "{r:?}");
            let r = sh.send("q").await;
            assert!(r.viewport.ends_with("dsh> "), "{r:?}");
            // `n` over the `print`: perl flushes `name? ` as its debugger reads the next
            // command, after its prompt (`  DB<1> name? `): the debugger reads, not the
            // program, so no notice says the program asks.
            sh.send(&format!("perl -d {}", pl.display())).await;
            let r = sh.send("n").await;
            assert!(r.viewport.trim_end().ends_with("DB<1> name?"), "{r:?}");
            assert!(
                !r.notices
                    .iter()
                    .any(|n| n.starts_with("[input: the program")),
                "{r:?}"
            );
            let r = sh.send("p 6*7").await;
            assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
            let r = sh.send("q").await;
            assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        }
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_continued_with_fg_is_said_to_take_statements_at_its_unprinted_prompt() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("python3 -q").await;
        assert!(r.viewport.ends_with(">>> "), "{r:?}");
        let s = sh.session.signal(TerminalSignal::Sigtstp).unwrap();
        assert!(s.delivered, "{s:?}");
        let r = sh.send_raw("", false).await;
        assert!(r.viewport.contains("Stopped"), "{r:?}");
        let r = sh.send_within("fg", true, 20_000).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: python3 was continued with fg")),
            "{r:?}"
        );
        assert!(!r.notices.iter().any(|n| n.contains("\\u0004")), "{r:?}");
        let r = sh.send("print(6 * 7)").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        let r = sh.send("exit()").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}
