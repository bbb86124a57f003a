//! Background sends (`terminal_send {run_in_background: true}`) as `pty-send` jobs.
//!
//! The job's `run` starts the send synchronously, so the session's one-send slot is taken
//! before a job id exists and every refusal (capacity, no controller, busy session, unknown
//! session) happens before anything is written. The job's output is the send's consuming
//! `read_output`, drained often into a bounded window ([`output`]), so successive `job_output`
//! reads show new output only, as whole lines, saying what they left out and how to page it. Unlike a foreground send, the job does not end on silence or on the send deadline
//! (neither proves the command finished): it keeps following the session with polls until the
//! prompt returns, a program waits for input, or the session exits (see [`follow`]). `job_kill` interrupts the foreground job like `terminal_signal` SIGINT (the send's
//! own cancellation); the job then settles `killed` once the prompt is back. A job that ended
//! at a program's own input prompt (or in a full-screen program) leaves that program
//! running: `job_kill` of it then stops the program while no send answered it since (outcome
//! `leftover-interrupted`, see [`leftover`]), and a kill in flight stops it too. The session stays
//! busy until the job ends: a foreground send meanwhile is refused with an error naming the
//! job. Closing the session kills its job first.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use dsh_context::Agent;
use dsh_jobs::{
    JobError, JobHooks, JobId, JobRegistry, JobStart, JobStatus, OWNER_DISPOSED_REASON,
    SERVICE_DISPOSED_REASON,
};
use dsh_terminal_core::{ReadRequest, SendOperation, SendRequest, SessionId, Terminals};
use dsh_tools::ToolError;
use parking_lot::Mutex;

mod after_end;
mod describe;
mod follow;
mod gone_reader;
mod leftover;
mod output;
mod stragglers;

use describe::{Typed, label};
use follow::{KILL_ESCALATION, STOP_SLACK, follow, note_group};
use leftover::{JobEnds, Leftover, LeftoverStops};
use output::OutputWindow;

/// The job kind of background sends (ids `pty-send-N`).
pub const JOB_KIND: &str = "pty-send";
pub(crate) struct Background {
    jobs: Arc<dyn JobRegistry>,
    /// The last background job started per session (a hint: liveness is checked on use).
    /// An entry of a finished job goes once a send or a signal reached the session after it.
    by_session: Arc<Mutex<HashMap<SessionId, JobId>>>,
    /// When the kill of the session's job was first requested.
    kills: Arc<Mutex<HashMap<SessionId, tokio::time::Instant>>>,
    /// Programs a kill of a finished job terminated, while they may hold their terminal.
    leftover_stops: LeftoverStops,
    /// How many prompts the session had drawn when its last job ended leaving a program
    /// running (see `Leftover::watch`): one drawn since means the program is gone.
    ends: JobEnds,
    /// Programs the session's last job left waiting for the next send that ended since, no
    /// call having shown it (see [`gone_reader`]).
    gone_readers: gone_reader::GoneReaders,
}

/// How a background job holds its session, as a foreground send finds it (see
/// [`Background::busy_error`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JobHold {
    /// It runs.
    Running,
    /// Its kill was requested and is under way.
    Stopping,
    /// Its kill was requested and its last signal sent, and it still runs: its command
    /// outlived them (a loop in the session's shell itself that traps them).
    Unstoppable,
}

/// The send a job currently follows, and the output no read has taken yet (see [`output`]).
struct Stream {
    current: SendOperation,
    window: OutputWindow,
    terminals: Arc<Terminals>,
    owner: Agent,
    id: SessionId,
    /// Raw bytes the current send had produced at the previous drain.
    raw_seen: u64,
    /// The job's work has ended: the line being written is shown as it is.
    finished: bool,
    /// The newest screen of a full-screen program no read has shown yet: held back, since a
    /// newer one replaces it (a read shows the screen as it is, not every frame since), and
    /// put in the window before output that follows it and at the next read.
    screen: Option<String>,
}

impl Stream {
    fn new(
        current: SendOperation,
        terminals: Arc<Terminals>,
        owner: Agent,
        id: SessionId,
        limit: usize,
    ) -> Self {
        Self {
            current,
            window: OutputWindow::new(limit, id.as_str()),
            terminals,
            owner,
            id,
            raw_seen: 0,
            finished: false,
            screen: None,
        }
    }

    /// Moves the send's new output into the window. When the core's read bound dropped part of
    /// it, the lost lines are estimated from the raw bytes the terminal produced meanwhile.
    /// Returns how many bytes of text it moved.
    fn drain(&mut self) -> usize {
        let mut read = self.current.read_output();
        // Rows the program redrew since the last drain come again (a read with nothing new
        // yet after an erase says so too): they replace the lines that drain took, when no
        // read has shown those yet.
        self.window.rewind(read.rewound_lines);
        self.window.note_notices(std::mem::take(&mut read.notices));
        if read.delta.is_empty() && !read.truncated {
            return 0;
        }
        let raw = self.current.output_bytes();
        let raw_since = raw.saturating_sub(self.raw_seen);
        self.raw_seen = raw;
        if read.screen {
            let len = read.delta.len();
            self.screen = Some(read.delta);
            return len;
        }
        self.put_screen();
        if read.truncated {
            // The send's first lines the core kept through the loss go before it.
            if !read.head.is_empty() {
                self.window.push(&read.head, false);
            }
            // The terminal writes each newline as CR LF.
            let lines = read.delta.matches('\n').count() as u64;
            let head_lines = read.head.matches('\n').count() as u64;
            let kept_raw = read.delta.len() as u64 + lines + read.head.len() as u64 + head_lines;
            let lost_raw = raw_since.saturating_sub(kept_raw);
            // The lines dropped are the core's count of the line ends in them; when it has
            // none, they are estimated from the delta's share of newlines (the output's line
            // lengths vary, `seq`'s grow: the estimate was a fifth short). One huge line goes
            // on through the loss when the core counted no line end in what it dropped and
            // the delta starts with a long stretch of that line (a count of none alone is not
            // trusted for lines short enough to be told apart: it is estimated then too).
            let fragment = read.delta.find('\n').unwrap_or(read.delta.len());
            let one_line = read.lost_lines == Some(0) && fragment >= read.delta.len() / 2;
            let lost_lines = if one_line {
                0
            } else {
                match read.lost_lines {
                    Some(counted) if counted > 0 => counted,
                    _ => lost_raw.saturating_mul(lines) / kept_raw.max(1),
                }
            };
            self.window.push_after_loss(
                &read.delta,
                lost_lines,
                lost_raw.saturating_sub(lost_lines),
                one_line,
            );
            self.window.note_newest_line(read.newest_line);
            return read.delta.len();
        }
        let rewritten = read.restarts_line || self.rewritten(&read.delta);
        self.window.push(&read.delta, rewritten);
        self.window.note_newest_line(read.newest_line);
        read.delta.len()
    }

    /// Whether `delta` starts with the whole line being written rather than its continuation:
    /// the core starts a read from the line's start when the program rewrote the text before
    /// where the previous read ended (`\r`, erase line), and at times after a flood moved the
    /// line into history. The scrollback tells which: found by the whole lines that follow it
    /// in `delta` (newer output may have shifted it meanwhile), the line is either the
    /// continuation joined to what the window holds or the delta's first line alone. When the
    /// scrollback cannot tell (a flood moved the line past what a page looks at), a first line
    /// equal to what the window holds is that line again. A delta with no whole line after its
    /// first (a piece of the line being written, `printf .` in a loop) is told by that line
    /// alone, as the scrollback holds it now (it may have grown since): it restarts the line
    /// when the line starts with the piece but not with the window's text joined to it.
    fn rewritten(&self, delta: &str) -> bool {
        /// How many newer lines a page may look past for the line, after a race with output.
        const SLACK: u64 = 4096;
        /// How many of the lines that follow it identify the line.
        const FOLLOWING: usize = 3;
        let Some(held) = self.window.unfinished() else {
            return false;
        };
        let lines: Vec<&str> = delta.split('\n').collect();
        let first = lines[0].trim_end_matches(' ');
        let joined = format!("{held}{}", lines[0]);
        let joined = joined.trim_end_matches(' ');
        let whole = lines.len() as u64 - 1;
        // Whole lines after the first, newest excluded (it may still change).
        let following: Vec<&str> = lines
            .get(1..lines.len() - 1)
            .unwrap_or_default()
            .iter()
            .take(FOLLOWING)
            .map(|l| l.trim_end_matches(' '))
            .collect();
        if following.is_empty() {
            let request = ReadRequest {
                offset: Some(whole),
                count: Some(1),
                from_line: None,
            };
            let line = self.terminals.read(&self.owner, &self.id, request).ok();
            let line = line.as_ref().map(|page| page.text.trim_end_matches(' '));
            return !first.is_empty()
                && line.is_some_and(|line| line.starts_with(first) && !line.starts_with(joined));
        }
        let offset = whole - following.len() as u64;
        let request = ReadRequest {
            offset: Some(offset),
            count: Some(following.len() as u64 + 1 + SLACK),
            from_line: None,
        };
        let found = self
            .terminals
            .read(&self.owner, &self.id, request)
            .ok()
            .and_then(|page| {
                let page: Vec<String> = page
                    .text
                    .split('\n')
                    .map(|l| l.trim_end_matches(' ').to_owned())
                    .collect();
                (0..page.len().saturating_sub(following.len()))
                    .rev()
                    .find(|&i| {
                        !following.is_empty()
                            && page[i + 1..=i + following.len()]
                                .iter()
                                .zip(&following)
                                .all(|(a, b)| a == b)
                    })
                    .map(|i| page[i].clone())
            });
        match found {
            Some(line) if line == joined => false,
            Some(line) if line == first => true,
            _ => !first.is_empty() && first == held.trim_end_matches(' '),
        }
    }

    /// Puts the held screen in the window, without the blank rows below its last text (a
    /// program that draws a few lines left a screenful of empty ones).
    fn put_screen(&mut self) {
        if let Some(screen) = self.screen.take() {
            let text = screen.trim_end_matches(['\n', ' ']);
            if !text.is_empty() {
                self.window.push(&format!("{text}\n"), false);
            }
        }
    }

    /// Everything produced since the previous read, fitted to the job's limit.
    fn read(&mut self) -> String {
        self.drain();
        self.put_screen();
        // All the send handed out reaches the agent now (what the window leaves out, it names
        // with the way to page it): a line erased after this is no line the agent never saw.
        self.current.output_shown();
        let newest = ReadRequest {
            offset: Some(0),
            count: Some(1),
            from_line: None,
        };
        let retained = self
            .terminals
            .read(&self.owner, &self.id, newest)
            .ok()
            .map(|page| page.total_lines);
        self.window.take(self.finished, retained, self.id.as_str())
    }

    /// Follows `next` from now on, after taking the finished send's last output.
    fn switch_to(&mut self, next: SendOperation) {
        self.drain();
        self.current = next;
        self.raw_seen = 0;
    }
}

fn job_error(e: JobError) -> ToolError {
    let code = match &e {
        JobError::LimitReached(_) => "JOB_LIMIT",
        JobError::NoController => "NO_JOBS",
        _ => "JOBS",
    };
    ToolError::new(e.to_string()).with_code(code)
}

impl Background {
    pub(crate) fn new(jobs: Arc<dyn JobRegistry>) -> Self {
        let gone_readers = gone_reader::GoneReaders::default();
        // A job's status shown to the agent says its program is gone (see `gone_reader`).
        let seen = Arc::clone(&gone_readers);
        jobs.on_job_seen(Box::new(move |job| {
            seen.lock().retain(|_, gone| gone.job != job.id);
        }));
        Self {
            jobs,
            by_session: Arc::default(),
            kills: Arc::default(),
            leftover_stops: Arc::default(),
            ends: Arc::default(),
            gone_readers,
        }
    }

    /// The owner's live background job on session `id`, if any.
    pub(crate) fn active_job(&self, owner: &Agent, id: &SessionId) -> Option<JobId> {
        let job = self.by_session.lock().get(id).cloned()?;
        let live = self
            .jobs
            .get(&job, Some(owner))
            .is_ok_and(|s| s.status.is_live());
        live.then_some(job)
    }

    /// [`Background::active_job`], once a job whose kill was requested (`stopping`) had until
    /// its kill's last escalation (SIGKILL) and a little more to end, or the send's `timeout`
    /// passed first: with the job that still holds the session, and how (see [`JobHold`]).
    pub(crate) async fn active_job_after_stop(
        &self,
        owner: &Agent,
        id: &SessionId,
        timeout: Option<std::time::Duration>,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Option<(JobId, JobHold)> {
        let wait = 2 * KILL_ESCALATION + STOP_SLACK;
        let job = self.active_job(owner, id)?;
        let stopping = |job: &JobId| {
            self.jobs
                .get(job, Some(owner))
                .is_ok_and(|s| s.status == JobStatus::Stopping)
        };
        let since_kill = || {
            self.kills
                .lock()
                .get(id)
                .map_or(std::time::Duration::ZERO, tokio::time::Instant::elapsed)
        };
        // Whether the whole escalation passed with the job still there.
        let mut outlived = false;
        if stopping(&job) {
            match wait.checked_sub(since_kill()).filter(|d| !d.is_zero()) {
                Some(left) => {
                    // Within the send's own deadline.
                    let within = timeout.map_or(left, |t| t.min(left));
                    let _ = self
                        .jobs
                        .wait(&job, within.as_millis() as f64, Some(owner), cancel)
                        .await;
                    outlived = within == left && !cancel.is_cancelled();
                }
                None => outlived = true,
            }
        }
        let job = self.active_job(owner, id)?;
        let hold = if !stopping(&job) {
            JobHold::Running
        } else if outlived {
            JobHold::Unstoppable
        } else {
            JobHold::Stopping
        };
        Some((job, hold))
    }

    /// The error for a foreground send while a background job holds the session (`stopping`:
    /// its kill was requested and it has not ended yet).
    pub(crate) fn busy_error(id: &SessionId, job: &JobId, hold: JobHold) -> ToolError {
        if hold == JobHold::Unstoppable {
            return ToolError::new(format!(
                "terminal session {id} is busy with background job {job}, which job_kill could not stop: {}",
                unstoppable(id)
            ))
            .with_code("SEND_ACTIVE");
        }
        if hold == JobHold::Stopping {
            return ToolError::new(format!(
                "terminal session {id} is busy with background job {job}, which is stopping (job_kill was requested; a program that ignores the interrupt is terminated within seconds): wait for it with job_output {{\"job_id\": \"{job}\", \"wait\": true}}, then send again"
            ))
            .with_code("SEND_ACTIVE");
        }
        ToolError::new(format!(
            "terminal session {id} is busy with background job {job}; read it with job_output, wait for it with job_output {{\"job_id\": \"{job}\", \"wait\": true}}, or stop it with job_kill. To keep a server running while you use the session, stop the job and start the server with & instead (e.g. python3 -m http.server 8000 > server.log 2>&1 &)"
        ))
        .with_code("SEND_ACTIVE")
    }

    /// Starts a background send and returns its job id and the output shown so far (consumed,
    /// so the job's first read continues after it).
    pub(crate) fn start(
        &self,
        terminals: Arc<Terminals>,
        owner: &Agent,
        id: &SessionId,
        request: SendRequest,
        max_result_bytes: usize,
    ) -> Result<(JobId, String), ToolError> {
        if let Some(job) = self.active_job(owner, id) {
            return Err(Self::busy_error(id, &job, JobHold::Running));
        }
        self.kills.lock().remove(id);
        self.ends.lock().remove(id);
        let stream: Arc<Mutex<Option<Stream>>> = Arc::new(Mutex::new(None));
        let run_stream = stream.clone();
        // Text sent without Enter stays on the input line of whatever reads it.
        let typed = Typed::of(&request.text, request.submit);
        // A program already holding the terminal (a REPL) gets the job's text: its next prompt
        // ends the job without being a question the job stopped at; so does one below it that
        // holds the terminal again once the program in front ends (a nested shell under the
        // command an earlier send left running, which a poll job follows): none is the job's.
        let program_before = terminals.program_groups_held(owner, id);
        let run_owner = owner.clone();
        let run_id = id.clone();
        let kills = Arc::clone(&self.kills);
        let leftover = Arc::new(Leftover {
            jobs: Arc::downgrade(&self.jobs),
            by_session: Arc::clone(&self.by_session),
            job: Arc::default(),
            terminals: Arc::clone(&terminals),
            owner: owner.clone(),
            id: id.clone(),
            stops: Arc::clone(&self.leftover_stops),
            ends: Arc::clone(&self.ends),
            gone: Arc::clone(&self.gone_readers),
        });
        let job_slot = Arc::clone(&leftover.job);
        let spec = JobStart {
            kind: JOB_KIND.to_owned(),
            label: label(id, &request.text, terminals.input_hidden(owner, id)),
            output_limit_bytes: Some(max_result_bytes),
            owner: Some(owner.clone()),
            run: Box::new(move || {
                // No cancellation token: once the job id exists, the tool call's cancellation
                // no longer affects the send.
                let op = terminals
                    .start_send(&run_owner, &run_id, request)
                    .map_err(|e| e.to_string())?;
                op.in_background();
                *run_stream.lock() = Some(Stream::new(
                    op,
                    Arc::clone(&terminals),
                    run_owner.clone(),
                    run_id.clone(),
                    max_result_bytes,
                ));
                let cancel_requested = Arc::new(AtomicBool::new(false));
                // Whether the kill's interrupt went to a send still running (one that had
                // settled a moment before takes nothing: `follow` repeats it on a poll).
                let interrupted = Arc::new(AtomicBool::new(false));
                let cancel_stream = run_stream.clone();
                let cancel_flag = cancel_requested.clone();
                let cancel_interrupted = interrupted.clone();
                // The program groups the kill is for (see `follow::Cancel::groups`).
                let groups: Arc<Mutex<Vec<i32>>> = Arc::default();
                let cancel_groups = Arc::clone(&groups);
                let read_stream = run_stream.clone();
                let (end_terminals, end_owner, end_id) =
                    (Arc::clone(&terminals), run_owner.clone(), run_id.clone());
                Ok(JobHooks {
                    cancel: Box::new(move |reason| {
                        cancel_flag.store(true, Ordering::SeqCst);
                        kills
                            .lock()
                            .entry(end_id.clone())
                            .or_insert_with(tokio::time::Instant::now);
                        note_group(
                            &cancel_groups,
                            end_terminals.program_group(&end_owner, &end_id),
                        );
                        if let Some(s) = cancel_stream.lock().as_ref()
                            && s.current.cancel()
                        {
                            cancel_interrupted.store(true, Ordering::SeqCst);
                        }
                        // The agent (or the server) is going away and awaits its jobs: a
                        // program that survives the interrupt must not hold that up until the
                        // send's deadline, so its session is closed now, as it would be next.
                        if (reason == OWNER_DISPOSED_REASON || reason == SERVICE_DISPOSED_REASON)
                            && let Ok(runtime) = tokio::runtime::Handle::try_current()
                        {
                            let (terminals, owner, id) =
                                (end_terminals.clone(), end_owner.clone(), end_id.clone());
                            drop(runtime.spawn(async move {
                                let _ = terminals.kill(&owner, &id).await;
                            }));
                        }
                        Ok(())
                    }),
                    read_output: Some(Box::new(move || {
                        read_stream
                            .lock()
                            .as_mut()
                            .map(Stream::read)
                            .unwrap_or_default()
                    })),
                    stop_leftover: Some(Box::new({
                        let leftover = Arc::clone(&leftover);
                        move || leftover.interrupt()
                    })),
                    done: Box::pin(async move {
                        let killed = Arc::clone(&cancel_requested);
                        let mut outcome = follow(
                            terminals,
                            run_owner,
                            run_id,
                            run_stream,
                            follow::Cancel {
                                requested: cancel_requested,
                                interrupted,
                                on_unstoppable: Box::new({
                                    let leftover = Arc::clone(&leftover);
                                    move || leftover.note_unstoppable()
                                }),
                                groups,
                            },
                            typed,
                            program_before,
                        )
                        .await;
                        if let Ok(outcome) = &mut outcome {
                            leftover.job_ended(outcome, killed.load(Ordering::SeqCst));
                        }
                        outcome
                    }),
                })
            }),
        };
        let job = match self.jobs.start(spec) {
            Ok(job) => job,
            // The session's one-send slot is taken by a job this map has not seen yet.
            Err(JobError::Run(message)) => {
                return Err(ToolError::new(message).with_code("SEND_REJECTED"));
            }
            Err(e) => return Err(job_error(e)),
        };
        let _ = job_slot.set(job.clone());
        self.by_session.lock().insert(id.clone(), job.clone());
        let shown = stream.lock().as_mut().map(Stream::read).unwrap_or_default();
        Ok((job, shown))
    }

    /// Before a session closes: requests cancellation of its live job, so the job ends
    /// `killed` (the close then settles the send) rather than `completed`. Returns that job.
    pub(crate) fn end_session_job(&self, owner: &Agent, id: &SessionId) -> Option<JobId> {
        let job = self.active_job(owner, id)?;
        if let Err(e) = self
            .jobs
            .kill(&job, Some(owner), Some("terminal session closed"))
        {
            tracing::warn!(%job, error = %e, "could not cancel the background job of a closing session");
        }
        Some(job)
    }
}

/// Why `job_kill` could not stop a job's command, and what ends it (session `id`'s close).
pub(crate) fn unstoppable(id: &SessionId) -> String {
    format!(
        "its command outlived SIGINT, SIGTERM and SIGKILL to the foreground (it runs in the session's shell itself, such as a loop after trap '' INT TERM); terminal_close {{\"sessionId\": \"{id}\"}} ends the session and everything in it, then terminal_open starts a new one"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The errors for a send while a background job holds the session: running, stopping, or
    /// outliving its kill.
    #[test]
    fn busy_errors() {
        let (id, job) = (SessionId::new("pty-1"), JobId::new("pty-send-2"));
        let texts = [JobHold::Running, JobHold::Stopping, JobHold::Unstoppable]
            .map(|hold| Background::busy_error(&id, &job, hold).to_string());
        insta::assert_snapshot!("busy_errors", texts.join("\n"));
    }
}
