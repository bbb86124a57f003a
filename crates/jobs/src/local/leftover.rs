//! What a job that already ended left running: its kill (see
//! [`JobHooks::stop_leftover`](crate::JobHooks)) and the amendments of its detail.

use dsh_context::Agent;

use super::LocalJobRegistry;
use crate::types::{JobError, JobId, KillOutcome};

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

    /// [`JobRegistry::amend_detail`](crate::JobRegistry::amend_detail): only a finished job's.
    pub(super) fn amended_detail(
        &self,
        id: &JobId,
        caller: Option<&Agent>,
        detail: String,
    ) -> Result<bool, JobError> {
        self.with_record(id, caller, |r| {
            let finished = !r.snapshot.status.is_live();
            if finished {
                r.snapshot.detail = Some(detail);
            }
            finished
        })
    }
}
