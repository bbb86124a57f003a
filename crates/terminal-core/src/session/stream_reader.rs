//! Whether a foreground program reading the terminal takes it as a stream of data to the end
//! of input (`cat > notes.txt`, `sort`, `wc -l` with no file), told from its name: each line
//! sent is more of its input, and only an end of input (Ctrl-D at the start of a line) or a
//! signal ends it. An agent that expected a prompt back needs to be told how.

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
}
