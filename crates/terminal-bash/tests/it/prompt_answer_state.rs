//! What a result says of a command line that went to a prompt as its answer must hold when
//! the send settles: a shell that `exec`ed another shell reads its commands at that shell's
//! own prompt (the lines ran); a read that took the line and is over is not said to wait, and
//! SIGINT is said to stop only what holds the terminal now; a REPL's statement that read the
//! line took it instead of the REPL, not instead of the shell.

use dsh_terminal_core::{SendResult, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, within};

/// The notice of a first line `ls -la` that went to a prompt as its answer.
fn answered(r: &SendResult) -> &str {
    r.notices
        .iter()
        .find(|n| n.starts_with("[input: line 1 of the input (`ls -la`) went to the prompt"))
        .map_or("", String::as_str)
}

/// Lines after `exec sh` go to `sh` as commands at its `# ` and run: none is said to have
/// gone to a prompt as an answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_to_a_shell_that_replaced_ours_are_commands_it_ran() {
    within(async {
        let dir = TempDir::new("exec-sh-lines");
        for (text, shows) in [
            ("exec sh\necho in-sh\nexit 3\necho never", "in-sh"),
            ("exec sh\ntouch made.txt\nls made.txt\nexit 5", "made.txt"),
        ] {
            let sh = Shell::open(config()).await;
            sh.send(&format!("cd '{}' && rm -f made.txt", dir.0.display()))
                .await;
            let r = sh.send(&format!("PS1='# ' {text}")).await;
            assert_eq!(r.wait_reason, WaitReason::SessionExit, "{text:?}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == shows), "{text:?}: {r:?}");
            assert!(
                !r.notices
                    .iter()
                    .any(|n| n.contains("answers to prompts") || n.contains("went to the prompt")),
                "{text:?}: {r:?}"
            );
            sh.close().await;
        }
    })
    .await;
}

/// A line that answered a prompt whose read is over by the settle: the notice says so and
/// names what holds the terminal now (the shell's next `read`, the command after the reader),
/// and SIGINT is not said to stop the reader that ended; a REPL's statement that read the
/// line took it instead of the REPL, which is back at its prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_to_a_prompt_whose_read_is_over_is_told_as_things_are() {
    within(async {
        let dir = TempDir::new("ended-reader");
        let sh = Shell::open(config()).await;
        sh.send(&format!("cd '{}'", dir.0.display())).await;
        // `rm` takes the line as its "no" and ends; the shell's `read` asks next.
        let r = sh
            .send("touch g0; rm -i g0; read -p 'Again? ' z; echo z=$z")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("ls -la").await;
        let notice = answered(&r);
        assert!(notice.contains("that `rm` waited at"), "{r:?}");
        assert!(
            notice.contains("the shell's `read` waits at `Again?`")
                && !notice.contains("SIGINT stops `rm`"),
            "{r:?}"
        );
        let r = sh.send("done").await;
        assert!(r.viewport.lines().any(|l| l == "z=done"), "{r:?}");
        // `python3` takes the line and ends; `sleep` runs in the foreground.
        let r = sh
            .send("python3 -c \"input('Proceed? ')\"; sleep 3; echo slept")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send_within("ls -la", true, 1500).await;
        let notice = answered(&r);
        assert!(
            notice.contains("`sleep` runs in the foreground")
                && !notice.contains("SIGINT stops `python3`"),
            "{r:?}"
        );
        // Typed ahead of `sleep`, it runs once the command line is over.
        let r = sh.send_within("echo after-$((1+1))", true, 30_000).await;
        assert!(r.viewport.lines().any(|l| l == "after-2"), "{r:?}");
        // A REPL's statement reads the line; the REPL is back at `>>>`.
        let r = sh.send("python3 -q").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("x = input('Proceed? ')").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("ls -la").await;
        let notice = answered(&r);
        assert!(
            notice.contains("not to `python3` as a statement")
                && notice.contains("`python3` is back at its prompt `>>>`")
                && !notice.contains("not to the shell")
                && !notice.contains("SIGINT stops"),
            "{r:?}"
        );
        let r = sh.send("print(repr(x))").await;
        assert!(r.viewport.lines().any(|l| l == "'ls -la'"), "{r:?}");
        sh.send("exit()").await;
        sh.close().await;
    })
    .await;
}
