//! Text sent to a Python REPL without Enter, and the send after it: the next send's first
//! newline is the Enter of the line left unended (not a blank line inside a block, dropped),
//! and the blank lines inside a block sent without Enter do not end it early, in the basic
//! REPL (typed lines) as in those that take pastes.

use crate::python_blocks::repls;
use crate::support::{Shell, config, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_send_after_text_without_enter_runs_as_a_file_would() {
    within(async {
        let sh = Shell::open(config()).await;
        for py in repls(true) {
            sh.send(&py).await;
            let runs = |r: &dsh_terminal_core::SendResult, line: &str| {
                assert!(!r.viewport.contains("Error"), "{py}: {r:?}");
                assert!(r.viewport.lines().any(|l| l == line), "{py}: {r:?}");
            };
            // A simple statement left unended, then a send that starts with its Enter.
            sh.send_within("x0 = 40", false, 10_000).await;
            runs(&sh.send("\nprint('x0 is', x0 + 2)").await, "x0 is 42");
            // A block left unended, then its Enter, the empty line ending it and a statement.
            sh.send_within("def q():\n    return 7", false, 10_000)
                .await;
            runs(&sh.send("\n\nprint('q is', q())").await, "q is 7");
            // A block with a blank line inside, without Enter; the Enter and a call next.
            sh.send_within(
                "def h():\n    x = 1\n\n    y = 2\n    return x + y",
                false,
                10_000,
            )
            .await;
            sh.send("").await;
            runs(&sh.send("print('h is', h())").await, "h is 3");
            // A statement and such a block, without Enter.
            sh.send_within(
                "a = 5\n\ndef g():\n    b = 1\n\n    return a + b",
                false,
                10_000,
            )
            .await;
            sh.send("").await;
            runs(&sh.send("print('g is', g())").await, "g is 6");
            // Several simple statements without Enter: each runs, none dropped.
            // (the lines before the last run as they go in; the last once entered).
            let typed = sh
                .send_within("print('p1')\nprint('p2')\nprint('p3')", false, 10_000)
                .await;
            let entered = sh.send("").await;
            let both = format!("{}\n{}", typed.viewport, entered.viewport);
            assert!(!both.contains("Error"), "{py}: {both}");
            for line in ["p1", "p2", "p3"] {
                assert!(both.lines().any(|l| l == line), "{py}: {both}");
            }
            // A block's header (a loop's, a decorator) without Enter, then its body after the
            // send's first newline: not joined to the header.
            sh.send_within("for i in range(2):", false, 10_000).await;
            sh.send("\n    if i:\n        print('S3', i)\n\n    else:\n        print('S3 zero')")
                .await;
            let r = sh.send("").await;
            runs(&r, "S3 zero");
            runs(&r, "S3 1");
            sh.send("keep = lambda f: f").await;
            sh.send_within("@keep", false, 10_000).await;
            runs(
                &sh.send("\ndef g4(): return 4\nprint('S4', g4())").await,
                "S4 4",
            );
            // Statements and a loop without Enter, then a statement after the send's first
            // newline: it runs once, after the loop, not inside it.
            sh.send_within(
                "u = 1\nfor k in range(3):\n    print('LOOP', k)",
                false,
                10_000,
            )
            .await;
            let r = sh.send("\nprint('AFTER', u)").await;
            runs(&r, "LOOP 2");
            assert_eq!(
                r.viewport.lines().filter(|l| *l == "AFTER 1").count(),
                1,
                "{py}: {r:?}"
            );
            // A block left open by a send, then a send whose first line is blank: the blank
            // line ends the block, as in a file.
            sh.send("def f5(x):\n    return x * 2").await;
            runs(&sh.send("\nprint('S5', f5(3))").await, "S5 6");
            // A decorator last in a send stays open for the definition the next send brings.
            sh.send("import functools\n@functools.lru_cache(maxsize=None)")
                .await;
            runs(
                &sh.send(
                    "\ndef q6(x):\n    return x\nprint('S6', q6(4), q6(4), q6.cache_info().hits)",
                )
                .await,
                "S6 4 4 1",
            );
            // A definition and a decorator without Enter, the decorated one next.
            sh.send_within(
                "def deco(f):\n    def w(*a):\n        return f(*a) * 10\n    return w\n\n@deco",
                false,
                10_000,
            )
            .await;
            runs(
                &sh.send("\ndef h7(x):\n    return x + 1\nprint('S7', h7(1))")
                    .await,
                "S7 20",
            );
            let r = sh.send("exit()").await;
            assert_eq!(r.exit_code, Some(0), "{py}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}
