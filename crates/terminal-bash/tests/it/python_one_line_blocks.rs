//! A compound statement on one line (`if x: print(x)`, `for i in r: f(i)`) among several
//! statements sent to a Python REPL: it goes as a paste with its Enter, and the Enter that
//! ends its block goes only where the REPL shows its continuation prompt. IPython runs such a
//! line on the first Enter and took the second as an empty line at its next prompt (a prompt
//! shown twice, `In [4]:` with nothing on it), or kept it behind an `input()` the line made.

use crate::python_blocks::repls;
use crate::support::{Shell, config, within};

/// Whether `row` is a REPL's primary prompt with nothing typed on it (`>>>`, `In [4]:`).
fn empty_prompt(row: &str) -> bool {
    let row = row.trim();
    row == ">>>" || (row.starts_with("In [") && row.ends_with("]:"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_line_block_among_statements_runs_with_one_prompt_after_it() {
    within(async {
        let sh = Shell::open(config()).await;
        for repl in repls(true) {
            let r = sh.send(&repl).await;
            assert!(r.viewport.lines().any(empty_prompt), "{repl}: {r:?}");
            let r = sh
                .send("x = 6\nif x: print('yes', x * 7)\nprint('after')")
                .await;
            let rows: Vec<&str> = r.viewport.lines().collect();
            assert!(
                rows.contains(&"yes 42") && rows.contains(&"after"),
                "{repl}: {r:?}"
            );
            // One empty prompt: the one the REPL waits at now.
            assert_eq!(
                rows.iter().filter(|row| empty_prompt(row)).count(),
                1,
                "{repl}: {r:?}"
            );
            // The block's line reads: the answer is its input, and the prompt comes back once.
            let r = sh
                .send("y = 1\nfor i in range(1): name = input('Name: ')")
                .await;
            assert!(r.viewport.trim_end().ends_with("Name:"), "{repl}: {r:?}");
            let r = sh.send("alice").await;
            let rows: Vec<&str> = r.viewport.lines().collect();
            assert_eq!(
                rows.iter().filter(|row| empty_prompt(row)).count(),
                1,
                "{repl}: {r:?}"
            );
            let r = sh.send("print('got', name)").await;
            assert!(
                r.viewport.lines().any(|l| l == "got alice"),
                "{repl}: {r:?}"
            );
            let r = sh.send("exit()").await;
            assert!(r.viewport.ends_with("dsh> "), "{repl}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}
