//! Background sends typed into a program that already held the terminal (a REPL): the job ends
//! at the program's next prompt without that prompt being a question the job stopped at, so a
//! later send is not said to answer it and `job_kill` leaves the program (the agent started
//! it, not the job).

use serde_json::json;

use dsh_context::Agent;

use crate::support::{Host, fast_bash};

/// A host with background jobs, an agent and a session of it.
async fn jobs_session() -> (Host, Agent, String) {
    let host = Host::with_jobs(
        dsh_tool_terminal::ToolTerminalConfig::default(),
        fast_bash(),
    );
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    (host, agent, session)
}

/// [`jobs_session`] whose shell ran `start` (a REPL that then shows its `>>>` prompt).
async fn repl_session(start: &str) -> (Host, Agent, String) {
    let (host, agent, session) = jobs_session().await;
    let r = host.send(&agent, &session, start).await;
    assert!(r.text().contains(">>> "), "{}", r.text());
    (host, agent, session)
}

/// Node's REPL in `session` runs the next line by itself (`6 * 7 + 1` is `43`); then it is
/// left and the host shut down.
async fn node_runs_a_line_and_exits(host: Host, agent: Agent, session: String) {
    let next = host.send(&agent, &session, "6 * 7 + 1").await.text();
    assert!(next.lines().any(|l| l == "43"), "{next}");
    host.send(&agent, &session, ".exit").await;
    host.shutdown().await;
}

/// [`jobs_session`] whose shell started node's REPL (at its `> ` prompt).
async fn node_session() -> (Host, Agent, String) {
    let (host, agent, session) = jobs_session().await;
    let r = host.send(&agent, &session, "node").await;
    assert!(r.text().lines().any(|l| l == "> "), "{}", r.text());
    (host, agent, session)
}

/// Runs `text` as a background job in `session` and waits for it: its id and its last read.
async fn finished_job(host: &Host, agent: &Agent, session: &str, text: &str) -> (String, String) {
    let (job, ack) = host.start_job(agent, session, text).await;
    let read = host
        .call(agent, "job_output", json!({"job_id": job, "wait": true}))
        .await
        .text();
    (job, format!("{ack}\n{read}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_typed_into_a_running_repl_ends_at_its_next_prompt_and_leaves_it_running() {
    let (host, agent, session) = repl_session("python3 -q").await;

    // A statement that prints and comes back to `>>>`.
    let (job, read) = finished_job(&host, &agent, &session, "print(6 * 7)").await;
    assert!(read.lines().any(|l| l == "42"), "{read}");
    assert!(
        read.contains(
            "input: python3 reads input again (it held the terminal before this job, which is \
             done: the next send goes to it)]"
        ),
        "{read}"
    );
    let kill = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert!(kill.text().contains("already finished"), "{}", kill.text());
    let next = host
        .send(&agent, &session, "print('still', 'here')")
        .await
        .text();
    assert!(next.lines().any(|l| l == "still here"), "{next}");
    assert!(!next.contains("answered the prompt"), "{next}");
    let read = host.job_output(&agent, &job).await;
    assert!(
        read.contains("input: python3 read input again (a later send reached the session)]"),
        "{read}"
    );

    // A statement still running when the job is killed: the interrupt stops the statement,
    // and the REPL stays.
    let (job, _) = host
        .start_job(
            &agent,
            &session,
            "import time; print('sle' + 'eping'); time.sleep(120)",
        )
        .await;
    host.until_job_prints(&agent, &job, "sleeping").await;
    let kill = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert!(!kill.is_error, "{}", kill.text());
    let read = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await
        .text();
    assert!(read.contains("KeyboardInterrupt"), "{read}");
    let next = host
        .send(&agent, &session, "print('alive', 6 * 7)")
        .await
        .text();
    assert!(next.lines().any(|l| l == "alive 42"), "{next}");
    assert!(!next.contains("answered the prompt"), "{next}");
    host.shutdown().await;
}

/// A REPL the shell was replaced by (`exec python3`) is the session's own process: a job typed
/// into it ends at its next prompt as into any REPL that held the terminal before, and
/// `job_kill` leaves it (it ended the whole session, and the REPL's state with it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_typed_into_a_repl_that_replaced_the_shell_leaves_it_running() {
    let (host, agent, session) = repl_session("exec python3 -q").await;
    let (job, read) = finished_job(&host, &agent, &session, "x = 41").await;
    assert!(
        read.contains("reads input again (it held the terminal before this job"),
        "{read}"
    );
    let kill = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert!(kill.text().contains("already finished"), "{}", kill.text());
    let next = host.send(&agent, &session, "print(x + 1)").await.text();
    assert!(next.lines().any(|l| l == "42"), "{next}");
    host.shutdown().await;
}

/// A job's text that asks the REPL for input (`input('…? ')`): the job is done, and its detail
/// says the REPL waits at a prompt of its own, which the next send answers, and says so (it
/// said the REPL read input again, and the agent's next statement became the answer).
/// `job_kill` of the job interrupts the question and leaves the REPL (it did nothing, and the
/// next statement became the answer).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_that_asks_the_repl_for_input_says_the_next_send_answers_it() {
    let (host, agent, session) = repl_session("python3 -q").await;
    let (job, read) = finished_job(&host, &agent, &session, "input('bg-question? ')").await;
    assert!(
        read.contains("input: python3 waits at a prompt of its own, not its REPL's"),
        "{read}"
    );
    let answer = host.send(&agent, &session, "the-answer").await.text();
    assert!(answer.lines().any(|l| l == "'the-answer'"), "{answer}");
    assert!(
        answer.contains(&format!(
            "[input: this text answered the prompt where background job {job} stopped (python3 \
             was waiting for input)"
        )),
        "{answer}"
    );
    let kill = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert!(kill.text().contains("already finished"), "{}", kill.text());
    let next = host.send(&agent, &session, "print(6 * 7)").await.text();
    assert!(next.lines().any(|l| l == "42"), "{next}");

    let (job, _) = finished_job(&host, &agent, &session, "x = input('bg-again? ')").await;
    let kill = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert!(
        kill.text().contains("which job_kill now stops"),
        "{}",
        kill.text()
    );
    assert!(
        kill.text()
            .contains("python3 waited at a prompt of its own (job_kill then sent it SIGINT)"),
        "{}",
        kill.text()
    );
    let next = host.send(&agent, &session, "print(6 * 7 + 1)").await.text();
    assert!(next.lines().any(|l| l == "43"), "{next}");
    assert!(!next.contains("answered the prompt"), "{next}");
    let next = host.send(&agent, &session, "print(2 ** 5)").await.text();
    assert!(next.lines().any(|l| l == "32"), "{next}");
    host.shutdown().await;
}

/// A job typed into a nested shell (`bash --norc`) ends at that shell's next prompt, which is
/// no question the job asked; a `read` it runs there is one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_typed_into_a_nested_shell_ends_at_its_prompt() {
    let (host, agent, session) = jobs_session().await;
    let r = host.send(&agent, &session, "bash --norc").await;
    assert!(!r.is_error, "{}", r.text());
    let (_, read) = finished_job(&host, &agent, &session, "echo in-$((6*7))").await;
    assert!(read.lines().any(|l| l == "in-42"), "{read}");
    assert!(
        read.contains("input: bash reads input again (it held the terminal"),
        "{read}"
    );
    let (_, read) = finished_job(&host, &agent, &session, "read -r -p 'Name: ' n").await;
    assert!(
        read.contains("input: bash waits at a prompt of its own"),
        "{read}"
    );
    host.send(&agent, &session, "ann").await;
    // Its continuation prompt is said to be a shell's.
    let r = host.send(&agent, &session, "if true; then").await;
    assert!(
        r.text().contains(
            "[input: shell continuation prompt; bash (a shell started in this session) waits"
        ),
        "{}",
        r.text()
    );
    host.send(&agent, &session, "fi; exit").await;
    // A shell or REPL the job itself started waits at its command prompt, no question of the
    // job's: the next send runs in it and is not said to answer anything.
    for (start, program, line, printed, leave) in [
        ("bash --norc", "bash", "echo in-$((6*7))", "in-42", "exit"),
        ("python3 -q", "python3", "print(6 * 7)", "42", "exit()"),
    ] {
        let (_, read) = finished_job(&host, &agent, &session, start).await;
        let status = format!(
            "input: {program} reads commands at its prompt (a shell or REPL this job started"
        );
        assert!(read.contains(&status), "{read}");
        let r = host.send(&agent, &session, line).await;
        assert!(r.text().lines().any(|l| l == printed), "{}", r.text());
        assert!(!r.text().contains("answered the prompt"), "{}", r.text());
        host.send(&agent, &session, leave).await;
    }
    host.shutdown().await;
}

/// A job typed into node's REPL whose `await` is still pending when node reads again (it
/// prints no prompt until the promise settles): the job runs on until the REPL's prompt comes
/// back, and its output holds what the awaited code printed and the value (it ended at once,
/// said node waited at a prompt of its own, and left the output to the next send).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_whose_await_is_pending_in_node_runs_until_the_repl_prompts_again() {
    let (host, agent, session) = node_session().await;
    let (_, read) = finished_job(
        &host,
        &agent,
        &session,
        "await new Promise(r => setTimeout(() => { console.log('late-' + 'line'); r(6 * 7) }, 1500))",
    )
    .await;
    assert!(read.lines().any(|l| l == "late-line"), "{read}");
    assert!(read.lines().any(|l| l == "42"), "{read}");
    assert!(
        read.contains("input: node reads input again (it held the terminal"),
        "{read}"
    );
    assert!(!read.contains("a prompt of its own"), "{read}");
    node_runs_a_line_and_exits(host, agent, session).await;
}

/// A job whose command put a REPL in place of the session's shell (`exec python3`): the REPL
/// is the session's own process, so the job's detail says so and `job_kill` of the finished
/// job leaves it (it stopped it, which ended the session silently).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_that_replaced_the_shell_with_a_repl_is_left_running_by_job_kill() {
    let (host, agent, session) = jobs_session().await;
    let (job, read) = finished_job(&host, &agent, &session, "exec python3 -q").await;
    assert!(
        read.contains("input: python3 replaced the session's shell (exec) and still runs"),
        "{read}"
    );
    let kill = host.call(&agent, "job_kill", json!({"job_id": job})).await;
    assert!(kill.text().contains("already finished"), "{}", kill.text());
    assert!(
        kill.text()
            .contains("job_kill leaves it, for ending it ends the session"),
        "{}",
        kill.text()
    );
    let next = host.send(&agent, &session, "print(6 * 7)").await.text();
    assert!(next.lines().any(|l| l == "42"), "{next}");
    assert!(next.contains("[foreground: python3]"), "{next}");
    let read = host.job_output(&agent, &job).await;
    assert!(
        read.contains(
            "input: python3 replaced the session's shell (a later send reached the session)]"
        ),
        "{read}"
    );
    host.shutdown().await;
}

/// A job typed into node's REPL whose timer prints after the REPL's prompt came back: the
/// cursor is on the empty row after that line, which is no question of the job's (the job
/// said node waited at a prompt of its own, which the next send would answer).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_after_a_repls_prompt_is_no_question_of_the_job() {
    let (host, agent, session) = node_session().await;
    let (_, read) = finished_job(
        &host,
        &agent,
        &session,
        "setTimeout(() => console.log('late-' + 'tick'), 30); 6 * 7",
    )
    .await;
    let all = format!("{read}\n{}", host.send(&agent, &session, "").await.text());
    assert!(all.contains("late-tick"), "{all}");
    assert!(!read.contains("a prompt of its own"), "{read}");
    node_runs_a_line_and_exits(host, agent, session).await;
}

/// A job that left a REPL at its continuation prompt (an open block or brace): its status
/// says so, and `job_kill` discards the statement with SIGINT alone, so the next line runs by
/// itself and the REPL stays (the kill said already finished, and the next line was joined to
/// the open statement: an IndentationError, node's `...`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_discards_the_statement_a_job_left_open_in_a_repl() {
    let mut repls = vec![("python3 -q", "if True:", "print(6 * 7)")];
    if crate::support::installed("node") {
        repls.push(("node", "function f() {", "6 * 7"));
    }
    for (start, open, next) in repls {
        let (host, agent, session) = jobs_session().await;
        host.send(&agent, &session, start).await;
        let (job, read) = finished_job(&host, &agent, &session, open).await;
        assert!(
            read.contains("continuation prompt (the program waits for the rest of the statement"),
            "{start}: {read}"
        );
        let kill = host.call(&agent, "job_kill", json!({"job_id": job})).await;
        assert!(
            kill.text().contains("which job_kill now stops")
                && kill
                    .text()
                    .contains("continuation prompt (job_kill then sent it SIGINT)"),
            "{start}: {}",
            kill.text()
        );
        let r = host.send(&agent, &session, next).await.text();
        assert!(r.lines().any(|l| l == "42"), "{start}: {r}");
        host.shutdown().await;
    }
}
