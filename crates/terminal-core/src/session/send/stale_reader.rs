//! An answer to a reader that is gone: a send settled with a program (or the shell's own
//! `read`, a REPL, a nested shell) waiting for input, and that reader ended by itself before
//! the next send (`read -t` or `timeout` ran out, the REPL or the remote shell died). Our
//! shell's prompt is back, so the next send's text, meant as the answer (a password, `y`, a
//! REPL statement, a command for the remote host), would run as a shell command here, its
//! echo and the shell's history keeping a secret. Such a send is refused once, before
//! anything is typed, saying what ended and how to go on; sent again, it goes to the shell.
//! A poll (no text) goes as always; a `terminal_signal` (the agent acts on the reader, and
//! expects its end, or hears the prompt is back) and a read of the newest lines (which show
//! the prompt back) clear the guard.

use crate::error::TerminalError;

use super::super::shared::{AwaitedReader, State};

/// Longest prompt text the refusal quotes, in bytes (cut between characters and their marks).
const PROMPT_QUOTE_MAX_BYTES: usize = 80;

/// Notes what the send `send` (its [`SendOp::identity`](super::SendOp::identity)) settling
/// now leaves waiting: a reader other than our shell's line editor (`Some`), with its prompt
/// (the text before the cursor, when any), or nothing.
pub(super) fn note(st: &mut State, awaited: Option<Option<String>>, send: usize) {
    st.awaited_reader = awaited.map(|prompt| AwaitedReader {
        prompts: st.screen.prompt_end_count(),
        prompt: prompt
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty()),
        send,
    });
}

/// Forgets what the send `send` noted, now that it runs as a background job (whose status
/// follows its program).
pub(super) fn forget(st: &mut State, send: usize) {
    if st.awaited_reader.as_ref().is_some_and(|a| a.send == send) {
        st.awaited_reader = None;
    }
}

/// Refuses a send of `text` begun now at our shell's line editor (`shell_line_editor`) when
/// the reader the last result left waiting ended since, our shell's marked prompt having come
/// back (see the module docs); the guard is used up either way.
///
/// # Errors
/// `InvalidRequest`, naming the reader's prompt and the exit status of the command line it
/// was part of (the newest prompt's).
pub(super) fn check(
    st: &mut State,
    shell_line_editor: bool,
    text: &str,
) -> Result<(), TerminalError> {
    if text.is_empty() {
        return Ok(());
    }
    let Some(awaited) = st.awaited_reader.take() else {
        return Ok(());
    };
    if !shell_line_editor || st.screen.prompt_end_count() <= awaited.prompts {
        return Ok(());
    }
    Err(refusal(
        awaited.prompt.as_deref(),
        st.screen.last_exit_code(),
    ))
}

/// The refusal of an answer to a reader that ended (see the module docs).
fn refusal(prompt: Option<&str>, exit: Option<i32>) -> TerminalError {
    let at = prompt.map_or(String::new(), |prompt| {
        let quoted = dsh_output_retention::head_slice(prompt, PROMPT_QUOTE_MAX_BYTES);
        let more = if quoted.len() < prompt.len() {
            "…"
        } else {
            ""
        };
        format!(" (at `{quoted}{more}`)")
    });
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

#[cfg(test)]
mod tests {
    use super::refusal;

    /// The refusal's text is model-visible: it quotes the prompt (cut at its bound) and the
    /// exit status when known.
    #[test]
    fn refusal_texts() {
        insta::assert_snapshot!(refusal(Some("Password:"), Some(142)).to_string());
        insta::assert_snapshot!("no_prompt", refusal(None, None).to_string());
        let long = "é".repeat(60);
        let text = refusal(Some(&long), None).to_string();
        assert!(
            text.contains(&format!("(at `{}…`)", "é".repeat(40))),
            "{text}"
        );
    }
}
