//! The jobs catalog (seed §8.7 items 107–121) against `LocalJobRegistry`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::sync::Arc;
use std::time::Duration;

use dsh_context::{Agent, Context};
use dsh_jobs::*;
use parking_lot::Mutex;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

mod capacity;
mod owners;
mod reads;
mod retention;

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
