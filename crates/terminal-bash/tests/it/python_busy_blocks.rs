//! Blocks sent to a Python REPL that is not at its prompt: one still running a statement or
//! between a signal and its prompt (refused, nothing typed), one under a wrapper or continued
//! with `fg` (typed whole, as at a prompt), one awake between reads at its prompt, and IPython
//! reading lines itself.

use dsh_terminal_core::{BackendSession, WaitReason};
use pretty_assertions::assert_eq;

use crate::python_blocks::repls;
use crate::support::{Shell, TempDir, config, installed, wait_until, within};

/// A block (a one-line compound statement too) sent while the REPL still runs a statement,
/// or right after a signal before its prompt is back, is refused, nothing typed: typed ahead,
/// its first blank line would end the block (a one-line one would wait for its empty line,
/// and IPython would indent the lines again). Once the prompt is back it goes as at a prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_sent_while_the_repl_runs_a_statement_is_refused() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = TempDir::new("py-busy");
        let block = "def g():\n    x = 1\n\n    return x + 1\n\nprint('G', g())";
        for (i, repl) in repls(true).into_iter().enumerate() {
            let r = sh.send(&repl).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{repl}: {r:?}");
            // A statement that runs until the file `go` exists.
            let go = dir.0.join(format!("go-{i}"));
            let r = sh
                .send_within(
                    &format!(
                        "import os, time; print('slee' + 'ping'); \
                         exec('while not os.path.exists({go:?}): time.sleep(0.05)')"
                    ),
                    true,
                    500,
                )
                .await;
            assert_ne!(r.wait_reason, WaitReason::StdinRead, "{repl}: {r:?}");
            // Running the statement (IPython takes a while to start it).
            wait_until("the statement runs", || {
                sh.session.transcript().contains("\nsleeping")
            })
            .await;
            for text in [block, "for i in range(2): print(i)"] {
                let e = sh.try_send(text, true).await.unwrap_err();
                assert!(
                    e.message().contains("is still running a statement"),
                    "{repl}: {text:?}: {e}"
                );
            }
            if repl.starts_with("ipython") {
                // IPython may hold the terminal raw while it runs a statement, and then reads no
                // interrupt key: the statement is ended by its file.
                std::fs::write(&go, "").unwrap();
            } else {
                let s = sh
                    .session
                    .signal(dsh_terminal_core::TerminalSignal::Sigint)
                    .unwrap();
                assert!(s.delivered, "{repl}: {s:?}");
            }
            // Until the prompt is back (after the signal, or while IPython finishes), refused
            // too, as the error says: poll, then send again.
            let r = loop {
                match sh.try_send(block, true).await {
                    Ok(r) => break r,
                    Err(e) => {
                        assert!(
                            e.message().contains("is still handling the signal")
                                || e.message().contains("is still running a statement"),
                            "{repl}: {e}"
                        );
                        sh.send_raw("", false).await;
                    }
                }
            };
            assert!(r.viewport.lines().any(|l| l == "G 2"), "{repl}: {r:?}");
            // Back at the shell (Python 3.13's REPL exits 130 after an interrupted statement).
            let r = sh.send("exit()").await;
            assert!(r.exit_code.is_some(), "{repl}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// IPython reads its statements in raw mode: in line mode, with nothing on the cursor's row,
/// it runs a statement (or is between one and its next prompt), also while a thread of it
/// waits on the terminal. A block sent then is refused, nothing typed: the thread would take
/// its first line and IPython the rest, typed instead of pasted. A line for that thread still
/// goes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_to_ipython_running_a_statement_that_reads_the_terminal_is_refused() {
    if !installed("ipython") {
        eprintln!("ipython is not installed: its statements' terminal readers are not exercised");
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("ipython --no-banner").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh
            .send(
                "import sys, threading; t = threading.Thread(target=lambda: \
                 print('read', sys.stdin.readline().strip())); t.start(); t.join()",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let e = sh
            .try_send("def g():\n    return 2\n\nprint('G', g())", true)
            .await
            .unwrap_err();
        // Its thread's read shows no prompt: a statement's read of a line (or, before the
        // read is seen, a statement at work).
        assert!(
            e.message().contains("is still running a statement")
                || e.message()
                    .contains("waits for a line of input with no prompt"),
            "{e}"
        );
        let r = sh.send("the-line").await;
        assert!(r.viewport.lines().any(|l| l == "read the-line"), "{r:?}");
        let r = sh.send("def g():\n    return 2\n\nprint('G', g())").await;
        assert!(r.viewport.lines().any(|l| l == "G 2"), "{r:?}");
        let r = sh.send("exit()").await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A block with an empty line inside it, sent to a Python REPL that does not lead its process
/// group (a wrapper started it) or whose prompt is not on the screen (continued with `fg`,
/// which draws no prompt again): it is defined as sent, as at a plain REPL's prompt. Typed as
/// lines, its empty line ended the block and the rest ran as wrong statements.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_reaches_a_repl_under_a_wrapper_or_continued_whole() {
    within(async {
        let sh = Shell::open(config()).await;
        let block = "def f():\n    x = 1\n\n    return x + 41\nprint('R', f())";
        for py in repls(false) {
            let mut starts = vec![
                format!("timeout 600 env {py}"),
                format!("bash -c '{py}; echo wrapper-done'"),
            ];
            // Not Python 3.13's basic REPL: continued in the shell's modes, its line editor
            // sets its own again part way through the text (lines show twice, whatever is
            // typed).
            if !py.starts_with("PYTHON_BASIC_REPL=") {
                starts.push(format!("{py}\u{0}fg"));
            }
            for start in starts {
                let (first, then) = start.split_once('\u{0}').unwrap_or((&start, ""));
                let r = sh.send(first).await;
                assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
                if !then.is_empty() {
                    sh.session
                        .signal(dsh_terminal_core::TerminalSignal::Sigtstp)
                        .unwrap_or_else(|e| panic!("{start}: {e}"));
                    let r = sh.send(then).await;
                    assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
                }
                let r = sh.send(block).await;
                assert!(!r.viewport.contains("Error"), "{start}: {r:?}");
                assert!(r.viewport.lines().any(|l| l == "R 42"), "{start}: {r:?}");
                let r = sh.send("exit()").await;
                assert!(r.viewport.ends_with("dsh> "), "{start}: {r:?}");
            }
        }
        sh.close().await;
    })
    .await;
}

/// A REPL at its prompt that wakes often between its reads (a timer's signal handler): a
/// block sent while it is awake is not refused as sent to a statement still running (the
/// cursor on its prompt says it is back there); a block sent while a statement runs still is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_to_a_repl_awake_between_reads_at_its_prompt_is_typed() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("python3 -q").await;
        assert!(r.viewport.ends_with(">>> "), "{r:?}");
        sh.send("import signal; signal.signal(signal.SIGALRM, lambda *a: sum(range(40000))); signal.setitimer(signal.ITIMER_REAL, 0.002, 0.002)").await;
        for round in 0..6 {
            let r = sh
                .send(&format!(
                    "def g{round}():\n    x = {round}\n\n    return x * 2\nprint('G', g{round}())"
                ))
                .await;
            let doubled = format!("G {}", round * 2);
            assert!(r.viewport.lines().any(|l| l == doubled), "round {round}: {r:?}");
        }
        sh.send("signal.setitimer(signal.ITIMER_REAL, 0)").await;
        let r = sh.send("exit()").await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// IPython reading its statements with its simple prompt (`input()` in the terminal's line
/// mode: `--simple-prompt`, or a standard stream that is no terminal), its prompts shown or,
/// with its standard error away from the terminal, unseen: a block with empty lines inside
/// runs as a file would, in every send. Typed as sent, the first empty line ended the block
/// (`103`, a class without its second method); with the prompts unseen, every block was
/// refused as sent to a statement still running, however long the polls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocks_reach_ipython_reading_lines_whole() {
    if !installed("ipython") {
        eprintln!("ipython is not installed: its simple prompt is not exercised");
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        for start in [
            "ipython --simple-prompt --no-banner --colors=NoColor",
            "ipython --no-banner --colors=NoColor 2>/dev/null",
        ] {
            let r = sh.send(start).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            for round in 0..2 {
                let r = sh
                    .send(
                        "total = 0\nfor i in range(3):\n    total += i\n\n    total += 100\n\n\
                         print('T', total)",
                    )
                    .await;
                assert!(
                    r.viewport.lines().any(|l| l == "T 303"),
                    "{start} {round}: {r:?}"
                );
                // A lone block: ended in its send where no prompt shows it open.
                sh.send(&format!(
                    "class A{round}:\n    def f(self): return 1\n\n    def g(self): return 2"
                ))
                .await;
                let r = sh.send(&format!("print('G', A{round}().g())")).await;
                assert!(
                    r.viewport.lines().any(|l| l == "G 2"),
                    "{start} {round}: {r:?}"
                );
            }
            let r = sh.send("exit").await;
            assert!(r.viewport.ends_with("dsh> "), "{start}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}
