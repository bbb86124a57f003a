//! The notices a send's lines get when they were not typed (too long for the terminal's line
//! editing, dropped by a signal or a cancel, left once their reader ended) or went to a
//! reader an earlier line's command started rather than to the shell.

use super::{CANONICAL_LINE_MAX, LONG_LINE_ADVICE};

/// The notice for a paced line that was not typed: line `number` (from 1) of the input is
/// `len` bytes, and the program that would read it (`reader`, when known) reads in canonical
/// mode. The lines after it were not typed either, and the reader still waits for a line:
/// the notice says the next send goes to it.
pub(in crate::session) fn over_long_line_notice(
    number: usize,
    len: usize,
    reader: Option<&str>,
) -> String {
    let reader = reader.map_or_else(|| "the program".to_owned(), |name| format!("`{name}`"));
    format!(
        "[input: line {number} of the input ({len} bytes) and the lines after it were not typed: {reader}, which reads it, goes through the terminal's line editing, whose limit is {CANONICAL_LINE_MAX} bytes a line and would have cut it silently; the lines before it were typed, and {reader} still waits for a line: your next send answers it (terminal_signal SIGINT stops it instead). {LONG_LINE_ADVICE}]"
    )
}

/// `count` lines of an input from line `first` (from 1) as a notice names them (`line 3 of the
/// input was`, `lines 3–4 of the input were`), and the pronouns for them (object, subject).
fn untyped_lines(first: usize, count: usize) -> (String, &'static str, &'static str) {
    match count {
        1 => (format!("line {first} of the input was"), "it", "it"),
        _ => (
            format!("lines {first}–{} of the input were", first + count - 1),
            "them",
            "they",
        ),
    }
}

/// The notice for line `number` of an input (`line`, a shell command) that went as the answer
/// to the prompt `prompt` an earlier line's command showed, or, with no prompt (empty), as
/// input to `reader`, which that command started.
pub(in crate::session) fn line_to_a_prompt_notice(
    number: usize,
    line: &str,
    prompt: &str,
    reader: &str,
) -> String {
    let (to, answered) = if prompt.is_empty() {
        (
            format!(
                "{reader}, which an earlier line's command started and which reads with no prompt, as its input"
            ),
            format!("{reader} has its input"),
        )
    } else {
        (
            format!("the prompt `{prompt}` that an earlier line's command showed, as its answer"),
            "that prompt is answered".to_owned(),
        )
    };
    format!(
        "[input: line {number} of the input (`{line}`) went to {to}, not to the shell: if it was meant as a command, it did not run; send it again once {answered}]"
    )
}

/// The notice for the first line of an input (`line`, a shell command with arguments) sent
/// while `reader` waited at its prompt `prompt` (`Proceed?`, `Overwrite? [y/N]`): it answered
/// that prompt, as it would typed in a terminal; the agent may have meant a command.
pub(in crate::session) fn line_to_waiting_prompt_notice(
    line: &str,
    prompt: &str,
    reader: &str,
) -> String {
    format!(
        "[input: line 1 of the input (`{line}`) went to the prompt `{prompt}` that {reader} waited at, as its answer, not to the shell: if it was meant as a command, it did not run; send it again once that prompt is answered (terminal_signal SIGINT stops {reader})]"
    )
}

/// [`line_to_waiting_prompt_notice`] for a send that settled with the shell back at its
/// prompt: `reader` took the line and has ended since (`rm -i` taking `ls -la` as its "no"),
/// and a command sent again now runs.
pub(in crate::session) fn line_to_ended_prompt_notice(
    line: &str,
    prompt: &str,
    reader: &str,
) -> String {
    format!(
        "[input: line 1 of the input (`{line}`) went to the prompt `{prompt}` that {reader} waited at, as its answer, not to the shell: if it was meant as a command, it did not run; {reader} has ended since and the shell is at its prompt: send it again now]"
    )
}

/// [`line_to_waiting_prompt_notice`] for a prompt a REPL's statement shows (`x =
/// input('Proceed? ')` at `>>>`, `program` the REPL): the line went to that read instead of
/// to the REPL as a statement, and SIGINT interrupts the statement, not the REPL.
pub(in crate::session) fn line_to_statements_prompt_notice(
    line: &str,
    prompt: &str,
    program: &str,
) -> String {
    format!(
        "[input: line 1 of the input (`{line}`) went to the prompt `{prompt}` that a statement run by {program} waited at, as its answer, not to {program} as a statement: if it was meant as one, it did not run; send it again once that prompt is answered (terminal_signal SIGINT interrupts that statement)]"
    )
}

/// [`line_to_waiting_prompt_notice`] for a send that settled with the read at `prompt` over
/// (`reader` took the line and went on or ended): `then` says what holds the terminal now and
/// when to send the line again. `repl` names the REPL whose statement read the line, which it
/// went to instead of the shell.
pub(in crate::session) fn line_left_prompt_notice(
    line: &str,
    prompt: &str,
    reader: &str,
    repl: Option<&str>,
    then: &str,
) -> String {
    let (instead_of, meant) = match repl {
        Some(program) => (format!("{program} as a statement"), "one"),
        None => ("the shell".to_owned(), "a command"),
    };
    let reader = match repl {
        Some(program) => format!("a statement run by {program}"),
        None => reader.to_owned(),
    };
    format!(
        "[input: line 1 of the input (`{line}`) went to the prompt `{prompt}` that {reader} waited at, as its answer, not to {instead_of}: if it was meant as {meant}, it did not run; {then}]"
    )
}

/// How [`lines_to_prompts_notice`] names line `number` of an input (`line`) that went to the
/// prompt `prompt` an earlier line showed, or, with no prompt (empty), to `reader`.
pub(in crate::session) fn line_to_a_prompt_entry(
    number: usize,
    line: &str,
    prompt: &str,
    reader: &str,
) -> String {
    if prompt.is_empty() {
        format!("line {number} (`{line}`) to {reader}")
    } else {
        format!("line {number} (`{line}`) to `{prompt}`")
    }
}

/// The notice for several lines of an input that went as answers to prompts earlier lines
/// showed (`entries`, each from [`line_to_a_prompt_entry`]).
pub(in crate::session) fn lines_to_prompts_notice(entries: &[String]) -> String {
    format!(
        "[input: these lines of the input went as answers to prompts that earlier lines showed, not to the shell or REPL as commands or statements: {}; if they were meant as commands or statements, they did not run: send them again once those prompts are answered]",
        entries.join(", ")
    )
}

/// Whether `step` (a line typed to a REPL or debugger) asks for input where it runs: it
/// calls a function that reads the terminal (`input()`, `sys.stdin.readline()`, `getpass`,
/// `os.read(0, …)`, node's `rl.question`, C's `scanf`/`gets`) or resumes the program a
/// debugger runs (`next`, `step`, `continue`, `run`, `until`, `finish`: not their one-letter
/// forms, which are names in a REPL as often), which may read. A blank row after it is then a
/// read with no prompt; after any other line it is other output (a background process
/// printing, a prompt made empty). Missing one costs a notice; a false one tells the model a
/// statement that ran did not (it may run it again).
pub(in crate::session) fn asks_for_input(step: &[u8]) -> bool {
    const READS: [&str; 9] = [
        "input(",
        "stdin.read",
        "getpass(",
        "os.read(0",
        "question(",
        "scanf(",
        "gets(",
        "readLine(",
        "STDIN",
    ];
    const RESUMES: [&str; 10] = [
        "next", "step", "cont", "continue", "run", "until", "finish", "return", "advance", "start",
    ];
    let text = String::from_utf8_lossy(step);
    let line = text.trim();
    let mut words = line.split_whitespace();
    // A debugger's command, with arguments (`next 3`, `run < in.txt`), not a statement that
    // starts with a name like one (`next = 3`, `run(x)`, `return 99;`).
    let resumes = !line.ends_with(';')
        && words.next().is_some_and(|word| RESUMES.contains(&word))
        && words.next().is_none_or(|arg| {
            arg.starts_with(|c: char| c.is_ascii_alphanumeric() || matches!(c, '<' | '-' | '$'))
        });
    READS.iter().any(|call| line.contains(call)) || resumes
}

/// How the notices below name a read with no prompt that an earlier line's statement or
/// command made (an `input()` with no prompt text).
pub(in crate::session) const PROMPTLESS_READ: &str = "a read with no prompt";

/// The notice for line `number` of an input sent to a REPL or debugger at its prompt (`line`,
/// its first text) that went as the answer to a prompt of its own (`prompt`: an `input()`, a
/// question of the program a debugger runs; empty: a read with no prompt, an `input()`) an
/// earlier line's statement or command stopped at.
pub(in crate::session) fn line_to_programs_prompt_notice(
    number: usize,
    line: &str,
    prompt: &str,
) -> String {
    let (to, answered) = if prompt.is_empty() {
        (
            format!(
                "as input to {PROMPTLESS_READ} (such as an `input()` with no prompt text) that an earlier line's statement or command made"
            ),
            "that read has its input",
        )
    } else {
        (
            format!(
                "to the prompt `{prompt}` that an earlier line's statement or command showed, as its answer"
            ),
            "that prompt is answered",
        )
    };
    format!(
        "[input: line {number} of the input (`{line}`) went {to}, not to the REPL or debugger as a statement or command: if it was meant as one, it did not run; send it again once {answered}]"
    )
}

/// The notice for line `number` of an input sent to a REPL or debugger at its prompt (`line`,
/// its first text) and the `rest` lines after it, not typed: an earlier line's statement or
/// command stopped at a prompt of its own that hides its input (`prompt`: a password's;
/// empty: a read with no prompt), which would have taken the line as its answer.
pub(in crate::session) fn line_to_hidden_prompt_notice(
    number: usize,
    line: &str,
    rest: usize,
    prompt: &str,
) -> String {
    let lines = match rest {
        0 => format!("line {number} of the input (`{line}`) was"),
        1 => format!("line {number} of the input (`{line}`) and the line after it were"),
        _ => format!("line {number} of the input (`{line}`) and the {rest} lines after it were"),
    };
    let (at, answers) = if prompt.is_empty() {
        (
            format!("{PROMPTLESS_READ} that hides what is typed (a password's)"),
            "it".to_owned(),
        )
    } else {
        (
            format!("`{prompt}`, a prompt of its own that hides what is typed (a password's)"),
            format!("`{prompt}`"),
        )
    };
    format!(
        "[input: {lines} not typed: an earlier line's statement or command now waits at {at}, which would have taken the line as its answer; your next send answers {answers} (not echoed), then send the lines not typed again]"
    )
}

/// The notice for the lines of an input a signal or a cancel dropped before they were typed:
/// `count` lines from line `first` (from 1).
pub(in crate::session) fn discarded_lines_notice(first: usize, count: usize) -> String {
    let (lines, them, _) = untyped_lines(first, count);
    format!(
        "[input: {lines} not typed: a signal (or a cancel) came first, and it discards input not read yet, as a terminal discards what was typed ahead; send {them} again to run {them}]"
    )
}

/// The notice for lines of a send not typed yet when it settled without their reader taking
/// them (its deadline came, or the program went quiet without reading): they are typed ahead,
/// as before pacing, and the session's next send waits until they are written: `first` is the
/// number (from 1) of the first such line, `count` how many.
pub(in crate::session) fn typed_ahead_lines_notice(first: usize, count: usize) -> String {
    let (lines, them, they) = untyped_lines(first, count);
    let (are, run) = if count == 1 {
        ("is", "runs")
    } else {
        ("are", "run")
    };
    format!(
        "[input: {lines} not typed yet when the send returned: {they} {are} typed ahead now and {run} once what reads the terminal takes {them}; the session's next terminal_send waits until {they} {are} written (an INPUT_PENDING error means not yet): send empty text to see how {they} ran, or terminal_signal SIGINT to drop what was not read yet]"
    )
}

/// `notice`, about the input of an earlier send whose result nobody saw (its call was
/// cancelled, or its client went away), as the next result that shows its output gives it.
pub(in crate::session) fn earlier_send_notice(notice: &str) -> String {
    let inner = notice
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .unwrap_or(notice);
    format!("[earlier terminal_send, whose result nobody saw: {inner}]")
}

/// The notice for lines of a send not typed because the reader they were sent to (a
/// program's prompt, the shell's `read`) ended and the shell's prompt came back first:
/// `first` is the number (from 1) of the first line not typed, `count` how many.
pub(in crate::session) fn reader_ended_lines_notice(first: usize, count: usize) -> String {
    let (lines, them, they) = untyped_lines(first, count);
    let commands = if count == 1 {
        "it is a command"
    } else {
        "they are commands"
    };
    format!(
        "[input: {lines} not typed: what read the lines before ended and the shell's prompt came back, where {they} would have run as commands; send {them} again if {commands}]"
    )
}

/// The notice for lines of a send not typed because the session's shell ended (it exited,
/// or was killed) at line `ended_at` (from 1), before it read them: `first` to `last`, the
/// first and last with text, where `first` is `ended_at` itself when the rest of that line,
/// after the key that ended the shell (a Ctrl-D), holds text. No later send can run them in
/// this session: the notice says to open a new one.
pub(in crate::session) fn shell_ended_lines_notice(
    ended_at: usize,
    first: usize,
    last: usize,
) -> String {
    let (lines, them, they) = if first == ended_at {
        let rest = match last - first {
            0 => format!("the rest of line {first} of the input was"),
            1 => format!("the rest of line {first} and line {last} of the input were"),
            _ => format!(
                "the rest of line {first} and lines {}–{last} of the input were",
                first + 1
            ),
        };
        let (_, them, they) = untyped_lines(first, last + 1 - first);
        (rest, them, they)
    } else {
        untyped_lines(first, last + 1 - first)
    };
    format!(
        "[input: {lines} not typed: the session's shell ended at line {ended_at} (it exited or was killed: see the session status), before reading {them}, so {they} did not run; to run {them}, open a new session with terminal_open and send {them} there]"
    )
}
