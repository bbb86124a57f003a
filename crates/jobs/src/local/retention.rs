//! Which finished jobs the registry keeps: [`MAX_FINISHED_JOBS_PER_OWNER`] of an owner's (the
//! oldest reported ones go first, then the oldest others),
//! and how an id it forgot is told from one it never handed out.

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
        }
    }
}

/// Whether `id` was handed out (ids count per kind: `<kind>-<N>` up to the kind's count, `N`
/// in decimal digits with no sign or leading zero), so a record missing for it was forgotten
/// rather than never there. `pty-send-071` or `pty-send-+5` was never handed out, whatever
/// number it parses to.
pub(super) fn was_issued(state: &State, id: &JobId) -> bool {
    id.as_str()
        .rsplit_once('-')
        .filter(|(_, n)| n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0'))
        .and_then(|(kind, n)| Some((state.counters.get(kind)?, n.parse::<u64>().ok()?)))
        .is_some_and(|(&count, n)| n >= 1 && n <= count)
}
