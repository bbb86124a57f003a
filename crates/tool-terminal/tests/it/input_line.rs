//! Text sent without Enter: the result says when it stays on an input line (the next send
//! continues that line), and not when a program took it as keys.

use serde_json::json;

use crate::support::Host;

const NOTICE: &str = "[input: sent without Enter, so it waits on the input line";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_left_on_an_input_line_is_said_to_wait_there() {
    let (host, agent) = Host::with_open_shell().await;
    let send = |text: &str, submit: bool| {
        host.call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": text, "submit": submit}),
        )
    };
    let text = send("echo pend", false).await.text();
    let notice = text.lines().find(|l| l.starts_with(NOTICE));
    insta::assert_snapshot!("typed_without_enter", notice.unwrap_or(&text));
    // Entering it runs the line as typed.
    let text = send("ing", true).await.text();
    assert!(text.contains("pending"), "{text}");
    assert!(text.contains("[exit: 0]"), "{text}");
    assert!(!text.contains(NOTICE), "{text}");
    // The last of several lines, the ones before it entered and run.
    let text = send("echo x-$((1+1))\necho pend", false).await.text();
    assert!(text.contains("\nx-2\n"), "{text}");
    assert!(text.contains(NOTICE), "{text}");
    let text = send("ing-2", true).await.text();
    assert!(text.contains("pending-2"), "{text}");
    // A key a program reads at once (`read -n 1`) is not left on any line.
    let text = send(
        "read -n 1 -p 'Continue? ' a; read -n 1 -p 'Again? ' b",
        true,
    )
    .await
    .text();
    assert!(text.contains("Continue? "), "{text}");
    let text = send("y", false).await.text();
    assert!(text.contains("Again? "), "{text}");
    assert!(!text.contains(NOTICE), "{text}");
    let text = send("n", false).await.text();
    assert!(!text.contains(NOTICE), "{text}");
    // A line reader in a child process (a script's `read`, python's `input()`) too.
    send("bash -c 'read -p \"Value: \" v; echo \"v=$v\"'", true).await;
    let text = send("val", false).await.text();
    assert!(text.contains(NOTICE), "{text}");
    let text = send("ue", true).await.text();
    assert!(text.contains("v=value"), "{text}");
    assert!(!text.contains(NOTICE), "{text}");
    // And a REPL's line.
    send("python3 -q", true).await;
    let text = send("x = 41", false).await.text();
    assert!(text.contains(NOTICE), "{text}");
    send("", true).await;
    send("exit()", true).await;
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// Text sent without Enter that is on the shell's own line once the command before it ended,
/// whose exit this result shows, is said to wait there, as the shell's line and not that
/// program's: held while `sleep` ran and typed once the prompt was back, typed at the prompt
/// after a SIGINT ended a command.
/// The next send goes on with it, or Ctrl-U erases it as the notice says.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_on_the_shell_line_after_a_command_ended_is_said_to_wait_there() {
    const AT_SHELL: &str = "[input: sent without Enter, and the command before it has ended";
    let (host, agent) = Host::with_open_shell().await;
    let send = |text: &str, submit: bool, timeout_ms: u64| {
        host.call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": text, "submit": submit, "timeoutMs": timeout_ms}),
        )
    };
    {
        let text = send("sleep 2", true, 300).await.text();
        assert!(text.contains("[wait: timeout]"), "{text}");
        let text = send("echo pend", false, 15_000).await.text();
        assert!(text.contains("dsh> echo pend\n"), "{text}");
        assert!(
            text.contains("[earlier commands in this output exited"),
            "{text}"
        );
        assert!(!text.contains(NOTICE), "{text}");
        let notice = text.lines().find(|l| l.starts_with(AT_SHELL));
        insta::assert_snapshot!("typed_at_shell_after_exit", notice.unwrap_or(&text));
        let text = send("ing", true, 15_000).await.text();
        assert!(text.contains("\npending\n"), "{text}");
        assert!(text.contains("[exit: 0]"), "{text}");
    }
    // A command a signal ended: a key meant for it waits on the shell's line.
    let text = send("sleep 100", true, 300).await.text();
    assert!(text.contains("[wait: timeout]"), "{text}");
    host.call(
        &agent,
        "terminal_signal",
        json!({"sessionId": "pty-1", "signal": "SIGINT"}),
    )
    .await;
    let text = send("q", false, 15_000).await.text();
    assert!(text.contains(AT_SHELL), "{text}");
    // Ctrl-U erases it: the next command runs alone.
    send("\u{15}", false, 15_000).await;
    let text = send("echo alone", true, 15_000).await.text();
    assert!(text.contains("\nalone\n"), "{text}");
    assert!(!text.contains("qecho"), "{text}");
    finish(host, &agent).await;
}

/// A program waiting at a "press Enter to continue" prompt: the result says to send Enter
/// first; once answered, for a prompt for a value that says to press Enter after it, for a
/// finished command that printed such a line, and for a key read (which has its own notice),
/// it does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_press_enter_prompt_says_to_send_enter_first() {
    const PRESS_ENTER: &str = "[input: the program waits at its \"press Enter\" prompt";
    let (host, agent) = Host::with_open_shell().await;
    for prompt in [
        "Press ENTER or type command to continue",
        "Press any key...",
        "Hit any key to continue",
    ] {
        let text = send_line(
            &host,
            &agent,
            &format!("read -r -p '{prompt}' x; echo \"went on\""),
        )
        .await
        .text();
        let notice = text.lines().find(|l| l.starts_with(PRESS_ENTER));
        insta::assert_snapshot!("press_enter", notice.unwrap_or(&text));
        let text = send_line(&host, &agent, "").await.text();
        assert!(text.contains("went on"), "{text}");
        assert!(!text.contains(PRESS_ENTER), "{text}");
    }
    // A prompt for a value that says how to end it asks for text: no such notice.
    let text = send_line(
        &host,
        &agent,
        "read -r -p 'Type a word and press Enter: ' x; echo \"got=$x\"",
    )
    .await
    .text();
    assert!(!text.contains(PRESS_ENTER), "{text}");
    let text = send_line(&host, &agent, "hello").await.text();
    assert!(text.contains("got=hello"), "{text}");
    let text = send_line(&host, &agent, "echo 'press enter to continue'")
        .await
        .text();
    assert!(text.contains("[exit: 0]"), "{text}");
    assert!(!text.contains(PRESS_ENTER), "{text}");
    // A key read (`read -s -n 1`) says only to send the key without Enter.
    let text = send_line(
        &host,
        &agent,
        "read -s -n 1 -p 'Press any key ' k; echo went-on",
    )
    .await
    .text();
    assert!(
        text.contains("[input: the program reads single keys"),
        "{text}"
    );
    assert!(!text.contains(PRESS_ENTER), "{text}");
    let text = send_line(&host, &agent, "").await.text();
    assert!(text.contains("went-on"), "{text}");
    finish(host, &agent).await;
}

/// Several statements at the Python REPL's primary prompt run as a file would run them (an
/// empty line inside a block, none after one); lines the REPL still rejects for its block
/// rules (sent at its continuation prompt) get a notice saying how to send them; a one-line
/// error does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_repl_block_rules_are_explained_when_they_reject_a_block() {
    const BLOCKS: &str = "[input: the Python REPL ends a block at its first blank line";
    let (host, agent) = Host::with_open_shell().await;
    send_line(&host, &agent, "python3 -q").await;
    for (text, rejected, shows) in [
        (
            "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\nprint(A().g() * 21)\n",
            false,
            "42",
        ),
        ("if True:\n    x = 1\nprint('after', x)\n", false, "after 1"),
        ("def h():\n    return 3\n\nprint(h())\n", false, "3"),
        // A compound statement on one line, a comment at column 0 inside a block, a
        // decorator whose arguments span lines.
        (
            "for i in range(2): print('ol', i)\nprint('next')",
            false,
            "next",
        ),
        (
            "def c():\n    v = 4\n# note\n    return v\nprint(c())",
            false,
            "4",
        ),
        (
            "def deco(*a):\n    return lambda fn: lambda: fn() * 2\n@deco(\n    1\n)\ndef d():\n    return 5\nprint(d())",
            false,
            "10",
        ),
        ("print(1 +)", false, "SyntaxError"),
        // A typo in a block's first line: the lines after it fail for that alone; one in an
        // indented line is a typo too.
        (
            "def f(:\n    return 1\nprint(2)",
            false,
            "SyntaxError: invalid syntax",
        ),
        (
            "def f(x):\n    return x +\n",
            false,
            "SyntaxError: invalid syntax",
        ),
        (
            "def g():\n    y = 1\n\n    retrun y\nprint(9)",
            false,
            "SyntaxError: invalid syntax",
        ),
        // Shell lines sent to the REPL by mistake: no block, so no word about blocks.
        ("sleep 3\necho a\necho b", false, "SyntaxError"),
        // A block that ran, then ordinary lines that fail on their own: no block's doing.
        (
            "def g3(n):\n    v = n\n\n    return v * 2\n\nprint(g3(21))\nzed\nhello world",
            false,
            "SyntaxError",
        ),
        ("if x:", false, "..."),
        // The rest of the block left open, with a blank line inside: its blank lines are left
        // out, so the block goes on and ends, as in a file.
        ("    y = 1\n\n    z = 2\n", false, ">>>"),
    ] {
        let result = send_line(&host, &agent, text).await.text();
        assert!(
            result
                .lines()
                .any(|l| l.trim() == shows || l.starts_with(shows)),
            "{text:?}: {result}"
        );
        let notice = result.lines().find(|l| l.starts_with(BLOCKS));
        assert_eq!(notice.is_some(), rejected, "{text:?}: {result}");
        if let Some(notice) = notice {
            insta::assert_snapshot!("python_repl_blocks", notice);
        }
    }
    send_line(&host, &agent, "exit()").await;
    finish(host, &agent).await;
}

/// A full-screen program waiting for any key under a menu: the result says to send one key
/// without Enter (told to send Enter, the agent would have chosen from the menu), and one key
/// goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_screen_press_any_key_says_to_send_one_key() {
    let (host, agent) = Host::with_open_shell().await;
    let text = send_line(
        &host,
        &agent,
        "python3 -c \"import curses; s = curses.initscr(); curses.cbreak(); curses.noecho(); \
         s.addstr(0, 0, 'MENU: 1) alpha 2) beta'); s.addstr(2, 0, 'Press any key to exit'); \
         s.refresh(); k = s.getkey(); curses.endwin(); print('got', repr(k))\"",
    )
    .await
    .text();
    let notice = text
        .lines()
        .find(|l| l.starts_with("[input: the full-screen program waits for a key"));
    insta::assert_snapshot!("press_a_key", notice.unwrap_or(&text));
    assert!(!text.contains("\"press Enter\" prompt"), "{text}");
    let text = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "q", "submit": false}),
        )
        .await
        .text();
    assert!(text.contains("got 'q'"), "{text}");
    finish(host, &agent).await;
}

/// `terminal_send` of `text` with Enter to the test's session.
async fn send_line(host: &Host, agent: &dsh_context::Agent, text: &str) -> dsh_tools::ToolResult {
    host.call(
        agent,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": text}),
    )
    .await
}

/// Closes the test's session and shuts the host down.
async fn finish(host: Host, agent: &dsh_context::Agent) {
    host.call(agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}
