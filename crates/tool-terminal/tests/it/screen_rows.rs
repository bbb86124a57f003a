//! Which screen rows a send's result shows, against real bash: a full-screen program's blank
//! top rows stay; rows an earlier command left below the cursor (it moved the cursor up
//! without clearing) are not a later send's output; the echo of typed TABs is TABs.

use serde_json::json;

use crate::support::Host;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_screen_programs_blank_top_rows_stay_in_the_result() {
    if !crate::support::installed("less") {
        eprintln!("less is not installed (.ci/run installs it): not exercised");
        return;
    }
    let (host, agent) = Host::with_open_shell().await;
    // `less` shows a file whose first three lines are empty on the alternate screen. It draws
    // from where the cursor is (entering the alternate screen keeps the cursor, as xterm and
    // tmux do): the row below the command line, so four blank rows come first.
    let r = host
        .send(&agent, "pty-1", "printf '\\n\\n\\nfourth line\\n' | less")
        .await;
    let text = r.text();
    assert!(text.starts_with("\n\n\n\nfourth line\n"), "{text:?}");
    // A page while it is up says whose screen the newest lines are; once it exits, not.
    let read = |count: u64| {
        host.call(
            &agent,
            "terminal_read",
            json!({"sessionId": "pty-1", "count": count}),
        )
    };
    const ALTERNATE: &str = "[screen: a full-screen program holds the terminal;";
    let page = read(10).await;
    assert!(page.text().contains("fourth line"), "{}", page.text());
    assert!(page.text().contains(ALTERNATE), "{}", page.text());
    let structured = page.structured.clone().unwrap_or_default();
    assert_eq!(structured["alternateScreen"], true, "{structured:?}");
    host.call(
        &agent,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "q", "submit": false}),
    )
    .await;
    let page = read(10).await;
    assert!(!page.text().contains(ALTERNATE), "{}", page.text());
    let structured = page.structured.clone().unwrap_or_default();
    assert!(
        structured.get("alternateScreen").is_none(),
        "{structured:?}"
    );
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_left_below_the_cursor_are_not_a_later_sends_output() {
    let (host, agent) = Host::with_open_shell().await;
    for text in [
        "for i in $(seq 1 12); do echo old-line-$i-xxxxxxxxxxxxxxxxxxxx; done",
        "tput cup 0 0 2>/dev/null || printf '\\033[H'; echo TOP",
    ] {
        host.call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": text}),
        )
        .await;
    }
    let r = host.send(&agent, "pty-1", "echo hello").await;
    let text = r.text();
    let body: Vec<&str> = text
        .lines()
        .take_while(|l| !l.starts_with("[wait:"))
        .collect();
    assert_eq!(body.first(), Some(&"echo hello"), "{text}");
    assert!(body.len() <= 3, "{text}");
    assert!(
        body.last()
            .is_some_and(|l| l.ends_with("$ ") || l.ends_with("> ")),
        "{text}"
    );
    assert!(!text.contains("old-line-1"), "{text}");
    assert!(!text.contains("TOP"), "{text}");
    assert!(text.contains("[exit: 0]"), "{text}");
    // The prompt came back below the old rows, so `hello` went on a fresh row: no older text
    // is mixed in, and no notice says so.
    assert_eq!(body, ["echo hello", "hello", "dsh> "], "{text}");
    assert!(!text.contains("[screen: "), "{text}");
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A heredoc with TABs (a Makefile recipe, a TSV line): the shell's line editor echoes each
/// TAB as spaces, and the result's text shows the lines as typed, TABs and all, like the
/// file's own TABs that `cat` prints; the structured viewport keeps the screen as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_tabs_come_back_as_tabs_in_their_echo() {
    let (host, agent) = Host::with_open_shell().await;
    let r = host
        .send(
            &agent,
            "pty-1",
            "f=$(mktemp); cat > \"$f\" <<'EOF'\nall:\n\techo built\nname\tqty\nEOF\ncat \"$f\"; rm \"$f\"",
        )
        .await;
    let text = r.text();
    assert!(text.contains("\n> \techo built\n"), "{text:?}");
    assert!(text.contains("\n> name\tqty\n"), "{text:?}");
    // The file's own lines, as cat printed them.
    assert!(
        text.contains("\nall:\n\techo built\nname\tqty\ndsh> "),
        "{text:?}"
    );
    let structured = r.structured.clone().unwrap_or_default();
    let viewport = structured["viewport"].as_str().unwrap_or_default();
    assert!(viewport.contains("\n>       echo built\n"), "{viewport:?}");
    // The command line's own TAB too.
    let r = host.send(&agent, "pty-1", "echo \"a\tb\" | cat -A").await;
    assert!(
        r.text().starts_with("echo \"a\tb\" | cat -A\na^Ib$\n"),
        "{:?}",
        r.text()
    );
    host.shutdown().await;
}
