//! A background job that floods: every `job_output` read is whole lines, the reads and their
//! omission lines account for every line, and the `terminal_read` arguments they state page
//! exactly the lines left out, also after more output followed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use dsh_context::Agent;
use dsh_tool_terminal::ToolTerminalConfig;
use serde_json::{Value, json};

use crate::support::{Host, fast_bash, job_id};

/// A small result budget, so a few thousand short lines do not fit one read.
const BUDGET: usize = 4096;

/// One `job_output` read, within the budget.
async fn read(host: &Host, agent: &Agent, job: &str) -> String {
    let r = host.call(agent, "job_output", json!({"job_id": job})).await;
    assert!(!r.is_error, "{}", r.text());
    let text = r.text();
    assert!(text.len() <= BUDGET, "{} bytes: {text}", text.len());
    text
}

/// Waits (bounded) until the job's script created `path`.
async fn wait_for_file(path: &Path) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while !path.exists() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until the session's screen shows `line` as its newest output line before the
/// cursor's (the core has taken in everything printed before it), reading the scrollback
/// without consuming the job's output.
async fn wait_for_screen_line(host: &Host, agent: &Agent, session: &str, line: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let r = host
            .call(
                agent,
                "terminal_read",
                json!({"sessionId": session, "count": 5}),
            )
            .await;
        if r.text().lines().any(|l| l.trim_end() == line) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{line} never showed: {}",
            r.text()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One read, parsed: the numbered lines in order, each omission line before the number that
/// follows it (`None` for a number with no omission just before it), and the status line.
struct Read {
    items: Vec<(Option<String>, u64)>,
    /// An omission after the last number (none expected: the newest lines are always shown).
    trailing_omission: Option<String>,
    status: String,
}

fn parse(text: &str) -> Read {
    let mut lines: Vec<&str> = text.lines().collect();
    let status = match lines.last() {
        Some(line) if line.starts_with("[status: ") => lines.pop().unwrap().to_owned(),
        _ => String::new(),
    };
    let mut items = Vec::new();
    let mut omission = None;
    for line in lines {
        if line.starts_with("[… ") {
            assert!(omission.is_none(), "two omissions in a row: {text}");
            omission = Some(line.to_owned());
        } else if line.contains("seq ")
            || line.starts_with("dsh>")
            || line.starts_with("started background job ")
            || line == "(no new output)"
            || line.starts_with("[line still being written")
        {
            continue;
        } else {
            let n: u64 = line
                .parse()
                .unwrap_or_else(|_| panic!("not a whole numbered line: {line:?} in {text}"));
            items.push((omission.take(), n));
        }
    }
    Read {
        items,
        trailing_omission: omission,
        status,
    }
}

/// The count of lines an omission line states (exact or "about").
fn omitted_count(line: &str) -> u64 {
    let rest = line
        .trim_start_matches("[… about ")
        .trim_start_matches("[… ");
    rest.split(' ').next().unwrap().parse().unwrap()
}

/// The `terminal_read` arguments an omission line states.
fn pointer(line: &str) -> Option<Value> {
    let at = line.find("terminal_read {")? + "terminal_read ".len();
    serde_json::from_str(line[at..].strip_suffix(']')?).ok()
}

/// Pages `args` with terminal_read, following `older` pointers, oldest line first.
async fn page_all(host: &Host, agent: &Agent, args: Value) -> Vec<u64> {
    let mut lines = Vec::new();
    let mut next = Some(args);
    while let Some(args) = next.take() {
        let r = host.call(agent, "terminal_read", args).await;
        assert!(!r.is_error, "{}", r.text());
        let text = r.text();
        let mut page: Vec<u64> = text
            .lines()
            .take_while(|l| !l.starts_with("[lines: "))
            .map(|l| l.parse().unwrap_or_else(|_| panic!("{l:?} in {text}")))
            .collect();
        page.extend(lines);
        lines = page;
        next = text
            .lines()
            .find_map(|l| l.strip_prefix("[older lines of the range: terminal_read "))
            .map(|l| serde_json::from_str(l.strip_suffix(']').unwrap()).unwrap());
    }
    lines
}

/// Checks one read against the lines before it: whole increasing numbers, every jump stated
/// by an omission line, with its count. Returns the last number.
fn account(read: &Read, mut last: u64, text: &str) -> u64 {
    assert!(read.trailing_omission.is_none(), "{text}");
    for (omission, n) in &read.items {
        let missing = n
            .checked_sub(last + 1)
            .unwrap_or_else(|| panic!("{n} after {last}: a fragment or a repeat in {text}"));
        match omission {
            None => assert_eq!(
                missing, 0,
                "{missing} lines left out silently before {n}: {text}"
            ),
            Some(line) => {
                let count = omitted_count(line);
                // An "about" count is the core's count of the line ends it dropped (about
                // only in the bytes): whole short lines are counted exactly all the same
                // (estimated from the bytes, `seq`'s growing lines were counted a fifth, at
                // times half, short).
                assert_eq!(count, missing, "{line} before {n} in {text}");
            }
        }
        last = *n;
    }
    last
}

#[tokio::test]
async fn a_flooding_background_job_reads_as_whole_lines_with_every_omission_stated() {
    let config = ToolTerminalConfig {
        max_result_bytes: BUDGET,
        ..ToolTerminalConfig::default()
    };
    let host = Host::with_jobs(config, fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let dir: PathBuf =
        std::env::temp_dir().join(format!("dsh-bg-flood-{}-{session}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.display();
    // A burst within the scrollback, a pause, a few more lines, a pause, a flood past it, a
    // pause, then the prompt.
    let script = format!(
        "seq 1 9000; touch {d}/burst; until [ -e {d}/more ]; do sleep 0.05; done; seq 9001 9200; until [ -e {d}/go ]; do sleep 0.05; done; seq 9201 300000; touch {d}/flood; until [ -e {d}/end ]; do sleep 0.05; done"
    );
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": session, "text": script, "run_in_background": true}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    let job = job_id(&r);
    // What the acknowledgement showed (usually nothing yet) comes before the first read.
    let ack = r.text();
    let mut last = account(&parse(&ack), 0, &ack);
    // The burst in one read: the command line first, then the first and the newest lines
    // around an omission whose terminal_read arguments page exactly the lines left out.
    wait_for_file(&dir.join("burst")).await;
    wait_for_screen_line(&host, &agent, &session, "9000").await;
    let text = read(&host, &agent, &job).await;
    let command = format!("{ack}\n{text}");
    let first_output = command.lines().nth(1).unwrap_or("");
    assert!(first_output.starts_with("seq 1 9000; touch "), "{command}");
    let burst = parse(&text);
    last = account(&burst, last, &text);
    assert_eq!(last, 9000, "{text}");
    let (omission, after) = burst
        .items
        .iter()
        .find_map(|(o, n)| o.as_ref().map(|o| (o.clone(), *n)))
        .expect("an omission line");
    assert!(omission.starts_with("[… "), "{omission}");
    let before = after - omitted_count(&omission) - 1;
    // Paged after 200 more lines came: the arguments name the lines by number (an offset
    // from the newest line would have moved by 200).
    std::fs::write(dir.join("more"), "").unwrap();
    wait_for_screen_line(&host, &agent, &session, "9200").await;
    let paged = page_all(&host, &agent, pointer(&omission).expect("arguments")).await;
    assert_eq!(paged, (before + 1..after).collect::<Vec<_>>(), "{omission}");

    // The flood, read while it runs: whole lines, every jump stated.
    std::fs::write(dir.join("go"), "").unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(300);
    while last < 300_000 {
        let text = read(&host, &agent, &job).await;
        last = account(&parse(&text), last, &text);
        assert!(
            tokio::time::Instant::now() < deadline,
            "the flood never ended (at {last})"
        );
    }
    wait_for_file(&dir.join("flood")).await;

    // The end: the prompt comes back, nothing more to read.
    std::fs::write(dir.join("end"), "").unwrap();
    let r = host
        .call(
            &agent,
            "job_output",
            json!({"job_id": job, "wait": true, "timeout_ms": 60000}),
        )
        .await;
    let text = r.text();
    let end = parse(&text);
    assert!(end.items.is_empty(), "{text}");
    assert!(
        end.status
            .starts_with("[status: completed, wait: stdin_read, exit: 0"),
        "{text}"
    );
    let r = host
        .call(&agent, "terminal_close", json!({"sessionId": session}))
        .await;
    assert!(!r.is_error, "{}", r.text());
    std::fs::remove_dir_all(&dir).unwrap();
    host.shutdown().await;
}

/// Field case C37 in a background job: the job reads its output every few milliseconds while
/// binary output goes on, and its reads together still show one summary line of the binary
/// run (the run so far only as the line being written), the text after it, and no stray
/// bytes of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jobs_binary_output_reads_as_one_summary_line() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let (job, started) = host
        .start_job(
            &agent,
            &session,
            // (No newline among the bytes: random bytes between two newlines now and then
            // pass for a line of text, which splits the run where a read ends on it.)
            "head -c 3000000 /dev/urandom | tr -d '\\n'; echo; echo after-binary",
        )
        .await;
    let mut reads = vec![started];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let text = host.job_output(&agent, &job).await;
        let done = text
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("[status: ") && !l.contains("running"));
        reads.push(text);
        if done {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{reads:#?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let all = reads.concat();
    let summaries = all
        .lines()
        // Random bytes may hold a line that passes for text, which the summary then counts
        // (", with 1 line of text among them").
        .filter(|l| {
            l.contains("bytes of binary output suppressed;")
                || l.contains("bytes of binary output suppressed, with ")
        })
        .count();
    assert_eq!(summaries, 1, "{reads:#?}");
    assert!(!all.contains('\u{FFFD}'), "{reads:#?}");
    assert!(all.lines().any(|l| l == "after-binary"), "{reads:#?}");
    host.shutdown().await;
}

/// Text lines between binary frames a program writes with pauses, on a screen that scrolls
/// (long summary lines wrap over two rows): the job's output has every text line once, each
/// after its frame's summary line. A drain across the moment a wrapped row's wrap was written
/// down into history took a redraw for it and dropped a line it had read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_between_binary_frames_reaches_the_job_whole() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    host.send(&agent, &session, "seq 1 60").await;
    let frames = "python3 -c \"import os, time\nfor i in range(4):\n  os.write(1, bytes(range(128, 256)) * 4 + b'\\n' + b'log line number %d with plenty of ordinary readable words' % i + b'\\n'); time.sleep(0.2)\"";
    let all = host.job_to_end(&agent, &session, frames).await;
    for i in 0..4 {
        let line = format!("log line number {i} with plenty of ordinary readable words");
        assert_eq!(
            all.lines().filter(|l| *l == line).count(),
            1,
            "{line}: {all}"
        );
    }
    host.shutdown().await;
}

/// One line of 3 MB in a job: its output shows the line's start and end around a cut that
/// counts the rest (about, when the core dropped part of it before the job read it), and no
/// omission line stands for lines that never were.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jobs_huge_line_is_counted_as_one_line() {
    // A small read bound, so that the core drops part of the line between two drains.
    let bash = dsh_terminal_bash::BashConfig {
        max_read_bytes: 16 * 1024,
        ..fast_bash()
    };
    let host = Host::with_jobs(ToolTerminalConfig::default(), bash);
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let all = host
        .job_to_end(
            &agent,
            &session,
            "sleep 0.2; head -c 3000000 /dev/zero | tr '\\0' a; echo; echo AFTER",
        )
        .await;
    assert!(!all.contains("lines omitted"), "{all}");
    assert!(all.lines().any(|l| l == "AFTER"), "{all}");
    let line = all
        .lines()
        .find(|l| l.contains(" bytes of this line omitted") && l.ends_with("aaa"))
        .unwrap_or_else(|| panic!("the huge line, cut: {all}"));
    let marker_at = line.find("[… ").expect("the cut marker");
    let after = &line[marker_at + "[… ".len()..];
    let count: u64 = after
        .trim_start_matches("about ")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a count: {line}"));
    let end = &after[after.find(']').expect("the marker's end") + 1..];
    let shown = (marker_at + end.len()) as u64;
    // Raw bytes stand for screen text in the estimate: within a few percent.
    let total = count + shown;
    assert!(
        (2_900_000..=3_100_000).contains(&total),
        "{total}: {line:.300}"
    );
    host.shutdown().await;
}

/// A flood from a shell an earlier command started, whose job ends with a long notice (our
/// prompt marks are gone): the job's output still starts with the command's echo and first
/// line (the notice, added unbounded after the window's room, pushed the read over the job's
/// limit, whose cut dropped the first lines).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_in_a_nested_shell_keeps_its_first_lines() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let r = host.send(&agent, &session, "bash --norc").await;
    assert!(!r.is_error, "{}", r.text());
    let (job, ack) = host.start_job(&agent, &session, "seq 1 20000").await;
    let read = host.wait_job(&agent, &job).await;
    let all = format!("{ack}\n{read}");
    let numbers: Vec<&str> = all
        .lines()
        .filter(|l| l.bytes().all(|b| b.is_ascii_digit()) && !l.is_empty())
        .collect();
    assert_eq!(numbers.first(), Some(&"1"), "{all:.2000}");
    assert!(!read.contains("[output truncated]"), "{read:.2000}");
    host.shutdown().await;
}
