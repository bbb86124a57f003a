//! [`has_entry`]: whether a process's environment holds one exact `NAME=value` entry, read
//! from `/proc/PID/environ` at most once per process identity host-wide.
//!
//! Teardown's deep refresh checks the environment of every process started since the
//! session's shell; with many sessions open, that is every other session's processes too.
//! Reading `environ` walks the target's memory (the most expensive `/proc` read), and each
//! of N closing sessions would read all N sessions' processes several times. The memo keeps
//! the entries of the looked-up variable per identity, so each process is read once while it
//! lives, whichever session asks. Memory stays bounded by the live processes: a deep scan
//! forgets identities it no longer sees ([`forget_all_but`]).
//!
//! A process's identity (pid and start time) survives `exec`, which may change the
//! environment. The memo can then be stale only for a process that gained or lost a tag: one
//! that lost it was started by the session (it inherited the tag), and gaining a session's
//! random tag value takes knowing it.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use super::procfs::ProcessIdentity;

/// One process's entries for the looked-up variable name.
struct Remembered {
    /// The `NAME=` prefix looked up (one name in practice: a different name is a miss).
    prefix: Arc<[u8]>,
    /// Every entry of the environment that starts with `prefix`.
    entries: Vec<Box<[u8]>>,
}

static MEMO: Mutex<Option<HashMap<ProcessIdentity, Remembered>>> = Mutex::new(None);

/// Whether the environment of process `id` holds exactly `entry` (`NAME=value`). An unreadable
/// environment (the process is gone, or not ours to read) counts as not holding it and is not
/// remembered.
pub(super) fn has_entry(id: ProcessIdentity, entry: &[u8]) -> bool {
    let Some(eq) = entry.iter().position(|&b| b == b'=') else {
        return false;
    };
    let prefix = &entry[..=eq];
    if let Some(known) = MEMO
        .lock()
        .as_ref()
        .and_then(|memo| memo.get(&id))
        .filter(|r| &*r.prefix == prefix)
    {
        return known.entries.iter().any(|e| &**e == entry);
    }
    let Ok(environ) = std::fs::read(format!("/proc/{}/environ", id.pid)) else {
        return false;
    };
    let entries: Vec<Box<[u8]>> = environ
        .split(|&b| b == 0)
        .filter(|e| e.starts_with(prefix))
        .map(Box::from)
        .collect();
    let found = entries.iter().any(|e| &**e == entry);
    MEMO.lock().get_or_insert_with(HashMap::new).insert(
        id,
        Remembered {
            prefix: Arc::from(prefix),
            entries,
        },
    );
    found
}

/// Forgets every identity for which `alive` is false (called with a full scan's table).
pub(super) fn forget_all_but(alive: impl Fn(&ProcessIdentity) -> bool) {
    if let Some(memo) = MEMO.lock().as_mut() {
        memo.retain(|id, _| alive(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_found_exactly_and_remembered() {
        let me = ProcessIdentity::of(std::process::id() as i32).unwrap();
        // The test process's own environment: PATH is set in any test run.
        let path = std::env::var("PATH").unwrap();
        let entry = format!("PATH={path}");
        assert!(has_entry(me, entry.as_bytes()));
        assert!(!has_entry(me, format!("PATH={path}x").as_bytes()));
        assert!(!has_entry(me, b"PATH"));
        // Remembered until a scan no longer sees the identity.
        assert!(
            MEMO.lock()
                .as_ref()
                .is_some_and(|memo| memo.contains_key(&me))
        );
        forget_all_but(|id| *id != me);
        assert!(
            MEMO.lock()
                .as_ref()
                .is_none_or(|memo| !memo.contains_key(&me))
        );
    }

    #[test]
    fn an_unreadable_environment_is_not_remembered() {
        let gone = ProcessIdentity {
            pid: 4_194_305,
            start_time: 1,
        };
        assert!(!has_entry(gone, b"A=b"));
        assert!(
            MEMO.lock()
                .as_ref()
                .is_none_or(|memo| !memo.contains_key(&gone))
        );
    }
}
