//! The jobs catalog (seed §8.7 items 107–121) against `LocalJobRegistry`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::sync::Arc;
use std::time::Duration;

use dsh_context::{Agent, Context};
use dsh_jobs::*;
use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// A test producer: a stream buffer, a recorded cancel reason, and a `done` the test settles.
#[derive(Default)]
struct Probe {
    buffer: Mutex<String>,
    cancels: Mutex<Vec<String>>,
    finish: Mutex<Option<oneshot::Sender<Result<JobOutcome, String>>>>,
    fail_cancel: Mutex<bool>,
    runs: Mutex<usize>,
    /// What the stop-leftover hook finds to stop, and how often it was called.
    leftover: Mutex<bool>,
    leftover_stops: Mutex<usize>,
}

impl Probe {
    fn push(&self, text: &str) {
        self.buffer.lock().push_str(text);
    }
    fn finish(&self, outcome: Result<JobOutcome, String>) {
        if let Some(tx) = self.finish.lock().take() {
            let _ = tx.send(outcome);
        }
    }
    fn complete(&self, detail: &str) {
        self.finish(Ok(JobOutcome::new(
            FinalStatus::Completed,
            Some(detail.to_owned()),
        )));
    }
}

fn spec(probe: &Arc<Probe>, kind: &str, owner: Option<&Agent>, stream: bool) -> JobStart {
    let p = probe.clone();
    JobStart {
        kind: kind.to_owned(),
        label: format!("{kind} work"),
        output_limit_bytes: Some(4096),
        owner: owner.cloned(),
        run: Box::new(move || {
            *p.runs.lock() += 1;
            let (tx, rx) = oneshot::channel();
            *p.finish.lock() = Some(tx);
            let cancel_probe = p.clone();
            let read_probe = p.clone();
            // Weak: the hook outlives the job's end, the probe's other state must not.
            let leftover_probe = Arc::downgrade(&p);
            Ok(JobHooks {
                cancel: Box::new(move |reason| {
                    if *cancel_probe.fail_cancel.lock() {
                        return Err("cancel failed".to_owned());
                    }
                    cancel_probe.cancels.lock().push(reason.to_owned());
                    // Cancelling settles the work as killed, as a real producer would.
                    cancel_probe.finish(Ok(JobOutcome::new(FinalStatus::Killed, None)));
                    Ok(())
                }),
                read_output: stream.then(|| -> ReadOutputHook {
                    Box::new(move || std::mem::take(&mut *read_probe.buffer.lock()))
                }),
                stop_leftover: Some(Box::new(move || {
                    let p = leftover_probe.upgrade()?;
                    *p.leftover_stops.lock() += 1;
                    p.leftover.lock().then(|| "stopped what it left".to_owned())
                })),
                done: Box::pin(async move {
                    rx.await
                        .unwrap_or_else(|_| Err("producer dropped".to_owned()))
                }),
            })
        }),
    }
}

fn registry(limit: usize) -> LocalJobRegistry {
    let r = LocalJobRegistry::new(limit).unwrap();
    r.attach_controller("test");
    r
}

/// Waits (with a deadline) until the registry shows the job settled, without waiting on it.
async fn settled(jobs: &LocalJobRegistry, id: &JobId, owner: Option<&Agent>) -> JobSnapshot {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let s = jobs.get(id, owner).unwrap();
        if !s.status.is_live() {
            return s;
        }
        assert!(tokio::time::Instant::now() < deadline, "job never settled");
        tokio::task::yield_now().await;
    }
}

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

#[tokio::test]
async fn stream_reads_consume_and_settled_reads_report() {
    let jobs = registry(10);
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
    let foreign = "job bash-1 belongs to another session; call job_list to see your own jobs";
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
