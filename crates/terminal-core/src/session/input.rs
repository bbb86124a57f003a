//! The bytes one send writes: its text (and Enter) shaped the way a terminal would deliver
//! them to the program reading, as a pure function with table tests.
//!
//! - Multi-line text to a Python REPL that enabled bracketed paste (DECSET 2004: Python 3.13's,
//!   IPython) and takes a paste as a block of lines (not one reading with GNU readline, see
//!   [`pastes_blocks`]), not at a prompt of the program's own (`input('Name: ')`, prompt_toolkit's
//!   `prompt('Host: ')`, whose lines answer one prompt each), goes as one paste
//!   (`ESC [200~` … `ESC [201~`, newlines as carriage returns, as terminals paste), so its auto-indent never rewrites the block; trailing newlines and
//!   Enter stay keys after the paste. Several top-level statements go one per prompt, each
//!   block pasted and ended by an empty line ([`python_statement_steps`]): Python 3.13's REPL
//!   takes a multi-statement paste and Enter as an unfinished block, waiting for an empty
//!   line. Typed to a Python REPL without pastes (before 3.13), each block among several
//!   statements gets the empty line that ends it ([`python_separated`]). A send that starts a
//!   new statement while the REPL still reads lines of a block earlier sends typed (its `... `
//!   prompt) ends that block first with an Enter of its own ([`python_starts_statement`]).
//!   Other programs get
//!   several lines typed, one line each:
//!   a line editor such as GNU readline (sqlite3, psql) takes a paste as one line with the
//!   newlines in it (`.tables` and `.schema` pasted together run neither), see
//!   [`pastes_blocks`]. A single line over [`PASTE_LINE_MIN`] bytes goes as a paste to any
//!   program that enabled it: a line editor that redraws after every typed key takes a long
//!   line in one step only as a paste. So does a line with a TAB (one of several typed lines
//!   too): a line editor completes on a typed TAB, while a pasted one is a character. A TAB
//!   typed to a line editor (without pastes, as Python's REPL, or among other keys) goes after
//!   the quoted-insert key. Text
//!   that carries keys (ESC or another control character than TAB and line ends) is typed
//!   instead: a paste delivers them as literal characters (`ifirst\nsecond\x1b:wq` would
//!   leave `^[:wq` in vim's buffer). A full-screen program (the alternate screen) is typed to
//!   as well: its input is keys (vim's normal mode would insert a paste as text), see
//!   [`Reader::bracketed_paste`]; only text lines it reads in its insert mode go as a paste
//!   (see the send's `insert_paste`).
//! - A line longer than the terminal's canonical-mode limit ([`CANONICAL_LINE_MAX`] bytes) to a
//!   program that reads lines through the terminal's line editing is refused: the kernel
//!   would cut it silently. The first line counts what earlier sends typed into the same
//!   line without ending it (`submit: false`), which the kernel still holds.
//! - An escape sequence left unfinished (a lone ESC, `ESC [` or `ESC O` and parameters without
//!   a final byte) to the shell's own line editor at the prompt is closed with readline's
//!   abort key (Ctrl-G) where it stops: before the newline or Enter that follows it, or at the
//!   end of the input. Readline would otherwise take that Enter (or the next send's first key)
//!   as the sequence's end, and the line would neither run nor end. Other programs get the
//!   bytes as sent (editors time an ESC out themselves).
//! - An ESC meant as a character of the text (in a string, a here-document's body, amid the
//!   text) to a line editor at its prompt is refused: it would be read as a key (see
//!   [`literal_escapes`]).
//! - Windows line endings (`\r\n`) are one Enter each, as a lone `\r` or `\n` is: sent as
//!   is they would be two keys, and the shell would run an empty command after every line.
//! - Several lines to the shell's own line editor end with `\n` (C-j, Enter to readline), the
//!   last one too: a `\r` typed while readline had the terminal's CR-to-NL translation off
//!   would reach it as a character, never ending a line. The send then types them one at a
//!   time, each once the one before was taken up (see the send's pacing), so a line that
//!   starts a program reading the terminal hands it the next line whole.

use crate::error::{TerminalError, TerminalErrorCode};

mod commands;
mod cursor_keys;
mod here_documents;
mod line_notices;
mod line_syntax;
pub(super) mod literal_escapes;
mod open_construct;
mod python;
mod quoted_tabs;

pub use commands::holds_no_command;
pub(super) use commands::{
    continues_a_job, resets_the_terminal, sets_an_exiting_err_trap, submits_a_command,
    turns_on_errexit,
};
pub(super) use cursor_keys::application_cursor_keys;
pub(super) use line_notices::{
    PROMPTLESS_READ, asks_for_input, discarded_lines_notice, earlier_send_notice,
    line_left_prompt_notice, line_to_a_prompt_entry, line_to_a_prompt_notice,
    line_to_ended_prompt_notice, line_to_hidden_prompt_notice, line_to_programs_prompt_notice,
    line_to_statements_prompt_notice, line_to_waiting_prompt_notice, lines_to_prompts_notice,
    over_long_line_notice, reader_ended_lines_notice, shell_ended_lines_notice,
    typed_ahead_lines_notice,
};
pub(super) use line_syntax::{is_simple_command, starts_background_commands};
pub(super) use open_construct::{OpenConstruct, Opened, open_construct, typed_lines};
pub(super) use python::{
    BLOCK_END_KEY, python_block_rest, python_block_split, python_ended_statements,
    python_ends_complete, python_opens_block, python_separated, python_simple_lines,
    python_starts_statement, python_statement_steps, python_statements, python_steps,
};
pub(super) use quoted_tabs::quote_tabs;

/// The N_TTY line discipline's longest canonical-mode line, without its newline: the kernel
/// keeps 4096 bytes per line and drops what does not fit.
pub(super) const CANONICAL_LINE_MAX: usize = 4095;

pub(super) const PASTE_START: &[u8] = b"\x1b[200~";
pub(super) const PASTE_END: &[u8] = b"\x1b[201~";

/// Whether `text` (a send's, before shaping) holds a bracketed-paste marker (`ESC [200~` or
/// `ESC [201~`, as the send writes around a paste): a line editor that takes pastes (the shell's readline) would take what
/// follows a start marker as pasted text until an end marker, and every later send with it;
/// an end marker would cut a paste the send makes itself. Hosts refuse such text.
#[must_use]
pub fn holds_paste_marker(text: &str) -> bool {
    [PASTE_START, PASTE_END]
        .iter()
        .any(|marker| text.as_bytes().windows(marker.len()).any(|w| w == *marker))
}
/// Single lines from this many bytes on go to a program that enabled bracketed paste as a
/// paste.
const PASTE_LINE_MIN: usize = 256;
/// Readline's `abort` (Ctrl-G): ends a pending key sequence and keeps the line.
pub(super) const ABORT_KEY: u8 = 0x07;

/// What the terminal says about the program that will read the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Reader {
    /// The terminal is in canonical mode (the kernel assembles lines).
    pub(super) canonical: bool,
    /// The foreground program (not the session's shell) enabled bracketed paste and does not
    /// hold the alternate screen (a full-screen program takes keys).
    pub(super) bracketed_paste: bool,
    /// Besides, it takes a multi-line paste as one block ([`pastes_blocks`]).
    pub(super) block_paste: bool,
    /// The session's shell reads the line itself (readline at its prompt: the shell owns the
    /// foreground and the terminal is not in canonical mode).
    pub(super) shell_line_editor: bool,
    /// Bytes earlier sends typed into the terminal's canonical line without ending it (with
    /// `submit: false`): the kernel holds them, and the first line of this input continues it.
    pub(super) unended_line_bytes: usize,
    /// A program's line editor reads the keys (the terminal in the modes GNU readline sets:
    /// no canonical mode, no echo, no CR-to-NL mapping, output processing kept): a TAB typed
    /// to it (not pasted) goes after the quoted-insert key (Ctrl-V, bound so in readline,
    /// editline, Python's REPL and prompt_toolkit), so it is inserted, not completed.
    pub(super) quoted_tabs: bool,
    /// The terminal takes no carriage return as a line end (`IGNCR` on, or canonical mode with
    /// `ICRNL` off: `stty igncr`, `stty -icrnl`): the send's Enter goes as a newline, which
    /// ends a canonical line and is Enter to a line editor, instead of the carriage return a
    /// terminal's Enter key sends.
    pub(super) newline_enter: bool,
}

/// Readline's `quoted-insert` key (Ctrl-V) in its emacs and vi insert keymaps: the next key is
/// inserted as it is.
const QUOTED_INSERT: u8 = 0x16;

#[cfg(test)]
impl Reader {
    /// A program reading typed keys raw (no pastes, no line editing): the tests' baseline.
    pub(super) const TYPED: Self = Self {
        canonical: false,
        bracketed_paste: false,
        block_paste: false,
        shell_line_editor: false,
        unended_line_bytes: 0,
        quoted_tabs: false,
        newline_enter: false,
    };
}

/// Whether the program named `comm` takes a multi-line bracketed paste as one block of lines:
/// Python REPLs that auto-indent (Python 3.13's own, IPython, ptpython, bpython). A line
/// editor such as GNU readline (sqlite3, psql, gdb) takes it as one line with the newlines in
/// it, so those programs get the lines typed, and so does a Python REPL that reads with it
/// (Python 3.7 and older turn its pastes on; see `TtyModes::readline_editing`).
pub(super) fn pastes_blocks(comm: &str) -> bool {
    ["python", "ipython", "ptpython", "bpython"]
        .iter()
        .any(|name| comm.starts_with(name))
}

/// Whether the program named `comm` is IPython (`ipython`, `ipython3`): its line editor reads
/// in raw mode and runs a one-line block on its first Enter, where Python's own REPLs show a
/// continuation prompt and need a second.
pub(super) fn is_ipython(comm: &str) -> bool {
    comm.starts_with("ipython")
}

/// Where the terminal's canonical line stands after `text` (+ Enter when `submit`) was
/// written to a canonical-mode terminal that held `before` bytes of an unended line: the
/// bytes of the line still unended, or `None` when the line's length is no longer known
/// (the kernel's line-kill (Ctrl-U), end-of-file (Ctrl-D) or interrupt keys went with it).
pub(super) fn unended_after(text: &str, submit: bool, before: usize) -> Option<usize> {
    const LINE_KILL: char = '\u{15}';
    const END_OF_FILE: char = '\u{4}';
    const INTERRUPT: char = '\u{3}';
    if text.contains([LINE_KILL, END_OF_FILE, INTERRUPT]) {
        return None;
    }
    if submit {
        return Some(0);
    }
    Some(match text.rfind(['\n', '\r']) {
        Some(end) => text.len() - end - 1,
        None => before + text.len(),
    })
}

/// What to do instead of sending a line over [`CANONICAL_LINE_MAX`] bytes.
pub(super) const LONG_LINE_ADVICE: &str = "Write the text to a file in smaller pieces (e.g. printf '%s' '<piece>' >> /tmp/input.txt, one send per piece) and have the program read that file";

/// The first line of `step` (a paced step of a send's input, see the send's pacing) over
/// [`CANONICAL_LINE_MAX`] bytes: its index in `step` and its length in bytes.
pub(super) fn over_long_line(step: &[u8]) -> Option<(usize, usize)> {
    step.split(|&b| b == b'\n' || b == b'\r')
        .map(<[u8]>::len)
        .enumerate()
        .find(|&(_, len)| len > CANONICAL_LINE_MAX)
}

/// Whether `bytes` start with a bracketed paste (a block [`shape`] pastes whole), after the
/// line-discard key (Ctrl-U) that may clear the line for it.
pub(super) fn is_paste(bytes: &[u8]) -> bool {
    bytes
        .strip_prefix(b"\x15")
        .unwrap_or(bytes)
        .starts_with(PASTE_START)
}

/// `text` without its last line end (`\n`, `\r\n` or `\r`) when it is sent with Enter
/// (`submit`): that Enter is its last line's end. Typed as well, the line end would be a
/// second Enter, which the next reader takes as an empty answer (a second `read -p`,
/// `input()`, or gdb, which repeats its last command on an empty line). Only the last: the
/// empty lines before it are empty answers the text gives (`"A\n\n\n"` answers three
/// prompts, the last two with nothing). Not for a Python REPL, where an empty line ends a
/// block (its input is shaped elsewhere).
pub(super) fn without_doubled_enter(text: &str, submit: bool) -> &str {
    if !submit {
        return text;
    }
    text.strip_suffix("\r\n")
        .or_else(|| text.strip_suffix(['\n', '\r']))
        .unwrap_or(text)
}

/// Whether `line` (one line of a send) quits the program it goes to by its own command: a
/// REPL's (`exit()`, `quit`, `.exit`, `\q`, `sys.exit(3)`), a nested shell's (`exit 2`), an
/// editor's or pager's (`:wq`, `ZZ`, `q`). The lines after such a line in the same send are
/// meant for what reads once that program is gone (the shell).
pub(super) fn quits_a_program(line: &str) -> bool {
    const QUIT_LINES: [&str; 22] = [
        "exit", "exit()", "quit", "quit()", "q", ".exit", ".quit", ".q", "\\q", "logout", "bye",
        ":q", ":q!", ":qa", ":qa!", ":wq", ":wq!", ":wqa", ":x", ":xa", "ZZ", "ZQ",
    ];
    // The command after keys that end an editor's insert mode (`ihello\u{1b}:wq`).
    let line = line.rsplit('\u{1b}').next().unwrap_or(line).trim();
    QUIT_LINES.contains(&line)
        || line.starts_with("exit ")
        || QUIT_CALLS.iter().any(|call| line.starts_with(call))
        || ends_with_a_shell_exit(line)
}

/// The starts of a REPL's calls that quit it (`sys.exit(3)`, node's `process.exit(1)`).
const QUIT_CALLS: [&str; 5] = ["exit(", "quit(", "sys.exit(", "os._exit(", "process.exit("];

/// Whether the line `line` quits the REPL or program reading it ([`quits_a_program`]), is a
/// statement that ends a Python REPL (`raise SystemExit(3)`, which [`quits_a_program`]
/// leaves out: lines after it in a send are not meant for the shell) or sqlite3's `.exit`
/// with a status (`.exit 4`).
pub(super) fn ends_its_reader(line: &str) -> bool {
    let line = line.trim_start();
    quits_a_program(line) || line.starts_with("raise SystemExit") || line.starts_with(".exit ")
}

/// Whether the command line `line` ends, after `;`, `&&` or `||`, with a command that quits
/// what reads it: a shell's `exit` (or `exit N`, `exit $?`, `logout`), also before a `;`, a
/// comment, or the `}` or `fi` closing its group (`echo done; exit`, `make && exit 0 # ok`,
/// `[ -d x ] || { echo no; exit 2; }`), or a REPL's quit call (`print(1); exit(3)`,
/// `import sys; sys.exit(4)`): it leaves a nested shell or a REPL as the quit alone does.
fn ends_with_a_shell_exit(line: &str) -> bool {
    let line = line.split_once(" #").map_or(line, |(code, _)| code);
    let mut line = line.trim_end();
    while let Some(rest) = line
        .strip_suffix(';')
        .or_else(|| line.strip_suffix('}'))
        .or_else(|| line.strip_suffix(" fi"))
    {
        line = rest.trim_end();
    }
    let Some((before, last)) = line.rsplit_once([';', '&', '|']) else {
        return false;
    };
    let last = last.trim();
    let last = ["then ", "else ", "{ "]
        .iter()
        .find_map(|word| last.strip_prefix(word))
        .map_or(last, str::trim);
    let exits = last == "exit"
        || last == "logout"
        || last
            .strip_prefix("exit ")
            .map(str::trim)
            .is_some_and(|status| {
                status.chars().all(|c| c.is_ascii_digit())
                    || (status.starts_with('$')
                        && status[1..]
                            .chars()
                            .all(|c| c == '?' || c == '_' || c.is_ascii_alphanumeric()))
            })
        || QUIT_CALLS
            .iter()
            .any(|call| last.starts_with(call) && last.ends_with(')'));
    exits && !before.trim().is_empty()
}

/// Whether `text` ends with a key that ends input or a program rather than a line: Ctrl-C,
/// Ctrl-D, Ctrl-Z or Ctrl-\\. An Enter after it would reach whatever reads next (the shell
/// once `cat` got its end of input, a prompt) as an empty line, so none follows it.
pub(super) fn ends_with_ending_key(text: &str) -> bool {
    text.ends_with(['\u{3}', '\u{4}', '\u{1a}', '\u{1c}'])
}

/// Whether `row` offers a yes/no choice by its keys (`[y/N]`, `(y/n)`, `(y or n)`, git's
/// `[y,n,q,…]`): a question answered by the key `y` or `n`.
pub(super) fn asks_yes_or_no(row: &str) -> bool {
    let row = row.to_ascii_lowercase();
    row.contains("y/n") || row.contains("y or n") || row.contains("[y,n")
}

/// The first key of a `step` that answers a yes/no question with a word, `yes` or `no` in
/// any case, with or without its Enter: a reader of one key takes `y` or `n` as the answer,
/// and each further key would be a key of its own (the rest of the word run as a command
/// once the program is done), so the rest goes only to a reader that reads on (see
/// `key_answer`). `None` for anything else.
pub(super) fn yes_no_word_key(step: &[u8]) -> Option<Vec<u8>> {
    let word = step
        .strip_suffix(b"\r\n")
        .or_else(|| step.strip_suffix(b"\r"))
        .or_else(|| step.strip_suffix(b"\n"))
        .unwrap_or(step);
    (word.eq_ignore_ascii_case(b"yes") || word.eq_ignore_ascii_case(b"no"))
        .then(|| word[..1].to_vec())
}

/// The bytes for `text` (+ Enter when `submit`) to `reader`.
///
/// # Errors
/// `InvalidRequest` when a line is over [`CANONICAL_LINE_MAX`] bytes and the reader is in
/// canonical mode.
pub(super) fn shape(text: &str, submit: bool, reader: Reader) -> Result<Vec<u8>, TerminalError> {
    let text = &*if text.contains("\r\n") {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    // TABs ending text sent without Enter ask the line editor to complete (`import o`, then
    // TAB): they go as keys, neither pasted nor quoted, after the text before them.
    let completing = text.trim_end_matches('\t');
    if !submit && completing.len() < text.len() {
        let mut bytes = if completing.is_empty() {
            Vec::new()
        } else {
            shape(completing, false, reader)?
        };
        bytes.extend_from_slice(&text.as_bytes()[completing.len()..]);
        return Ok(bytes);
    }
    if reader.canonical
        && let Some((index, len)) = text
            .split(['\n', '\r'])
            .map(str::len)
            .enumerate()
            .map(|(index, len)| {
                let before = if index == 0 {
                    reader.unended_line_bytes
                } else {
                    0
                };
                (index, len + before)
            })
            .find(|&(_, len)| len > CANONICAL_LINE_MAX)
    {
        let typed = reader.unended_line_bytes;
        let line = if index == 0 && typed > 0 {
            format!(
                "line 1 of the input continues the {typed} bytes typed before without Enter (sends with submit: false), {len} bytes together"
            )
        } else {
            format!("line {} of the input is {len} bytes", index + 1)
        };
        let unended = if index == 0 && typed > 0 {
            " The line typed so far is still there: finish it with an empty send, or erase it with Ctrl-U (\\u0015, submit: false)."
        } else {
            ""
        };
        return Err(TerminalError::new(
            TerminalErrorCode::InvalidRequest,
            format!(
                "{line}, over the terminal's {CANONICAL_LINE_MAX}-byte line limit: the program reading it (or, while a command runs, the input typed ahead) goes through the terminal's line editing, which would cut the line silently; nothing was sent, so a program waiting for a line still waits for one: your next send is its answer (terminal_signal SIGINT stops such a program; at the prompt of a shell that reads lines, such as dash, your next send is its next command).{unended} {LONG_LINE_ADVICE}"
            ),
        ));
    }
    let body = text.trim_end_matches(['\n', '\r']);
    let mut bytes = Vec::with_capacity(text.len() + PASTE_START.len() + PASTE_END.len() + 1);
    let carries_keys = body
        .bytes()
        .any(|b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f);
    let several_lines = body.contains(['\n', '\r']);
    // A line editor completes on a typed TAB (readline inserts a file name, Python's REPL an
    // identifier or nothing); pasted, a TAB is a character of the line.
    let line_pastes = |line: &str| line.len() >= PASTE_LINE_MIN || line.contains('\t');
    if reader.bracketed_paste
        && !carries_keys
        && ((several_lines && reader.block_paste) || (!several_lines && line_pastes(body)))
    {
        bytes.extend_from_slice(PASTE_START);
        bytes.extend(body.bytes().map(|b| if b == b'\n' { b'\r' } else { b }));
        bytes.extend_from_slice(PASTE_END);
        bytes.extend(
            text[body.len()..]
                .bytes()
                .map(|b| if b == b'\n' { b'\r' } else { b }),
        );
    } else if reader.bracketed_paste && !carries_keys && several_lines && text.contains('\t') {
        // Lines typed one by one to a line editor: each with a TAB goes as a paste of its own.
        for piece in text.split_inclusive(['\n', '\r']) {
            let line = piece.trim_end_matches(['\n', '\r']);
            if line.contains('\t') {
                bytes.extend_from_slice(PASTE_START);
                bytes.extend_from_slice(line.as_bytes());
                bytes.extend_from_slice(PASTE_END);
                bytes.extend_from_slice(&piece.as_bytes()[line.len()..]);
            } else {
                bytes.extend_from_slice(piece.as_bytes());
            }
        }
    } else if reader.shell_line_editor && text.contains(['\n', '\r']) {
        // The first line end reaches the line editor reading now: it goes as a terminal's
        // Enter key (a carriage return), which readline takes as Enter in every state, where
        // C-j is not the same key: its incremental history search (Ctrl-R) ends on C-j
        // keeping the line found unrun, and runs it on the Enter key.
        // The later lines end with C-j, which readline takes as Enter too: a line that starts
        // a program reading the terminal in canonical mode makes the next lines its input,
        // and a CR typed while readline had ICRNL off would reach it as a literal character
        // that never ends its line.
        let enter = if reader.newline_enter { b'\n' } else { b'\r' };
        let first_end = text.find(['\n', '\r']).unwrap_or(text.len());
        bytes.extend_from_slice(&text.as_bytes()[..first_end]);
        bytes.push(enter);
        bytes.extend(
            text.as_bytes()[first_end + 1..]
                .iter()
                .map(|&b| if b == b'\r' { b'\n' } else { b }),
        );
    } else if reader.quoted_tabs {
        // Typed (with keys among the text, or to a line editor without pastes).
        for b in text.bytes() {
            if b == b'\t' {
                bytes.push(QUOTED_INSERT);
            }
            bytes.push(b);
        }
    } else {
        bytes.extend_from_slice(text.as_bytes());
    }
    if submit {
        let multi_line = reader.shell_line_editor && text.contains(['\n', '\r']);
        bytes.push(if multi_line || reader.newline_enter {
            b'\n'
        } else {
            b'\r'
        });
    }
    if reader.shell_line_editor && bytes.contains(&ESC) {
        // Only the first line surely reaches the line editor: the next ones go to whatever
        // reads then (`vim f` + keys for vim), and are closed when typed to the shell again
        // (see [`close_escapes_for_line_editor`]).
        let first_end = bytes
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .map_or(bytes.len(), |i| i + 1);
        let mut closed = close_unfinished_escapes(&bytes[..first_end]);
        closed.extend_from_slice(&bytes[first_end..]);
        bytes = closed;
    }
    Ok(bytes)
}

/// `step`, a later line of a send typed to the shell's line editor, with its unfinished escape
/// sequences closed as the first line's are (see [`shape`]).
pub(super) fn close_escapes_for_line_editor(step: Vec<u8>) -> Vec<u8> {
    if step.contains(&ESC) {
        close_unfinished_escapes(&step)
    } else {
        step
    }
}

const ESC: u8 = 0x1b;

/// Whether `row` (the cursor row's text before the cursor) is readline's incremental history
/// search prompt (`(reverse-i-search)`…`': `, `(i-search)`, `(failed reverse-i-search)`):
/// keys typed now go to the search, and Ctrl-G ends it with the line restored.
pub(super) fn is_history_search(row: &str) -> bool {
    let row = row.trim_start();
    [
        "(reverse-i-search)`",
        "(i-search)`",
        "(failed reverse-i-search)`",
        "(failed i-search)`",
    ]
    .iter()
    .any(|p| row.starts_with(p))
}

/// Where an escape sequence stands while the bytes are read as keys.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    /// After ESC (or ESC ESC, a prefix readline binds too).
    Esc,
    /// Inside `ESC [` parameters and intermediates.
    Csi,
    /// After `ESC O`.
    Ss3,
}

/// `bytes` with [`ABORT_KEY`] inserted wherever an escape sequence is left unfinished: before
/// the byte that cannot continue it (a newline or Enter after a lone ESC; anything but a
/// parameter, intermediate or final byte inside a CSI or SS3) and at the end.
fn close_unfinished_escapes(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 2);
    let mut state = Escape::None;
    for &b in bytes {
        let continues = match state {
            Escape::None => true,
            // ESC + any key is a meta key (deliberate, e.g. `ESC b`); only a line end cannot
            // be meant as one.
            Escape::Esc => !matches!(b, b'\r' | b'\n'),
            Escape::Csi => (0x20..=0x7e).contains(&b),
            Escape::Ss3 => (0x40..=0x7e).contains(&b),
        };
        if !continues {
            out.push(ABORT_KEY);
            state = Escape::None;
        }
        state = match (state, b) {
            (Escape::None | Escape::Esc, ESC) => Escape::Esc,
            (Escape::Esc, b'[') => Escape::Csi,
            (Escape::Esc, b'O') => Escape::Ss3,
            (Escape::Csi, 0x20..=0x3f) => Escape::Csi,
            _ => Escape::None,
        };
        out.push(b);
    }
    if state != Escape::None {
        out.push(ABORT_KEY);
    }
    out
}

#[cfg(test)]
mod tests;
