//! Lines sent together to a REPL or debugger at its prompt are its statements or commands;
//! once one of them stops at a prompt of its own, the next line is that prompt's answer: at a
//! password prompt the lines after it are not typed (a statement would be taken as the
//! secret), at one that shows what is typed (an `input()`) the line goes and the result says
//! where.

use dsh_terminal_core::{BackendSession, WaitReason};

use crate::support::{Shell, config, within};

/// A statement that asks for a password (`getpass`) in the middle of several: the lines after
/// it are not typed (the password prompt took `print(len(k))` as the key, and the key sent
/// next then ran as a statement, echoed); the result names them and the prompt, the next send
/// answers it, and the lines sent again run. A statement's `input()` takes the next line as
/// its answer, and the result says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_after_a_statement_that_asks_are_not_its_answer() {
    within(async {
        let sh = Shell::open(config()).await;
        let mut repls = vec!["python3 -q".to_owned()];
        match crate::input::python313_path() {
            Some(py) => repls.push(format!("{py} -q")),
            None => {
                eprintln!("python3.13 is not installed: its pasted statements are not exercised")
            }
        }
        for py in repls {
            let r = sh.send(&py).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{py}: {r:?}");
            let r = sh
                .send("import getpass\nk = getpass.getpass('Key: ')\nprint('length', len(k))")
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{py}: {r:?}");
            assert!(r.viewport.ends_with("Key: "), "{py}: {r:?}");
            assert!(
                r.notices.iter().any(|n| n.starts_with(
                    "[input: line 3 of the input (`print('length', len(k))`) was not typed"
                ) && n.contains("`Key:`")),
                "{py}: {r:?}"
            );
            let r = sh.send("s3cr3t").await;
            assert!(!r.viewport.contains("s3cr3t"), "{py}: {r:?}");
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            let r = sh.send("print('length', len(k))").await;
            assert!(r.viewport.lines().any(|l| l == "length 6"), "{py}: {r:?}");
            // A loop's `input()` takes the line after it, and the result says so.
            let r = sh
                .send("for i in range(1):\n    n = input('N: ')\n\nprint('done', n)")
                .await;
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            assert!(
                r.notices.iter().any(|n| n.contains(
                    "(`print('done', n)`) went to the prompt `N:` that an earlier line's statement"
                )),
                "{py}: {r:?}"
            );
            let r = sh.send("print('done', n)").await;
            assert!(
                r.viewport.lines().any(|l| l == "done print('done', n)"),
                "{py}: {r:?}"
            );
            // An `input()` with no prompt text takes the line after it just the same: the
            // result said nothing, and the model believed the line ran.
            let r = sh.send("name = input()\nprint('hello', name)").await;
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            assert!(
                r.notices.iter().any(|n| n.starts_with(
                    "[input: line 2 of the input (`print('hello', name)`) went as input to a read with no prompt"
                )),
                "{py}: {r:?}"
            );
            // A blank row with no read asked for is other output: a prompt made empty, a
            // background process printing after the prompt.
            let no_read = |r: &dsh_terminal_core::SendResult| {
                r.notices
                    .iter()
                    .all(|n| !n.contains("read with no prompt"))
            };
            let r = sh
                .send("import sys\nsys.ps1 = ''\nprint('ps1', 'gone')\nsys.ps1 = '>>> '")
                .await;
            assert!(r.viewport.lines().any(|l| l == "ps1 gone"), "{py}: {r:?}");
            assert!(no_read(&r), "{py}: {r:?}");
            let r = sh
                .send(
                    "import subprocess\np = subprocess.Popen('for i in 1 2 3 4 5 6; do echo bg$i; sleep 0.02; done', shell=True)\na = 1\nb = 2\nc = 3\nd = 4\nprint('sum', a + b + c + d)",
                )
                .await;
            assert!(r.viewport.lines().any(|l| l == "sum 10"), "{py}: {r:?}");
            assert!(no_read(&r), "{py}: {r:?}");
            sh.send("p.wait()").await;
            // `.editor` is node's; to Python it is a SyntaxError, and the prompt comes back:
            // the lines after it are no editor mode's (a notice said so on every send, and
            // its Ctrl-D advice ended the REPL).
            sh.send(".editor").await;
            let r = sh.send("print(6 * 7)").await;
            assert!(r.viewport.lines().any(|l| l == "42"), "{py}: {r:?}");
            assert!(
                r.notices.iter().all(|n| !n.contains("editor mode")),
                "{py}: {r:?}"
            );
            let r = sh.send("exit()").await;
            assert!(r.viewport.ends_with("dsh> "), "{py}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A Python REPL that replaced the session's shell (`exec python3`) holds the shell's own
/// process group: it is a REPL all the same, so a block gets the empty line that ends it and
/// runs (typed as the shell's line, it waited at `... ` and the next statement was glued on).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_that_replaced_the_shell_runs_blocks() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("exec python3 -q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with(">>> "), "{r:?}");
        let r = sh.send("for i in range(2):\n    print('n', i)\n").await;
        for line in ["n 0", "n 1"] {
            assert!(r.viewport.lines().any(|l| l == line), "{line}: {r:?}");
        }
        assert!(r.viewport.ends_with(">>> "), "{r:?}");
        let r = sh.send("print('alive')").await;
        assert!(r.viewport.lines().any(|l| l == "alive"), "{r:?}");
        let r = sh.send("exit()").await;
        assert_eq!(r.wait_reason, WaitReason::SessionExit, "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Text and a Ctrl-C in one send to a REPL at its prompt (`abc` + `\u{3}`, submit false): the
/// key interrupts the line, and no notice says it went to a prompt an earlier line showed
/// (the cursor row then was the REPL's prompt with that text).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_then_ctrl_c_to_a_repl_answers_no_prompt() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("python3 -q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send_raw("abc\u{3}", false).await;
        assert!(r.viewport.contains("KeyboardInterrupt"), "{r:?}");
        assert!(r.notices.iter().all(|n| !n.starts_with("[input:")), "{r:?}");
        let r = sh.send("print(6 * 7)").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Several lines of a send taken as answers by prompts earlier lines showed (two `read -p` of
/// the shell's): the notice names each of them, not only the first, with its prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_line_that_answered_a_prompt_is_named() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(
                "read -p 'A: ' a; read -p 'B: ' b; echo \"a=$a b=$b\"\necho one\necho two\necho three",
            )
            .await;
        assert!(r.viewport.lines().any(|l| l == "a=echo one b=echo two"), "{r:?}");
        assert!(
            r.notices.iter().any(|n| n.contains("line 2 (`echo one`) to `A:`, line 3 (`echo two`) to `B:`")),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// Lines sent to node's REPL while it runs a synchronous statement (which it does with the
/// terminal back in line mode): held until node reads at its prompt (raw mode), then each goes
/// once node is back at its prompt; none waits for silence, and none is said unread.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_held_for_a_busy_node_all_run_once_it_reads() {
    if !crate::support::installed("node") {
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        for round in 0..3 {
            let r = sh
                .send_within(
                    "var t = Date.now(); while (Date.now() - t < 400) {}",
                    true,
                    100,
                )
                .await;
            assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
            let r = sh
                .send(&format!("'a' + {round}\n'b' + {round}\n'c' + {round}"))
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            for line in ["a", "b", "c"] {
                let shown = format!("'{line}{round}'");
                assert!(r.viewport.lines().any(|l| l == shown), "{shown}: {r:?}");
            }
            assert!(r.notices.iter().all(|n| !n.starts_with("[input:")), "{r:?}");
        }
        sh.send(".exit").await;
        sh.close().await;
    })
    .await;
}

/// Text sent to node without Enter: node draws its completion of a name after the cursor and
/// its preview of the value on the row below, both grey; the result shows what was typed (the
/// preview `9` read as the output of a statement that ran, `Math.max` as typed), and Enter
/// then runs the typed text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repls_grey_suggestions_are_not_shown_as_typed() {
    if !crate::support::installed("node") {
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        let r = sh.send_raw("Math.max(3, 9)", false).await;
        assert_eq!(
            r.viewport.trim_start_matches("> "),
            "Math.max(3, 9)",
            "{r:?}"
        );
        let r = sh.send_raw("", true).await;
        assert!(r.viewport.lines().any(|l| l == "9"), "{r:?}");
        let r = sh.send_raw("Math.ma", false).await;
        assert_eq!(r.viewport.trim_start_matches("> "), "Math.ma", "{r:?}");
        // A page of `terminal_read` shows what was typed too, not the completion and preview
        // (`> Math.max` and `[Function: max]` read as a line that ran).
        let page = crate::support::newest_lines(&sh, 3).text;
        assert!(page.ends_with("> Math.ma"), "{page:?}");
        // Ctrl-U clears the line, and with it the preview: no printed line was erased.
        let r = sh.send_raw("\u{15}", false).await;
        assert!(r.notices.iter().all(|n| !n.contains("erased")), "{r:?}");
        sh.send_raw("[1, 2, 3].leng", false).await;
        let r = sh.send_raw("\u{15}", false).await;
        assert!(r.notices.iter().all(|n| !n.contains("erased")), "{r:?}");
        sh.send(".exit").await;
        sh.close().await;
    })
    .await;
}

/// A prompt's default drawn grey after the cursor with nothing typed (`prompts` as
/// create-vite uses it, a script's `printf` before `read`) is the program's: Enter takes it,
/// and the result shows it (it was left out as a line editor's suggestion); keys typed over
/// it replace it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompts_grey_default_is_shown() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(r#"printf 'Port: \033[90m8080\033[0m\033[4D'; read -r port; echo "port=${port:-8080}""#)
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with("Port: 8080"), "{r:?}");
        let r = sh.send("").await;
        assert!(r.viewport.lines().any(|l| l == "port=8080"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Several lines of JavaScript to node's REPL run as one unit, as a file would (through its
/// editor mode): typed line by line, `if (…) {…}` ran before its `else` (a SyntaxError, and
/// the else branch's statement ran anyway), a chain's `.map(…)` line was taken for a REPL
/// command, and `let total = 1` then `+ 2` left 1. The REPL keeps what they defined.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_lines_to_node_run_as_one_unit() {
    if !crate::support::installed("node") {
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        let r = sh
            .send(
                "let v0 = 0\nif (true) {\n\tv0 = 1;\n}\nelse {\n  v0 = 2;\n}\n\
                 const r = [1, 2, 3]\n  .map(x => x * 10);\nlet total = 1\n  + 2\n  + 3;\n\
                 `${v0} ${r} ${total}`",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "'1 10,20,30 6'"), "{r:?}");
        assert!(!r.viewport.contains("Error"), "{r:?}");
        assert!(r.viewport.trim_end().ends_with('>'), "{r:?}");
        let r = sh.send("total * 2").await;
        assert!(r.viewport.lines().any(|l| l == "12"), "{r:?}");
        // Node started by the same send: its lines too.
        sh.send(".exit").await;
        let r = sh
            .send(
                "node
[1, 2, 3]
  .map(x => x * 10)
  .join('+')",
            )
            .await;
        assert!(r.viewport.lines().any(|l| l == "'10+20+30'"), "{r:?}");
        assert!(!r.viewport.contains("Invalid REPL keyword"), "{r:?}");
        sh.send(".exit").await;
        sh.close().await;
    })
    .await;
}

/// `.editor` is a command of node's REPL only: to a node script reading lines it is a line
/// like any other (the result said the script was in node's editor mode, with advice to send
/// Ctrl-D, which would end it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_script_reading_lines_has_no_editor_mode() {
    if !crate::support::installed("node") {
        eprintln!("node is not installed: its scripts' reads are not exercised");
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(
                "node -e \"const rl = require('readline').createInterface({input: process.stdin, output: process.stdout}); rl.setPrompt('> '); rl.prompt(); rl.on('line', l => { console.log('got ' + l); rl.prompt(); })\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        for line in [".editor", "hello"] {
            let r = sh.send(line).await;
            assert!(
                r.viewport.lines().any(|l| l == format!("got {line}")),
                "{line}: {r:?}"
            );
            assert!(
                r.notices.iter().all(|n| !n.contains("editor mode")),
                "{line}: {r:?}"
            );
        }
        sh.session
            .signal(dsh_terminal_core::TerminalSignal::Sigint)
            .unwrap_or_else(|e| panic!("{e}"));
        let r = sh.send("echo back").await;
        assert!(r.viewport.lines().any(|l| l == "back"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Node's editor mode is told by the banner node's REPL prints for `.editor`: also in a REPL
/// a script started (`require('repl').start()`, which no command line shows), and for lines
/// sent after `.editor` in the same send, which wait in its buffer for Ctrl-D (the result
/// said a pending await held them), a function's `return` line among them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_editor_mode_is_told_by_its_banner() {
    if !crate::support::installed("node") {
        eprintln!("node is not installed: its editor mode is not exercised");
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let in_editor = |r: &dsh_terminal_core::SendResult| {
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: node is in its editor mode (.editor)"))
        };
        for start in ["node", "node -e \"require('repl').start('app> ')\""] {
            let r = sh.send(start).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            let r = sh
                .send_within(
                    ".editor\nfunction one() {\n  return 1;\n}\nlet a2 = one()\na2 + 2",
                    true,
                    20_000,
                )
                .await;
            assert!(in_editor(&r), "{start}: {r:?}");
            // Every line went into the buffer: none to a read (a notice said the `}` after a
            // `return` had not run, and to send it again).
            assert!(
                !r.notices.iter().any(|n| n.starts_with("[input: line")),
                "{start}: {r:?}"
            );
            let r = sh.send_raw("\u{4}", false).await;
            assert!(r.viewport.lines().any(|l| l == "3"), "{start}: {r:?}");
            let r = sh.send(".exit").await;
            assert!(r.viewport.ends_with("dsh> "), "{start}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}
