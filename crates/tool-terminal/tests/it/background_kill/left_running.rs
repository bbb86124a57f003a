//! A program a finished background job left running (it stopped at the program's prompt):
//! `job_kill` stops it, a later send or a close puts it in the past, and so does its own end.

use super::*;

/// `job_kill` of a job that ended at a program's input prompt stops that program (SIGINT), so
/// the next command runs in the shell instead of answering the prompt; a job that ended at
/// the shell's prompt, or whose prompt a send answered since, is only "already finished".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_after_a_job_stopped_at_a_prompt_stops_the_program_left_waiting() {
    let (host, agent, session) = host_with_session().await;
    // A REPL takes SIGINT at its prompt and stays: it gets SIGTERM too.
    // A question waits for input; a REPL the job started reads commands at its prompt.
    const ASKS: (&str, &str) = ("waits for input", "waited for input");
    const REPL: (&str, &str) = (
        "reads commands at its prompt",
        "read commands at its prompt",
    );
    let mut asking = vec![
        (
            "python3 -c \"x = input('Overwrite? '); print('x', x)\"",
            ASKS,
        ),
        ("read -r -p 'Name? ' n; echo \"name=$n\"", ASKS),
        ("python3 -q", REPL),
    ];
    if crate::support::installed("node") {
        asking.push(("node", REPL));
    }
    for (asking, (waits, waited)) in asking {
        let (job, _) = host.start_job(&agent, &session, asking).await;
        let r = host
            .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
            .await;
        assert!(r.text().contains(waits), "{}", r.text());
        let (outcome, text) = kill_finished(&host, &agent, &job).await;
        assert_eq!(outcome, "leftover-interrupted", "{text}");
        assert!(text.contains("which job_kill now stops"), "{text}");
        // The job's status says so from now on.
        let r = host
            .call(&agent, "job_output", json!({"job_id": job}))
            .await;
        assert!(
            r.text()
                .contains(&format!("{waited} (job_kill then sent it SIGINT"))
                && !r.text().contains("still running"),
            "{}",
            r.text()
        );
        let r = host.send(&agent, &session, "echo next-ran").await;
        let text = r.text();
        assert!(text.lines().any(|l| l == "next-ran"), "{text}");
        assert!(!text.contains("answered the prompt"), "{text}");
        assert!(
            !text.contains("x echo") && !text.contains("name=echo"),
            "{text}"
        );
        // Once is all: the program is gone.
        assert_eq!(
            kill_finished(&host, &agent, &job).await.0,
            "already-finished"
        );
    }
    // Ended at the shell's prompt: nothing is left to stop.
    let (job, _) = host.start_job(&agent, &session, "echo done-here").await;
    host.call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    assert_eq!(
        kill_finished(&host, &agent, &job).await.0,
        "already-finished"
    );
    // A send answered the prompt since: the kill leaves what runs now alone.
    let (job, _) = host
        .start_job(
            &agent,
            &session,
            "read -r -p 'Name? ' n; echo \"name=$n\"; sleep 30",
        )
        .await;
    host.call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    let next = start_until(&host, &agent, &session, "Ada", "name=Ada\n").await;
    assert_eq!(
        kill_finished(&host, &agent, &job).await.0,
        "already-finished"
    );
    let r = host
        .call(&agent, "job_output", json!({"job_id": next}))
        .await;
    assert!(r.text().ends_with("[status: running]"), "{}", r.text());
    let text = kill_and_wait(&host, &agent, &next).await;
    assert!(text.ends_with("exit: 130]"), "{text}");
    // A REPL the job started, that a send went to since: the agent drives it now (its
    // variables are the work of those sends), and the kill leaves it alone.
    let (job, _) = host.start_job(&agent, &session, "python3 -q").await;
    host.call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    host.send(&agent, &session, "kept = 6 * 7").await;
    assert_eq!(
        kill_finished(&host, &agent, &job).await.0,
        "already-finished"
    );
    let r = host.call(&agent, "job_list", json!({})).await;
    assert!(
        r.text()
            .contains("read commands at its prompt (a later send went to it; job_kill of this job no longer stops that program)"),
        "{}",
        r.text()
    );
    let r = host.send(&agent, &session, "print(kept)").await;
    assert!(r.text().lines().any(|l| l == "42"), "{}", r.text());
    host.send(&agent, &session, "exit()").await;
    host.shutdown().await;
}

/// `job_kill` of a job that ended with a program still running in its session, other than at
/// a line prompt (a pager or an editor on the alternate screen, a password prompt, a program
/// that ignores SIGINT and SIGTERM): the kill stops it, and the next send waits until it is
/// gone rather than typing into it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_after_a_job_left_a_program_stops_it_before_the_next_send_types() {
    let (host, agent, session) = host_with_session().await;
    let file = std::env::temp_dir().join(format!(
        "dsh-leftover-vim-{}-{}.txt",
        std::process::id(),
        session
    ));
    let mut left = vec![
        // The pipeline's first process (its group's leader) is gone: less holds the terminal.
        (
            "seq 1 1000 | less".to_owned(),
            "full-screen program (still running",
        ),
        (
            "read -rs -p 'Password: ' pw; echo; echo \"len=${#pw}\"".to_owned(),
            "echo off, a password prompt? (still running",
        ),
        (
            "python3 -c \"import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n\
             signal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True: input('stubborn> ')\""
                .to_owned(),
            "python3 waits for input (still running",
        ),
    ];
    if crate::support::installed("vim") {
        left.push((
            format!("vim -u NONE -N {}", file.display()),
            "full-screen program (still running",
        ));
    }
    for (text, detail) in &left {
        let (job, _) = host.start_job(&agent, &session, text).await;
        let r = host
            .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
            .await;
        assert!(r.text().contains(detail), "{text}: {}", r.text());
        let (outcome, said) = kill_finished(&host, &agent, &job).await;
        assert_eq!(outcome, "leftover-interrupted", "{text}: {said}");
        // At once: a program that outlives SIGTERM holds the send until its SIGKILL.
        let r = host.send(&agent, &session, "echo next-$((6*7))").await;
        let out = r.text();
        assert!(out.lines().any(|l| l == "next-42"), "{text}: {out}");
        assert!(!out.contains("stubborn> echo"), "{text}: {out}");
        let r = host
            .call(&agent, "job_output", json!({"job_id": job}))
            .await;
        assert!(!r.text().contains("still running"), "{text}: {}", r.text());
    }
    // Nothing was typed into the editor's buffer.
    let saved = std::fs::read_to_string(&file).unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    assert!(!saved.contains("next"), "{saved}");
    host.shutdown().await;
}

/// A job that ended at a program's prompt, whose session was closed since: its status no
/// longer says the program still runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_session_puts_its_jobs_leftover_program_in_the_past() {
    let (host, agent, session) = host_with_session().await;
    let (job, _) = host
        .start_job(&agent, &session, "read -r -p 'Name? ' n")
        .await;
    let r = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    assert!(
        r.text().contains("waits for input (still running"),
        "{}",
        r.text()
    );
    let r = host
        .call(&agent, "terminal_close", json!({"sessionId": session}))
        .await;
    assert!(!r.is_error, "{}", r.text());
    let r = host
        .call(&agent, "job_output", json!({"job_id": job}))
        .await;
    assert!(
        status_line(&r.text())
            .ends_with(", input: waited for input (the session was closed since)]"),
        "{}",
        r.text()
    );
    assert_eq!(
        kill_finished(&host, &agent, &job).await.0,
        "already-finished"
    );
    host.shutdown().await;
}

/// A program a job left at its prompt that ends by itself (`read -t` timing out): the job's
/// status puts it in the past, and neither `job_kill` nor the next send takes it for waiting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_a_job_left_that_ends_by_itself_is_put_in_the_past() {
    let (host, agent, session) = host_with_session().await;
    let (job, _) = host
        .start_job(
            &agent,
            &session,
            "read -r -t 1 -p 'Name? ' n; echo \"timed-out=$?\"",
        )
        .await;
    let r = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    assert!(
        r.text().contains("waits for input (still running"),
        "{}",
        r.text()
    );
    // The `read` gives up after a second; the status says so.
    host.until_job_status(
        &agent,
        &job,
        ", input: waited for input (the shell's prompt came back since: the next send runs as a shell command, not as its input)]",
    )
    .await;
    assert_eq!(
        kill_finished(&host, &agent, &job).await.0,
        "already-finished"
    );
    let r = host.send(&agent, &session, "echo next-$((6*7))").await;
    let out = r.text();
    assert!(out.lines().any(|l| l == "next-42"), "{out}");
    assert!(!out.contains("answered the prompt"), "{out}");
    host.shutdown().await;
}

/// A job that left a full-screen program: the send whose keys make it quit brings the shell's
/// prompt back, and the job's status from then on (read right after that send) says the
/// program ran, not that it still runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_that_quit_a_programs_job_left_put_its_status_in_the_past_at_once() {
    let (host, agent, session) = host_with_session().await;
    let (job, _) = host.start_job(&agent, &session, "seq 1 1000 | less").await;
    let r = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    assert!(
        r.text().contains("full-screen program (still running"),
        "{}",
        r.text()
    );
    let quit = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": session, "text": "q", "submit": false}),
        )
        .await;
    assert!(quit.text().contains("[exit: 0]"), "{}", quit.text());
    let r = host
        .call(&agent, "job_output", json!({"job_id": job}))
        .await;
    assert!(
        r.text()
            .contains("full-screen program (the shell's prompt came back since: the next send runs as a shell command, not as its input)")
            && !r.text().contains("still running"),
        "{}",
        r.text()
    );
    host.shutdown().await;
}

/// A later background job whose keys quit the full-screen program an earlier job left
/// (`q` to less): once the shell's prompt is back, the earlier job's status says so, not that
/// the program still runs (its watch stopped once another job started).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_a_later_job_typed_that_quit_a_program_put_the_earlier_status_in_the_past() {
    let (host, agent, session) = host_with_session().await;
    let (first, _) = host.start_job(&agent, &session, "seq 1 100 | less").await;
    let read = host.wait_job(&agent, &first).await;
    assert!(
        read.contains("full-screen program (still running"),
        "{read}"
    );
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": session, "text": "q", "submit": false, "run_in_background": true}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    let second = crate::support::job_id(&r);
    host.wait_job(&agent, &second).await;
    host.until_job_status(&agent, &first, "(the shell's prompt came back since: the next send runs as a shell command, not as its input)]")
        .await;
    host.shutdown().await;
}

/// A program left at its prompt that handles Ctrl-C (cleanup, then a clean exit) gets time
/// for it before `job_kill`'s SIGTERM (which came right after the SIGINT and cut the cleanup
/// short, leaving its file empty or missing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_gives_a_program_left_at_its_prompt_time_to_handle_the_interrupt() {
    let (host, agent, session) = host_with_session().await;
    let dir = crate::support::Gates::new("kill-grace", &session);
    let script = "import time\ntry:\n    input('Q? ')\nexcept KeyboardInterrupt:\n    time.sleep(0.3)\n    open('cleanup.txt', 'w').write('cleaned ' + 'up')\n";
    let r = host
        .send(
            &agent,
            &session,
            &format!(
                "cd '{}' && printf %s {} > ki.py",
                dir.path(".").display(),
                shell_quote(script)
            ),
        )
        .await;
    assert!(!r.is_error, "{}", r.text());
    let (job, _) = host.start_job(&agent, &session, "python3 ki.py").await;
    let r = host
        .call(&agent, "job_output", json!({"job_id": job, "wait": true}))
        .await;
    assert!(r.text().contains("waits for input"), "{}", r.text());
    let (outcome, text) = kill_finished(&host, &agent, &job).await;
    assert_eq!(outcome, "leftover-interrupted", "{text}");
    let r = host.send(&agent, &session, "cat cleanup.txt; echo").await;
    assert!(r.text().lines().any(|l| l == "cleaned up"), "{}", r.text());
    // Its status names the signals it got: the SIGINT alone (it said SIGTERM and SIGKILL
    // "while it still held the terminal", sent or not).
    host.until_job_status(
        &agent,
        &job,
        "waited for input (job_kill then sent it SIGINT, and it ended within 1 s)]",
    )
    .await;
    // A REPL stays at its prompt after the SIGINT: its SIGTERM is said once sent.
    let (job, _) = host.start_job(&agent, &session, "python3 -q").await;
    host.wait_job(&agent, &job).await;
    let (outcome, text) = kill_finished(&host, &agent, &job).await;
    assert_eq!(outcome, "leftover-interrupted", "{text}");
    host.until_job_status(
        &agent,
        &job,
        "(job_kill then sent it SIGINT and SIGTERM 1 s later while it still held the terminal, and it ended within 3 s after that)]",
    )
    .await;
    host.shutdown().await;
}

/// `text` single-quoted for bash.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}
