//! Background sends as jobs through the built binary over stdio: incremental reads, wait,
//! completion notices (appended once and sent as log notifications), kill, the admission
//! limit; job isolation between two connections; and progress of a long foreground send.

#![allow(deprecated)] // rmcp marks MCP logging (which carries the notices) deprecated.

use std::time::Duration;

use rmcp::ClientHandler;
use rmcp::model::{
    CallToolRequestParams, LoggingMessageNotificationParam, NumberOrString,
    ProgressNotificationParam, ProgressToken, RequestParamsMeta,
};
use rmcp::service::{NotificationContext, RoleClient};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::support::{
    InProcess, ProcessWatch, Reply, STEP, ServerProcess, call, err, ok, open_shell, send,
    shell_pid, test_options, within,
};

/// A client that forwards every log notification's text to a channel.
#[derive(Clone)]
pub(crate) struct LogClient(pub(crate) mpsc::UnboundedSender<(Option<String>, String)>);

/// A client that forwards every progress notification to a channel.
#[derive(Clone)]
struct ProgressClient(mpsc::UnboundedSender<ProgressNotificationParam>);

impl ClientHandler for ProgressClient {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params);
    }
}

impl ClientHandler for LogClient {
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let text = params
            .data
            .as_str()
            .map_or_else(|| params.data.to_string(), str::to_owned);
        let _ = self.0.send((params.logger, text));
    }
}

fn status_line(reply: &Reply) -> &str {
    reply.text.rsplit('\n').next().unwrap_or("")
}

/// Starts a background send; returns the job id and the acknowledgement, whose text after the
/// first line is what the screen showed so far (the job's reads continue after it).
///
/// A job that finishes before the acknowledgement is built has its completion notice appended
/// to it as a second block, as to any result; the acknowledgement then has two blocks.
pub(crate) async fn start_job(
    client: &rmcp::Peer<RoleClient>,
    session: &str,
    text: &str,
) -> (String, Reply) {
    let args = json!({"sessionId": session, "text": text, "run_in_background": true});
    let r = call(client, "terminal_send", args.clone()).await;
    assert!(!r.is_error, "terminal_send {args} failed: {}", r.text);
    let job = r.structured.as_ref().expect("structured")["jobId"]
        .as_str()
        .expect("jobId")
        .to_owned();
    assert!(
        r.text.starts_with(&format!("started background job {job}")),
        "{:?}",
        r.text
    );
    match r.blocks {
        1 => {}
        2 => assert!(
            r.text.contains(&format!("\nbackground job {job} (")),
            "the second block is not this job's notice: {r:?}"
        ),
        _ => panic!("unexpected blocks in the acknowledgement: {r:?}"),
    }
    (job, r)
}

/// Whether `ack` (from [`start_job`]) already carried its job's completion notice.
pub(crate) fn carried_notice(ack: &Reply) -> bool {
    ack.blocks == 2
}

async fn background(client: &rmcp::Peer<RoleClient>, session: &str, text: &str) -> String {
    start_job(client, session, text).await.0
}

fn ticks(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_end)
        .filter(|l| l.starts_with("tick") && l.len() == 5)
        .map(str::to_owned)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_sends_over_stdio() {
    let (logs_tx, mut logs) = mpsc::unbounded_channel();
    let (mut server, client) = ServerProcess::start_with(
        &["--timeout-ms", "20000", "--idle-silence-ms", "3000"],
        LogClient(logs_tx),
    )
    .await;
    let open = ok(&client, "terminal_open", json!({"type": "shell"})).await;
    assert!(open.text.starts_with("started terminal session pty-1"));

    // The five-tick loop in the background; reads while it runs show each tick once, in order.
    let (job, ack) = start_job(
        &client,
        "pty-1",
        "for i in 1 2 3 4 5; do echo tick$i; sleep 1; done",
    )
    .await;
    assert_eq!(job, "pty-send-1");
    let busy = err(
        &client,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "echo hi"}),
    )
    .await;
    assert!(
        busy.text.contains("busy with background job pty-send-1"),
        "{:?}",
        busy.text
    );
    let mut seen = ticks(&ack.text);
    let mut reads_with_ticks = 0;
    let deadline = tokio::time::Instant::now() + STEP;
    while reads_with_ticks < 2 {
        assert!(tokio::time::Instant::now() < deadline, "ticks: {seen:?}");
        let r = ok(&client, "job_output", json!({"job_id": job})).await;
        assert_eq!(status_line(&r), "[status: running]", "{:?}", r.text);
        let new = ticks(&r.text);
        if !new.is_empty() {
            reads_with_ticks += 1;
            seen.extend(new);
        }
        // Pace the reads; each one is answered at once whatever the loop has printed.
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let done = ok(&client, "job_output", json!({"job_id": job, "wait": true})).await;
    assert_eq!(
        status_line(&done),
        "[status: completed, wait: stdin_read, exit: 0]",
        "{:?}",
        done.text
    );
    seen.extend(ticks(&done.text));
    assert_eq!(seen, ["tick1", "tick2", "tick3", "tick4", "tick5"]);

    // A job nobody waited on: one notice, as a log notification and appended once.
    let (quick, quick_ack) = start_job(&client, "pty-1", "echo notice-me").await;
    let (logger, text) = within("notice log notification", logs.recv())
        .await
        .expect("log channel");
    assert_eq!(logger.as_deref(), Some("dsh-jobs"));
    assert!(
        text.starts_with(&format!("background job {quick} (pty-send: pty-1: echo notice-me) finished [status: completed, wait: stdin_read, exit: 0]")),
        "{text:?}"
    );
    // The notice is appended to exactly one result: the acknowledgement itself when the job
    // finished before it was built, else the next call's.
    if carried_notice(&quick_ack) {
        assert!(quick_ack.text.ends_with(&text), "{:?}", quick_ack.text);
    } else {
        let next = call(&client, "terminal_list", json!({})).await;
        assert_eq!(next.blocks, 2, "{next:?}");
        assert!(next.text.ends_with(&text), "{:?}", next.text);
    }
    let after = ok(&client, "terminal_list", json!({})).await;
    assert!(!after.text.contains("background job"), "{:?}", after.text);

    // job_kill on a long sleep interrupts it; the session stays usable. The kill comes once
    // the command visibly runs, as a model's would.
    let (sleeper, ack) = start_job(&client, "pty-1", "echo sleeping; sleep 1000").await;
    let deadline = tokio::time::Instant::now() + STEP;
    let mut started = ack.has_line("sleeping");
    while !started {
        let r = ok(&client, "job_output", json!({"job_id": sleeper})).await;
        started = r.has_line("sleeping");
        if started {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{:?}", r.text);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let kill = ok(&client, "job_kill", json!({"job_id": sleeper})).await;
    assert_eq!(
        kill.text,
        format!(
            "requested cancellation of job {sleeper}; job_output {{\"job_id\": \"{sleeper}\", \"wait\": true}} returns once its work has stopped"
        )
    );
    let killed = ok(
        &client,
        "job_output",
        json!({"job_id": sleeper, "wait": true}),
    )
    .await;
    assert!(
        status_line(&killed).starts_with("[status: killed, wait: stdin_read"),
        "{:?}",
        killed.text
    );
    let r = send(&client, "pty-1", "echo usable-$((20+1))").await;
    assert!(r.has_line("usable-21"), "{:?}", r.text);

    // Ten live jobs of one connection; the eleventh is refused before anything is written.
    let mut sessions = Vec::new();
    for _ in 0..10 {
        let open = ok(&client, "terminal_open", json!({"type": "shell"})).await;
        let id = open.structured.as_ref().expect("structured")["sessionId"]
            .as_str()
            .expect("sessionId")
            .to_owned();
        sessions.push(id);
    }
    for session in &sessions {
        background(&client, session, "sleep 1000").await;
    }
    let refused = err(
        &client,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "sleep 1000", "run_in_background": true}),
    )
    .await;
    assert_eq!(
        refused.text,
        "Error: background job limit reached for this owner (limit: 10); use job_kill to stop an unneeded job, wait for it to finish, then retry"
    );
    // A wrong session id is reported as such even at the limit: fixing the id, not killing
    // jobs, is what the model has to do.
    let unknown = err(
        &client,
        "terminal_send",
        json!({"sessionId": "pty-99", "text": "true", "run_in_background": true}),
    )
    .await;
    assert!(
        unknown
            .text
            .starts_with("Error: unknown PTY session pty-99"),
        "{:?}",
        unknown.text
    );
    let list = ok(&client, "job_list", json!({})).await;
    assert_eq!(
        list.text
            .lines()
            .filter(|l| l.contains(" running — "))
            .count(),
        10,
        "{:?}",
        list.text
    );
    for session in &sessions {
        ok(&client, "terminal_close", json!({"sessionId": session})).await;
    }
    ok(&client, "terminal_close", json!({"sessionId": "pty-1"})).await;
    // No other notices were sent: waited and killed jobs are reported, closed ones killed.
    while let Ok((_, text)) = logs.try_recv() {
        assert!(!text.contains(&quick), "notice sent twice: {text:?}");
        assert!(
            !text.contains("pty-send-1 "),
            "waited job noticed: {text:?}"
        );
    }
    server.disconnect(client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_connection_cannot_reach_the_first_ones_jobs() {
    let mut host = InProcess::new(&test_options());
    let a = host.connect().await;
    let b = host.connect().await;
    let id = open_shell(&a).await;
    let job = background(&a, &id, "sleep 1000").await;
    let list = ok(&b, "job_list", json!({})).await;
    assert_eq!(list.text, "(no background jobs)");
    for (tool, args) in [
        ("job_output", json!({"job_id": job})),
        (
            "job_output",
            json!({"job_id": job, "wait": true, "timeout_ms": 10}),
        ),
        ("job_kill", json!({"job_id": job})),
    ] {
        let r = err(&b, tool, args).await;
        assert_eq!(
            r.text,
            format!(
                "Error: job {job} belongs to another agent; call job_list to see your own jobs"
            )
        );
    }
    let mine = ok(&a, "job_list", json!({})).await;
    assert_eq!(
        mine.text,
        format!("{job} [pty-send] running — {id}: sleep 1000")
    );
    let value: Value = ok(&a, "job_kill", json!({"job_id": job}))
        .await
        .structured
        .expect("structured");
    assert_eq!(value["outcome"], "cancellation-requested");
    ok(&a, "terminal_close", json!({"sessionId": id})).await;
    host.finish(vec![a, b]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_foreground_send_reports_progress_when_asked() {
    let (tx, mut progress) = mpsc::unbounded_channel();
    let (mut server, client) =
        ServerProcess::start_with(&["--timeout-ms", "20000"], ProgressClient(tx)).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let token = ProgressToken(NumberOrString::String("send-1".into()));
    let mut params = CallToolRequestParams::new("terminal_send").with_arguments(
        json!({"sessionId": "pty-1", "text": "for i in 1 2 3; do echo step$i; sleep 1; done"})
            .as_object()
            .expect("object")
            .clone(),
    );
    params.set_progress_token(token.clone());
    let result = within("progress send", client.call_tool(params))
        .await
        .expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let mut reports = Vec::new();
    while let Ok(p) = progress.try_recv() {
        reports.push(p);
    }
    assert!(!reports.is_empty(), "no progress for a 3 s send");
    // rmcp's client sends its own token (the request id) in place of ours; one per call.
    let call_token = reports[0].progress_token.clone();
    assert!(
        reports.iter().all(|p| p.progress_token == call_token),
        "{reports:?}"
    );
    assert!(
        reports.windows(2).all(|w| w[0].progress < w[1].progress),
        "progress must grow: {reports:?}"
    );
    assert!(
        reports
            .iter()
            .any(|p| p.message.as_deref().is_some_and(|m| m.starts_with("step"))),
        "{reports:?}"
    );
    ok(&client, "terminal_close", json!({"sessionId": "pty-1"})).await;
    server.disconnect(client).await;
}

/// Starts a background job on `pty-1` whose program ignores SIGINT (and a command after it
/// that must not run once the job is killed), and returns its id once the program is running.
async fn armed_job_ignoring_sigint(client: &rmcp::Peer<RoleClient>) -> String {
    let (job, ack) = start_job(
        client,
        "pty-1",
        "(trap '' INT; echo armed; exec sleep 1000); echo rest-$((6*7))",
    )
    .await;
    // The start's result may show the job's first output already; a later read does not
    // show it again.
    let mut seen = ack.text;
    let deadline = tokio::time::Instant::now() + STEP;
    while !seen.lines().any(|l| l == "armed") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "never armed: {seen:?}"
        );
        let r = ok(
            client,
            "job_output",
            json!({"job_id": job, "wait": true, "timeout_ms": 200}),
        )
        .await;
        seen.push_str(&r.text);
    }
    job
}

/// `job_kill` of `job`, then its output once it has ended.
async fn kill_and_wait(client: &rmcp::Peer<RoleClient>, job: &str) -> Reply {
    ok(client, "job_kill", json!({"job_id": job})).await;
    ok(
        client,
        "job_output",
        json!({"job_id": job, "wait": true, "timeout_ms": 60_000}),
    )
    .await
}

/// An agent that disconnects while its background job's program ignores the interrupt: the
/// job's session closes with the agent, and the teardown does not wait out the send's deadline
/// (ten minutes here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disconnecting_ends_a_job_whose_program_ignores_the_interrupt() {
    let mut host = InProcess::new(&dsh_mcp::Options {
        timeout_ms: 600_000,
        ..test_options()
    });
    let a = host.connect().await;
    ok(&a, "terminal_open", json!({"type": "shell"})).await;
    let shell = ProcessWatch::new(shell_pid(&a, "pty-1").await);
    armed_job_ignoring_sigint(&a).await;
    host.finish(vec![a]).await;
    shell.assert_exits("the job's shell").await;
}

/// `job_kill` of a command that ignores the interrupt: it gets SIGTERM once the interrupt had
/// its time, and the job ends killed instead of staying `stopping`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn job_kill_escalates_when_the_program_ignores_the_interrupt() {
    let mut host = InProcess::new(&test_options());
    let a = host.connect().await;
    ok(&a, "terminal_open", json!({"type": "shell"})).await;
    let job = armed_job_ignoring_sigint(&a).await;
    let r = kill_and_wait(&a, &job).await;
    // SIGTERM ends the program (143); the shell, interrupted too so that the rest of the line
    // does not run, reports 130 instead when it handles that interrupt after reaping the
    // program (on a loaded machine it sometimes does).
    assert!(
        status_line(&r).starts_with("[status: killed")
            && (status_line(&r).contains("exit: 143") || status_line(&r).contains("exit: 130")),
        "{:?}",
        r.text
    );
    assert!(
        !r.text.contains("rest-42"),
        "the rest of the line ran: {:?}",
        r.text
    );
    // The session is back at its prompt.
    let r = send(&a, "pty-1", "echo after").await;
    assert!(r.has_line("after"), "{:?}", r.text);
    host.finish(vec![a]).await;
}

/// `job_kill` right after a background send, as parallel tool calls make it: the command is
/// stopped (never left running), and none of its line is left behind to run with the next
/// command. Repeated to catch the race with the shell reading the line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn job_kill_at_once_stops_the_command_and_leaves_nothing_behind() {
    let mut host = InProcess::new(&test_options());
    let a = host.connect().await;
    ok(&a, "terminal_open", json!({"type": "shell"})).await;
    for round in 0..8 {
        let job = background(&a, "pty-1", "echo sleeping; sleep 1000").await;
        let r = kill_and_wait(&a, &job).await;
        assert!(
            status_line(&r).starts_with("[status: killed"),
            "round {round}: {:?}",
            r.text
        );
        let marker = format!("next-{round}");
        let r = send(&a, "pty-1", &format!("echo {marker}")).await;
        assert!(r.has_line(&marker), "round {round}: {:?}", r.text);
        assert!(
            !r.text.contains("not found") && !r.text.contains("invalid"),
            "round {round}: {:?}",
            r.text
        );
    }
    host.finish(vec![a]).await;
}
