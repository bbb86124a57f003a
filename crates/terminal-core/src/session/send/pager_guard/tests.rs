use super::*;

const PATH: Option<&str> = Some("/usr/local/bin:/usr/bin:/bin");

#[test]
fn a_question_with_one_key_choices_is_told_apart() {
    assert!(is_choice_question(
        "[O]pen Read-Only, (E)dit anyway, (R)ecover, (D)elete it, (Q)uit, (A)bort: "
    ));
    assert!(is_choice_question("Save changes? (Y)es, (N)o, (C)ancel?"));
    for row in [
        "\"notes.txt\" [New]",
        "-- INSERT --",
        "E37: No write since last change (add ! to override)",
        ":wq",
        "(a)",
    ] {
        assert!(!is_choice_question(row), "{row}");
    }
    insta::assert_snapshot!(choice_refusal("vim", "(Q)uit, (A)bort:", "git status").to_string());
}

#[test]
fn a_command_line_to_a_pager_is_refused() {
    for text in [
        "ls -la",
        "echo hi",
        "cd /tmp",
        "git status",
        "exit",
        "cat x | head",
        "disown -a",
        "help set",
        "command ls -la",
        "FOO=1 ls -la",
        "G\nls -la",
        "ls|wc",
        "ls>x",
        "sort<n.txt",
        "ls;pwd",
        "ls&&pwd",
        "[ -f n.txt ] || sed -n 1p n.txt",
        "{ ls; }",
        "\\ls -la",
        "\"ls\" -la",
        "./run.sh --fast",
        "~/bin/tool x",
        "2>/dev/null ls -la",
        "select f in *.txt; do echo $f; done",
        "select opt; do break; done",
    ] {
        assert!(names_a_command(text, PATH), "{text}");
        let e = refusal("less", text).to_string();
        assert!(e.starts_with("less (a pager) holds the terminal"), "{e}");
    }
    insta::assert_snapshot!(refusal("less", "ls -la\nls").to_string());
    insta::assert_snapshot!("vim", editor_refusal("vim", "git status").to_string());
    insta::assert_snapshot!(
        "vim_hit_enter",
        hit_enter_refusal("vim", "echo ok").to_string()
    );
}

#[test]
fn words_of_text_are_told_from_vims_keys() {
    for line in [
        "Initial commit",
        "Add more lines to f",
        "  Fix the bug  ",
        "Ça marche très bien",
        "fix: handle null values",
        "chore: bump deps",
        "2 files changed",
        "refactor",
        "cleanup",
        "hello",
        "Done",
    ] {
        assert!(is_prose(line), "{line}");
    }
    for line in [
        "dd",
        "gg dG",
        "dd j",
        "3dd",
        ":s/foo bar/baz qux/",
        "/some words",
        "ZZ",
        "ciw",
        "ifirst line",
        "oanother line below",
        "xp",
        "dw",
        "yyp",
        "dG",
        "Gdd",
        "ZZ",
        "3j",
        "A  # population variance\u{1b}",
        "Ifix: handle it\u{1b}",
    ] {
        assert!(!is_prose(line), "{line}");
    }
    insta::assert_snapshot!(prose_refusal("vi", "Initial commit").to_string());
    insta::assert_snapshot!(
        "pending_command",
        pending_command_refusal("vim", ":wq", "git status").to_string()
    );
}

#[test]
fn a_pagers_line_prompts_are_told_from_its_command_prompt() {
    for row in [
        "/ls",
        "?echo",
        "&err",
        "!ls",
        "-S",
        "Examine: x",
        "log file: ",
    ] {
        assert!(at_line_prompt(row), "{row}");
    }
    for row in [":", "(END)", "big.txt", "big.txt lines 1-39/5000 1%"] {
        assert!(!at_line_prompt(row), "{row}");
    }
}

#[test]
fn pager_keys_and_other_programs_go_through() {
    // Pager keys and searches.
    for text in [
        "q", "/pattern", "?back", ":n", "-S", "10G", "G", "", "ZZ", "!ls -la",
    ] {
        assert!(!names_a_command(text, PATH), "{text}");
    }
    // Words that name nothing.
    assert!(!names_a_command("nosuchcommand-xyz now", PATH));
    // SQL at a database's prompt is no bash `select` loop.
    for text in [
        "select 1;",
        "select * from users;",
        "SELECT id FROM t",
        "select count(*) from t",
    ] {
        assert!(!names_a_command(text, PATH), "{text}");
    }
    assert!(!names_a_command("ls", None));
    // vim's keys: a word alone, or no command.
    for text in ["dd", "gg", "ciw", "yy", "ls"] {
        assert!(!has_a_command_with_arguments(text, PATH), "{text}");
    }
    assert!(has_a_command_with_arguments("git status", PATH));
    assert!(has_a_command_with_arguments("FOO=1 make all", PATH));
    // vim's normal-mode lines: up to one that leaves it or enters insert mode.
    assert_eq!(lines_in_normal_mode(":w\nmake test"), ":w\nmake test");
    assert_eq!(lines_in_normal_mode("ihello\ngit status"), "ihello");
    assert_eq!(lines_in_normal_mode(":wq\ngit status"), ":wq");
    assert_eq!(
        lines_in_normal_mode("Go    y = 2\n    if y:"),
        "Go    y = 2"
    );
    assert_eq!(lines_in_normal_mode("dd\nG\nmake all"), "dd\nG\nmake all");
    // Lines after one that quits the pager are the shell's.
    assert_eq!(lines_to_the_pager("G\nls -la"), "G\nls -la");
    assert_eq!(lines_to_the_pager("q\nls -la"), "");
}
