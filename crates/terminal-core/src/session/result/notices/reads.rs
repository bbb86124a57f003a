//! The notices for a program that reads a line with no prompt of the REPL's before the
//! cursor: a REPL continued with `fg`, a program or the shell's `read` with no prompt, a
//! reader of a counted amount (`head -c 5`), and a statement's own read in a REPL.

#[cfg(doc)]
use super::super::SettleFacts;

/// The notice for [`SettleFacts::repl_continued`], naming the REPL or debugger: not a
/// program's read to end with Ctrl-D (which would end the REPL).
pub(in crate::session::result) fn repl_continued_notice(program: &str) -> String {
    format!(
        "[input: {program} was continued with fg and reads at its own prompt, as before it \
         was stopped, without printing that prompt again (the cursor is at the start of an \
         empty line): the next send is taken as a statement or command at that prompt]"
    )
}

/// The notice for [`SettleFacts::line_without_prompt`], naming the program that waits (`None`:
/// the shell itself, its `read` builtin). A program may read to the end of its input
/// (`sys.stdin.read()`) rather than one line: how to end it is said too.
pub(in crate::session::result) fn line_without_prompt_notice(program: Option<&str>) -> String {
    match program {
        None => "[input: the shell (its read builtin) waits for a line of input, with the \
                 cursor at the start of an empty line: the next send is taken as that line]"
            .to_owned(),
        Some(program) => format!(
            "[input: {program} waits for a line of input, with the cursor at the start of an \
             empty line: the next send is taken as that line; if it reads to the end of its \
             input (sys.stdin.read(), a filter), send \\u0004 (Ctrl-D) with submit false after \
             the last line to end it]"
        ),
    }
}

/// The notice for [`SettleFacts::counted_read`]: `program` reads only `takes` (`5 bytes
/// (characters) of its input`) and ends, not a line: the rest of a longer line would run in
/// the shell, so such a send is refused.
pub(in crate::session::result) fn counted_read_notice(program: &str, takes: &str) -> String {
    format!(
        "[input: {program} reads {takes} and ends, with the cursor at the start of an empty \
         line: the next send is taken as that input; send at most that much (text beyond it \
         is left to what reads next: the shell would run it as a command line, so such a send \
         is refused, unless a loop or a script reads on)]"
    )
}

/// The notice for [`SettleFacts::statement_read`]: a statement the REPL `program` runs waits
/// for a line with no prompt, and the REPL is not at its own prompt.
pub(in crate::session::result) fn statement_read_notice(program: &str) -> String {
    format!(
        "[input: a statement {program} runs waits for a line of input with no prompt (such \
         as an `input()` with no prompt text: the cursor is at the start of an empty line); \
         {program} is not at its own prompt: the next send's first line is taken as that \
         input, not as a statement, and a block is refused until it has its input; send the \
         line it waits for (if it reads to the end of its input, sys.stdin.read(), send \
         \\u0004 (Ctrl-D) with submit false after the last line), or terminal_signal SIGINT \
         to stop the statement]"
    )
}

/// The notice for [`SettleFacts::statement_read_prompt`]: a statement the REPL `program` runs
/// waits for a line at `prompt`, a prompt of its own, and the REPL is not at its own prompt.
pub(in crate::session::result) fn statement_prompt_read_notice(
    program: &str,
    prompt: &str,
) -> String {
    let prompt = super::super::super::send::clipped(prompt);
    format!(
        "[input: a statement {program} runs waits for a line of input at its own prompt \
         `{prompt}` (such as an `input()` with that prompt text), which is not {program}'s \
         prompt, even when written like it: the next send's first line is taken as the answer, \
         not as a statement, and a block is refused until it is answered; send the answer, or \
         terminal_signal SIGINT to stop the statement]"
    )
}
