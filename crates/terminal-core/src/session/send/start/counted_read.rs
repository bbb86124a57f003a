//! A line longer than a program reading a counted amount of the terminal takes (`head -c 5`,
//! `dd bs=1 count=1`, `head -n 1`), refused before anything is typed: in canonical mode the
//! reader takes its count and ends, and the rest of the line stays queued for what reads
//! next, the shell, which would run it as a command line (`yecho x` to `dd bs=1 count=1` ran
//! `echo x`).

use crate::error::TerminalError;
use crate::types::SendRequest;

use super::super::super::input::typed_lines;
use super::super::super::shared::{Shared, State};
use super::super::super::stream_reader::{counted_read_of, left_unread};

/// Shell words that run what follows them again (a loop) or after a reader ends: a line
/// holding one may have another reader take the rest.
const LOOP_WORDS: [&str; 4] = ["for", "while", "until", "select"];

/// Refuses `request`'s text (sent with Enter when it submits) for a program in the foreground group `fg`
/// reading the terminal in canonical mode a counted amount (see [`counted_read_of`]) when the
/// reader, with what earlier sends typed to it (`State::counted_read_fed`), would leave more
/// than a line end of it, and what reads after it is the shell: the reader was started by
/// the shell's command line itself or a subshell of it (`x=$(head -c 1)`), and that line holds
/// no loop (`for … do x=$(head -n 1); …` reads on, as a script does). A rest of line ends
/// alone (the Enter after `y`) is an empty line there, and goes. Records what goes.
///
/// # Errors
/// `InvalidRequest`, saying how much the program takes and what would run.
pub(super) fn refuse_past_a_counted_read(
    st: &mut State,
    shared: &Shared,
    fg: Option<i32>,
    request: &SendRequest,
) -> Result<(), TerminalError> {
    let (text, submit) = (request.text.as_str(), request.submit);
    let Some(pid) = fg.and_then(|pgid| shared.tty_reader(pgid)) else {
        return Ok(());
    };
    let Some((program, read)) = counted_read_of(pid) else {
        return Ok(());
    };
    if !rest_goes_to_the_shell(pid, shared.shell_pgid(), &st.command_lines) {
        return Ok(());
    }
    // Keys the terminal's line editing takes (an erase, a kill, Ctrl-D, Ctrl-C) are no text
    // of the line: what the reader then holds is not counted here, so nothing is refused and
    // what earlier sends typed is forgotten.
    if text
        .bytes()
        .any(|b| b.is_ascii_control() && !matches!(b, b'\n' | b'\r' | b'\t'))
    {
        st.counted_read_fed = None;
        return Ok(());
    }
    // What earlier sends typed to this very reader, which it took: its count is what is left.
    let mut input = match st.counted_read_fed.take() {
        Some((reader, fed)) if reader == pid => fed,
        _ => Vec::new(),
    };
    let fed = input.len();
    input.extend(text.replace("\r\n", "\n").replace('\r', "\n").bytes());
    // The Enter: a text's own trailing line end is it, not a second one.
    if submit && !input.ends_with(b"\n") {
        input.push(b'\n');
    }
    let rest = left_unread(read, &input);
    if rest.iter().all(u8::is_ascii_whitespace) {
        st.counted_read_fed = Some((pid, input));
        return Ok(());
    }
    let quoted = String::from_utf8_lossy(rest).trim_end().to_owned();
    input.truncate(fed);
    st.counted_read_fed = Some((pid, input));
    Err(TerminalError::invalid(format!(
        "nothing was typed: {program} reads {} and ends{}, so the rest of the text ({quoted:?}) \
         would stay queued for the shell, which would run it as a command line; send only \
         what it takes (at most that much text, with its Enter), or interrupt it \
         (terminal_signal SIGINT)",
        read.takes(),
        if fed > 0 {
            " (counting what earlier sends typed to it)"
        } else {
            ""
        },
    )))
}

/// Whether what the reader `pid` leaves goes to the shell (group leader `shell`): it is the
/// shell's child or a subshell's (a fork of the shell, its command line the shell's), and the
/// command line the shell runs (`command_lines`, as typed) holds no loop.
fn rest_goes_to_the_shell(pid: i32, shell: i32, command_lines: &[u8]) -> bool {
    // As typed: the host's keys that cleared the line first are no words of it.
    let loops = typed_lines(command_lines).iter().any(|line| {
        line.split(|c: char| c.is_whitespace() || ";&|()`$".contains(c))
            .any(|word| LOOP_WORDS.contains(&word))
    });
    if loops {
        return false;
    }
    let Some(parent) = crate::process::stat(pid).map(|s| s.ppid) else {
        return false;
    };
    parent == shell
        || (crate::process::stat(parent).is_some_and(|s| s.ppid == shell)
            && crate::process::cmdline(parent).is_some()
            && crate::process::cmdline(parent) == crate::process::cmdline(shell))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loop on the command line may have another reader take the rest; a reader the
    /// session's shell did not start cannot be judged (no such process here).
    #[test]
    fn a_loop_or_an_unknown_reader_is_no_leftover_for_the_shell() {
        let me = std::process::id() as i32;
        for line in [
            "for i in 1 2; do x=$(head -n 1); done",
            "while read x; do :; done",
        ] {
            assert!(!rest_goes_to_the_shell(me, 1, line.as_bytes()), "{line}");
        }
        assert!(!rest_goes_to_the_shell(i32::MAX, 1, b"x=$(head -c 1)"));
    }
}
