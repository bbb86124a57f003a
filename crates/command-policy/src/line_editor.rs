//! What a send types, as a line editor (readline's emacs keys, bash's default) will hold it:
//! the policy matches these lines too, so keys cannot spell a refused command past the
//! patterns (`tx` + DEL + `ouch`, `m a3` + Ctrl-A + `r`, `x` + Ctrl-W + `rm a10`, a bracketed
//! paste around it).
//!
//! Keys that move the cursor, delete, transpose or change case are followed. Any other key
//! that changes the line (completion, history, search, yank, undo, macros, expansions) is
//! not: what it puts there is not known here, so the result names it (see [`Edited`]) and
//! the policy does not judge that line (see the crate's docs). A guard rail, not a boundary.

mod keys;

use keys::{Key, keys};

/// The line being edited: its characters and the cursor (an index into them).
#[derive(Debug, Default)]
struct Line {
    chars: Vec<char>,
    cursor: usize,
}

impl Line {
    fn insert(&mut self, c: char) {
        self.chars.insert(self.cursor, c);
        self.cursor += 1;
    }

    /// Removes `from..to` (cursor-relative order either way) and leaves the cursor at its
    /// start.
    fn kill(&mut self, a: usize, b: usize) {
        let (from, to) = (a.min(b), a.max(b).min(self.chars.len()));
        self.chars.drain(from..to);
        self.cursor = from;
    }

    /// Where the word before the cursor starts (readline's `backward-word`: letters and
    /// digits make words).
    fn word_back(&self) -> usize {
        let mut at = self.cursor;
        while at > 0 && !self.chars[at - 1].is_alphanumeric() {
            at -= 1;
        }
        while at > 0 && self.chars[at - 1].is_alphanumeric() {
            at -= 1;
        }
        at
    }

    /// Where the word after the cursor ends (`forward-word`).
    fn word_forward(&self) -> usize {
        let mut at = self.cursor;
        while at < self.chars.len() && !self.chars[at].is_alphanumeric() {
            at += 1;
        }
        while at < self.chars.len() && self.chars[at].is_alphanumeric() {
            at += 1;
        }
        at
    }

    /// Where the whitespace-delimited word before the cursor starts (`unix-word-rubout`,
    /// Ctrl-W).
    fn unix_word_back(&self) -> usize {
        let mut at = self.cursor;
        while at > 0 && self.chars[at - 1].is_whitespace() {
            at -= 1;
        }
        while at > 0 && !self.chars[at - 1].is_whitespace() {
            at -= 1;
        }
        at
    }

    /// Applies `change` to the characters from the cursor to the end of the word after it
    /// and moves the cursor there (`upcase-word`, `downcase-word`, `capitalize-word`).
    fn case_word(&mut self, change: impl Fn(usize, char) -> char) {
        let end = self.word_forward();
        let mut in_word = 0;
        for c in &mut self.chars[self.cursor..end] {
            if c.is_alphanumeric() {
                *c = change(in_word, *c);
                in_word += 1;
            }
        }
        self.cursor = end;
    }

    /// `transpose-words`, as readline does it: the word at or before the cursor and the one
    /// after it (at the end of the line, the last two) trade places, and the cursor goes after
    /// them; without two words nothing changes.
    fn transpose_words(&mut self) {
        let at = self.cursor;
        self.cursor = self.word_forward();
        let second_end = self.cursor;
        self.cursor = self.word_back();
        let second_start = self.cursor;
        self.cursor = self.word_back();
        let first_start = self.cursor;
        self.cursor = self.word_forward();
        let first_end = self.cursor;
        if first_start == second_start || second_start < first_end {
            self.cursor = at;
            return;
        }
        let first: Vec<char> = self.chars[first_start..first_end].to_vec();
        let second: Vec<char> = self.chars[second_start..second_end].to_vec();
        self.chars.splice(second_start..second_end, first);
        self.chars.splice(first_start..first_end, second);
        self.cursor = second_end;
    }

    fn take(&mut self) -> String {
        self.cursor = 0;
        self.chars.drain(..).collect()
    }
}

/// The largest numeric argument followed (readline caps its own at 1,000,000).
const MAX_ARGUMENT: u32 = 4096;

/// `key` with its direction reversed, for a negative numeric argument (readline runs the
/// opposite command); `None` for a key without an opposite, which then runs as it is.
fn reversed(key: Key) -> Option<Key> {
    Some(match key {
        Key::Left => Key::Right,
        Key::Right => Key::Left,
        Key::WordLeft => Key::WordRight,
        Key::WordRight => Key::WordLeft,
        Key::Delete => Key::Backspace,
        Key::Backspace => Key::Delete,
        Key::KillWordForward => Key::KillWordBack,
        Key::KillWordBack => Key::KillWordForward,
        Key::KillToEnd => Key::KillToStart,
        Key::KillToStart => Key::KillToEnd,
        _ => return None,
    })
}

impl Line {
    /// Carries out one `key` (not a line end nor an argument).
    fn apply(&mut self, key: Key) {
        match key {
            Key::Insert(c) => self.insert(c),
            Key::Left => self.cursor = self.cursor.saturating_sub(1),
            Key::Right => self.cursor = (self.cursor + 1).min(self.chars.len()),
            Key::Home => self.cursor = 0,
            Key::End => self.cursor = self.chars.len(),
            Key::Delete => self.kill(self.cursor, self.cursor + 1),
            Key::Backspace => self.kill(self.cursor.saturating_sub(1), self.cursor),
            Key::WordLeft => self.cursor = self.word_back(),
            Key::WordRight => self.cursor = self.word_forward(),
            Key::KillWordForward => self.kill(self.cursor, self.word_forward()),
            Key::KillWordBack => self.kill(self.word_back(), self.cursor),
            Key::KillToStart | Key::UnixLineDiscard => self.kill(0, self.cursor),
            Key::KillToEnd => self.kill(self.cursor, self.chars.len()),
            Key::UnixWordRubout => self.kill(self.unix_word_back(), self.cursor),
            Key::TransposeChars => {
                // At the end of the line, the last two.
                let at = if self.cursor == self.chars.len() {
                    self.cursor.saturating_sub(1)
                } else {
                    self.cursor
                };
                if at > 0 && at < self.chars.len() {
                    self.chars.swap(at - 1, at);
                    self.cursor = at + 1;
                }
            }
            Key::TransposeWords => self.transpose_words(),
            Key::Upcase => self.case_word(|_, c| c.to_uppercase().next().unwrap_or(c)),
            Key::Downcase => self.case_word(|_, c| c.to_lowercase().next().unwrap_or(c)),
            Key::Capitalize => self.case_word(|i, c| {
                let changed = if i == 0 {
                    c.to_uppercase().next()
                } else {
                    c.to_lowercase().next()
                };
                changed.unwrap_or(c)
            }),
            Key::Discard => {
                self.take();
            }
            Key::Enter(_) | Key::Argument(_) | Key::Ignore | Key::Unknown => {}
        }
    }
}

/// Whether readline's count `times` for `key` (a numeric argument, `negative` or not) does
/// what the key repeated does (or, negative, its opposite repeated, see [`reversed`]): not
/// for the transposes, which drag a character or word that far, nor for a negative count to
/// an insertion or a change of case, nor for a count of 0 to a key that changes the line.
fn follows_argument(key: Key, negative: bool, times: u32) -> bool {
    match key {
        Key::Ignore | Key::Discard => true,
        _ if times == 0 => false,
        Key::TransposeChars | Key::TransposeWords | Key::Unknown => false,
        Key::Insert(_) | Key::UnixWordRubout | Key::Upcase | Key::Downcase | Key::Capitalize => {
            !negative
        }
        _ => true,
    }
}

/// A send's text as the line editor holds it after typing it (see [`edit`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Edited {
    /// Completed lines with their line ends (`\n`, `\r`; Ctrl-O, which runs its line too, as
    /// `\r`), then the unended rest.
    pub(crate) typed: String,
    /// Where the cursor stands in the unended rest: characters from its end.
    pub(crate) cursor_back: usize,
    /// The keys at the end that wait for the next key (a numeric argument, Ctrl-X, Ctrl-V):
    /// they act on the next send's first key.
    pub(crate) pending: String,
    /// The first key that changes the line in a way not followed here (as typed), if any:
    /// then `typed` is not what the line editor holds.
    pub(crate) unknown: Option<String>,
}

/// `text` typed after `before` (the line earlier sends left unended, the cursor
/// `cursor_back` characters from its end), as the line editor holds it. Followed exactly:
/// characters (a TAB too, inserted as the session's shell binds it), Backspace/DEL, Delete,
/// Ctrl-D on text, the cursor keys (arrows left and right, Home, End, Ctrl-A/E/B/F, Meta-b/f
/// and Ctrl- or Alt-arrows by word), the kills (Ctrl-U, Ctrl-K, Ctrl-W, Meta-d,
/// Meta-Backspace, Ctrl-Delete), Ctrl-T, Meta-t/u/l/c, Ctrl-C (discards the line), Ctrl-V
/// (the next key inserted as it is), numeric arguments (Meta-digits and Meta-minus: the next
/// key repeated, or its opposite for a negative one), and the keys that leave the line as
/// it is (see the keys' `Ignore`). Any other key is named in [`Edited::unknown`].
pub(crate) fn edit(before: &str, cursor_back: usize, text: &str) -> Edited {
    let mut out = String::with_capacity(before.len() + text.len());
    let mut line = Line::default();
    for c in before.chars() {
        line.insert(c);
    }
    line.cursor = line.chars.len().saturating_sub(cursor_back);
    let mut unknown = None;
    // The numeric argument being typed: where it starts in `text`, its sign and digits so far.
    let mut argument: Option<(usize, bool, Option<u32>)> = None;
    let (keys, unfinished) = keys(text);
    for typed in keys {
        // Meta-minus after an argument's digits is a minus typed that many times.
        let key = match (typed.key, argument) {
            (Key::Argument('-'), Some((_, _, Some(_)))) => Key::Insert('-'),
            (key, _) => key,
        };
        match key {
            Key::Argument('-') => {
                let (start, _, n) = argument.unwrap_or((typed.at.start, false, None));
                argument = Some((start, true, n));
            }
            // Plain digits right after an argument go on with it.
            Key::Argument(d) | Key::Insert(d @ '0'..='9')
                if matches!(key, Key::Argument(_)) || argument.is_some() =>
            {
                let (start, negative, n) = argument.unwrap_or((typed.at.start, false, None));
                let n = n.unwrap_or(0).saturating_mul(10) + d.to_digit(10).unwrap_or(0);
                argument = Some((start, negative, Some(n.min(MAX_ARGUMENT))));
            }
            Key::Enter(c) => {
                argument = None;
                out.push_str(&line.take());
                out.push(c);
            }
            key => {
                let (negative, times) = match argument.take() {
                    Some((start, negative, n)) => {
                        let times = n.unwrap_or(1);
                        if !follows_argument(key, negative, times) {
                            unknown.get_or_insert_with(|| text[start..typed.at.end].to_owned());
                        }
                        (negative, times)
                    }
                    None => (false, 1),
                };
                if key == Key::Unknown {
                    unknown.get_or_insert_with(|| text[typed.at.clone()].to_owned());
                }
                let key = if negative {
                    reversed(key).unwrap_or(key)
                } else {
                    key
                };
                // Discarding the line takes no count.
                let times = if key == Key::Discard { 1 } else { times };
                for _ in 0..times {
                    line.apply(key);
                }
            }
        }
    }
    let pending_from = match (argument, unfinished) {
        (Some((start, ..)), _) | (None, Some(start)) => Some(start),
        (None, None) => None,
    };
    let cursor_back = line.chars.len() - line.cursor;
    out.push_str(&line.take());
    Edited {
        typed: out,
        cursor_back,
        pending: pending_from.map_or_else(String::new, |start| text[start..].to_owned()),
        unknown,
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    /// The line `text` types, every key of it followed.
    fn ok(text: &str) -> String {
        let edited = edit("", 0, text);
        assert_eq!(edited.unknown, None, "{text:?}");
        edited.typed
    }

    /// The first key of `text` not followed.
    fn unknown(text: &str) -> Option<String> {
        edit("", 0, text).unknown
    }

    #[test]
    fn deleting_keys_and_pastes_are_applied() {
        assert_eq!(ok("tx\u{7f}ouch a"), "touch a");
        assert_eq!(ok("rm -x\u{8}rf /"), "rm -rf /");
        assert_eq!(ok("\u{1b}[200~touch b\u{1b}[201~"), "touch b");
        assert_eq!(ok("echo hi\u{15}touch c\r"), "touch c\r");
        // Ctrl-O runs the line as Enter does.
        assert_eq!(ok("true\u{f}rm victim\r"), "true\rrm victim\r");
        assert_eq!(ok("a\n\u{7f}b"), "a\nb");
        assert_eq!(ok("r\u{3}m = 5"), "m = 5");
        assert_eq!(ok("naïve\tx"), "naïve\tx");
        assert_eq!(ok("r\u{16}\u{7f}m"), "r\u{7f}m");
    }

    /// The ways a breaker spelled `rm` past a pattern: the cursor moved to the start, a word
    /// killed, Home keys of every form.
    #[test]
    fn cursor_keys_and_kills_are_followed() {
        assert_eq!(ok("m a3\u{1}r"), "rm a3");
        assert_eq!(ok("x\u{17}rm a10"), "rm a10");
        for home in ["\u{1b}[H", "\u{1b}OH", "\u{1b}[1~"] {
            assert_eq!(ok(&format!("m w4{home}r")), "rm w4", "{home:?}");
        }
        assert_eq!(ok("w6\u{1}rm \u{5}"), "rm w6");
        assert_eq!(ok("push origin main\u{1}git "), "git push origin main");
        assert_eq!(ok("rX\u{1b}[Dm\u{1b}[C\u{7f} x"), "rm x");
        assert_eq!(ok("r x\u{2}\u{2}m\u{6}"), "rm x");
        assert_eq!(
            ok("echo rm\u{1b}b\u{1b}d\u{1b}b\u{1b}[3~\u{1b}[3~\u{1b}[3~\u{1b}[3~\u{1b}[3~x"),
            "x"
        );
        assert_eq!(
            ok("echo safe; rm y\u{1b}[1;5D\u{1b}[1;5D\u{b}"),
            "echo safe; "
        );
        assert_eq!(ok("mr x\u{1}\u{6}\u{14}"), "rm x");
        assert_eq!(ok("rm a\u{1b}\u{7f}b"), "rm b");
        assert_eq!(ok("x\u{1b}[2025~ls"), "ls");
        // Ctrl- and Alt-arrows, and ESC before an arrow, move by words; Ctrl-Delete kills one.
        assert_eq!(ok("echo ab cd\u{1b}[5D x"), "echo ab  xcd");
        assert_eq!(ok("echo ab cd\u{1b}[1;3D x"), "echo ab  xcd");
        assert_eq!(ok("echo ab cd\u{1b}\u{1b}[D x"), "echo ab  xcd");
        assert_eq!(ok("echo ab cd\u{1b}[1;5D\u{1b}[3;5~ x"), "echo ab  x");
        // A line carried over from an earlier send goes on where its cursor was.
        assert_eq!(edit("m a", 0, "\u{1}r").typed, "rm a");
        assert_eq!(edit("m a", 3, "r").typed, "rm a");
    }

    /// A breaker's way past the patterns: a numeric argument repeating a deletion (`Meta-2
    /// Ctrl-D`), a movement, or an insertion; a negative one runs the opposite key.
    #[test]
    fn numeric_arguments_repeat_the_next_key() {
        assert_eq!(ok("xxrm victim2\u{1}\u{1b}2\u{4}"), "rm victim2");
        assert_eq!(ok("xxxrm victim3\u{1}\u{1b}3\u{1b}[3~"), "rm victim3");
        assert_eq!(ok("echo bidden\u{1}\u{1b}5\u{6}for"), "echo forbidden");
        assert_eq!(ok("echo bidden\u{1}\u{1b}5\u{1b}[Cfor"), "echo forbidden");
        assert_eq!(ok("\u{1b}1\u{1b}2x"), "xxxxxxxxxxxx");
        assert_eq!(ok("\u{1b}12x"), "xxxxxxxxxxxx");
        assert_eq!(ok("rm xy\u{1b}-\u{1b}[D"), "rm xy");
        assert_eq!(ok("rmzz x\u{1}\u{1b}f\u{1b}2\u{7f}"), "rm x");
        assert_eq!(ok("rzzm x\u{1}\u{6}\u{6}\u{6}\u{1b}-\u{1b}2\u{4}"), "rm x");
    }

    #[test]
    fn transposes_and_case_changes_are_applied() {
        assert_eq!(ok("a3 rm\u{1b}t"), "rm a3");
        assert_eq!(ok("a3 rm\u{1}\u{1b}f\u{1b}t"), "rm a3");
        assert_eq!(ok("RM a3\u{1}\u{1b}l"), "rm a3");
        assert_eq!(ok("rm\u{1}\u{1b}u"), "RM");
        assert_eq!(ok("rM\u{1}\u{1b}c"), "Rm");
    }

    /// Keys whose effect on the line is not followed are named, as typed: completion (M-/,
    /// M-TAB, M-!, ESC ESC, C-x /), character search (C-], M-C-]), M-\
    /// (delete-horizontal-space), history, yank, undo, macros, a count to a transpose, and
    /// sequences readline does not simply drop (F5 and `ESC [ 8 ~` insert `~`).
    #[test]
    fn keys_not_followed_are_named() {
        for (text, key) in [
            ("cat forbidd\u{1b}/", "\u{1b}/"),
            ("cat forbidd\u{1b}\t", "\u{1b}\t"),
            ("shutdow\u{1b}! --help", "\u{1b}!"),
            ("cat forbidd\u{1b}\u{1b}", "\u{1b}\u{1b}"),
            ("cat forbidd\u{18}/", "\u{18}/"),
            ("echo forbdden\u{1}\u{1d}di", "\u{1d}"),
            ("echo forbdden\u{1b}\u{1d}d\u{2}i", "\u{1b}\u{1d}"),
            ("echo forbid den\u{2}\u{2}\u{2}\u{1b}\\", "\u{1b}\\"),
            ("\u{1b}[Als", "\u{1b}[A"),
            ("\u{10}", "\u{10}"),
            ("\u{12}rm", "\u{12}"),
            ("\u{19}x", "\u{19}"),
            ("x\u{1b}.", "\u{1b}."),
            ("x\u{1f}", "\u{1f}"),
            ("x\u{11}\u{1}", "\u{11}"),
            ("\u{18}(x\u{18})\u{18}e", "\u{18}("),
            ("ls\u{1b}\u{5}", "\u{1b}\u{5}"),
            ("mr x\u{1}\u{6}\u{1b}2\u{14}", "\u{1b}2\u{14}"),
            ("rm -rf \u{1b}[15~", "\u{1b}[15~"),
            ("ab\u{1b}[8~", "\u{1b}[8~"),
            ("ab\u{1b}OP", "\u{1b}OP"),
        ] {
            assert_eq!(unknown(text).as_deref(), Some(key), "{text:?}");
        }
    }

    /// Keys that leave the line as it is: readline's abort, clear-screen, meta and Ctrl-X keys
    /// bound to nothing (vim's `ESC :`), an ESC left unfinished (the send closes it).
    #[test]
    fn keys_that_change_nothing_are_followed() {
        assert_eq!(ok("ihello\u{1b}:wq"), "ihellowq");
        assert_eq!(ok("echo a\u{1b}j b"), "echo a b");
        assert_eq!(ok("echo ab\u{1b}A b"), "echo ab b");
        assert_eq!(ok("echo forbid\u{7}\u{c}den"), "echo forbidden");
        assert_eq!(ok("echo a\u{18}z b\u{18}\u{7}"), "echo a b");
        assert_eq!(ok("ls\u{1b}"), "ls");
        assert_eq!(ok("ls\u{1b}[1"), "ls");
        assert_eq!(ok("x\u{1b}[2024~\u{1b}[2026~y"), "xy");
        assert_eq!(ok("a\u{0085}b"), "a\u{0085}b");
    }

    /// A numeric argument, Ctrl-X or Ctrl-V at the end waits for the next key: kept as
    /// pending, with the cursor's place.
    #[test]
    fn keys_waiting_for_the_next_are_pending() {
        let edited = edit("", 0, "m a\u{1}\u{1b}3");
        assert_eq!(
            (
                edited.typed.as_str(),
                edited.cursor_back,
                edited.pending.as_str()
            ),
            ("m a", 3, "\u{1b}3")
        );
        assert_eq!(edit("", 0, "ls \u{18}").pending, "\u{18}");
        assert_eq!(edit("", 0, "ls \u{16}").pending, "\u{16}");
        assert_eq!(edit("", 0, "ls").pending, "");
        assert_eq!(edit("xxrm x", 6, "\u{1b}2\u{4}").typed, "rm x");
    }

    /// Ctrl-C after a key waiting for the next (Ctrl-X, Ctrl-V, ESC, a numeric argument) is
    /// the terminal's SIGINT, no key for it: the line and the waiting key are gone. Ctrl-G
    /// ends a waiting Ctrl-X or argument and leaves the line as it is.
    #[test]
    fn interrupt_and_abort_end_waiting_keys() {
        for waiting in ["\u{18}", "\u{16}", "\u{1b}", "\u{1b}3"] {
            let edited = edit("yy", 0, &format!("{waiting}\u{3}echo hi"));
            assert_eq!(
                (
                    edited.typed.as_str(),
                    edited.unknown,
                    edited.pending.as_str()
                ),
                ("echo hi", None, ""),
                "{waiting:?}"
            );
        }
        for waiting in ["\u{18}", "\u{1b}3"] {
            let edited = edit("yy", 0, &format!("{waiting}\u{7}"));
            assert_eq!(
                (
                    edited.typed.as_str(),
                    edited.unknown,
                    edited.pending.as_str()
                ),
                ("yy", None, ""),
                "{waiting:?}"
            );
        }
    }
}
