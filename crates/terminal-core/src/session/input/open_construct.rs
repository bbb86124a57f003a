//! What keeps a command line typed at the shell unfinished, so that the shell shows its
//! continuation prompt (PS2) and takes the next lines as more of it: a quote no closing quote
//! ended (`echo 'it's fine'`: the apostrophe closed the first quote and the last `'` opened
//! another), a here-document waiting for its delimiter line, a `$(`, `(` or `{` not closed, an
//! `if`, `for`, `while`, `until`, `case` or `select` without its `fi`, `done` or `esac`, or a
//! last line ending with `\`, `|`, `&&` or `||`. Read from the text the sends typed, as a
//! shell's parser would, closely enough to name it.

use std::collections::VecDeque;

use super::here_documents::{HereDocument, here_document};

/// What is still open at the end of the text (the innermost: what the next line goes into).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::session) enum Opened {
    /// A quote: `'`, `"`, or a backquote substitution's `` ` ``.
    Quote(char),
    /// A here-document whose body the shell reads until a line that is `delimiter` alone;
    /// `near_miss` is a body line that is the delimiter but for blanks around it.
    HereDocument {
        delimiter: String,
        near_miss: Option<String>,
    },
    /// `$(` without its `)`.
    Substitution,
    /// `(` without its `)`.
    Subshell,
    /// `{` without its `}`.
    Group,
    /// A compound command's first keyword and the one that ends it (`for`, `done`).
    Keyword(&'static str, &'static str),
    /// The last line ends with a backslash, which joins the next one to it.
    Backslash,
    /// The last line ends with an operator that wants a command after it (`|`, `&&`, `||`).
    Operator(&'static str),
}

/// The innermost open construct of a command line, where it opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::session) struct OpenConstruct {
    pub(in crate::session) opened: Opened,
    /// The line it opened in (1 = the command's first line), and that line's text.
    pub(in crate::session) line: usize,
    pub(in crate::session) line_text: String,
    /// That line's text up to the opening character (a quote's, `$(`'s), inclusive.
    pub(in crate::session) upto: String,
    /// A word whose `'` closed a single quote the way an apostrophe does (`it's`), before a
    /// `'` quote left open: the likely cause.
    pub(in crate::session) apostrophe: Option<String>,
}

/// Compound commands' first keywords, and the keyword that ends each.
const COMPOUND: [(&str, &str); 6] = [
    ("if", "fi"),
    ("for", "done"),
    ("while", "done"),
    ("until", "done"),
    ("select", "done"),
    ("case", "esac"),
];

/// What a frame on the stack of open constructs is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Quote(u8),
    Substitution,
    Subshell,
    Group,
    Parameter,
    Keyword(&'static str, &'static str),
}

struct Frame {
    kind: Kind,
    line: usize,
    upto: usize,
}

/// The lines the shell's line editor got from `typed` (the bytes sends wrote to it: keys the
/// host adds, `ESC [ 2025 ~`, and other control keys left out; a carriage return ends a line).
pub(in crate::session) fn typed_lines(typed: &[u8]) -> Vec<String> {
    let mut text = Vec::with_capacity(typed.len());
    let mut at = 0;
    while let Some(&b) = typed.get(at) {
        at += 1;
        match b {
            0x1b if typed.get(at) == Some(&b'[') => {
                at += 1;
                while typed.get(at).is_some_and(|b| !(0x40..=0x7e).contains(b)) {
                    at += 1;
                }
                at += 1;
            }
            0x1b => at += 1,
            b'\r' | b'\n' => text.push(b'\n'),
            b'\t' => text.push(b),
            _ if b < 0x20 || b == 0x7f => {}
            _ => text.push(b),
        }
    }
    let text = String::from_utf8_lossy(&text);
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// The construct that keeps the command typed as `lines` (see [`typed_lines`]) open, or
/// `None` when none is seen (the shell's own reasons: an alias, `shopt`, an odd syntax).
pub(in crate::session) fn open_construct(lines: &[String]) -> Option<OpenConstruct> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut documents: VecDeque<(HereDocument, usize)> = VecDeque::new();
    let mut near_miss = None;
    let mut apostrophe = None;
    let mut tail = None;
    for (index, line) in lines.iter().enumerate() {
        let bytes = line.as_bytes();
        if let Some((document, _)) = documents.front() {
            if document.ends_at(bytes) {
                documents.pop_front();
                near_miss = None;
            } else if line.trim() == String::from_utf8_lossy(document.delimiter()) {
                near_miss = Some(line.clone());
            }
            continue;
        }
        tail = scan_line(bytes, index, &mut stack, &mut documents, &mut apostrophe);
    }
    let at = |line: usize, upto: usize, opened: Opened| {
        let text = lines.get(line).cloned().unwrap_or_default();
        let upto = String::from_utf8_lossy(&text.as_bytes()[..upto.min(text.len())]).into_owned();
        Some(OpenConstruct {
            apostrophe: apostrophe.clone().filter(|_| opened == Opened::Quote('\'')),
            opened,
            line: line + 1,
            line_text: text,
            upto,
        })
    };
    let last = lines.len().saturating_sub(1);
    // A quote is the innermost: the lines after it, a here-document's too, are its text.
    if let Some(Frame {
        kind: Kind::Quote(quote),
        line,
        upto,
    }) = stack.last()
    {
        return at(*line, *upto, Opened::Quote(char::from(*quote)));
    }
    if let Some((document, line)) = documents.front() {
        let delimiter = String::from_utf8_lossy(document.delimiter()).into_owned();
        return at(
            *line,
            0,
            Opened::HereDocument {
                delimiter,
                near_miss,
            },
        );
    }
    if let Some(opened) = tail {
        return at(last, lines.get(last).map_or(0, String::len), opened);
    }
    let frame = stack.last()?;
    let opened = match frame.kind {
        Kind::Substitution => Opened::Substitution,
        Kind::Subshell => Opened::Subshell,
        Kind::Group => Opened::Group,
        Kind::Keyword(first, end) => Opened::Keyword(first, end),
        Kind::Quote(_) | Kind::Parameter => return None,
    };
    at(frame.line, frame.upto, opened)
}

/// Scans line `index` (`bytes`) on from the constructs open before it: what opens and closes
/// in it, the here-documents it asks for. Whether it ends with a backslash or an operator
/// (outside quotes) that wants more.
fn scan_line(
    bytes: &[u8],
    index: usize,
    stack: &mut Vec<Frame>,
    documents: &mut VecDeque<(HereDocument, usize)>,
    apostrophe: &mut Option<String>,
) -> Option<Opened> {
    let mut at = 0;
    let mut command_position = true;
    let mut word_start = true;
    let mut operator = None;
    while let Some(&b) = bytes.get(at) {
        let next = bytes.get(at + 1).copied();
        match stack.last().map(|f| f.kind) {
            Some(Kind::Quote(b'\'')) => {
                if b == b'\'' {
                    stack.pop();
                    let around = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_alphabetic);
                    if at > 0 && around(at - 1) && around(at + 1) {
                        *apostrophe = Some(word_around(bytes, at));
                    }
                }
                at += 1;
                continue;
            }
            Some(Kind::Quote(q)) => {
                match b {
                    b'\\' => at += 1,
                    _ if b == q => {
                        stack.pop();
                    }
                    _ => {}
                }
                at += 1;
                continue;
            }
            Some(Kind::Parameter) => {
                if b == b'}' {
                    stack.pop();
                }
                at += 1;
                continue;
            }
            _ => {}
        }
        let frame = |kind, upto| Frame {
            kind,
            line: index,
            upto,
        };
        match b {
            b' ' | b'\t' => {
                word_start = true;
                at += 1;
                continue;
            }
            b'\\' if next.is_none() => return Some(Opened::Backslash),
            b'\\' => at += 2,
            b'\'' | b'"' | b'`' => {
                stack.push(frame(Kind::Quote(b), at + 1));
                at += 1;
                command_position = false;
            }
            b'#' if word_start => break,
            b'$' if next == Some(b'(') => {
                stack.push(frame(Kind::Substitution, at + 2));
                at += 2;
                command_position = true;
            }
            b'$' if next == Some(b'{') => {
                stack.push(frame(Kind::Parameter, at + 2));
                at += 2;
            }
            b'(' => {
                stack.push(frame(Kind::Subshell, at + 1));
                at += 1;
                command_position = true;
            }
            b')' => {
                if stack
                    .last()
                    .is_some_and(|f| matches!(f.kind, Kind::Substitution | Kind::Subshell))
                {
                    stack.pop();
                }
                at += 1;
                command_position = false;
            }
            // A here-string (`<<<`) is no here-document.
            b'<' if next == Some(b'<') && bytes.get(at + 2) == Some(&b'<') => at += 3,
            b'<' if next == Some(b'<') => {
                let mut asked = VecDeque::new();
                at = here_document(bytes, at + 2, &mut asked);
                documents.extend(asked.into_iter().map(|document| (document, index)));
                command_position = false;
            }
            b';' | b'&' | b'|' => {
                operator = match (b, next) {
                    (b'|', Some(b'|')) => Some("||"),
                    (b'&', Some(b'&')) => Some("&&"),
                    (b'|', _) if next != Some(b'&') => Some("|"),
                    _ => None,
                };
                at += if operator.is_some_and(|o| o.len() == 2) {
                    2
                } else {
                    1
                };
                command_position = true;
                word_start = true;
                continue;
            }
            b'<' | b'>' => at += 1,
            _ => {
                let end = at
                    + bytes[at..]
                        .iter()
                        .position(|c| b" \t;&|()<>'\"`\\$".contains(c))
                        .unwrap_or(bytes.len() - at);
                let end = end.max(at + 1);
                let word = std::str::from_utf8(&bytes[at..end]).unwrap_or("");
                if word_start && command_position {
                    command_position = keyword(word, index, at, end, stack);
                } else {
                    command_position = false;
                }
                at = end;
            }
        }
        word_start = false;
        operator = None;
    }
    operator.map(Opened::Operator)
}

/// Handles `word` (bytes `start..end` of line `index`) read where a command starts: a
/// compound command's keyword opens or closes its frame, `{` and `}` a group's. Whether a
/// command may start at the next word.
fn keyword(word: &str, index: usize, start: usize, end: usize, stack: &mut Vec<Frame>) -> bool {
    if let Some(&(first, last)) = COMPOUND.iter().find(|(first, _)| *first == word) {
        stack.push(Frame {
            kind: Kind::Keyword(first, last),
            line: index,
            upto: end,
        });
        return matches!(first, "if" | "while" | "until");
    }
    if COMPOUND.iter().any(|(_, last)| *last == word) {
        if let Some(at) = stack
            .iter()
            .rposition(|f| matches!(f.kind, Kind::Keyword(_, last) if last == word))
        {
            stack.truncate(at);
        }
        return false;
    }
    match word {
        "{" => {
            stack.push(Frame {
                kind: Kind::Group,
                line: index,
                upto: start + 1,
            });
            true
        }
        "}" => {
            if stack.last().is_some_and(|f| f.kind == Kind::Group) {
                stack.pop();
            }
            false
        }
        "then" | "do" | "else" | "elif" | "!" => true,
        _ => false,
    }
}

/// The word of `bytes` around byte `at` (letters, digits, `'`, `_`).
fn word_around(bytes: &[u8], at: usize) -> String {
    let part = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'\'' | b'_');
    let start = bytes[..at]
        .iter()
        .rposition(|b| !part(b))
        .map_or(0, |i| i + 1);
    let end = bytes[at..]
        .iter()
        .position(|b| !part(b))
        .map_or(bytes.len(), |i| at + i);
    let word = &bytes[start..end];
    // The quote that opened the string is no part of the word (`'it's` → `it's`).
    let word = word.strip_prefix(b"'").unwrap_or(word);
    String::from_utf8_lossy(word).into_owned()
}

#[cfg(test)]
mod tests {
    use super::{OpenConstruct, Opened, open_construct, typed_lines};

    fn open(text: &str) -> Option<OpenConstruct> {
        open_construct(&typed_lines(text.as_bytes()))
    }

    fn opened(text: &str) -> Option<Opened> {
        open(text).map(|o| o.opened)
    }

    #[test]
    fn an_apostrophe_in_single_quotes_leaves_a_quote_open() {
        let o = open("echo 'it's fine'\n").unwrap();
        assert_eq!(o.opened, Opened::Quote('\''));
        assert_eq!((o.line, o.upto.as_str()), (1, "echo 'it's fine'"));
        assert_eq!(o.apostrophe.as_deref(), Some("it's"));
        // Later lines typed at the continuation prompt are text of that string.
        let o = open("echo 'it's fine'\nls /\necho after\n").unwrap();
        assert_eq!((o.opened, o.line), (Opened::Quote('\''), 1));
        assert_eq!(opened("echo \"a\nb\n"), Some(Opened::Quote('"')));
        assert_eq!(opened("echo `date\n"), Some(Opened::Quote('`')));
        assert_eq!(open("echo 'a\nb\n").unwrap().apostrophe, None);
    }

    #[test]
    fn closed_constructs_leave_nothing_open() {
        for text in [
            "echo 'it'\\''s fine'\n",
            "echo \"it's fine\"\n",
            "echo 'a\nb'\n",
            "for i in 1 2; do echo $i; done\n",
            "for i in 1 2\ndo echo $i\ndone\n",
            "if true; then echo a; else echo b; fi\n",
            "case x in a) echo a;; *) echo b;; esac\n",
            "cat <<EOF\nls /\nEOF\n",
            "cat <<-'END'\n\tx\n\tEND\n",
            "echo $(date) ${HOME} $((1+2))\n",
            "{ echo a; echo b; }\n",
            "(cd /tmp && ls)\n",
            "echo a # it's a comment\n",
            "echo done if fi\n",
            "cat <<< 'x'\n",
            "make 2>&1 | tee log\n",
        ] {
            assert_eq!(open(text), None, "{text:?}");
        }
    }

    #[test]
    fn the_innermost_open_construct_is_named_where_it_opened() {
        assert_eq!(
            opened("cat > f <<EOF\nls /\n"),
            Some(Opened::HereDocument {
                delimiter: "EOF".into(),
                near_miss: None
            })
        );
        assert_eq!(
            opened("cat <<EOF\nhello\n  EOF\n"),
            Some(Opened::HereDocument {
                delimiter: "EOF".into(),
                near_miss: Some("  EOF".into())
            })
        );
        let o = open("for i in 1 2\ndo echo $i\n").unwrap();
        assert_eq!((o.opened, o.line), (Opened::Keyword("for", "done"), 1));
        assert_eq!(
            opened("if true; then\n  for x in a; do\n"),
            Some(Opened::Keyword("for", "done"))
        );
        assert_eq!(
            opened("if true; then\n  for x in a; do echo; done\n"),
            Some(Opened::Keyword("if", "fi"))
        );
        assert_eq!(
            opened("case $x in\n"),
            Some(Opened::Keyword("case", "esac"))
        );
        assert_eq!(opened("echo $(date\n"), Some(Opened::Substitution));
        assert_eq!(opened("(cd /tmp\n"), Some(Opened::Subshell));
        assert_eq!(opened("{ echo a\n"), Some(Opened::Group));
        assert_eq!(opened("ls \\\n"), Some(Opened::Backslash));
        assert_eq!(opened("cat x |\n"), Some(Opened::Operator("|")));
        assert_eq!(opened("make &&\n"), Some(Opened::Operator("&&")));
        // Keys the host types before a line (`ESC [ 2025 ~`) are none of its text.
        let o = open_construct(&typed_lines(b"\x1b[2025~echo 'x\r")).unwrap();
        assert_eq!(o.line_text, "echo 'x");
    }
}
