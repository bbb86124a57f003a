//! HTTP sessions idling out: an idle session is closed with its processes; one with a call in
//! flight (also one whose client disconnected) or a background job running is not, and an
//! expired one gets 404.

use serde_json::json;

use crate::http_server::{HttpServerProcess, RawSession, json_error, result_text};
use crate::support::{ProcessWatch, call, ok, shell_pid, within};

/// A server whose sessions idle out after 3 s without a request in flight.
async fn idling_server() -> HttpServerProcess {
    HttpServerProcess::start(&["--session-idle-timeout-ms", "3000"]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_is_closed_with_its_processes() {
    let mut server = idling_server().await;
    let client = server.connect().await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let shell = ProcessWatch::new(shell_pid(&client, "pty-1").await);
    // No request for the idle timeout: the session ends, and its shell with it.
    shell.assert_exits("the idle session's shell").await;
    drop(client);

    server.terminate().await;
}

/// A session is idle only with no request in flight: a send that outlasts the idle timeout is
/// answered and the session stays usable; once it did idle out, a request to it gets 404 saying
/// to initialize a new session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_with_a_call_in_flight_does_not_idle_out() {
    let mut server = idling_server().await;
    let raw = RawSession::open_with_shell(&server.url).await;
    let shell = ProcessWatch::new(raw.shell_pid(3, "pty-1").await);

    // Twice the idle timeout, in flight.
    let started = std::time::Instant::now();
    let answer = raw
        .call(
            4,
            "terminal_send",
            &json!({"sessionId": "pty-1", "text": "sleep 6; echo slept"}),
        )
        .await;
    assert!(
        result_text(&answer).lines().any(|l| l == "slept"),
        "{answer}"
    );
    assert!(started.elapsed().as_secs() >= 6, "{:?}", started.elapsed());
    let answer = raw
        .call(
            5,
            "terminal_send",
            &json!({"sessionId": "pty-1", "text": "echo still-here"}),
        )
        .await;
    assert!(
        result_text(&answer).lines().any(|l| l == "still-here"),
        "{answer}"
    );
    assert!(
        shell.is_running(),
        "the session's shell must survive the long send"
    );

    // Now no request: the session idles out with its shell, and is unknown afterwards.
    shell.assert_exits("the idle session's shell").await;
    let (status, body) = raw
        .post(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}).to_string())
        .await;
    assert_eq!(status, 404, "{body}");
    let error = json_error(&body);
    assert!(
        error.contains("--session-idle-timeout-ms") && error.contains("send initialize"),
        "{error}"
    );

    server.terminate().await;
}

/// A background job still running keeps its agent's session: the agent is told when it ends
/// and need not poll, so a job longer than the idle timeout ends on its own (its notice
/// arrives) and the session stays usable after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_with_a_job_running_does_not_idle_out() {
    let mut server = idling_server().await;
    let (tx, mut logs) = tokio::sync::mpsc::unbounded_channel();
    let client = server.connect_with(crate::jobs::LogClient(tx)).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let shell = ProcessWatch::new(shell_pid(&client, "pty-1").await);
    // Twice the idle timeout, with no request meanwhile.
    let (job, _) = crate::jobs::start_job(&client, "pty-1", "sleep 6; echo job-done").await;
    let (_, text) = within("the job's notice", logs.recv())
        .await
        .expect("log channel");
    assert!(
        text.starts_with(&format!("background job {job} ")) && text.contains("[status: completed"),
        "{text:?}"
    );
    assert!(
        shell.is_running(),
        "the session's shell must outlive the job"
    );
    // (Its result carries the job's notice as a second block.)
    let reply = call(
        &client,
        "terminal_send",
        json!({"sessionId": "pty-1", "text": "echo still-here"}),
    )
    .await;
    assert!(
        !reply.is_error && reply.text.lines().any(|l| l == "still-here"),
        "{reply:?}"
    );
    drop(client);

    server.terminate().await;
}

/// A session's idle time starts when its last background job ended, not at the last check
/// that saw the job running: with a 6 s timeout, a job of 9 s ends between the checks at 6 s
/// and 12 s, and a request 3.5 s after its end still finds the session (it was closed at the
/// 12 s check, 6 s after the running job was last seen).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_time_starts_when_the_last_job_ended() {
    let mut server = HttpServerProcess::start(&["--session-idle-timeout-ms", "6000"]).await;
    let (tx, mut logs) = tokio::sync::mpsc::unbounded_channel();
    let client = server.connect_with(crate::jobs::LogClient(tx)).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let (job, _) = crate::jobs::start_job(&client, "pty-1", "sleep 9; echo job-done").await;
    let (_, text) = within("the job's notice", logs.recv())
        .await
        .expect("log channel");
    assert!(
        text.starts_with(&format!("background job {job} ")),
        "{text:?}"
    );
    // The client is idle for a while after the job's end, well within the timeout.
    tokio::time::sleep(std::time::Duration::from_millis(3500)).await;
    let reply = call(&client, "job_output", json!({"job_id": job})).await;
    assert!(
        !reply.is_error && reply.text.contains("job-done"),
        "{reply:?}"
    );
    drop(client);

    server.terminate().await;
}

/// A tool call whose client dropped the connection goes on (see `http.rs`), and keeps its
/// session from idling out while it runs: the command it started runs to its end, and the
/// session answers afterwards. (Only the request's guard counted: the session idled out
/// behind the running call and its command was killed.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_client_disconnected_keeps_its_session_while_it_runs() {
    let mut server = idling_server().await;
    let raw = RawSession::open_with_shell(&server.url).await;
    let workspace = server.dir.0.join("ws");
    let (started, done) = (workspace.join("started"), workspace.join("done"));

    // Twice the idle timeout, with no request once the client is gone.
    let socket = raw
        .call_on_socket(
            3,
            "terminal_send",
            &json!({"sessionId": "pty-1", "text": "touch started; sleep 6; touch done", "timeoutMs": 60000}),
        )
        .await;
    within("the command to start", file_exists(&started)).await;
    drop(socket);
    within(
        "the disconnected call's command to finish",
        file_exists(&done),
    )
    .await;

    let answer = raw
        .call(
            4,
            "terminal_send",
            &json!({"sessionId": "pty-1", "text": "echo still-here"}),
        )
        .await;
    assert!(
        result_text(&answer).lines().any(|l| l == "still-here"),
        "{answer}"
    );
    server.terminate().await;
}

/// Waits until `path` exists (the session's command made it; no request is sent meanwhile).
async fn file_exists(path: &std::path::Path) {
    while !path.exists() {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
