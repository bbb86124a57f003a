//! A read with no prompt that a REPL's statement made (`w = input()` at `>>> `): a line
//! editor in raw mode (readline's `input()`) leaves the terminal's modes as they are at the
//! REPL's prompt. The result says a statement waits for a line, not the REPL at its prompt; a
//! block sent next is refused (its first line would be that line, the rest wrong statements);
//! a line sent next is said to be that line. A debugger's numbered command prompt (`DB<1>` of
//! `perl -de 0`) reads commands: a command line sent there is no answer to a question.

use dsh_terminal_core::{BackendSession, SendResult, TerminalSignal, WaitReason};

use crate::input::python313;
use crate::support::{Shell, config, installed, within};

/// Whether `r` says a statement of the REPL waits for a line with no prompt.
fn says_statement_reads(r: &SendResult) -> bool {
    r.notices.iter().any(|n| {
        n.starts_with("[input: a statement python")
            && n.contains("waits for a line of input with no prompt")
            && n.contains("not at its own prompt")
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_statements_read_with_no_prompt_is_named_and_takes_no_block() {
    within(async {
        let sh = Shell::open(config()).await;
        let mut pythons = vec!["python3".to_owned()];
        pythons.extend(python313());
        for py in pythons {
            let r = sh.send(&format!("{py} -q")).await;
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            let r = sh.send("w = input()").await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{py}: {r:?}");
            assert!(says_statement_reads(&r), "{py}: {r:?}");
            // A poll finds it still so.
            let r = sh.send_raw("", false).await;
            assert!(says_statement_reads(&r), "{py}: {r:?}");
            // Typed, the block's first line would be the input and the rest an
            // `IndentationError`.
            let e = sh
                .try_send("for i in range(2):\n    print('row', i)\n", true)
                .await
                .unwrap_err();
            assert!(
                e.message()
                    .contains("a statement it runs waits for a line of input with no prompt"),
                "{py}: {e}"
            );
            // A line goes, as that input, and the result says so (not yet to Python 3.13's own
            // REPL, whose reader is not seen waiting as the line is sent).
            let r = sh.send("exit()").await;
            assert!(
                py.contains("python3.13")
                    || r.notices.iter().any(|n| n.starts_with(
                        "[input: line 1 of the input (`exit()`) went as input to a read with no prompt"
                    )),
                "{py}: {r:?}"
            );
            assert!(r.viewport.ends_with(">>> "), "{py}: {r:?}");
            let r = sh.send("print(repr(w))").await;
            assert!(r.viewport.lines().any(|l| l == "'exit()'"), "{py}: {r:?}");
            assert!(!says_statement_reads(&r), "{py}: {r:?}");
            // Back at its prompt, the block goes.
            let r = sh.send("for i in range(2):\n    print('row', i)\n").await;
            assert!(r.viewport.lines().any(|l| l == "row 1"), "{py}: {r:?}");
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// Whether `r` says a statement of the REPL waits for a line at the prompt `prompt` of its own.
fn says_statement_asks(r: &SendResult, prompt: &str) -> bool {
    r.notices.iter().any(|n| {
        n.starts_with("[input: a statement python")
            && n.contains(&format!(
                "waits for a line of input at its own prompt `{prompt}`"
            ))
    })
}

/// A statement's read at a prompt of its own, written like the REPL's continuation prompt
/// (`input('... ')`) or not (`input('Name: ')`), is named as the statement's (no notice of a
/// continuation prompt); its answer goes as it is (no empty line ending a block first, which
/// the read took as its answer while the answer ran as a statement), and a block sent to it
/// is refused (its first line was the answer, the rest ran as wrong statements). A real
/// continuation prompt (`def f():`) still takes the block's lines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_statements_read_at_a_prompt_of_its_own_takes_its_answer_and_no_block() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("python3 -q").await;
        assert!(r.viewport.ends_with(">>> "), "{r:?}");
        for prompt in ["...", "Name:"] {
            let r = sh.send(&format!("x = input('{prompt} ')")).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{prompt}: {r:?}");
            assert!(says_statement_asks(&r, prompt), "{prompt}: {r:?}");
            assert!(
                !r.notices.iter().any(|n| n.contains("continuation prompt")),
                "{prompt}: {r:?}"
            );
            // A poll finds it still so.
            let r = sh.send_raw("", false).await;
            assert!(says_statement_asks(&r, prompt), "{prompt}: {r:?}");
            let e = sh
                .try_send(
                    "for i in range(2):\n    print('row', i)\n\nprint('end')",
                    true,
                )
                .await
                .unwrap_err();
            assert!(
                e.message()
                    .contains("waits for a line of input at a prompt of its own"),
                "{prompt}: {e}"
            );
            let r = sh.send("hello").await;
            assert!(r.viewport.ends_with(">>> "), "{prompt}: {r:?}");
            // A plain answer is what the read asked for: no notice that it went there.
            assert!(
                !r.notices.iter().any(|n| n.contains("went as")),
                "{prompt}: {r:?}"
            );
            assert!(!r.viewport.contains("NameError"), "{prompt}: {r:?}");
            let r = sh.send("print(repr(x))").await;
            assert!(
                r.viewport.lines().any(|l| l == "'hello'"),
                "{prompt}: {r:?}"
            );
        }
        // A continuation prompt of the REPL's own goes on with the block.
        sh.send("def f():").await;
        sh.send("    return 'in f'").await;
        let r = sh.send("print(f())").await;
        assert!(r.viewport.lines().any(|l| l == "in f"), "{r:?}");
        let r = sh.send("exit()").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// `exit 7` at `DB<1>` of perl's debugger (reading lines in the terminal's line mode when no
/// readline module is installed) is the debugger's command, sent alone or after the line that
/// started it: no notice says it answered a prompt instead of reaching the shell. After a
/// SIGINT the debugger ignores at its prompt, the next command is not refused as the answer to
/// a prompt the signal left waiting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_at_a_debuggers_numbered_prompt_answers_no_question() {
    within(async {
        if !installed("perl") {
            return;
        }
        let sh = Shell::open(config()).await;
        let answered = |r: &SendResult| r.notices.iter().any(|n| n.contains("as its answer"));
        let r = sh.send("perl -de 0").await;
        assert!(r.viewport.trim_end().ends_with("DB<1>"), "{r:?}");
        let r = sh.send("exit 7").await;
        assert!(r.viewport.contains("Debugged program terminated"), "{r:?}");
        assert!(!answered(&r), "{r:?}");
        let r = sh.send("q").await;
        assert_eq!(r.exit_code, Some(7), "{r:?}");
        let r = sh.send("perl -de 0\nexit 7").await;
        assert!(r.viewport.contains("Debugged program terminated"), "{r:?}");
        assert!(!answered(&r), "{r:?}");
        let r = sh.send("q").await;
        assert_eq!(r.exit_code, Some(7), "{r:?}");
        let r = sh.send("perl -de 0").await;
        assert!(r.viewport.trim_end().ends_with("DB<1>"), "{r:?}");
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh
            .try_send("p 6*7", true)
            .await
            .unwrap_or_else(|e| panic!("refused after a SIGINT at the debugger's prompt: {e}"));
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        let r = sh.send("q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        sh.close().await;
    })
    .await;
}
