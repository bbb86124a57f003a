use super::{ends_like_a_question, is_repl_prompt, is_repl_prompt_of};

/// Prompts end like questions; progress lines, also those ending in a bracket, do not.
#[test]
fn progress_in_brackets_is_no_question() {
    for row in [
        "Name:",
        "Continue? [y/N]",
        "Continue? [y/N] (6s)",
        "Delete file? (yes/no)",
        "Overwrite (default)",
        "Pick a number (default: 3)",
        "Pick [1-5]",
        "Port: [8080]",
        "Mode [fast/slow]",
        "Proceed [Y/n/a]",
        "sqlite>",
        "$",
        "#",
        "Press ENTER or type command to continue",
        "Press any key to continue...",
        "Hit return to continue",
    ] {
        assert!(ends_like_a_question(row), "{row:?}");
    }
    for row in [
        "",
        "12/40",
        "45%",
        "Downloading...",
        "Waiting for db (attempt 1/3)",
        "Syncing files [2/4]",
        "[###   ]",
        "[====>",
        "copying --->",
        "elapsed (12s)",
        "()",
        "Working [spinning]",
        "Connecting to db (localhost)",
        "Step 1: compiling (release)",
        "Downloading (MB)",
        "Waiting for the build to continue",
    ] {
        assert!(!ends_like_a_question(row), "{row:?}");
    }
}

#[test]
fn a_continuation_line_an_auto_indenting_repl_opened_is_told_by_its_blanks() {
    use super::continuation_indent;
    use crate::screen::{Screen, ScreenConfig};
    let cases: [(&[u8], Option<u16>); 7] = [
        (b">>> if 1:\r\n...     ", Some(4)),
        (b">>> if 1:\r\n...         ", Some(8)),
        (b"In [1]: if 1:\r\n   ...:     ", Some(4)),
        (b">>> if 1:\r\n... ", None),
        (b"In [1]: if 1:\r\n   ...: ", None),
        // pdb's continuation prompt ends in three blanks.
        (b"(Pdb) if 1:\r\n...   ", None),
        (b">>> if 1:\r\n...     x", None),
    ];
    for (bytes, want) in cases {
        let mut screen = Screen::new(
            ScreenConfig {
                rows: 10,
                cols: 80,
                scrollback_lines: 100,
                scrollback_max_bytes: 1 << 20,
            },
            None,
        );
        screen.feed(bytes);
        let row = screen.cursor_row_prefix().unwrap_or_default();
        let col = screen.cursor().col;
        assert_eq!(
            continuation_indent(&row, col),
            want,
            "{:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn a_row_may_start_with_a_repl_prompt_and_go_on() {
    use super::starts_with_repl_prompt;
    for row in ["> tick", ">>> t", "(gdb) output"] {
        assert!(starts_with_repl_prompt(row), "{row:?}");
    }
    for row in ["> ", "tick", "a > b", "hello world", ""] {
        assert!(!starts_with_repl_prompt(row), "{row:?}");
    }
}

#[test]
fn text_typed_at_a_repl_prompt_leaves_the_repl_at_it() {
    use super::prompt_then_text;
    for row in [
        "In [2]: y = 1",
        ">>> x = ",
        "   ...:     print(",
        "... for i in x:",
    ] {
        assert!(prompt_then_text(row), "{row:?}");
    }
    for row in [
        "In [2]:",
        ">>>",
        "Out[2]: 3",
        "hello world",
        "",
        "x = 1 > 0 and y",
    ] {
        assert!(!prompt_then_text(row), "{row:?}");
    }
}

#[test]
fn a_repl_runs_without_a_script() {
    use super::prompt_rows::runs_a_repl;
    for line in [
        "node",
        "node\0--inspect",
        "node\0-r\0ts-node/register",
        "python3\0-q",
        "/usr/bin/python3.11",
        "/root/.pyenv/versions/3.13.1/bin/python3.13",
        "python3\0-m\0asyncio",
        "python3\0-q\0-m\0sqlite3",
    ] {
        assert!(runs_a_repl(line.as_bytes()), "{line:?}");
    }
    for line in [
        "top",
        "less\0-S",
        "vim",
        "node\0app.js",
        "node\0-e\0x()",
        "node\0--eval=x",
        "python3\0-c\0x",
        "python3\0-m\0http.server",
        "python3\0-m",
        "node\0--test\0--watch",
        "node\0--run\0build",
    ] {
        assert!(!runs_a_repl(line.as_bytes()), "{line:?}");
    }
}

/// A script or inline code run by an interpreter or a shell, whose prompt written like a REPL's
/// is the script's own; not an interpreter's REPL, an interactive shell, nor a program that is
/// no interpreter (what it runs cannot be told).
#[test]
fn a_script_runs_with_an_interpreter_or_a_shell() {
    use super::prompt_rows::runs_a_script;
    for line in [
        "python3\0app.py",
        "/usr/bin/python3.11\0-c\0v = input('... ')",
        "python3\0-m\0http.server",
        "node\0app.js",
        "node\0-e\0x()",
        "bash\0ask.sh",
        "bash\0-c\0read -p '> ' v",
        "sh\0-ec\0read v",
        "perl\0-e\0print 1",
        "ruby\0ask.rb",
    ] {
        assert!(runs_a_script(line.as_bytes()), "{line:?}");
    }
    for line in [
        "python3",
        "python3\0-q",
        "python3\0-m\0asyncio",
        "node",
        "bash",
        "bash\0--norc",
        "-bash",
        "bash\0-i\0-c\0x",
        "sqlite3\0app.db",
        "psql\0-U\0postgres",
        "docker\0exec\0-it\0db\0psql",
        "ssh\0host",
    ] {
        assert!(!runs_a_script(line.as_bytes()), "{line:?}");
    }
}

#[test]
fn repl_prompts_alone_on_their_row() {
    for row in [
        ">",
        "sqlite>",
        "irb(main):001:0>",
        "(gdb)",
        "(Pdb)",
        "In [12]:",
        "   ...:",
        "...",
        "  ...",
    ] {
        assert!(is_repl_prompt(row), "{row:?}");
    }
    for row in [
        "",
        "hint: Waiting for your editor to close the file...",
        "Continue?",
        "? What is your name?",
        "a -> b >",
        "In []:",
        "()",
        "(y/n)?",
        "Loading...",
    ] {
        assert!(!is_repl_prompt(row), "{row:?}");
    }
}

#[test]
fn a_prompt_is_a_repl_prompt_of_a_program_whose_repl_prints_it() {
    for (prompt, comm) in [
        ("sqlite>", "sqlite3"),
        ("mysql>", "mysql"),
        ("irb(main):001:0>", "irb"),
        ("ghci>", "ghc"),
        (">", "node"),
        (">", "R"),
        ("127.0.0.1:6379>", "redis-cli"),
        (">>>", "python3"),
        ("...", "python3.11"),
        ("...", "node"),
        ("In [3]:", "ipython3"),
        ("   ...:", "python3"),
        ("(Pdb)", "python3"),
        ("(gdb)", "gdb"),
    ] {
        assert!(is_repl_prompt_of(prompt, comm), "{prompt:?} of {comm}");
    }
    for (prompt, comm) in [
        ("pw>", "python3"),
        ("name>", "python3"),
        ("Name>", "bash"),
        ("passphrase>", "ssh-keygen"),
        ("p>", "python3"),
        ("Password:", "python3"),
        (">", "bash"),
        (">", "python3"),
        (">>>", "bash"),
        ("...", "bash"),
        ("(gdb)", "python3"),
        ("(Pdb)", "bash"),
        ("In [1]:", "bash"),
        ("Über>", "python3"),
        ("名前>", "python3"),
    ] {
        assert!(!is_repl_prompt_of(prompt, comm), "{prompt:?} of {comm}");
    }
}
