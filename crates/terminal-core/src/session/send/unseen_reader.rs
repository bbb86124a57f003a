//! A reader no result showed: the last result the agent saw left a program busy, not reading
//! the terminal (the send timed out, or settled on the program's silence), or was seen by
//! nobody (its HTTP client went away; not a cancelled call, whose caller knows what it
//! stopped), and since then a program came to wait for input
//! at a prompt of its own (`sleep 1; getpass()`, a `[y/N]` question, a REPL). The next send's
//! text, meant for whatever the agent thought was running (often the shell), would answer that
//! prompt: a command typed as a password, `echo next` as the answer to `Delete all?`. Such a
//! send is refused once, before anything is typed, quoting the prompt; sent again, it goes. A
//! poll (no text) goes as always and shows the prompt; a `terminal_signal` and a read of the
//! newest lines clear the guard, as a result that shows a reader or the shell's prompt does.

use crate::error::TerminalError;
use crate::pty::TtyModes;

use super::super::observe::is_primary_repl_prompt;
use super::super::shared::{Shared, State};
use super::stale_reader::{clipped, trimmed};

/// At a foreground send's settling: arms the guard when the agent will not have seen a reader
/// in this result (`unseen`: the result goes to nobody, or shows a program still busy, the
/// terminal's foreground group then being `foreground`), and disarms it otherwise.
pub(super) fn note(st: &mut State, unseen: bool, foreground: Option<i32>) {
    st.unseen_reader_guard = unseen.then(|| (st.screen.prompt_end_count(), foreground));
}

/// Refuses a send of `text` begun now, with `foreground` the terminal's foreground group and
/// `shell_line_editor` whether that is our shell's line editor, when the guard is armed and a
/// program other than our shell's line editor waits for input now (the shell's own `read`
/// counts, while no prompt of the shell came since and the terminal is not in its line
/// editor's modes: either makes it the shell's line editor, about to read its line); the
/// guard is used up by any send with text. Reads `/proc` only while armed.
///
/// # Errors
/// `InvalidRequest`, quoting the prompt the reader shows.
pub(super) fn check(
    st: &mut State,
    shared: &Shared,
    foreground: Option<i32>,
    shell_line_editor: bool,
    text: &str,
) -> Result<(), TerminalError> {
    if text.is_empty() || shell_line_editor {
        st.unseen_reader_guard = st.unseen_reader_guard.filter(|_| text.is_empty());
        return Ok(());
    }
    let Some((prompts, busy_group)) = st.unseen_reader_guard.take() else {
        return Ok(());
    };
    let Some(pgid) = foreground else {
        return Ok(());
    };
    if pgid == shared.shell_pgid() && st.screen.prompt_end_count() > prompts {
        return Ok(());
    }
    if shared.tty_reader(pgid).is_none() {
        return Ok(());
    }
    // Our shell reading in its line editor's modes is at its prompt, which is not on the
    // screen yet (the screen lags the terminal's output): the modes the caller read were from
    // before the line editor set them up.
    if pgid == shared.shell_pgid() && shared.pty.modes().is_some_and(TtyModes::line_editing) {
        return Ok(());
    }
    let name = if pgid == shared.shell_pgid() {
        Some("the shell's read".to_owned())
    } else {
        crate::process::group_name(pgid)
    };
    let prompt = trimmed(st.screen.cursor_row_prefix());
    // A REPL or a nested shell back at its own prompt after the statement or command the
    // last result left it running: the text is its next one, as meant. (One that came since,
    // `sleep 1; python3`, would take text meant for the shell.)
    let own_prompt = pgid != shared.shell_pgid()
        && busy_group == Some(pgid)
        && prompt.as_deref().is_some_and(|row| {
            is_primary_repl_prompt(row)
                || name.as_deref().is_some_and(|name| {
                    crate::session::nested_shell::is_nested_shell_prompt(row, name, pgid)
                })
        });
    if own_prompt {
        return Ok(());
    }
    Err(refusal(name.as_deref(), prompt.as_deref()))
}

/// The refusal of text for a reader (program `name`, at `prompt`) no result showed.
fn refusal(name: Option<&str>, prompt: Option<&str>) -> TerminalError {
    let who = name.map_or("a program".to_owned(), |name| format!("`{name}`"));
    let at = prompt.map_or(String::new(), |prompt| format!(" at `{}`", clipped(prompt)));
    TerminalError::invalid(format!(
        "nothing was typed: since the last result (which showed a program still busy, or \
         which no caller saw), {who} came to wait for input{at}, a prompt no result showed, so \
         this text would answer it (a password prompt takes it as the password); poll (empty \
         text, submit: false) to see it, then send the answer, or send this text again if it \
         is the answer"
    ))
}

#[cfg(test)]
mod tests {
    use super::refusal;

    /// The refusal is model-visible: it names the reader and quotes its prompt.
    #[test]
    fn refusal_text() {
        insta::assert_snapshot!(
            refusal(Some("python3"), Some("Password:")).to_string(),
            @r#"nothing was typed: since the last result (which showed a program still busy, or which no caller saw), `python3` came to wait for input at `Password:`, a prompt no result showed, so this text would answer it (a password prompt takes it as the password); poll (empty text, submit: false) to see it, then send the answer, or send this text again if it is the answer"#
        );
        insta::assert_snapshot!(refusal(None, None).to_string(), @r#"nothing was typed: since the last result (which showed a program still busy, or which no caller saw), a program came to wait for input, a prompt no result showed, so this text would answer it (a password prompt takes it as the password); poll (empty text, submit: false) to see it, then send the answer, or send this text again if it is the answer"#);
    }
}
