//! Background jobs that stop at a program's prompt (a line, a single key, a password) or
//! leave text on the shell's input line, and the sends that answer them, against real bash.

use dsh_context::Agent;
use serde_json::json;

use crate::background::{background, finished_job, send_foreground, start_job, status_line};
use crate::support::{Host, job_id};

/// A send of `text` without Enter; returns its text.
async fn send_unended(host: &Host, agent: &Agent, session: &str, text: &str) -> String {
    host.call(
        agent,
        "terminal_send",
        json!({"sessionId": session, "text": text, "submit": false}),
    )
    .await
    .text()
}

/// The notice a send gets when it answered the prompt job `job` stopped at.
fn answered_notice(job: &str) -> String {
    format!("[input: this text answered the prompt where background job {job} stopped")
}

/// A background job that stopped at a program's own prompt (not its shell's): the job says
/// the program waits for input, and the next foreground send, which answers that prompt,
/// says so once.
#[tokio::test]
async fn the_send_after_a_job_stopped_at_a_prompt_says_it_answered_it() {
    let (host, agent, session, job, read) =
        finished_job("read -r -p 'Overwrite? [y/N] ' a; echo \"answered=$a\"").await;
    assert!(
        status_line(&read).ends_with(
            ", input: waits for input (still running: the next send answers it, job_kill stops it)]"
        ),
        "{read}"
    );
    let answer = send_foreground(&host, &agent, &session, "y").await;
    assert!(answer.contains("answered=y"), "{answer}");
    assert!(answer.contains(&answered_notice(&job)), "{answer}");
    let next = send_foreground(&host, &agent, &session, "echo plain").await;
    assert!(!next.contains("answered the prompt"), "{next}");
    // The job's status no longer says the program still waits.
    let again = host.job_output(&agent, &job).await;
    assert!(
        status_line(&again).ends_with(", input: waited for input (a later send answered it; job_kill of this job no longer stops that program)]"),
        "{again}"
    );
    // A background send that answers such a prompt says so in its acknowledgement.
    let job = background(
        &host,
        &agent,
        &session,
        "read -r -p 'Name? ' n; echo \"name=$n\"",
    )
    .await;
    host.call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    let (_, ack) = start_job(&host, &agent, &session, "Ada").await;
    assert!(ack.contains(&answered_notice(&job)), "{ack}");
    host.shutdown().await;
}

/// A poll after a job stopped at a prompt types nothing, so it answers nothing: the notice
/// goes with the send that does. After a signal that ended the program asking, no send is
/// said to answer it.
#[tokio::test]
async fn only_a_send_that_types_is_said_to_answer_the_prompt_a_job_stopped_at() {
    let (host, agent, session, job, _) =
        finished_job("read -r -p 'Name? ' a; echo \"name=$a\"").await;
    let poll = send_unended(&host, &agent, &session, "").await;
    assert!(!poll.contains("answered the prompt"), "{poll}");
    let answer = send_foreground(&host, &agent, &session, "Zed").await;
    assert!(answer.contains("name=Zed"), "{answer}");
    assert!(answer.contains(&answered_notice(&job)), "{answer}");
    let job = background(&host, &agent, &session, "read -r -p 'Again? ' b").await;
    let r = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    assert!(r.text().contains("waits for input"), "{}", r.text());
    let signal = host.signal(&agent, &session, "SIGINT").await;
    assert!(!signal.is_error, "{}", signal.text());
    let next = send_foreground(&host, &agent, &session, "echo after-$((6*7))").await;
    assert!(next.contains("\nafter-42\n"), "{next}");
    assert!(!next.contains("answered the prompt"), "{next}");
    // The signal ended the `read`: the shell's prompt came back, as the status says.
    host.until_job_status(
        &agent,
        &job,
        ", input: waited for input (the shell's prompt came back since: the next send runs as a shell command, not as its input)]",
    )
    .await;
    host.shutdown().await;
}

/// A signal that ends the program a job left waiting (the shell's own `read`, a Python
/// `input()`) puts the job's status in the past at once: a status read right after the
/// signal no longer says the next send answers the program (the text then ran in the shell).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_that_ends_the_program_a_job_left_puts_its_status_in_the_past_at_once() {
    let host = Host::with_jobs(
        dsh_tool_terminal::ToolTerminalConfig::default(),
        crate::support::fast_bash(),
    );
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    for left in [
        "read -r -p 'Name? ' a; echo \"name=$a\"",
        "python3 -c \"x = input('Name? '); print('got', x)\"",
    ] {
        let job = background(&host, &agent, &session, left).await;
        let read = host.wait_job(&agent, &job).await;
        assert!(read.contains("waits for input (still running"), "{read}");
        let signal = host.signal(&agent, &session, "SIGINT").await;
        assert!(!signal.is_error, "{}", signal.text());
        let status = host
            .call(&agent, "job_output", json!({"job_id": job}))
            .await
            .text();
        assert!(
            status.contains(
                "waited for input (the shell's prompt came back since: the next send runs as a shell command, not as its input)]"
            ),
            "{left}: {status}"
        );
        let next = send_foreground(&host, &agent, &session, "echo after-$((6*7))").await;
        assert!(next.contains("\nafter-42\n"), "{next}");
    }
    host.shutdown().await;
}

/// A background send typed without Enter at the shell's prompt: the job says the text waits
/// on the input line (nothing runs), and the next send, which continues that line, claims to
/// answer no prompt.
#[tokio::test]
async fn a_background_send_without_enter_says_its_text_waits_on_the_input_line() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": session, "text": "echo typ", "submit": false, "run_in_background": true}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    let job = job_id(&r);
    let read = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await
        .text();
    assert!(
        status_line(&read).ends_with(
            ", input: typed without Enter (the text waits on the shell's input line; the next send continues it)]"
        ),
        "{read}"
    );
    let next = send_foreground(&host, &agent, &session, "ed").await;
    assert!(next.contains("\ntyped\n"), "{next}");
    assert!(!next.contains("answered the prompt"), "{next}");
    let again = host.job_output(&agent, &job).await;
    assert!(
        status_line(&again)
            .ends_with(", input: typed without Enter (a later send reached the session)]"),
        "{again}"
    );
    host.shutdown().await;
}

/// Text without Enter at a job's leftover line prompt waits on its input line: it answers
/// nothing yet, and the job still says the program waits; the Enter that follows answers it.
#[tokio::test]
async fn text_without_enter_at_a_jobs_leftover_prompt_answers_it_only_with_the_enter() {
    let (host, agent, session, job, _) =
        finished_job("read -r -p 'Name? ' x; echo \"got=[$x]\"").await;
    let part = send_unended(&host, &agent, &session, "al").await;
    assert!(!part.contains("answered the prompt"), "{part}");
    let r = host.job_output(&agent, &job).await;
    assert!(r.contains("waits for input (still running"), "{r}");
    let rest = send_foreground(&host, &agent, &session, "ice").await;
    assert!(rest.contains("got=[alice]"), "{rest}");
    assert!(rest.contains("answered the prompt"), "{rest}");
    host.shutdown().await;
}

/// The same for a question for one key: a key sent without Enter answers it.
#[tokio::test]
async fn the_key_after_a_job_stopped_at_a_single_key_prompt_says_it_answered_it() {
    let (host, agent, session, job, read) =
        finished_job("read -r -n 1 -p 'Proceed? [y/N] ' k; echo; echo \"key=$k\"").await;
    assert!(
        status_line(&read).ends_with(
            ", input: single keys (still running: the next send, with submit false, answers it; job_kill stops it)]"
        ),
        "{read}"
    );
    let answer = send_unended(&host, &agent, &session, "y").await;
    assert!(answer.contains("key=y"), "{answer}");
    assert!(answer.contains(&answered_notice(&job)), "{answer}");
    let again = host.job_output(&agent, &job).await;
    assert!(
        status_line(&again).ends_with(", input: single keys (a later send answered it; job_kill of this job no longer stops that program)]"),
        "{again}"
    );
    host.shutdown().await;
}

/// The same for a password prompt (echo off): the answer says it answered it, and the secret
/// shows nowhere.
#[tokio::test]
async fn the_send_after_a_job_stopped_at_a_password_prompt_says_it_answered_it() {
    let (host, agent, session, job, read) =
        finished_job("read -r -s -p 'Password: ' pw; echo; echo \"len=${#pw}\"").await;
    assert!(
        status_line(&read).ends_with(
            ", input: echo off, a password prompt? (still running: the next send answers it, job_kill stops it)]"
        ),
        "{read}"
    );
    let answer = send_foreground(&host, &agent, &session, "hunter2").await;
    assert!(answer.contains("len=7"), "{answer}");
    assert!(!answer.contains("hunter2"), "{answer}");
    assert!(answer.contains(&answered_notice(&job)), "{answer}");
    let again = host.job_output(&agent, &job).await;
    assert!(
        status_line(&again)
            .ends_with(", input: echo off, a password prompt? (a later send answered it; job_kill of this job no longer stops that program)]"),
        "{again}"
    );
    host.shutdown().await;
}

/// A background send of lines with no command (empty, blank, a comment) leaves the shell at
/// its prompt: the job says nothing waits, and the next send answers no prompt.
#[tokio::test]
async fn a_background_send_with_no_command_leaves_nothing_waiting() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    for text in ["", "   ", "# just a comment"] {
        let job = background(&host, &agent, &session, text).await;
        let read = host.wait_job(&agent, &job).await;
        assert!(!status_line(&read).contains("input:"), "{text:?}: {read}");
        let next = send_foreground(&host, &agent, &session, "echo hello").await;
        assert!(!next.contains(&answered_notice(&job)), "{text:?}: {next}");
        assert!(next.lines().any(|l| l == "hello"), "{next}");
    }
    host.shutdown().await;
}

/// A background job that left the shell's command unfinished (an open `if`) says so, and
/// `job_kill` of it discards that command: the next send runs on its own, not inside it.
#[tokio::test]
async fn job_kill_discards_the_command_a_job_left_unfinished() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    let job = background(&host, &agent, &session, "if true; then").await;
    let read = host.wait_job(&agent, &job).await;
    assert!(
        status_line(&read).contains("input: continuation prompt (the shell waits"),
        "{read}"
    );
    let kill = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert!(!kill.is_error, "{}", kill.text());
    let next = send_foreground(&host, &agent, &session, "echo after-$((6*7))").await;
    assert!(next.lines().any(|l| l == "after-42"), "{next}");
    assert!(next.contains("[exit: 0]"), "{next}");
    // Without the kill, the next send continues the command.
    let job = background(&host, &agent, &session, "if true; then").await;
    host.wait_job(&agent, &job).await;
    let next = send_foreground(&host, &agent, &session, "echo inside; fi").await;
    assert!(next.lines().any(|l| l == "inside"), "{next}");
    assert!(!next.contains("answered the prompt"), "{next}");
    host.shutdown().await;
}

/// A job that stopped at a prompt that went away by itself since (`read -t` ran out, a REPL
/// exited) before the next send, nothing having shown the agent that: that send's text was
/// meant as the answer, and is refused once instead of running as a shell command at the
/// prompt that came back (an answer `yes` ran `yes`); sent again, it runs. A poll, a read of
/// the job's status once it says the prompt came back, a job list showing that, or a
/// `job_kill` of the job clears the refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_for_a_prompt_a_job_left_that_went_away_is_refused_once() {
    let host = Host::with_jobs(
        dsh_tool_terminal::ToolTerminalConfig::default(),
        crate::support::fast_bash(),
    );
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let id = dsh_terminal_core::SessionId::new(session.clone());
    // Until the shell draws a prompt after the job ended (nothing the agent sees).
    let until_prompt_back = || async {
        let drawn = host.terminals.prompts_drawn(&agent, &id);
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        while host.terminals.prompts_drawn(&agent, &id) == drawn {
            assert!(
                tokio::time::Instant::now() < deadline,
                "no prompt came back"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    for (left, meant) in [
        ("read -t 2 -p 'Answer? ' a; echo got:$a", "echo ANSWER-RAN"),
        (
            "python3 -i -c \"import os, threading; threading.Timer(2, lambda: os._exit(3)).start()\"",
            "print('ANSWER' + '-RAN')",
        ),
    ] {
        let job = background(&host, &agent, &session, left).await;
        let read = host.wait_job(&agent, &job).await;
        assert!(read.contains("the next send"), "{read}");
        until_prompt_back().await;
        let r = host.send(&agent, &session, meant).await;
        assert!(r.is_error, "{}", r.text());
        assert!(
            r.text().contains(&format!(
                "which background job {job} left waiting for the next send, has ended since"
            )),
            "{}",
            r.text()
        );
        // Sent again, it goes (to the shell).
        let r = host.send(&agent, &session, meant).await;
        assert!(!r.is_error && r.text().contains("dsh> "), "{}", r.text());
    }
    // A poll first, the job's status read or listed once it says so, or a kill of the job:
    // the guard is cleared.
    let came_back = "(the shell's prompt came back since: the next send runs as a shell command, not as its input)";
    for shown in ["poll", "job_output", "job_list", "job_kill"] {
        let job = background(&host, &agent, &session, "read -t 2 -p 'Again? ' a").await;
        host.wait_job(&agent, &job).await;
        until_prompt_back().await;
        match shown {
            "poll" => {
                host.call(
                    &agent,
                    "terminal_send",
                    json!({"sessionId": session, "text": "", "submit": false}),
                )
                .await;
            }
            "job_output" => {
                host.until_job_status(&agent, &job, &format!("{came_back}]"))
                    .await;
            }
            "job_list" => {
                let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
                loop {
                    let list = host.call(&agent, "job_list", json!({})).await.text();
                    if list
                        .lines()
                        .any(|l| l.contains(&job) && l.contains(came_back))
                    {
                        break;
                    }
                    assert!(tokio::time::Instant::now() < deadline, "{list}");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
            }
            _ => {
                let kill = host.call(&agent, "job_kill", json!({"job_id": job})).await;
                assert!(!kill.is_error, "{}", kill.text());
            }
        }
        let r = host.send(&agent, &session, "echo shown-first").await;
        assert!(
            r.text().lines().any(|l| l == "shown-first"),
            "{shown}: {}",
            r.text()
        );
    }
    host.shutdown().await;
}

/// A background job whose command took the prompt marks off the screen (`unset PS1
/// PROMPT_COMMAND`, or the shell's stderr sent elsewhere, where its prompt goes): the shell
/// is back at its prompt, not at a question of the job's, so the job does not say something
/// waits for input, `job_kill` leaves the shell, and the next send is not said to answer
/// the job.
#[tokio::test]
async fn a_job_that_took_the_prompt_marks_away_is_not_waiting_for_input() {
    for (command, mend) in [
        ("unset PS1 PROMPT_COMMAND", None),
        ("exec 2>/dev/null", Some("exec 2>/dev/tty")),
    ] {
        let (host, agent, session, job, read) = finished_job(command).await;
        assert!(
            status_line(&read).contains("input: the shell reads with no prompt mark on the screen")
                && !read.contains("waits for input"),
            "{command}: {read}"
        );
        let kill = host.call(&agent, "job_kill", json!({"job_id": job})).await;
        assert!(
            kill.text().contains("already finished"),
            "{command}: {}",
            kill.text()
        );
        let next = send_foreground(&host, &agent, &session, "echo after-$((6*7))").await;
        assert!(next.contains("after-42"), "{command}: {next}");
        assert!(!next.contains(&answered_notice(&job)), "{command}: {next}");
        if let Some(mend) = mend {
            send_foreground(&host, &agent, &session, mend).await;
        }
        host.call(&agent, "terminal_close", json!({"sessionId": session}))
            .await;
        host.shutdown().await;
    }
}

/// A background job whose lines a signal dropped before they were typed (they waited behind a
/// command still running): it ended at the shell's prompt with an earlier command's status,
/// not "waiting for input", and the next send is no answer to it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_whose_lines_a_signal_dropped_is_not_said_to_wait() {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": session, "text": "sleep 30; echo done", "timeoutMs": 800}),
        )
        .await;
    assert!(r.text().contains("[wait: timeout]"), "{}", r.text());
    let job = background(&host, &agent, &session, "echo hi\necho there").await;
    host.signal(&agent, &session, "SIGINT").await;
    let read = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await
        .text();
    assert!(read.contains("130"), "{read}");
    assert!(!read.contains("waits for input"), "{read}");
    let r = send_foreground(&host, &agent, &session, "echo after").await;
    assert!(!r.contains("answered the prompt"), "{r}");
    host.call(&agent, "terminal_close", json!({"sessionId": session}))
        .await;
    host.shutdown().await;
}
