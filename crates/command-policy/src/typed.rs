//! The line each session's sends left unended (typed without Enter), which the next send's
//! text continues: the policy checks the two as one line.

use std::collections::{HashMap, VecDeque};

use parking_lot::Mutex;

/// Longest unended line kept per session, in bytes (a terminal's line holds at most 4095).
const UNENDED_MAX_BYTES: usize = 4096;
/// Most sessions whose unended line is kept: the oldest goes first.
const UNENDED_MAX_SESSIONS: usize = 1024;

/// An agent's id (empty when none) and a session id.
type SessionKey = (String, String);

/// The unended lines and the order their sessions were first recorded in.
type Kept = (HashMap<SessionKey, String>, VecDeque<SessionKey>);

/// The line each session's sends left unended (typed without Enter), per agent and session,
/// bounded in bytes per line and in sessions.
#[derive(Debug, Default)]
pub(crate) struct UnendedLines {
    lines: Mutex<Kept>,
}

impl UnendedLines {
    /// The line `key`'s earlier sends left unended (empty when none).
    pub(crate) fn get(&self, key: &SessionKey) -> String {
        self.lines.lock().0.get(key).cloned().unwrap_or_default()
    }

    /// Records what `key`'s session holds after a send typed `edited` (already joined to the
    /// line before it) with Enter (`submit`) or without: the text after its last line end
    /// when it ends unended, nothing otherwise.
    pub(crate) fn record(&self, key: SessionKey, edited: &str, submit: bool) {
        let rest = edited.rsplit(['\n', '\r']).next().unwrap_or_default();
        let mut guard = self.lines.lock();
        let (lines, order) = &mut *guard;
        if submit || rest.is_empty() {
            if lines.remove(&key).is_some() {
                order.retain(|k| k != &key);
            }
            return;
        }
        let mut start = rest.len().saturating_sub(UNENDED_MAX_BYTES);
        while !rest.is_char_boundary(start) {
            start += 1;
        }
        if lines
            .insert(key.clone(), rest[start..].to_owned())
            .is_none()
        {
            order.push_back(key);
            while order.len() > UNENDED_MAX_SESSIONS {
                if let Some(old) = order.pop_front() {
                    lines.remove(&old);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn unended_lines_are_kept_per_session_and_bounded() {
        let u = UnendedLines::default();
        let key = |s: &str| ("a".to_owned(), s.to_owned());
        u.record(key("pty-1"), "tou", false);
        assert_eq!(u.get(&key("pty-1")), "tou");
        assert_eq!(u.get(&key("pty-2")), "");
        u.record(key("pty-1"), "touch x", true);
        assert_eq!(u.get(&key("pty-1")), "");
        u.record(key("pty-1"), "ls\nech", false);
        assert_eq!(u.get(&key("pty-1")), "ech");
        u.record(key("pty-1"), "echo\n", false);
        assert_eq!(u.get(&key("pty-1")), "");
        u.record(key("pty-1"), &"é".repeat(3000), false);
        assert!(u.get(&key("pty-1")).len() <= UNENDED_MAX_BYTES);
        for n in 0..UNENDED_MAX_SESSIONS + 5 {
            u.record(key(&format!("s{n}")), "x", false);
        }
        assert_eq!(u.get(&key("s0")), "");
        assert_eq!(u.get(&key(&format!("s{}", UNENDED_MAX_SESSIONS + 4))), "x");
        assert!(u.lines.lock().0.len() <= UNENDED_MAX_SESSIONS);
    }
}
