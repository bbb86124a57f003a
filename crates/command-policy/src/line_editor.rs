//! What a send types, as a line editor (readline's emacs keys, bash's default) will hold it:
//! the policy matches these lines too, so keys cannot spell a refused command past the
//! patterns (`tx` + DEL + `ouch`, `m a3` + Ctrl-A + `r`, `x` + Ctrl-W + `rm a10`, a bracketed
//! paste around it).
//!
//! Keys that move the cursor, delete, transpose or change case are followed. Keys that bring
//! back text from elsewhere (history, the kill ring, an earlier command's argument) are not:
//! what they insert is not known here, and a full-screen program (vim, nano) takes the same
//! keys as its own commands, which a refusal would break. A guard rail, not a boundary.

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

    /// `transpose-words`: the word before the cursor and the one after it trade places (at
    /// the end of the line, the last two), and the cursor goes after them.
    fn transpose_words(&mut self) {
        let at_end = !self.chars[self.cursor..]
            .iter()
            .any(|c| c.is_alphanumeric());
        if at_end {
            self.cursor = self.chars.len();
            self.cursor = self.word_back();
        }
        let second_end = self.word_forward();
        let second_start = {
            let mut at = second_end;
            while at > 0 && self.chars[at - 1].is_alphanumeric() {
                at -= 1;
            }
            at
        };
        self.cursor = second_start;
        let first_start = self.word_back();
        let mut first_end = first_start;
        while first_end < self.chars.len() && self.chars[first_end].is_alphanumeric() {
            first_end += 1;
        }
        if first_start == first_end || second_start == second_end || first_end > second_start {
            self.cursor = second_end;
            return;
        }
        let first: Vec<char> = self.chars[first_start..first_end].to_vec();
        let second: Vec<char> = self.chars[second_start..second_end].to_vec();
        let between: Vec<char> = self.chars[first_end..second_start].to_vec();
        let swapped: Vec<char> = second.into_iter().chain(between).chain(first).collect();
        self.chars.splice(first_start..second_end, swapped);
        self.cursor = second_end;
    }

    fn take(&mut self) -> String {
        self.cursor = 0;
        self.chars.drain(..).collect()
    }
}

/// One editing key, as [`keys`] reads it from the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    /// A character inserted (also after Ctrl-V, and a TAB).
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
    /// Meta-d.
    KillWordForward,
    /// Meta-Backspace.
    KillWordBack,
    /// Ctrl-U.
    KillToStart,
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
    /// Anything else: no change to the line.
    Ignore,
}

/// The keys `text` types, in order.
fn keys(text: &str) -> Vec<Key> {
    let mut keys = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let key = match c {
            '\n' | '\r' => Key::Enter(c),
            // Ctrl-O (`operate-and-get-next`) runs the line as Enter does (and then brings the
            // next history line back, which is not known here).
            '\u{f}' => Key::Enter('\r'),
            '\u{1b}' => match chars.next() {
                Some('[') => {
                    let mut params = String::new();
                    let mut last = None;
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            last = Some(c);
                            break;
                        }
                        params.push(c);
                    }
                    let by_word = params.contains(';');
                    match (last, params.as_str()) {
                        (Some('C'), _) if by_word => Key::WordRight,
                        (Some('D'), _) if by_word => Key::WordLeft,
                        (Some('C'), _) => Key::Right,
                        (Some('D'), _) => Key::Left,
                        (Some('H'), _) | (Some('~'), "1" | "7") => Key::Home,
                        (Some('F'), _) | (Some('~'), "4" | "8") => Key::End,
                        (Some('~'), "3") => Key::Delete,
                        // The session's own clear-line key (see the bash backend).
                        (Some('~'), "2025") => Key::Discard,
                        _ => Key::Ignore,
                    }
                }
                Some('O') => match chars.next() {
                    Some('C') => Key::Right,
                    Some('D') => Key::Left,
                    Some('H') => Key::Home,
                    Some('F') => Key::End,
                    _ => Key::Ignore,
                },
                Some(d @ ('0'..='9' | '-')) => Key::Argument(d),
                Some('b' | 'B') => Key::WordLeft,
                Some('f' | 'F') => Key::WordRight,
                Some('d' | 'D') => Key::KillWordForward,
                Some('\u{7f}' | '\u{8}') => Key::KillWordBack,
                Some('t' | 'T') => Key::TransposeWords,
                Some('u' | 'U') => Key::Upcase,
                Some('l' | 'L') => Key::Downcase,
                Some('c' | 'C') => Key::Capitalize,
                _ => Key::Ignore,
            },
            '\u{8}' | '\u{7f}' => Key::Backspace,
            '\u{4}' => Key::Delete,
            '\u{1}' => Key::Home,
            '\u{5}' => Key::End,
            '\u{2}' => Key::Left,
            '\u{6}' => Key::Right,
            '\u{15}' => Key::KillToStart,
            '\u{b}' => Key::KillToEnd,
            '\u{17}' => Key::UnixWordRubout,
            '\u{14}' => Key::TransposeChars,
            // An interrupt discards the line in a line editor.
            '\u{3}' => Key::Discard,
            '\u{16}' => chars.next().map_or(Key::Ignore, Key::Insert),
            '\t' => Key::Insert('\t'),
            c if c.is_control() => Key::Ignore,
            c => Key::Insert(c),
        };
        keys.push(key);
    }
    keys
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
            Key::KillToStart => self.kill(0, self.cursor),
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
            Key::Enter(_) | Key::Argument(_) | Key::Ignore => {}
        }
    }
}

/// `text` typed after `before` (the line earlier sends left unended, the cursor at its end),
/// as the line editor holds it: completed lines with their line ends (`\n`, `\r`; Ctrl-O,
/// which runs its line too, as `\r`), then the unended rest. Followed: Backspace/DEL, Delete, Ctrl-D on text, the cursor keys (arrows
/// left and right, Home, End, Ctrl-A/E/B/F, Meta-b/f and Ctrl-arrows by word), the kills
/// (Ctrl-U, Ctrl-K, Ctrl-W, Meta-d, Meta-Backspace), Ctrl-T, Ctrl-C (discards the line),
/// Ctrl-V (the next key is inserted as it is), a TAB (inserted, as the session's shell binds
/// it), Meta-t, Meta-u, Meta-l and Meta-c, numeric arguments (Meta-digits and Meta-minus:
/// the next key repeated, or its opposite for a negative one), and a bracketed paste's
/// markers (dropped). Other escape sequences and control keys, history and yank keys among
/// them, are dropped.
pub(crate) fn edit(before: &str, text: &str) -> String {
    let mut out = String::with_capacity(before.len() + text.len());
    let mut line = Line::default();
    for c in before.chars() {
        line.insert(c);
    }
    // The numeric argument being typed: its sign and digits so far.
    let mut argument: Option<(bool, Option<u32>)> = None;
    for key in keys(text) {
        match key {
            Key::Argument('-') => argument = Some((true, argument.and_then(|(_, n)| n))),
            // Plain digits right after an argument go on with it.
            Key::Argument(d) | Key::Insert(d @ '0'..='9')
                if matches!(key, Key::Argument(_)) || argument.is_some() =>
            {
                let (negative, n) = argument.unwrap_or((false, None));
                let n = n.unwrap_or(0).saturating_mul(10) + d.to_digit(10).unwrap_or(0);
                argument = Some((negative, Some(n.min(MAX_ARGUMENT))));
            }
            Key::Enter(c) => {
                argument = None;
                out.push_str(&line.take());
                out.push(c);
            }
            key => {
                let (negative, times) = match argument.take() {
                    Some((negative, n)) => (negative, n.unwrap_or(1)),
                    None => (false, 1),
                };
                let key = if negative {
                    reversed(key).unwrap_or(key)
                } else {
                    key
                };
                for _ in 0..times {
                    line.apply(key);
                }
            }
        }
    }
    out.push_str(&line.take());
    out
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn ok(text: &str) -> String {
        edit("", text)
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
        for home in ["\u{1b}[H", "\u{1b}OH", "\u{1b}[1~", "\u{1b}[7~"] {
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
        // A line carried over from an earlier send goes on where its cursor was (the end).
        assert_eq!(edit("m a", "\u{1}r"), "rm a");
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
        // History and yank keys are not followed: their text is not known here.
        assert_eq!(ok("\u{1b}[Als"), "ls");
        assert_eq!(ok("\u{19}x\u{1b}."), "x");
    }
}
