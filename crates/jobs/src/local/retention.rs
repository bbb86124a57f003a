//! Which finished jobs the registry keeps: [`MAX_FINISHED_JOBS_PER_OWNER`] of an owner's (the
//! oldest reported ones go first, then the oldest others), and which ids it forgot that way,
//! so their owner hears so while anyone else hears of no such job.

use dsh_context::Agent;

use super::{State, same_owner};
use crate::registry::MAX_FINISHED_JOBS_PER_OWNER;
use crate::types::JobId;

/// Forgets `owner`'s oldest finished jobs beyond [`MAX_FINISHED_JOBS_PER_OWNER`]: reported
/// ones first, then unreported ones (their completion notices went out as they finished).
pub(super) fn forget_oldest_finished(state: &mut State, owner: Option<&Agent>) {
    let finished: Vec<(u64, bool)> = state
        .jobs
        .iter()
        .filter(|(_, r)| !r.snapshot.status.is_live() && same_owner(r.owner.as_ref(), owner))
        .map(|(&seq, r)| (seq, r.snapshot.reported))
        .collect();
    let excess = finished.len().saturating_sub(MAX_FINISHED_JOBS_PER_OWNER);
    if excess == 0 {
        return;
    }
    let reported = finished.iter().filter(|(_, reported)| *reported);
    let unreported = finished.iter().filter(|(_, reported)| !*reported);
    let forget: Vec<u64> = reported
        .chain(unreported)
        .map(|&(seq, _)| seq)
        .take(excess)
        .collect();
    for seq in forget {
        if let Some(record) = state.jobs.remove(&seq) {
            state.by_id.remove(&record.snapshot.id);
            if state.forgotten.len() == FORGOTTEN_IDS_KEPT {
                state.forgotten.pop_front();
            }
            state
                .forgotten
                .push_back((record.snapshot.id, owner.map(Agent::instance_key)));
        }
    }
}

/// How many ids of jobs forgotten under the cap the registry remembers (the newest), with
/// their owners: an older one is an unknown job to everyone.
const FORGOTTEN_IDS_KEPT: usize = 1024;

/// Whether `id` is a job of `caller`'s (by instance; `None`: unowned) that the registry
/// forgot under the cap: `caller` is told it is no longer kept. Another agent, or an id whose
/// owner is gone, gets "unknown job", as for an id never handed out: nothing says that another
/// agent's job had that id.
pub(super) fn forgot_for(state: &State, id: &JobId, caller: Option<&Agent>) -> bool {
    let caller = caller.map(Agent::instance_key);
    state
        .forgotten
        .iter()
        .any(|(forgotten, owner)| forgotten == id && *owner == caller)
}

/// Drops the forgotten ids of the owner with instance key `key` (it was disposed: no caller
/// is that owner any more, and its key may be another agent's later).
pub(super) fn drop_forgotten_of(state: &mut State, key: usize) {
    state.forgotten.retain(|(_, owner)| *owner != Some(key));
}
