//! What a job that already ended left running: its kill (see
//! [`JobHooks::stop_leftover`](crate::JobHooks)) and the amendments of its detail.

use dsh_context::Agent;

use super::LocalJobRegistry;
use crate::types::{JobError, JobId, JobStatus, KillOutcome};

impl LocalJobRegistry {
    /// A kill of a finished job whose stop-leftover hook stopped something and returned the
    /// job's `detail` from now on (`None`: it stopped nothing).
    pub(super) fn stopped_leftover(
        &self,
        id: &JobId,
        caller: Option<&Agent>,
        detail: Option<String>,
    ) -> Result<KillOutcome, JobError> {
        let Some(detail) = detail else {
            return Ok(KillOutcome::AlreadyFinished);
        };
        self.with_record(id, caller, |r| r.snapshot.detail = Some(detail))?;
        Ok(KillOutcome::LeftoverInterrupted)
    }

    /// Sets job `id`'s detail when `applies` to its status (see
    /// [`JobRegistry::amend_detail`](crate::JobRegistry::amend_detail): a finished job's, and
    /// [`JobRegistry::note_unstoppable`](crate::JobRegistry::note_unstoppable): a stopping
    /// one's); returns whether it did.
    pub(super) fn set_detail_when(
        &self,
        id: &JobId,
        caller: Option<&Agent>,
        detail: String,
        applies: impl FnOnce(JobStatus) -> bool,
    ) -> Result<bool, JobError> {
        self.with_record(id, caller, |r| {
            let set = applies(r.snapshot.status);
            if set {
                r.snapshot.detail = Some(detail);
            }
            set
        })
    }
}
