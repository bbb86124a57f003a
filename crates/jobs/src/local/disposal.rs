//! Teardown of an owner's jobs (when the owner [`Agent`] is disposed) or of every job (when
//! the service is): cancel, await settlement, forget.

use super::*;

impl LocalJobRegistry {
    pub(super) fn attach_owner_cleanup(&self, owner: &Agent) -> Result<(), JobError> {
        let key = owner.instance_key();
        {
            let state = self.inner.state.lock();
            if state.owner_cleanups.contains(&key) {
                return Ok(());
            }
        }
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        // The disposer must not hold the agent (its scope owns the disposer): it finds the
        // owner's records by instance key instead.
        let attached = owner.on_dispose("jobs owner cleanup", move || {
            Box::pin(async move {
                if let Some(inner) = weak.upgrade() {
                    LocalJobRegistry { inner }.dispose_owner_key(key).await;
                }
            })
        });
        if !attached {
            return Err(JobError::OwnerNotLive(owner.id().to_owned()));
        }
        self.inner.state.lock().owner_cleanups.insert(key);
        Ok(())
    }

    /// Cancels the selected live jobs with `reason` (marking them reported), awaits their
    /// settlement and removes every selected record.
    pub(super) async fn teardown(&self, reason: &str, select: impl Fn(&Record) -> bool) {
        let mut cancels = Vec::new();
        let mut settled = Vec::new();
        let mut owners: Vec<Option<Agent>> = Vec::new();
        {
            let mut state = self.inner.state.lock();
            for (seq, record) in state.jobs.iter_mut().filter(|(_, r)| select(r)) {
                if record.snapshot.status.is_live()
                    && let Some(cancel) = record.cancel.clone()
                {
                    record.snapshot.reported = true;
                    record.snapshot.status = JobStatus::Stopping;
                    cancels.push((*seq, cancel));
                }
                settled.push((*seq, record.settled.subscribe()));
                if !owners
                    .iter()
                    .any(|o| same_owner(o.as_ref(), record.owner.as_ref()))
                {
                    owners.push(record.owner.clone());
                }
            }
        }
        for owner in &owners {
            self.notify_changed(owner.as_ref());
        }
        for (seq, cancel) in cancels {
            let result = std::panic::catch_unwind(AssertUnwindSafe(|| cancel(reason)))
                .unwrap_or_else(|_| Err("cancel panicked".to_owned()));
            if let Err(e) = result {
                tracing::error!(error = %e, "job cancel failed during teardown");
                self.settle(
                    seq,
                    Ok(JobOutcome::new(
                        FinalStatus::Failed,
                        Some(format!(
                            "cancel threw during teardown; work may be orphaned: {e}"
                        )),
                    )),
                );
            }
        }
        for (_, mut rx) in settled.iter().map(|(s, rx)| (*s, rx.clone())) {
            let _ = rx.wait_for(|done| *done).await;
        }
        {
            let mut state = self.inner.state.lock();
            for (seq, _) in &settled {
                if let Some(record) = state.jobs.remove(seq) {
                    state.by_id.remove(&record.snapshot.id);
                }
            }
        }
        for owner in &owners {
            self.notify_changed(owner.as_ref());
        }
    }

    pub(super) async fn dispose_owner_key(&self, key: usize) {
        {
            let mut state = self.inner.state.lock();
            state.owner_cleanups.remove(&key);
            retention::drop_forgotten_of(&mut state, key);
        }
        self.teardown(OWNER_DISPOSED_REASON, |r| {
            r.owner.as_ref().is_some_and(|o| o.instance_key() == key)
        })
        .await;
    }
}
