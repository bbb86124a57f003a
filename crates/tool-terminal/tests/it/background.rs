//! Background sends as `pty-send` jobs against real bash: streaming, wait and kill, limits,
//! close and dispose. What a job shows is in `background_output.rs`.

use std::time::Duration;

use dsh_context::Agent;
use dsh_jobs::{JobId, JobRegistry};
use dsh_tool_terminal::ToolTerminalConfig;
use serde_json::json;

use crate::support::{Host, fast_bash};

pub(crate) async fn open(host: &Host, agent: &Agent) -> String {
    host.open_session(agent).await
}

/// Starts a background send; returns the job id and the acknowledgement text.
pub(crate) async fn start_job(
    host: &Host,
    agent: &Agent,
    session: &str,
    text: &str,
) -> (String, String) {
    host.start_job(agent, session, text).await
}

pub(crate) async fn background(host: &Host, agent: &Agent, session: &str, text: &str) -> String {
    start_job(host, agent, session, text).await.0
}

/// A host with jobs, an agent and an open session, with a background job of `text` run to its
/// end: returns them with the job id and the job's final read.
pub(crate) async fn finished_job(text: &str) -> (Host, Agent, String, String, String) {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    let job = background(&host, &agent, &session, text).await;
    let r = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    let read = r.text();
    (host, agent, session, job, read)
}

/// A foreground send; returns its text (asserting success).
pub(crate) async fn send_foreground(
    host: &Host,
    agent: &Agent,
    session: &str,
    text: &str,
) -> String {
    let r = host.send(agent, session, text).await;
    assert!(!r.is_error, "{}", r.text());
    r.text()
}

pub(crate) fn status_line(text: &str) -> &str {
    text.rsplit('\n').next().unwrap_or("")
}

/// Reads the job until it settles (bounded by a deadline), returning every read's text.
async fn read_until_settled(host: &Host, agent: &Agent, job: &str) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let mut reads = Vec::new();
    loop {
        let r = host.call(agent, "job_output", json!({"job_id": job})).await;
        assert!(!r.is_error, "{}", r.text());
        let text = r.text();
        let done = !status_line(&text).starts_with("[status: running");
        reads.push(text);
        if done {
            return reads;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "job never settled: {reads:?}"
        );
        // Pace the reads so several land while the loop runs; the loop's own output decides.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_background_loop_streams_each_tick_once_and_completes_with_its_exit_code() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    let (job, ack) = start_job(
        &host,
        &agent,
        &session,
        "for i in 1 2 3 4 5; do echo tick$i; sleep 0.3; done",
    )
    .await;
    assert_eq!(job, "pty-send-1");
    // While the job runs, the session is busy and a foreground send names the job.
    let busy = host.send(&agent, &session, "echo hi").await;
    assert!(busy.is_error);
    assert!(
        busy.text()
            .contains("is busy with background job pty-send-1"),
        "{}",
        busy.text()
    );
    let reads = read_until_settled(&host, &agent, &job).await;
    let last = reads.last().unwrap();
    assert_eq!(
        status_line(last),
        "[status: completed, wait: stdin_read, exit: 0]",
        "{reads:?}"
    );
    let with_ticks = reads.iter().filter(|r| r.contains("tick")).count();
    assert!(with_ticks >= 2, "ticks arrived in one read: {reads:?}");
    let all = format!("{ack}\n{}", reads.join("\n"));
    let ticks: Vec<&str> = all
        .lines()
        .filter(|l| l.starts_with("tick"))
        .map(str::trim)
        .collect();
    assert_eq!(
        ticks,
        ["tick1", "tick2", "tick3", "tick4", "tick5"],
        "{reads:?}"
    );
    // The settled job's output is consumed: a further read has nothing new.
    let again = host
        .call(&agent, "job_output", json!({"job_id": job}))
        .await;
    assert!(
        again.text().starts_with("(no new output)"),
        "{}",
        again.text()
    );
    // The session is usable again.
    let text = send_foreground(&host, &agent, &session, "echo after-$((40+2))").await;
    assert!(text.contains("after-42"), "{text}");
    host.shutdown().await;
}

#[tokio::test]
async fn wait_returns_the_settled_status_and_kill_interrupts_like_sigint() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    let job = background(&host, &agent, &session, "echo waited; (exit 3)").await;
    let r = host
        .call(
            &agent,
            "job_output",
            json!({"job_id": job, "wait": true, "timeout_ms": 30000}),
        )
        .await;
    assert!(r.text().contains("waited"), "{}", r.text());
    assert_eq!(
        status_line(&r.text()),
        "[status: completed, wait: stdin_read, exit: 3]"
    );

    // The kill comes once the command visibly runs, as a model's would.
    let (job, ack) = start_job(&host, &agent, &session, "echo sleeping; sleep 1000").await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut started = ack.lines().any(|l| l == "sleeping");
    while !started {
        let r = host
            .call(&agent, "job_output", json!({"job_id": job}))
            .await;
        started = r.text().lines().any(|l| l == "sleeping");
        assert!(tokio::time::Instant::now() < deadline, "{}", r.text());
        if !started {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let r = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert_eq!(
        r.text(),
        format!(
            "requested cancellation of job {job}; job_output {{\"job_id\": \"{job}\", \"wait\": true}} returns once its work has stopped"
        )
    );
    let r = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    assert!(
        status_line(&r.text()).starts_with("[status: killed, wait: stdin_read"),
        "{}",
        r.text()
    );
    let text = send_foreground(&host, &agent, &session, "echo still-$((1+1))").await;
    assert!(text.contains("still-2"), "{text}");
    // A send right after job_kill waits for the stopping job instead of being refused.
    let job = background(&host, &agent, &session, "sleep 1000").await;
    let r = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert_eq!(
        r.text(),
        format!(
            "requested cancellation of job {job}; job_output {{\"job_id\": \"{job}\", \"wait\": true}} returns once its work has stopped"
        )
    );
    let text = send_foreground(&host, &agent, &session, "echo after-kill").await;
    assert!(text.lines().any(|l| l == "after-kill"), "{text}");
    // Also when the kill has to escalate (the command ignores SIGINT).
    let job = background(
        &host,
        &agent,
        &session,
        "bash -c \"trap '' INT; echo ignoring; sleep 1000\"",
    )
    .await;
    host.until_job_prints(&agent, &job, "ignoring").await;
    host.call(&agent, "job_kill", json!({"job_id": job})).await;
    let text = send_foreground(&host, &agent, &session, "echo after-escalation").await;
    assert!(text.lines().any(|l| l == "after-escalation"), "{text}");
    // And when the command is a script of the shell's own program that handles SIGINT and
    // goes on (its leader stays `bash`, with a command line of its own), or a subshell doing
    // the same (a fork of the session's shell, with its command line, that lives on instead
    // of running a program): no fork of the shell about to run a program, so the escalation's
    // SIGTERM goes to it at once.
    for (command, shown) in [
        (
            "bash -c 'trap \"echo got INT\" INT; echo looping; while :; do sleep 0.2; done'",
            "looping",
        ),
        (
            "( trap 'echo sub INT' INT; echo sub-looping; while :; do sleep 0.2; done )",
            "sub-looping",
        ),
    ] {
        let job = background(&host, &agent, &session, command).await;
        host.until_job_prints(&agent, &job, shown).await;
        host.call(&agent, "job_kill", json!({"job_id": job})).await;
        let r = host
            .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
            .await;
        assert!(
            status_line(&r.text()).starts_with("[status: killed"),
            "{command}: {}",
            r.text()
        );
        // The script may still be on its way out (its SIGTERM comes 3 s after the kill): the
        // text waits for the prompt, however loaded the machine.
        let r = host
            .call(
                &agent,
                "terminal_send",
                json!({"sessionId": session, "text": "echo after-script", "timeoutMs": 30_000}),
            )
            .await;
        let text = r.text();
        assert!(
            !r.is_error && text.lines().any(|l| l == "after-script"),
            "{command}: {text}"
        );
    }
    host.shutdown().await;
}

/// A job whose command runs in the session's shell itself and traps the signals (a loop after
/// `trap '' INT TERM`) outlives job_kill's escalation: a send then says so and that closing the
/// session ends it, instead of waiting again for a stop that will not come; the close does.
#[tokio::test]
async fn a_job_that_outlives_its_kill_says_to_close_the_session() {
    // The job's send must not reach its own deadline (which would end the job) while the
    // escalation runs, however slow a loaded machine makes the steps before it.
    let bash = dsh_terminal_bash::BashConfig {
        timeout_ms: 300_000,
        ..fast_bash()
    };
    let host = Host::with_jobs(ToolTerminalConfig::default(), bash);
    let agent = host.agent("a");
    let session = open(&host, &agent).await;
    let job = background(
        &host,
        &agent,
        &session,
        "trap '' INT TERM; echo looping; while :; do sleep 1; done",
    )
    .await;
    // Killed once the trap is set (the loop runs).
    host.until_job_prints(&agent, &job, "looping").await;
    host.call(&agent, "job_kill", json!({"job_id": job})).await;
    let send = |text: &'static str| host.send(&agent, &session, text);
    // The first send waits out the escalation, a later one answers at once.
    for _ in 0..2 {
        let r = send("echo never").await;
        assert!(r.is_error, "{}", r.text());
        assert!(r.text().contains("job_kill could not stop"), "{}", r.text());
    }
    // The job's status says so too (the send waited out the escalation), and another kill
    // does not claim to do more.
    let stuck = format!(
        "[status: stopping, job_kill could not stop it: its command outlived SIGINT, SIGTERM and \
         SIGKILL to the foreground (it runs in the session's shell itself, such as a loop after \
         trap '' INT TERM); terminal_close {{\"sessionId\": \"{session}\"}} ends the session"
    );
    let r = host
        .call(
            &agent,
            "job_output",
            json!({"job_id": job, "wait": true, "timeout_ms": 2000}),
        )
        .await;
    assert!(r.text().contains(&stuck), "{}", r.text());
    let r = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert!(
        r.text()
            .starts_with(&format!("requested cancellation of job {job} {stuck}")),
        "{}",
        r.text()
    );
    let r = host
        .call(&agent, "terminal_close", json!({"sessionId": session}))
        .await;
    assert!(!r.is_error, "{}", r.text());
    host.shutdown().await;
}

#[tokio::test]
async fn closing_the_session_or_disposing_the_owner_ends_its_jobs() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), fast_bash());
    let jobs = host.ctx.require::<dyn JobRegistry>().unwrap();
    let agent = host.agent("a");
    let session = open(&host, &agent).await;
    let job = background(&host, &agent, &session, "sleep 1000").await;
    let r = host
        .call(&agent, "terminal_close", json!({"sessionId": session}))
        .await;
    assert!(!r.is_error, "{}", r.text());
    // The close names the job it ended.
    assert!(
        r.text()
            .ends_with(&format!("[ended background job {job} (killed)]")),
        "{}",
        r.text()
    );
    let snapshot = jobs.get(&JobId::new(&job), Some(&agent)).unwrap();
    assert!(!snapshot.status.is_live(), "{snapshot:?}");

    let other = host.agent("b");
    let session = open(&host, &other).await;
    let job = background(&host, &other, &session, "sleep 1000").await;
    // Another owner cannot touch it.
    let r = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert_eq!(
        r.text(),
        format!("Error: job {job} belongs to another agent; call job_list to see your own jobs")
    );
    other.dispose().await;
    assert!(jobs.list(Some(&other)).is_empty());
    assert!(host.terminals.list(&other).is_empty());
    host.shutdown().await;
}

#[tokio::test]
async fn the_eleventh_background_send_of_one_owner_is_refused() {
    let host = Host::with_jobs(ToolTerminalConfig::default(), fast_bash());
    let agent = host.agent("a");
    let mut sessions = Vec::new();
    for _ in 0..11 {
        sessions.push(open(&host, &agent).await);
    }
    for session in &sessions[..10] {
        background(&host, &agent, session, "sleep 1000").await;
    }
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": sessions[10], "text": "sleep 1000", "run_in_background": true}),
        )
        .await;
    assert_eq!(
        r.text(),
        "Error: background job limit reached for this owner (limit: 10); use job_kill to stop an unneeded job, wait for it to finish, then retry"
    );
    // Nothing was written to the refused session: it is idle.
    let text = send_foreground(&host, &agent, &sessions[10], "echo free").await;
    assert!(text.contains("free"), "{text}");
    agent.dispose().await;
    host.shutdown().await;
}

#[tokio::test]
async fn silence_longer_than_the_idle_window_does_not_end_a_background_send() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    // Quiet for twice the idle window: a foreground send would settle `inferred_idle`.
    let (job, ack) = start_job(
        &host,
        &agent,
        &session,
        "echo start; sleep 3; echo woke; (exit 4)",
    )
    .await;
    let reads = read_until_settled(&host, &agent, &job).await;
    let all = format!("{ack}\n{}", reads.join("\n"));
    assert_eq!(
        status_line(reads.last().unwrap()),
        "[status: completed, wait: stdin_read, exit: 4]",
        "{reads:?}"
    );
    let lines: Vec<&str> = all
        .lines()
        .filter(|l| *l == "start" || *l == "woke")
        .collect();
    assert_eq!(lines, ["start", "woke"], "{reads:?}");
    host.shutdown().await;
}

/// A background send typed ahead while a command runs (a server blocked in `accept`, which
/// takes text typed ahead once its output has been quiet for the idle window), killed before
/// the shell read it: the interrupt discards the unread line (as the terminal's Ctrl-C does),
/// so it never runs and the next send is not polluted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_a_typed_ahead_background_send_discards_its_line() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({
                "sessionId": session,
                "text": "python3 -c 'import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); s.accept()'",
                "timeoutMs": 1000,
            }),
        )
        .await;
    assert!(r.text().contains("[wait: timeout]"), "{}", r.text());
    let (job, ack) = start_job(&host, &agent, &session, "echo polluted-$((6*7))").await;
    // The terminal echoes the typed-ahead line once it is written.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut seen = ack;
    while !seen.contains("polluted-$") {
        assert!(tokio::time::Instant::now() < deadline, "{seen}");
        let r = host
            .call(&agent, "job_output", json!({"job_id": job, "wait": false}))
            .await;
        seen.push_str(&r.text());
    }
    let r = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert!(!r.is_error, "{}", r.text());
    let r = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    assert!(!r.text().contains("polluted-42"), "{}", r.text());
    assert!(!r.text().contains("[status: running"), "{}", r.text());
    let text = send_foreground(&host, &agent, &session, "echo clean").await;
    assert!(!text.contains("polluted"), "{text}");
    assert!(text.contains("\nclean\n"), "{text}");
    host.call(&agent, "terminal_close", json!({"sessionId": session}))
        .await;
    host.shutdown().await;
}
