//! Lines that reach a program reading commands are no answers to a question: no notice says
//! they "went to the prompt … as its answer" (a model told so would send the command again,
//! and run it twice).

use dsh_terminal_core::{SendResult, WaitReason};

use crate::support::{Shell, config, installed, within};

/// Whether `r` says that a line went to a prompt as its answer.
fn said_to_answer(r: &SendResult) -> bool {
    r.notices.iter().any(|n| n.contains("went to the prompt"))
}

/// A nested interactive shell whose prompt reads like a question (`Continue? `), a database
/// shell with a prompt of its own (sqlite3's `.prompt 'Query? '`), and SQL typed at a
/// script's `sql> ` prompt (`select` there is no bash `select` loop) take commands.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_at_prompts_that_read_commands_are_no_answers() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("PS1='Continue? ' bash --norc").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        for command in ["ls -d /tmp", "echo nested-$((6*7))"] {
            let r = sh.send(command).await;
            assert!(!said_to_answer(&r), "{command}: {r:?}");
        }
        let r = sh.send("exit").await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        if installed("sqlite3") {
            sh.send("sqlite3").await;
            sh.send(".prompt 'Query? '").await;
            let r = sh.send("select 6 * 7;").await;
            assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
            assert!(!said_to_answer(&r), "{r:?}");
            sh.send(".quit").await;
        } else {
            eprintln!("sqlite3 is not installed: its own prompt is not exercised");
        }
        sh.send(
            "python3 -c \"import sys\nwhile (q := input('sql> ')) != 'quit': print('ran', q)\"",
        )
        .await;
        let r = sh.send("select * from users;").await;
        assert!(
            r.viewport.lines().any(|l| l == "ran select * from users;"),
            "{r:?}"
        );
        assert!(!said_to_answer(&r), "{r:?}");
        let r = sh.send("quit").await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        sh.close().await;
    })
    .await;
}
