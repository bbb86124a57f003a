//! The jobs invariant companion: a real check over every job snapshot.

use dsh_context::Agent;
use dsh_invariants::Companion;

use crate::registry::JobRegistry;
use crate::types::JobSnapshot;

/// Checks one snapshot: the id is `<kind>-<positive integer>` with the snapshot's kind, the
/// label is non-empty, `finished_at_ms` is present exactly when the status is terminal and is
/// not before `started_at_ms`, and `owner_id` matches the owner instance's id.
///
/// # Errors
/// A message naming the job and the broken rule.
pub fn check_snapshot(snapshot: &JobSnapshot, owner: Option<&Agent>) -> Result<(), String> {
    let id = &snapshot.id;
    match id.parts() {
        Some((kind, _)) if kind == snapshot.kind => {}
        _ => {
            return Err(format!(
                "job id {id} is not <kind>-<positive integer> with kind {:?}",
                snapshot.kind
            ));
        }
    }
    if snapshot.label.trim().is_empty() {
        return Err(format!("job {id} has an empty label"));
    }
    match (snapshot.status.is_live(), snapshot.finished_at_ms) {
        (true, Some(_)) => return Err(format!("live job {id} has finished_at_ms")),
        (false, None) => return Err(format!("settled job {id} has no finished_at_ms")),
        (false, Some(end)) if end < snapshot.started_at_ms => {
            return Err(format!("job {id} finished before it started"));
        }
        _ => {}
    }
    if snapshot.owner_id.as_deref() != owner.map(Agent::id) {
        return Err(format!("job {id} owner id does not match its owner"));
    }
    Ok(())
}

/// This crate's invariant companion: when the jobs service is present, every job snapshot
/// passes [`check_snapshot`].
pub fn invariant_companion() -> Companion {
    Companion::check("dsh-jobs", |ctx| {
        let Some(jobs) = ctx.get::<dyn JobRegistry>() else {
            return Ok(());
        };
        for (snapshot, owner) in jobs.all_snapshots() {
            check_snapshot(&snapshot, owner.as_ref())?;
        }
        Ok(())
    })
}
