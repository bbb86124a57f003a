//! The line each session's sends left unended (typed without Enter), which the next send's
//! text continues: the policy checks the two as one line, from where the cursor was and
//! with the keys left waiting for the next one.

use std::collections::{HashMap, VecDeque};

use parking_lot::Mutex;

/// Longest unended line kept per session, in bytes (a terminal's line holds at most 4095).
const UNENDED_MAX_BYTES: usize = 4096;
/// Longest run of keys kept waiting for the next key, in characters (a numeric argument's
/// digits, or Ctrl-X or Ctrl-V).
const UNENDED_MAX_PENDING: usize = 16;
/// Most sessions whose unended line is kept: the oldest goes first.
const UNENDED_MAX_SESSIONS: usize = 1024;

/// An agent's id (empty when none) and a session id.
type SessionKey = (String, String);

/// The unended lines and the order their sessions were first recorded in.
type Kept = (HashMap<SessionKey, Unended>, VecDeque<SessionKey>);

/// What a session's line editor holds between sends.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Unended {
    /// The line typed so far.
    pub(crate) line: String,
    /// Where the cursor stands: characters from the line's end.
    pub(crate) cursor_back: usize,
    /// Keys waiting for the next key (a numeric argument, Ctrl-X, Ctrl-V).
    pub(crate) pending: String,
}

/// The line each session's sends left unended (typed without Enter), per agent and session,
/// bounded in bytes per line and in sessions.
#[derive(Debug, Default)]
pub(crate) struct UnendedLines {
    lines: Mutex<Kept>,
}

impl UnendedLines {
    /// What `key`'s earlier sends left unended (empty when none).
    pub(crate) fn get(&self, key: &SessionKey) -> Unended {
        self.lines.lock().0.get(key).cloned().unwrap_or_default()
    }

    /// Forgets what `key`'s session held: its line editor's line is known empty again.
    pub(crate) fn forget(&self, key: &SessionKey) {
        let mut guard = self.lines.lock();
        let (lines, order) = &mut *guard;
        if lines.remove(key).is_some() {
            order.retain(|k| k != key);
        }
    }

    /// Records what `key`'s session holds after a send typed `edited` (already joined to the
    /// line before it) with Enter (`submit`) or without: the text after its last line end
    /// (the cursor `cursor_back` characters from its end) and the `pending` keys when it ends
    /// unended, nothing otherwise.
    pub(crate) fn record(
        &self,
        key: SessionKey,
        edited: &str,
        cursor_back: usize,
        pending: &str,
        submit: bool,
    ) {
        let rest = edited.rsplit(['\n', '\r']).next().unwrap_or_default();
        let mut guard = self.lines.lock();
        let (lines, order) = &mut *guard;
        if submit || (rest.is_empty() && pending.is_empty()) {
            if lines.remove(&key).is_some() {
                order.retain(|k| k != &key);
            }
            return;
        }
        let mut start = rest.len().saturating_sub(UNENDED_MAX_BYTES);
        while !rest.is_char_boundary(start) {
            start += 1;
        }
        let line = rest[start..].to_owned();
        let unended = Unended {
            cursor_back: cursor_back.min(line.chars().count()),
            line,
            pending: pending.chars().take(UNENDED_MAX_PENDING).collect(),
        };
        if lines.insert(key.clone(), unended).is_none() {
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
        let line = |s: &str| u.get(&key(s)).line;
        u.record(key("pty-1"), "tou", 0, "", false);
        assert_eq!(line("pty-1"), "tou");
        assert_eq!(line("pty-2"), "");
        u.record(key("pty-1"), "touch x", 0, "", true);
        assert_eq!(line("pty-1"), "");
        u.record(key("pty-1"), "ls\nech", 0, "", false);
        assert_eq!(line("pty-1"), "ech");
        u.record(key("pty-1"), "echo\n", 0, "", false);
        assert_eq!(line("pty-1"), "");
        // The cursor's place and the keys waiting for the next one are kept with the line.
        u.record(key("pty-1"), "m a", 3, "\u{18}", false);
        assert_eq!(
            u.get(&key("pty-1")),
            Unended {
                line: "m a".into(),
                cursor_back: 3,
                pending: "\u{18}".into()
            }
        );
        u.record(key("pty-1"), "", 0, "\u{1b}3", false);
        assert_eq!(u.get(&key("pty-1")).pending, "\u{1b}3");
        u.forget(&key("pty-1"));
        assert_eq!(u.get(&key("pty-1")), Unended::default());
        u.record(key("pty-1"), &"é".repeat(3000), 9000, "", false);
        assert!(line("pty-1").len() <= UNENDED_MAX_BYTES);
        assert!(u.get(&key("pty-1")).cursor_back <= line("pty-1").chars().count());
        for n in 0..UNENDED_MAX_SESSIONS + 5 {
            u.record(key(&format!("s{n}")), "x", 0, "", false);
        }
        assert_eq!(line("s0"), "");
        assert_eq!(line(&format!("s{}", UNENDED_MAX_SESSIONS + 4)), "x");
        assert!(u.lines.lock().0.len() <= UNENDED_MAX_SESSIONS);
    }
}
