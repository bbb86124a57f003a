//! The keys a send's text types, read as the session's bash reads them at its prompt:
//! readline's emacs keymap (bash 5's defaults, with the keys the session's rc binds: TAB
//! inserted, `ESC [ 2024 ~` to `2026 ~`). Each key is one the line model follows exactly, one
//! that leaves the line as it is, or one it does not follow ([`Key::Unknown`]): completion,
//! history, search, yank, undo, macros, the keys that expand or comment the line, and any
//! sequence readline has no binding for but does not simply drop (`ESC [ 1 5 ~`, F5, inserts
//! `~`). A key that is not known here is an unknown one.

use std::ops::Range;

/// One editing key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
    /// A character inserted (also after Ctrl-V or `ESC [ 2 ~`, and a TAB).
    Insert(char),
    /// A line end: the line is entered.
    Enter(char),
    Left,
    Right,
    Home,
    End,
    /// Delete (the key) and Ctrl-D on text: the character under the cursor.
    Delete,
    /// Backspace, DEL.
    Backspace,
    WordLeft,
    WordRight,
    /// Meta-d, Ctrl-Delete.
    KillWordForward,
    /// Meta-Backspace.
    KillWordBack,
    /// Ctrl-X Backspace (`backward-kill-line`).
    KillToStart,
    /// Ctrl-U (`unix-line-discard`, which a negative argument does not turn around).
    UnixLineDiscard,
    /// Ctrl-K.
    KillToEnd,
    /// Ctrl-W.
    UnixWordRubout,
    TransposeChars,
    TransposeWords,
    Upcase,
    Downcase,
    Capitalize,
    /// Ctrl-C, or the session's own clear-line key: the line is discarded.
    Discard,
    /// Meta-digit or Meta-minus: a numeric argument for the next key (readline's
    /// `digit-argument`; plain digits right after it go on with it).
    Argument(char),
    /// A key that leaves the line as it is: `abort` (Ctrl-G, also after ESC or Ctrl-X),
    /// `clear-screen` (Ctrl-L), a meta or Ctrl-X key bound to nothing (readline drops it),
    /// Ctrl-Z and Ctrl-\\ (signals the shell ignores at its prompt), the rc's repair and reset
    /// keys, bracketed-paste markers (which hosts refuse anyway), and an escape sequence left
    /// unfinished where the send's text ends or a line ends (the send closes it with `abort`).
    Ignore,
    /// A key whose effect on the line is not followed here.
    Unknown,
}

/// A key and the bytes of the text that typed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Typed {
    pub(super) key: Key,
    pub(super) at: Range<usize>,
}

/// Meta keys (ESC and a character) readline's emacs keymap binds to nothing: it drops them.
/// (Upper-case letters are their lower-case ones; `ESC O` and `ESC [` start sequences.)
const UNBOUND_META: &str = "\"%'(),:;]`|}+aehijkmoqsvwxzAEHIJKMQSVWXZ";

/// Ctrl-X keys readline binds (to functions not followed here): every other printable key
/// after Ctrl-X is bound to nothing, and dropped with it.
const BOUND_AFTER_CTRL_X: &str = "()e!$*/@~gsEGS";

/// The keys `text` types, in order, and where a key left unfinished at its end starts (a
/// Ctrl-X or Ctrl-V waiting for the key after it); an unfinished escape sequence at the end
/// is not one: the send closes it with `abort` (see [`Key::Ignore`]).
pub(super) fn keys(text: &str) -> (Vec<Typed>, Option<usize>) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let offset = |i: usize| chars.get(i).map_or(text.len(), |&(o, _)| o);
    let mut keys = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i].1;
        // The key and how many characters it takes.
        let (key, len) = match c {
            '\n' | '\r' => (Key::Enter(c), 1),
            // Ctrl-O (`operate-and-get-next`) runs the line as Enter does (and then brings the
            // next history line back, which is not known here: it stays to be edited).
            '\u{f}' => (Key::Enter('\r'), 1),
            '\u{1b}' => escape(&chars[i..]),
            '\u{8}' | '\u{7f}' => (Key::Backspace, 1),
            '\u{4}' => (Key::Delete, 1),
            '\u{1}' => (Key::Home, 1),
            '\u{5}' => (Key::End, 1),
            '\u{2}' => (Key::Left, 1),
            '\u{6}' => (Key::Right, 1),
            '\u{15}' => (Key::UnixLineDiscard, 1),
            '\u{b}' => (Key::KillToEnd, 1),
            '\u{17}' => (Key::UnixWordRubout, 1),
            '\u{14}' => (Key::TransposeChars, 1),
            // An interrupt discards the line in a line editor.
            '\u{3}' => (Key::Discard, 1),
            '\u{7}' | '\u{c}' | '\u{1a}' | '\u{1c}' => (Key::Ignore, 1),
            // Ctrl-C after a key waiting for the next (Ctrl-V, Ctrl-X) is no key for it: the
            // terminal turns it into SIGINT, which discards the line and the waiting key.
            '\u{16}' | '\u{18}' if at(i + 1) == Some('\u{3}') => (Key::Discard, 2),
            '\u{16}' => match at(i + 1) {
                Some(c) => (Key::Insert(c), 2),
                None => return (keys, Some(offset(i))),
            },
            '\u{18}' => match at(i + 1) {
                None => return (keys, Some(offset(i))),
                Some('\u{7}') => (Key::Ignore, 2),
                Some('\u{7f}') => (Key::KillToStart, 2),
                Some('\u{1b}') if text[offset(i + 1)..].starts_with("\u{1b}[2026~") => {
                    (Key::Ignore, 8)
                }
                Some(c) if c.is_ascii_graphic() && !BOUND_AFTER_CTRL_X.contains(c) => {
                    (Key::Ignore, 2)
                }
                Some(_) => (Key::Unknown, 2),
            },
            '\t' => (Key::Insert('\t'), 1),
            // History (Ctrl-P/N/R/S), yank (Ctrl-Y), undo (Ctrl-_), character search (Ctrl-]),
            // quoted insert by Ctrl-Q (flow control when the terminal has `ixon`), …
            c if c.is_ascii_control() => (Key::Unknown, 1),
            c => (Key::Insert(c), 1),
        };
        let len = len.min(chars.len() - i);
        keys.push(Typed {
            key,
            at: offset(i)..offset(i + len),
        });
        i += len;
    }
    (keys, None)
}

/// The key an escape sequence (`chars` start with its ESC) types and how many characters it
/// takes.
fn escape(chars: &[(usize, char)]) -> (Key, usize) {
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    match at(1) {
        // Unfinished: at the text's end, or before a line end (the send closes it there).
        None | Some('\n' | '\r') => (Key::Ignore, 1),
        Some('[') => csi(chars),
        Some('O') => match at(2) {
            None | Some('\n' | '\r') => (Key::Ignore, 2),
            Some('C') => (Key::Right, 3),
            Some('D') => (Key::Left, 3),
            Some('H') => (Key::Home, 3),
            Some('F') => (Key::End, 3),
            Some(_) => (Key::Unknown, 3),
        },
        // ESC ESC completes, but before the arrow keys it moves by words.
        Some('\u{1b}') => match (at(2), at(3)) {
            (Some('['), Some('C')) => (Key::WordRight, 4),
            (Some('['), Some('D')) => (Key::WordLeft, 4),
            _ => (Key::Unknown, 2),
        },
        Some(d @ ('0'..='9' | '-')) => (Key::Argument(d), 2),
        Some('b' | 'B') => (Key::WordLeft, 2),
        Some('f' | 'F') => (Key::WordRight, 2),
        Some('d' | 'D') => (Key::KillWordForward, 2),
        Some('\u{7f}' | '\u{8}') => (Key::KillWordBack, 2),
        Some('t' | 'T') => (Key::TransposeWords, 2),
        Some('u' | 'U') => (Key::Upcase, 2),
        Some('l' | 'L') => (Key::Downcase, 2),
        Some('c' | 'C') => (Key::Capitalize, 2),
        Some('\u{7}') => (Key::Ignore, 2),
        // SIGINT, as after Ctrl-X (see `keys`).
        Some('\u{3}') => (Key::Discard, 2),
        Some(c) if UNBOUND_META.contains(c) => (Key::Ignore, 2),
        Some(_) => (Key::Unknown, 2),
    }
}

/// A CSI sequence (`ESC [`, parameters, a final byte): its key and length.
fn csi(chars: &[(usize, char)]) -> (Key, usize) {
    let mut params = String::new();
    let mut len = 2;
    let last = loop {
        match chars.get(len).map(|&(_, c)| c) {
            Some(c @ ' '..='?') => params.push(c),
            Some(c @ '@'..='~') => break c,
            // Unfinished: the send closes it with `abort` before what cannot go on with it.
            _ => return (Key::Ignore, len),
        }
        len += 1;
    };
    let len = len + 1;
    let key = match (params.as_str(), last) {
        ("", 'C') => Key::Right,
        ("", 'D') => Key::Left,
        ("1;3" | "1;5" | "5", 'C') => Key::WordRight,
        ("1;3" | "1;5" | "5", 'D') => Key::WordLeft,
        ("", 'H') | ("1", '~') => Key::Home,
        ("", 'F') | ("4", '~') => Key::End,
        ("3", '~') => Key::Delete,
        ("3;5", '~') => Key::KillWordForward,
        // `quoted-insert`: the next key is inserted as it is.
        ("2", '~') => {
            return match chars.get(len).map(|&(_, c)| c) {
                Some(c) => (Key::Insert(c), len + 1),
                None => (Key::Unknown, len),
            };
        }
        // The session's own clear-line key (see the bash backend).
        ("2025", '~') => Key::Discard,
        // The rc's repair and reset (`abort`) keys; bracketed-paste markers.
        ("2024" | "2026" | "200" | "201", '~') => Key::Ignore,
        _ => Key::Unknown,
    };
    (key, len)
}
