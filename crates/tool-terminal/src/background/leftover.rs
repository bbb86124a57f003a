//! `job_kill` of a background job that ended at a program's own input prompt: the job is
//! over, the program is not, and the kill stops it as it would have stopped the job.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, Weak};

use dsh_context::Agent;
use dsh_jobs::{JobId, JobOutcome, JobRegistry};
use dsh_terminal_core::process::{ProcessIdentity, stat};
use dsh_terminal_core::{SessionId, TerminalSignal, Terminals};
use parking_lot::Mutex;

use super::describe::{
    asked_its_repl, detail_after, detail_after_kill, left_a_program, left_a_statement,
};
use super::follow::{KILL_ESCALATION, STOP_SLACK};

/// Per session, how its last job ended leaving a program running (see [`JobEnd`]).
pub(super) type JobEnds = Arc<Mutex<HashMap<SessionId, JobEnd>>>;

/// A job that ended leaving a program running, as later sends to its session see it.
#[derive(Clone, Copy, Debug)]
pub(super) struct JobEnd {
    /// Prompts the session had drawn then: one drawn since means the program is gone.
    pub(super) drawn: u64,
    /// A signal was delivered to the session since: it may have ended the program, whose
    /// prompt then may not be drawn yet, so a send is not said to answer it.
    pub(super) signalled: bool,
}

/// What a job's detail says once the shell drew its prompt after the program the job left
/// (it ended by itself, or a signal ended it).
pub(crate) const PROMPT_CAME_BACK: &str =
    "the shell's prompt came back since: the next send runs as a shell command, not as its input";

/// Sessions whose leftover program `job_kill` terminated, while it may still hold the terminal
/// (see [`LeftoverStop`]).
pub(super) type LeftoverStops = Arc<Mutex<HashMap<SessionId, LeftoverStop>>>;

/// A program `job_kill` of a finished job sent SIGTERM (SIGKILL follows): text sent to its
/// session meanwhile would be typed into it, so sends wait until it is gone (see
/// `Background::leftover_gone`), at most until `until`.
#[derive(Clone, Debug)]
pub(super) struct LeftoverStop {
    /// The session's shell, whose `stat` names the terminal's foreground process group.
    shell: ProcessIdentity,
    /// The program's process group (its leader may be gone: `seq 1 1000 | less`).
    group: i32,
    /// When its SIGKILL has had time to land.
    pub(super) until: tokio::time::Instant,
}

impl LeftoverStop {
    /// Whether the program's process group still holds the terminal: never a command sent
    /// since (a new command gets a new group). Reads `/proc` (blocking).
    pub(super) fn holds_terminal(&self) -> bool {
        self.shell.is_alive() && stat(self.shell.pid).is_some_and(|s| s.tpgid == self.group)
    }
}

/// What `job_kill` of a finished job stops: the program its send left running (at an input
/// prompt, or full-screen), while no send answered it since (see
/// [`Leftover::interrupt`]).
pub(super) struct Leftover {
    pub(super) jobs: Weak<dyn JobRegistry>,
    pub(super) by_session: Arc<Mutex<HashMap<SessionId, JobId>>>,
    /// The job's id, set once the registry assigned it.
    pub(super) job: Arc<OnceLock<JobId>>,
    pub(super) terminals: Arc<Terminals>,
    pub(super) owner: Agent,
    pub(super) id: SessionId,
    pub(super) stops: LeftoverStops,
    pub(super) ends: JobEnds,
    pub(super) gone: super::gone_reader::GoneReaders,
}

/// What the job's detail says once the program was interrupted, or also terminated (see
/// [`terminated`]).
const INTERRUPTED: &str = "job_kill then sent it SIGINT";

/// How long a program `job_kill` interrupted at its prompt has to end (its Ctrl-C handling:
/// cleanup, a clean exit) before it gets SIGTERM.
const INTERRUPT_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// What a program left at its prompt was sent, and how it ended, at each step of
/// [`Leftover::stop`]'s escalation: `step` 0 right after the SIGINT, 1 after the SIGTERM, 2
/// after the SIGKILL; `ended`: the program no longer held the terminal when the next signal
/// was due (none was sent).
fn escalation(step: usize, ended: bool) -> String {
    let (grace, kill) = (INTERRUPT_GRACE.as_secs(), KILL_ESCALATION.as_secs());
    match (step, ended) {
        (0, false) => format!(
            "job_kill then sent it SIGINT, and sends SIGTERM {grace} s later and SIGKILL {kill} s after that while it still holds the terminal"
        ),
        (0, true) => format!("job_kill then sent it SIGINT, and it ended within {grace} s"),
        (1, false) => format!(
            "job_kill then sent it SIGINT and SIGTERM {grace} s later while it still held the terminal, and sends SIGKILL {kill} s after that while it still does"
        ),
        (1, true) => format!(
            "job_kill then sent it SIGINT and SIGTERM {grace} s later while it still held the terminal, and it ended within {kill} s after that"
        ),
        _ => format!(
            "job_kill then sent it SIGINT, SIGTERM {grace} s later and SIGKILL {kill} s after that while it still held the terminal"
        ),
    }
}

/// How often [`Leftover::watch`] looks whether the program ended by itself.
const WATCH_INTERVAL: std::time::Duration = std::time::Duration::from_millis(500);

/// Puts a finished job's `detail` in the past once something (`since`) reached its session
/// (see [`detail_after`]); a detail that speaks only of the past stays.
pub(super) fn amend(jobs: &dyn JobRegistry, owner: &Agent, job: &JobId, detail: &str, since: &str) {
    if let Some(amended) = detail_after(detail, since)
        && let Err(e) = jobs.amend_detail(job, Some(owner), amended)
    {
        tracing::debug!(job = %job, error = %e, "job detail not amended");
    }
}

impl Leftover {
    /// The job's work ended with `outcome`. When it left a program running: a job whose kill
    /// was requested (`killed`, the program reached its prompt before the kill's escalation)
    /// gets that program stopped now, as `job_kill` of the finished job would, with the
    /// outcome's detail saying so; otherwise the prompts drawn so far are recorded and
    /// [`Leftover::watch`] looks for the program's end.
    pub(super) fn job_ended(self: &Arc<Self>, outcome: &mut JobOutcome, killed: bool) {
        let Some(detail) = outcome.detail.clone().filter(|d| left_a_program(d)) else {
            return;
        };
        if killed {
            if let Some(stopped) = self.stop(&detail) {
                outcome.detail = Some(stopped);
            }
            return;
        }
        let Some(drawn) = self.terminals.prompts_drawn(&self.owner, &self.id) else {
            return;
        };
        self.ends.lock().insert(
            self.id.clone(),
            JobEnd {
                drawn,
                signalled: false,
            },
        );
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            drop(runtime.spawn(Arc::clone(self).watch(drawn)));
        }
    }

    /// After the job ended leaving a program running (`drawn` prompts had been drawn then):
    /// looks every [`WATCH_INTERVAL`] whether the shell drew a prompt since, which means the
    /// program ended (by itself: `read -t` timed out, a program exited on an alarm; or by
    /// what a later background job typed to it, such as a pager's `q`). Then the job's detail
    /// is put in the past (a detail an answer or a kill already put there stays), and, while
    /// it is still the session's last job, neither the next send nor `job_kill` takes the
    /// program for still waiting. Ends with the session.
    pub(super) async fn watch(self: Arc<Self>, drawn: u64) {
        loop {
            tokio::time::sleep(WATCH_INTERVAL).await;
            let Some(jobs) = self.jobs.upgrade() else {
                return;
            };
            // Set once the registry returned the id (the job may end before that).
            let Some(job) = self.job.get() else {
                continue;
            };
            let Some(now) = self.terminals.prompts_drawn(&self.owner, &self.id) else {
                return;
            };
            if now == drawn {
                continue;
            }
            let detail = jobs.get(job, Some(&self.owner)).ok().and_then(|s| s.detail);
            {
                let mut by_session = self.by_session.lock();
                if by_session.get(&self.id) == Some(job) {
                    by_session.remove(&self.id);
                    let end = self.ends.lock().remove(&self.id);
                    // Nobody saw the program go: the next send's text was meant for it.
                    if let Some(program) =
                        detail.as_deref().and_then(super::gone_reader::left_waiting)
                        && end.is_some_and(|e| !e.signalled)
                    {
                        let gone = super::gone_reader::GoneReader {
                            job: job.clone(),
                            program,
                        };
                        self.gone.lock().insert(self.id.clone(), gone);
                    }
                }
            }
            if let Some(detail) = detail {
                amend(&*jobs, &self.owner, job, &detail, PROMPT_CAME_BACK);
            }
            return;
        }
    }

    /// `job_kill` of the finished job: when it left a program running (its detail says so: at
    /// a prompt of its own, or full-screen), or left a REPL asking a question of the job's,
    /// and it is still the session's last job with no answer since (signals and keys to a
    /// full-screen program leave it so), the program or the question is stopped (see
    /// [`Leftover::stop`]) and the prompt is no longer taken for the one the next send
    /// answers. Returns the job's detail from now on, when the interrupt was delivered.
    pub(super) fn interrupt(&self) -> Option<String> {
        let (job, jobs) = (self.job.get()?, self.jobs.upgrade()?);
        let detail = jobs
            .get(job, Some(&self.owner))
            .ok()
            .filter(|s| !s.status.is_live())?
            .detail
            .filter(|d| left_a_program(d) || asked_its_repl(d).is_some() || left_a_statement(d))?;
        {
            let mut by_session = self.by_session.lock();
            if by_session.get(&self.id) != Some(job) {
                return None;
            }
            by_session.remove(&self.id);
            self.ends.lock().remove(&self.id);
        }
        self.stop(&detail)
    }

    /// Stops the program a job left running (its `detail`): SIGINT to the session's
    /// foreground, exactly as `terminal_signal` delivers it. A program other than the
    /// shell (whose own `read` the interrupt ends) that still holds the terminal
    /// [`INTERRUPT_GRACE`] later gets SIGTERM, for a REPL takes SIGINT at its prompt and stays
    /// (Python's `KeyboardInterrupt`, node's "press Ctrl+C again"), as do pagers and editors
    /// (the grace lets a program that handles Ctrl-C finish its cleanup), and SIGKILL
    /// [`KILL_ESCALATION`] after that; until then it is recorded in `stops`, so sends wait for
    /// it to go.
    /// Returns the job's detail from now on, which says what it did, when the interrupt was
    /// delivered.
    fn stop(&self, detail: &str) -> Option<String> {
        let interrupt = self
            .terminals
            .signal(&self.owner, &self.id, TerminalSignal::Sigint)
            .ok()
            .filter(|r| r.delivered)?;
        // The shell's own `read` ends at the interrupt; a REPL's question (the job's
        // `input()`) ends in the statement's KeyboardInterrupt, and an unfinished statement
        // is discarded: the REPL stays.
        if interrupt.shell_targeted || asked_its_repl(detail).is_some() || left_a_statement(detail)
        {
            return Some(detail_after_kill(detail, INTERRUPTED));
        }
        // Only the same program, still in the foreground (the interrupt may have ended it,
        // and the shell's prompt is back): never a command sent since.
        let shell = self
            .terminals
            .list(&self.owner)
            .into_iter()
            .find(|s| s.session_id == self.id)
            .and_then(|s| s.pid)
            .and_then(|pid| ProcessIdentity::of(i32::try_from(pid).ok()?));
        let Some(stop) = shell
            .map(|shell| LeftoverStop {
                shell,
                group: interrupt.target_pgid,
                until: tokio::time::Instant::now() + INTERRUPT_GRACE + KILL_ESCALATION + STOP_SLACK,
            })
            .filter(LeftoverStop::holds_terminal)
        else {
            return Some(detail_after_kill(detail, INTERRUPTED));
        };
        self.stops.lock().insert(self.id.clone(), stop.clone());
        let (terminals, owner, id) = (
            Arc::clone(&self.terminals),
            self.owner.clone(),
            self.id.clone(),
        );
        // The job's detail says each step as it happens.
        let (jobs, job, original) = (
            self.jobs.clone(),
            self.job.get().cloned(),
            detail.to_owned(),
        );
        let say = move |owner: &Agent, step: usize, ended: bool| {
            let (Some(jobs), Some(job)) = (jobs.upgrade(), job.as_ref()) else {
                return;
            };
            let detail = detail_after_kill(&original, &escalation(step, ended));
            if let Err(e) = jobs.amend_detail(job, Some(owner), detail) {
                tracing::debug!(job = %job, error = %e, "job detail not amended");
            }
        };
        let escalate = async move {
            for (step, (after, signal)) in [
                (INTERRUPT_GRACE, TerminalSignal::Sigterm),
                (KILL_ESCALATION, TerminalSignal::Sigkill),
            ]
            .into_iter()
            .enumerate()
            {
                tokio::time::sleep(after).await;
                let check = stop.clone();
                let holds = tokio::task::spawn_blocking(move || check.holds_terminal())
                    .await
                    .unwrap_or(false);
                if !holds {
                    say(&owner, step, true);
                    return;
                }
                if let Err(e) = terminals.signal(&owner, &id, signal) {
                    tracing::debug!(session_id = %id, %signal, error = %e, "leftover program not stopped");
                }
                say(&owner, step + 1, false);
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn(escalate)),
            Err(_) => {
                tracing::debug!(session_id = %self.id, "no runtime: leftover program only interrupted")
            }
        }
        Some(detail_after_kill(detail, &escalation(0, false)))
    }

    /// The job's kill spent its signals and its command still runs (see
    /// `follow::Cancel::on_unstoppable`): its status says why and what ends it.
    pub(super) fn note_unstoppable(&self) {
        let (Some(job), Some(jobs)) = (self.job.get(), self.jobs.upgrade()) else {
            return;
        };
        let detail = format!(
            "job_kill could not stop it: {}",
            super::unstoppable(&self.id)
        );
        if let Err(e) = jobs.note_unstoppable(job, Some(&self.owner), detail) {
            tracing::debug!(job = %job, error = %e, "unstoppable job not noted");
        }
    }
}
