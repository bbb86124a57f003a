//! Whether a foreground program reading the terminal takes it as a stream of data to the end
//! of input (`cat > notes.txt`, `sort`, `wc -l` with no file), told from its name: each line
//! sent is more of its input, and only an end of input (Ctrl-D at the start of a line) or a
//! signal ends it. An agent that expected a prompt back needs to be told how.
//!
//! A program with such a name that asks a question reads the terminal for its answer, not as
//! data: `gzip -k a.txt` asking whether to overwrite `a.txt.gz`, an awk script's `getline`
//! after `Continue? [y/N] `. A line sent then answers the question, as one sent to `rm -i`'s
//! does (the send says so, not that it would be data), and no end of input is owed.

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

    /// The filters that may ask are filters: the rest of the rule applies to them too.
    #[test]
    fn filters_that_may_ask_are_filters() {
        for name in ASKING {
            assert!(reads_to_end_of_input(name), "{name}");
        }
    }
}
