//! Event loops (node, asyncio REPLs, programs on a timer) that watch the terminal between other
//! work: when their silence means waiting for input, and when it does not.

use pretty_assertions::assert_eq;

use super::*;

/// An event loop with nothing to relay (node's REPL) that printed from a timer after its
/// prompt, leaving the cursor on a blank row, still waits for input: a poll says so once
/// quiet, not at the idle window, and the next line runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_event_loop_after_timer_output_waits_for_input() {
    if !crate::support::installed("node") {
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        let r = sh
            .send("setTimeout(() => console.log('timer-' + 'fired'), 100)")
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let mut seen = r.viewport.contains("timer-fired");
        while !seen {
            let r = sh.send_raw("", false).await;
            assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
            seen = r.viewport.contains("timer-fired");
        }
        let r = sh.send_raw("", false).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("6 * 7").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        let r = sh.send(".exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// node's REPL reads the terminal while an `await` of the line it read is pending, yet has
/// not printed its prompt again: the line's send waits for it up to the idle window, then the
/// result says what it read may still be running and to poll; once the prompt is back, lines
/// settle without that notice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_event_loop_still_awaiting_a_line_says_so() {
    if !crate::support::installed("node") {
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        let r = sh
            .send(
                "await new Promise(r => setTimeout(() => { console.log('resolved-' + 'now'); \
                 r(7) }, 4000))",
            )
            .await;
        assert!(
            matches!(
                r.wait_reason,
                WaitReason::StdinRead | WaitReason::InferredIdle
            ),
            "{r:?}"
        );
        let mut seen = r.viewport.contains("resolved-now");
        if !seen {
            assert!(r.notices.iter().any(|n| n.contains(STILL_RUNNING)), "{r:?}");
            // A poll that finds it still so says it again.
            let r = sh.send_raw("", false).await;
            seen = r.viewport.contains("resolved-now");
            assert!(
                seen || r.notices.iter().any(|n| n.contains(STILL_RUNNING)),
                "{r:?}"
            );
        }
        while !seen {
            let r = sh.send_raw("", false).await;
            seen = r.viewport.contains("resolved-now");
        }
        let still =
            |r: &dsh_terminal_core::SendResult| r.notices.iter().any(|n| n.contains(STILL_RUNNING));
        let r = sh.send("6 * 7").await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        assert!(!still(&r), "{r:?}");
        // The pending line last among several: the prompt it was typed at, shown before it,
        // is not the REPL back from it.
        let r = sh
            .send("1 + 1\nawait new Promise(r => setTimeout(() => r('multi-' + 'done'), 4000))")
            .await;
        assert!(r.viewport.lines().any(|l| l == "2"), "{r:?}");
        let mut seen = r.viewport.contains("multi-done");
        if !seen {
            assert!(still(&r), "{r:?}");
        }
        while !seen {
            let r = sh.send_raw("", false).await;
            seen = r.viewport.contains("multi-done");
        }
        // The pending line recalled with Up and entered: a line of keys has no echo of its
        // text, and its row, redrawn with the line after the prompt, is not the REPL back.
        let r = sh.send("\u{1b}[A").await;
        let mut seen = r.viewport.contains("multi-done");
        if !seen {
            assert!(still(&r), "{r:?}");
        }
        while !seen {
            let r = sh.send_raw("", false).await;
            seen = r.viewport.contains("multi-done");
        }
        // A mode that prints no prompt is not a pending line, nor are the lines sent in it:
        // they wait for Ctrl-D, as the result says, which runs them.
        let r = sh.send(".editor").await;
        assert!(!still(&r), "{r:?}");
        let r = sh.send("let q = 1;\nq + 41").await;
        assert!(!still(&r), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: node is in its editor mode (.editor)")),
            "{r:?}"
        );
        let r = sh.send_raw("\u{4}", false).await;
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        assert!(
            r.notices.iter().all(|n| !n.contains("editor mode")),
            "{r:?}"
        );
        // With a deadline too (it waited for a prompt the mode never shows, and said the
        // REPL still owed it).
        let r = sh.send_within(".editor", true, 20_000).await;
        assert!(!still(&r), "{r:?}");
        let r = sh.send_within("let w = 1;", true, 20_000).await;
        assert!(!still(&r), "{r:?}");
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[input: node is in its editor mode (.editor)")),
            "{r:?}"
        );
        // A SIGINT ends the mode as the typed Ctrl-C does.
        sh.session.signal(TerminalSignal::Sigint).unwrap();
        let r = sh.send("1 + 1").await;
        assert!(r.viewport.lines().any(|l| l == "2"), "{r:?}");
        assert!(
            r.notices.iter().all(|n| !n.contains("editor mode")),
            "{r:?}"
        );
        // A REPL command typed while a line's await is pending waits behind it: the REPL
        // has not come back, and `.exit` runs once the timer fires.
        sh.send("await new Promise(r => setTimeout(r, 4000))").await;
        let r = sh.send(".exit").await;
        let mut exited = r.exit_code == Some(0);
        if !exited {
            assert!(still(&r), "{r:?}");
        }
        while !exited {
            exited = sh.send_raw("", false).await.exit_code == Some(0);
        }
        // Nor is a script reading its input with no prompt.
        let r = sh
            .send(
                "node -e 'process.stdin.once(\"data\", d => { console.log(\"got \" + d); \
                 process.exit(0) })'",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(!still(&r), "{r:?}");
        let r = sh.send("hi").await;
        assert!(r.viewport.contains("got hi"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A REPL whose own timer keeps printing (node's `setInterval`, which never redraws the
/// prompt) is back at its prompt once it printed it after the line, even when a tick landed
/// right after the prompt on its row: a slow line's send settles as a stdin wait between two
/// ticks, not at its deadline; an `await` still pending says so, ticks and all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repl_with_a_ticking_timer_settles_after_its_prompt() {
    if !crate::support::installed("node") {
        return;
    }
    within(async {
        let sh = Shell::open_node_repl().await;
        sh.send("const h = setInterval(() => console.log('tick'), 100)")
            .await;
        let send = |text: &'static str| sh.send_within(text, true, 20_000);
        let r = send("6 * 7").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "42"), "{r:?}");
        // A line that blocks the event loop for a second: the tick it held back lands right
        // after the prompt.
        let r = send(
            "{ const e = Date.now() + 1000; while (Date.now() < e); console.log('slow' + 'done') }",
        )
        .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "slowdone"), "{r:?}");
        let r = send("await new Promise(r => setTimeout(() => r('late-' + 'value'), 4000))").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let mut seen = r.viewport.contains("late-value");
        if !seen {
            assert!(r.notices.iter().any(|n| n.contains(STILL_RUNNING)), "{r:?}");
        }
        while !seen {
            let r = sh.send_raw("", false).await;
            seen = r.viewport.contains("late-value");
            // The poll that shows the value shows the prompt back too (ticks after it).
            if seen {
                assert!(
                    !r.notices.iter().any(|n| n.contains(STILL_RUNNING)),
                    "{r:?}"
                );
            }
        }
        sh.send("clearInterval(h)").await;
        let r = sh.send(".exit").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A program that watches the terminal with a timeout while its timer keeps printing (a
/// `select` loop with a period, node's stdin listener beside `setInterval`, in raw mode too
/// as a spinner that discards what is typed) is still at work:
/// the send ends with the program, every line of it there, not at the first quiet moment as a
/// wait for input; a progress line it redraws before the cursor is no prompt. Once the
/// program prints nothing through a period (or nearly the idle window), it waits for input,
/// and the answer reaches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_printing_on_a_timer_while_it_watches_the_terminal_is_not_waiting() {
    const SELECT_LOOP: &str = "python3 -c 'import select, sys\n\
        for i in range(6):\n\
        \x20   select.select([0], [], [], 0.25)\n\
        \x20   print(\"tick\", i, flush=True)'";
    const NODE_LOOP: &str = "node -e 'let i = 0; process.stdin.on(\"data\", () => {}); \
        const t = setInterval(() => { console.log(\"tick\", i++); \
        if (i === 6) { clearInterval(t); process.exit(0) } }, 250)'";
    const NODE_RAW_LOOP: &str = "node -e 'process.stdin.setRawMode(true); \
        process.stdin.on(\"data\", () => {}); let i = 0; \
        const t = setInterval(() => { console.log(\"tick\", i++); \
        if (i === 6) { clearInterval(t); process.exit(0) } }, 250)'";
    const QUIET_LOOP: &str = "python3 -c 'import select, sys\n\
        print(\"ready\", flush=True)\n\
        while not select.select([0], [], [], 0.2)[0]: pass\n\
        print(\"got\", sys.stdin.readline().strip())'";
    within(async {
        let sh = Shell::open(config()).await;
        let mut loops = vec![SELECT_LOOP];
        if crate::support::installed("node") {
            loops.extend([NODE_LOOP, NODE_RAW_LOOP]);
        }
        for program in loops {
            let r = sh.send_within(program, true, 20_000).await;
            assert_eq!(r.exit_code, Some(0), "{program}: {r:?}");
            for i in 0..6 {
                let tick = format!("tick {i}");
                assert!(r.viewport.lines().any(|l| l == tick), "{program}: {r:?}");
            }
        }
        // A progress line redrawn before the cursor is no prompt.
        let r = sh
            .send_within(
                "for i in 1 2 3 4 5 6; do printf '\\rprogress %d/6' $i; \
                 read -t 0.25 x && echo \"[read: $x]\"; done; echo; echo END",
                true,
                20_000,
            )
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "END"), "{r:?}");
        assert!(r.viewport.contains("progress 6/6"), "{r:?}");
        // Nor one that ends in a bracket holding a count or a bar, beside a key poll.
        for (line, arg) in [
            ("Waiting for db (attempt %d/6)", "$i"),
            ("[%-6s]", "$b"),
            ("Working [%s]", "spinning"),
        ] {
            let r = sh
                .send_within(
                    &format!(
                        "b=; for i in 1 2 3 4 5 6; do b+='#'; printf '\\r{line}' \"{arg}\"; \
                         read -t 0.25 -n1 k && echo CANCELLED; done; echo; echo END"
                    ),
                    true,
                    20_000,
                )
                .await;
            assert_eq!(r.exit_code, Some(0), "{line}: {r:?}");
            assert!(r.viewport.lines().any(|l| l == "END"), "{line}: {r:?}");
        }
        // A yes/no question counting down is a prompt at once.
        let r = sh
            .send(
                "for i in 9 8 7 6 5 4 3 2 1; do printf '\\rContinue? [y/N] (%ds) ' $i; \
                 read -t 1 -n1 k && break; done; echo; echo \"k=[$k]\"",
            )
            .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("y").await;
        assert!(r.viewport.lines().any(|l| l == "k=[y]"), "{r:?}");
        // A timeout longer than the idle window: waiting for input before silence settles.
        let r = sh.send("read -t 20 v; echo \"got=$v\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        let r = sh.send("hi").await;
        assert!(r.viewport.lines().any(|l| l == "got=hi"), "{r:?}");
        // A question before the cursor is a prompt, timeout or not.
        let r = sh.send("read -t 20 -p 'Name: ' v; echo \"name=$v\"").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with("Name: "), "{r:?}");
        let r = sh.send("ada").await;
        assert!(r.viewport.lines().any(|l| l == "name=ada"), "{r:?}");
        let r = sh.send(QUIET_LOOP).await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert_eq!(r.exit_code, None, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "ready"), "{r:?}");
        let r = sh.send("hello").await;
        assert!(r.viewport.lines().any(|l| l == "got hello"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// An event loop that reads the terminal among other sources (asyncio's self-pipe socket)
/// settles on silence like a relay, and the result says it may be waiting for input.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_loop_reading_the_terminal_is_said_to_maybe_wait_for_input() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send(
                "python3 -c \"import asyncio, sys\nasync def m():\n  loop = asyncio.get_running_loop(); \
                 f = loop.create_future(); loop.add_reader(0, lambda: f.done() or \
                 f.set_result(sys.stdin.readline()))\n  print('got', await f)\nasyncio.run(m())\"",
            )
            .await;
        if r.wait_reason == WaitReason::InferredIdle {
            assert!(
                r.notices.iter().any(|n| n.starts_with(
                    "[idle: python3 is still running and went quiet while reading the terminal"
                )),
                "{r:?}"
            );
        }
        let r = sh.send("abc").await;
        assert!(r.viewport.lines().any(|l| l == "got abc"), "{r:?}");
        sh.close().await;
    })
    .await;
}
