//! Capacity, controller and spec checks: what a registry refuses before a job runs, and what a
//! job holds while it runs and stops.

use pretty_assertions::assert_eq;

use super::*;

#[tokio::test]
async fn no_controller_refuses_before_run() {
    let jobs = LocalJobRegistry::new(10).unwrap();
    let probe = Arc::new(Probe::default());
    let err = jobs.start(spec(&probe, "bash", None, true)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "background jobs unavailable: no job controller serves this agent (load dsh-tool-jobs in its composition)"
    );
    assert_eq!(*probe.runs.lock(), 0);
    let c = jobs.attach_controller("a");
    jobs.start(spec(&probe, "bash", None, true)).unwrap();
    jobs.detach_controller(c);
    assert_eq!(
        jobs.start(spec(&probe, "bash", None, true)).unwrap_err(),
        JobError::NoController
    );
}

#[tokio::test]
async fn invalid_specs_and_config_are_rejected() {
    let jobs = registry(10);
    let probe = Arc::new(Probe::default());
    let mut s = spec(&probe, "bash", None, true);
    s.kind = String::new();
    assert_eq!(jobs.start(s).unwrap_err(), JobError::InvalidKind);
    let mut s = spec(&probe, "bash", None, true);
    s.label = " ".into();
    assert_eq!(jobs.start(s).unwrap_err(), JobError::InvalidLabel);
    let mut s = spec(&probe, "bash", None, true);
    s.output_limit_bytes = Some(0);
    assert_eq!(
        jobs.start(s).unwrap_err().to_string(),
        "invalid outputLimitBytes: expected a positive safe integer, got 0"
    );
    assert_eq!(*probe.runs.lock(), 0);
    assert!(LocalJobRegistry::new(0).is_err());
    assert!(LocalJobRegistry::new(usize::MAX).is_ok());
}

#[tokio::test]
async fn capacity_is_checked_before_run_and_freed_by_settlement() {
    let ctx = Context::empty();
    let owner = Agent::new(&ctx, "a");
    let jobs = registry(10);
    let probes: Vec<_> = (0..10).map(|_| Arc::new(Probe::default())).collect();
    for p in &probes {
        jobs.start(spec(p, "bash", Some(&owner), true)).unwrap();
    }
    let extra = Arc::new(Probe::default());
    let err = jobs
        .start(spec(&extra, "bash", Some(&owner), true))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "background job limit reached for this owner (limit: 10); use job_kill to stop an unneeded job, wait for it to finish, then retry"
    );
    assert_eq!(*extra.runs.lock(), 0);
    let first = JobId::new("bash-1");
    probes[1].complete("done");
    settled(&jobs, &JobId::new("bash-2"), Some(&owner)).await;
    let id = jobs
        .start(spec(&extra, "bash", Some(&owner), true))
        .unwrap();
    assert_eq!(id.as_str(), "bash-11");
    assert!(jobs.get(&first, Some(&owner)).unwrap().status.is_live());
    jobs.dispose_owner(&owner).await;
}

#[tokio::test]
async fn stopping_jobs_hold_capacity() {
    let jobs = registry(1);
    let probe = Arc::new(Probe::default());
    let p = probe.clone();
    let (tx, rx) = oneshot::channel::<()>();
    let tx = Mutex::new(Some(tx));
    let id = jobs
        .start(JobStart {
            kind: "bash".into(),
            label: "slow stop".into(),
            output_limit_bytes: None,
            owner: None,
            run: Box::new(move || {
                Ok(JobHooks {
                    cancel: Box::new(move |r| {
                        p.cancels.lock().push(r.to_owned());
                        Ok(())
                    }),
                    read_output: None,
                    stop_leftover: None,
                    done: Box::pin(async move {
                        let _ = rx.await;
                        Ok(JobOutcome::new(FinalStatus::Killed, None))
                    }),
                })
            }),
        })
        .unwrap();
    assert_eq!(
        jobs.kill(&id, None, Some("no longer needed")).unwrap(),
        KillOutcome::Requested
    );
    assert_eq!(*probe.cancels.lock(), vec!["no longer needed".to_owned()]);
    let s = jobs.get(&id, None).unwrap();
    assert_eq!((s.status, s.reported), (JobStatus::Stopping, true));
    let other = Arc::new(Probe::default());
    assert_eq!(
        jobs.start(spec(&other, "bash", None, true))
            .unwrap_err()
            .to_string(),
        "background job limit reached for this owner (limit: 1); use job_kill to stop an unneeded job, wait for it to finish, then retry"
    );
    if let Some(tx) = tx.lock().take() {
        let _ = tx.send(());
    }
    assert_eq!(settled(&jobs, &id, None).await.status, JobStatus::Killed);
    assert_eq!(
        jobs.start(spec(&other, "bash", None, true))
            .unwrap()
            .as_str(),
        "bash-2"
    );
    jobs.dispose().await;
}

#[tokio::test]
async fn ids_count_per_kind() {
    let jobs = registry(10);
    let mut ids = Vec::new();
    for kind in ["bash", "bash", "subagent", "workflow"] {
        let p = Arc::new(Probe::default());
        ids.push(jobs.start(spec(&p, kind, None, false)).unwrap().to_string());
        p.complete("ok");
    }
    assert_eq!(ids, ["bash-1", "bash-2", "subagent-1", "workflow-1"]);
    jobs.dispose().await;
}
