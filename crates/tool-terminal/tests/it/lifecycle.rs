//! The full lifecycle through the registry against real bash (seed §8 items 89, 105), owner
//! isolation, and bad input against a live session.

use dsh_context::Agent;
use dsh_tool_terminal::ToolTerminalConfig;
use serde_json::json;

use crate::support::{Host, fast_bash, read_args_of};

fn pid_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // A zombie is dead; it only waits to be reaped.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_send_read_signal_close_list() {
    let host = Host::new(ToolTerminalConfig::default(), Some(fast_bash()));
    let agent = host.agent("a");

    let open = host
        .call(
            &agent,
            "terminal_open",
            json!({"type": "shell", "name": "main", "cwd": "/"}),
        )
        .await;
    assert!(!open.is_error, "{}", open.text());
    assert!(
        open.text()
            .starts_with("started terminal session pty-1 (main) [type: shell]\n"),
        "{}",
        open.text()
    );
    let structured = open.structured.clone().unwrap();
    assert_eq!(structured["sessionId"], "pty-1");
    assert_eq!(structured["status"]["kind"], "running");
    let pid = structured["pid"].as_u64().unwrap() as u32;

    let list = host.call(&agent, "terminal_list", json!({})).await;
    assert_eq!(
        list.text(),
        format!("pty-1 (main) [shell] running pid={pid}")
    );

    let r = host.send(&agent, "pty-1", "export KEEP=loader; cd /").await;
    assert!(
        r.text()
            .contains("[wait: stdin_read]\n[exit: 0]\n[session: running]"),
        "{}",
        r.text()
    );
    let r = host
        .send(
            &agent,
            "pty-1",
            "printf 'cwd=%s keep=%s\\n' \"$PWD\" \"$KEEP\"",
        )
        .await;
    assert!(r.text().contains("cwd=/ keep=loader"), "{}", r.text());
    assert_eq!(r.structured.as_ref().unwrap()["exitCode"], 0);

    let read = host
        .call(
            &agent,
            "terminal_read",
            json!({"sessionId": "pty-1", "count": 5}),
        )
        .await;
    assert!(read.text().contains("cwd=/ keep=loader"), "{}", read.text());
    assert!(read.text().contains("[lines: 0-"), "{}", read.text());

    // C22: nothing runs in the foreground: a clean result, not an error.
    let sig = host.signal(&agent, "pty-1", "SIGINT").await;
    assert!(!sig.is_error, "{}", sig.text());
    assert!(
        sig.text()
            .starts_with("nothing is running in the foreground"),
        "{}",
        sig.text()
    );
    assert_eq!(sig.structured.as_ref().unwrap()["delivered"], false);
    let after = host.send(&agent, "pty-1", "echo still-here").await;
    assert!(after.text().contains("still-here\n"), "{}", after.text());
    assert!(!after.text().contains("^C"), "{}", after.text());

    // A loop of the shell's own runs in the shell itself: the signal says so, and stops it.
    let busy = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "while :; do :; done", "timeoutMs": 300}),
        )
        .await;
    assert!(!busy.is_error, "{}", busy.text());
    let sig = host.signal(&agent, "pty-1", "SIGINT").await;
    assert!(!sig.is_error, "{}", sig.text());
    assert_eq!(sig.structured.as_ref().unwrap()["shellRanCommand"], true);
    assert!(
        sig.text().contains("running a command of its own"),
        "{}",
        sig.text()
    );
    let after = host.send(&agent, "pty-1", "echo loop-stopped").await;
    assert!(after.text().contains("loop-stopped\n"), "{}", after.text());

    let close = host
        .call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    assert!(
        close
            .text()
            .starts_with("closed terminal session pty-1 [stopped "),
        "{}",
        close.text()
    );
    assert!(pid_gone(pid), "shell {pid} survived close");
    let list = host.call(&agent, "terminal_list", json!({})).await;
    assert_eq!(list.text(), "(no terminal sessions)");
    let again = host
        .call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    assert!(
        again.is_error && again.text().contains("unknown PTY session pty-1"),
        "{}",
        again.text()
    );
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_agent_cannot_reach_a_session_even_with_the_same_id() {
    let host = Host::new(ToolTerminalConfig::default(), Some(fast_bash()));
    let owner = host.agent("same-id");
    let other = host.agent("same-id");
    let open = host
        .call(&owner, "terminal_open", json!({"type": "shell"}))
        .await;
    assert!(!open.is_error, "{}", open.text());
    assert_eq!(
        host.call(&other, "terminal_list", json!({})).await.text(),
        "(no terminal sessions)"
    );
    for (tool, args) in [
        (
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "echo hijack"}),
        ),
        ("terminal_read", json!({"sessionId": "pty-1"})),
        (
            "terminal_signal",
            json!({"sessionId": "pty-1", "signal": "SIGTERM"}),
        ),
        ("terminal_close", json!({"sessionId": "pty-1"})),
    ] {
        let r = host.call(&other, tool, args).await;
        assert!(r.is_error, "{tool}: {}", r.text());
        assert!(
            r.text().contains("belongs to another agent"),
            "{tool}: {}",
            r.text()
        );
    }
    let r = host.send(&owner, "pty-1", "echo mine").await;
    assert!(r.text().contains("mine\n"), "{}", r.text());
    // Disposing the owner closes its sessions.
    let pid = open.structured.unwrap()["pid"].as_u64().unwrap() as u32;
    owner.dispose().await;
    assert!(pid_gone(pid));
    assert_eq!(host.terminals.session_count(), 0);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_bytes_and_exit_keep_the_contract() {
    let (host, agent) = Host::with_open_shell().await;
    // Control characters are delivered as typed, never crash the host (a NUL is refused: see
    // `bad_input`).
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "echo a\u{1}b\u{7}c", "submit": true}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    let r = host.send(&agent, "pty-1", "echo ok").await;
    assert!(r.text().contains("ok\n"), "{}", r.text());
    assert!(!r.text().contains('\u{1b}'));
    // C09 through the tools: exit reports session_exit at once; later sends get a clear error.
    let r = host.send(&agent, "pty-1", "exit 3").await;
    assert!(
        r.text()
            .ends_with("[wait: session_exit]\n[session: exited code=3 signal=null]"),
        "{}",
        r.text()
    );
    let list = host.call(&agent, "terminal_list", json!({})).await;
    assert!(
        list.text().contains("exited code=3 signal=null"),
        "{}",
        list.text()
    );
    let r = host.send(&agent, "pty-1", "echo hi").await;
    assert!(r.is_error, "{}", r.text());
    insta::assert_snapshot!("error_session_exited", r.text());
    // The output stays readable until the session is closed.
    let read = host
        .call(&agent, "terminal_read", json!({"sessionId": "pty-1"}))
        .await;
    assert!(!read.is_error, "{}", read.text());
    let close = host
        .call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    assert!(!close.is_error, "{}", close.text());
    host.shutdown().await;
}

/// A host whose results are capped at `max_result_bytes`, with an agent that has opened a
/// shell (`pty-1`).
async fn shell_with_cap(max_result_bytes: usize) -> (Host, Agent) {
    let host = Host::new(
        ToolTerminalConfig {
            max_result_bytes,
            ..ToolTerminalConfig::default()
        },
        Some(fast_bash()),
    );
    let agent = host.agent("a");
    host.call(&agent, "terminal_open", json!({"type": "shell"}))
        .await;
    (host, agent)
}

/// A page that fits a small cap whole is shown whole, with no room kept for a pointer to
/// older lines it does not need.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_fits_a_small_cap_is_shown_whole() {
    let (host, agent) = shell_with_cap(64).await;
    host.send(&agent, "pty-1", "echo x").await;
    let page = host
        .call(&agent, "terminal_read", json!({"sessionId": "pty-1"}))
        .await;
    assert!(!page.is_error, "{}", page.text());
    assert_eq!(page.text(), "dsh> echo x\nx\ndsh> \n[lines: 0-3 of 3]");
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// Under a cap too small for a line beside the `older` pointer, the send's own paging
/// arguments still get lines, without the pointer in the text (the structured result keeps
/// it): each page's footer says where the next one starts, and following the footers pages
/// every line once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tiny_cap_pages_lines_without_the_older_pointer() {
    const CAP: usize = 100;
    let (host, agent) = shell_with_cap(CAP).await;
    let r = host.send(&agent, "pty-1", "seq 1 50").await;
    let structured = r.structured.unwrap();
    let mut args = structured["omitted"]["terminalRead"].clone();
    assert!(args.is_object(), "{structured}");
    let total = args["count"].as_u64().unwrap();
    let mut lines: Vec<String> = Vec::new();
    for _ in 0..100 {
        let page = host.call(&agent, "terminal_read", args.clone()).await;
        let text = page.text();
        assert!(text.len() <= CAP, "{text}");
        let footer = text
            .lines()
            .find(|l| l.starts_with("[lines: "))
            .unwrap_or_else(|| panic!("{text}"));
        // Pages asked for by `fromLine` count in its numbers; the newest-relative range is the
        // structured result's.
        let range = footer
            .trim_start_matches("[lines: ")
            .trim_start_matches("fromLine ");
        let (shown_begin, rest) = range.split_once('-').unwrap();
        let shown_end: u64 = rest.split(' ').next().unwrap().parse().unwrap();
        let shown_begin: u64 = shown_begin.parse().unwrap();
        let structured = page.structured.as_ref().unwrap();
        let (begin, end) = (
            structured["lineBegin"].as_u64().unwrap(),
            structured["lineEnd"].as_u64().unwrap(),
        );
        assert!(end > begin, "no line on the page: {text}");
        assert_eq!(shown_end - shown_begin, end - begin, "{text}");
        if args.get("fromLine").is_some() {
            assert_eq!(
                structured["firstLine"].as_u64(),
                Some(shown_begin),
                "{text}"
            );
        }
        let body: Vec<String> = text
            .lines()
            .take_while(|l| !l.starts_with("[lines: "))
            .map(str::to_owned)
            .collect();
        assert_eq!(body.len() as u64, end - begin, "{text}");
        lines.splice(0..0, body);
        let left = args["offset"].as_u64().unwrap() + args["count"].as_u64().unwrap() - end;
        // The structured result keeps the pointer the text has no room for.
        assert!(!text.contains("[older lines"), "{text}");
        let older = &page.structured.as_ref().unwrap()["older"];
        if left > 0 {
            assert_eq!(
                (older["offset"].as_u64(), older["count"].as_u64()),
                (Some(end), Some(left)),
                "{older}"
            );
        } else {
            assert!(older.is_null(), "{older}");
        }
        if left == 0 {
            break;
        }
        args = json!({"sessionId": "pty-1", "offset": end, "count": left});
    }
    assert_eq!(lines.len() as u64, total, "{lines:?}");
    let expected: Vec<String> = (1..=50)
        .map(|i| i.to_string())
        .chain(["dsh> ".to_owned()])
        .collect();
    assert_eq!(
        lines[lines.len() - expected.len()..],
        expected[..],
        "{lines:?}"
    );
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// C15 at a small cap: the text and the structured content both stay within the cap, keep the
/// command line and the first lines as well as the newest output, each from a whole line on,
/// and say what was left out; the `terminal_read` arguments in the omission line page exactly
/// the left-out lines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flood_is_capped_in_text_and_structured_content() {
    let (host, agent) = shell_with_cap(2000).await;
    let r = host.send(&agent, "pty-1", "seq 1 5000").await;
    let text = r.text();
    assert!(text.len() <= 2000, "{} bytes", text.len());
    assert!(
        text.ends_with("[session: running]\n[output truncated]"),
        "{text}"
    );
    assert!(text.starts_with("seq 1 5000\n1\n2\n"), "{text}");
    assert!(text.contains("5000\ndsh> "), "{text}");
    let at = text.find("\n[… ").expect("an omission line") + 1;
    let last_before: u32 = text[..at].lines().last().unwrap().parse().unwrap();
    let omission = text[at..].lines().next().unwrap();
    let first_after: u32 = text[at..].lines().nth(1).unwrap().parse().unwrap();
    let structured = r.structured.unwrap();
    assert!(structured["viewport"].as_str().unwrap().len() <= 2000);
    assert_eq!(structured["truncated"], true);
    let omitted = &structured["omitted"];
    assert_eq!(
        omitted["lines"].as_u64().unwrap(),
        u64::from(first_after - last_before - 1)
    );
    let read = omitted["terminalRead"].clone();
    // The omission line carries the same arguments (by line number), as JSON the model can
    // pass on.
    let args = read_args_of(omission).expect("arguments in the omission line");
    let mut by_number = read.clone();
    by_number.as_object_mut().unwrap().remove("offset");
    assert_eq!(args, by_number, "{omission}");
    assert!(args["fromLine"].is_u64(), "{omission}");
    // The pointer pages exactly the left-out lines.
    let page = host.call(&agent, "terminal_read", read).await;
    let page = page.text();
    let numbers: Vec<u32> = page
        .lines()
        .take_while(|l| !l.starts_with("[lines:"))
        .map(|l| l.parse().expect("a number"))
        .collect();
    let kept_newest = numbers.len();
    assert_eq!(numbers.last(), Some(&(first_after - 1)), "{page}");
    assert!(
        numbers.windows(2).all(|w| w[1] == w[0] + 1),
        "consecutive: {page}"
    );
    // The page is bounded by the same cap: it holds the newest of the left-out lines; from the
    // front it starts right after the kept head when it fits.
    if !page.contains("[output truncated]") {
        assert_eq!(numbers.first(), Some(&(last_before + 1)), "{page}");
    }
    assert!(kept_newest > 0);
    // After more output, the omission line's arguments page the same lines.
    host.send(&agent, "pty-1", "seq 1 30").await;
    let again = host.call(&agent, "terminal_read", args).await;
    let body = |text: &str| -> Vec<String> {
        text.lines()
            .take_while(|l| !l.starts_with("[lines:"))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(body(&again.text()), body(&page), "after more output");
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// `seq 1 300000` at the default budget comes back within 32 KiB, with its command line and
/// first lines (kept while the send ran, though the scrollback no longer holds them) and the
/// newest ones around an omission line that says how many lines are gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_listing_fits_the_default_budget() {
    let (host, agent) = Host::with_open_shell().await;
    // A loaded machine may need longer than the fixture's timeout for this much output.
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "seq 1 300000", "timeoutMs": 50_000}),
        )
        .await;
    let text = r.text();
    assert!(text.len() <= 32 * 1024, "{} bytes", text.len());
    assert!(text.starts_with("seq 1 300000\n1\n2\n3\n"), "{text}");
    assert!(
        text.contains(" of them no longer retained (the output outgrew the scrollback); page the rest with terminal_read {"),
        "{text}"
    );
    assert!(text.ends_with("\n[output truncated]"), "{text}");
    if text.contains("[wait: stdin_read]") {
        assert!(
            text.contains("\n300000\ndsh> \n[wait: stdin_read]"),
            "{text}"
        );
        assert!(text.contains("\n[exit: 0]"), "{text}");
    }
    let structured = r.structured.unwrap();
    assert!(structured["viewport"].as_str().unwrap().len() <= 32 * 1024);
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// Short lines outgrow the scrollback's row bound long before the result's byte bound: the
/// viewport alone fits, yet the command line and first lines are kept and the omission line
/// says how many lines are gone (a line repeated shows once with its count).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn short_lines_that_outgrow_the_scrollback_keep_their_first_lines() {
    let (host, agent) = Host::with_open_shell().await;
    let command = "seq 1 12000 | sed 's/.*/ab/'; echo end-$((6*7))";
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": command, "timeoutMs": 50_000}),
        )
        .await;
    let text = r.text();
    assert!(text.len() <= 32 * 1024, "{} bytes", text.len());
    // The first lines are one line repeated: shown once, with how many times it repeats.
    assert!(
        text.starts_with(&format!("{command}\nab\n[… the line above repeats ")),
        "{text:.300}"
    );
    let omission = text
        .lines()
        .find(|l| l.starts_with("[… about "))
        .unwrap_or_else(|| panic!("no omission line: {text:.300}"));
    assert!(omission.contains("no longer retained"), "{omission}");
    assert!(text.contains("\nend-42\ndsh> "), "{text:.300}");
    let structured = r.structured.unwrap();
    assert!(
        structured["omitted"]["notRetainedLines"].as_u64() > Some(0),
        "{structured}"
    );
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A heredoc writing a 300-line file echoes every line after the shell's `> ` prompt: the
/// text result shows the echo's ends around a count and all of what the commands printed;
/// the structured viewport keeps every line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_heredoc_echo_is_folded_in_the_text() {
    let (host, agent) = Host::with_open_shell().await;
    let rows: Vec<String> = (1..=300).map(|i| format!("row {i}: some data")).collect();
    let command = format!(
        "d=$(mktemp -d)\ncat > \"$d/f.txt\" <<'EOF'\n{}\nEOF\nwc -l < \"$d/f.txt\"; rm -r \"$d\"",
        rows.join("\n")
    );
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": command, "timeoutMs": 50_000}),
        )
        .await;
    let text = r.text();
    assert!(
        text.contains("\n> row 2: some data\n[… 297 more lines echoing the text this send typed]\n> row 300: some data\n> EOF\ndsh> wc -l"),
        "{text}"
    );
    assert!(text.contains("\n300\n"), "{text}");
    assert!(text.len() < 2048, "{} bytes: {text}", text.len());
    let structured = r.structured.unwrap();
    let viewport = structured["viewport"].as_str().unwrap();
    assert!(
        viewport.contains("> row 150: some data\n"),
        "{viewport:.300}"
    );
    // A program's output that repeats the text with changes is never folded (a breaker's).
    let lines: Vec<String> = (0..30).map(|i| format!("line {i}")).collect();
    let sed = format!(
        "sed 's/^line 15$/QQQQ/;s/^line 7$/WWWW/' <<'EOF'\n{}\nEOF",
        lines.join("\n")
    );
    let text = host.send(&agent, "pty-1", &sed).await.text();
    assert!(text.contains("[… 27 more lines echoing"), "{text}");
    assert!(
        text.contains("\nline 6\nWWWW\nline 8\n") && text.contains("\nQQQQ\nline 16\n"),
        "{text}"
    );
    // TABs inside the lines, which bash's line editor shows as spaces, still fold.
    let tabbed: Vec<String> = (0..30).map(|i| format!("row {i}\tcol\t{i}")).collect();
    let cat = format!("cat <<'EOF' | wc -l\n{}\nEOF", tabbed.join("\n"));
    let text = host.send(&agent, "pty-1", &cat).await.text();
    assert!(text.contains("[… 27 more lines echoing"), "{text}");
    assert!(text.contains("\n30\n"), "{text}");
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A send may ask for its own deadline with `timeoutMs`, up to the server's cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_ms_sets_one_sends_deadline_within_the_cap() {
    let host = Host::new(
        ToolTerminalConfig {
            max_send_timeout_ms: 60_000,
            ..ToolTerminalConfig::default()
        },
        Some(fast_bash()),
    );
    let agent = host.agent("a");
    host.call(&agent, "terminal_open", json!({"type": "shell"}))
        .await;
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "sleep 2; echo done", "timeoutMs": 500}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    assert!(r.text().contains("[wait: timeout]"), "{}", r.text());
    assert!(!r.text().contains("\ndone\n"), "{}", r.text());
    // The command kept running: the next send finds its output and the prompt.
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "", "submit": false, "timeoutMs": 20_000}),
        )
        .await;
    assert!(r.text().contains("done"), "{}", r.text());
    for (value, expected) in [
        (
            json!(60_001),
            "timeoutMs is 60001, above this server's cap of 60000 ms",
        ),
        (json!(0), "\"timeoutMs\" must be >= 1"),
        // Past u64: refused as such, not read as the largest u64 (and quoted as that).
        (
            json!(1e30),
            "Error: invalid arguments: \"timeoutMs\" is above the largest integer this server reads (18446744073709551615)",
        ),
    ] {
        let r = host
            .call(
                &agent,
                "terminal_send",
                json!({"sessionId": "pty-1", "text": "echo no", "timeoutMs": value}),
            )
            .await;
        assert!(r.is_error, "{}", r.text());
        assert!(r.text().contains(expected), "{}", r.text());
    }
    // Refused sends wrote nothing.
    let r = host.send(&agent, "pty-1", "echo yes").await;
    assert_eq!(r.text().lines().next(), Some("echo yes"), "{}", r.text());
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}
