//! The notices for lines of an input that were not typed or went to a prompt.

use super::*;

#[test]
fn the_notice_for_lines_not_typed_or_typed_to_a_prompt_names_them() {
    insta::assert_snapshot!(
        line_to_a_prompt_notice(2, "echo second-line-ran", "A:", "`read`"),
        @"[input: line 2 of the input (`echo second-line-ran`) went to the prompt `A:` that an earlier line's command showed, as its answer, not to the shell: if it was meant as a command, it did not run; send it again once that prompt is answered]"
    );
    insta::assert_snapshot!(
        line_to_hidden_prompt_notice(3, "print(len(k))", 0, "Key:"),
        @"[input: line 3 of the input (`print(len(k))`) was not typed: an earlier line's statement or command now waits at `Key:`, a prompt of its own that hides what is typed (a password's), which would have taken the line as its answer; your next send answers `Key:` (not echoed), then send the lines not typed again]"
    );
    insta::assert_snapshot!(
        line_to_hidden_prompt_notice(2, "info registers rip", 2, "Password:"),
        @"[input: line 2 of the input (`info registers rip`) and the 2 lines after it were not typed: an earlier line's statement or command now waits at `Password:`, a prompt of its own that hides what is typed (a password's), which would have taken the line as its answer; your next send answers `Password:` (not echoed), then send the lines not typed again]"
    );
    insta::assert_snapshot!(
        line_to_programs_prompt_notice(5, "print('done', n)", "N:"),
        @"[input: line 5 of the input (`print('done', n)`) went to the prompt `N:` that an earlier line's statement or command showed, as its answer, not to the REPL or debugger as a statement or command: if it was meant as one, it did not run; send it again once that prompt is answered]"
    );
    insta::assert_snapshot!(
        line_to_waiting_prompt_notice("ls -la", "Proceed?", "`python3`"),
        @"[input: line 1 of the input (`ls -la`) went to the prompt `Proceed?` that `python3` waited at, as its answer, not to the shell: if it was meant as a command, it did not run; send it again once that prompt is answered (terminal_signal SIGINT stops `python3`)]"
    );
    insta::assert_snapshot!(
        line_to_ended_prompt_notice("ls -la", "rm: remove regular empty file 'b'?", "`rm`"),
        @"[input: line 1 of the input (`ls -la`) went to the prompt `rm: remove regular empty file 'b'?` that `rm` waited at, as its answer, not to the shell: if it was meant as a command, it did not run; `rm` has ended since and the shell is at its prompt: send it again now]"
    );
    // A read with no prompt (`input()`), seen or hidden.
    insta::assert_snapshot!(
        line_to_programs_prompt_notice(2, "print('hello', name)", ""),
        @"[input: line 2 of the input (`print('hello', name)`) went as input to a read with no prompt (such as an `input()` with no prompt text) that an earlier line's statement or command made, not to the REPL or debugger as a statement or command: if it was meant as one, it did not run; send it again once that read has its input]"
    );
    insta::assert_snapshot!(
        line_to_hidden_prompt_notice(2, "print(k)", 1, ""),
        @"[input: line 2 of the input (`print(k)`) and the line after it were not typed: an earlier line's statement or command now waits at a read with no prompt that hides what is typed (a password's), which would have taken the line as its answer; your next send answers it (not echoed), then send the lines not typed again]"
    );
    insta::assert_snapshot!(
        lines_to_prompts_notice(&[
            line_to_a_prompt_entry(2, "echo one", "A:", "`read`"),
            line_to_a_prompt_entry(3, "echo two", "", "the shell's `read`"),
        ]),
        @"[input: these lines of the input went as answers to prompts that earlier lines showed, not to the shell or REPL as commands or statements: line 2 (`echo one`) to `A:`, line 3 (`echo two`) to the shell's `read`; if they were meant as commands or statements, they did not run: send them again once those prompts are answered]"
    );
    insta::assert_snapshot!(
        discarded_lines_notice(3, 2),
        @"[input: lines 3–4 of the input were not typed: a signal (or a cancel) came first, and it discards input not read yet, as a terminal discards what was typed ahead; send them again to run them]"
    );
    insta::assert_snapshot!(
        discarded_lines_notice(7, 1),
        @"[input: line 7 of the input was not typed: a signal (or a cancel) came first, and it discards input not read yet, as a terminal discards what was typed ahead; send it again to run it]"
    );
}

#[test]
fn the_notice_for_lines_after_the_shell_ended_names_them_and_the_line_it_ended_at() {
    insta::assert_snapshot!(
        shell_ended_lines_notice(2, 3, 3),
        @"[input: line 3 of the input was not typed: the session's shell ended at line 2 (it exited or was killed: see the session status), before reading it, so it did not run; to run it, open a new session with terminal_open and send it there]"
    );
    insta::assert_snapshot!(
        shell_ended_lines_notice(1, 2, 3),
        @"[input: lines 2–3 of the input were not typed: the session's shell ended at line 1 (it exited or was killed: see the session status), before reading them, so they did not run; to run them, open a new session with terminal_open and send them there]"
    );
    // Text after the key that ended the shell (a Ctrl-D) on its own line.
    insta::assert_snapshot!(
        shell_ended_lines_notice(1, 1, 1),
        @"[input: the rest of line 1 of the input was not typed: the session's shell ended at line 1 (it exited or was killed: see the session status), before reading it, so it did not run; to run it, open a new session with terminal_open and send it there]"
    );
    insta::assert_snapshot!(
        shell_ended_lines_notice(1, 1, 3),
        @"[input: the rest of line 1 and lines 2–3 of the input were not typed: the session's shell ended at line 1 (it exited or was killed: see the session status), before reading them, so they did not run; to run them, open a new session with terminal_open and send them there]"
    );
}

#[test]
fn a_line_asks_for_input_when_it_calls_a_reader_or_resumes_a_debugged_program() {
    for line in [
        "name = input()",
        "line = sys.stdin.readline()",
        "k = getpass.getpass('')",
        "b = os.read(0, 100)",
        "rl.question('', a => {})",
        "next",
        "continue",
        "run < /dev/null",
        "next 3",
    ] {
        assert!(asks_for_input(line.as_bytes()), "{line}");
    }
    for line in [
        "a=1",
        "sys.ps1=''",
        ".editor",
        "print('x')",
        "nothing",
        "select 1;",
        "c = 3",
        "n",
        "next = 3",
        "lines = open('f.txt').readlines()",
        "ok = sys.stdin.isatty()",
        "return 99;",
        "  return x + 1;",
    ] {
        assert!(!asks_for_input(line.as_bytes()), "{line}");
    }
}

/// A line to a REPL statement's read went there instead of to the REPL; a read that is over
/// by the settle is said to be, with what holds the terminal now.
#[test]
fn the_notice_for_a_line_to_a_read_that_is_over_says_what_holds_the_terminal() {
    insta::assert_snapshot!(
        line_to_statements_prompt_notice("ls -la", "Proceed?", "`python3`"),
        @"[input: line 1 of the input (`ls -la`) went to the prompt `Proceed?` that a statement run by `python3` waited at, as its answer, not to `python3` as a statement: if it was meant as one, it did not run; send it again once that prompt is answered (terminal_signal SIGINT interrupts that statement)]"
    );
    insta::assert_snapshot!(
        line_left_prompt_notice(
            "ls -la",
            "rm: remove regular empty file 'g0'?",
            "`rm`",
            None,
            "that read has ended since, and the shell's `read` waits at `Again?`: send it again once the shell is back at its prompt (terminal_signal SIGINT stops the shell's `read`)",
        ),
        @"[input: line 1 of the input (`ls -la`) went to the prompt `rm: remove regular empty file 'g0'?` that `rm` waited at, as its answer, not to the shell: if it was meant as a command, it did not run; that read has ended since, and the shell's `read` waits at `Again?`: send it again once the shell is back at its prompt (terminal_signal SIGINT stops the shell's `read`)]"
    );
    insta::assert_snapshot!(
        line_left_prompt_notice(
            "ls -la",
            "Proceed?",
            "`python3`",
            Some("`python3`"),
            "that read has ended since and `python3` is back at its prompt `>>>`: a statement sent now runs there",
        ),
        @"[input: line 1 of the input (`ls -la`) went to the prompt `Proceed?` that a statement run by `python3` waited at, as its answer, not to `python3` as a statement: if it was meant as one, it did not run; that read has ended since and `python3` is back at its prompt `>>>`: a statement sent now runs there]"
    );
}
