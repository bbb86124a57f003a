//! An ESC character (`\u001b`) in a send's text to a line editor at its prompt (the shell's
//! readline, a REPL's) where it is meant as a character of the text, not as a key: such a
//! send is refused, nothing typed. A line editor reads every ESC as the start of a key
//! (`ESC [ 3 1 m` lost `[31` and inserted `m`, `ESC b` moved back a word), so the command ran
//! changed and nothing said so; a REPL's false "went to the prompt" notice followed.
//!
//! Refused rather than inserted literally: no way to insert an ESC works for every reader.
//! Bracketed paste is off at the session's shell and node's REPL has none; a quoted-insert key
//! (Ctrl-V) is readline's, not node's, and a later line of the send may reach a reader in
//! canonical mode instead, where it is the kernel's literal-next key or a character of the
//! data. An escape written as text (`printf '\033[31m'`, `$'\e[31m'`, Python's or
//! JavaScript's `'\x1b'`) gives the same bytes from every reader.
//!
//! An ESC is meant as a character when it stands inside a string of the line (a quote the
//! line opened, over line ends too), inside a here-document's body (the shell), starts a
//! sequence no key sends (`ESC [ … m`, a colour: a CSI sequence whose final byte ends no
//! key's), or sits amid the text (text right before it, a non-blank character right after the
//! sequence it starts: `echo A\u001bbZ`). Keys stay keys: text made of key sequences
//! (`\u001b[A` for the history, `\u001b.`), keys before or after the text (`\u001b[A` then
//! `\u001b[Dx` edits the last command), and any ESC to a full-screen program, a pager or a
//! program that reads keys (vim's `ihello\u001b:wq`), which is no line editor at its prompt,
//! nor to the program an earlier line of the send started (`vim f`, then such keys).

use std::collections::VecDeque;

use crate::error::TerminalError;

use super::here_documents::{HereDocument, here_document};

const ESC: u8 = 0x1b;

/// The final bytes of the CSI sequences keys send: cursor and editing keys (`A`–`D`, `H`,
/// `F`, `~`), function keys (`P`–`S`, `~`), shifted Tab (`Z`), rxvt's modified keys (`a`–`d`,
/// `^`, `$`, `@`), the keypad's middle (`E`, `G`), focus and mouse reports (`I`, `O`, `M`)
/// and the kitty keyboard protocol's `u`. The others (`m`, `J`, `K`, `h`, `l`, …) end
/// sequences programs write to the terminal.
const KEY_FINALS: &[u8] = b"ABCDEFGHIMOPQRSZabcdu~^$@";

/// How a shell line ends when the command goes on on the next line.
const CONTINUED_ENDS: [&[u8]; 3] = [b"\\", b"|", b"&&"];

/// The language of the lines a line editor reads, for where its strings are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::session) enum Syntax {
    /// The shell's command lines: `'…'` (no escapes in it), `$'…'`, `"…"` and `` `…` ``,
    /// here-documents, `#` comments. Only the first line and the lines that go on with its
    /// command (an open quote, a here-document's body, a line ending with `\`, `|`, `&&` or
    /// `||`) surely reach the shell's line editor: a later one may go to a program an earlier
    /// line started (vim).
    Shell,
    /// A REPL's (Python, JavaScript): `'…'`, `"…"` and `` `…` `` with backslash escapes, `#`
    /// comments; every line up to one that quits the REPL.
    Repl,
}

/// Why an ESC is taken for a character of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::session) enum Literal {
    /// Inside a string the text opened.
    Quoted,
    /// Inside a here-document's body.
    HereDocument,
    /// It starts a sequence programs write to the terminal, which no key sends.
    OutputSequence,
    /// Amid the text: text right before it and right after the sequence it starts.
    AmidText,
}

/// An ESC of a send's text meant as a character: its line (from 1) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::session) struct LiteralEscape {
    pub(in crate::session) line: usize,
    pub(in crate::session) why: Literal,
}

/// A string the text opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quote {
    /// The shell's `'…'`: no escapes.
    Single,
    /// Any other quote (the REPL's `'…'`, `$'…'`, `"…"`, `` `…` ``), closed by `close`,
    /// with backslash escapes.
    Escaping { close: u8 },
}

/// The first ESC of `text` (a send's, to a line editor at its prompt reading `syntax`) meant
/// as a character of the text (see the module's rules), or `None`.
pub(in crate::session) fn literal_escape(text: &str, syntax: Syntax) -> Option<LiteralEscape> {
    if !text.contains('\u{1b}') {
        return None;
    }
    let text = text.replace("\r\n", "\n");
    let mut quote = None;
    let mut pending: VecDeque<HereDocument> = VecDeque::new();
    for (index, line) in text.split(['\n', '\r']).enumerate() {
        let found = |why| {
            Some(LiteralEscape {
                line: index + 1,
                why,
            })
        };
        let line = line.as_bytes();
        if let Some(doc) = pending.front() {
            if doc.ends_at(line) {
                pending.pop_front();
                if pending.is_empty() && quote.is_none() {
                    // The command is complete: what reads the next line is not known.
                    return None;
                }
            } else if line.contains(&ESC) {
                return found(Literal::HereDocument);
            }
            continue;
        }
        if let Some(why) = scan_line(line, syntax, &mut quote, &mut pending) {
            return found(why);
        }
        let goes_on = match syntax {
            Syntax::Shell => {
                let trimmed = line.trim_ascii_end();
                quote.is_some()
                    || !pending.is_empty()
                    || CONTINUED_ENDS.iter().any(|end| trimmed.ends_with(end))
            }
            Syntax::Repl => std::str::from_utf8(line).is_ok_and(|l| !super::ends_its_reader(l)),
        };
        if !goes_on {
            return None;
        }
    }
    None
}

/// Scans one `line` outside here-document bodies, with the string `quote` open before it
/// (and after it, on return), queueing the here-documents it asks for: why its first literal
/// ESC is one.
fn scan_line(
    line: &[u8],
    syntax: Syntax,
    quote: &mut Option<Quote>,
    pending: &mut VecDeque<HereDocument>,
) -> Option<Literal> {
    let is_text = |b: u8| b >= 0x20 && b != 0x7f;
    let shell = syntax == Syntax::Shell;
    let mut after_text = false;
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if b == ESC {
            let (len, key) = sequence(&line[i..]);
            let amid = after_text
                && line
                    .get(i + len)
                    .is_some_and(|&next| is_text(next) && next != b' ');
            if quote.is_some() {
                return Some(Literal::Quoted);
            } else if !key {
                return Some(Literal::OutputSequence);
            } else if amid {
                return Some(Literal::AmidText);
            }
            after_text = false;
            i += len;
            continue;
        }
        after_text = is_text(b);
        // A backslash escapes the next character (not an ESC, which is judged itself).
        let escaped = line.get(i + 1).is_some_and(|&next| next != ESC);
        let here_doc = shell && line[i..].starts_with(b"<<") && !line[i..].starts_with(b"<<<");
        let open = *quote;
        match open {
            Some(Quote::Single) if b == b'\'' => *quote = None,
            Some(Quote::Escaping { .. }) if b == b'\\' && escaped => i += 1,
            Some(Quote::Escaping { close }) if b == close => *quote = None,
            Some(_) => {}
            None => match b {
                b'\\' if escaped => i += 1,
                b'\'' if shell && (i == 0 || line[i - 1] != b'$') => *quote = Some(Quote::Single),
                b'\'' | b'"' | b'`' => *quote = Some(Quote::Escaping { close: b }),
                b'#' if i == 0 || b" \t;|&(".contains(&line[i - 1]) => return None,
                b'<' if here_doc => {
                    i = here_document(line, i + 2, pending);
                    continue;
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// The length of the escape sequence `bytes` start with (an ESC) as a line editor reads it,
/// and whether a key sends it: a CSI sequence (`ESC [`, parameters, a final byte) is a key's
/// when its final byte is one of [`KEY_FINALS`] (or it is a mouse report, `ESC [ <`); an SS3
/// key (`ESC O H`), a meta key (ESC and a character), a lone ESC and a sequence left
/// unfinished (which the send closes with the abort key) are keys.
fn sequence(bytes: &[u8]) -> (usize, bool) {
    match bytes.get(1) {
        Some(b'[') => {
            let body = &bytes[2..];
            let params = body
                .iter()
                .take_while(|&&b| (0x20..=0x3f).contains(&b))
                .count();
            match body.get(params) {
                Some(&last) if (0x40..=0x7e).contains(&last) => (
                    params + 3,
                    body.first() == Some(&b'<') || KEY_FINALS.contains(&last),
                ),
                _ => (params + 2, true),
            }
        }
        Some(b'O') => (
            if bytes.get(2).is_some_and(|b| (0x40..=0x7e).contains(b)) {
                3
            } else {
                2
            },
            true,
        ),
        Some(&b) if (0x20..0x7f).contains(&b) => (2, true),
        _ => (1, true),
    }
}

/// The error refusing a send whose ESC `found` is meant as a character, to the shell's line
/// editor (`shell`) or a REPL's.
pub(in crate::session) fn literal_escape_error(found: LiteralEscape, shell: bool) -> TerminalError {
    TerminalError::invalid(format!(
        "nothing was sent: line {} of the text {}; {}",
        found.line,
        literal_escape_what(found.why),
        literal_escape_advice(shell)
    ))
}

/// The notice for line `number` of an input, a later line typed to the shell's line editor,
/// whose ESC is meant as a character (`why`): it and the lines after it were not typed.
pub(in crate::session) fn literal_escape_notice(number: usize, why: Literal) -> String {
    format!(
        "[input: line {number} of the input and the lines after it were not typed (the lines before it were): it {}; {}]",
        literal_escape_what(why),
        literal_escape_advice(true)
    )
}

/// What a line whose ESC is meant as a character (`why`) holds, and why it is not typed.
fn literal_escape_what(why: Literal) -> String {
    let place = match why {
        Literal::Quoted => "inside a quoted string",
        Literal::HereDocument => "inside a here-document's body",
        Literal::OutputSequence => {
            "starting a sequence programs write to the terminal (ESC [ … m is a colour), which no key sends"
        }
        Literal::AmidText => "amid the text",
    };
    format!(
        "holds an ESC character (\\u001b) {place}, meant as a character of the text; the line editor reading it takes every ESC for the start of a key (ESC [ 3 1 m drops `[31`, ESC b moves back a word), and the line would have run changed"
    )
}

/// How to write an ESC meant as a character, to the shell (`shell`) or a REPL.
fn literal_escape_advice(shell: bool) -> &'static str {
    if shell {
        "write the ESC as an escape the command decodes: printf '\\033[31mred\\033[0m\\n', echo $'\\e[1mBold\\e[0m', or printf in place of a here-document (printf '\\033[1mBold\\033[0m\\n' > file). Keys (arrow keys \\u001b[A, Alt-b \\u001bb) go in a send of their own"
    } else {
        "write the ESC as an escape in the string: '\\x1b[31m' (Python, JavaScript). Keys (arrow keys \\u001b[A, Alt-b \\u001bb) go in a send of their own"
    }
}

#[cfg(test)]
mod tests;
