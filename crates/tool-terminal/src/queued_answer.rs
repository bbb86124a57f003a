//! A send written before the result of the send before it came back (an agent's parallel tool
//! calls, queued in arrival order as typed-ahead commands are) whose text went to a question
//! that send stopped at (`Name? ` of a `read -p`, a script's `input()`): the text is that
//! program's answer, as typed-ahead text would be, though the agent never saw the question
//! and may have meant it as a command. Its result says so.
//!
//! Each foreground send notes, once settled, whether it stopped at such a question (no prompt
//! came back, the program reads a line at a prompt that is no shell's or REPL's); the next
//! send takes that note, and says its text answered the question only when it was written
//! before that send's result came back and no prompt came back since.

use std::collections::HashMap;

use dsh_context::Agent;
use dsh_terminal_core::{
    InputMode, SendResult, SessionId, SessionStatus, Terminals, WaitReason, is_repl_prompt,
    is_shell_prompt_of,
};
use parking_lot::Mutex;

/// Sessions with a question remembered before all are forgotten (each is taken by the
/// session's next send; a closed session's is left behind).
const MAX_SESSIONS: usize = 1024;

/// The question a session's last foreground send stopped at.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Question {
    /// The prompt's text (the cursor row before the cursor, trimmed).
    prompt: String,
    /// The program that reads the answer (`None`: the shell's own `read`).
    program: Option<String>,
    /// The session's prompt count then: a prompt drawn since means the program is gone.
    prompts_drawn: Option<u64>,
}

/// Per session, the question its last foreground send stopped at (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct QueuedAnswers(Mutex<HashMap<SessionId, Question>>);

impl QueuedAnswers {
    /// The prompt count of session `id` as a send to it starts (what [`Self::settled`] compares
    /// against: a prompt drawn during the send means it did not stop at a question).
    pub(crate) fn before_send(terminals: &Terminals, owner: &Agent, id: &SessionId) -> Option<u64> {
        terminals.prompts_drawn(owner, id)
    }

    /// A foreground send to session `id` settled with `result`, the session's prompt count
    /// having been `drawn_before` as it started: notes the question it stopped at, if any.
    pub(crate) fn settled(
        &self,
        terminals: &Terminals,
        owner: &Agent,
        id: &SessionId,
        result: &SendResult,
        drawn_before: Option<u64>,
    ) {
        let question = stopped_at_question(result)
            .then(|| terminals.prompts_drawn(owner, id))
            .filter(|drawn| drawn.is_some() && *drawn == drawn_before)
            .and_then(|prompts_drawn| {
                let program = result.foreground.clone();
                // None: the cursor at the row's start, no prompt shown.
                let row = terminals.cursor_row(owner, id).unwrap_or_default();
                let prompt = row.trim();
                let comm = program.as_deref().unwrap_or_default();
                // A shell's or REPL's own prompt reads a command, not an answer (one that
                // looks like a REPL's, `DB<1>` of Perl's debugger, is taken for one); a
                // question may show no prompt at all (`read n`, `head -1`).
                let asks = !is_shell_prompt_of(&row, comm) && !is_repl_prompt(prompt);
                asks.then(|| Question {
                    prompt: prompt.to_owned(),
                    program,
                    prompts_drawn,
                })
            });
        let mut questions = self.0.lock();
        match question {
            Some(question) => {
                if questions.len() >= MAX_SESSIONS {
                    questions.clear();
                }
                questions.insert(id.clone(), question);
            }
            None => {
                questions.remove(id);
            }
        }
    }

    /// A send of `text` (+ Enter when `submit`) to session `id` starts (foreground or
    /// background): takes the question the send before it stopped at, and returns the notice
    /// that the text answered it when the send was written before that send's result came back
    /// (`written_unseen`), it ends a line (text left without Enter waits on the question's
    /// input line), and no prompt came back since.
    pub(crate) fn take(
        &self,
        terminals: &Terminals,
        owner: &Agent,
        id: &SessionId,
        (text, submit): (&str, bool),
        written_unseen: bool,
    ) -> Option<String> {
        let question = self.0.lock().remove(id)?;
        if !written_unseen || !(submit || text.contains(['\n', '\r'])) {
            return None;
        }
        if terminals.prompts_drawn(owner, id) != question.prompts_drawn {
            return None;
        }
        Some(answered_unseen_notice(
            &question.prompt,
            question.program.as_deref(),
        ))
    }
}

/// Whether `result` settled with a program (or the shell's own `read`) reading a line at a
/// prompt of its own: no exit status came, the session runs, and the line reads plainly (a
/// password prompt, a continuation prompt or a full-screen program say so themselves).
fn stopped_at_question(result: &SendResult) -> bool {
    result.wait_reason == WaitReason::StdinRead
        && result.exit_code.is_none()
        && matches!(result.session_status, SessionStatus::Running)
        && result.input_mode == InputMode::Normal
        && !result.prompt_unmarked
        && !result.prompt_owed
        && !result.entered_none
}

/// The notice for a send whose text answered the question `prompt` of `program` (`None`: the
/// shell's own `read`) that the send before it stopped at, written before that result came
/// back.
fn answered_unseen_notice(prompt: &str, program: Option<&str>) -> String {
    let reader = program.unwrap_or("the shell's `read`");
    let question = if prompt.is_empty() {
        format!("{reader} waiting for input, with no prompt shown")
    } else {
        let prompt = dsh_terminal_core::clipped_prompt(prompt);
        format!("`{prompt}`, {reader} waiting for an answer")
    };
    format!(
        "[input: this send was written before the previous send's result came back, which stopped at a question ({question}): this text went to it as the answer, not to the shell; if it was meant as a command, it did not run]"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_notice() {
        insta::assert_snapshot!(super::answered_unseen_notice("Name? ", Some("python3")));
        insta::assert_snapshot!(super::answered_unseen_notice("Continue [y/N]", None));
        insta::assert_snapshot!(super::answered_unseen_notice("", Some("head")));
    }
}
