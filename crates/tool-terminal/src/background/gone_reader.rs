//! A program a finished background job left waiting for the next send (at a prompt of its own,
//! a REPL or nested shell it started, a full-screen program) that ended by itself before that
//! send came (`read -t` ran out, the REPL exited): the job's status told the agent that its
//! next send answers the program, and that text would now run as a shell command at the
//! shell's prompt instead (an answer `yes` ran `yes`). Such a send is refused once, before
//! anything is typed, as a foreground result's reader that ended is; sent again, it goes. A
//! `terminal_signal` (the agent acts on the session and expects a change), a read of the
//! session's newest lines, a poll (both show the prompt that came back), a read or a list of
//! the job's status once it says so, and a `job_kill` of the job clear the guard.

use std::collections::HashMap;
use std::sync::Arc;

use dsh_context::Agent;
use dsh_jobs::JobId;
use dsh_terminal_core::{SessionId, Terminals};
use dsh_tools::ToolError;
use parking_lot::Mutex;

use super::Background;
use super::describe::{self, Typed};

/// The programs jobs left waiting that ended since, by session (see the module docs).
pub(super) type GoneReaders = Arc<Mutex<HashMap<SessionId, GoneReader>>>;

/// A program job `job` left waiting for the next send, gone since.
#[derive(Clone, Debug)]
pub(super) struct GoneReader {
    pub(super) job: JobId,
    /// The program's name, when the job's detail gave it.
    pub(super) program: Option<String>,
}

/// Whether a finished job's `detail` told the agent that its next send goes to a program the
/// job left running (not the session's shell): `Some`, with the program's name when known.
pub(super) fn left_waiting(detail: &str) -> Option<Option<String>> {
    if let Some(program) = describe::stopped_at_prompt(detail) {
        return Some(program.map(str::to_owned));
    }
    if let Some(program) = describe::asked_its_repl(detail) {
        return Some(Some(program.to_owned()));
    }
    (describe::left_a_program(detail) && !describe::left_unfinished(detail)
        || describe::left_a_statement(detail))
    .then_some(None)
}

/// The refusal of text for the program job `job` left waiting, gone since.
pub(super) fn refusal(job: &JobId, program: Option<&str>) -> ToolError {
    let what = program.map_or("the program".to_owned(), |p| format!("`{p}`"));
    ToolError::new(format!(
        "nothing was typed: {what}, which background job {job} left waiting for the next send, \
         has ended since (it timed out, exited or was killed) and the shell's prompt is back, \
         so this text would run as a shell command instead of going to it; poll (empty text, \
         submit: false) or read job_output {{\"job_id\": \"{job}\"}} to see what happened, \
         run the program again to answer it, or send the text again if it is a command for the \
         shell"
    ))
    .with_code("READER_GONE")
}

impl Background {
    /// Before a send of `text` (+ Enter when `submit`) to session `id`: when the program its
    /// last job left waiting ended since and no call showed that to the agent, the send is
    /// refused (once); a poll clears the guard instead.
    ///
    /// # Errors
    /// [`refusal`], once per gone program.
    pub(super) fn refuse_text_for_gone_reader(
        &self,
        terminals: &Terminals,
        owner: &Agent,
        id: &SessionId,
        text: &str,
        submit: bool,
    ) -> Result<(), ToolError> {
        // Gone since the watch last looked: found now.
        self.prompt_came_back(terminals, owner, id, true);
        let Some(gone) = self.gone_readers.lock().remove(id) else {
            return Ok(());
        };
        if Typed::of(text, submit) == Typed::Nothing {
            return Ok(());
        }
        Err(refusal(&gone.job, gone.program.as_deref()))
    }

    /// Something showed the agent the session as it is now, or it acted on it (a read of the
    /// newest lines, a signal): no guard for a program a job left waiting.
    pub(crate) fn clear_gone_reader(&self, id: &SessionId) {
        self.gone_readers.lock().remove(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refusal is model-visible: it names the program and the job, and says how to go on.
    #[test]
    fn refusal_text() {
        let job = JobId::new("pty-send-3");
        insta::assert_snapshot!(refusal(&job, Some("python3")).message, @r#"nothing was typed: `python3`, which background job pty-send-3 left waiting for the next send, has ended since (it timed out, exited or was killed) and the shell's prompt is back, so this text would run as a shell command instead of going to it; poll (empty text, submit: false) or read job_output {"job_id": "pty-send-3"} to see what happened, run the program again to answer it, or send the text again if it is a command for the shell"#);
        insta::assert_snapshot!(refusal(&job, None).message, @r#"nothing was typed: the program, which background job pty-send-3 left waiting for the next send, has ended since (it timed out, exited or was killed) and the shell's prompt is back, so this text would run as a shell command instead of going to it; poll (empty text, submit: false) or read job_output {"job_id": "pty-send-3"} to see what happened, run the program again to answer it, or send the text again if it is a command for the shell"#);
    }
}
