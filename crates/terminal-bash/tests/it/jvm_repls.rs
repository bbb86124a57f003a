//! jshell, a REPL whose line editor (jline) reads the terminal in a thread of its own all the
//! time, beside the threads that talk to its execution engine: a statement's send waits for
//! its result and prompt (that read is no sign jshell is done with the line; the send came
//! back with the echo alone), and `terminal_signal` SIGINT stops a statement as the Ctrl-C
//! key does (jline unsets the interrupt key: a SIGINT to the group ended the engine, the
//! REPL's state lost). Its line editor's redraws of the lines typed are no output erased.

use dsh_terminal_core::{BackendSession, SignalDelivery, TerminalSignal, WaitReason};

use crate::support::{Shell, config, installed, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jshell_statement_is_waited_for_and_sigint_keeps_its_state() {
    if !installed("jshell") {
        eprintln!("jshell is not installed: a REPL with a reader thread is not exercised");
        return;
    }
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send_within("jshell", true, 60_000).await;
        assert!(r.viewport.contains("jshell>"), "{r:?}");
        let r = sh.send("int kept = 41").await;
        assert!(r.viewport.contains("kept ==> 41"), "{r:?}");
        // A block typed over several lines: jline re-indents its closing brace as it is typed
        // (up to its row, erase after the prompt, the brace written back further left), the
        // typed line redrawn, no output erased.
        let r = sh
            .send("int sq(int x) {\n    return x * x;\n}\nsq(7)")
            .await;
        assert!(r.viewport.contains("==> 49"), "{r:?}");
        assert!(r.notices.iter().all(|n| !n.contains("erased")), "{r:?}");
        let r = sh.send("Thread.sleep(1500); kept + 1").await;
        assert!(r.viewport.contains("==> 42"), "{r:?}");
        assert!(r.viewport.trim_end().ends_with("jshell>"), "{r:?}");
        let r = sh.send_within("while (true) {}", true, 1500).await;
        assert!(!r.viewport.contains("jshell> \n"), "{r:?}");
        let s = sh.session.signal(TerminalSignal::Sigint).unwrap();
        assert_eq!(s.delivery, SignalDelivery::InterruptCharacter, "{s:?}");
        let r = sh.send_within("kept + 2", true, 30_000).await;
        assert!(r.viewport.contains("==> 43"), "{r:?}");
        // A statement that reads input itself prints nothing more: its send comes back once
        // quiet for the idle window, not at its 30 s deadline (the session ends it).
        sh.send("var sc = new java.util.Scanner(System.in);").await;
        let r = sh.send("String nm = sc.nextLine()").await;
        assert_ne!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        sh.close().await;
    })
    .await;
}
