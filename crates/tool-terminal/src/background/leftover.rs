//! `job_kill` of a background job that ended at a program's own input prompt: the job is
//! over, the program is not, and the kill stops it as it would have stopped the job.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, Weak};

use dsh_context::Agent;
use dsh_jobs::{JobId, JobRegistry};
use dsh_terminal_core::process::{ProcessIdentity, stat};
use dsh_terminal_core::{SessionId, TerminalSignal, Terminals};
use parking_lot::Mutex;

use super::describe::{detail_after_kill, stopped_at_prompt};
use super::follow::KILL_ESCALATION;

/// What `job_kill` of a finished job stops: the program its send left waiting at an input
/// prompt, while no send or signal reached the session since (see [`Leftover::interrupt`]).
pub(super) struct Leftover {
    pub(super) jobs: Weak<dyn JobRegistry>,
    pub(super) by_session: Arc<Mutex<HashMap<SessionId, JobId>>>,
    /// The job's id, set once the registry assigned it.
    pub(super) job: Arc<OnceLock<JobId>>,
    pub(super) terminals: Arc<Terminals>,
    pub(super) owner: Agent,
    pub(super) id: SessionId,
}

/// What the job's detail says once the program was interrupted, or also terminated (see
/// [`terminated`]).
const INTERRUPTED: &str = "job_kill then sent it SIGINT";

fn terminated() -> String {
    format!(
        "job_kill then sent it SIGINT and SIGTERM, and SIGKILL {} s later if it still held the terminal",
        KILL_ESCALATION.as_secs()
    )
}

impl Leftover {
    /// When the job stopped at a program's own prompt (its detail says so) and it is still
    /// the session's last job with no send or signal since: SIGINT to the session's
    /// foreground, exactly as `terminal_signal` delivers it, and the prompt is no longer
    /// taken for the one the next send answers. A program other than the shell (whose own
    /// `read` the interrupt ends) gets SIGTERM right after, for a REPL takes SIGINT at its
    /// prompt and stays (Python's `KeyboardInterrupt`, node's "press Ctrl+C again"), and
    /// SIGKILL [`KILL_ESCALATION`] later if it still holds the terminal. Returns the job's
    /// detail from now on, which says what it did, when the interrupt was delivered.
    pub(super) fn interrupt(&self) -> Option<String> {
        let (job, jobs) = (self.job.get()?, self.jobs.upgrade()?);
        let detail = jobs
            .get(job, Some(&self.owner))
            .ok()
            .filter(|s| !s.status.is_live())?
            .detail
            .filter(|d| stopped_at_prompt(d).is_some())?;
        {
            let mut by_session = self.by_session.lock();
            if by_session.get(&self.id) != Some(job) {
                return None;
            }
            by_session.remove(&self.id);
        }
        let interrupt = self
            .terminals
            .signal(&self.owner, &self.id, TerminalSignal::Sigint)
            .ok()
            .filter(|r| r.delivered)?;
        if interrupt.shell_targeted {
            return Some(detail_after_kill(&detail, INTERRUPTED));
        }
        let group = interrupt.target_pgid;
        let leader = ProcessIdentity::of(group);
        // Only the same program, still in the foreground (the interrupt may have ended it,
        // and the shell's prompt is back): never a command sent since.
        let holds_terminal = move |leader: &ProcessIdentity| {
            leader.is_alive() && stat(group).is_some_and(|s| s.tpgid == group)
        };
        if !leader.as_ref().is_some_and(holds_terminal) {
            return Some(detail_after_kill(&detail, INTERRUPTED));
        }
        if let Err(e) = self
            .terminals
            .signal(&self.owner, &self.id, TerminalSignal::Sigterm)
        {
            tracing::debug!(session_id = %self.id, error = %e, "leftover program not terminated");
        }
        if let (Some(leader), Ok(runtime)) = (leader, tokio::runtime::Handle::try_current()) {
            let (terminals, owner, id) = (
                Arc::clone(&self.terminals),
                self.owner.clone(),
                self.id.clone(),
            );
            drop(runtime.spawn(async move {
                tokio::time::sleep(KILL_ESCALATION).await;
                if holds_terminal(&leader)
                    && let Err(e) = terminals.signal(&owner, &id, TerminalSignal::Sigkill)
                {
                    tracing::debug!(session_id = %id, error = %e, "leftover program not killed");
                }
            }));
        }
        Some(detail_after_kill(&detail, &terminated()))
    }
}
