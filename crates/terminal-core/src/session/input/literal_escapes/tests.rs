use super::*;

/// `text` to the shell's line editor: why its first literal ESC is one, and on which line.
fn shell(text: &str) -> Option<(usize, Literal)> {
    literal_escape(text, Syntax::Shell).map(|found| (found.line, found.why))
}

/// `text` to a REPL's line editor, as [`shell`].
fn repl(text: &str) -> Option<(usize, Literal)> {
    literal_escape(text, Syntax::Repl).map(|found| (found.line, found.why))
}

#[test]
fn an_esc_in_a_string_a_here_document_or_amid_the_text_is_a_character() {
    assert_eq!(
        shell("echo '\x1b[31mred\x1b[0m' | od -c | head -3"),
        Some((1, Literal::Quoted))
    );
    assert_eq!(shell("echo \"\x1b\" x"), Some((1, Literal::Quoted)));
    assert_eq!(shell("echo $'\x1b' x"), Some((1, Literal::Quoted)));
    assert_eq!(
        shell("echo 'a\n\x1b[1mb'"),
        Some((2, Literal::Quoted)),
        "a quote open over a line end"
    );
    assert_eq!(
        shell("cat > ansi.txt <<'EOF'\n\x1b[1mBold\x1b[0m plain\nEOF"),
        Some((2, Literal::HereDocument))
    );
    assert_eq!(
        shell("cat <<-END | od -c\n\tplain\n\tx\x1b\n\tEND"),
        Some((3, Literal::HereDocument))
    );
    assert_eq!(shell("printf \x1b[1mX"), Some((1, Literal::OutputSequence)));
    assert_eq!(shell("\x1b[2J"), Some((1, Literal::OutputSequence)));
    assert_eq!(shell("echo A\x1bbZ"), Some((1, Literal::AmidText)));
    assert_eq!(
        repl("s = '\x1b[31mred\x1b[0m'\nprint(len(s), repr(s))"),
        Some((1, Literal::Quoted))
    );
    assert_eq!(
        repl("print(\"it's\")\ns = \"\x1b[1m\""),
        Some((2, Literal::Quoted)),
        "an apostrophe inside a string opens none"
    );
    assert_eq!(
        repl("s = '''\n\x1b[1m\n'''"),
        Some((2, Literal::Quoted)),
        "a triple-quoted string over lines"
    );
}

#[test]
fn keys_stay_keys() {
    for keys in [
        "\x1b[A",
        "\x1b[1;5D",
        "\x1bb",
        "\x1b.",
        "\x1b",
        "\x1b\x1b[A",
        "\x1bOH",
        "\x1b[<0;3;4m",
        "\x1b[A\x1b[Dx",
        "ls\x1b[D\x1b[Dx",
        "echo \x1b.",
        "cd \x1b[A",
        "\x1bbhello ",
    ] {
        assert_eq!(shell(keys), None, "{keys:?}");
        assert_eq!(repl(keys), None, "{keys:?}");
    }
    assert_eq!(
        shell("vim f\nihello\x1b:wq"),
        None,
        "keys to the program an earlier line started"
    );
    assert_eq!(
        shell("echo one\necho '\x1b[1m'"),
        None,
        "what reads after a complete command is not known here"
    );
    assert_eq!(
        shell("cat <<EOF\nplain\nEOF\nvim f\n\x1b:q"),
        None,
        "after the here-document ends"
    );
    assert_eq!(
        shell("echo hi # it's\x1b[A"),
        None,
        "an apostrophe in a comment opens no quote"
    );
    assert_eq!(repl("# it's\n\x1b[A"), None);
    assert_eq!(
        repl("exit()\n\x1b[1mX"),
        None,
        "the lines after a quit go to the shell"
    );
    assert_eq!(shell("echo plain 'text'"), None);
}

#[test]
fn the_refusal_names_the_line_and_the_escapes_to_write() {
    let found = LiteralEscape {
        line: 2,
        why: Literal::HereDocument,
    };
    let err = literal_escape_error(found, true);
    assert_eq!(err.code(), crate::error::TerminalErrorCode::InvalidRequest);
    let expected = "nothing was sent: line 2 of the text holds an ESC character (\\u001b) inside a here-document's body";
    assert!(err.message().starts_with(expected), "{err}");
    assert!(err.message().contains("printf '\\033[31m"), "{err}");
    let err = literal_escape_error(found, false);
    assert!(err.message().contains("'\\x1b[31m'"), "{err}");
    let expected = "[input: line 3 of the input and the lines after it were not typed (the lines before it were): it holds an ESC character (\\u001b) inside a quoted string";
    let notice = literal_escape_notice(3, Literal::Quoted);
    assert!(notice.starts_with(expected), "{notice}");
}
