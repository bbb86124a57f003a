//! A single line longer than the result budget keeps its start and end around a marker that
//! counts the bytes cut from its middle, in a send's result and in `terminal_read`.

use serde_json::json;

use dsh_context::Agent;

use crate::support::Host;

/// Sends a command printing one line of `start`, `n` times `fill` and `END` in the session
/// `pty-1`; returns the send's text.
async fn print_line(host: &Host, agent: &Agent, n: usize, fill: char) -> String {
    let command =
        format!("printf 'start'; head -c {n} /dev/zero | tr '\\0' {fill}; printf 'END\\n'");
    send(host, agent, &command).await
}

/// Sends `command` in the session `pty-1` (30 s to settle); returns the send's text.
async fn send(host: &Host, agent: &Agent, command: &str) -> String {
    let r = host
        .call(
            agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": command, "timeoutMs": 30_000}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    r.text()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_over_the_budget_keeps_its_start_and_end() {
    let (host, agent) = Host::with_open_shell().await;
    let text = print_line(&host, &agent, 100_000, 'x').await;
    assert_cut_line(&text);
    assert!(text.contains("\ndsh> \n[wait: stdin_read]"), "{text:.300}");
    assert!(text.contains("only part of it is shown"), "{text:.300}");
    // terminal_read cannot page inside a line: it keeps the line's start and end too.
    let r = host
        .call(&agent, "terminal_read", json!({"sessionId": "pty-1"}))
        .await;
    let text = r.text();
    assert_cut_line(&text);
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A line longer than the scrollback keeps (4 MiB) has lost its start: `terminal_read`
/// shows its end after a marker that counts at least the bytes left out, not a start it no
/// longer has.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_whose_start_the_scrollback_dropped_says_at_least() {
    let (host, agent) = Host::with_open_shell().await;
    print_line(&host, &agent, 5_000_000, 'w').await;
    let r = host
        .call(
            &agent,
            "terminal_read",
            json!({"sessionId": "pty-1", "offset": 1, "count": 1}),
        )
        .await;
    let text = r.text();
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("[… at least ") && first.contains(" bytes of this line omitted; "),
        "{first:.300}"
    );
    assert!(first.ends_with("wwwEND"), "{first:.300}");
    assert!(!text.contains("startwww"), "{text:.300}");
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// `text` is within the default budget and holds the long line's start and end around the cut.
fn assert_cut_line(text: &str) {
    assert!(text.len() <= 32 * 1024, "{} bytes", text.len());
    let line = text
        .lines()
        .find(|l| l.starts_with("startxxx"))
        .unwrap_or_else(|| panic!("no kept line start: {text:.300}"));
    assert!(line.ends_with("xxxEND"), "{line:.100}");
    assert!(
        line.contains(" bytes of this line omitted; "),
        "{line:.100}"
    );
}

/// A line longer than a quarter of the budget comes back whole from `terminal_read` when the
/// page fits: cutting is for pages that do not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_line_in_a_page_that_fits_is_read_whole() {
    let (host, agent) = Host::with_open_shell().await;
    print_line(&host, &agent, 20_000, 'y').await;
    let r = host
        .call(
            &agent,
            "terminal_read",
            json!({"sessionId": "pty-1", "count": 3}),
        )
        .await;
    let text = r.text();
    let whole = format!("start{}END", "y".repeat(20_000));
    assert!(text.lines().any(|l| l == whole), "{text:.300}");
    assert!(!text.contains("bytes of this line omitted"), "{text:.300}");
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A page that does not fit pages fewer lines, whole, with the pointer to the older ones,
/// rather than cutting each long line: four lines of 9,004 bytes against 32 KiB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_long_lines_pages_fewer_lines_whole() {
    let (host, agent) = Host::with_open_shell().await;
    let command = "for i in 1 2 3 4; do printf \"L$i\"; head -c 9000 /dev/zero | tr '\\0' z; \
                   printf 'END\\n'; done";
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": command, "timeoutMs": 30_000}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    let r = host
        .call(&agent, "terminal_read", json!({"sessionId": "pty-1"}))
        .await;
    let text = r.text();
    assert!(text.len() <= 32 * 1024, "{}", text.len());
    assert!(!text.contains("bytes of this line omitted"), "{text:.300}");
    let whole = |n: u32| format!("L{n}{}END", "z".repeat(9000));
    assert!(text.lines().any(|l| l == whole(4)), "{text:.300}");
    assert!(
        text.contains("terminal_read"),
        "a pointer to the older lines: {text:.300}"
    );
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A long one-line command comes back with its echo cut around a count (the terminal shows
/// the whole line again after the prompt), its output whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_command_lines_echo_keeps_its_ends() {
    let (host, agent) = Host::with_open_shell().await;
    let args: String = (0..1500).map(|i| format!(" a{i:04}")).collect();
    let text = send(&host, &agent, &format!("echo{args} | wc -w")).await;
    assert!(
        text.contains("more bytes echoing the line this send typed]"),
        "{text:.600}"
    );
    assert!(text.contains("a1499 | wc -w\n1500\ndsh> "), "{text:.600}");
    assert!(text.len() < 1000, "{} bytes: {text:.600}", text.len());
    // Also one longer than the result's cap: its echo is not cut as output (with advice to
    // run it again into a file) and nothing is said to be truncated.
    let args: String = (0..6000).map(|i| format!(" a{i:04}")).collect();
    let text = send(&host, &agent, &format!("echo{args} | wc -w")).await;
    assert!(text.contains("a5999 | wc -w\n6000\ndsh> "), "{text:.600}");
    assert!(
        text.contains("more bytes echoing the line this send typed]"),
        "{text:.600}"
    );
    assert!(!text.contains("truncated"), "{text:.600}");
    assert!(!text.contains("bytes of this line omitted"), "{text:.600}");
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}
