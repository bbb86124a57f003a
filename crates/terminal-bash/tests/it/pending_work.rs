//! Programs whose work goes on while they read the terminal: a reader thread beside a worker
//! that wakes the program by itself, a REPL with an `await` pending: their terminal wait is
//! no sign the work is done.

use dsh_terminal_core::WaitReason;

use crate::support::{Shell, config, within};

/// A worker printing its progress on a timer while a daemon thread waits for "press Enter to
/// cancel": the send ends with the program, every step there, not at its first quiet moment
/// as a wait for input (the next command would be typed into the program as its answer).
const WORKER: &str = "python3 -c 'import threading, time
def cancel():
    input()
    print(\"cancelled\", flush=True)
threading.Thread(target=cancel, daemon=True).start()
print(\"press Enter to cancel\", flush=True)
for i in range(6):
    print(\"step\", i, flush=True)
    time.sleep(0.4)
print(\"finished\", flush=True)'";

/// A heartbeat thread asleep beside a prompt: the prompt before the cursor is a wait for
/// input all the same.
const HEARTBEAT: &str = "python3 -c 'import threading, time
threading.Thread(target=lambda: time.sleep(60), daemon=True).start()
print(\"hi\", input(\"Name: \"))'";

/// A spinner thread computing beside `getpass` and beside an `input()` question: the prompt
/// before the cursor makes the read one for input now, though the program computes.
const SPINNERS: [&str; 2] = [
    "python3 -c 'import threading, getpass
def spin():
    x = 0
    while True: x += 1
threading.Thread(target=spin, daemon=True).start()
print(\"len\", len(getpass.getpass(\"spinpw: \")))'",
    "python3 -c 'import threading
def spin():
    x = 0
    while True: x += 1
threading.Thread(target=spin, daemon=True).start()
print(\"got\", input(\"Continue? [y/N] \"))'",
];

/// A worker computing (no output) while a daemon thread waits for "press Enter to cancel",
/// with no prompt before the cursor: the program is at work, not waiting.
const COMPUTING: &str = "python3 -c 'import threading, time
threading.Thread(target=input, daemon=True).start()
print(\"press Enter to cancel\", flush=True)
end = time.time() + 1.5
while time.time() < end: pass
print(\"computed\", flush=True)'";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_beside_a_computing_thread_waits_for_input() {
    within(async {
        let sh = Shell::open(config()).await;
        for (program, answer, line) in [
            (SPINNERS[0], "hunter2", "len 7"),
            (SPINNERS[1], "y", "got y"),
        ] {
            let r = sh.send_within(program, true, 20_000).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert_eq!(r.exit_code, None, "{r:?}");
            let r = sh.send(answer).await;
            assert!(r.viewport.lines().any(|l| l == line), "{r:?}");
            assert_eq!(r.exit_code, Some(0), "{r:?}");
        }
        let r = sh.send_within(COMPUTING, true, 20_000).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "computed"), "{r:?}");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_thread_beside_a_sleeping_worker_is_not_the_end() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send_within(WORKER, true, 30_000).await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        for line in ["step 0", "step 5", "finished"] {
            assert!(r.viewport.lines().any(|l| l == line), "{line}: {r:?}");
        }
        sh.close().await;
        // At once, not once output has been quiet for the idle window: with a window longer
        // than the send's deadline, only the prompt can settle it.
        let sh = Shell::open(dsh_terminal_bash::BashConfig {
            idle_silence_ms: 120_000,
            ..config()
        })
        .await;
        let r = sh.send_within(HEARTBEAT, true, 60_000).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with("Name: "), "{r:?}");
        let r = sh.send("ada").await;
        assert!(r.viewport.lines().any(|l| l == "hi ada"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// node's REPL given a line while an `await` is pending: once that await ends, it prints its
/// prompt with the line again after it, and has printed none for the line itself, whose own
/// await is still pending: the result says so, and a poll waits for what it prints.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_typed_while_a_repl_awaits_is_still_pending_after_the_first() {
    line_typed_while_node_awaits(1500).await;
}

/// The same with the first await longer than a send takes to settle: the second line is typed
/// while it is pending, and the poll that sees its end, with the line shown again after the
/// prompt, still says the line's own await is pending (a poll types no line: the line the
/// REPL shows again is the newest send's), so the polls after it wait for its output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_after_a_line_typed_while_a_repl_awaits_still_owes_its_result() {
    line_typed_while_node_awaits(3000).await;
}

/// Sends node an `await` of `first_ms`, then one of 4 s, and polls until the second's
/// result: every result shows it or says the REPL has not printed its prompt again.
async fn line_typed_while_node_awaits(first_ms: u64) {
    use crate::silence::STILL_RUNNING;
    if !crate::support::installed("node") {
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        let still =
            |r: &dsh_terminal_core::SendResult| r.notices.iter().any(|n| n.contains(STILL_RUNNING));
        let r = sh
            .send(&format!(
                "await new Promise(r => setTimeout(() => r('first-' + 'one'), {first_ms}))"
            ))
            .await;
        assert!(r.viewport.contains("first-one") || still(&r), "{r:?}");
        let second = "await new Promise(r => setTimeout(() => r('second-' + 'one'), 4000))";
        let r = match sh.try_send(second, true).await {
            Ok(r) => r,
            // On a loaded machine the first await may end, and node print its prompt, after
            // a result said it still runs: that prompt, which no result showed, is seen first.
            Err(e) if e.message().contains("a prompt no result showed") => {
                sh.send_raw("", false).await;
                sh.send(second).await
            }
            Err(e) => panic!("{e}"),
        };
        let mut seen = r.viewport.contains("second-one");
        assert!(seen || still(&r), "{r:?}");
        while !seen {
            let r = sh.send_within("", false, 20_000).await;
            seen = r.viewport.contains("second-one");
            assert!(seen || still(&r), "{r:?}");
        }
        let r = sh.send(".exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// An `await` sent to node's REPL with a deadline (`timeoutMs`) is waited out: the result
/// shows its value and the prompt after it, as a command's send waits out a timer; also an
/// await several idle windows long (the send came back at the idle window, saying the REPL
/// still owed its prompt).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_await_sent_with_a_deadline_is_waited_out() {
    if !crate::support::installed("node") {
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        for ms in [1500, 4000] {
            let r = sh
                .send_within(
                    &format!("await new Promise(r => setTimeout(() => r('late-' + {ms}), {ms}))"),
                    true,
                    30_000,
                )
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert!(r.viewport.contains(&format!("'late-{ms}'\n> ")), "{r:?}");
        }
        // Awaits of a child process, one after another (node's own timer may be off then).
        sh.send("const ex = require('util').promisify(require('child_process').exec)")
            .await;
        for round in 0..3 {
            let r = sh
                .send_within(
                    &format!("(await ex('sleep 2; echo child-{round}')).stdout.trim()"),
                    true,
                    30_000,
                )
                .await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            assert!(
                r.viewport.contains(&format!("'child-{round}'\n> ")),
                "{r:?}"
            );
        }
        let r = sh.send(".exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}
