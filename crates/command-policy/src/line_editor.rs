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

/// `text` typed after `before` (the line earlier sends left unended, the cursor at its end),
/// as the line editor holds it: completed lines with their line ends (`\n`, `\r`), then the
/// unended rest. Followed: Backspace/DEL, Delete, Ctrl-D on text, the cursor keys (arrows
/// left and right, Home, End, Ctrl-A/E/B/F, Meta-b/f and Ctrl-arrows by word), the kills
/// (Ctrl-U, Ctrl-K, Ctrl-W, Meta-d, Meta-Backspace), Ctrl-T, Ctrl-C (discards the line),
/// Ctrl-V (the next key is inserted as it is), a TAB (inserted, as the session's shell binds
/// it), Meta-t, Meta-u, Meta-l and Meta-c, and a bracketed paste's markers (dropped). Other
/// escape sequences and control keys, history and yank keys among them, are dropped.
pub(crate) fn edit(before: &str, text: &str) -> String {
    let mut out = String::with_capacity(before.len() + text.len());
    let mut line = Line::default();
    for c in before.chars() {
        line.insert(c);
    }
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\r' => {
                out.push_str(&line.take());
                out.push(c);
            }
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
                        (Some('C'), _) if by_word => line.cursor = line.word_forward(),
                        (Some('D'), _) if by_word => line.cursor = line.word_back(),
                        (Some('C'), _) => line.cursor = (line.cursor + 1).min(line.chars.len()),
                        (Some('D'), _) => line.cursor = line.cursor.saturating_sub(1),
                        (Some('H'), _) | (Some('~'), "1" | "7") => line.cursor = 0,
                        (Some('F'), _) | (Some('~'), "4" | "8") => line.cursor = line.chars.len(),
                        (Some('~'), "3") => line.kill(line.cursor, line.cursor + 1),
                        // The session's own clear-line key (see the bash backend).
                        (Some('~'), "2025") => {
                            line.take();
                        }
                        _ => {}
                    }
                }
                Some('O') => match chars.next() {
                    Some('C') => line.cursor = (line.cursor + 1).min(line.chars.len()),
                    Some('D') => line.cursor = line.cursor.saturating_sub(1),
                    Some('H') => line.cursor = 0,
                    Some('F') => line.cursor = line.chars.len(),
                    _ => {}
                },
                Some('b' | 'B') => line.cursor = line.word_back(),
                Some('f' | 'F') => line.cursor = line.word_forward(),
                Some('d' | 'D') => line.kill(line.cursor, line.word_forward()),
                Some('\u{7f}' | '\u{8}') => line.kill(line.word_back(), line.cursor),
                Some('t' | 'T') => line.transpose_words(),
                Some('u' | 'U') => line.case_word(|_, c| c.to_uppercase().next().unwrap_or(c)),
                Some('l' | 'L') => line.case_word(|_, c| c.to_lowercase().next().unwrap_or(c)),
                Some('c' | 'C') => line.case_word(|i, c| {
                    let changed = if i == 0 {
                        c.to_uppercase().next()
                    } else {
                        c.to_lowercase().next()
                    };
                    changed.unwrap_or(c)
                }),
                _ => {}
            },
            '\u{8}' | '\u{7f}' => line.kill(line.cursor.saturating_sub(1), line.cursor),
            '\u{4}' => line.kill(line.cursor, line.cursor + 1),
            '\u{1}' => line.cursor = 0,
            '\u{5}' => line.cursor = line.chars.len(),
            '\u{2}' => line.cursor = line.cursor.saturating_sub(1),
            '\u{6}' => line.cursor = (line.cursor + 1).min(line.chars.len()),
            '\u{15}' => line.kill(0, line.cursor),
            '\u{b}' => line.kill(line.cursor, line.chars.len()),
            '\u{17}' => line.kill(line.unix_word_back(), line.cursor),
            '\u{14}' => {
                // transpose-chars: at the end of the line, the last two.
                let at = if line.cursor == line.chars.len() {
                    line.cursor.saturating_sub(1)
                } else {
                    line.cursor
                };
                if at > 0 && at < line.chars.len() {
                    line.chars.swap(at - 1, at);
                    line.cursor = at + 1;
                }
            }
            // An interrupt discards the line in a line editor.
            '\u{3}' => {
                line.take();
            }
            '\u{16}' => {
                if let Some(next) = chars.next() {
                    line.insert(next);
                }
            }
            '\t' => line.insert('\t'),
            c if c.is_control() => {}
            c => line.insert(c),
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
