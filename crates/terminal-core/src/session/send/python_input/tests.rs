use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_command_line_starts_the_repl_without_a_script_or_with_i() {
    use super::cmdline_starts_the_repl as repl;
    for args in [
        "python3",
        "python3\0-q\0",
        "python3\0-q\0-X\0dev\0",
        "python3\0-i\0x.py\0",
    ] {
        assert!(repl(args.as_bytes()), "{args:?}");
    }
    for args in [
        "python3\0x.py\0",
        "python3\0-c\0print(1)\0",
        "python3\0-m\0http.server\0",
        "python3\0-\0",
        "python3\0-W\0error\0x.py\0",
        "python3\0-qc\0pass\0",
    ] {
        assert!(!repl(args.as_bytes()), "{args:?}");
    }
    assert!(repl(b"python3\0-ic\0x = 1\0"));
}

/// The basic REPL (typed lines) and one that takes pastes (Python 3.13's own, IPython).
const TYPED: Reader = Reader::TYPED;
const PASTES: Reader = Reader {
    bracketed_paste: true,
    block_paste: true,
    ..TYPED
};

/// What counts as a block for the busy check: indented lines, decorators and compound
/// statements, one-line ones too; not plain statements nor names that start like keywords.
#[test]
fn blocks_for_the_busy_check() {
    for (text, block) in [
        ("def g():\n    return 1", true),
        ("for i in range(2): print(i)", true),
        ("@cache\ndef f(): pass", true),
        ("else: x = 1", true),
        ("x = 1\ny = 2", false),
        ("print('if x:')", false),
        ("for_each(x)", false),
        ("if", false),
        ("  ", false),
    ] {
        assert_eq!(has_block(text), block, "{text:?}");
    }
}

/// The busy refusals' texts are model-visible; text without a block, or a REPL that can
/// take one, is not refused.
#[test]
fn busy_refusals() {
    let block = "def f():\n    pass";
    for (busy, name) in [
        (Busy::Running, "running"),
        (Busy::Interrupted, "interrupted"),
    ] {
        let e = check_busy("python3", Some(busy), block).unwrap_err();
        insta::assert_snapshot!(format!("busy_{name}"), e.to_string());
    }
    assert!(check_busy("python3", Some(Busy::Running), "x = 1\ny = 2").is_ok());
    assert!(check_busy("python3", None, block).is_ok());
    // A statement's read with no prompt: the block's first line would be its input.
    let e = check_busy("python3", Some(Busy::Reading), block).unwrap_err();
    assert!(
        e.to_string()
            .contains("a statement it runs waits for a line of input with no prompt"),
        "{e}"
    );
    assert!(check_busy("python3", Some(Busy::Reading), "w").is_ok());
    assert!(check_busy("python3", Some(Busy::Reading), &format!("{block}\n\u{4}")).is_ok());
}

/// A block after editing keys in one send is refused with a model-visible text; keys
/// alone, a block alone, keys before a simple statement and a Ctrl-C before a block are
/// not.
#[test]
fn editing_keys_before_a_block_are_refused() {
    for text in [
        "\u{15}for i in range(2):\n\n    print(i)",
        "\u{7f}\u{7f}def f():\n    pass",
        "\u{1}\u{b}if x:\n    y = 1",
        "\u{1b}[Adef f():\n    pass",
        "\u{1b}[1;5Dclass C:\n    pass",
    ] {
        let e = check_keys_before_block(text).unwrap_err();
        insta::assert_snapshot!("keys_before_block", e.to_string());
    }
    for text in [
        "\u{15}",
        "def f():\n    pass",
        "\u{15}x = 1",
        "\u{3}for i in range(2):\n    print(i)",
    ] {
        assert!(check_keys_before_block(text).is_ok(), "{text:?}");
    }
}

fn send(text: &str, submit: bool) -> SendRequest {
    SendRequest {
        text: text.to_owned(),
        submit,
        timeout: None,
    }
}

fn at_continuation(typed: &str, indent: Option<u16>) -> Repl {
    Repl {
        at_primary: false,
        at_continuation: true,
        indent,
        typed: Some(typed.to_owned()),
        line_unended: false,
        prompts_unseen: false,
    }
}

fn at_primary() -> Repl {
    Repl {
        at_primary: true,
        at_continuation: false,
        indent: None,
        typed: None,
        line_unended: false,
        prompts_unseen: false,
    }
}

fn typed(t: &Typing) -> Vec<String> {
    std::iter::once(&t.input)
        .chain(t.steps.iter().flatten())
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect()
}

#[test]
fn several_statements_ending_in_a_block_header_leave_that_block_open() {
    let t = typing(&send("x=1\ny=2\nif x:", true), TYPED, at_primary()).unwrap();
    assert_eq!(typed(&t), ["x=1\ny=2\nif x:\n"]);
    assert_eq!(t.holds.as_deref(), Some("x=1\ny=2\nif x:\n"));
    let t = typing(
        &send("import os\nclass K:  # later", true),
        PASTES,
        at_primary(),
    )
    .unwrap();
    assert_eq!(typed(&t), ["import os\r", "class K:  # later\r"]);
    // A block with its lines is ended as before.
    let t = typing(&send("x=1\nif x:\n    y=2", true), TYPED, at_primary()).unwrap();
    assert_eq!(typed(&t), ["x=1\nif x:\n    y=2\n\n"]);
}

/// Typed to a REPL reading lines (IPython's simple prompt, Python's own without a line
/// editor), blocks lose their blank lines inside and end with an empty line; a lone block is
/// left open at a prompt the next send sees, and ended where the REPL's prompts are unseen
/// (`ipython 2>/dev/null`: no prompt would tell the next send it is open).
#[test]
fn a_lone_block_to_a_repl_whose_prompts_are_unseen_is_ended() {
    let class = "class A:\n    def f(self): return 1\n\n    def g(self): return 2";
    let t = typing(&send(class, true), TYPED, at_primary()).unwrap();
    assert_eq!(
        typed(&t),
        ["class A:\n    def f(self): return 1\n    def g(self): return 2\n"]
    );
    let unseen = || Repl {
        prompts_unseen: true,
        ..at_primary()
    };
    let t = typing(&send(class, true), TYPED, unseen()).unwrap();
    assert_eq!(
        typed(&t),
        ["class A:\n    def f(self): return 1\n    def g(self): return 2\n\n"]
    );
    let total = "total = 0\nfor i in range(3):\n    total += i\n\n    total += 100\n\nprint(total)";
    let t = typing(&send(total, true), TYPED, unseen()).unwrap();
    assert_eq!(
        typed(&t),
        ["total = 0\nfor i in range(3):\n    total += i\n    total += 100\n\nprint(total)\n"]
    );
    // A last line that opens a block with none of its lines yet still waits for them.
    let t = typing(&send("x = 1\nif x:", true), TYPED, unseen()).unwrap();
    assert_eq!(typed(&t), ["x = 1\nif x:\n"]);
}

/// A newline ending simple statements is their Enter: no empty line follows it for an
/// `input()` they call to take as its answer. A block still gets the empty line that ends
/// it, with or without a newline of its own.
#[test]
fn a_newline_ending_simple_statements_is_their_enter() {
    for (text, sent) in [
        ("input('r? ')\n", "input('r? ')\r"),
        ("x = 1\r\ny = input('y? ')\n", "x = 1\ny = input('y? ')\n"),
    ] {
        let t = typing(&send(text, true), TYPED, at_primary()).unwrap();
        assert_eq!(typed(&t).concat(), sent, "{text:?}");
    }
    let t = typing(&send("input('r? ')\n", true), PASTES, at_primary()).unwrap();
    assert_eq!(typed(&t), ["input('r? ')\r"]);
    for text in [
        "def f():\n    return 1\n",
        "if x: y()\n",
        "@cache\ndef f(): pass\n",
    ] {
        let t = typing(&send(text, true), TYPED, at_primary()).unwrap();
        let sent = typed(&t).concat();
        let enters = sent.len() - sent.trim_end_matches(['\n', '\r']).len();
        assert_eq!(enters, 2, "{text:?}: {sent:?}");
    }
}

#[test]
fn lines_that_go_on_with_a_block_then_a_statement_end_the_block_between() {
    let text = "    y += 1\n    return y\nprint(k())";
    let t = typing(
        &send(text, true),
        TYPED,
        at_continuation("def k():\n    y = 1\n", None),
    )
    .unwrap();
    assert_eq!(typed(&t), ["    y += 1\n    return y\n\nprint(k())\n"]);
    assert_eq!(t.holds.as_deref(), Some("print(k())\n"));
    // To a REPL that takes pastes: its indent deleted, the lines pasted, the empty line,
    // then the statement once it reads again.
    let t = typing(
        &send(text, true),
        PASTES,
        at_continuation("def k():\n    y = 1\n", Some(4)),
    )
    .unwrap();
    assert_eq!(
        typed(&t),
        [
            "\u{15}\u{1b}[200~    y += 1\r    return y\u{1b}[201~\r",
            "\r",
            "print(k())\r",
        ]
    );
    assert_eq!(t.indent_cleared, 4);
    // With the block's start not known, the indented first line still goes on with it.
    let t = typing(
        &send(text, true),
        TYPED,
        Repl {
            typed: None,
            ..at_continuation("", None)
        },
    )
    .unwrap();
    assert_eq!(typed(&t), ["    y += 1\n    return y\n\nprint(k())\n"]);
}

#[test]
fn a_new_statement_ends_the_open_block_first_and_a_line_of_it_keeps_its_indent() {
    let block = "def g():\n    return 7\n";
    let t = typing(
        &send("print(g())", true),
        TYPED,
        at_continuation(block, None),
    )
    .unwrap();
    assert_eq!(typed(&t), ["\rprint(g())\r"]);
    let t = typing(
        &send("else:", true),
        PASTES,
        at_continuation("if a:\n    b\n", Some(4)),
    )
    .unwrap();
    assert_eq!(typed(&t), ["\u{15}else:\r"]);
    assert_eq!(t.holds.as_deref(), Some("if a:\n    b\nelse:\n"));
}

#[test]
fn a_line_sent_without_enter_goes_on_with_the_next_send() {
    let t = typing(
        &send("    return ", false),
        TYPED,
        at_continuation("def g():\n", None),
    )
    .unwrap();
    assert_eq!(typed(&t), ["    return "]);
    let holds = t.holds.unwrap();
    assert_eq!(holds, "def g():\n    return ");
    // The next send finishes the line (no prompt shows on its own then): still the block.
    let repl = Repl {
        at_continuation: false,
        line_unended: true,
        ..at_continuation(&holds, None)
    };
    let t = typing(&send("7", true), TYPED, repl).unwrap();
    assert_eq!(typed(&t), ["7\r"]);
    let holds = t.holds.unwrap();
    assert_eq!(holds, "def g():\n    return 7\n");
    // And the statement after it ends the block first.
    let t = typing(
        &send("print(g())", true),
        TYPED,
        at_continuation(&holds, None),
    )
    .unwrap();
    assert_eq!(typed(&t), ["\rprint(g())\r"]);
    // A partial line at the primary prompt is tracked too.
    let t = typing(&send("x = ", false), TYPED, at_primary()).unwrap();
    assert_eq!(t.holds.as_deref(), Some("x = "));
}

/// After text without Enter, the next send's first newline is that line's Enter: a simple
/// statement runs, a block gets the empty line that ends it, then the statements after.
#[test]
fn a_first_newline_ends_the_line_left_unended() {
    let unended = |holds: &str| Repl {
        at_primary: true,
        line_unended: true,
        typed: Some(holds.to_owned()),
        ..at_primary()
    };
    let t = typing(&send("\nprint(x0)", true), TYPED, unended("x0 = 0")).unwrap();
    assert_eq!(typed(&t), ["\nprint(x0)\n"]);
    let t = typing(&send("\nprint(x0)", true), PASTES, unended("x0 = 0")).unwrap();
    assert_eq!(t.steps.as_ref().map(Vec::len), Some(1), "{t:?}");
    let t = typing(
        &send("\n\nprint(q())", true),
        TYPED,
        unended("def q():\n    return 7"),
    )
    .unwrap();
    assert_eq!(typed(&t), ["\n\nprint(q())\n"]);
}

/// Text without Enter to the basic REPL: the blank lines inside its last statement go (the
/// first would end the block), the statements before it run first, and the REPL holds the
/// last one.
#[test]
fn text_without_enter_keeps_its_block_whole() {
    let t = typing(
        &send("def h():\n    x = 1\n\n    return x", false),
        TYPED,
        at_primary(),
    )
    .unwrap();
    assert_eq!(typed(&t), ["def h():\n    x = 1\n    return x"]);
    assert_eq!(
        t.holds.as_deref(),
        Some("def h():\n    x = 1\n    return x")
    );
    let t = typing(
        &send("a = 5\n\ndef g():\n    b = 1\n\n    return a + b", false),
        TYPED,
        at_primary(),
    )
    .unwrap();
    assert_eq!(typed(&t), ["a = 5\ndef g():\n    b = 1\n    return a + b"]);
    assert_eq!(
        t.holds.as_deref(),
        Some("def g():\n    b = 1\n    return a + b")
    );
    // Nothing to reshape: one line, or lines with no blank one inside a statement (several
    // statements each go as their line).
    for text in [
        "x = ",
        "def f():\n    return 1",
        "print(1)\nprint(2)\nprint(3)",
        "a=1\nb=2\nif a:\n    print(a+b)",
    ] {
        let t = typing(&send(text, false), TYPED, at_primary()).unwrap();
        assert_eq!(typed(&t), [text], "{text:?}");
    }
}

/// After a line that opens a block (or a decorator) typed without Enter, the next send's
/// first newline ends that line: it is not a blank line of the block, dropped (the lines were
/// joined: `for i in range(2):    if i:`).
#[test]
fn a_first_newline_after_an_unended_block_header_ends_it() {
    let unended = |holds: &str| Repl {
        at_primary: true,
        line_unended: true,
        typed: Some(holds.to_owned()),
        ..at_primary()
    };
    let t = typing(
        &send(
            "\n    if i:\n        print(i)\n\n    else:\n        print(0)",
            true,
        ),
        TYPED,
        unended("for i in range(2):"),
    )
    .unwrap();
    assert_eq!(
        typed(&t),
        ["\n    if i:\n        print(i)\n    else:\n        print(0)\r"]
    );
    // The REPL holds the header and the lines after it: one statement.
    assert!(
        t.holds
            .as_deref()
            .is_some_and(|h| h.starts_with("for i in range(2):\n    if i:\n")),
        "{t:?}"
    );
    let t = typing(
        &send("\ndef g(): return 1\nprint(g())", true),
        TYPED,
        unended("@staticmethod"),
    )
    .unwrap();
    assert_eq!(typed(&t), ["\ndef g(): return 1\n\nprint(g())\n"]);
    // Several statements typed without Enter, the last a block: its end is the send's first
    // newline and the empty line after it.
    let t = typing(
        &send("\nprint('after')", true),
        PASTES,
        unended("u=1\nfor k in range(3):\n    print(k)"),
    )
    .unwrap();
    assert_eq!(t.steps.as_ref().map(Vec::len), Some(2), "{t:?}");
}
