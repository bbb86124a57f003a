//! Table tests of the input shaping.

use super::*;

#[test]
fn python_source_is_cut_into_top_level_statements() {
    let text = "x = 1\ndef f(n):\n    if n:\n        return 1\n\n    return 0\n\nif x:\n    pass\nelse:\n    pass\nprint(f(x),\n  2)\n";
    assert_eq!(
        python_statements(text),
        vec![
            "x = 1\n",
            "def f(n):\n    if n:\n        return 1\n\n    return 0\n\n",
            "if x:\n    pass\nelse:\n    pass\n",
            "print(f(x),\n  2)\n",
        ]
    );
}

#[test]
fn python_statements_do_not_start_inside_brackets_strings_or_after_a_decorator() {
    let text = "s = '''\nnot: a statement\n'''\nd = {\n'a': '(',\n}\n@dec\ndef g():\n    pass\nx = 1 + \\\n2\ny = '#' # (\nz = 3\n";
    assert_eq!(
        python_statements(text),
        vec![
            "s = '''\nnot: a statement\n'''\n",
            "d = {\n'a': '(',\n}\n",
            "@dec\ndef g():\n    pass\n",
            "x = 1 + \\\n2\n",
            "y = '#' # (\n",
            "z = 3\n",
        ]
    );
}

#[test]
fn python_comments_belong_to_the_code_after_them_and_decorators_to_their_definition() {
    let text = "def f():\n    x = 1\n# c\n    return x\n# about g\n@dec(\n    1\n)\n# between\ndef g():\n    pass\nif x:\n    y\n# before else\nelse:\n    z\n# trailing\n";
    assert_eq!(
        python_statements(text),
        vec![
            "def f():\n    x = 1\n# c\n    return x\n",
            "# about g\n@dec(\n    1\n)\n# between\ndef g():\n    pass\n",
            "if x:\n    y\n# before else\nelse:\n    z\n# trailing\n",
        ]
    );
}

#[test]
fn python_typed_to_a_repl_gets_an_empty_line_after_each_block_and_none_inside() {
    let text = "def f(n):\n    s = '''a\n\nb'''\n\n    return n\nd = {\n}\nif f(1):\n    print(1)\nprint(2)\n";
    assert_eq!(
        python_separated(text).as_deref(),
        Some(
            "def f(n):\n    s = '''a\n\nb'''\n    return n\n\nd = {\n}\nif f(1):\n    print(1)\n\nprint(2)\n"
        )
    );
    // A compound statement on one line opens a block too; a comment before one is its own.
    assert_eq!(
        python_separated("for i in x: print(i)\n# c\nclass P: pass\nprint(P)\n").as_deref(),
        Some("for i in x: print(i)\n\n# c\nclass P: pass\n\nprint(P)\n")
    );
    // One statement: typed as sent (a block left open stays open), but for the blank lines
    // inside it (outside strings).
    assert_eq!(python_separated("for i in x:\n    print(i)\n"), None);
    assert_eq!(
        python_separated(
            "class P:\n    def a(self):\n        s = '''\n\n'''\n\n    def b(self): pass\n"
        )
        .as_deref(),
        Some("class P:\n    def a(self):\n        s = '''\n\n'''\n    def b(self): pass\n")
    );
    assert_eq!(python_separated("if x:\n\n    y\n\u{3}\n"), None);
    // An IPython cell magic keeps its whole cell.
    assert_eq!(
        python_statement_steps("%%time\nx = 1\nfor i in x:\n    y\n"),
        None
    );
    // A compound statement on one line: pasted with its Enter, then the Enter that ends the
    // block as a step of its own (IPython runs it on the first: the second was an empty line
    // at its next prompt).
    assert_eq!(
        python_statement_steps("x = 1\nif x: print(x)\nprint(2)\n"),
        Some(vec![
            b"x = 1\r".to_vec(),
            [PASTE_START, b"if x: print(x)", PASTE_END, b"\r"].concat(),
            BLOCK_END_KEY.to_vec(),
            b"print(2)\r".to_vec(),
        ])
    );
    // Keys among the text: typed as sent, paced around them.
    assert_eq!(python_separated("if x:\n    y\n\u{3}print(1)\n"), None);
}

#[test]
fn a_simple_statement_last_in_python_typed_to_a_repl_ends_with_one_enter() {
    // Empty lines after it would be Enters more, answers to an `input()` it calls.
    assert_eq!(
        python_separated("for i in x:\n    y\nc = input('c? ')\n\n").as_deref(),
        Some("for i in x:\n    y\n\nc = input('c? ')\n")
    );
    // Its own line end stays as typed (keys typed on end lines with carriage returns).
    assert_eq!(
        python_separated("for i in x:\n    y\nc = 1\rd = 2\r").as_deref(),
        Some("for i in x:\n    y\n\nc = 1\rd = 2\r")
    );
}

#[test]
fn python_text_after_an_open_block_starts_a_statement_unless_it_continues_one() {
    let starts = [
        ("if 1:\n    x = 5", "print(x)"),
        ("for i in r:\n    y = i\n", "# a comment\nz = y"),
        ("def f():\n    return 1", "@cache\ndef g():\n    pass"),
        ("if a:\n    b\nelse:\n    c", "d = 1\ne = 2"),
        ("def h():\n    return 7\n# c", "print(h())"),
        ("def h():\n    return 7\n\n    # c\n", "print(h())"),
        // Blank lines first: they end the block, as a file's would.
        ("def f(x):\n    return x*2\n", "\nprint(f(3))"),
        ("for i in r:\n    y = i\n", "\n\nprint(y)"),
    ];
    for (typed, text) in starts {
        assert!(
            python_starts_statement(typed, text),
            "{typed:?} then {text:?}"
        );
    }
    let continues = [
        ("if 1:\n    x = 5", "    y = 6"),
        ("if 1:\n    x = 5", "else:\n    x = 6"),
        ("try:\n    f()", "except OSError:\n    pass"),
        ("items = [1,", "2]"),
        ("s = '''a", "b'''"),
        ("total = 1 + \\", "2"),
        ("@cache", "def g():\n    pass"),
        ("if 1:\n    x = 5", ""),
        ("def h():\n    return 7", "# c"),
    ];
    for (typed, text) in continues {
        assert!(
            !python_starts_statement(typed, text),
            "{typed:?} then {text:?}"
        );
    }
}

#[test]
fn a_command_is_submitted_by_a_completed_line_that_is_not_blank_or_a_comment() {
    assert!(submits_a_command("echo a", true));
    assert!(submits_a_command("# note\necho a\n", false));
    assert!(!submits_a_command("echo a", false));
    assert!(!submits_a_command("", true));
    assert!(!submits_a_command("  \n# only a comment", true));
    // An interrupt or end-of-file key may discard the line instead.
    assert!(!submits_a_command("echo a\u{3}", true));
    assert!(!submits_a_command("\u{4}", true));
    assert!(submits_a_command("printf 'a\tb'", true));
}

const TYPED: Reader = Reader::TYPED;
const PASTE: Reader = Reader {
    canonical: false,
    bracketed_paste: true,
    block_paste: true,
    shell_line_editor: false,
    unended_line_bytes: 0,
    quoted_tabs: false,
    newline_enter: false,
};
/// A line editor with bracketed paste on (GNU readline in sqlite3).
const LINE_EDITOR: Reader = Reader {
    canonical: false,
    bracketed_paste: true,
    block_paste: false,
    shell_line_editor: false,
    unended_line_bytes: 0,
    quoted_tabs: false,
    newline_enter: false,
};
/// GNU readline without pastes (Python's REPL).
const QUOTING: Reader = Reader {
    quoted_tabs: true,
    ..TYPED
};
const LINES: Reader = Reader {
    canonical: true,
    bracketed_paste: false,
    block_paste: false,
    shell_line_editor: false,
    unended_line_bytes: 0,
    quoted_tabs: false,
    newline_enter: false,
};
const SHELL: Reader = Reader {
    canonical: false,
    bracketed_paste: false,
    block_paste: false,
    shell_line_editor: true,
    unended_line_bytes: 0,
    quoted_tabs: false,
    newline_enter: false,
};

#[test]
fn input_is_shaped_for_its_reader() {
    let cases: &[(&str, bool, Reader, &[u8])] = &[
        ("ls", true, TYPED, b"ls\r"),
        ("ls", false, TYPED, b"ls"),
        ("a\nb", true, TYPED, b"a\nb\r"),
        ("one line", true, PASTE, b"one line\r"),
        (
            "def f():\n    return 1\n\n",
            true,
            PASTE,
            b"\x1b[200~def f():\r    return 1\x1b[201~\r\r\r",
        ),
        ("a\nb", false, PASTE, b"\x1b[200~a\rb\x1b[201~"),
        ("a\tb\nc", false, PASTE, b"\x1b[200~a\tb\rc\x1b[201~"),
        // A line editor gets several lines typed, one line each.
        (".tables\n.schema", true, LINE_EDITOR, b".tables\n.schema\r"),
        ("one line", true, LINE_EDITOR, b"one line\r"),
        // Keys in the text: typed, not pasted (a paste would make them characters).
        ("ia\nb\x1b:wq", true, PASTE, b"ia\nb\x1b:wq\r"),
        ("x\ny\x7f", false, PASTE, b"x\ny\x7f"),
        ("a\nb\x03", false, PASTE, b"a\nb\x03"),
        ("a\nb", true, LINES, b"a\nb\r"),
        ("\x1b", false, SHELL, b"\x1b\x07"),
        ("\x1b", false, TYPED, b"\x1b"),
        ("ls\x1b[", false, SHELL, b"ls\x1b[\x07"),
        ("\x1b[1;5", false, SHELL, b"\x1b[1;5\x07"),
        ("\x1bO", false, SHELL, b"\x1bO\x07"),
        ("\x1b[A", false, SHELL, b"\x1b[A"),
        ("\x1bb", false, SHELL, b"\x1bb"),
        ("\x1b", true, SHELL, b"\x1b\x07\r"),
        ("echo a\x1b[", true, SHELL, b"echo a\x1b[\x07\r"),
        ("echo a\x1b[1;", true, SHELL, b"echo a\x1b[1;\x07\r"),
        ("a\x1bO\nb", true, SHELL, b"a\x1bO\x07\rb\n"),
        ("read a\necho b", true, SHELL, b"read a\recho b\n"),
        ("a\rb\r\nc", true, SHELL, b"a\rb\nc\n"),
        // The Enter after a history search runs the line found (C-j would only end it).
        ("\x12ran\n", false, SHELL, b"\x12ran\r"),
        ("\r", false, SHELL, b"\r"),
        ("ls", true, SHELL, b"ls\r"),
        // Only the first line surely reaches the line editor: the rest is closed when typed
        // to it (vim started by the first line takes `ESC O` as its own keys).
        ("a\x1b\nb\x1b", false, SHELL, b"a\x1b\x07\rb\x1b"),
        ("vim f\nihello\x1bO", true, SHELL, b"vim f\rihello\x1bO\n"),
        ("\x1b\x1b", false, SHELL, b"\x1b\x1b\x07"),
        ("\x1b\x1b[D", true, SHELL, b"\x1b\x1b[D\r"),
        ("\x1b[\x1b[A", false, SHELL, b"\x1b[\x07\x1b[A"),
        ("\x1b]0;t\x07x", true, SHELL, b"\x1b]0;t\x07x\r"),
        ("a\x1b[", true, TYPED, b"a\x1b[\r"),
        ("a\r\nb\r\n", true, TYPED, b"a\nb\n\r"),
        ("a\rb", true, TYPED, b"a\rb\r"),
        (
            "a\r\nb\r\n\r\n",
            true,
            PASTE,
            b"\x1b[200~a\rb\x1b[201~\r\r\r",
        ),
    ];
    for (text, submit, reader, expected) in cases {
        assert_eq!(
            shape(text, *submit, *reader).unwrap(),
            expected.to_vec(),
            "{text:?} {reader:?}"
        );
    }
}

#[test]
fn a_long_single_line_is_a_paste_for_programs_that_enabled_it() {
    let short = "x".repeat(PASTE_LINE_MIN - 1);
    assert_eq!(shape(&short, false, PASTE).unwrap(), short.as_bytes());
    let long = "x".repeat(PASTE_LINE_MIN);
    assert_eq!(
        shape(&long, true, PASTE).unwrap(),
        format!("\x1b[200~{long}\x1b[201~\r").into_bytes()
    );
    assert_eq!(shape(&long, false, TYPED).unwrap(), long.as_bytes());
    assert_eq!(
        shape(&long, false, LINE_EDITOR).unwrap(),
        format!("\x1b[200~{long}\x1b[201~").into_bytes()
    );
}

/// A TAB typed to a line editor completes; in a paste it is a character of the line: a
/// line with one goes as a paste to a program that enabled pastes, typed lines each on
/// their own. Without pastes (or with keys in the text) it is typed as sent.
#[test]
fn a_line_with_a_tab_is_a_paste_for_programs_that_enabled_it() {
    let cases: &[(&str, bool, Reader, &[u8])] = &[
        ("a\tb", true, LINE_EDITOR, b"\x1b[200~a\tb\x1b[201~\r"),
        ("a\tb", false, PASTE, b"\x1b[200~a\tb\x1b[201~"),
        // TABs ending a line sent without Enter ask for completion: keys, after the text.
        ("\t", false, LINE_EDITOR, b"\t"),
        ("import o\t", false, LINE_EDITOR, b"import o\t"),
        (
            "x = 'a\tb'; o\t\t",
            false,
            LINE_EDITOR,
            b"\x1b[200~x = 'a\tb'; o\x1b[201~\t\t",
        ),
        ("import o\t", false, QUOTING, b"import o\t"),
        (
            "import json\njson.du\t",
            false,
            LINE_EDITOR,
            b"import json\njson.du\t",
        ),
        (
            "import json\njson.du\t",
            false,
            QUOTING,
            b"import json\njson.du\t",
        ),
        (
            "import o\t",
            true,
            LINE_EDITOR,
            b"\x1b[200~import o\t\x1b[201~\r",
        ),
        (
            "select 1;\nselect 'a\tb';\n",
            false,
            LINE_EDITOR,
            b"select 1;\n\x1b[200~select 'a\tb';\x1b[201~\n",
        ),
        ("x\ty\nz", true, LINE_EDITOR, b"\x1b[200~x\ty\x1b[201~\nz\r"),
        ("a\tb", true, TYPED, b"a\tb\r"),
        ("a\tb\x1b", false, LINE_EDITOR, b"a\tb\x1b"),
        // Readline without pastes (Python's REPL): quoted-insert before each TAB.
        ("s = 'a\tb'", true, QUOTING, b"s = 'a\x16\tb'\r"),
        ("x\ty\nz", false, QUOTING, b"x\x16\ty\nz"),
        // Keys among the text: typed, each TAB quoted, also where pastes are on.
        (
            "junk\x15'u\tv'",
            false,
            Reader {
                quoted_tabs: true,
                ..LINE_EDITOR
            },
            b"junk\x15'u\x16\tv'",
        ),
    ];
    for &(text, submit, reader, want) in cases {
        assert_eq!(
            shape(text, submit, reader).unwrap(),
            want,
            "{text:?} {reader:?}"
        );
    }
}

#[test]
fn python_repls_take_blocks_as_pastes() {
    for comm in ["python3", "python3.13", "ipython", "ptpython", "bpython"] {
        assert!(pastes_blocks(comm), "{comm}");
    }
    for comm in ["sqlite3", "psql", "gdb", "node", "irb", "bash"] {
        assert!(!pastes_blocks(comm), "{comm}");
    }
}

#[test]
fn a_line_over_the_canonical_limit_is_refused_not_cut() {
    let long = "x".repeat(CANONICAL_LINE_MAX + 1);
    let err = shape(&format!("echo hi\n{long}"), true, LINES).unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::InvalidRequest);
    assert!(
        err.message()
            .starts_with("line 2 of the input is 4096 bytes")
    );
    assert!(err.message().contains("4095-byte line limit"));
    assert!(err.message().contains("file"));
    insta::assert_snapshot!("long_line_refused", err.message());
    // At the limit it fits; a raw reader (readline) takes any length.
    let fits = "x".repeat(CANONICAL_LINE_MAX);
    assert!(shape(&fits, true, LINES).is_ok());
    assert_eq!(shape(&long, true, TYPED).unwrap().len(), long.len() + 1);
}

#[test]
fn a_line_continuing_one_typed_before_counts_its_bytes() {
    let typed = Reader {
        unended_line_bytes: 3000,
        ..LINES
    };
    let piece = "b".repeat(1096);
    let err = shape(&piece, true, typed).unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::InvalidRequest);
    insta::assert_snapshot!("continued_line_refused", err.message());
    // Only the first line continues it; a line after a line end starts afresh.
    assert!(shape(&"b".repeat(1095), true, typed).is_ok());
    assert!(shape(&format!("end\n{piece}{piece}"), true, typed).is_ok());
    // A raw reader takes it (the kernel holds no line for it).
    let raw = Reader {
        unended_line_bytes: 3000,
        ..TYPED
    };
    assert!(shape(&piece, true, raw).is_ok());
}

#[test]
fn the_unended_line_grows_ends_and_is_forgotten_at_the_kernels_line_keys() {
    assert_eq!(unended_after("abc", false, 10), Some(13));
    assert_eq!(unended_after("abc", true, 10), Some(0));
    assert_eq!(unended_after("one\ntwo", false, 10), Some(3));
    assert_eq!(unended_after("one\r", false, 10), Some(0));
    for key in ["\u{15}", "\u{4}", "x\u{3}"] {
        assert_eq!(unended_after(key, false, 10), None, "{key:?}");
    }
}

#[test]
fn python_lines_that_go_on_with_a_block_are_split_from_the_statements_after_them() {
    let split = |typed: &str, text: &str| python_block_split(typed, text);
    assert_eq!(
        split(
            "def k():\n    y = 1\n",
            "    y += 1\n    return y\nprint(k())"
        ),
        Some((
            "    y += 1\n    return y".to_owned(),
            "print(k())".to_owned()
        ))
    );
    // Blank lines between go with the block; a clause goes on with it.
    assert_eq!(
        split("if a:\n    b\n", "else:\n    c\n\nd = 1\ne = 2"),
        Some(("else:\n    c".to_owned(), "d = 1\ne = 2".to_owned()))
    );
    // A line typed without Enter goes on with the text's first line.
    assert_eq!(
        split("def g():\n    return ", "7\nprint(g())"),
        Some(("7".to_owned(), "print(g())".to_owned()))
    );
    // A first newline alone is the Enter of a line typed without one.
    assert_eq!(
        split("x0 = 0", "\nprint(x0)"),
        Some((String::new(), "print(x0)".to_owned()))
    );
    assert_eq!(
        split("def q():\n    return 7", "\n\nprint(q())"),
        Some((String::new(), "print(q())".to_owned()))
    );
    // Nothing to split: all of it goes on, or it starts a statement at once, or the rest is
    // only a comment, or the line after is inside a bracket.
    assert_eq!(split("def k():\n", "    a = 1\n    return a"), None);
    assert_eq!(split("def k():\n    a = 1\n", "print(k())"), None);
    assert_eq!(split("def k():\n", "    a = 1\n# done"), None);
    assert_eq!(split("def k():\n", "    a = [1,\n2]"), None);
}

#[test]
fn several_python_statements_leave_a_last_block_header_open() {
    assert_eq!(
        python_separated("x = 1\nif x:\n").as_deref(),
        Some("x = 1\nif x:\n")
    );
    assert_eq!(
        python_separated("x = 1\nif x:  # why: here\n").as_deref(),
        Some("x = 1\nif x:  # why: here\n")
    );
    assert_eq!(
        python_separated("x = 1\nif x:\n    y\nelse:\n").as_deref(),
        Some("x = 1\nif x:\n    y\nelse:\n")
    );
    // A header whose condition spans lines in brackets.
    assert_eq!(
        python_separated("x = 1\nif (x and\n        x):\n").as_deref(),
        Some("x = 1\nif (x and\n        x):\n")
    );
    // A `:` inside brackets, a string or a comment opens no block; one with its lines ends.
    assert_eq!(
        python_separated("d = {1:\n2}\nprint('a:')\nfor i in d: print(i)\n").as_deref(),
        Some("d = {1:\n2}\nprint('a:')\nfor i in d: print(i)\n\n")
    );
}

/// Text ending in a line end and sent with Enter gets one Enter there, not two (the second was
/// an empty answer to the next prompt, or gdb's repeat); text sent without Enter keeps its.
#[test]
fn one_line_sent_with_enter_ends_once() {
    assert_eq!(without_doubled_enter("bob\n", true), "bob");
    assert_eq!(without_doubled_enter("bob\r\n", true), "bob");
    assert_eq!(without_doubled_enter("\n", true), "");
    assert_eq!(without_doubled_enter("bob\n", false), "bob\n");
    assert_eq!(without_doubled_enter("bob", true), "bob");
    assert_eq!(
        without_doubled_enter("info line\nnext\n", true),
        "info line\nnext"
    );
    assert_eq!(without_doubled_enter("a\r\nb\r\n", true), "a\r\nb");
    // Only the last line end is the Enter: the empty lines before it are answers.
    assert_eq!(without_doubled_enter("A\n\n\n", true), "A\n\n");
    assert_eq!(without_doubled_enter("x\r\n\r\n", true), "x\r\n");
    assert_eq!(without_doubled_enter("\n\n", true), "\n");
}

#[test]
fn yes_and_no_words() {
    for (step, key) in [
        (&b"yes"[..], Some(&b"y"[..])),
        (b"yes\r", Some(b"y")),
        (b"Yes\n", Some(b"Y")),
        (b"NO\r\n", Some(b"N")),
        (b"no", Some(b"n")),
        (b"y\r", None),
        (b"yess\r", None),
        (b"yes\r\r", None),
        (b"yes please\r", None),
        (b"nope", None),
    ] {
        assert_eq!(yes_no_word_key(step).as_deref(), key, "{step:?}");
    }
    assert!(asks_yes_or_no("Delete all? (Y/n) "));
    assert!(!asks_yes_or_no("Overwrite file?"));
    assert!(!asks_yes_or_no("Press any key to continue"));
}

#[test]
fn quit_commands_of_repls_shells_and_editors_are_known() {
    for line in [
        "exit()",
        " quit ",
        ".exit",
        "\\q",
        "sys.exit(3)",
        "exit 2",
        ":wq",
        "\u{1b}:q!",
        "ihello\u{1b}:wq",
        "ZZ",
        "q",
        "process.exit(1)",
        "echo v=$v; exit",
        "make && exit 0",
        "false || exit $?",
        "cd /; logout",
        "echo x; exit;",
        "echo x; exit 0  # done",
        "[ -d / ] && { echo bye; exit 2; }",
        "if true; then exit 6; fi",
        "[ -d / ] && { exit 2; }",
        "print(1); exit(3)",
        "import sys; print(2); sys.exit(4)",
    ] {
        assert!(quits_a_program(line), "{line:?}");
    }
    for line in [
        "x = 5",
        "exits",
        "quitting = True",
        "print('exit')",
        "qq",
        ":w",
        "raise SystemExit(3)",
        "echo 'a; exit now'",
        "; exit",
        "ls | exitcode",
        "echo '#'; exit_code=3",
        "x = 1; exits()",
    ] {
        assert!(!quits_a_program(line), "{line:?}");
    }
}

#[test]
fn enter_is_a_newline_where_a_carriage_return_ends_no_line() {
    let no_crnl = Reader {
        newline_enter: true,
        ..LINES
    };
    assert_eq!(shape("hello", true, no_crnl).unwrap(), b"hello\n");
    assert_eq!(shape("a\nb", true, no_crnl).unwrap(), b"a\nb\n");
    assert_eq!(shape("hello", false, no_crnl).unwrap(), b"hello");
    assert_eq!(shape("hello", true, LINES).unwrap(), b"hello\r");
}

/// `set -e` and its spellings turn on the shell's own errexit; a subshell's, another
/// program's, `set +e` and other options do not.
mod commands;
mod line_notices;
mod python_statements;
