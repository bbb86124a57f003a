//! Python source sent to a REPL, cut into its top-level statements so that each reaches the
//! REPL as a file would run it (see [`python_statements`]).

use super::{PASTE_END, PASTE_START, Reader, is_paste, shape};

/// Whether `text` (Python source typed to a REPL) is simple statements only, each on one line
/// of its own (`x = 1`, `input('name? ')`): no line is indented (a block's body, a bracket or
/// string going on), opens a bracket or a triple-quoted string, ends with `:` or a backslash,
/// or starts a compound statement (`if x: y` waits for an empty line too), one of its clauses
/// (`else: z`) or a decorator. A
/// REPL runs such a line at its Enter, so a newline ending the text is that Enter, not an
/// empty line after it (which an `input()` the statement calls would take as its answer); a
/// block needs that empty line.
pub(in crate::session) fn python_simple_lines(text: &str) -> bool {
    text.lines().filter(|l| !l.trim().is_empty()).all(|line| {
        !line.starts_with([' ', '\t'])
            && !starts_compound(line)
            && !starts_with_keyword(line, &CLAUSE_KEYWORDS)
            && !line.trim_end().ends_with([':', '\\', '(', '[', '{', ','])
            && !line.contains("\"\"\"")
            && !line.contains("'''")
    })
}

/// Keywords that start a compound statement (a block, on one line or several).
const COMPOUND_KEYWORDS: [&str; 9] = [
    "if", "for", "while", "def", "class", "with", "try", "async", "match",
];

/// Keywords of the clauses that go on with a compound statement.
const CLAUSE_KEYWORDS: [&str; 4] = ["else", "elif", "except", "finally"];

/// Whether `code` (a line of code from its first character) starts a compound statement: a
/// [`COMPOUND_KEYWORDS`] keyword or a decorator.
fn starts_compound(code: &str) -> bool {
    code.starts_with('@') || starts_with_keyword(code, &COMPOUND_KEYWORDS)
}

/// Whether `code` starts with one of `keywords` as a word (followed by a blank, `:` or `(`).
fn starts_with_keyword(code: &str, keywords: &[&str]) -> bool {
    keywords.iter().any(|k| {
        code.strip_prefix(k)
            .is_some_and(|rest| rest.starts_with([' ', '\t', ':', '(']))
    })
}

/// `text` (Python source typed to a REPL) cut into its top-level statements, each with the
/// blank lines after it: a new statement starts at a line that is not indented, not blank,
/// not a comment, not a clause that continues the statement before it (`else:`, `except …:`,
/// a closing bracket, the definition after a decorator) and not inside a bracket, a
/// triple-quoted string or a line ended by a backslash (see [`PythonLines`]). Comment lines
/// belong to the statement of the code line after them (a comment at column 0 inside a block
/// does not end it). The REPL runs one statement per prompt, so a block and the statement
/// after it go as two pastes.
pub(in crate::session) fn python_statements(text: &str) -> Vec<String> {
    const CONTINUES: [&str; 7] = ["else", "elif", "except", "finally", ")", "]", "}"];
    const DEFINES: [&str; 3] = ["def ", "class ", "async def "];
    let mut statements: Vec<String> = Vec::new();
    let mut scan = PythonLines::default();
    // Inside a decorated definition whose `def` or `class` has not come yet.
    let mut decorated = false;
    // Comment lines (and blank lines after them) whose statement is not known yet.
    let mut pending = String::new();
    for line in text.split_inclusive('\n') {
        let inside = scan.inside();
        let blank = line.trim().is_empty();
        let comment = !inside && line.trim_start().starts_with('#');
        if comment || (blank && !pending.is_empty()) {
            pending.push_str(line);
            continue;
        }
        let starts = !inside
            && !decorated
            && !blank
            && !line.starts_with([' ', '\t'])
            && !CONTINUES.iter().any(|c| line.starts_with(c));
        scan.feed(line);
        if starts {
            decorated = line.starts_with('@');
        } else if decorated && !inside && DEFINES.iter().any(|d| line.trim_start().starts_with(d)) {
            decorated = false;
        }
        match statements.last_mut() {
            Some(last) if !starts => {
                last.push_str(&pending);
                last.push_str(line);
            }
            _ => statements.push(format!("{pending}{line}")),
        }
        pending.clear();
    }
    match statements.last_mut() {
        Some(last) => last.push_str(&pending),
        None if !pending.is_empty() => statements.push(pending),
        None => {}
    }
    statements
}

/// Whether `text`, typed to a Python REPL that holds `typed` (the lines of a statement it
/// reads more of), starts a new top-level statement ([`python_statements`]): its first line
/// of code is not indented, continues no clause (`else:`, a closing bracket) and is not
/// inside a bracket, a string or a line ended by a backslash of `typed`. The REPL then needs
/// the empty line that ends the block first, as a file would have it.
pub(in crate::session) fn python_starts_statement(typed: &str, text: &str) -> bool {
    let typed = format!(
        "{}\n",
        typed.replace("\r\n", "\n").trim_end_matches(['\n', '\r'])
    );
    let text = text.replace("\r\n", "\n");
    if text.trim().is_empty() {
        return false;
    }
    let before = python_statements(&typed).len();
    let all = python_statements(&format!("{typed}{text}\n"));
    // The statements before `text` are `typed`'s, but for comment and blank lines at its end
    // (a send of only a comment): those belong to the statement after them.
    let head = all[..before.min(all.len())].concat();
    all.len() > before
        && (typed.strip_prefix(head.as_str()).is_some_and(|rest| {
            rest.lines()
                .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        })
            // Blank lines the text starts with end `typed`'s statement, as a file's would.
            || head.trim_end() == typed.trim_end())
}

/// Where Python source stands at the end of the lines fed so far: how deep in brackets, inside
/// which triple-quoted string, and whether the last line ended with a backslash. Only what
/// decides where a line belongs: single-quoted strings and comments are skipped over.
#[derive(Default)]
struct PythonLines {
    depth: usize,
    triple: Option<&'static str>,
    backslash: bool,
    /// The last line with code outside strings and brackets ended, before any comment, with
    /// `:`: it opens a block (`if x:`, `else:  # why`).
    opens_block: bool,
}

impl PythonLines {
    /// Whether the next line continues a statement (brackets or a string left open, or a
    /// backslash at the end of the line before).
    fn inside(&self) -> bool {
        self.depth > 0 || self.triple.is_some() || self.backslash
    }

    fn feed(&mut self, line: &str) {
        let body = line.trim_end_matches(['\n', '\r']);
        // Where the line's code ends: at a comment outside strings, else at its end.
        let mut code_end = body.len();
        let mut rest = body;
        while !rest.is_empty() {
            if let Some(quote) = self.triple {
                match rest.find(quote) {
                    Some(end) if !escaped(&rest[..end]) => {
                        self.triple = None;
                        rest = &rest[end + 3..];
                    }
                    Some(end) => rest = &rest[end + 1..],
                    None => rest = "",
                }
                continue;
            }
            let Some(at) = rest.find(['#', '\'', '"', '(', '[', '{', ')', ']', '}']) else {
                break;
            };
            let c = rest.as_bytes()[at];
            rest = &rest[at + 1..];
            match c {
                b'#' => {
                    code_end = body.len() - rest.len() - 1;
                    rest = "";
                }
                b'(' | b'[' | b'{' => self.depth += 1,
                b')' | b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                _ => {
                    let quote = if c == b'"' { "\"" } else { "'" };
                    let triple = if c == b'"' { "\"\"\"" } else { "\'\'\'" };
                    if rest.starts_with(&triple[1..]) {
                        self.triple = Some(triple);
                        rest = &rest[2..];
                    } else {
                        // A string on one line: up to its closing quote not escaped.
                        let mut end = None;
                        let mut from = 0;
                        while let Some(i) = rest[from..].find(quote) {
                            if !escaped(&rest[..from + i]) {
                                end = Some(from + i);
                                break;
                            }
                            from += i + 1;
                        }
                        rest = end.map_or("", |i| &rest[i + 1..]);
                    }
                }
            }
        }
        self.backslash =
            self.triple.is_none() && body.ends_with('\\') && !body.trim_start().starts_with('#');
        let code = body[..code_end].trim_end();
        if !code.trim_start().is_empty() {
            self.opens_block = !self.inside() && code.ends_with(':');
        }
    }
}

/// Whether the character after `before` is escaped: `before` ends with an odd number of
/// backslashes.
fn escaped(before: &str) -> bool {
    before.bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 1
}

/// `text` (Python source typed line by line to a REPL without pastes) as a file would run it:
/// an empty line after every block, none inside one (outside strings). The REPL ends a block
/// at its first empty line, so a statement typed right after a block is a `SyntaxError` and
/// the lines after an empty line inside one an `IndentationError`. One statement is left
/// open as sent (the REPL then waits for more of it, or for the empty line that ends it), but
/// for the blank lines inside it (a class whose methods are apart). `None` when that changes
/// nothing, or the text carries keys (an interrupt key, an escape sequence): it goes as sent,
/// paced around them.
pub(in crate::session) fn python_separated(text: &str) -> Option<String> {
    let mut statements = python_statements(text);
    if statements.len() >= 2 {
        return ended_statements(text, statements);
    }
    let statement = statements.pop()?;
    let inner = without_inner_blank_lines(&statement);
    (inner != statement && !carries_keys(text)).then_some(inner)
}

/// Whether `statement`'s first line of code starts a compound statement (a block: `def`,
/// `if`, a decorator, …), which the REPL runs only once an empty line ends it.
pub(in crate::session) fn python_opens_block(statement: &str) -> bool {
    statement
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(starts_compound)
}

/// Whether the last statement of `text` (Python source typed to a REPL) is complete and
/// simple: it starts no compound statement (no block waits for its lines) and does not end
/// inside a bracket, a string or a line ended by a backslash. The REPL runs it at its Enter,
/// so a prompt shown after it is none of the REPL's own (an `input('... ')` it calls).
pub(in crate::session) fn python_ends_complete(text: &str) -> bool {
    python_statements(text)
        .last()
        .is_some_and(|statement| !python_opens_block(statement) && !ends_inside(statement))
}

/// Whether `text` holds control characters other than TAB and line ends: keys, not source.
fn carries_keys(text: &str) -> bool {
    text.chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

/// [`python_separated`] for any number of statements (one too): each ended as a file would
/// have it. `None` when the text carries keys.
pub(in crate::session) fn python_ended_statements(text: &str) -> Option<String> {
    ended_statements(text, python_statements(text))
}

/// `statements` (`text`'s) joined, each ended as a file would have it; `None` when `text`
/// carries keys.
fn ended_statements(text: &str, statements: Vec<String>) -> Option<String> {
    if carries_keys(text) {
        return None;
    }
    Some(
        statements
            .into_iter()
            .map(|statement| python_ended(without_inner_blank_lines(&statement)))
            .collect(),
    )
}

/// `text` typed to a Python REPL that holds `typed` (what earlier sends typed of a statement
/// it reads more of, each line they ended with its newline; `""` when not known): the lines of
/// `text` that go on with that statement (without the newlines after them), and the rest, from
/// the first line after them that starts a new top-level statement ([`python_statements`]).
/// `None` when no such line follows one that goes on (a first line that starts a statement is
/// [`python_starts_statement`]'s), or the rest holds no code.
pub(in crate::session) fn python_block_split(typed: &str, text: &str) -> Option<(String, String)> {
    let text = text.replace("\r\n", "\n");
    let source = format!("{typed}{text}\n");
    let mut end = 0;
    for statement in python_statements(&source) {
        end += statement.len();
        if end <= typed.len() {
            continue;
        }
        let rest_at = end - typed.len();
        if rest_at >= text.len() {
            return None;
        }
        let (goes_on, rest) = text.split_at(rest_at);
        let code = |part: &str| {
            part.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        };
        // A first line that only ends the line `typed` left without Enter goes on with it
        // too (`x = 0` typed, then `\nprint(x)`: the newline is that line's Enter).
        let unended = typed.rsplit_once('\n').map_or(typed, |(_, line)| line);
        return (code(&format!("{unended}{goes_on}")) && code(rest))
            .then(|| (goes_on.trim_end_matches('\n').to_owned(), rest.to_owned()));
    }
    None
}

/// `part`, lines that go on with the statement `typed` began (a block earlier sends left
/// open), without the blank lines between its lines (those after its last line stay), except
/// inside a string (one `typed` left open too): typed to the REPL, such a line would end the
/// block and the rest would run as wrong statements.
pub(in crate::session) fn python_block_rest(typed: &str, part: &str) -> String {
    let mut scan = PythonLines::default();
    for line in typed.split_inclusive('\n') {
        scan.feed(line);
    }
    let body_end = part.trim_end().len();
    let mut out = String::with_capacity(part.len());
    let mut at = 0;
    // The first line of `part` ends the line `typed` left without Enter: never a blank line.
    let mut ends_typed_line = !typed.is_empty() && !typed.ends_with('\n');
    for line in part.split_inclusive('\n') {
        let inner = at < body_end;
        at += line.len();
        if inner && line.trim().is_empty() && !scan.inside() && !ends_typed_line {
            continue;
        }
        ends_typed_line = false;
        scan.feed(line);
        out.push_str(line);
    }
    out
}

/// `statement` without the blank lines between its lines (those after its last line stay),
/// except inside a string.
fn without_inner_blank_lines(statement: &str) -> String {
    python_block_rest("", statement)
}

/// `statement` (one of [`python_statements`]) as it is typed: a compound statement (a block:
/// `if`, `def`, a decorated definition, …, on one line or several) ends with the empty line
/// that ends the block; a simple one (a statement continued in brackets too) ends with its
/// line end alone: empty lines after it would be Enters more, which a prompt it calls
/// (`input()`, `getpass`, a `[Y/n]` question) takes as its answer.
fn python_ended(statement: String) -> String {
    // Its first line of code (comments before it belong to it).
    let code = statement
        .lines()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .unwrap_or_default();
    let compound = starts_compound(code);
    // A compound statement on one line (`for i in x: print(i)`) opens a block too. One whose
    // last line opens a block with no line of it yet (`if x:` last in a send) stays open:
    // ended, it would be an `IndentationError`; the REPL waits for the block's lines.
    if compound && !ends_in_open_header(&statement) && !ends_in_decorator(&statement) {
        format!("{}\n\n", statement.trim_end())
    } else if !compound && !ends_inside(&statement) {
        // Only empty lines after it go (its own line end stays as it was typed: a newline, or
        // the carriage return of keys typed on).
        let body = statement.trim_end();
        if statement[body.len()..].matches('\n').count() >= 2 {
            format!("{body}\n")
        } else {
            statement
        }
    } else {
        statement
    }
}

/// Whether `statement` ends inside a bracket, a string or a line ended by a backslash: the
/// lines after its last one are part of it.
fn ends_inside(statement: &str) -> bool {
    scanned(statement).inside()
}

/// Whether `statement`'s last line of code is a decorator (`@functools.cache` last in a send):
/// the definition it decorates comes next, so no empty line may end it.
fn ends_in_decorator(statement: &str) -> bool {
    statement
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .is_some_and(|l| l.starts_with('@'))
        && !ends_inside(statement)
}

/// Whether `statement`'s last line of code opens a block (ends with `:` before any comment,
/// outside brackets and strings: `if x:`, `else:  # why`).
fn ends_in_open_header(statement: &str) -> bool {
    scanned(statement).opens_block
}

/// Where the scan of `statement`'s lines stands after its last one.
fn scanned(statement: &str) -> PythonLines {
    let mut scan = PythonLines::default();
    for line in statement.lines() {
        scan.feed(line);
    }
    scan
}

/// The steps for `text` to a Python REPL that takes a multi-line paste as one block: one per
/// top-level statement ([`python_statements`]), a statement over several lines pasted (a
/// block ended by a blank line, [`python_ended`]: the REPL runs it then), a single line
/// typed. `None` when there are no two statements, or one would not go as a paste (it
/// carries keys a paste would make literal), and for an IPython cell magic (`%%time`: the
/// whole text is its cell).
pub(in crate::session) fn python_statement_steps(text: &str) -> Option<Vec<Vec<u8>>> {
    // An IPython cell magic (`%%time`) takes the whole rest as one cell.
    if text.trim_start().starts_with("%%") {
        return None;
    }
    let statements = python_statements(text);
    if statements.len() < 2 {
        return None;
    }
    statement_steps(statements)
}

/// [`python_statement_steps`] for any number of statements (one too, ended as a file would
/// have it).
pub(in crate::session) fn python_steps(text: &str) -> Option<Vec<Vec<u8>>> {
    statement_steps(python_statements(text))
}

/// The steps of [`python_statement_steps`] for `statements`.
fn statement_steps(statements: Vec<String>) -> Option<Vec<Vec<u8>>> {
    let reader = Reader {
        bracketed_paste: true,
        block_paste: true,
        ..Reader::default()
    };
    let steps: Option<Vec<Vec<Vec<u8>>>> = statements
        .into_iter()
        .map(|statement| {
            let text = python_ended(statement);
            let body = text.trim_end();
            // A block goes as a paste, one on a single line (`for i in x: print(i)`) too: typed,
            // Python 3.13's REPL takes the empty line after it as a new line of the block. Its
            // Enter, then the Enter that ends the block as a step of its own
            // ([`BLOCK_END_KEY`]): IPython runs such a line on the first, and took the second
            // as an empty line at its next prompt.
            let block = body.contains('\n') || text.ends_with("\n\n");
            if block && !body.contains('\n') && !body.contains(|c: char| c.is_control()) {
                return Some(vec![
                    [PASTE_START, body.as_bytes(), PASTE_END, b"\r"].concat(),
                    BLOCK_END_KEY.to_vec(),
                ]);
            }
            let bytes = shape(&text, false, reader)
                .ok()
                .filter(|bytes| !block || is_paste(bytes))?;
            // A typed line ends with the Enter key a terminal sends (a line editor in raw mode
            // may take a newline for another key: Python 3.13's starts a new line of the block
            // with it).
            Some(vec![if is_paste(&bytes) {
                bytes
            } else {
                bytes
                    .into_iter()
                    .map(|b| if b == b'\n' { b'\r' } else { b })
                    .collect()
            }])
        })
        .collect();
    steps.map(|steps| steps.into_iter().flatten().collect())
}

/// A statement step that is this key alone (Enter) ends the block the step before typed: it
/// is dropped where IPython ran that block on the Enter before (see
/// `Pacing::next_ends_a_block`).
pub(in crate::session) const BLOCK_END_KEY: &[u8] = b"\r";
