//! [`Terminals::check_invariants`]: the service's observable invariants.

use std::collections::HashSet;

use super::{Phase, Terminals, parse_id};

impl Terminals {
    /// Checks the service's observable state; `Err` lists every violation, joined by `; `.
    ///
    /// Checked: every session id (published, pending or warm) is `pty-N` with `1 <= N <= counter`
    /// and unique, and no id in use was given back for reuse; names are unique per owner; every published or pending session's owner has
    /// a registered cleanup or its cleanup is running (a session that outlived its owner's
    /// finished cleanup is a leak); after disposal nothing remains; every owner entry is keyed
    /// by its own agent.
    ///
    /// # Errors
    /// A message naming every violated invariant.
    pub fn check_invariants(&self) -> Result<(), String> {
        let st = self.lock();
        let mut problems = Vec::new();
        let mut ids = HashSet::new();
        let mut names = HashSet::new();
        let entries = st
            .records
            .iter()
            .map(|r| (&r.id, &r.owner, r.name.as_ref(), "session"))
            .chain(
                st.pending
                    .iter()
                    .map(|p| (&p.id, &p.owner, p.name.as_ref(), "pending spawn")),
            )
            .chain(
                st.warm
                    .iter()
                    .map(|w| (&w.id, &w.owner, None, "warm session")),
            );
        for (id, owner, name, kind) in entries {
            match parse_id(id) {
                Some(n) if st.returned_ids.contains(&n) => {
                    problems.push(format!("{kind} id {id} is in use but was given back"));
                }
                Some(n) if n >= 1 && n <= st.last_id => {}
                _ => problems.push(format!(
                    "{kind} id {id} is not pty-N with 1 <= N <= {}",
                    st.last_id
                )),
            }
            if !ids.insert(id.clone()) {
                problems.push(format!("{kind} id {id} appears twice"));
            }
            if let Some(name) = name
                && !names.insert((owner.instance_key(), name.clone()))
            {
                problems.push(format!(
                    "name {name:?} is used twice by owner {:?}",
                    owner.id()
                ));
            }
            let key = owner.instance_key();
            let covered = st.owners.get(&key).is_some_and(|e| e.agent == *owner)
                || st.cleaning.contains(&key);
            match st.phase {
                Phase::Running if !covered && !owner.is_live() => problems.push(format!(
                    "{kind} {id} outlived the cleanup of its disposed owner {:?}",
                    owner.id()
                )),
                Phase::Running if !covered => problems.push(format!(
                    "{kind} {id} has no owner cleanup registered for owner {:?}",
                    owner.id()
                )),
                Phase::Disposed => {
                    problems.push(format!("{kind} {id} survived service disposal"));
                }
                Phase::Running | Phase::Disposing => {}
            }
        }
        for (key, entry) in &st.owners {
            if entry.agent.instance_key() != *key {
                problems.push(format!(
                    "owner entry for {:?} is filed under another agent",
                    entry.agent.id()
                ));
            }
        }
        if st.phase == Phase::Disposed && !st.backends.is_empty() {
            problems.push("backends are still registered after service disposal".to_owned());
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }
}
