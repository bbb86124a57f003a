//! Completion notices within `--max-result-bytes`, through the built binary: a tool result with
//! the notices appended to it stays within the cap, and every notice in it is a whole line (a
//! job's notice, or one line standing for several), never a fragment.

#![allow(deprecated)] // rmcp marks MCP logging (which carries the notices) deprecated.

use std::path::PathBuf;
use std::process::Stdio;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RoleClient};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;

use crate::jobs::LogClient;
use crate::support::{ServerProcess, within};

/// An exclusive lock on a fresh file, held by a `flock` process until [`Gate::open`]: a job
/// running `flock <path> true` stays running until then. The file is removed on drop, once
/// every job is done with it (`flock` would create it again).
struct Gate {
    path: PathBuf,
    holder: tokio::process::Child,
}

impl Gate {
    async fn hold(tag: &str) -> Self {
        let path = std::env::temp_dir().join(format!("dsh-e2e-gate-{tag}-{}", std::process::id()));
        std::fs::write(&path, "").expect("create the gate file");
        let mut holder = tokio::process::Command::new("flock")
            .arg(&path)
            .args(["sh", "-c", "echo locked; exec cat"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn flock (util-linux)");
        let stdout = holder.stdout.take().expect("flock stdout");
        let mut line = String::new();
        within(
            "the gate's lock",
            BufReader::new(stdout).read_line(&mut line),
        )
        .await
        .expect("read flock's stdout");
        assert_eq!(line, "locked\n");
        Self { path, holder }
    }

    /// Releases the lock (`cat` ends at end of input) and reaps its holder.
    async fn open(&mut self) {
        drop(self.holder.stdin.take());
        let status = within("the gate's holder exit", self.holder.wait())
            .await
            .expect("wait for flock");
        assert!(status.success(), "{status:?}");
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        let _ = self.holder.start_kill();
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Calls `tool` and returns the text of each block of its result.
async fn blocks(client: &Peer<RoleClient>, tool: &str, args: Value) -> Vec<String> {
    let Value::Object(args) = args else {
        panic!("tool arguments must be a JSON object")
    };
    let result = within(
        &format!("tools/call {tool}"),
        client.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args)),
    )
    .await
    .unwrap_or_else(|e| panic!("tools/call {tool}: {e}"));
    result
        .content
        .iter()
        .map(|b| b.as_text().expect("a text block").text.clone())
        .collect()
}

/// Asserts that `blocks` (one result) is within `cap` as a client shows it, one line break
/// between blocks, and that each notice after the tool's own text is a whole line: one of
/// `notices` (the jobs' own, as logged) or a line standing for several jobs.
fn assert_within(cap: usize, blocks: &[String], notices: &[String]) {
    let shown = blocks.join("\n");
    assert!(
        shown.len() <= cap,
        "{} bytes over a cap of {cap}: {shown:?}",
        shown.len()
    );
    for notice in &blocks[1..] {
        let summary = notice.starts_with('[')
            && notice.ends_with(']')
            && notice.contains("background job")
            && !notice.contains('\n');
        assert!(
            summary || notices.contains(notice),
            "a cut notice: {notice:?} in {blocks:?}"
        );
    }
}

/// Three jobs finish while their owner makes no call; the next results (one filled to the cap
/// by a long output) carry their notices within the cap, as whole lines only.
async fn notices_stay_within(cap: usize) {
    let (logs_tx, mut logs) = mpsc::unbounded_channel();
    let cap_arg = cap.to_string();
    let (mut server, client) = ServerProcess::start_with(
        &[
            "--max-result-bytes",
            &cap_arg,
            "--sandbox",
            "danger-full-access",
            "--timeout-ms",
            "20000",
        ],
        LogClient(logs_tx),
    )
    .await;
    let mut gate = Gate::hold(&cap_arg).await;
    let command = format!("flock '{}' true", gate.path.display());
    let mut sessions = Vec::new();
    for _ in 0..3 {
        let open = within(
            "terminal_open",
            client.call_tool(
                CallToolRequestParams::new("terminal_open")
                    .with_arguments(json!({"type": "shell"}).as_object().cloned().unwrap()),
            ),
        )
        .await
        .expect("terminal_open");
        let structured = open.structured_content.expect("structured");
        let session = structured["sessionId"].as_str().expect("sessionId");
        let ack = blocks(
            &client,
            "terminal_send",
            json!({"sessionId": session, "text": command, "run_in_background": true}),
        )
        .await;
        assert!(ack[0].starts_with("started background job"), "{ack:?}");
        assert_within(cap, &ack, &[]);
        sessions.push(session.to_owned());
    }
    gate.open().await;
    let mut notices = Vec::new();
    while notices.len() < 3 {
        let (_, text) = within("notice log notification", logs.recv())
            .await
            .expect("log channel");
        notices.push(text);
    }
    drop(gate);

    // A result filled to the cap: notices take only what it left.
    let long = blocks(
        &client,
        "terminal_send",
        json!({"sessionId": sessions[0], "text": "seq 1 5000"}),
    )
    .await;
    assert_within(cap, &long, &notices);
    // Shorter results leave room for some of them.
    let mut appended = long.len() - 1;
    for tool in ["job_list", "terminal_list", "job_list"] {
        let r = blocks(&client, tool, json!({})).await;
        assert_within(cap, &r, &notices);
        appended += r.len() - 1;
    }
    if cap >= 600 {
        assert!(appended > 0, "no notice was appended to any result");
    }
    for session in &sessions {
        let r = blocks(&client, "terminal_close", json!({"sessionId": session})).await;
        assert_within(cap, &r, &notices);
    }
    server.disconnect(client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notices_stay_within_a_small_result_cap() {
    notices_stay_within(600).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notices_stay_within_the_smallest_result_cap() {
    notices_stay_within(64).await;
}

/// `logging/setLevel` is answered (the server declares logging), and honoured: above `info`,
/// a job's notice reaches the next tool result only; back at `info`, notices are sent as log
/// notifications again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_level_is_answered_and_quiets_notice_notifications() {
    use rmcp::model::{LoggingLevel, SetLevelRequestParams};

    let (logs_tx, mut logs) = mpsc::unbounded_channel();
    let (mut server, client) = ServerProcess::start_with(&[], LogClient(logs_tx)).await;
    let open = crate::support::ok(&client, "terminal_open", json!({"type": "shell"})).await;
    assert!(
        open.text.starts_with("started terminal session"),
        "{}",
        open.text
    );
    let set = SetLevelRequestParams::new;
    within(
        "logging/setLevel",
        client.set_level(set(LoggingLevel::Warning)),
    )
    .await
    .expect("setLevel is answered");
    let (quiet, _) = crate::jobs::start_job(&client, "pty-1", "echo quiet-job").await;
    // Its notice still reaches a result (a wait returns once the job settled).
    crate::support::ok(
        &client,
        "job_output",
        json!({"job_id": quiet, "wait": true}),
    )
    .await;
    within(
        "logging/setLevel",
        client.set_level(set(LoggingLevel::Info)),
    )
    .await
    .expect("setLevel is answered");
    let (loud, _) = crate::jobs::start_job(&client, "pty-1", "echo loud-job").await;
    // The first notification is the second job's: the first job's was never sent.
    let (_, text) = within("notice log notification", logs.recv())
        .await
        .expect("log channel");
    assert!(
        text.starts_with(&format!("background job {loud} ")),
        "{text:?}"
    );
    server.disconnect(client).await;
}
