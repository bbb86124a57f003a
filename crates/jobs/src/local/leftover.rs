//! A kill of a job that already ended, whose work left something running (see
//! [`JobHooks::stop_leftover`](crate::JobHooks)).

use dsh_context::Agent;

use super::LocalJobRegistry;
use crate::types::{JobError, JobId, KillOutcome};

impl LocalJobRegistry {
    /// A kill of a finished job whose stop-leftover hook did `done` (`None`: nothing): the
    /// job's detail goes on with it.
    pub(super) fn stopped_leftover(
        &self,
        id: &JobId,
        caller: Option<&Agent>,
        done: Option<String>,
    ) -> Result<KillOutcome, JobError> {
        let Some(done) = done else {
            return Ok(KillOutcome::AlreadyFinished);
        };
        self.with_record(id, caller, |r| {
            r.snapshot.detail = Some(match r.snapshot.detail.take() {
                Some(detail) => format!("{detail}; {done}"),
                None => done,
            });
        })?;
        Ok(KillOutcome::LeftoverInterrupted)
    }
}
