//! An answer to a reader that is gone: a send settled with a program (or the shell's own
//! `read`, a REPL, a nested shell) waiting for input, and that reader ended by itself before
//! the next send (`read -t` or `timeout` ran out, the REPL or the remote shell died). The
//! next send's text, meant as the answer (a password, `y`, a REPL statement, a command for
//! the remote host), would then go elsewhere:
//! - our shell's prompt is back: it would run as a shell command, its echo and the shell's
//!   history keeping a secret;
//! - another process group holds the terminal (the command line went on: `read -t 2 pw;
//!   make`): it would wait in the terminal's input as typed-ahead text and run as a command
//!   once the line ends, or answer whatever that group asks.
//!
//! The same group asking another question (`read -t 2 -p 'A: ' a; read -p 'B: ' b`) is not
//! told apart from a reader that is still waiting while something printed (a background
//! job, a REPL's timer or thread, a countdown redrawing its prompt), whose reading thread
//! ran too (a `SIGCHLD`, its event loop): such a send goes.
//!
//! Such a send is refused once, before anything is typed, saying what changed and how to go
//! on; sent again, it goes where it would have. A poll (no text) goes as always; a
//! `terminal_signal` (the agent acts on the reader, and expects its end, or hears the prompt
//! is back) and a read of the newest lines (which show what changed) clear the guard.

use crate::error::TerminalError;

use super::super::after_signal::SurvivedReader;
use super::super::shared::{AwaitedReader, Shared, State};

/// Longest prompt (or line) text a refusal or notice quotes, in bytes (cut between characters
/// and their marks).
const PROMPT_QUOTE_MAX_BYTES: usize = 80;

/// Notes what the send `send` (its [`SendOp::identity`](super::SendOp::identity)) settling
/// now leaves waiting: a reader other than our shell's line editor (`Some`), with its prompt
/// (the text before the cursor, when any) and the foreground group `foreground`, or nothing.
pub(super) fn note(
    st: &mut State,
    awaited: Option<Option<String>>,
    foreground: Option<i32>,
    send: usize,
) {
    st.awaited_reader = awaited.map(|prompt| AwaitedReader {
        prompts: st.screen.prompt_end_count(),
        prompt: trimmed(prompt),
        foreground,
        send,
    });
}

/// A prompt as the guard compares it: trimmed, and `None` when nothing is left.
pub(super) fn trimmed(prompt: Option<String>) -> Option<String> {
    prompt
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
}

/// Forgets what the send `send` noted, now that it runs as a background job (whose status
/// follows its program).
pub(super) fn forget(st: &mut State, send: usize) {
    if st.awaited_reader.as_ref().is_some_and(|a| a.send == send) {
        st.awaited_reader = None;
    }
}

/// Refuses a send of `text` begun now, with `foreground` the terminal's foreground group and
/// `shell_line_editor` whether that is our shell's line editor, when the reader the last
/// result left waiting is gone since (see the module docs); the guard is used up either way.
/// Reads `/proc` only when the group changed (its name, whether it reads).
///
/// # Errors
/// `InvalidRequest`: at our shell's prompt, naming the reader's prompt and the exit status of
/// the command line it was part of (the newest prompt's); with another group in the
/// foreground, naming it and what it does now.
pub(super) fn check(
    st: &mut State,
    shared: &Shared,
    foreground: Option<i32>,
    shell_line_editor: bool,
    text: &str,
) -> Result<(), TerminalError> {
    if text.is_empty() {
        return Ok(());
    }
    let Some(awaited) = st.awaited_reader.take() else {
        return Ok(());
    };
    let prompt = awaited.prompt.as_deref();
    if shell_line_editor {
        if st.screen.prompt_end_count() <= awaited.prompts {
            return Ok(());
        }
        return Err(refusal(prompt, st.screen.last_exit_code()));
    }
    let Some(pgid) = foreground.filter(|&fg| Some(fg) != awaited.foreground) else {
        return Ok(());
    };
    let name = crate::process::group_name(pgid);
    let reading = shared.tty_reader(pgid).is_some();
    let asks = reading
        .then(|| trimmed(st.screen.cursor_row_prefix()))
        .flatten();
    Err(other_group(
        prompt,
        name.as_deref(),
        reading,
        asks.as_deref(),
    ))
}

/// Refuses, once, a send of `text` begun now with `foreground` the terminal's foreground
/// group, when a signal left the reader it went to waiting at the same prompt (see
/// `after_signal`): the agent signalled to end it, and its text, likely meant for the shell,
/// would answer that prompt (a password prompt would take it as the password). Text with a
/// control key in it (the Ctrl-D that ends a `read`, a Ctrl-C) acts on the reader and goes;
/// nor is anything refused once our shell's prompt came back since (a `read -t` ran out). The
/// guard is used up either way; a poll (no text) leaves it.
///
/// # Errors
/// `InvalidRequest`, naming the program, its prompt, the signal and how to end it.
pub(super) fn check_survivor(
    st: &mut State,
    foreground: Option<i32>,
    text: &str,
) -> Result<(), TerminalError> {
    if text.is_empty() {
        return Ok(());
    }
    let keys = text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'));
    match st.survived_reader.take() {
        Some(survivor)
            if foreground == Some(survivor.pgid)
                && !keys
                && st.screen.prompt_end_count() == survivor.prompts =>
        {
            Err(survivor_refusal(&survivor))
        }
        _ => Ok(()),
    }
}

/// The refusal of text for a reader that went on waiting after a signal.
fn survivor_refusal(survivor: &SurvivedReader) -> TerminalError {
    let SurvivedReader {
        prompt,
        signal,
        program,
        ..
    } = survivor;
    let at = at(prompt.as_deref());
    let end = crate::session::after_signal::end_reader_advice(program, signal.as_str());
    TerminalError::invalid(format!(
        "nothing was typed: {program} still waits for input at the same prompt{at} after the \
         {signal} (it ignored it there), so this text would answer that prompt, not run in \
         the shell (a password prompt takes it as the password); send the text again if it \
         is the answer, or {end}"
    ))
}

/// A prompt quoted in a refusal, cut at its bound.
fn quote(prompt: &str) -> String {
    format!("`{}`", clipped(prompt))
}

/// `text` (a program's prompt) as a refusal or notice quotes it: cut between characters at
/// 80 bytes, with `…` when cut.
pub fn clipped(text: &str) -> String {
    let head = dsh_output_retention::head_slice(text, PROMPT_QUOTE_MAX_BYTES);
    if head.len() < text.len() {
        format!("{head}…")
    } else {
        head.to_owned()
    }
}

/// ` (at `PROMPT`)` for a reader with a prompt, else nothing.
fn at(prompt: Option<&str>) -> String {
    prompt.map_or(String::new(), |prompt| format!(" (at {})", quote(prompt)))
}

/// The refusal of an answer to a reader that ended, our shell's prompt back.
fn refusal(prompt: Option<&str>, exit: Option<i32>) -> TerminalError {
    let at = at(prompt);
    let status = exit.map_or(String::new(), |code| {
        format!(", and its command line ended with exit status {code}")
    });
    TerminalError::invalid(format!(
        "nothing was typed: what the last result left waiting for input{at} has ended since \
         (it timed out, exited or was killed{status}) and the shell's prompt is back, so this \
         text would run as a shell command instead of answering it; poll (empty text, submit: \
         false) to see what happened, run the program again to answer it, or send the text \
         again if it is a command for the shell"
    ))
}

/// The refusal of an answer to a reader whose process group no longer holds the terminal:
/// the group `name` does, `reading` it (at the prompt `asks`, when it shows one) or not.
fn other_group(
    prompt: Option<&str>,
    name: Option<&str>,
    reading: bool,
    asks: Option<&str>,
) -> TerminalError {
    let at = at(prompt);
    let who = name.map_or("another program".to_owned(), |name| format!("`{name}`"));
    let now = match (reading, asks) {
        (true, Some(asks)) => format!(
            "{who} holds the terminal now and waits for input at {}, a question the last \
             result did not show, so this text would answer that",
            quote(asks)
        ),
        (true, None) => format!(
            "{who} holds the terminal now and waits for input the last result did not show, \
             so this text would answer that"
        ),
        (false, _) => format!(
            "{who} runs in the foreground now and does not read the terminal, so this text \
             would wait in the terminal's input for whatever reads next (the shell runs it \
             as a command once the command line ends)"
        ),
    };
    TerminalError::invalid(format!(
        "nothing was typed: what the last result left waiting for input{at} stopped waiting \
         (it timed out, exited or was killed); {now}; poll (empty text, submit: false) to see \
         what happened, then send the text again if it is still meant"
    ))
}

#[cfg(test)]
mod tests {
    use super::{SurvivedReader, other_group, refusal, survivor_refusal};

    /// The refusals' texts are model-visible: they quote the prompts (cut at their bound), the
    /// exit status when known, and the group holding the terminal now.
    #[test]
    fn refusal_texts() {
        insta::assert_snapshot!(
            "other_group_running",
            other_group(Some("Password:"), Some("sleep"), false, None).to_string()
        );
        insta::assert_snapshot!(
            "other_group_asking",
            other_group(Some("Password:"), Some("python3"), true, Some("Name:")).to_string()
        );
        insta::assert_snapshot!(
            "other_group_reading",
            other_group(None, None, true, None).to_string()
        );
        insta::assert_snapshot!(refusal(Some("Password:"), Some(142)).to_string());
        insta::assert_snapshot!("no_prompt", refusal(None, None).to_string());
        let survivor = |program: &str| SurvivedReader {
            pgid: 42,
            prompt: Some("API token:".to_owned()),
            signal: crate::TerminalSignal::Sigint,
            program: program.to_owned(),
            prompts: 0,
        };
        insta::assert_snapshot!(
            "survivor_program",
            survivor_refusal(&survivor("python3")).to_string()
        );
        insta::assert_snapshot!(
            "survivor_shell_read",
            survivor_refusal(&survivor("the shell's read")).to_string()
        );
        let long = "é".repeat(60);
        let text = refusal(Some(&long), None).to_string();
        assert!(
            text.contains(&format!("(at `{}…`)", "é".repeat(40))),
            "{text}"
        );
    }
}
