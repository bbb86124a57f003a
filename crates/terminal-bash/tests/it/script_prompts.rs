//! A script's own prompt written like a REPL's continuation prompt (`... `, `   ...: `, `-> `,
//! `...> `) or a shell's (`> `) is the script's question, and the line sent next its answer:
//! the result reports no continuation prompt (whose advice, an empty line to end a block or a
//! `;` to end a statement, would answer it wrongly). A REPL's own continuation prompt keeps
//! its report, also that of a REPL a script started (`code.interact()`) once the session saw
//! its primary prompt.

use dsh_terminal_core::{InputMode, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, config, within};

/// Scripts (`python3 -c`, `bash -c`) asking at prompts a REPL or a shell would show while it
/// waits for the rest of a statement: each result says a program reads, no continuation
/// prompt, and the line sent next is the answer. The same after a `> ` first (a prompt like a
/// REPL's primary one, which a script's is not).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripts_prompt_written_like_a_continuation_prompt_is_its_question() {
    within(async {
        let sh = Shell::open(config()).await;
        for (command, answered) in [
            (
                r#"python3 -c "v = input('... '); print('got', v)""#,
                "got hello",
            ),
            (
                r#"python3 -c "v = input('   ...: '); print('got', v)""#,
                "got hello",
            ),
            (
                r#"python3 -c "v = input('-> '); print('got', v)""#,
                "got hello",
            ),
            (
                r#"python3 -c "v = input('...> '); print('got', v)""#,
                "got hello",
            ),
            (
                r#"bash -c 'read -r -p "... " v; echo "got $v"'"#,
                "got hello",
            ),
            (r#"bash -c 'read -r -p "> " v; echo "got $v"'"#, "got hello"),
            (
                r#"python3 -c "input('> '); v = input('... '); print('got', v)""#,
                "got hello",
            ),
        ] {
            let mut r = sh.send(command).await;
            if command.contains("input('> ')") {
                assert_eq!(r.input_mode, InputMode::Normal, "{command}: {r:?}");
                r = sh.send("first").await;
            }
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{command}: {r:?}");
            assert_eq!(r.input_mode, InputMode::Normal, "{command}: {r:?}");
            let r = sh.send("hello").await;
            assert!(
                r.viewport.lines().any(|l| l == answered),
                "{command}: {r:?}"
            );
            assert_eq!(r.exit_code, Some(0), "{command}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A REPL a Python program started (`code.interact()`: its command line names a script) at
/// its block continuation prompt, once the session saw its primary prompt: reported as a
/// continuation prompt, and an empty line ends the block and runs it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_a_script_started_keeps_its_continuation_prompt() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("python3 -c 'import code; code.interact(banner=\"\")'")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        for line in ["def f():", "    return 40 + 2"] {
            let r = sh.send(line).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{line}: {r:?}");
            assert_eq!(r.input_mode, InputMode::Continuation, "{line}: {r:?}");
        }
        let r = sh.send("").await;
        assert_eq!(r.input_mode, InputMode::Normal, "{r:?}");
        let r = sh.send("f()").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        let r = sh.send("exit()").await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        sh.close().await;
    })
    .await;
}
