//! What a background job's reads say about their output's text while the job runs (bytes
//! that are not UTF-8, texts written over one another on a row): each read that took such
//! output says so after it, as a foreground result does, not only the job's last read.

use std::time::Duration;

use serde_json::json;

use crate::support::{Gates, Host};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_jobs_reads_say_what_their_output_shows_differently() {
    const ENCODING: &str = "[encoding: some output was not UTF-8";
    const MIXED: &str = "[screen: texts were written on one row";
    let (host, agent, session) = Host::with_jobs_and_session().await;
    let gates = Gates::new("bg-notices", &session);
    let (job, ack) = host
        .start_job(
            &agent,
            &session,
            &format!(
                "printf 'bad \\377 byte\\n'; printf 'progress 1/30\\r'; echo 'msg 2'; \
                 echo READY-$((6*7)); {}; echo after",
                gates.wait("go")
            ),
        )
        .await;
    // The acknowledgement (what the job printed so soon) and the reads while the job waits at
    // its gate, until one took the whole output.
    let mut running = ack;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !running.contains("READY-42") {
        assert!(tokio::time::Instant::now() < deadline, "{running}");
        running.push_str(&host.job_output(&agent, &job).await);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(running.contains("msg 2ess 1/30"), "{running}");
    assert!(running.contains(ENCODING), "{running}");
    assert!(running.contains(MIXED), "{running}");
    // Said once: a later read of the running job with nothing new repeats neither.
    let again = host.job_output(&agent, &job).await;
    assert!(
        !again.contains(ENCODING) && !again.contains(MIXED),
        "{again}"
    );
    gates.open("go");
    let last = host.wait_job(&agent, &job).await;
    assert!(last.contains("after"), "{last}");
    // The job's end says them again, for its whole send.
    assert!(last.contains(ENCODING) && last.contains(MIXED), "{last}");
    host.call(&agent, "terminal_close", json!({"sessionId": session}))
        .await;
    host.shutdown().await;
}
