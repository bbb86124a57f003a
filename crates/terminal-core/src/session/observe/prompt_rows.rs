//! What the cursor row's text says about who reads the terminal: a REPL's prompt (primary or
//! continuation, and the indentation an auto-indenting REPL gave a line), text that ends like
//! a question rather than a progress line, and whether a command line runs a REPL.

use super::super::result::{ReplContinuation, is_repl_continuation_prompt, repl_continuation};

/// Whether `row` (the cursor row's text before the cursor, trailing spaces trimmed) is a
/// REPL's prompt and nothing else: one word ending in `>` (node's `> `, `sqlite> `,
/// `irb(main):001> `), one word in parentheses (gdb's `(gdb) `, pdb's `(Pdb) `), IPython's
/// `In [1]:` or `...:`, or a continuation's `...` (indented or not). Text that merely ends
/// like one (`hint: Waiting for your editor...`, `Continue?`) is not: a program printing it
/// may still be starting up or busy.
#[must_use]
pub fn is_repl_prompt(row: &str) -> bool {
    let row = row.trim_start_matches(' ');
    let one_word = !row.contains(char::is_whitespace);
    (one_word && row.ends_with('>'))
        || (one_word && row.len() > 2 && row.starts_with('(') && row.ends_with(')'))
        || is_repl_continuation_prompt(row)
        || row
            .strip_prefix("In [")
            .and_then(|r| r.strip_suffix("]:"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `prompt` (trimmed), at which program `comm` (its process name) reads, is that
/// program's REPL prompt: [`is_repl_prompt`] says it is a REPL's, and it is the kind the
/// program's REPL prints. A one-word prompt names the program (`sqlite>` of `sqlite3`,
/// `mysql>`, `irb(main):001>` of `irb`, `ghci>` of `ghc`, `(gdb)`); one with no word is
/// that of a REPL known to print it (`>>>` and `...` of Python's, `In [1]:` of IPython's, `>`
/// of node's, Lua's or R's, `127.0.0.1:6379>` of `redis-cli`; `(Pdb)` of Python's debugger).
/// A script's own prompt written the same way (`pw> `, `> ` or `>>> ` of a `getpass` or
/// `input` in a shell or Python script that is no REPL by its command line) is not: a line
/// sent to it is its answer, not a statement. Whatever program shows it, a prompt that
/// numbers the commands read is a REPL's or a debugger's (`is_counted_prompt`: `DB<1>` of
/// perl's debugger, whose process is `perl`), and so is one naming a REPL that a virtual
/// machine runs (`scala>`, whose process is `java`).
#[must_use]
pub fn is_repl_prompt_of(prompt: &str, comm: &str) -> bool {
    /// JavaScript REPLs (`>`, and `...` for more of a statement): their process names' stems.
    const NODES: [&str; 4] = ["node", "nodejs", "deno", "bun"];
    /// Other REPLs whose prompt is a bare `>` (or an address and `>`).
    const BARE_PROMPT_REPLS: [&str; 4] = ["lua", "luajit", "r", "redis"];
    /// Python's REPLs and debugger (`>>>`, `...`, `In [1]:`, `(Pdb)`).
    const PYTHONS: [&str; 3] = ["python", "pypy", "ipython"];
    /// The prompts, without their `>`, of REPLs a virtual machine (`java`) runs.
    const VM_REPLS: [&str; 4] = ["scala", "jshell", "kotlin", "sbt:root"];
    if is_counted_prompt(prompt)
        || prompt
            .strip_suffix('>')
            .is_some_and(|word| VM_REPLS.contains(&word))
    {
        return true;
    }
    if !is_repl_prompt(prompt) {
        return false;
    }
    let stem = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphabetic())
            .collect::<String>()
            .to_lowercase()
    };
    let name = stem(comm);
    let python = PYTHONS.iter().any(|p| name.starts_with(p));
    let names = |word: &str| {
        !word.is_empty()
            && ((name.chars().count() >= 2 && word.starts_with(&name))
                || (word.chars().count() >= 3 && name.starts_with(word)))
    };
    let row = prompt.trim_start_matches(' ');
    let one_word = !row.contains(char::is_whitespace);
    if one_word && row.ends_with('>') {
        if row.chars().any(char::is_alphabetic) {
            return names(&stem(row));
        }
        return if row == ">>>" {
            python
        } else {
            NODES.contains(&name.as_str()) || BARE_PROMPT_REPLS.contains(&name.as_str())
        };
    }
    if one_word && row.starts_with('(') && row.ends_with(')') {
        let word = stem(&row[1..]);
        return names(&word) || (word == "pdb" && python);
    }
    // `In [1]:`, `   ...:`, a continuation's `...`.
    python || (is_repl_continuation_prompt(row) && NODES.contains(&name.as_str()))
}

/// Whether `prompt` (trimmed) is a command prompt that numbers the commands read, as REPLs and
/// debuggers number theirs: a word with a count in brackets or between colons, ending as such a
/// prompt does (`DB<1>` and `DB<<2>>` of perl's debugger, `irb(main):001:0>`, `(rdb:1)`,
/// `main[1]` of jdb), or a word after a count in brackets (`[1] pry(main)>`). A script's
/// question is no such word (`Port [8080]:`, `Choice (1-3)?`, `Retry 2/3>`).
fn is_counted_prompt(prompt: &str) -> bool {
    if let Some((count, rest)) = prompt.split_once(' ') {
        let counted = count
            .strip_prefix('[')
            .and_then(|c| c.strip_suffix(']'))
            .is_some_and(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()));
        return counted
            && !rest.contains(char::is_whitespace)
            && rest.contains(char::is_alphabetic)
            && rest.ends_with(['>', ')']);
    }
    // A run of digits between `<`, `[`, `(` or `:` and `>`, `]`, `)` or `:`.
    let bytes = prompt.as_bytes();
    let counted = (1..bytes.len()).any(|at| {
        bytes[at].is_ascii_digit()
            && matches!(bytes[at - 1], b'<' | b'[' | b'(' | b':')
            && bytes[at..]
                .iter()
                .find(|b| !b.is_ascii_digit())
                .is_some_and(|b| matches!(b, b'>' | b']' | b')' | b':'))
    });
    counted && prompt.contains(char::is_alphabetic) && prompt.ends_with(['>', ')', ']'])
}

/// Whether `row` (the cursor row's text before the cursor) is a prompt of the program's own,
/// not its REPL's: text that is no REPL prompt (a script's `input('Name: ')`, prompt_toolkit's
/// `prompt('Host: ')`), whose lines answer one prompt each rather than run as statements.
pub(in crate::session) fn is_programs_own_prompt(row: &str) -> bool {
    !row.trim().is_empty() && !is_repl_prompt(row)
}

/// Whether the cursor's row, up to the cursor, is a REPL's primary prompt (`>>> `, `In [3]: `,
/// not a continuation prompt): the REPL reads a new statement.
pub(in crate::session) fn at_primary_repl_prompt(screen: &mut crate::screen::Screen) -> bool {
    screen
        .cursor_row_prefix()
        .is_some_and(|p| is_primary_repl_prompt(&p))
}

/// [`at_primary_repl_prompt`] of the cursor row's text before the cursor (trailing spaces
/// trimmed).
pub(in crate::session) fn is_primary_repl_prompt(row: &str) -> bool {
    is_repl_prompt(row) && !is_repl_continuation_prompt(row)
}

/// Whether `row` (the cursor row's text before the cursor, trailing spaces trimmed) is a
/// REPL's block continuation prompt (`... `): the REPL reads more lines of a statement.
pub(in crate::session) fn is_block_continuation_prompt(row: &str) -> bool {
    repl_continuation(row) == Some(ReplContinuation::Block)
}

/// The columns of blanks between a REPL's block continuation prompt (`... `, `   ...: `: `row`,
/// the cursor row's text before the cursor with trailing spaces trimmed) and the cursor at
/// column `cursor_col`: the indentation an auto-indenting REPL (Python 3.13's, IPython) gave
/// the line it opened, in steps of four columns as they indent. `None` when the cursor stands
/// right after the prompt's space, after blanks of another count (pdb's `...   ` prompt ends
/// in three), or the row is no such prompt.
pub(in crate::session) fn continuation_indent(row: &str, cursor_col: u16) -> Option<u16> {
    if !is_block_continuation_prompt(row) {
        return None;
    }
    // The prompts matched are ASCII: their bytes are their columns.
    let prompt_end = u16::try_from(row.len()).ok()?.checked_add(1)?;
    cursor_col
        .checked_sub(prompt_end)
        .filter(|&blanks| blanks > 0 && blanks % 4 == 0)
}

/// Whether `row` (the text before the cursor, trailing spaces trimmed) ends the way a prompt
/// does (see `Observation::question_at_cursor`): `Name:`, `Continue?`, `>`, `$`, `#`, a
/// yes/no choice anywhere (`Continue? [y/N] (6s)`), or a closing bracket after a question
/// (`Delete? (yes/no)`, `Port: [8080]`) or around a default, a range or a choice
/// (`(default: 3)`, `[1-5]`, `[a/b/c]`), and a prompt to press a key to go on (vim's `Press
/// ENTER or type command to continue`, `Press any key to continue...`). A progress or status
/// line does not: `12/40`, `45%`, `Downloading...`, a bracket around a count, a bar or other
/// words (`Waiting for db (attempt 1/3)`, `[###   ]`, `Working [spinning]`), a `>` heading a
/// bar (`[====>`). A
/// question read as progress costs a send the wait for its timer or a quiet moment; progress
/// read as a question would hand the next send's keys to a program that goes on by itself.
pub(in crate::session) fn ends_like_a_question(row: &str) -> bool {
    let row = row.trim_end();
    if super::super::input::asks_yes_or_no(row) || asks_for_a_key_to_go_on(row) {
        return true;
    }
    let Some(last) = row.chars().next_back() else {
        return false;
    };
    match last {
        ':' | '?' | '$' | '#' => true,
        '>' => !row.ends_with("=>") && !row.ends_with("->"),
        ')' | ']' => {
            let open = if last == ')' { '(' } else { '[' };
            let body = &row[..row.len() - 1];
            let (before, inside) = body
                .rfind(open)
                .map_or((body, ""), |at| (&body[..at], &body[at + 1..]));
            let digits = inside.chars().any(|c| c.is_ascii_digit());
            let range = inside
                .split_once('-')
                .is_some_and(|(a, b)| is_number(a.trim()) && is_number(b.trim()));
            before.trim_end().ends_with(['?', ':'])
                || inside.contains('?')
                || inside.to_ascii_lowercase().contains("default")
                || range
                || (inside.contains('/') && !digits && inside.chars().any(char::is_alphabetic))
        }
        _ => false,
    }
}

/// Whether `row` ends by asking for a key (or Enter) to go on: `… to continue` after
/// `press` or `hit`, trailing dots aside.
fn asks_for_a_key_to_go_on(row: &str) -> bool {
    let row = row.to_ascii_lowercase();
    let row = row.trim_end_matches(['.', ' ', '…']);
    row.ends_with(" to continue") && (row.contains("press ") || row.contains("hit "))
}

/// Whether `text` is a decimal number (digits only, at least one).
fn is_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `row` starts with a REPL's prompt followed by other text on the same row (node's
/// `> ` and then a timer's output, which does not redraw the prompt): its first word with the
/// space after it is a prompt by [`is_repl_prompt`].
pub(in crate::session) fn starts_with_repl_prompt(row: &str) -> bool {
    row.split_once(' ')
        .is_some_and(|(word, rest)| !rest.trim().is_empty() && is_repl_prompt(word))
}

/// Interpreters whose command line without a script or inline code starts their REPL, by the
/// stem of their name (`python3.11` is `python`, `lua5.4` is `lua`).
const REPL_PROGRAMS: [&str; 20] = [
    "node", "nodejs", "deno", "bun", "python", "pypy", "ipython", "bpython", "ptpython", "irb",
    "lua", "luajit", "r", "ghci", "jshell", "julia", "scala", "guile", "racket", "iex",
];

/// Python modules run with `-m` that are REPLs themselves.
const REPL_MODULES: [&str; 4] = ["asyncio", "code", "IPython", "sqlite3"];

/// Python REPLs started as scripts of their own (`ipython` is a Python script), by program
/// name, where [`runs_a_repl`] cannot tell by the command line: SIGINT interrupts their
/// statement, and they stay.
const NAMED_PYTHON_REPLS: [&str; 3] = ["ipython", "bpython", "ptpython"];

/// Database shells, started with an argument of their own (`sqlite3 app.db`): SIGINT
/// interrupts their query, and they stay; every prompt they show reads a statement (their
/// prompt is the user's to set: sqlite3's `.prompt`, psql's `mydb=> `), and they ask nothing
/// else on the terminal but a password (echo off).
pub(in crate::session) const DATABASE_SHELLS: [&str; 5] =
    ["sqlite3", "psql", "mysql", "mariadb", "duckdb"];

/// Whether process group `pgid` runs a REPL: by its command line ([`runs_a_repl`]), or by its
/// leader's program name ([`NAMED_PYTHON_REPLS`], [`DATABASE_SHELLS`]). Blocking `/proc`
/// reads.
pub(in crate::session) fn group_runs_a_repl(pgid: i32) -> bool {
    leader_runs_a_repl(pgid)
        || crate::process::group_name(pgid).is_some_and(|name| {
            NAMED_PYTHON_REPLS.contains(&&*name) || DATABASE_SHELLS.contains(&&*name)
        })
}

/// Whether the leader of process group `pgid` runs an interpreter's REPL by its command line
/// ([`runs_a_repl`]: `node`, not `node app.js`). A blocking `/proc` read.
pub(in crate::session) fn leader_runs_a_repl(pgid: i32) -> bool {
    crate::process::cmdline(pgid).is_some_and(|c| runs_a_repl(&c))
}

/// Whether `row` (the cursor row's text before the cursor) is a REPL's primary or block
/// continuation prompt and then text typed after it (`In [2]: y = 1`, `>>> x = `, `...: `
/// and a line's start): the REPL is at its prompt with that text on its input line. The
/// prompt ends at one of the row's first few spaces.
pub(in crate::session) fn prompt_then_text(row: &str) -> bool {
    /// Most words a prompt has (`In [2]:`, an indented `...:`).
    const PROMPT_SPACES: usize = 3;
    let body = row.trim_start_matches(' ');
    let indent = row.len() - body.len();
    body.match_indices(' ').take(PROMPT_SPACES).any(|(at, _)| {
        let (prompt, text) = row.split_at(indent + at);
        !text.trim().is_empty()
            && (is_primary_repl_prompt(prompt) || is_block_continuation_prompt(prompt))
    })
}

/// Whether `cmdline` (NUL-separated, as `/proc/<pid>/cmdline`) runs an interpreter's REPL:
/// an interpreter that has one ([`REPL_PROGRAMS`]) with options only after it, none that
/// runs code given inline (`node`, `node --inspect`, `python3.11 -q`, `python3 -m asyncio`
/// for a module that is a REPL itself, [`REPL_MODULES`]; not `node app.js`, `node -e …`,
/// `python3 -m http.server`, nor an option that runs something else with no script: node's
/// test runner (`node --test --watch`), `--run` of a package script, `--check`; nor `top` or
/// `less -S`, which are no interpreters).
pub(in crate::session) fn runs_a_repl(cmdline: &[u8]) -> bool {
    const INLINE: [&str; 9] = [
        "-e", "-p", "--eval", "--print", "-c", "-m", "--test", "--run", "--check",
    ];
    const TAKES_VALUE: [&str; 4] = ["-r", "--require", "--import", "--loader"];
    let mut args = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(String::from_utf8_lossy);
    let program = args.next().unwrap_or_default();
    if !REPL_PROGRAMS.contains(&&*program_stem(&program)) {
        return false;
    }
    while let Some(arg) = args.next() {
        let name = arg.split('=').next().unwrap_or_default();
        // A module that is a REPL itself (`python3 -m asyncio`).
        if name == "-m" {
            return args
                .next()
                .is_some_and(|module| REPL_MODULES.contains(&&*module));
        }
        if INLINE.contains(&name) || !arg.starts_with('-') {
            return false;
        }
        if TAKES_VALUE.contains(&&*arg) {
            let _ = args.next();
        }
    }
    true
}

/// The stem of the program `program` (a command line's first argument) names: its file name
/// in lower case without a version (`/usr/bin/python3.11` is `python`, `lua5.4` is `lua`).
fn program_stem(program: &str) -> String {
    let name = program
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
        .to_owned()
}

/// Interpreters with no REPL whose prompts [`repl_continuation`] knows: what a program of
/// theirs asks at a prompt written like one is the script's own question.
const SCRIPT_INTERPRETERS: [&str; 3] = ["perl", "ruby", "php"];

/// Whether `cmdline` (NUL-separated, as `/proc/<pid>/cmdline`) runs a script or code given
/// inline with an interpreter or a shell, not a REPL: an interpreter that has one
/// ([`REPL_PROGRAMS`]) not started as one ([`runs_a_repl`]: `python3 app.py`, `python3 -c …`,
/// `node app.js`), a shell not reading its commands from the terminal (`bash ask.sh`,
/// `bash -c …`), or an interpreter with no REPL of such prompts ([`SCRIPT_INTERPRETERS`]).
/// Not a program that is none of these (a database shell, `ssh`, `docker exec`): what it
/// runs cannot be told from here.
pub(in crate::session) fn runs_a_script(cmdline: &[u8]) -> bool {
    let program = cmdline
        .split(|&b| b == 0)
        .find(|a| !a.is_empty())
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    let stem = program_stem(&program);
    if super::super::nested_shell::is_shell_name(&stem) {
        return !super::super::nested_shell::runs_interactively(cmdline);
    }
    (REPL_PROGRAMS.contains(&&*stem) && !runs_a_repl(cmdline))
        || SCRIPT_INTERPRETERS.contains(&&*stem)
}

/// Whether process `pid` runs a script or inline code ([`runs_a_script`] of its command line),
/// and is no Python REPL started by a name of its own ([`NAMED_PYTHON_REPLS`]: `bpython` runs
/// as a Python script). A prompt it shows written like a REPL's continuation prompt (`... `,
/// `-> `: `input('... ')`) is the script's question, and the line sent there its answer.
/// Blocking `/proc` reads.
pub(in crate::session) fn reads_for_a_script(pid: i32) -> bool {
    crate::process::cmdline(pid).is_some_and(|c| runs_a_script(&c))
        && !crate::process::stat(pid).is_some_and(|s| NAMED_PYTHON_REPLS.contains(&&*s.comm))
}

/// The phrase of a prompt that asks for a key (or Enter) to go on, in `row` (a row's text,
/// any case): vim's hit-enter prompt (`Press ENTER or type command to continue`), installers'
/// and pagers' `Press any key`, `Hit ENTER`, `press RETURN`; `None` for a prompt for a value
/// that says how to end it, ending with `:` or `?` (`Type a word and press Enter: `), which
/// asks for text.
pub fn press_to_go_on(row: &str) -> Option<&'static str> {
    let row = row.trim_end().to_lowercase();
    if row.ends_with([':', '?']) {
        return None;
    }
    [
        "press enter",
        "hit enter",
        "press return",
        "hit return",
        "press any key",
        "hit any key",
        "press a key",
        "hit a key",
    ]
    .into_iter()
    .find(|phrase| row.contains(phrase))
}
