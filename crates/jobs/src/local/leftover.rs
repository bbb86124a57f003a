//! A kill of a job that already ended, whose work left something running (see
//! [`JobHooks::stop_leftover`](crate::JobHooks)).

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
}
