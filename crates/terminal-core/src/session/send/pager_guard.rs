//! A shell command sent to a pager: a pager (`less`, `more`) takes every key as a command of
//! its own, so a command line a model meant for the shell (`ls -la` while `less` still shows a
//! file) would run as pager commands, some with side effects (`less` takes `s` as "save the
//! input to a file", naming the file after the rest of the line). Such a send is refused
//! before anything is typed, with the way out (quit the pager first, or send the keys with
//! `submit: false`).

use std::path::Path;

use crate::error::TerminalError;

/// Programs that take every key as a command and page their input (`pager`: Debian's
/// alternatives name for the system's pager).
const PAGERS: &[&str] = &["less", "more", "most", "pg", "pager"];

/// Bash's builtins and keywords: a command line may start with any of them (besides programs
/// on `PATH`).
const SHELL_WORDS: &[&str] = &[
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "case",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "coproc",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "for",
    "function",
    "getopts",
    "hash",
    "help",
    "history",
    "if",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "select",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "time",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "until",
    "wait",
    "while",
];

/// Whether a line of `text` starts, after any `NAME=value` assignments, with a word that names
/// a shell builtin or keyword, or a program on `path` (the `PATH` to search): a command line
/// meant for the shell (every line is one Enter for the pager: `G` and then `ls -la`).
pub(super) fn names_a_command(text: &str, path: Option<&str>) -> bool {
    text.lines().any(|line| {
        command_word(line).is_some_and(|word| SHELL_WORDS.contains(&word) || on_path(word, path))
    })
}

/// Whether `row` (the cursor row's text before the cursor) is a pager's own prompt that reads
/// a line: a search (`/`, `?`), a filter (`&`), a shell command (`!`, `|`), an option (`-`,
/// `+`), or a named prompt (`Examine: `, `log file: `). Text sent with Enter there ends that
/// line, as the model typed it without Enter before.
pub(super) fn at_line_prompt(row: &str) -> bool {
    row.starts_with(['/', '?', '&', '!', '|', '-', '+', '#']) || row.contains(": ")
}

/// The refusal of `text`, a command line ([`names_a_command`]) sent with Enter, when
/// `program`, reading the terminal's keys, is a pager. `None`: it goes as sent.
pub(super) fn refusal(program: &str, text: &str) -> Option<TerminalError> {
    if !PAGERS.contains(&program) {
        return None;
    }
    let line = text.lines().next().unwrap_or(text).trim();
    Some(TerminalError::invalid(format!(
        "{program} (a pager) holds the terminal and takes every key as a command of its own: \
         `{line}` sent with Enter would run as {program} commands (some write files), not in \
         the shell, so nothing was typed; quit {program} first (send q with submit: false), \
         then send the command again; to give {program} these keys anyway, send them with \
         submit: false"
    )))
}

/// The first word of `line` after any `NAME=value` assignments, when it could name a command:
/// two characters or more, a letter or `_` first, then letters, digits, `_`, `.`, `+` or `-`
/// (pager commands start with `/`, `?`, `:`, `-`, `&`, `!` or a count, or are one key).
fn command_word(line: &str) -> Option<&str> {
    let word = line.split_whitespace().find(|word| !is_assignment(word))?;
    let mut chars = word.chars();
    let first = chars.next()?;
    let ok = word.len() >= 2
        && (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-'));
    ok.then_some(word)
}

/// Whether `word` is a shell variable assignment (`FOO=1`).
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Whether `word` names an executable file in a directory of `path` (`PATH`'s form).
fn on_path(word: &str, path: Option<&str>) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.unwrap_or_default()
        .split(':')
        .filter(|dir| !dir.is_empty())
        .any(|dir| {
            Path::new(dir)
                .join(word)
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: Option<&str> = Some("/usr/local/bin:/usr/bin:/bin");

    #[test]
    fn a_command_line_to_a_pager_is_refused() {
        for text in [
            "ls -la",
            "echo hi",
            "cd /tmp",
            "git status",
            "exit",
            "cat x | head",
        ] {
            assert!(names_a_command(text, PATH), "{text}");
            let e = refusal("less", text).expect("refused").to_string();
            assert!(e.starts_with("less (a pager) holds the terminal"), "{e}");
        }
        insta::assert_snapshot!(refusal("less", "ls -la\nls").expect("refused").to_string());
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
        assert!(!names_a_command("ls", None));
        // Not a pager.
        assert!(refusal("vim", "echo hi").is_none());
        assert!(refusal("python3", "echo hi").is_none());
        assert!(refusal("pager", "ls -la").is_some());
    }
}
