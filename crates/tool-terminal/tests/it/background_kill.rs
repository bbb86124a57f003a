//! `job_kill` of a background send whose program is blocked on something other than the
//! terminal: the job's sends settle on silence again and again while it runs, and the kill's
//! interrupt reaches the program even when it lands as one of them settles. What a finished
//! job left running is in `left_running`.

use dsh_context::Agent;
use dsh_terminal_bash::BashConfig;
use dsh_tool_terminal::ToolTerminalConfig;
use serde_json::json;

use crate::support::Host;

mod left_running;
mod poll_jobs;
mod stragglers;

/// Starts a background send of `text` in `session`; returns the job id once the job's output
/// shows `shown` (read as the job runs, bounded by a deadline).
async fn start_until(host: &Host, agent: &Agent, session: &str, text: &str, shown: &str) -> String {
    let (job, mut read) = host.start_job(agent, session, text).await;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while !read.contains(shown) {
        assert!(tokio::time::Instant::now() < deadline, "{read}");
        let r = host
            .call(
                agent,
                "job_output",
                json!({"job_id": job, "wait": true, "timeout_ms": 100}),
            )
            .await;
        read = r.text();
    }
    job
}

/// Kills `job` and waits for its end; returns the job's last read.
async fn kill_and_wait(host: &Host, agent: &Agent, job: &str) -> String {
    host.call(agent, "job_kill", json!({"job_id": job})).await;
    host.call(
        agent,
        "job_output",
        json!({"job_id": job, "wait": true, "timeout_ms": 30_000}),
    )
    .await
    .text()
}

/// A host with the jobs service, its agent `a` and one open session of that agent.
async fn host_with_session() -> (Host, Agent, String) {
    let host = Host::with_jobs(ToolTerminalConfig::default(), crate::support::fast_bash());
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    (host, agent, session)
}

/// The status line of a job's read.
fn status_line(read: &str) -> &str {
    read.rsplit('\n').next().unwrap_or_default()
}

/// Kills a finished `job` and returns the kill's outcome and text.
async fn kill_finished(host: &Host, agent: &Agent, job: &str) -> (String, String) {
    let r = host.call(agent, "job_kill", json!({"job_id": job})).await;
    assert!(!r.is_error, "{}", r.text());
    let outcome = r
        .structured
        .as_ref()
        .and_then(|s| s.pointer("/outcome"))
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_owned();
    (outcome, r.text())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_as_the_job_settles_on_silence_still_interrupts_its_program() {
    // A short idle window: the job's sends settle on silence every 200 ms, and the kills
    // below land at several phases of that cycle, on a settle among them.
    let bash = BashConfig {
        idle_silence_ms: 200,
        timeout_ms: 20_000,
        ..BashConfig::default()
    };
    let host = Host::with_jobs(ToolTerminalConfig::default(), bash);
    let agent = host.agent("a");
    let session = host.open_session(&agent).await;
    let fifo = std::env::temp_dir().join(format!(
        "dsh-kill-fifo-{}-{:?}",
        std::process::id(),
        std::time::SystemTime::now()
    ));
    let fifo = fifo
        .display()
        .to_string()
        .replace([' ', '{', '}', ':', ','], "");
    let r = host
        .send(&agent, &session, &format!("mkfifo '{fifo}'"))
        .await;
    assert!(!r.is_error, "{}", r.text());
    for round in 0..6u64 {
        // The program blocks opening the FIFO, which no one writes: not the terminal, no
        // timer. It says so itself once it runs (not a fork of the shell about to run it).
        let text = format!("python3 -c \"print('re' + 'ady', flush=True); open('{fifo}').read()\"");
        let job = start_until(&host, &agent, &session, &text, "ready\n").await;
        // Then at several phases of the settle cycle.
        let r = host
            .call(
                &agent,
                "job_output",
                json!({"job_id": job, "wait": true, "timeout_ms": 200 * (round + 1)}),
            )
            .await;
        assert!(r.text().ends_with("[status: running]"), "{}", r.text());
        let text = kill_and_wait(&host, &agent, &job).await;
        assert_eq!(
            status_line(&text),
            "[status: killed, wait: stdin_read, exit: 130]",
            "round {round}: {text}"
        );
    }
    let _ = std::fs::remove_file(&fifo);
    host.shutdown().await;
}

/// `job_kill` stops a program that takes Ctrl-C as a key (node's readline in raw mode pauses at
/// its prompt on it): a kill is a real SIGINT, as a cancelled send's interrupt is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_stops_a_program_that_takes_ctrl_c_as_a_key() {
    if !crate::support::installed("node") {
        return;
    }
    let (host, agent, session) = host_with_session().await;
    let text = "node -e 'const rl = require(\"readline\").createInterface({input: process.stdin, \
        output: process.stdout}); setInterval(() => {}, 5000); \
        rl.question(\"Project name: \", (a) => { console.log(\"got \" + a); process.exit(0) })'";
    // Killed at its prompt, in raw mode.
    let job = start_until(&host, &agent, &session, text, "Project name:").await;
    let text = kill_and_wait(&host, &agent, &job).await;
    assert_eq!(
        status_line(&text),
        "[status: killed, wait: stdin_read, exit: 130]",
        "{text}"
    );
    let r = host.send(&agent, &session, "echo alive").await;
    assert!(r.text().lines().any(|l| l == "alive"), "{}", r.text());
    host.shutdown().await;
}

/// A kill that lands while the command runs, whose program ignores SIGINT and reaches its
/// prompt before the kill's escalation: the program is stopped all the same, and the next
/// send runs in the shell, not as the program's answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_in_flight_stops_the_program_even_once_it_waits_at_its_prompt() {
    let (host, agent, session) = host_with_session().await;
    let text = "python3 -c \"import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n\
        print('ready', flush=True)\ntime.sleep(1.5)\nprint('GOT', input('p? '))\"";
    let job = start_until(&host, &agent, &session, text, "ready").await;
    host.call(&agent, "job_kill", json!({"job_id": job})).await;
    let r = host.send(&agent, &session, "echo inshell-$((6*7))").await;
    let out = r.text();
    assert!(out.lines().any(|l| l == "inshell-42"), "{out}");
    assert!(!out.contains("GOT"), "{out}");
    assert!(!out.contains("answered the prompt"), "{out}");
    let r = host.job_output(&agent, &job).await;
    assert!(status_line(&r).starts_with("[status: killed"), "{r}");
    assert!(!r.contains("still running"), "{r}");
    host.shutdown().await;
}

/// A signal that leaves a job's leftover program running (vim takes SIGINT and stays): the
/// job still says it runs, and `job_kill` still stops it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_that_leaves_a_jobs_program_running_leaves_job_kill_to_stop_it() {
    if !crate::support::installed("vim") {
        return;
    }
    let (host, agent, session) = host_with_session().await;
    let file = std::env::temp_dir().join(format!(
        "dsh-leftover-sigint-{}-{}.txt",
        std::process::id(),
        session
    ));
    let (job, _) = host
        .start_job(
            &agent,
            &session,
            &format!("vim -u NONE -N {}", file.display()),
        )
        .await;
    let r = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    assert!(
        r.text().contains("full-screen program (still running"),
        "{}",
        r.text()
    );
    let r = host.signal(&agent, &session, "SIGINT").await;
    assert!(!r.is_error, "{}", r.text());
    let r = host
        .call(&agent, "job_output", json!({"job_id": job}))
        .await;
    assert!(
        r.text().contains("full-screen program (still running"),
        "{}",
        r.text()
    );
    let (outcome, said) = kill_finished(&host, &agent, &job).await;
    assert_eq!(outcome, "leftover-interrupted", "{said}");
    let r = host.send(&agent, &session, "echo next-$((6*7))").await;
    let out = r.text();
    let _ = std::fs::remove_file(&file);
    assert!(out.lines().any(|l| l == "next-42"), "{out}");
    host.shutdown().await;
}

/// A kill the command line runs through (the session's shell ignores SIGINT and SIGTERM, and
/// so does each program it starts, so SIGKILL stops only the one running) leaves the job
/// completed, saying the kill did not stop it; a program that ends cleanly on the interrupt
/// (exit 0) was stopped by it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_the_command_line_runs_through_is_not_reported_as_a_kill() {
    let (host, agent, session) = host_with_session().await;
    let job = start_until(
        &host,
        &agent,
        &session,
        "python3 -c \"import signal, sys, time; signal.signal(signal.SIGINT, lambda *a: sys.exit(0)); print('up', flush=True); time.sleep(100)\"",
        "up",
    )
    .await;
    let read = kill_and_wait(&host, &agent, &job).await;
    assert!(status_line(&read).starts_with("[status: killed"), "{read}");
    assert!(!read.contains("[job: job_kill did not stop"), "{read}");
    host.send(&agent, &session, "trap '' INT TERM").await;
    let job = start_until(
        &host,
        &agent,
        &session,
        "for i in 1 2 3 4 5 6 7 8 9; do echo n$i; sleep 1; done; echo LOOP-END",
        "n1",
    )
    .await;
    let read = kill_and_wait(&host, &agent, &job).await;
    assert!(read.contains("LOOP-END"), "{read}");
    assert!(
        read.contains("[job: job_kill did not stop the command line"),
        "{read}"
    );
    assert!(
        status_line(&read).starts_with("[status: completed"),
        "{read}"
    );
    host.shutdown().await;
}

/// `job_kill` of a running job whose program outlives the interrupt and then waits at a prompt
/// of its own (`really quit?`): the job is followed while the kill escalates, so what the
/// program prints as SIGTERM ends it, its exit status and the shell's prompt end this job's
/// output, not the next send's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_that_outlives_the_interrupt_ends_within_its_killed_job() {
    let (host, agent, session) = host_with_session().await;
    let script =
        std::env::temp_dir().join(format!("dsh-outlives-{}-{session}.py", std::process::id()));
    std::fs::write(
        &script,
        "import signal, sys, time\n\
         def term(*_):\n    print('bye-' + 'term', flush=True)\n    sys.exit(5)\n\
         signal.signal(signal.SIGTERM, term)\n\
         print('re' + 'ady', flush=True)\n\
         try:\n    time.sleep(100)\n\
         except KeyboardInterrupt:\n    input('really quit? ')\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let text = format!("python3 {}", script.display());
    let job = start_until(&host, &agent, &session, &text, "ready\n").await;
    let text = kill_and_wait(&host, &agent, &job).await;
    let _ = std::fs::remove_file(&script);
    // (Printed on the prompt's line, where the cursor was.)
    assert!(text.contains("really quit? bye-term\n"), "{text}");
    assert_eq!(
        status_line(&text),
        "[status: killed, wait: stdin_read, exit: 5]",
        "{text}"
    );
    let r = host.send(&agent, &session, "echo alive").await;
    let out = r.text();
    assert!(out.lines().any(|l| l == "alive"), "{out}");
    assert!(
        !out.contains("bye-term") && !out.contains("exited: 5"),
        "{out}"
    );
    // Keys a job typed into an editor an earlier job left open: the kill's escalation ends
    // the editor, and its last words and exit stay with the killed job.
    if crate::support::installed("vim") {
        let file = std::env::temp_dir().join(format!(
            "dsh-outlives-vim-{}-{session}.txt",
            std::process::id()
        ));
        let vim = format!("vim -u NONE -N {}", file.display());
        let (job, _) = host.start_job(&agent, &session, &vim).await;
        host.call(&agent, "job_output", json!({"job_id": job, "wait": true}))
            .await;
        let (job, _) = host.start_job(&agent, &session, "ihello").await;
        let text = kill_and_wait(&host, &agent, &job).await;
        let r = host.send(&agent, &session, "echo after-vim").await;
        let out = r.text();
        // vim ended by a signal keeps its swap file beside the file.
        let swap = file.with_file_name(format!(
            ".{}.swp",
            file.file_name().unwrap_or_default().to_string_lossy()
        ));
        let _ = std::fs::remove_file(&file);
        let _ = std::fs::remove_file(&swap);
        assert!(out.lines().any(|l| l == "after-vim"), "{text}\n---\n{out}");
        assert!(
            !out.contains("Vim:") && !out.contains("exited"),
            "{text}\n---\n{out}"
        );
    }
    host.shutdown().await;
}

/// A command line whose shell ignores SIGINT, killed: SIGTERM stops the program running then,
/// and the line runs on to exit 0. The job counts as killed, and says the line may have run on
/// (as a program that shuts down cleanly on SIGTERM would end the same way).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_that_runs_on_past_sigterm_says_so() {
    let (host, agent, session) = host_with_session().await;
    let job = start_until(
        &host,
        &agent,
        &session,
        "trap '' INT; echo st$((1+1))rt; sleep 60; echo survived",
        "st2rt",
    )
    .await;
    let read = kill_and_wait(&host, &agent, &job).await;
    assert!(read.lines().any(|l| l == "survived"), "{read}");
    assert!(
        read.contains("[job: the command line ended with exit 0 after job_kill's SIGTERM"),
        "{read}"
    );
    assert!(status_line(&read).starts_with("[status: killed"), "{read}");
    host.shutdown().await;
}

/// `job_kill` of a background send to node's REPL waiting on a top-level `await`: node takes
/// the interrupt as Ctrl-C (the terminal's signal keys are off), drops the await and stays at
/// its prompt with what it held (a real SIGINT ended node and everything in it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_of_a_send_to_node_awaiting_keeps_the_repl() {
    if !crate::support::installed("node") {
        return;
    }
    let (host, agent, session) = host_with_session().await;
    host.send(&agent, &session, "node").await;
    host.send(&agent, &session, "var keep = 7").await;
    let (job, _) = host
        .start_job(
            &agent,
            &session,
            "await new Promise(r => setTimeout(r, 60000)); 'resolved'",
        )
        .await;
    let text = kill_and_wait(&host, &agent, &job).await;
    assert!(status_line(&text).starts_with("[status: killed"), "{text}");
    let r = host.send(&agent, &session, "keep * 6").await;
    assert!(r.text().lines().any(|l| l == "42"), "{}", r.text());
    host.send(&agent, &session, ".exit").await;
    host.shutdown().await;
}

/// `job_kill` of a program a nested shell runs that ignores SIGINT and ends at the SIGTERM
/// that follows: the SIGKILL after it does not go to the nested shell, back at its prompt
/// once the program ended (the kill was never meant for it; it was killed, and the next
/// command ran in the outer shell).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_escalates_only_against_the_group_it_began_with() {
    let (host, agent, session) = host_with_session().await;
    host.send(&agent, &session, "bash --norc").await;
    let job = start_until(
        &host,
        &agent,
        &session,
        "python3 -c \"import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); print('ign' + 'oring'); time.sleep(60)\"",
        "ignoring",
    )
    .await;
    let text = kill_and_wait(&host, &agent, &job).await;
    assert!(status_line(&text).starts_with("[status: killed"), "{text}");
    // Past the SIGKILL's due time: the nested shell is still there.
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": session, "text": "sleep 4; echo nested-$((6*7)) $0", "timeoutMs": 30_000}),
        )
        .await;
    assert!(
        r.text().lines().any(|l| l == "nested-42 bash"),
        "{}",
        r.text()
    );
    let r = host.send(&agent, &session, "exit").await;
    assert!(r.text().contains("dsh> "), "{}", r.text());
    host.shutdown().await;
}

/// `job_kill` of a job whose text still waited for a program an earlier send left running
/// to read: nothing of the job was typed, and that program runs on. The job's result says
/// so, not that a deadline passed (the advice to wait again was for a send still waiting).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_before_the_text_was_typed_says_the_program_runs_on() {
    let (host, agent, session) = host_with_session().await;
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": session, "text": "sleep 60", "timeoutMs": 300}),
        )
        .await;
    assert!(r.text().contains("[wait: timeout]"), "{}", r.text());
    let (job, _) = host.start_job(&agent, &session, "echo typed-late").await;
    let text = kill_and_wait(&host, &agent, &job).await;
    assert!(status_line(&text).starts_with("[status: killed"), "{text}");
    assert!(
        text.contains("[cancelled before any of the text was typed") && !text.contains("[timeout:"),
        "{text}"
    );
    assert!(!text.contains("typed-late\n"), "{text}");
    let poll = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": session, "text": "", "submit": false, "timeoutMs": 300}),
        )
        .await;
    assert!(
        poll.text().contains("[foreground: sleep]"),
        "{}",
        poll.text()
    );
    host.signal(&agent, &session, "SIGINT").await;
    let next = host.send(&agent, &session, "echo after").await.text();
    assert!(next.lines().any(|l| l == "after"), "{next}");
    assert!(!next.contains("typed-late"), "{next}");
    host.shutdown().await;
}
