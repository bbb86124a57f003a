//! What a finished background job left running (a program at its prompt, or full-screen) as
//! later calls to its session meet it: a send that answers the prompt, a signal, a close, and
//! sends that wait while `job_kill` stops the program (see [`leftover`](super::leftover)).

use dsh_context::Agent;
use dsh_jobs::JobId;
use dsh_terminal_core::{SessionId, Terminals};

use super::Background;
use super::describe::{self, Typed, asked_its_repl, stopped_at_prompt};
use super::leftover::{self, PROMPT_CAME_BACK};

/// What a job's detail says once a send answered the program it left waiting: the agent
/// drives that program now, so `job_kill` of the job no longer stops it (its sends since went
/// to it; a shell command sent next does too, while it runs).
const ANSWERED: &str =
    "a later send answered it; job_kill of this job no longer stops that program";

/// What a job's detail says once a send went to the shell or REPL it left at its prompt: the
/// agent drives that program now (it holds what those sends did: a REPL's variables, a nested
/// shell's state), so `job_kill` of the job no longer stops it.
const USED_SINCE: &str =
    "a later send went to it; job_kill of this job no longer stops that program";

/// Longest wait for the shell's prompt after a signal that may have ended the program a job
/// left waiting (see [`Background::prompt_after_signal`]).
const SIGNAL_PROMPT_WAIT: std::time::Duration = std::time::Duration::from_millis(1000);
/// Pause between looks for that prompt.
const SIGNAL_PROMPT_TICK: std::time::Duration = std::time::Duration::from_millis(10);

impl Background {
    /// The notice for a send (foreground, or a background send's acknowledgement) of `text`
    /// (+ Enter when `submit`) to session `id` whose last background job stopped at a
    /// program's own prompt that no send answered since: the send's text answers that prompt,
    /// which the model saw only in the job's output (once per job), and the job's detail is
    /// put in the past. A shell or REPL the job started, at its prompt, is not answered but
    /// driven from then on: the job's detail is put in the past too (`job_kill` of the job no
    /// longer stops it). Nothing is answered, and the detail stays, by a poll (no text, no
    /// Enter), by text without Enter at a line prompt (it waits on the program's input line)
    /// or by keys to a full-screen program (it still runs). When the shell drew its prompt
    /// since the job ended, the program is gone (a signal ended it, a `read -t` timed out):
    /// the detail says so and nothing is answered; when nothing showed that yet, text is
    /// refused once (see [`gone_reader`](super::gone_reader)).
    ///
    /// # Errors
    /// The refusal of text for a program the job left waiting that ended unseen.
    pub(crate) fn take_stopped_at_prompt(
        &self,
        terminals: &Terminals,
        owner: &Agent,
        id: &SessionId,
        text: &str,
        submit: bool,
    ) -> Result<Option<String>, dsh_tools::ToolError> {
        self.refuse_text_for_gone_reader(terminals, owner, id, text, submit)?;
        Ok(self.stopped_at_prompt_answered(terminals, owner, id, text, submit))
    }

    /// [`Background::take_stopped_at_prompt`] past its refusal.
    fn stopped_at_prompt_answered(
        &self,
        terminals: &Terminals,
        owner: &Agent,
        id: &SessionId,
        text: &str,
        submit: bool,
    ) -> Option<String> {
        let typed = Typed::of(text, submit);
        if typed == Typed::Nothing {
            return None;
        }
        if self.note_prompt_came_back(terminals, owner, id) {
            return None;
        }
        let job = self.by_session.lock().get(id).cloned()?;
        let detail = self.finished_detail(owner, &job)?;
        let end = self.ends.lock().get(id).copied();
        // A signal since may have ended the program (its prompt not drawn yet): the send is
        // not said to answer it, and the watch tells once the prompt comes.
        if end.is_some_and(|e| e.signalled) {
            return None;
        }
        let Some(program) =
            stopped_at_prompt(&detail).or_else(|| asked_its_repl(&detail).map(Some))
        else {
            // A job that left nothing running (or only text on the shell's input line, which
            // this send continues) is done with: later sends need not look it up again; nor
            // is one that left a shell or REPL at its prompt, which this send's text goes to.
            if describe::left_a_shell(&detail) {
                self.amend_detail(owner, &job, &detail, USED_SINCE);
                self.forget_job(id);
            } else if !describe::left_a_program(&detail) || describe::left_unfinished(&detail) {
                self.amend_detail(owner, &job, &detail, "a later send reached the session");
                self.forget_job(id);
            }
            return None;
        };
        if typed == Typed::Unended && !describe::reads_single_keys(&detail) {
            return None;
        }
        self.forget_job(id);
        self.amend_detail(owner, &job, &detail, ANSWERED);
        let program = program.unwrap_or("the program");
        Some(format!(
            "[input: this text answered the prompt where background job {job} stopped ({program} was waiting for input); see the question with terminal_read {{\"sessionId\": \"{id}\", \"count\": 10}}]"
        ))
    }

    /// When the shell of session `id` drew its prompt since its last job ended leaving a
    /// program running (keys a send typed made the program quit, a signal ended it, a
    /// `read -t` timed out), the program is gone: the job's detail is put in the past at once
    /// (the watch would within its interval) and nothing is taken for waiting any more.
    /// Returns whether it did.
    pub(crate) fn note_prompt_came_back(
        &self,
        terminals: &Terminals,
        owner: &Agent,
        id: &SessionId,
    ) -> bool {
        self.prompt_came_back(terminals, owner, id, false)
    }

    /// [`Background::note_prompt_came_back`]; with `unseen` (nothing showed the agent the
    /// prompt that came back), a program the job left waiting for the next send, gone now
    /// without a signal, arms the guard of [`gone_reader`](super::gone_reader).
    pub(super) fn prompt_came_back(
        &self,
        terminals: &Terminals,
        owner: &Agent,
        id: &SessionId,
        unseen: bool,
    ) -> bool {
        let Some(end) = self.ends.lock().get(id).copied() else {
            return false;
        };
        if terminals
            .prompts_drawn(owner, id)
            .is_none_or(|now| now == end.drawn)
        {
            return false;
        }
        let job = self.by_session.lock().get(id).cloned();
        self.forget_job(id);
        if let Some(job) = job
            && let Some(detail) = self.finished_detail(owner, &job)
        {
            if unseen
                && !end.signalled
                && let Some(program) = super::gone_reader::left_waiting(&detail)
            {
                let gone = super::gone_reader::GoneReader {
                    job: job.clone(),
                    program,
                };
                self.gone_readers.lock().insert(id.clone(), gone);
            }
            self.amend_detail(owner, &job, &detail, PROMPT_CAME_BACK);
        }
        true
    }

    /// A signal was delivered to session `id` (see [`leftover::JobEnd::signalled`]).
    pub(crate) fn note_signal(&self, id: &SessionId) {
        if let Some(end) = self.ends.lock().get_mut(id) {
            end.signalled = true;
        }
    }

    /// After a signal to session `id` that may have ended the program its last job left
    /// waiting (the program ended, or the shell's own command such as `read` was
    /// interrupted): waits up to [`SIGNAL_PROMPT_WAIT`] for the shell's prompt, then puts the
    /// job's detail in the past at once, so a status read right after the signal does not
    /// still say the program waits (the watch would tell only within its interval). Returns
    /// at once when no job left a program waiting there.
    pub(crate) async fn prompt_after_signal(
        &self,
        terminals: &Terminals,
        owner: &Agent,
        id: &SessionId,
    ) {
        let deadline = tokio::time::Instant::now() + SIGNAL_PROMPT_WAIT;
        while self.ends.lock().contains_key(id)
            && !self.note_prompt_came_back(terminals, owner, id)
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(SIGNAL_PROMPT_TICK).await;
        }
    }

    /// Forgets session `id`'s last job: nothing it left is taken for waiting any more.
    fn forget_job(&self, id: &SessionId) {
        self.by_session.lock().remove(id);
        self.ends.lock().remove(id);
    }

    /// The detail of `job` once it finished (`None` while it runs, or without one).
    fn finished_detail(&self, owner: &Agent, job: &JobId) -> Option<String> {
        let snapshot = self.jobs.get(job, Some(owner)).ok()?;
        (!snapshot.status.is_live())
            .then_some(snapshot.detail)
            .flatten()
    }

    /// Puts a finished job's `detail` in the past once something (`since`) reached its session
    /// (see [`describe::detail_after`]); a detail that speaks only of the past stays.
    fn amend_detail(&self, owner: &Agent, job: &JobId, detail: &str, since: &str) {
        leftover::amend(&*self.jobs, owner, job, detail, since);
    }

    /// Forgets a closed session: its last job's detail no longer says a program it left still
    /// runs there.
    pub(crate) fn forget(&self, owner: &Agent, id: &SessionId) {
        self.leftover_stops.lock().remove(id);
        self.ends.lock().remove(id);
        let Some(job) = self.by_session.lock().remove(id) else {
            return;
        };
        if let Some(detail) = self.finished_detail(owner, &job) {
            self.amend_detail(owner, &job, &detail, "the session was closed since");
        }
    }

    /// Before text goes to session `id`: while a program that `job_kill` of a finished job
    /// terminated still holds the terminal, waits (polling `/proc`) until it is gone, its
    /// SIGKILL has had time to land, the send's `timeout` passes or `cancel` fires, so the
    /// text is not typed into the program on its way out.
    pub(crate) async fn leftover_gone(
        &self,
        id: &SessionId,
        timeout: Option<std::time::Duration>,
        cancel: &tokio_util::sync::CancellationToken,
    ) {
        /// How often the program is looked for.
        const POLL: std::time::Duration = std::time::Duration::from_millis(20);
        let Some(stop) = self.leftover_stops.lock().get(id).cloned() else {
            return;
        };
        let now = tokio::time::Instant::now();
        let end = timeout.map_or(stop.until, |t| stop.until.min(now + t));
        loop {
            let check = stop.clone();
            let holds = tokio::task::spawn_blocking(move || check.holds_terminal())
                .await
                .unwrap_or(false);
            let now = tokio::time::Instant::now();
            if !holds || now >= stop.until {
                self.leftover_stops.lock().remove(id);
                return;
            }
            if now >= end {
                return;
            }
            tokio::select! {
                () = tokio::time::sleep(POLL.min(end - now)) => {}
                () = cancel.cancelled() => return,
            }
        }
    }
}
