//! Whether a foreground program reading the terminal takes it as a stream of data to the end
//! of input (`cat > notes.txt`, `sort`, `wc -l` with no file), told from its name: each line
//! sent is more of its input, and only an end of input (Ctrl-D at the start of a line) or a
//! signal ends it. An agent that expected a prompt back needs to be told how.
//!
//! A program with such a name that asks a question reads the terminal for its answer, not as
//! data: `gzip -k a.txt` asking whether to overwrite `a.txt.gz`, an awk script's `getline`
//! after `Continue? [y/N] `. A line sent then answers the question, as one sent to `rm -i`'s
//! does (the send says so, not that it would be data), and no end of input is owed.
//!
//! Nor does one told to read a counted amount (`x=$(head -c 1)`, `head -n 2`, `dd bs=1
//! count=1`): it ends once it has that much, so the line sent is all of its input, and the
//! next line goes to whatever reads after it (the shell).

use crate::process::StatInfo;

use super::observe::ends_like_a_question;

/// Programs that, when they read the terminal at all, read it as their input to the end:
/// text filters, checksums, encoders and compressors with no file operand.
const STREAM_READERS: [&str; 53] = [
    "cat",
    "tac",
    "tee",
    "sort",
    "uniq",
    "wc",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "sed",
    "awk",
    "gawk",
    "mawk",
    "tr",
    "cut",
    "paste",
    "nl",
    "fold",
    "fmt",
    "column",
    "rev",
    "base64",
    "base32",
    "xxd",
    "od",
    "hexdump",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "cksum",
    "gzip",
    "bzip2",
    "xz",
    "zstd",
    "jq",
    "xargs",
    "dd",
    "expand",
    "unexpand",
    "strings",
    "iconv",
    "shuf",
    "tsort",
    "envsubst",
    "diff",
    "comm",
    "pr",
    "b2sum",
    "numfmt",
    "basenc",
];

/// Whether a program named `name` (its `/proc` comm) reads the terminal to the end of input.
pub(super) fn reads_to_end_of_input(name: &str) -> bool {
    STREAM_READERS.contains(&name)
}

/// Filters that may ask a question of their own on the terminal: awk's scripts (`printf
/// "Continue? [y/N] "; getline a < "/dev/tty"`) and compressors asking whether to overwrite
/// the file they would write. The others never print a question: one before them on the
/// cursor's row is another program's (`printf 'Paste the text: '; cat > notes.txt`), and they
/// read their data after it.
const ASKING: [&str; 7] = ["awk", "gawk", "mawk", "gzip", "bzip2", "xz", "zstd"];

/// Whether `reader`, a process reading the terminal, reads it as its data to the end of input:
/// it is named like a filter ([`reads_to_end_of_input`]), its standard input is the terminal,
/// and it asks no question. It asks one when it holds a file it was given open to read (`gzip
/// -k a.txt`, `gunzip -k a.txt.gz`: a filter reading its file operands reads the terminal only
/// to ask), or, one that may ask ([`ASKING`]), when text it printed without a line end waits
/// before the cursor as a prompt (`cursor_row`, the cursor row's text before the cursor, ends
/// like a question: `… do you wish to overwrite (y or n)?`, `Continue? [y/N]`, `Password:`).
/// Blocking `/proc` reads, made only for a filter's name.
pub(super) fn reads_terminal_as_data(reader: &StatInfo, cursor_row: Option<&str>) -> bool {
    let comm = reader.comm.as_str();
    reads_to_end_of_input(comm)
        && !(ASKING.contains(&comm) && cursor_row.is_some_and(ends_like_a_question))
        && crate::process::stdin_is_terminal(reader.pid)
        && !crate::process::holds_a_file_to_read(reader.pid)
        && !crate::process::cmdline(reader.pid).is_some_and(|line| {
            let args: Vec<String> = line
                .split(|&b| b == 0)
                .skip(1)
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            reads_a_counted_amount(comm, &args)
        })
}

/// Whether `comm` run with `args` (its command line after the program) reads a counted amount
/// of its input and ends: `head` with a count of bytes or lines (`-c 1`, `-n2`, `--bytes=1`,
/// `-3`; not `-c -5`, all but the last five, which reads to the end), `dd` with `count=`.
fn reads_a_counted_amount(comm: &str, args: &[String]) -> bool {
    match comm {
        "head" => {
            let counted = |value: &str| !value.is_empty() && !value.starts_with('-');
            let mut args = args.iter().map(String::as_str);
            while let Some(arg) = args.next() {
                if let Some(value) = ["--bytes=", "--lines="]
                    .iter()
                    .find_map(|option| arg.strip_prefix(option))
                {
                    return counted(value);
                }
                if matches!(arg, "-c" | "-n" | "--bytes" | "--lines") {
                    return args.next().is_some_and(counted);
                }
                if let Some(value) = arg.strip_prefix("-c").or_else(|| arg.strip_prefix("-n")) {
                    return counted(value);
                }
                if arg
                    .strip_prefix('-')
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                {
                    return true;
                }
            }
            false
        }
        "dd" => args.iter().any(|arg| arg.starts_with("count=")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_read_to_the_end_and_interactive_programs_do_not() {
        for name in ["cat", "sort", "wc", "tee", "jq"] {
            assert!(reads_to_end_of_input(name), "{name}");
        }
        for name in ["bash", "python3", "node", "less", "vim", "read"] {
            assert!(!reads_to_end_of_input(name), "{name}");
        }
    }

    /// A filter told to read a counted amount ends once it has it: no stream to the end.
    #[test]
    fn counted_reads_are_no_streams() {
        let args = |line: &str| line.split(' ').map(str::to_owned).collect::<Vec<_>>();
        for (comm, line) in [
            ("head", "-c 1"),
            ("head", "-c1"),
            ("head", "-n 2"),
            ("head", "--bytes=1"),
            ("head", "--lines 3"),
            ("head", "-3"),
            ("dd", "bs=1 count=1"),
        ] {
            assert!(reads_a_counted_amount(comm, &args(line)), "{comm} {line}");
        }
        for (comm, line) in [
            ("head", "-c -5"),
            ("head", "-q"),
            ("dd", "bs=1"),
            ("cat", "-n"),
        ] {
            assert!(!reads_a_counted_amount(comm, &args(line)), "{comm} {line}");
        }
    }

    /// The filters that may ask are filters: the rest of the rule applies to them too.
    #[test]
    fn filters_that_may_ask_are_filters() {
        for name in ASKING {
            assert!(reads_to_end_of_input(name), "{name}");
        }
    }
}
