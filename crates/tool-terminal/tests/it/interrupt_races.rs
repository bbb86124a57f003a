//! An interrupt right after a background line to a REPL, by `job_kill` or `terminal_signal`
//! SIGINT: it waits until the REPL has read the line (Python acted on an interrupt that came
//! while it took in a line's characters only when the next line ran, joined to the rest of
//! the cut line: `import tiprint(…)`), and node gets it as its Ctrl-C key while it reads keys
//! raw (a real SIGINT in the moment after a line ran, or while node echoed the line, ended
//! node, exit 130, and its state). Each test sweeps the moment the race needs: the interrupt
//! lands at a different point of the REPL's reading each round (not a wait for anything).

use std::time::Duration;

use dsh_context::Agent;
use serde_json::json;

use crate::support::Host;

/// How the test interrupts the job.
#[derive(Clone, Copy, Debug)]
enum Interrupt {
    JobKill,
    Sigint,
}

impl Interrupt {
    /// Interrupts `job` of `session` this way, then waits for the job's end.
    async fn job(self, host: &Host, agent: &Agent, session: &str, job: &str) {
        match self {
            Self::JobKill => {
                host.call(agent, "job_kill", json!({"job_id": job})).await;
            }
            Self::Sigint => {
                host.signal(agent, session, "SIGINT").await;
            }
        }
        host.wait_job(agent, job).await;
    }
}

/// A host with the jobs service, its agent `a` and one open session of that agent, at
/// `repl`'s prompt.
async fn repl_session(repl: &str) -> (Host, Agent, String) {
    let (host, agent, session) = Host::with_jobs_and_session().await;
    host.send(&agent, &session, repl).await;
    (host, agent, session)
}

/// Node keeps its state whenever the interrupt lands.
async fn node_sweep(how: Interrupt) {
    if !crate::support::installed("node") {
        return;
    }
    let (host, agent, session) = repl_session("node").await;
    host.send(&agent, &session, "var keep = 'st' + 'ate'").await;
    for i in 0..20 {
        let (job, _) = host.start_job(&agent, &session, "keep.length").await;
        tokio::time::sleep(Duration::from_micros(250 * i)).await;
        how.job(&host, &agent, &session, &job).await;
        let next = host.send(&agent, &session, "keep").await.text();
        assert!(next.contains("'state'"), "{how:?} {i}: {next}");
    }
    host.send(&agent, &session, ".exit").await;
    host.shutdown().await;
}

/// Python runs the next line alone whenever the interrupt lands. The job's statement sleeps
/// far longer than any round takes, so the interrupt always lands before it ends: Python notes
/// a SIGINT that arrives between the end of a statement and its next read of the terminal and
/// acts on it only when the next line runs (`File "<stdin>", line 0`), a race of the REPL's own
/// that a slow delivery on a loaded machine reached with a short statement.
async fn python_sweep(how: Interrupt) {
    let (host, agent, session) = repl_session("python3 -q").await;
    for i in 0..40 {
        let (job, _) = host
            .start_job(
                &agent,
                &session,
                &format!("import time; time.sleep(30); print('J{i}')"),
            )
            .await;
        tokio::time::sleep(Duration::from_micros(100 * i)).await;
        how.job(&host, &agent, &session, &job).await;
        let next = host
            .send(&agent, &session, &format!("print('F' + '{i}')"))
            .await
            .text();
        assert!(
            next.lines().any(|l| l == format!("F{i}")) && !next.contains("Traceback"),
            "{how:?} {i}: {next}"
        );
    }
    host.send(&agent, &session, "exit()").await;
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_right_after_a_line_to_node_keeps_the_repl() {
    node_sweep(Interrupt::JobKill).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigint_right_after_a_line_to_node_keeps_the_repl() {
    node_sweep(Interrupt::Sigint).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_right_after_a_line_to_python_leaves_the_next_line_alone() {
    python_sweep(Interrupt::JobKill).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigint_right_after_a_line_to_python_leaves_the_next_line_alone() {
    python_sweep(Interrupt::Sigint).await;
}
