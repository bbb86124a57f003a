//! What a send types, as the line editor it reaches will hold it: the policy matches these
//! lines too, so keys cannot spell a refused command past the patterns (`tx` + DEL + `ouch`,
//! a bracketed paste around it, or a line typed over two sends, the first without Enter).

use std::collections::{HashMap, VecDeque};

use parking_lot::Mutex;

/// Longest unended line kept per session, in bytes (a terminal's line holds at most 4095).
const UNENDED_MAX_BYTES: usize = 4096;
/// Most sessions whose unended line is kept: the oldest goes first.
const UNENDED_MAX_SESSIONS: usize = 1024;

/// `text` as a line editor takes it: a bracketed paste's markers and other escape sequences
/// dropped, Backspace and DEL deleting the character before them, Ctrl-U and Ctrl-C the line
/// so far, and other control keys dropped; line ends (`\n`, `\r`) kept. Cursor movement
/// (arrows, Ctrl-A, Ctrl-W, Meta keys, history) is not followed: a guard rail, not the editor.
pub(crate) fn edited(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\u{8}' | '\u{7f}' => {
                if out.ends_with(['\n', '\r']) {
                    continue;
                }
                out.pop();
            }
            // Ctrl-U empties the line; an interrupt (Ctrl-C) discards it in a line editor.
            '\u{15}' | '\u{3}' => {
                let start = out.rfind(['\n', '\r']).map_or(0, |at| at + 1);
                out.truncate(start);
            }
            '\n' | '\r' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Skips the rest of an escape sequence whose ESC was just read: a CSI (`ESC [` … final byte
/// `@`–`~`), an SS3 key (`ESC O` + one), or `ESC` + one character (a Meta key).
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('[') => {
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
        Some('O') => {
            chars.next();
        }
        _ => {}
    }
}

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
    fn editing_keys_and_escapes_are_applied() {
        assert_eq!(edited("tx\u{7f}ouch a"), "touch a");
        assert_eq!(edited("rm -x\u{8}rf /"), "rm -rf /");
        assert_eq!(edited("\u{1b}[200~touch b\u{1b}[201~"), "touch b");
        assert_eq!(edited("echo hi\u{15}touch c\r"), "touch c\r");
        assert_eq!(edited("a\n\u{7f}b"), "a\nb");
        assert_eq!(edited("r\u{3}m = 5"), "m = 5");
        assert_eq!(edited("\u{1b}OAtou\u{1b}bch"), "touch");
        assert_eq!(edited("naïve\tx"), "naïve\tx");
    }

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
