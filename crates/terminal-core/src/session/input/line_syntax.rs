//! What a command line typed at the shell is, read outside its quotes: one simple command or
//! pipeline (a program in the foreground is all of it), and whether it puts commands in the
//! background with `&` (they run on after an interrupt of the rest).

/// Whether `line` (a command line as typed, with its line end) is one simple command or one
/// pipeline: outside quotes, no list or background operator (`;`, `&`, `&&`, `||`; `2>&1` and
/// `&>` are redirections), no grouping or substitution (`(`, `{` but `${`, `` ` ``), one line,
/// and no compound command's keyword first. Inside quotes anything goes (`python3 -c 'a; b'`).
pub(in crate::session) fn is_simple_command(line: &[u8]) -> bool {
    const COMPOUND: [&str; 9] = [
        "if", "for", "while", "until", "case", "select", "function", "coproc", "[[",
    ];
    let Some(line) = without_line_end(line) else {
        return false;
    };
    let first = line.split_whitespace().next().unwrap_or("");
    if line.trim().is_empty() || COMPOUND.contains(&first) {
        return false;
    }
    let (operator, quote_open) = any_unquoted(line, |c, prev, next| match c {
        '&' if is_redirection(prev, next) => false,
        '{' if prev == '$' => false,
        ';' | '&' | '|' if next == Some('|') || c != '|' => true,
        '(' | ')' | '{' | '`' | '\n' | '\r' => true,
        _ => false,
    });
    !operator && !quote_open
}

/// Whether `line` (a command line as typed) puts a command in the background with a `&` of its
/// own, outside quotes (`server & sleep 30`; not `&&`, `|&`, nor a redirection's `2>&1`, `&>`):
/// that command runs on after an interrupt of the rest of the line.
pub(in crate::session) fn starts_background_commands(line: &[u8]) -> bool {
    let Ok(line) = std::str::from_utf8(line) else {
        return false;
    };
    any_unquoted(line, |c, prev, next| {
        c == '&' && prev != '&' && prev != '|' && next != Some('&') && !is_redirection(prev, next)
    })
    .0
}

/// Whether a `&` between `prev` and `next` belongs to a redirection (`2>&1`, `&>`, `&>>`).
fn is_redirection(prev: char, next: Option<char>) -> bool {
    prev == '>' || prev == '<' || next == Some('>')
}

/// `line` without its line end, as text.
fn without_line_end(line: &[u8]) -> Option<&str> {
    let line = line
        .strip_suffix(b"\n")
        .or_else(|| line.strip_suffix(b"\r"))
        .unwrap_or(line);
    std::str::from_utf8(line).ok()
}

/// Walks `line` outside quotes and escapes, calling `visit(c, prev, next)` for each character
/// there until it returns true: whether it did, and whether the line ends inside a quote.
fn any_unquoted(
    line: &str,
    mut visit: impl FnMut(char, char, Option<char>) -> bool,
) -> (bool, bool) {
    let chars: Vec<char> = line.chars().collect();
    let (mut quote, mut escaped, mut prev) = (None, false, ' ');
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        if escaped {
            escaped = false;
        } else {
            match (quote, c) {
                (Some('\''), '\'') | (Some('"'), '"') => quote = None,
                (Some('"') | None, '\\') => escaped = true,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, _) if visit(c, prev, next) => return (true, false),
                _ => {}
            }
        }
        prev = c;
    }
    (false, quote.is_some())
}

#[cfg(test)]
mod tests {
    use super::{is_simple_command, starts_background_commands};

    #[test]
    fn a_simple_command_is_one_command_or_pipeline_on_one_line() {
        for simple in [
            &b"sleep 100\n"[..],
            b"python3 -m http.server 8000\r",
            b"make -j4 2>&1 | tee log\n",
            b"FOO=1 ./serve --port 80 > out.txt\n",
            b"python3 -c 'import time; time.sleep(9)'\n",
            b"echo \"a; b && c\" ${HOME} \\; done\n",
            b"cmd &> log\n",
        ] {
            assert!(is_simple_command(simple), "{simple:?}");
        }
        for list in [
            &b"make; make install\n"[..],
            b"build && deploy\n",
            b"test -f x || exit 1\n",
            b"sleep 5 &\n",
            b"for i in 1 2; do sleep $i\n",
            b"while true; do date; done\n",
            b"(cd /tmp && ls)\n",
            b"{ a; b; }\n",
            b"echo `date`\n",
            b"echo $(date)\n",
            b"\n",
            b"a\nb\n",
            b"echo 'x'; y\n",
            b"echo \"unclosed\n",
        ] {
            assert!(!is_simple_command(list), "{list:?}");
        }
    }

    #[test]
    fn a_command_put_in_the_background_is_told() {
        for line in [
            &b"sleep 100 & sleep 30\n"[..],
            b"python3 -m http.server 8000 &\n",
            b"a & b & wait\n",
            b"(cd x && make) & tail -f log\n",
        ] {
            assert!(starts_background_commands(line), "{line:?}");
        }
        for line in [
            &b"build && deploy\n"[..],
            b"make 2>&1 | tee log\n",
            b"cmd &> log\n",
            b"cmd |& tee log\n",
            b"echo 'a & b'\n",
            b"echo a \\& b\n",
            b"cmd >&2\n",
        ] {
            assert!(!starts_background_commands(line), "{line:?}");
        }
    }
}
