//! Owners: each job belongs to one exact owner, another cannot reach it, and an owner's
//! disposal ends its jobs; the plugin wiring.

use pretty_assertions::assert_eq;

use super::*;

#[tokio::test]
async fn buckets_are_per_exact_owner_and_stale_owners_are_refused() {
    let ctx = Context::empty();
    let a = Agent::new(&ctx, "same-id");
    let b = Agent::new(&ctx, "same-id");
    let jobs = registry(1);
    let pa = Arc::new(Probe::default());
    let pb = Arc::new(Probe::default());
    let pu = Arc::new(Probe::default());
    jobs.start(spec(&pa, "bash", Some(&a), true)).unwrap();
    // Same id, different instance: its own bucket.
    jobs.start(spec(&pb, "bash", Some(&b), true)).unwrap();
    // Unowned jobs share one bucket of their own.
    jobs.start(spec(&pu, "bash", None, true)).unwrap();
    b.dispose().await;
    let err = jobs
        .start(spec(&pb, "bash", Some(&b), true))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "agent \"same-id\" is not the registered agent instance (background job owner must be live)"
    );
    // The disposed owner's job was cancelled with the owner reason and forgotten.
    assert_eq!(*pb.cancels.lock(), vec![OWNER_DISPOSED_REASON.to_owned()]);
    assert_eq!(jobs.list(Some(&b)).len(), 1, "only the unowned job");
    jobs.dispose().await;
}

#[tokio::test]
async fn isolation_by_exact_owner() {
    let ctx = Context::empty();
    let a = Agent::new(&ctx, "a");
    let b = Agent::new(&ctx, "a");
    let jobs = registry(10);
    let p = Arc::new(Probe::default());
    let id = jobs.start(spec(&p, "bash", Some(&a), true)).unwrap();
    let pu = Arc::new(Probe::default());
    jobs.start(spec(&pu, "bash", None, true)).unwrap();
    let foreign = "job bash-1 belongs to another agent; call job_list to see your own jobs";
    for caller in [Some(&b), None] {
        assert_eq!(jobs.read(&id, caller).unwrap_err().to_string(), foreign);
        assert_eq!(jobs.get(&id, caller).unwrap_err().to_string(), foreign);
        assert_eq!(
            jobs.kill(&id, caller, None).unwrap_err().to_string(),
            foreign
        );
        assert_eq!(
            jobs.wait(&id, 10.0, caller, &CancellationToken::new())
                .await
                .unwrap_err()
                .to_string(),
            foreign
        );
    }
    let ids = |c| -> Vec<String> {
        jobs.list(c)
            .into_iter()
            .map(|s: JobSnapshot| s.id.to_string())
            .collect()
    };
    assert_eq!(ids(Some(&a)), ["bash-1", "bash-2"]);
    assert_eq!(ids(Some(&b)), ["bash-2"]);
    assert_eq!(*p.cancels.lock(), Vec::<String>::new());
    jobs.dispose().await;
}

#[tokio::test]
async fn owner_disposal_cancels_awaits_and_forgets() {
    let ctx = Context::empty();
    let a = Agent::new(&ctx, "a");
    let a2 = Agent::new(&ctx, "a");
    let jobs = registry(10);
    let done = Arc::new(Mutex::new(Vec::new()));
    let d = done.clone();
    jobs.on_job_done(Box::new(move |s, _| d.lock().push(s.reported)));
    let changes = Arc::new(Mutex::new(0usize));
    let c = changes.clone();
    jobs.on_jobs_changed(Box::new(move |_| *c.lock() += 1));
    let p = Arc::new(Probe::default());
    jobs.start(spec(&p, "bash", Some(&a), true)).unwrap();
    let p2 = Arc::new(Probe::default());
    let keep = jobs.start(spec(&p2, "bash", Some(&a2), true)).unwrap();
    // Throwing cancel during teardown force-fails the job without waiting for it.
    let p3 = Arc::new(Probe::default());
    jobs.start(spec(&p3, "bash", Some(&a), true)).unwrap();
    *p3.fail_cancel.lock() = true;
    let before = *changes.lock();
    a.dispose().await;
    assert_eq!(*p.cancels.lock(), vec![OWNER_DISPOSED_REASON.to_owned()]);
    assert!(jobs.list(Some(&a)).is_empty());
    assert_eq!(*done.lock(), vec![true, true], "teardown marks reported");
    assert!(*changes.lock() > before);
    // The same-id replacement is untouched.
    assert_eq!(
        jobs.get(&keep, Some(&a2)).unwrap().status,
        JobStatus::Running
    );
    jobs.dispose().await;
    assert_eq!(*p2.cancels.lock(), vec![SERVICE_DISPOSED_REASON.to_owned()]);
    assert!(jobs.all_snapshots().is_empty());
    let p4 = Arc::new(Probe::default());
    assert_eq!(
        jobs.start(spec(&p4, "bash", None, true)).unwrap_err(),
        JobError::Disposing
    );
}

#[tokio::test]
async fn plugin_provides_the_service_and_the_companion_checks_snapshots() {
    let ctx = Context::builder()
        .with(dsh_invariants::InvariantsPlugin)
        .with(JobsPlugin::default())
        .with(invariant_companion())
        .apply()
        .unwrap();
    let jobs = ctx.require::<dyn JobRegistry>().unwrap();
    let c = jobs.attach_controller("test");
    let p = Arc::new(Probe::default());
    let id = jobs.start(spec(&p, "bash", None, true)).unwrap();
    let inv = ctx.require::<dsh_invariants::Invariants>().unwrap();
    assert!(inv.check_all(&ctx).is_empty());
    p.complete("ok");
    jobs.wait(&id, 10_000.0, None, &CancellationToken::new())
        .await
        .unwrap();
    assert!(inv.check_all(&ctx).is_empty());
    jobs.detach_controller(c);
    ctx.dispose().await;
    let bad = dsh_context::Context::builder()
        .with(JobsPlugin {
            config: JobsConfig {
                max_concurrent_jobs_per_owner: 0,
            },
        })
        .apply();
    assert!(bad.is_err());
}

#[test]
fn check_snapshot_rejects_incoherent_snapshots() {
    let good = JobSnapshot {
        id: JobId::new("bash-1"),
        kind: "bash".into(),
        label: "x".into(),
        output_limit_bytes: None,
        owner_id: None,
        status: JobStatus::Completed,
        detail: None,
        started_at_ms: 10,
        finished_at_ms: Some(10),
        reported: false,
    };
    assert_eq!(check_snapshot(&good, None), Ok(()));
    let bad = |f: &dyn Fn(&mut JobSnapshot)| {
        let mut s = good.clone();
        f(&mut s);
        check_snapshot(&s, None).is_err()
    };
    assert!(bad(&|s| s.id = JobId::new("bash-0")));
    assert!(bad(&|s| s.id = JobId::new("bash-x")));
    assert!(bad(&|s| s.id = JobId::new("shell-1")));
    assert!(bad(&|s| s.label = String::new()));
    assert!(bad(&|s| s.finished_at_ms = None));
    assert!(bad(&|s| s.finished_at_ms = Some(9)));
    assert!(bad(&|s| s.status = JobStatus::Running));
    assert!(bad(&|s| s.owner_id = Some("a".into())));
    let ctx = Context::empty();
    let owner = Agent::new(&ctx, "a");
    let mut s = good.clone();
    s.owner_id = Some("a".into());
    assert_eq!(check_snapshot(&s, Some(&owner)), Ok(()));
}
