//! What a registry keeps of finished jobs: the cap on them, a kill after the end, amended details.

use pretty_assertions::assert_eq;

use super::*;

/// An owner's finished jobs are kept up to `MAX_FINISHED_JOBS_PER_OWNER`: beyond that the
/// oldest finished ones are forgotten, those already reported first; live jobs are never.
#[tokio::test]
async fn the_oldest_finished_jobs_are_forgotten_beyond_the_cap() {
    let jobs = registry(2);
    let live_probe = Arc::new(Probe::default());
    let live = jobs.start(spec(&live_probe, "live", None, true)).unwrap();
    let mut ids = Vec::new();
    for i in 0..MAX_FINISHED_JOBS_PER_OWNER + 3 {
        let p = Arc::new(Probe::default());
        let id = jobs.start(spec(&p, "bash", None, true)).unwrap();
        p.complete("done");
        settled(&jobs, &id, None).await;
        // The second job is read (reported); the others are not.
        if i == 1 {
            jobs.read(&id, None).unwrap();
        }
        ids.push(id);
    }
    let listed: Vec<JobId> = jobs.list(None).into_iter().map(|s| s.id).collect();
    assert_eq!(listed.len(), MAX_FINISHED_JOBS_PER_OWNER + 1);
    assert!(listed.contains(&live));
    // The reported job went first, then the two oldest unreported ones.
    for gone in [&ids[1], &ids[0], &ids[2]] {
        assert!(!listed.contains(gone), "{gone}");
        let e = jobs.read(gone, None).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("job {gone} is no longer kept")),
            "{e}"
        );
    }
    let forgotten = jobs.read(&ids[1], None).unwrap_err().to_string();
    insta::assert_snapshot!("forgotten", forgotten.replace(ids[1].as_str(), "<id>"));
    // An id never handed out is still unknown, also one that spells a forgotten job's
    // number otherwise (a leading zero or sign).
    for never in ["bash-999", "bash-01", "bash-+1", "bash-001", "bash- 1"] {
        let e = jobs.read(&JobId::new(never), None).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!("unknown job {never}")),
            "{e}"
        );
    }
    assert!(listed.contains(&ids[3]));
    assert!(listed.contains(ids.last().unwrap()));
    live_probe.complete("done");
    jobs.dispose().await;
}

/// A job forgotten under the cap is "no longer kept" to its owner only: another agent asking
/// for its id hears of no such job, as for an id never handed out (nothing tells it that
/// another agent had a job of that id), and so does everyone once the owner is gone.
#[tokio::test]
async fn only_its_owner_hears_that_a_job_is_no_longer_kept() {
    let ctx = Context::empty();
    let (owner, other) = (Agent::new(&ctx, "a"), Agent::new(&ctx, "b"));
    let jobs = registry(2);
    let mut ids = Vec::new();
    for _ in 0..=MAX_FINISHED_JOBS_PER_OWNER {
        let p = Arc::new(Probe::default());
        let id = jobs.start(spec(&p, "bash", Some(&owner), true)).unwrap();
        p.complete("done");
        settled(&jobs, &id, Some(&owner)).await;
        ids.push(id);
    }
    let gone = &ids[0];
    let to_owner = jobs.read(gone, Some(&owner)).unwrap_err();
    assert_eq!(to_owner, JobError::Forgotten(gone.clone()));
    for caller in [Some(&other), None] {
        let e = jobs.read(gone, caller).unwrap_err();
        assert_eq!(e, JobError::UnknownJob(gone.clone()), "{caller:?}");
    }
    owner.dispose().await;
    let e = jobs.read(gone, Some(&other)).unwrap_err();
    assert_eq!(e, JobError::UnknownJob(gone.clone()));
    jobs.dispose().await;
}

/// A kill of a job that ended leaving something running stops it through the producer's
/// stop-leftover hook, once; a kill of a live job never calls it.
#[tokio::test]
async fn a_kill_after_the_end_stops_what_the_job_left_running_once() {
    let jobs = registry(4);
    let p = Arc::new(Probe::default());
    *p.leftover.lock() = true;
    let id = jobs.start(spec(&p, "bash", None, true)).unwrap();
    p.complete("wait: stdin_read");
    assert_eq!(settled(&jobs, &id, None).await.status, JobStatus::Completed);
    assert_eq!(
        jobs.kill(&id, None, None).unwrap(),
        KillOutcome::LeftoverInterrupted
    );
    assert_eq!(
        jobs.kill(&id, None, None).unwrap(),
        KillOutcome::AlreadyFinished
    );
    assert_eq!(*p.leftover_stops.lock(), 1);
    let s = jobs.get(&id, None).unwrap();
    assert_eq!((s.status, s.reported), (JobStatus::Completed, true));
    // The detail is the one the hook returned.
    assert_eq!(s.detail.as_deref(), Some("stopped what it left"));

    // Nothing left to stop: an ordinary "already finished"; a live job's kill cancels it.
    let q = Arc::new(Probe::default());
    let id = jobs.start(spec(&q, "bash", None, true)).unwrap();
    assert_eq!(jobs.kill(&id, None, None).unwrap(), KillOutcome::Requested);
    assert_eq!(*q.leftover_stops.lock(), 0);
    assert_eq!(settled(&jobs, &id, None).await.status, JobStatus::Killed);
    assert_eq!(
        jobs.kill(&id, None, None).unwrap(),
        KillOutcome::AlreadyFinished
    );
    assert_eq!(*q.leftover_stops.lock(), 1);
}

/// A finished job's detail can be amended by its producer (what it left changed since); a live
/// job's cannot, and a foreign caller is refused.
#[tokio::test]
async fn a_finished_jobs_detail_is_amended_a_live_ones_is_not() {
    let ctx = Context::empty();
    let jobs = registry(4);
    let owner = Agent::new(&ctx, "a");
    let p = Arc::new(Probe::default());
    let id = jobs.start(spec(&p, "bash", Some(&owner), true)).unwrap();
    assert!(
        !jobs
            .amend_detail(&id, Some(&owner), "early".into())
            .unwrap()
    );
    p.complete("wait: stdin_read");
    let done = settled(&jobs, &id, Some(&owner)).await;
    assert_ne!(done.detail.as_deref(), Some("early"));
    let other = Agent::new(&ctx, "b");
    assert!(matches!(
        jobs.amend_detail(&id, Some(&other), "theirs".into()),
        Err(JobError::Foreign(_))
    ));
    assert!(
        jobs.amend_detail(&id, Some(&owner), "answered later".into())
            .unwrap()
    );
    let s = jobs.get(&id, Some(&owner)).unwrap();
    assert_eq!(
        (s.status, s.detail.as_deref()),
        (done.status, Some("answered later"))
    );
    assert!(matches!(
        jobs.amend_detail(&JobId::new("bash-999"), Some(&owner), "x".into()),
        Err(JobError::UnknownJob(_))
    ));
    jobs.dispose().await;
}
