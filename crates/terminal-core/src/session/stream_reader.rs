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

/// How much a program told to read a counted amount takes of the terminal in canonical mode,
/// where each `read` returns at most one line: `head -c N` N bytes (over as many lines as it
/// takes), `head -n N` N lines, `dd` `count` reads of at most `ibs` (or `bs`, 512) bytes each,
/// each ending at a line's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::session) enum CountedRead {
    Bytes(u64),
    Lines(u64),
    Blocks { size: u64, count: u64 },
}

impl CountedRead {
    /// How much it reads, for the model: `5 bytes (characters) of its input`.
    pub(in crate::session) fn takes(self) -> String {
        match self {
            Self::Bytes(n) => format!("{n} bytes (characters) of its input"),
            Self::Lines(n) => format!("{n} line(s) of its input"),
            Self::Blocks { size, count } => {
                format!("{count} read(s) of at most {size} bytes each (each up to a line's end)")
            }
        }
    }
}

/// The counted read of `comm` run with `args`, when [`reads_a_counted_amount`] and its count
/// can be told (`head -c 5`, `-c 1K`, `-n 2`, `-3`, `dd bs=1 count=1`); `None` otherwise.
pub(in crate::session) fn counted_read(comm: &str, args: &[String]) -> Option<CountedRead> {
    if !reads_a_counted_amount(comm, args) {
        return None;
    }
    match comm {
        "head" => {
            let mut found = None;
            let mut it = args.iter().map(String::as_str);
            while let Some(arg) = it.next() {
                let (bytes, value) = if let Some(v) = arg.strip_prefix("--bytes=") {
                    (true, Some(v))
                } else if let Some(v) = arg.strip_prefix("--lines=") {
                    (false, Some(v))
                } else if matches!(arg, "-c" | "--bytes") {
                    (true, it.next())
                } else if matches!(arg, "-n" | "--lines") {
                    (false, it.next())
                } else if let Some(v) = arg.strip_prefix("-c") {
                    (true, Some(v))
                } else if let Some(v) = arg.strip_prefix("-n") {
                    (false, Some(v))
                } else if let Some(v) = arg
                    .strip_prefix('-')
                    .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                {
                    (false, Some(v))
                } else {
                    continue;
                };
                let n = size(value?)?;
                found = Some(if bytes {
                    CountedRead::Bytes(n)
                } else {
                    CountedRead::Lines(n)
                });
            }
            found
        }
        "dd" => {
            let value = |key: &str| {
                args.iter()
                    .rev()
                    .find_map(|a| a.strip_prefix(key))
                    .map(size)
            };
            let count = value("count=")??;
            let block = match value("ibs=") {
                Some(ibs) => ibs?,
                None => value("bs=").unwrap_or(Some(512))?,
            };
            // `iflag=count_bytes`, `fullblock`: counted otherwise; not told here.
            if args.iter().any(|a| a.starts_with("iflag=")) {
                return None;
            }
            Some(CountedRead::Blocks { size: block, count })
        }
        _ => None,
    }
}

/// A count as coreutils writes one: digits, then an optional multiplier suffix (`K`, `M`,
/// `G`, `KB`, `KiB`, `b` for 512, `c`, `w`, `x` products left out: `None`).
fn size(value: &str) -> Option<u64> {
    let digits = value.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = value[..digits].parse().ok()?;
    let factor: u64 = match &value[digits..] {
        "" | "c" => 1,
        "w" => 2,
        "b" => 512,
        "kB" | "KB" => 1000,
        "K" | "k" | "KiB" => 1024,
        "MB" => 1000 * 1000,
        "M" | "MiB" => 1024 * 1024,
        "GB" => 1000 * 1000 * 1000,
        "G" | "GiB" => 1024 * 1024 * 1024,
        _ => return None,
    };
    n.checked_mul(factor)
}

/// What of `input` (the bytes a send types: its lines and their line ends) a counted reader
/// (`read`) leaves unread in canonical mode: the text the next reader, the shell, takes.
pub(in crate::session) fn left_unread(read: CountedRead, input: &[u8]) -> &[u8] {
    match read {
        CountedRead::Bytes(n) => {
            &input[usize::try_from(n).unwrap_or(usize::MAX).min(input.len())..]
        }
        CountedRead::Lines(n) => {
            let mut at = 0;
            for _ in 0..n {
                match input[at..].iter().position(|&b| b == b'\n') {
                    Some(end) => at += end + 1,
                    None => return &[],
                }
            }
            &input[at..]
        }
        CountedRead::Blocks { size, count } => {
            let size = usize::try_from(size).unwrap_or(usize::MAX).max(1);
            let mut at = 0;
            for _ in 0..count {
                if at >= input.len() {
                    return &[];
                }
                let line_end = input[at..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(input.len(), |end| at + end + 1);
                at = line_end.min(at.saturating_add(size));
            }
            &input[at..]
        }
    }
}

/// The counted read of the process `pid` (its `/proc` comm and command line), if any.
pub(in crate::session) fn counted_read_of(pid: i32) -> Option<(String, CountedRead)> {
    let comm = crate::process::stat(pid)?.comm;
    if !reads_to_end_of_input(&comm) {
        return None;
    }
    let line = crate::process::cmdline(pid)?;
    let args: Vec<String> = line
        .split(|&b| b == 0)
        .skip(1)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    counted_read(&comm, &args).map(|read| (comm, read))
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

    /// The count a counted reader takes, and what of a line it leaves to the shell.
    #[test]
    fn counted_reads_leave_the_rest_of_a_line_unread() {
        let args = |line: &str| line.split(' ').map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(
            counted_read("head", &args("-c 5")),
            Some(CountedRead::Bytes(5))
        );
        assert_eq!(
            counted_read("head", &args("-c1K")),
            Some(CountedRead::Bytes(1024))
        );
        assert_eq!(
            counted_read("head", &args("--lines=2")),
            Some(CountedRead::Lines(2))
        );
        assert_eq!(
            counted_read("head", &args("-3")),
            Some(CountedRead::Lines(3))
        );
        assert_eq!(
            counted_read("dd", &args("bs=1 count=1")),
            Some(CountedRead::Blocks { size: 1, count: 1 })
        );
        assert_eq!(
            counted_read("dd", &args("count=2")),
            Some(CountedRead::Blocks {
                size: 512,
                count: 2
            })
        );
        assert_eq!(counted_read("head", &args("-c -5")), None);
        assert_eq!(counted_read("head", &args("-c 5x")), None);
        assert_eq!(counted_read("dd", &args("bs=1")), None);

        let bytes5 = CountedRead::Bytes(5);
        assert_eq!(left_unread(bytes5, b"abcdefgh\n"), b"fgh\n");
        assert_eq!(left_unread(bytes5, b"abcde\n"), b"\n");
        assert_eq!(left_unread(bytes5, b"ab\n"), b"");
        let dd = CountedRead::Blocks { size: 1, count: 1 };
        assert_eq!(left_unread(dd, b"yecho x\n"), b"echo x\n");
        assert_eq!(left_unread(dd, b"y\n"), b"\n");
        let lines = CountedRead::Blocks {
            size: 512,
            count: 1,
        };
        assert_eq!(left_unread(lines, b"one\ntwo\n"), b"two\n");
        assert_eq!(left_unread(CountedRead::Lines(2), b"a\nb\nc\n"), b"c\n");
        assert_eq!(left_unread(CountedRead::Lines(2), b"a\nb\n"), b"");
    }

    /// The filters that may ask are filters: the rest of the rule applies to them too.
    #[test]
    fn filters_that_may_ask_are_filters() {
        for name in ASKING {
            assert!(reads_to_end_of_input(name), "{name}");
        }
    }
}
