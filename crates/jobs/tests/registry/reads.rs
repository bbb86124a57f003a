//! Reading, waiting on and killing a job: stream and final output, done listeners, kill
//! reasons, waits.

use pretty_assertions::assert_eq;

use super::*;

#[tokio::test]
async fn stream_reads_consume_and_settled_reads_report() {
    let jobs = registry(10);
    // Before any job started, an unknown id says so.
    assert_eq!(
        jobs.read(&JobId::new("pty-1"), None).unwrap_err(),
        JobError::NoJobsYet(JobId::new("pty-1"))
    );
    let p = Arc::new(Probe::default());
    let id = jobs.start(spec(&p, "bash", None, true)).unwrap();
    p.push("one\n");
    let r = jobs.read(&id, None).unwrap();
    assert_eq!(r.text, "one\n");
    assert_eq!(r.snapshot.output_limit_bytes, Some(4096));
    assert_eq!(jobs.read(&id, None).unwrap().text, "");
    p.push("two\n");
    p.complete("wait: stdin_read");
    let s = settled(&jobs, &id, None).await;
    assert!(!s.reported);
    let r = jobs.read(&id, None).unwrap();
    assert_eq!(r.text, "two\n");
    assert!(r.snapshot.reported);
    assert_eq!(r.snapshot.detail.as_deref(), Some("wait: stdin_read"));
    assert!(r.snapshot.finished_at_ms.is_some());
    // That read took the last output: the hooks (and what they hold) are gone, and later
    // reads have nothing new.
    assert_eq!(
        Arc::strong_count(&p),
        1,
        "the settled job's hooks are dropped"
    );
    assert_eq!(jobs.read(&id, None).unwrap().text, "");
    assert_eq!(
        jobs.read(&JobId::new("bash-9"), None)
            .unwrap_err()
            .to_string(),
        "unknown job bash-9; call job_list to see your jobs"
    );
    // An id without the shape of this service's job ids (a session id passed by mistake) says
    // what job ids look like.
    assert_eq!(
        jobs.read(&JobId::new("pty-3"), None)
            .unwrap_err()
            .to_string(),
        "unknown job pty-3: job ids have the shape bash-N, as a background start returns them (an id of another kind, such as a terminal session's, goes to that kind's tools); call job_list to see your jobs"
    );
    assert!(matches!(
        jobs.read(&JobId::new("bash-"), None).unwrap_err(),
        JobError::NotAJobId { .. }
    ));
    jobs.dispose().await;
}

#[tokio::test]
async fn final_output_reads_are_idempotent() {
    let jobs = registry(10);
    let p = Arc::new(Probe::default());
    let id = jobs.start(spec(&p, "subagent", None, false)).unwrap();
    assert_eq!(jobs.read(&id, None).unwrap().text, "");
    p.finish(Ok(JobOutcome {
        status: FinalStatus::Completed,
        detail: None,
        output: Some("the answer".into()),
    }));
    settled(&jobs, &id, None).await;
    assert_eq!(jobs.read(&id, None).unwrap().text, "the answer");
    assert_eq!(jobs.read(&id, None).unwrap().text, "the answer");
    let p2 = Arc::new(Probe::default());
    let id2 = jobs.start(spec(&p2, "subagent", None, false)).unwrap();
    p2.complete("x");
    settled(&jobs, &id2, None).await;
    assert_eq!(jobs.read(&id2, None).unwrap().text, "");
    jobs.dispose().await;
}

#[tokio::test]
async fn done_listeners_run_once_contained_and_producer_rejection_fails_the_job() {
    let jobs = registry(10);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    jobs.on_job_done(Box::new(|_, _| panic!("listener bug")));
    let l = jobs.on_job_done(Box::new(move |snap, _| {
        s2.lock()
            .push((snap.id.to_string(), snap.status, snap.detail.clone()))
    }));
    let p = Arc::new(Probe::default());
    let id = jobs.start(spec(&p, "bash", None, true)).unwrap();
    p.finish(Err("Error: producer broke".into()));
    let s = settled(&jobs, &id, None).await;
    assert_eq!(s.status, JobStatus::Failed);
    assert_eq!(s.detail.as_deref(), Some("Error: producer broke"));
    assert_eq!(
        *seen.lock(),
        vec![(
            "bash-1".to_owned(),
            JobStatus::Failed,
            Some("Error: producer broke".to_owned())
        )]
    );
    jobs.remove_listener(l);
    let p = Arc::new(Probe::default());
    let id = jobs.start(spec(&p, "bash", None, true)).unwrap();
    p.complete("ok");
    settled(&jobs, &id, None).await;
    assert_eq!(seen.lock().len(), 1, "removed listener is silent");
    jobs.dispose().await;
}

#[tokio::test]
async fn kill_forwards_reason_and_failing_cancel_changes_nothing() {
    let jobs = registry(10);
    let killed = Arc::new(Mutex::new(Vec::new()));
    let k = killed.clone();
    jobs.on_job_done(Box::new(move |s, _| k.lock().push((s.status, s.reported))));
    let p = Arc::new(Probe::default());
    let id = jobs.start(spec(&p, "bash", None, true)).unwrap();
    *p.fail_cancel.lock() = true;
    assert_eq!(
        jobs.kill(&id, None, None).unwrap_err(),
        JobError::CancelFailed("cancel failed".into())
    );
    let s = jobs.get(&id, None).unwrap();
    assert_eq!((s.status, s.reported), (JobStatus::Running, false));
    *p.fail_cancel.lock() = false;
    assert_eq!(
        jobs.kill(&id, None, Some("why")).unwrap(),
        KillOutcome::Requested
    );
    assert_eq!(*p.cancels.lock(), vec!["why".to_owned()]);
    assert_eq!(settled(&jobs, &id, None).await.status, JobStatus::Killed);
    assert_eq!(*killed.lock(), vec![(JobStatus::Killed, true)]);
    assert_eq!(
        jobs.kill(&id, None, None).unwrap(),
        KillOutcome::AlreadyFinished
    );
    jobs.dispose().await;
}

#[tokio::test]
async fn wait_settles_times_out_and_aborts() {
    let jobs = registry(10);
    let p = Arc::new(Probe::default());
    let id = jobs.start(spec(&p, "bash", None, true)).unwrap();
    let never = CancellationToken::new();
    for bad in [0.0, -1.0, f64::INFINITY, f64::NAN] {
        assert!(matches!(
            jobs.wait(&id, bad, None, &never).await,
            Err(JobError::InvalidTimeout(_))
        ));
    }
    assert_eq!(
        jobs.wait(&id, 0.0, None, &never)
            .await
            .unwrap_err()
            .to_string(),
        "invalid wait timeout: expected a positive number of milliseconds, got 0"
    );
    // Timeout returns the live snapshot, unreported.
    let s = jobs.wait(&id, 20.0, None, &never).await.unwrap();
    assert_eq!((s.status, s.reported), (JobStatus::Running, false));
    // Abort rejects only the wait.
    let abort = CancellationToken::new();
    abort.cancel();
    assert_eq!(
        jobs.wait(&id, 10_000.0, None, &abort).await.unwrap_err(),
        JobError::WaitAborted
    );
    insta::assert_snapshot!("wait_aborted", JobError::WaitAborted.to_string());
    // A wait ended by its connection's end says the job goes with it, not that it stays.
    let closing = JobError::ConnectionClosing.to_string();
    assert!(closing.contains("the job is stopped with it"), "{closing}");
    assert!(!closing.contains("call job_output again"), "{closing}");
    // An aborted waiter does not mark the later settlement reported.
    p.complete("done");
    let s = settled(&jobs, &id, None).await;
    assert!(!s.reported);
    // Waiting on a finished job returns at once and reports it, even with an aborted token.
    let s = jobs.wait(&id, 10_000.0, None, &abort).await.unwrap();
    assert_eq!((s.status, s.reported), (JobStatus::Completed, true));
    // A settlement during a wait is reported before listeners see it.
    let flags = Arc::new(Mutex::new(Vec::new()));
    let f = flags.clone();
    jobs.on_job_done(Box::new(move |s, _| f.lock().push(s.reported)));
    let p = Arc::new(Probe::default());
    let id = jobs.start(spec(&p, "bash", None, true)).unwrap();
    // `join!` polls the wait first, so the waiter is registered before the work settles.
    let (res, ()) = tokio::join!(jobs.wait(&id, 10_000.0, None, &never), async {
        p.complete("ok")
    });
    let s = res.unwrap();
    assert_eq!((s.status, s.reported), (JobStatus::Completed, true));
    assert_eq!(flags.lock().len(), 1);
    jobs.dispose().await;
}

/// The seen listeners hear of each read of a settled job and each wait that returns it
/// settled, with the status shown; not of a live job's read, nor of `get`.
#[tokio::test]
async fn seen_listeners_hear_of_settled_statuses_shown() {
    let jobs = registry(2);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    jobs.on_job_seen(Box::new(move |job| s.lock().push(job.status)));
    let p = Arc::new(Probe::default());
    let id = jobs.start(spec(&p, "bash", None, true)).unwrap();
    jobs.read(&id, None).unwrap();
    jobs.get(&id, None).unwrap();
    assert!(seen.lock().is_empty());
    p.complete("done");
    settled(&jobs, &id, None).await;
    jobs.read(&id, None).unwrap();
    jobs.wait(&id, 1000.0, None, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        *seen.lock(),
        vec![JobStatus::Completed, JobStatus::Completed]
    );
    jobs.dispose().await;
}
