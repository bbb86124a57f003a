//! A background poll (empty text, no Enter) of a command an earlier send left running in a
//! nested shell: the nested shell held the terminal before the job began, under that command,
//! so the job never says it started it, and `job_kill` stops the command alone (a poll job's
//! kill went on to SIGTERM and SIGKILL the nested shell, its variables lost).

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_a_poll_job_stops_the_command_and_leaves_the_shell_it_ran_in() {
    let (host, agent, session) = host_with_session().await;
    host.send(&agent, &session, "bash --norc").await;
    host.send(&agent, &session, "KEPT=kept-$((6*7))").await;
    for finished in [false, true] {
        let command = if finished { "sleep 2" } else { "sleep 100" };
        let r = host
            .call(
                &agent,
                "terminal_send",
                json!({"sessionId": session, "text": command, "timeoutMs": 300}),
            )
            .await;
        assert!(r.text().contains("[wait: timeout]"), "{}", r.text());
        let r = host
            .call(
                &agent,
                "terminal_send",
                json!({"sessionId": session, "text": "", "submit": false, "run_in_background": true}),
            )
            .await;
        assert!(!r.is_error, "{}", r.text());
        let job = crate::support::job_id(&r);
        let text = if finished {
            let text = host
                .call(
                    &agent,
                    "job_output",
                    json!({"job_id": job, "wait": true, "timeout_ms": 30_000}),
                )
                .await
                .text();
            assert!(
                status_line(&text).starts_with("[status: completed"),
                "{text}"
            );
            let (outcome, _) = kill_finished(&host, &agent, &job).await;
            assert_eq!(outcome, "already-finished", "{text}");
            text
        } else {
            let text = kill_and_wait(&host, &agent, &job).await;
            assert!(status_line(&text).starts_with("[status: killed"), "{text}");
            text
        };
        assert!(!text.contains("this job started"), "{text}");
        // Past any escalation's due time: the nested shell is still there, with its variable.
        let r = host
            .call(
                &agent,
                "terminal_send",
                json!({"sessionId": session, "text": "sleep 4; echo \"$KEPT $SHLVL\"", "timeoutMs": 30_000}),
            )
            .await;
        assert!(r.text().lines().any(|l| l == "kept-42 2"), "{}", r.text());
    }
    let r = host.send(&agent, &session, "exit").await;
    assert!(r.text().contains("dsh> "), "{}", r.text());
    host.shutdown().await;
}
