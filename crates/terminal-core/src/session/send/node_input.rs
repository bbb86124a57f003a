//! Several lines to node's REPL at its prompt, some of which go on with the line before them,
//! go as one unit through its editor mode (`.editor`, the lines, Ctrl-D). Typed line by line,
//! the REPL runs each line that is a complete statement by itself: `if (…) {…}` ran before its
//! `else` (a SyntaxError, and the else branch's statements ran anyway), a method chain's
//! `.map(…)` line was taken for a REPL command (`Invalid REPL keyword`), and `let total = 1`
//! then `+ 2` left 1. In editor mode the lines run as a file would, in the REPL's context (its
//! variables stay, top-level `await` works), and only the last one's value shows. Lines that
//! each stand alone are typed one by one as before (each shows its value, and REPL commands
//! such as `.exit` among them work).

/// The index of the first line of `text` that is node's REPL command entering its editor
/// mode, a mode with no prompt (`.editor`; its other commands, `.exit` and `.help` among
/// them, come back to the prompt, and wait behind a pending `await` like any line).
pub(super) fn editor_line(text: &str) -> Option<usize> {
    text.lines().position(|line| {
        let line = line.trim();
        line == ".editor" || line.starts_with(".editor ")
    })
}

/// Whether lines with text follow line `at` (an index) of `text`.
pub(super) fn lines_after(text: &str, at: usize) -> bool {
    text.lines()
        .skip(at + 1)
        .any(|line| !line.trim().is_empty())
}

/// Whether `program` (a process name) is node's, whose REPL has an editor mode.
pub(super) fn has_editor_mode(program: &str) -> bool {
    matches!(program, "node" | "nodejs")
}

/// The steps that type `text` (+ Enter when `submit`) into node's editor mode, when a line of
/// its code after the first goes on with the one before it ([`goes_on`]): `.editor` and
/// Enter, the lines (an Enter between each two, which the editor takes as a new line), and
/// Ctrl-D, which ends the editor and runs them. `None` (typed as it is) for text that leaves
/// its last line unended, holds a REPL command (`.help`, `.exit`), keys other than TAB and
/// line ends, or code left open (a bracket, string or comment not closed: a block the next
/// send goes on with, which the REPL keeps at its `... ` prompt, see
/// [`closes_what_it_opens`]).
pub(super) fn editor_steps(text: &str, submit: bool) -> Option<Vec<Vec<u8>>> {
    let ended = submit || text.ends_with(['\n', '\r']);
    if !ended
        || text
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return None;
    }
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = normalized.trim_end_matches('\n').split('\n').collect();
    let code: Vec<&str> = lines
        .iter()
        .map(|line| line.trim())
        .filter(|line| !line.is_empty())
        .collect();
    if code.iter().any(|line| is_repl_command(line))
        || !code.iter().skip(1).any(|line| goes_on(line))
        || !closes_what_it_opens(&normalized)
    {
        return None;
    }
    Some(vec![
        b".editor\r".to_vec(),
        lines.join("\r").into_bytes(),
        b"\x04".to_vec(),
    ])
}

/// Whether `line` (trimmed) is a command of node's REPL (`.exit`, `.load file`).
fn is_repl_command(line: &str) -> bool {
    const COMMANDS: [&str; 7] = ["break", "clear", "editor", "exit", "help", "load", "save"];
    line.strip_prefix('.').is_some_and(|rest| {
        let word = rest.split_whitespace().next().unwrap_or_default();
        COMMANDS.contains(&word)
    })
}

/// Whether `line` (trimmed, not the first) goes on with the line before it, which the REPL
/// would have run by itself: it starts a member access (`.map(…)`), an operator (`+ 2`,
/// `? a`, `&& b`, `, c`), a closing bracket, or `else`, `catch` or `finally`.
fn goes_on(line: &str) -> bool {
    const WORDS: [&str; 3] = ["else", "catch", "finally"];
    let word = line
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '$')
        .next()
        .unwrap_or_default();
    // A sign right before its operand is a statement of its own (`-x`); with a blank after
    // it, an operator (`+ 2`).
    let sign = line.starts_with(['+', '-']) && line[1..].starts_with(char::is_whitespace);
    WORDS.contains(&word)
        || sign
        || (line.starts_with([
            '.', '*', '%', '?', ':', '&', '|', ',', ')', ']', '=', '<', '>',
        ]) && !line.starts_with("..."))
        || (line.starts_with('/') && !line.starts_with("//") && !line.starts_with("/*"))
}

/// Whether JavaScript `code` closes every bracket it opens, in order, and ends no string,
/// template or comment open (brackets inside those do not count). A rough reading (a regular
/// expression literal is read as code), enough to tell a block that goes on in a later send.
fn closes_what_it_opens(code: &str) -> bool {
    let mut open: Vec<char> = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '(' | '[' | '{' => open.push(c),
            ')' | ']' | '}' => {
                let want = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if open.pop() != Some(want) {
                    return false;
                }
            }
            '\'' | '"' | '`' => {
                let mut closed = false;
                while let Some(s) = chars.next() {
                    if s == '\\' {
                        chars.next();
                    } else if s == c {
                        closed = true;
                        break;
                    } else if s == '\n' && c != '`' {
                        break;
                    }
                }
                if !closed {
                    return false;
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for s in chars.by_ref() {
                    if s == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut closed = false;
                while let Some(s) = chars.next() {
                    if s == '*' && chars.peek() == Some(&'/') {
                        chars.next();
                        closed = true;
                        break;
                    }
                }
                if !closed {
                    return false;
                }
            }
            _ => {}
        }
    }
    open.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_lines_go_through_the_editor() {
        assert_eq!(
            editor_steps("if (a) {\n  b()\n}\nelse {\n\tc()\n}", true),
            Some(vec![
                b".editor\r".to_vec(),
                b"if (a) {\r  b()\r}\relse {\r\tc()\r}".to_vec(),
                b"\x04".to_vec(),
            ])
        );
        assert_eq!(
            editor_steps("let t = 1\r\n  + 2\n\n", false),
            Some(vec![
                b".editor\r".to_vec(),
                b"let t = 1\r  + 2".to_vec(),
                b"\x04".to_vec()
            ])
        );
    }

    #[test]
    fn other_text_is_typed_as_it_is() {
        assert_eq!(editor_steps("1 + 1", true), None, "one line");
        assert_eq!(editor_steps("\n1 + 1\n\n", true), None, "one line of code");
        assert_eq!(
            editor_steps("let a = 1\n-a", true),
            None,
            "lines that stand alone"
        );
        assert_eq!(editor_steps("1 + 1\nawait f()\n'v' + 2", true), None);
        assert_eq!(
            editor_steps("let a = 1\n  .toFixed(2)", false),
            None,
            "unended"
        );
        assert_eq!(
            editor_steps("x\n  .map(f)\n.exit", true),
            None,
            "a REPL command"
        );
        assert_eq!(
            editor_steps("f()\n.load a.js", true),
            None,
            "a REPL command"
        );
        assert_eq!(editor_steps("a\n\u{3}b", true), None, "a control key");
        assert_eq!(
            editor_steps("for (let i = 0; i < 2; i++) {\n  log(i)\n", true),
            None,
            "a block the next send goes on with"
        );
    }

    #[test]
    fn lines_that_go_on_are_told() {
        let going_on = [
            ".map(f)",
            "+ 2",
            "- 1",
            "? a : b",
            ": b",
            "&& c",
            "|| d",
            ", e",
            ")",
            "]",
            "else {",
            "catch (e) {",
            "finally {",
            "=> x",
            "/ 2",
        ];
        for line in going_on {
            assert!(goes_on(line), "{line}");
        }
        let standing = [
            "a()",
            "let b = 1",
            "-x",
            "++i",
            "...a",
            "// note",
            "/* c */",
            "elsewhere()",
            "await f()",
            "'s'",
            "}",
            "} else {",
        ];
        for line in standing {
            assert!(!goes_on(line), "{line}");
        }
    }

    #[test]
    fn open_code_is_told() {
        assert!(closes_what_it_opens("f(a, [1, {b: '}'}])\n// (\n/* { */ x"));
        assert!(closes_what_it_opens("`a ${b} {`\n\"(\""));
        assert!(!closes_what_it_opens("if (a) {\n  b()"));
        assert!(!closes_what_it_opens("f(]"));
        assert!(!closes_what_it_opens("'open"));
        assert!(!closes_what_it_opens("`open\nstill"));
        assert!(!closes_what_it_opens("/* open"));
    }
}
