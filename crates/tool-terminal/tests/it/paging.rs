//! Paging what a send left out: the omission line's `terminal_read` arguments, then each
//! page's `older` arguments, give every left-out line exactly once, and each rendered page
//! holds exactly the lines its footer counts.

use dsh_terminal_bash::BashConfig;
use dsh_tool_terminal::ToolTerminalConfig;
use serde_json::{Value, json};

use crate::support::{Host, fast_bash, read_args_of};

/// The `{…}` arguments after `terminal_read ` in `text`'s line that starts with `prefix`.
fn read_args(text: &str, prefix: &str) -> Option<Value> {
    read_args_of(text.lines().find(|l| l.starts_with(prefix))?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn following_the_pointers_pages_every_left_out_line_once() {
    let (host, agent) = Host::with_open_shell().await;
    // Short lines: a page of the left-out range fills the whole budget.
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "seq 1 20000", "timeoutMs": 60_000}),
        )
        .await;
    let text = r.text();
    let mut next = read_args(&text, "[…").unwrap_or_else(|| panic!("{text:.400}"));
    // The newest lines the send showed (after the omission line, before the prompt).
    let shown: Vec<u64> = text
        .lines()
        .skip_while(|l| !l.starts_with("[…"))
        .skip(1)
        .map_while(|l| l.parse().ok())
        .collect();
    let mut pages: Vec<Vec<u64>> = Vec::new();
    let mut calls = 0;
    loop {
        calls += 1;
        assert!(calls < 50, "too many pages");
        let page = host.call(&agent, "terminal_read", next.clone()).await;
        let page_text = page.text();
        assert!(page_text.len() <= 32 * 1024, "{} bytes", page_text.len());
        let numbers: Vec<u64> = page_text.lines().map_while(|l| l.parse().ok()).collect();
        // The footer counts exactly the lines shown.
        let footer = page_text
            .lines()
            .find(|l| l.starts_with("[lines: "))
            .unwrap_or_else(|| panic!("{page_text:.400}"));
        let range = footer
            .trim_start_matches("[lines: ")
            .trim_start_matches("fromLine ")
            .split(" of ")
            .next()
            .unwrap_or_default();
        let (begin, end) = range.split_once('-').unwrap_or_default();
        let (begin, end): (u64, u64) = (begin.parse().unwrap(), end.parse().unwrap());
        let body_lines = page_text
            .lines()
            .take_while(|l| !l.starts_with("[lines: "))
            .count() as u64;
        assert_eq!(end - begin, body_lines, "{footer}");
        pages.push(numbers);
        match read_args(&page_text, "[older lines of the range: ") {
            Some(args) => next = args,
            None => break,
        }
    }
    // Pages come newest first; each follows the next older one without a gap or a repeat,
    // and the newest page ends just before the lines the send showed.
    let mut all: Vec<u64> = pages.into_iter().rev().flatten().collect();
    all.extend(shown);
    let first = all[0];
    let expected: Vec<u64> = (first..=20000).collect();
    assert_eq!(all, expected);
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A `fromLine` range whose older part the scrollback dropped: the page starts at the oldest
/// line kept and says no page goes further back; it points at no older lines of the range
/// (they are gone: the pointer led to an error), and no truncation marker contradicts it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_range_partly_dropped_pages_from_the_oldest_line_kept_with_no_pointer_back() {
    let host = Host::new(
        ToolTerminalConfig::default(),
        Some(BashConfig {
            scrollback_lines: 1000,
            ..fast_bash()
        }),
    );
    let agent = host.agent("a");
    host.call(&agent, "terminal_open", json!({"type": "shell"}))
        .await;
    host.send(&agent, "pty-1", "seq -f 'A%06g' 1 3000").await;
    // The oldest line kept, as the error for a range wholly dropped names it.
    let gone = host
        .call(
            &agent,
            "terminal_read",
            json!({"sessionId": "pty-1", "fromLine": 1, "count": 5}),
        )
        .await;
    let said = gone.text();
    let oldest: u64 = said
        .split("the oldest line kept is ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    let page = host
        .call(
            &agent,
            "terminal_read",
            json!({"sessionId": "pty-1", "fromLine": oldest - 20, "count": 60}),
        )
        .await;
    let text = page.text();
    assert!(!page.is_error, "{text}");
    let lines: Vec<&str> = text.lines().take_while(|l| !l.starts_with('[')).collect();
    assert_eq!(lines.len(), 40, "{text}");
    assert!(!text.contains("[older lines of the range"), "{text}");
    assert!(
        text.contains("[lines: the page is whole and starts at the oldest line kept"),
        "{text}"
    );
    assert!(!text.contains("[output truncated]"), "{text}");
    assert!(page.structured.unwrap().get("older").is_none());
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// A page asked for by `fromLine` says its range in `fromLine`'s numbers (it said the
/// newest-relative one, `[lines: 37-42 of 42]` for `fromLine: 0`, and a model copying those
/// numbers back into `fromLine` read other lines): read again from its footer's first number,
/// the page is the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_from_line_page_says_its_range_in_from_line_numbers() {
    let (host, agent) = Host::with_open_shell().await;
    host.send(&agent, "pty-1", "for i in $(seq 1 40); do echo L$i; done")
        .await;
    for from in [0u64, 10] {
        let page = host
            .call(
                &agent,
                "terminal_read",
                json!({"sessionId": "pty-1", "fromLine": from, "count": 3}),
            )
            .await;
        let text = page.text();
        let footer = text.lines().last().unwrap_or_default().to_owned();
        assert!(
            footer.starts_with(&format!("[lines: fromLine {from}-{} of ", from + 3)),
            "{text}"
        );
        assert_eq!(
            page.structured.as_ref().unwrap()["firstLine"],
            from,
            "{text}"
        );
        let again = host
            .call(
                &agent,
                "terminal_read",
                json!({"sessionId": "pty-1", "fromLine": from, "count": 3}),
            )
            .await;
        assert_eq!(again.text(), text);
    }
    // A page by offset keeps the seed's newest-relative footer.
    let page = host
        .call(
            &agent,
            "terminal_read",
            json!({"sessionId": "pty-1", "count": 2}),
        )
        .await;
    assert!(
        page.text().ends_with("[lines: 0-2 of 42]"),
        "{}",
        page.text()
    );
    host.shutdown().await;
}

/// Under a cap that leaves room for only part of a line beside the footer, a page shows no
/// line rather than the line's end (`E104` for `LINE104`, counted by the footer as the line),
/// whichever cap between a few bytes short of the line and the line's length.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_never_shows_a_line_cut_at_its_start() {
    for cap in 140..=160 {
        let host = Host::new(
            ToolTerminalConfig {
                max_result_bytes: cap,
                ..ToolTerminalConfig::default()
            },
            Some(fast_bash()),
        );
        let agent = host.agent("a");
        host.call(&agent, "terminal_open", json!({"type": "shell"}))
            .await;
        host.send(&agent, "pty-1", "seq 1 300 | sed 's/^/LINE/'")
            .await;
        let page = host
            .call(
                &agent,
                "terminal_read",
                json!({"sessionId": "pty-1", "fromLine": 5, "count": 100}),
            )
            .await
            .text();
        for line in page.lines().take_while(|l| !l.starts_with('[')) {
            assert!(
                line.starts_with("LINE") || line.starts_with("(no line of this page fits"),
                "cap {cap}: {page}"
            );
        }
        host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
            .await;
        host.shutdown().await;
    }
}

/// A page read by offset points at the older lines of its range by number too: output that
/// goes on while the agent pages moves offsets, not numbers, so following the pointer after
/// more output reads the lines just before the page, none twice (by offset alone it read the
/// page's lines again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_offset_pages_older_pointer_survives_more_output() {
    let (host, agent) = Host::with_open_shell().await;
    host.call(
        &agent,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "seq 1 20000", "timeoutMs": 60_000}),
    )
    .await;
    let numbers =
        |text: &str| -> Vec<u64> { text.lines().filter_map(|l| l.parse().ok()).collect() };
    let page = host
        .call(
            &agent,
            "terminal_read",
            json!({"sessionId": "pty-1", "offset": 0, "count": 15000}),
        )
        .await
        .text();
    let older = read_args(&page, "[older lines of the range: ")
        .unwrap_or_else(|| panic!("no older pointer: {page:.400}"));
    assert!(older.get("fromLine").is_some(), "{older}");
    let first_shown = *numbers(&page)
        .first()
        .unwrap_or_else(|| panic!("{page:.400}"));
    host.call(
        &agent,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "seq 30001 30500"}),
    )
    .await;
    let before = host.call(&agent, "terminal_read", older).await.text();
    let before = numbers(&before);
    assert_eq!(before.last(), Some(&(first_shown - 1)), "{before:?}");
    assert!(before.windows(2).all(|w| w[1] == w[0] + 1), "{before:?}");
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}

/// Every page read by offset that leaves older lines of its range out points at them in its
/// text: the pointer's `fromLine` made it longer than the room kept for it, and at some
/// offsets it was dropped from the text (the structured result still had it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_cut_offset_page_points_at_its_older_lines() {
    let (host, agent) = Host::with_open_shell().await;
    for text in ["seq 1 20000", "seq 1 3000"] {
        host.call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": text, "timeoutMs": 60_000}),
        )
        .await;
    }
    for offset in [0, 3, 4, 5, 9, 10, 14, 20, 26, 200, 500] {
        let page = host
            .call(
                &agent,
                "terminal_read",
                json!({"sessionId": "pty-1", "offset": offset, "count": 9000}),
            )
            .await
            .text();
        assert!(
            read_args(&page, "[older lines of the range: ").is_some(),
            "offset {offset}: {}",
            &page[page.len().saturating_sub(300)..]
        );
    }
    host.call(&agent, "terminal_close", json!({"sessionId": "pty-1"}))
        .await;
    host.shutdown().await;
}
