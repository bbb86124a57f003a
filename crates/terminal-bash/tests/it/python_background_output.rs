//! Output a Python REPL prints while it waits at its primary prompt (a thread's, a timer's)
//! pushes that prompt off the cursor's row, or follows it on that row (no line end). The REPL still holds no statement there: a block
//! sent next goes as statements at a prompt do, each block ended by an empty line (typed as
//! one run of lines, the statement after the block was a `SyntaxError`).

use crate::python_blocks::repls;
use crate::support::{Shell, TempDir, config, newest_lines, unique_id, wait_until, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_after_a_threads_output_at_the_prompt_runs_as_statements() {
    within(async {
        let sh = Shell::open(config()).await;
        let dir = TempDir::new("python-background-output");
        for repl in repls(true) {
            let r = sh.send(&repl).await;
            assert!(r.viewport.contains(">>>") || r.viewport.contains("In ["), "{repl}: {r:?}");
            // A line, then text without a line end after the prompt (`>>> tick`; not to
            // IPython, whose line editor takes the text after such output for a line of its
            // own: not handled).
            let ends: &[&str] = if repl.starts_with("ipython") {
                &["\\n"]
            } else {
                &["\\n", ""]
            };
            for &end in ends {
                let go = dir.0.join(unique_id().to_string());
                let id = unique_id().to_string();
                // The thread prints once the file exists, after the send has settled at the
                // prompt (its text is not in the statement's, which the REPL echoes).
                let r = sh
                    .send(&format!(
                        "import os, sys, threading, time\n\
                         def f():\n    while not os.path.exists({go:?}):\n        time.sleep(0.01)\n    sys.stdout.write(\"tick-\" + {id:?} + \"{end}\"); sys.stdout.flush()\n\
                         threading.Thread(target=f).start()",
                        go = go.display().to_string(),
                    ))
                    .await;
                assert!(!r.viewport.contains("Error"), "{repl}: {r:?}");
                std::fs::write(&go, b"").expect("write the go file");
                // IPython draws its prompt again after the text (a send at that moment, the
                // cursor on a blank row, went as to a REPL that shows no prompt).
                wait_until("the thread's text shows", || {
                    let text = newest_lines(&sh, 5).text;
                    text.contains(&format!("tick-{id}"))
                        && (!repl.starts_with("ipython")
                            || text.lines().last().is_some_and(|l| l.starts_with("In [")))
                })
                .await;
                let r = sh.send("def g(x):\n    return x * 2\nprint(g(21))").await;
                assert!(
                    r.viewport.lines().any(|l| l == "42") && !r.viewport.contains("SyntaxError"),
                    "{repl} {end:?}: {r:?}"
                );
                // A block left open at the end of a send, ended by the next statement.
                sh.send("for i in range(2):\n    print('blk', i)").await;
                let r = sh.send("print('after-' + 'block')").await;
                assert!(
                    r.viewport.contains("blk 1") && r.viewport.lines().any(|l| l == "after-block"),
                    "{repl} {end:?}: {r:?}"
                );
            }
            let r = sh.send("exit()").await;
            assert!(r.viewport.ends_with("dsh> "), "{repl}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}
