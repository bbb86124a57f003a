//! Text sent while a Python program that is no REPL runs (a script, a server, pip, a test
//! runner under `make`): typed ahead as to any program, a block of shell lines too. Only a
//! Python REPL busy with a statement refuses a block (see `python_blocks`); a script was
//! refused as one, "still running a statement", with advice to wait for a prompt that a
//! script or a server never shows.

use dsh_terminal_core::{BackendSession, TerminalSignal, WaitReason};

use crate::support::{Shell, TempDir, config, within};

/// A Python script that prints, then works for a while without reading, then ends.
const SCRIPT: &str =
    "import time\nprint('started', flush=True)\ntime.sleep(10)\nprint('script done')\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_block_sent_while_a_python_script_runs_is_typed_ahead() {
    within(async {
        let dir = TempDir::new("slow-program");
        let script = dir.0.join("slow.py");
        std::fs::write(&script, SCRIPT).unwrap();
        let sh = Shell::open(config()).await;
        let script = script.display();
        for start in [
            format!("python3 '{script}'"),
            format!("bash -c \"python3 '{script}'; echo wrapper done\""),
        ] {
            let start = start.as_str();
            let mut r = sh.send_within(start, true, 300).await;
            // Polled until the script runs (its start takes a while on a loaded machine).
            while !r.viewport.contains("started") {
                assert_eq!(r.wait_reason, WaitReason::Timeout, "{start}: {r:?}");
                r = sh.send_within("", false, 1000).await;
            }
            let r = sh
                .try_send("for i in 1 2; do echo loop $i; done", true)
                .await
                .unwrap_or_else(|e| panic!("{start}: the block was refused: {e}"));
            let rows: Vec<&str> = r.viewport.lines().collect();
            assert!(
                rows.contains(&"loop 1") && rows.contains(&"loop 2"),
                "{start}: {r:?}"
            );
            assert!(rows.contains(&"script done"), "{start}: {r:?}");
        }
        sh.close().await;
    })
    .await;
}

/// A REPL a Python program started (`code.interact`, a framework's shell): its command line
/// names no REPL, but the session saw its prompt, and a block while it runs a statement is
/// refused as to Python's own REPL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_to_a_repl_a_python_program_started_is_refused_while_it_runs_a_statement() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("python3 -c 'import code; code.interact(banner=\"\")'")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh
            .send_within("import time; time.sleep(30)", true, 300)
            .await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let e = sh
            .try_send("for i in range(2):\n    print('row', i)\n", true)
            .await
            .unwrap_err();
        assert!(e.message().contains("is still running a statement"), "{e}");
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh.send_raw("", false).await;
        assert!(r.viewport.contains("KeyboardInterrupt"), "{r:?}");
        let r = sh.send("for i in range(2):\n    print('row', i)\n").await;
        assert!(r.viewport.lines().any(|l| l == "row 1"), "{r:?}");
        let r = sh.send("exit()").await;
        assert!(r.viewport.ends_with("dsh> "), "{r:?}");
        sh.close().await;
    })
    .await;
}
