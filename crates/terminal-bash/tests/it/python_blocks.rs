//! A block a send left open in a Python REPL (its lines sent without the empty line that ends
//! it) and the sends after it: a new statement ends the block first, as a file would have an
//! empty line there; a clause or an indented line still continues it. What the REPL's program
//! reads itself (`input()`, pdb) gets a send's lines as any line reader does. Blocks sent while
//! the REPL is not at its prompt are in `python_busy_blocks.rs`.

use dsh_terminal_core::WaitReason;
use pretty_assertions::assert_eq;

use crate::input::{python_path, python313_path};
use crate::support::{Shell, TempDir, config, installed, within};

/// The commands that start the Python REPLs installed here: python3's, Python 3.7's (its
/// readline takes pastes, and it ends a pasted block at a blank line inside it), Python
/// 3.13's as sessions run it (the basic REPL) and its new one (pyrepl: it auto-indents), which
/// an empty `PYTHON_BASIC_REPL` selects, and IPython's when `ipython` (it auto-indents too).
pub(crate) fn repls(ipython: bool) -> Vec<String> {
    let mut repls = vec!["python3 -q".to_owned()];
    match python_path("3.7") {
        Some(py) => repls.push(format!("{py} -q")),
        None => eprintln!(
            "python3.7 is not installed: a REPL that ends a pasted block early is not exercised"
        ),
    }
    match python313_path() {
        Some(py) => repls.extend([format!("{py} -q"), format!("PYTHON_BASIC_REPL= {py} -q")]),
        None => eprintln!("python3.13 is not installed: its auto-indenting REPL is not exercised"),
    }
    if ipython && installed("ipython") {
        repls.push("ipython --no-banner".to_owned());
    } else if ipython {
        eprintln!("ipython is not installed: its auto-indenting REPL is not exercised");
    }
    repls
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_statement_after_a_block_left_open_ends_the_block_first() {
    within(async {
        let sh = Shell::open(config()).await;
        for py in repls(false) {
            let r = sh.send(&py).await;
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            // The block's lines without the empty line after them: the REPL waits for more.
            let r = sh.send("if 1:\n    x = 5").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{py}: {r:?}");
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            let r = sh.send("print('x is', x)").await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "x is 5"), "{py}: {r:?}");
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            // A clause continues the block, an indented line too; then a new statement ends
            // it. (Python 3.13's own REPL indents the line it opens: the text's own
            // indentation replaces that.)
            sh.send("if x == 5:\n    y = 'five'").await;
            sh.send("else:").await;
            sh.send("    y = 'other'").await;
            let r = sh.send("print('y is', y)").await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "y is five"), "{py}: {r:?}");
            // Several statements after an open block: the block ends, then each runs.
            sh.send("for i in range(2):\n    last = i").await;
            let r = sh
                .send("doubled = last * 2\nprint('doubled', doubled)")
                .await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "doubled 2"), "{py}: {r:?}");
            // A send of only a comment leaves the block open, and the statement after it
            // still ends the block first.
            sh.send("def h():\n    return 7").await;
            sh.send("# a comment").await;
            let r = sh.send("print('h is', h())").await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "h is 7"), "{py}: {r:?}");
            // One block with blank lines inside it (a class whose methods are apart), alone
            // in its send: the blank lines do not end it early.
            sh.send("class P:\n    def __init__(self, x):\n        self.x = x\n\n    def double(self):\n        return self.x * 2").await;
            let r = sh.send("print('double', P(4).double())").await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "double 8"), "{py}: {r:?}");
            // Comment lines among statements and inside a block (Python 3.7 failed on them
            // pasted: "multiple statements found").
            let r = sh
                .send("# setup\nc = 1\ndef k():\n    # inside\n    return c + 1\n# compute\nprint('k is', k())")
                .await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "k is 2"), "{py}: {r:?}");
            // Inside a bracket the next line continues the statement.
            sh.send("items = [1,").await;
            let r = sh.send("2]").await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            let r = sh.send("print(sum(items))").await;
            assert!(r.viewport.lines().any(|l| l == "3"), "{py}: {r:?}");
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A block sent one line per send, as a model types at a REPL: each line keeps the indentation
/// it was sent with, also in a REPL that indents the lines it opens (Python 3.13's own,
/// IPython), and the statement after the block ends it first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_sent_line_by_line_keeps_the_indentation_sent() {
    within(async {
        let sh = Shell::open(config()).await;
        for py in repls(true) {
            sh.send(&py).await;
            let mut lines = vec![
                ("def f(n):", ""),
                ("    if n:", "    if n:"),
                ("        return 'yes'", "        return 'yes'"),
                // A dedent and a clause: where the REPL's indentation would have put them,
                // the first is inside the `if`, the second a `SyntaxError`.
                ("    return 'no'", "    return 'no'"),
            ];
            lines.extend([
                ("for i in range(2):", ""),
                ("    if i:", ""),
                ("        got = 'odd'", ""),
                ("    else:", "    else:"),
                ("        got = 'even'", ""),
            ]);
            for (line, echo) in lines {
                let r = sh.send(line).await;
                assert_eq!(r.wait_reason, WaitReason::StdinRead, "{py}: {line}: {r:?}");
                assert!(!r.viewport.contains("Error"), "{py}: {line}: {r:?}");
                // The echo shows the line as sent, its indentation too.
                if !echo.is_empty() {
                    assert!(
                        r.viewport.lines().any(|l| l.trim_end().ends_with(echo)
                            && !l.trim_end().ends_with(&format!("    {echo}"))),
                        "{py}: {line}: {r:?}"
                    );
                }
            }
            let r = sh.send("print(f(1), f(0), got)").await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            assert!(
                r.viewport.lines().any(|l| l.trim_end() == "yes no odd"),
                "{py}: {r:?}"
            );
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// Sends that mix a block's lines with statements: several statements whose last line opens a
/// block leave it open for the next send; lines that go on with an open block and then a new
/// statement end the block between them; a line sent in two parts (the first without Enter)
/// stays one line of the block.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn block_lines_and_statements_mixed_across_sends_run_as_a_file_would() {
    within(async {
        let sh = Shell::open(config()).await;
        for py in repls(true) {
            sh.send(&py).await;
            let no_error = |r: &dsh_terminal_core::SendResult| {
                assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            };
            // The last line opens a block: the next send gives it its lines.
            no_error(&sh.send("x = 1\ny = 2\nif x:").await);
            no_error(&sh.send("    print('y is', y)").await);
            let r = sh.send("").await;
            assert!(r.viewport.lines().any(|l| l == "y is 2"), "{py}: {r:?}");
            // The block's last lines and a statement in one send.
            sh.send("def k():").await;
            sh.send("    y = 1").await;
            let r = sh.send("    y += 1\n    return y\nprint('k', k())").await;
            no_error(&r);
            assert!(r.viewport.lines().any(|l| l == "k 2"), "{py}: {r:?}");
            // A line in two parts, then the statement after the block.
            sh.send("def g():").await;
            sh.send_within("    return ", false, 10_000).await;
            no_error(&sh.send("7").await);
            let r = sh.send("print('g', g())").await;
            no_error(&r);
            assert!(r.viewport.lines().any(|l| l == "g 7"), "{py}: {r:?}");
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// Text typed without Enter and then erased with the line editor's keys (Ctrl-U, backspaces)
/// or dropped by Ctrl-C leaves the REPL's line empty: a block sent next is a new statement
/// whose blank lines do not end it (taken for going on with the erased line, its first blank
/// line ended it and the rest ran as wrong statements), at the primary prompt and in a block.
/// Nor do the blank lines of a send that goes on with a block left open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_after_typed_text_was_erased_is_a_statement_of_its_own() {
    within(async {
        let sh = Shell::open(config()).await;
        for py in repls(true) {
            sh.send(&py).await;
            for (typed, erase) in [("x = 1", "\u{15}"), ("xy", "\u{7f}\u{7f}"), ("zz", "\u{3}")] {
                sh.send_within(typed, false, 10_000).await;
                sh.send_within(erase, false, 10_000).await;
                let r = sh
                    .send("def f():\n    x = 1\n\n    return x + 1\n\nprint('f is', f())")
                    .await;
                assert!(!r.viewport.contains("Error"), "{py} {erase:?}: {r:?}");
                assert!(
                    r.viewport.lines().any(|l| l == "f is 2"),
                    "{py} {erase:?}: {r:?}"
                );
            }
            // Editing keys and a block in one send: refused, nothing typed (the keys and the
            // block sent apart go as above).
            sh.send_within("garbage(", false, 10_000).await;
            let e = sh
                .try_send("\u{15}for i in range(2):\n\n    print('U', i)\nprint('x')", true)
                .await
                .unwrap_err();
            assert!(e.to_string().contains("send the keys alone first"), "{py}: {e}");
            sh.send_within("\u{15}", false, 10_000).await;
            // The rest of a block left open, with blank lines inside it, alone or before a
            // statement: the blank lines do not end it early (nor those in a string it opened).
            sh.send_within("def h():\n    x = 1\n", false, 10_000).await;
            let r = sh
                .send("    y = 2\n\n    if y:\n\n        y += 1\n\n    return x + y\n\nprint('h is', h())")
                .await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "h is 4"), "{py}: {r:?}");
            sh.send_within("def k():\n    s = '''a\n", false, 10_000).await;
            sh.send("\nb'''\n\n    return len(s)").await;
            let r = sh.send("print('k is', k())").await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "k is 4"), "{py}: {r:?}");
            // In a block left open: the erased line goes, the block's lines stay.
            sh.send("def g():\n    a = 3").await;
            sh.send_within("    b = 4", false, 10_000).await;
            sh.send_within("\u{15}", false, 10_000).await;
            let r = sh.send("    return a * 2\nprint('g is', g())").await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "g is 6"), "{py}: {r:?}");
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A newline ending simple statements is their Enter, as at the shell: an `input()` they call
/// waits for its answer (a second Enter would answer it with an empty line).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newline_ending_a_statement_that_reads_input_is_its_enter() {
    within(async {
        let sh = Shell::open(config()).await;
        for py in repls(false) {
            let r = sh.send(&py).await;
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            let r = sh.send("input('r? ')\n").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{py}: {r:?}");
            assert!(r.viewport.ends_with("r? "), "{py}: {r:?}");
            let r = sh.send("hi").await;
            assert!(r.viewport.lines().any(|l| l == "'hi'"), "{py}: {r:?}");
            let r = sh.send("x = 1\r\ny = input('y? ')\n").await;
            assert!(r.viewport.ends_with("y? "), "{py}: {r:?}");
            sh.send("yo").await;
            let r = sh.send("print(repr(y), x)").await;
            assert!(r.viewport.lines().any(|l| l == "'yo' 1"), "{py}: {r:?}");
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// What the REPL's program reads itself (its `input()`, pdb's commands) takes a send's lines as
/// any line reader does: only the last line end is the Enter, and the empty lines before it
/// are empty answers (pdb repeats its last command on one). The REPL's statement rules (a
/// newline ending simple statements is their Enter) are for its own prompts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_lines_reach_what_the_repls_program_reads() {
    within(async {
        let sh = Shell::open(config()).await;
        for py in repls(false) {
            let r = sh.send(&py).await;
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            let r = sh
                .send("a = input('1? '); b = input('2? '); print([a, b])")
                .await;
            assert!(r.viewport.ends_with("1? "), "{py}: {r:?}");
            let r = sh.send("x\n\n").await;
            assert!(r.viewport.contains("['x', '']"), "{py}: {r:?}");
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            // Two lines are two answers, also where the line editor takes pastes (Python 3.7's
            // readline took them pasted as one answer with a newline in it).
            sh.send("y = [input('a? ') for _ in range(2)]").await;
            let r = sh.send("p\nq").await;
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            let r = sh.send("print(y)").await;
            assert!(r.viewport.contains("['p', 'q']"), "{py}: {r:?}");
            // A block, then a statement that asks, the text ending with its newline: the
            // question waits for its answer (an Enter more typed after it took an empty one).
            let r = sh
                .send("for i in range(1):\n    pass\nc = input('c? ')\n")
                .await;
            assert!(r.viewport.ends_with("c? "), "{py}: {r:?}");
            sh.send("yes").await;
            let r = sh.send("print(repr(c))").await;
            assert!(r.viewport.contains("'yes'"), "{py}: {r:?}");
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
        }
        let ws = crate::support::TempDir::new("pdb");
        let script = ws.0.join("steps.py");
        std::fs::write(
            &script,
            "a = 1\nb = 2\nc = 3\nd = 4\nprint('done', a + b + c + d)\n",
        )
        .unwrap();
        let r = sh
            .send(&format!("python3 -m pdb {}", script.display()))
            .await;
        assert!(r.viewport.ends_with("(Pdb) "), "{r:?}");
        // `n`, then two empty lines: three steps, to the line `d = 4`.
        let r = sh.send("n\n\n\n").await;
        assert!(r.viewport.contains("-> d = 4"), "{r:?}");
        assert!(r.viewport.ends_with("(Pdb) "), "{r:?}");
        let r = sh.send("q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A Python REPL whose process has a name of its own (`flask shell`: an entry point whose `#!`
/// line names the interpreter, so the kernel names the process after the script) gets the
/// same handling of blocks as `python3`'s: it got none, a block's blank line ended it and the
/// next statement printed a wrong value with no error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_started_by_a_python_script_of_its_own_name_gets_blocks_whole() {
    within(async {
        let python = std::process::Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3");
        let python = String::from_utf8_lossy(&python.stdout).trim().to_owned();
        let dir = TempDir::new("py-entry");
        let script = dir.0.join("appshell");
        std::fs::write(
            &script,
            format!("#!{python}\nimport code\ncode.interact(banner='', exitmsg='')\n"),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let sh = Shell::open(config()).await;
        let r = sh.send(&script.display().to_string()).await;
        assert!(r.viewport.ends_with(">>> "), "{r:?}");
        assert_eq!(r.foreground.as_deref(), Some("appshell"), "{r:?}");
        let r = sh
            .send("def g():\n    x = 2\n\n    return x\n\ntotal = 0\nfor i in range(3):\n    total += i\nprint('G', g(), total)")
            .await;
        assert!(!r.viewport.contains("Error"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "G 2 3"), "{r:?}");
        let r = sh.send("exit()").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// An IPython cell magic runs in its send: IPython takes a cell as finished only once it ends
/// with an empty line (it was left at `...:`, run by the next send's Enter, its output mixed
/// into that send's), also one sent without a newline at its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ipython_cell_magic_runs_in_its_send() {
    if !installed("ipython") {
        eprintln!("ipython is not installed: its cell magics are not exercised");
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("ipython --no-banner --colors=NoColor").await;
        assert!(r.viewport.trim_end().ends_with("In [1]:"), "{r:?}");
        for (cell, shows) in [
            ("%%bash\necho one\n\necho two\n", "two"),
            ("%%time\nx = 6 * 7\n", "Wall time"),
            ("%%bash\necho single", "single"),
        ] {
            let r = sh.send(cell).await;
            assert!(
                r.viewport.lines().any(|l| l.starts_with(shows)),
                "{cell:?}: {r:?}"
            );
            assert!(r.viewport.trim_end().ends_with("]:"), "{cell:?}: {r:?}");
            assert!(!r.viewport.trim_end().ends_with("...:"), "{cell:?}: {r:?}");
        }
        let r = sh.send("print(x)").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        let r = sh.send("exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Lines after a statement that ended the REPL by surprise were its input: once the shell's
/// prompt is back they are not typed (the shell would run them as commands), and the result
/// says so; after a quit command of the send's own, the lines after it go to the shell.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_for_a_repl_that_ended_are_not_run_by_the_shell() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("python3 -q").await;
        assert!(r.viewport.ends_with(">>> "), "{r:?}");
        let r = sh
            .send("import os\nraise SystemExit(3)\nx = 5\necho SHOULD-NOT-RUN")
            .await;
        assert!(!r.viewport.contains("SHOULD-NOT-RUN\n"), "{r:?}");
        assert!(!r.viewport.contains("command not found"), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.contains("lines 3–4 of the input were not typed")),
            "{r:?}"
        );
        assert_eq!(r.exit_code, Some(3), "{r:?}");
        // Quitting on purpose, then a command: it runs.
        let r = sh.send("python3 -q").await;
        assert!(r.viewport.ends_with(">>> "), "{r:?}");
        let r = sh
            .send("print(6 * 7)\nexit()\necho back-in-the-shell")
            .await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        assert!(
            r.viewport.lines().any(|l| l == "back-in-the-shell"),
            "{r:?}"
        );
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}
