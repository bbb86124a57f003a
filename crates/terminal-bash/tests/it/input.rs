//! Input reaches programs the way a terminal would deliver it (field case C25): multi-line
//! text as one bracketed paste where the program takes pastes, line ends as Enters, escape
//! sequences and control keys as a terminal's keys. Long lines (C26) are in `long_lines.rs`.

use std::path::PathBuf;
use std::process::Command;

use dsh_terminal_bash::BashConfig;
use dsh_terminal_core::{InputMode, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, installed, unique_id, within};

const BLOCK: &str = "def f(n):\n    if n:\n        return 'yes'\n    return 'no'\n\n";

/// A Python 3.13 interpreter run with its new REPL (pyrepl: it auto-indents typed lines and
/// takes pastes), which sessions leave off by default (`PYTHON_BASIC_REPL=1`).
pub(crate) fn python313() -> Option<String> {
    python313_path().map(|path| format!("PYTHON_BASIC_REPL= {path}"))
}

/// A Python 3.13 interpreter: on `PATH`, or one pyenv installed but did not activate.
pub(crate) fn python313_path() -> Option<String> {
    python_path("3.13")
}

/// A Python interpreter of `version` (`"3.7"`): `python<version>` on `PATH`, or one pyenv
/// installed but did not activate.
pub(crate) fn python_path(version: &str) -> Option<String> {
    let program = format!("python{version}");
    if runs(&program) {
        return Some(program);
    }
    let root = std::env::var("PYENV_ROOT")
        .ok()
        .or_else(|| std::env::var("HOME").ok().map(|h| format!("{h}/.pyenv")))?;
    let mut found: Vec<PathBuf> = std::fs::read_dir(format!("{root}/versions"))
        .ok()?
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("{version}."))
        })
        .map(|e| e.path().join("bin").join(&program))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found.pop().map(|p| p.display().to_string())
}

fn runs(program: &str) -> bool {
    Command::new(program)
        .args(["-c", "pass"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Field case C25: a multi-line block reaches Python's REPL as one paste (Python 3.13's REPL
/// auto-indents typed lines; readline-based REPLs take the paste whole too), and the same
/// kind of block still runs line by line in bash.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c25_multi_line_input_is_one_paste_for_programs_that_enabled_it() {
    within(async {
        let sh = Shell::open(config()).await;
        let mut pythons = vec!["python3".to_owned()];
        if let Some(py) = python313_path() {
            // The REPL sessions run by default, and the new one.
            pythons.push(format!("PYTHON_BASIC_REPL= {py}"));
            pythons.push(py);
        } else {
            eprintln!("python3.13 is not installed: its auto-indenting REPL is not exercised");
        }
        for py in pythons {
            let r = sh.send(&format!("{py} -q")).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{py}: {r:?}");
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            let r = sh.send_raw(BLOCK, true).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{py}: {r:?}");
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            let r = sh.send("f(1), f(0)").await;
            assert!(r.viewport.contains("('yes', 'no')"), "{py}: {r:?}");
            // Several statements at the prompt all run as a file would run them, and the REPL
            // is at its prompt again: a block needs no empty line after it, nor breaks at one
            // inside it (Python 3.13's REPL took them pasted together as an unfinished block,
            // older ones typed line by line raised errors).
            let r = sh
                .send("x = 5\nprint(x * 2)\nfor i in range(2):\n\n    print(f'i{i}')\nprint('end')")
                .await;
            for line in ["10", "i0", "i1", "end"] {
                assert!(r.viewport.lines().any(|l| l == line), "{py}: {line}: {r:?}");
            }
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            // Statements of one line each go one at a time, also the answer to an `input()`
            // among them (pasted together, the new REPL took them as one unfinished block, or
            // the answer took the statements after it).
            let r = sh
                .send("y = 1\nz = 2\nprint(y + z)\na = input('A? ')\nhello\nprint('got', a)")
                .await;
            for line in ["3", "got hello"] {
                assert!(r.viewport.lines().any(|l| l == line), "{py}: {line}: {r:?}");
            }
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
            // Started by the first line of the same send: the block after it still goes as
            // one paste once the REPL reads, and the statement after the block runs too (the
            // REPL runs one statement per prompt).
            let r = sh
                .send(&format!(
                    "{py} -q\n{BLOCK}f(1), f(0)\nif f(1):\n    y = 2\nprint('y', y)"
                ))
                .await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            assert!(r.viewport.contains("('yes', 'no')"), "{py}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "y 2"), "{py}: {r:?}");
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
            // Lines of one statement each after the line that starts the REPL: one at a time.
            let r = sh
                .send(&format!("{py} -q\nv = 4\nw = 5\nprint(v * w)"))
                .await;
            assert!(r.viewport.lines().any(|l| l == "20"), "{py}: {r:?}");
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
        }
        // bash, even with readline's bracketed paste on: every line runs as typed.
        sh.send("bind 'set enable-bracketed-paste on'").await;
        let r = sh
            .send("g() {\n  echo \"g-$1\"\n}\ng one; false\ng two")
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(crate::support::earlier(&r).contains(&1), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "g-one"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "g-two"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Windows line endings (`\r\n`, common from models) are one Enter each: no empty command
/// runs between lines in bash, no extra empty line reaches a REPL; a lone `\r` is an Enter.
/// A long paste into a program reading line by line reaches it whole, and the send settles
/// with the program waiting for more. (The kernel may hold back the echo of the last lines
/// until the next input when the terminal's output buffer was full, so the result is not
/// asserted to end with the last line.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_paste_into_a_line_reader_reaches_it_whole() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = std::env::temp_dir().join(format!("dsh-paste-{}", unique_id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f.txt");
        let r = sh.send(&format!("cat > '{}'", file.display())).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let lines: Vec<String> = (1..=200)
            .map(|i| format!("line {i} {}", "x".repeat(90)))
            .collect();
        let r = sh.send(&lines.join("\n")).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        sh.send_raw("\u{4}", false).await;
        let written = std::fs::read_to_string(&file).unwrap();
        assert_eq!(written.lines().count(), 200);
        let _ = std::fs::remove_dir_all(&dir);
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crlf_line_endings_are_one_enter_each() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("echo one\r\necho two\r\nfalse\r\necho three").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(crate::support::earlier(&r), vec![0, 0, 1], "{r:?}");
        assert_eq!(r.viewport.matches("dsh> ").count(), 4, "{r:?}");
        let r = sh.send("echo lone\recho cr").await;
        assert_eq!(crate::support::earlier(&r), vec![0], "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "cr"), "{r:?}");
        let mut pythons = vec!["python3".to_owned()];
        pythons.extend(python313());
        for py in pythons {
            let r = sh.send(&format!("{py} -q")).await;
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            let r = sh
                .send("def f():\r\n    x = 5\r\n    return x\r\n\r\nprint(f() + 1)\r\n")
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{py}: {r:?}");
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "6"), "{py}: {r:?}");
            let r = sh.send("a = 2\r\nb = 3\r\n").await;
            assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
            let r = sh.send("print(a * b)").await;
            assert!(r.viewport.lines().any(|l| l == "6"), "{py}: {r:?}");
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// One line ending in a newline, sent with Enter (the default), is one Enter: the second
/// prompt of a command still waits for its own answer instead of taking an empty one, and the
/// shell prints one prompt after a command so sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_ending_in_a_newline_is_entered_once() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("echo hi\n").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(r.viewport.matches("dsh>").count(), 1, "{r:?}");
        let r = sh.send("echo x\necho y\r\n").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(r.viewport.matches("dsh>").count(), 2, "{r:?}");
        let r = sh
            .send("read -p 'Name: ' n; read -p 'Delete all? [Y/n] ' c; echo \"n=$n c=${c:-none}\"")
            .await;
        assert!(r.viewport.ends_with("Name: "), "{r:?}");
        let r = sh.send("bob\n").await;
        assert!(r.viewport.ends_with("Delete all? [Y/n] "), "{r:?}");
        let r = sh.send("n\n").await;
        assert!(r.viewport.contains("n=bob c=n\n"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // Only the last line end is the Enter: the empty lines before it answer the prompts
        // after the first with nothing.
        let r = sh
            .send("for i in 1 2 3 4; do IFS= read -r -p \"q$i> \" a; echo \"got$i=[$a]\"; done")
            .await;
        assert!(r.viewport.ends_with("q1> "), "{r:?}");
        let r = sh.send("A\n\n\n").await;
        assert!(
            r.viewport
                .contains("got1=[A]\nq2>\ngot2=[]\nq3>\ngot3=[]\nq4> "),
            "{r:?}"
        );
        let r = sh.send("D").await;
        assert!(r.viewport.contains("got4=[D]"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Input that ends inside an escape sequence (a lone ESC, a CSI without its final byte) at
/// the shell's prompt does not leave readline waiting: the next send's first key is not eaten
/// and its command runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unfinished_escape_sequence_at_the_prompt_does_not_eat_the_next_key() {
    within(async {
        let sh = Shell::open(config()).await;
        for pending in ["\x1b", "\x1b[", "\x1b[1;5", "\x1bO", "partial\x1b"] {
            let r = sh.send_raw(pending, false).await;
            assert_ne!(r.wait_reason, WaitReason::Timeout, "{pending:?}: {r:?}");
            let r = sh.send("\x15echo ok").await;
            assert_eq!(r.exit_code, Some(0), "{pending:?}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "ok"), "{pending:?}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A command typed at the prompt in pieces (`submit: false`) and then entered reports only
/// its own exit status: the previous command's status is never reported again as an earlier
/// command's, in the pieces' results or in the final one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_typed_in_pieces_reports_only_its_own_status() {
    within(async {
        let sh = Shell::open(config()).await;
        for pieces in [
            &["echo x", "y"][..],
            &["ec", "ho", " hi"],
            &["(exit ", "4)"],
        ] {
            let r = sh.send("(exit 3)").await;
            assert_eq!(r.exit_code, Some(3), "{r:?}");
            for piece in pieces {
                let r = sh.send_raw(piece, false).await;
                assert_eq!(r.wait_reason, WaitReason::StdinRead, "{pieces:?}: {r:?}");
                assert!(r.earlier_exits.is_empty(), "{pieces:?}: {r:?}");
            }
            let r = sh.send("").await;
            assert!(r.earlier_exits.is_empty(), "{pieces:?}: {r:?}");
            let code = if pieces[0].starts_with("(exit") { 4 } else { 0 };
            assert_eq!(r.exit_code, Some(code), "{pieces:?}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// Keys that print nothing, typed at the idle prompt (Ctrl-U on an empty line, a lone
/// Ctrl-G) or after text typed there (cursor moves), or to a reader in canonical mode (a
/// partial secret, Ctrl-U in `cat`), settle as a stdin wait, with no exit status (no command
/// ran), instead of waiting out the idle window as if something might still run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_that_print_nothing_at_the_prompt_settle_as_a_stdin_wait() {
    within(async {
        let sh = Shell::open(BashConfig {
            idle_silence_ms: 20_000,
            timeout_ms: 40_000,
            ..config()
        })
        .await;
        sh.send("false").await;
        for keys in ["\u{15}", "\u{7}", "\u{15}\u{15}"] {
            let r = sh.send_raw(keys, false).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{keys:?}: {r:?}");
            assert_eq!(r.exit_code, None, "{keys:?}: {r:?}");
            assert!(r.earlier_exits.is_empty(), "{keys:?}: {r:?}");
        }
        let r = sh.send("echo still-$((6*7))").await;
        assert!(r.viewport.lines().any(|l| l == "still-42"), "{r:?}");
        // Editing keys after text typed at the prompt (the cursor moves, nothing is printed).
        sh.send_raw("echo edited", false).await;
        for keys in ["\u{1b}[D", "\u{1}", "\u{5}"] {
            let r = sh.send_raw(keys, false).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{keys:?}: {r:?}");
        }
        let r = sh.send("").await;
        assert!(r.viewport.lines().any(|l| l == "edited"), "{r:?}");
        // Keys a reader in canonical mode cannot have received yet: the kernel holds them.
        sh.send("read -rs -p 'secret: ' s; echo; echo \"got ${#s}\"")
            .await;
        let r = sh.send_raw("part", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("-two").await;
        assert!(r.viewport.lines().any(|l| l == "got 8"), "{r:?}");
        let r = sh.send("cat").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send_raw("\u{15}", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        sh.send_raw("\u{4}", false).await;
        sh.close().await;
    })
    .await;
}

/// A REPL left at its own continuation prompt after a block that does not end in a blank line
/// (Python's `... `, node's `... `) is reported as a continuation prompt, and an empty send
/// ends the block and runs it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_waiting_for_the_rest_of_a_block_is_a_continuation_prompt() {
    within(async {
        let sh = Shell::open(config()).await;
        let mut repls = vec![("python3 -q".to_owned(), "exit()")];
        match python313() {
            Some(py) => repls.push((format!("{py} -q"), "exit()")),
            None => eprintln!("python3.13 is not installed: its REPL (pyrepl) is not exercised"),
        }
        if installed("node") {
            repls.push(("node".to_owned(), ".exit"));
        } else {
            eprintln!("node is not installed: its REPL is not exercised");
        }
        for (start, exit) in repls {
            let r = sh.send(&start).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            let block = if start == "node" {
                "for (let i = 0; i < 2; i++) {\n  console.log('n' + i)\n"
            } else {
                "for i in range(2):\n    print('n' + str(i))"
            };
            let r = sh.send(block).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{start}: {r:?}");
            assert_eq!(r.input_mode, InputMode::Continuation, "{start}: {r:?}");
            let r = if start == "node" {
                sh.send("}").await
            } else {
                sh.send("").await
            };
            assert!(r.viewport.lines().any(|l| l == "n1"), "{start}: {r:?}");
            assert_eq!(r.input_mode, InputMode::Normal, "{start}: {r:?}");
            let r = sh.send(exit).await;
            assert_eq!(r.exit_code, Some(0), "{start}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// An SQL shell at its continuation prompt (sqlite3's `...>`) waits for the rest of a
/// statement, not a block: reported as such, and a `;` ends the statement and runs it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_sql_shell_waiting_for_the_rest_of_a_statement_says_so() {
    if !installed("sqlite3") {
        eprintln!(
            "sqlite3 is not installed (.ci/run installs it): its continuation prompt is not exercised"
        );
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("sqlite3 :memory:").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        for part in ["select 40 +", "2 as answer"] {
            let r = sh.send(part).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert_eq!(r.input_mode, InputMode::StatementContinuation, "{r:?}");
            assert_eq!(r.foreground.as_deref(), Some("sqlite3"), "{r:?}");
        }
        let r = sh.send(";").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        // Several lines (dot-commands, then a query) reach its line editor one line each: a
        // paste would be one line with the newlines in it.
        let r = sh
            .send(".headers on\n.mode csv\nselect 1 as one, 2 as two;")
            .await;
        assert!(r.viewport.lines().any(|l| l == "one,two"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "1,2"), "{r:?}");
        let r = sh.send(".quit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A partial escape sequence right before the Enter (or a newline) neither swallows that
/// Enter nor glues the next send onto the pending line: the command runs, and so does the next.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unfinished_escape_sequence_before_enter_does_not_swallow_it() {
    within(async {
        let sh = Shell::open(config()).await;
        for pending in ["\x1b[", "\x1b", "\x1b[1;", "\x1bO", "\x1b\x1b"] {
            let r = sh.send(&format!("echo a{pending}")).await;
            assert_eq!(r.exit_code, Some(0), "{pending:?}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "a"), "{pending:?}: {r:?}");
            let r = sh.send(&format!("echo b{pending}\necho c")).await;
            assert!(r.viewport.lines().any(|l| l == "b"), "{pending:?}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "c"), "{pending:?}: {r:?}");
            // On a later line of the send too (closed as it is typed to the line editor).
            let r = sh.send(&format!("echo d\necho e{pending}")).await;
            assert!(r.viewport.lines().any(|l| l == "d"), "{pending:?}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "e"), "{pending:?}: {r:?}");
            let r = sh.send("echo next").await;
            assert!(
                r.viewport.lines().any(|l| l == "next"),
                "{pending:?}: {r:?}"
            );
            assert!(!r.viewport.contains("aecho"), "{pending:?}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A TAB sent to bash arrives as a TAB (readline would complete on it): in a command line, in
/// heredoc lines (a Makefile's recipe), and several in a row never open a completion listing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabs_reach_bash_as_sent() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("printf '%s' 'a\tb' | od -An -c").await;
        assert!(r.viewport.contains("a  \\t   b"), "{r:?}");
        let r = sh
            .send("cat -A <<'EOF'\nall:\n\techo built\n\t\t\tdeep\nEOF")
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "^Iecho built$"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "^I^I^Ideep$"), "{r:?}");
        let r = sh.send("\t\t\t\techo after-tabs").await;
        assert!(!r.viewport.contains("possibilities"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "after-tabs"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A TAB sent to another program's line editor (a nested bash, Python's REPL, sqlite3: each
/// completes on a typed TAB) arrives as a TAB, in a single line and in one of several lines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabs_reach_other_line_editors_as_sent() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = TempDir::new("tabs");
        sh.send(&format!(
            "cd '{}' && touch aptsim.sh abc.txt",
            dir.0.display()
        ))
        .await;
        let r = sh.send("bash --norc").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("printf '%s|' 'a\tb' | od -An -c").await;
        assert!(r.viewport.contains("a  \\t   b   |"), "{r:?}");
        let r = sh.send("echo one\nprintf '%s|' 'c\td' | od -An -c").await;
        assert!(r.viewport.contains("c  \\t   d   |"), "{r:?}");
        sh.send("exit").await;
        // Python's REPL, Python 3.13's as sessions run it too (its new line editor drops TABs).
        for py in ["python3".to_owned()].into_iter().chain(python313_path()) {
            let r = sh.send(&format!("{py} -q")).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            let r = sh.send("print(repr('a\tb'))").await;
            assert!(r.viewport.lines().any(|l| l == "'a\\tb'"), "{py}: {r:?}");
            // Among editing keys (Ctrl-U erases what came before) too.
            let r = sh.send("junk\u{15}print(repr('u\tv'))").await;
            assert!(r.viewport.lines().any(|l| l == "'u\\tv'"), "{py}: {r:?}");
            // TABs ending text sent without Enter complete: the REPL lists what `ope` may be.
            let r = sh.send_raw("x = ope\t\t", false).await;
            assert!(r.viewport.contains("open("), "{py}: {r:?}");
            sh.send_raw("\u{15}", false).await;
            // Also after lines before them.
            let r = sh.send_raw("import json\njson.du\t", false).await;
            assert!(r.viewport.contains("json.dump"), "{py}: {r:?}");
            sh.send_raw("\u{15}", false).await;
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
        }
        // A program reading raw keys (no line editor) gets the TABs as sent, nothing else.
        let r = sh
            .send(
                "python3 -c \"import sys, tty; tty.setcbreak(0); \
                 print(repr(sys.stdin.read(5)))\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send_raw("a\tb\tc", false).await;
        assert!(r.viewport.contains("'a\\tb\\tc'"), "{r:?}");
        if installed("sqlite3") {
            sh.send("sqlite3").await;
            let r = sh.send("select 1;\nselect length('a\tb');").await;
            assert!(r.viewport.lines().any(|l| l == "3"), "{r:?}");
            let r = sh.send(".quit").await;
            assert_eq!(r.exit_code, Some(0), "{r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// In vi mode, text typed without Enter and then ESC (command mode, the cursor on the line's
/// last character) is kept and the next send's text goes after it, as in emacs mode: the
/// line runs as sent, not with the text inserted before its last character.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_after_an_escape_in_vi_mode_goes_after_the_line() {
    within(async {
        let sh = Shell::open(config()).await;
        for mode in ["vi", "emacs"] {
            sh.send(&format!("set -o {mode}")).await;
            sh.send_raw("echo typed", false).await;
            sh.send_raw("\u{1b}", false).await;
            let r = sh.send("-after-esc").await;
            assert!(
                r.viewport.lines().any(|l| l == "typed-after-esc"),
                "{mode}: {r:?}"
            );
            assert_eq!(r.exit_code, Some(0), "{mode}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// Text sent without Enter at the shell's prompt, then a send that completes the line: the
/// second result quotes the start of the command line that ran (it shows only its own text).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_line_completed_by_a_later_send_is_quoted() {
    within(async {
        let sh = Shell::open(config()).await;
        sh.send_raw("echo fir", false).await;
        let r = sh.send("st-part").await;
        assert!(r.viewport.lines().any(|l| l == "first-part"), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.contains("goes on from the unfinished line")
                    && n.contains("`dsh> echo fir`")),
            "{r:?}"
        );
        sh.close().await;
    })
    .await;
}

/// Python 3.13's own REPL (PYTHON_BASIC_REPL ignored, as with `-I`) drops every TAB, typed or
/// pasted: text holding one is refused before anything is typed, saying how to write it; text
/// without TABs runs, and the basic REPL the session runs by default keeps its TABs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_to_python_313s_own_repl_is_refused_not_dropped() {
    let Some(py) = python313_path() else {
        eprintln!("python3.13 is not installed: its REPL (pyrepl) is not exercised");
        return;
    };
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send(&format!("{py} -I -q")).await;
        assert!(r.viewport.ends_with(">>> "), "{r:?}");
        let err = sh
            .try_send("print(repr('a\tb'))", true)
            .await
            .expect_err("a TAB to pyrepl");
        assert!(
            err.message()
                .starts_with("nothing was typed: the text holds a TAB character"),
            "{err}"
        );
        let r = sh.send("print(repr('a\\tb'))").await;
        assert!(r.viewport.lines().any(|l| l == "'a\\tb'"), "{r:?}");
        sh.send("exit()").await;
        let r = sh.send(&format!("{py} -q")).await;
        assert!(r.viewport.ends_with(">>> "), "{r:?}");
        let r = sh.send("print(repr('a\tb'))").await;
        assert!(r.viewport.lines().any(|l| l == "'a\\tb'"), "{r:?}");
        sh.send("exit()").await;
        sh.close().await;
    })
    .await;
}
