//! What a background send's job shows: the notices of its last send, a password prompt's text
//! kept out of its label, a script's earlier commands, a full-screen program's screen once, a
//! progress line rewritten, a timeout that does not end it, and a kill of a held send.

use serde_json::json;

use crate::background::{background, finished_job, send_foreground, start_job, status_line};
use crate::support::{Host, job_id};

/// The notices of the send a job settled on end its output, as they end a foreground
/// result: here, that the prompt gave the main screen back from an alternate screen left on.
#[tokio::test]
async fn a_jobs_output_ends_with_the_notices_of_its_last_send() {
    let (host, agent, session, _job, read) =
        finished_job("printf '\\033[?1049h'; echo in-alt").await;
    let notice = "[screen: the program left the alternate screen on";
    let at = read.find(notice).unwrap_or_else(|| panic!("{read}"));
    assert!(read[..at].contains("in-alt\n"), "{read}");
    assert!(read[at..].contains("\n[status: completed"), "{read}");
    host.call(&agent, "terminal_close", json!({"sessionId": session}))
        .await;
    host.shutdown().await;
}

/// Text sent in the background to a prompt with echo off (a password) never shows in the job's
/// label: not in job_list, not in the completion notice or the job's status.
#[tokio::test]
async fn a_background_send_to_an_echo_off_prompt_keeps_its_text_out_of_the_label() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    let prompt = send_foreground(
        &host,
        &agent,
        &session,
        "read -rs -p 'Password: ' pw; echo; echo \"got ${#pw}\"",
    )
    .await;
    assert!(prompt.contains("[input: echo off"), "{prompt}");
    let job = background(&host, &agent, &session, "hunter2-secret").await;
    let r = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    assert!(r.text().contains("got 14"), "{}", r.text());
    let listed = host.call(&agent, "job_list", json!({})).await;
    assert!(
        listed
            .text()
            .contains(&format!("{session}: (hidden input)")),
        "{}",
        listed.text()
    );
    for text in [listed.text(), r.text()] {
        assert!(!text.contains("hunter2"), "{text}");
    }
    // An ordinary send keeps its command as the label, after its status and how it ended (a
    // failed command does not list as plainly completed).
    let job = background(&host, &agent, &session, "echo visible-label; false").await;
    host.call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    let listed = host.call(&agent, "job_list", json!({})).await;
    assert!(
        listed.text().contains(&format!(
            "{job} [pty-send] completed (wait: stdin_read, exit: 1) — {session}: echo visible-label; false"
        )),
        "{}",
        listed.text()
    );
    host.shutdown().await;
}

/// A background script of several commands says which of them failed, as a foreground send
/// would, in the job's status: blank and comment lines are no commands.
#[tokio::test]
async fn a_background_script_reports_its_earlier_commands() {
    let (host, _, _, _, read) =
        finished_job("echo s1\nfalse\n# a comment\n\nls /nonexistent-dsh\necho s2").await;
    assert_eq!(
        status_line(&read),
        "[status: completed, wait: stdin_read, exit: 0, earlier commands exited: 0, 1, 2]",
        "{read}"
    );
    host.shutdown().await;
}

/// A background job that opens a full-screen program: its output holds the program's screen
/// once (each read of the alternate screen renders it whole; an unchanged one is not new).
#[tokio::test]
async fn a_background_full_screen_program_shows_its_screen_once() {
    if !crate::support::installed("less") {
        eprintln!("less is not installed (.ci/run installs it): not exercised");
        return;
    }
    let (host, _, _, _, read) = finished_job("printf 'one\\ntwo\\n' | less").await;
    // The finished screen once: a read may also have caught less drawing it (its lines
    // before its `(END)` prompt), a different screen.
    let copies = read.lines().filter(|l| *l == "(END)").count();
    assert_eq!(copies, 1, "{read}");
    assert!(read.contains("one\ntwo\n(END)"), "{read}");
    // The job is over, the program is not: its status says how to reach or stop it.
    assert!(
        status_line(&read).contains("input: full-screen program (still running:"),
        "{read}"
    );
    host.shutdown().await;
}

/// Progress a background job draws by rewriting its line (`\r`, erase line, cursor to column
/// 1) reaches `job_output` as a terminal shows it: each rewrite replaces the line, however
/// often the job's reads look at it in between, and the lines printed over it keep their
/// leftovers as on screen.
#[tokio::test]
async fn a_background_progress_line_is_rewritten_not_appended() {
    let (host, _, _, _, read) = finished_job(
        "for i in 1 2 3; do printf 'wget %d\\r' $i; sleep 0.2; done; echo; \
         for i in 1 2 3; do printf '\\033[2K\\rpip %d/3' $i; sleep 0.2; done; echo; \
         for i in 1 2; do printf '\\033[1G\\033[Kcargo %d' $i; sleep 0.2; done; echo; \
         for i in 1 2; do echo line$i; printf 'prog %d\\r' $i; sleep 0.2; done; echo",
    )
    .await;
    let lines: Vec<&str> = read.lines().map(str::trim_end).collect();
    for expected in ["wget 3", "pip 3/3", "cargo 2", "line1", "line21", "prog 2"] {
        assert!(lines.contains(&expected), "{expected}: {read}");
    }
    for garbled in [
        "wget 1wget",
        "wget 3wget",
        "pip 1/3pip",
        "cargo 1cargo",
        "prog 1line",
    ] {
        assert!(!read.contains(garbled), "{garbled}: {read}");
    }
    host.shutdown().await;
}

/// `timeoutMs` does not end a background job (its job follows the command to its end): the
/// acknowledgement says so, and the job runs on past it.
#[tokio::test]
async fn a_background_send_says_timeout_ms_does_not_end_its_job() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": session, "text": "sleep 0.5; echo ran-on", "run_in_background": true, "timeoutMs": 1}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    let notice = r.text().lines().last().unwrap_or_default().to_owned();
    insta::assert_snapshot!("background_timeout_notice", notice);
    // The structured output stays what the screen showed.
    let output = r.structured.as_ref().expect("a background result")["output"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(!output.contains("[timeoutMs"), "{output}");
    let job = job_id(&r);
    let out = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await
        .text();
    assert!(out.contains("\nran-on\n"), "{out}");
    host.shutdown().await;
}

/// A background send whose text is still held for a reader (the command before it is at
/// work and reads nothing), killed: the text is dropped unwritten and the command it waited
/// behind goes on, not interrupted for a job that never ran.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_a_held_background_send_leaves_the_command_before_it_running() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": session, "text": "sleep 100", "timeoutMs": 300}),
        )
        .await;
    assert!(r.text().contains("[wait: timeout]"), "{}", r.text());
    let (job, _ack) = start_job(&host, &agent, &session, "echo held-$((6*7))").await;
    let r = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert!(!r.is_error, "{}", r.text());
    let r = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    assert!(!r.text().contains("held-42"), "{}", r.text());
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": session, "text": "", "submit": false, "timeoutMs": 300}),
        )
        .await;
    assert!(r.text().contains("[foreground: sleep]"), "{}", r.text());
    let r = host.signal(&agent, &session, "SIGINT").await;
    assert!(!r.is_error, "{}", r.text());
    let text = send_foreground(&host, &agent, &session, "echo clean").await;
    assert!(!text.contains("held-42"), "{text}");
    assert!(text.contains("\nclean\n"), "{text}");
    host.shutdown().await;
}
