//! Following a background send to its end: its output drained into the job's window, polls
//! after a send that settled without showing the command finished, and the escalation of a
//! killed job's signals.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use dsh_context::Agent;
use dsh_jobs::{FinalStatus, JobOutcome};
use dsh_terminal_core::{
    EarlierExits, SendRequest, SendResult, SessionId, SessionStatus, TerminalSignal, WaitReason,
};
use parking_lot::Mutex;

use super::Stream;
use super::describe::{Typed, at_shell_prompt, detail, left_a_program, replaced_the_shell};
use super::stragglers::stop_stragglers;
use crate::{Terminals, start_send_when_free};

/// How often a running job moves its send's output into its window, so that the core's read
/// bound (`max_read_bytes`) seldom drops output between `job_output` reads.
const DRAIN_EVERY: Duration = Duration::from_millis(20);
/// The pace while output floods (a drain moved more than [`FLOOD_BYTES`]) and during a job's
/// first [`YOUNG`]: a fast flood fills the core's read bound within milliseconds, and the
/// first lines (the command line) are the ones a read keeps.
const DRAIN_FAST: Duration = Duration::from_millis(2);
/// See [`DRAIN_FAST`].
const FLOOD_BYTES: usize = 16 * 1024;
/// See [`DRAIN_FAST`].
const YOUNG: Duration = Duration::from_millis(200);

/// After `job_kill`: how long the command has to end after its interrupt before it gets
/// SIGTERM, and again after that before SIGKILL (as a user would press Ctrl-C, then kill it).
pub(super) const KILL_ESCALATION: Duration = Duration::from_secs(3);
/// How long past its SIGKILL a stopping job may take to end before a send gives up on it.
pub(super) const STOP_SLACK: Duration = Duration::from_secs(2);

/// The signals a killed job's command got past its interrupt.
#[derive(Default)]
struct Escalation {
    killed_at: Option<tokio::time::Instant>,
    sent: usize,
    /// The program group the SIGTERM went to: SIGKILL goes only while it still holds the
    /// terminal (once it ended, what holds it is the program that ran it, a nested shell back
    /// at its prompt, which the kill was never meant for).
    target: Option<i32>,
}

impl Escalation {
    /// Whether every signal went out and SIGKILL has had [`STOP_SLACK`] to land.
    fn exhausted(&self) -> bool {
        self.sent >= 2
            && self
                .killed_at
                .is_some_and(|at| at.elapsed() >= 2 * KILL_ESCALATION + STOP_SLACK)
    }

    /// Brings the SIGTERM due now (SIGKILL [`KILL_ESCALATION`] after it), for a program that
    /// outlived the interrupt and waits for input: nothing it does would end it sooner.
    fn hurry(&mut self) {
        if self.sent == 0 {
            let now = tokio::time::Instant::now();
            self.killed_at = Some(now.checked_sub(KILL_ESCALATION).unwrap_or(now));
        }
    }

    /// Sends the foreground SIGTERM once [`KILL_ESCALATION`] passed since the kill, and SIGKILL
    /// once it passed again while the group SIGTERM went to still holds the terminal (a
    /// refusal, such as SIGKILL to the shell itself, is left there).
    fn step(&mut self, terminals: &Terminals, owner: &Agent, id: &SessionId, killed: bool) {
        if !killed {
            return;
        }
        let since = self
            .killed_at
            .get_or_insert_with(tokio::time::Instant::now)
            .elapsed();
        let signal = match self.sent {
            0 if since >= KILL_ESCALATION => TerminalSignal::Sigterm,
            1 if since >= 2 * KILL_ESCALATION => TerminalSignal::Sigkill,
            _ => return,
        };
        self.sent += 1;
        if signal == TerminalSignal::Sigkill
            && self.target.is_some()
            && terminals.program_group(owner, id) != self.target
        {
            tracing::debug!(session_id = %id, "the group SIGTERM went to is gone: no SIGKILL");
            return;
        }
        match terminals.signal(owner, id, signal) {
            Ok(result) => {
                if signal == TerminalSignal::Sigterm {
                    self.target = Some(result.target_pgid);
                }
            }
            Err(e) => {
                tracing::debug!(session_id = %id, %signal, error = %e, "killed job not escalated");
            }
        }
    }
}

/// A job's kill as [`follow`] sees it.
pub(super) struct Cancel {
    /// `job_kill` (or the job's owner going away) asked the job to stop.
    pub(super) requested: Arc<AtomicBool>,
    /// The interrupt went to a send still running: one that settled a moment before the kill
    /// took none, and the program it left running got nothing.
    pub(super) interrupted: Arc<AtomicBool>,
    /// Called once when the kill's signals are spent and the send still runs (its command
    /// outlived SIGINT, SIGTERM and SIGKILL): the job's status says so from then on.
    pub(super) on_unstoppable: Box<dyn FnOnce() + Send>,
    /// The program groups that held the terminal when the kill was requested or after it:
    /// what of them outlives the command line is stopped too (see [`stop_stragglers`]).
    pub(super) groups: Arc<Mutex<Vec<i32>>>,
}

/// Notes `group` among the groups a kill is for (see [`Cancel::groups`]).
pub(super) fn note_group(groups: &Mutex<Vec<i32>>, group: Option<i32>) {
    /// Most groups noted (a kill meets few).
    const MOST_GROUPS: usize = 16;
    let mut groups = groups.lock();
    if let Some(group) = group
        && !groups.contains(&group)
        && groups.len() < MOST_GROUPS
    {
        groups.push(group);
    }
}

/// The notice ending a killed job's output when the kill reached nothing: the command line
/// had already run to its end (builtins only, done before the interrupt's grace was over),
/// so everything it does was done.
pub(super) const KILL_TOO_LATE_NOTICE: &str = "[job: job_kill came after the command line \
     had ended (no signal reached it), so the job counts as completed: its commands ran to \
     their end, and what they did stays done]";

/// The notice ending a killed job's output when the kill's escalation (`signal`: SIGTERM or
/// SIGKILL) ended `program`, which held the terminal before the job (a REPL the job's
/// statement went to, which ran on through the interrupt), and the shell's prompt is back.
fn held_before_ended_notice(program: &str, signal: &str) -> String {
    format!(
        "[job: job_kill's {signal} ended {program}, which held the terminal before this job (the job's \
         text ran on through SIGINT): {program} is gone with everything it held, and the shell's \
         prompt is back: the next send runs as a shell command, not in {program} (start it again \
         to go on)]"
    )
}

/// The notice ending a killed job's output when its command ran to its end all the same.
pub(super) const KILL_MISSED_NOTICE: &str = "[job: job_kill did not stop the command line: it \
     survived SIGINT and SIGTERM, SIGKILL stopped only the program running at the time, and \
     the line ran on to its end, exiting 0 (a shell that ignores the signals, trap '' INT TERM, \
     goes on with its line), so the job counts as completed]";

/// The notice ending a killed job's output when its command line ended with exit 0 after the
/// kill's SIGTERM (not its SIGKILL): a program that shuts down cleanly on SIGTERM ends so, and
/// so does a line that ran on past the program the signal stopped; only the output tells.
pub(super) const KILL_EXIT_0_NOTICE: &str = "[job: the command line ended with exit 0 after \
     job_kill's SIGTERM: its program may have shut down cleanly on it, or the line ran on past \
     the program SIGTERM stopped (a shell that ignores SIGINT, trap '' INT, goes on with its \
     line); the output shows which commands ran]";

/// Whether `result` shows the job's command ran to its end: the shell's prompt came back with
/// exit status 0 (a command a signal stopped exits 128 + the signal's number).
fn ran_to_its_end(result: &SendResult) -> bool {
    result.wait_reason == WaitReason::StdinRead
        && result.foreground.is_none()
        && result.exit_code == Some(0)
}

/// How long a follow-up poll may wait for the previous send to release the session's slot.
const SLOT_RELEASE_WAIT: Duration = Duration::from_secs(5);

/// Follows a background send until the program is ready for input or the session exits.
///
/// A send that settles on silence (`inferred_idle`), on its deadline (`timeout`) or with a
/// REPL that reads again without its prompt ([`SendResult::prompt_owed`]) has not shown that
/// the command finished, so a background job does not end there: it continues with
/// a poll (an empty send without Enter), whose output continues exactly where the previous
/// send's ended, until the prompt comes back, a program waits for input, the session exits, or
/// the job is killed. `program_before`: the program groups that held the terminal when the job
/// began, the one in front first (see [`Terminals::program_groups_held`]), so the next prompt
/// of any of them is told from a question the job stopped at, and none is taken for a shell
/// or REPL the job started.
pub(super) async fn follow(
    terminals: Arc<Terminals>,
    owner: Agent,
    id: SessionId,
    stream: Arc<Mutex<Option<Stream>>>,
    cancel: Cancel,
    typed: Typed,
    program_before: Vec<i32>,
) -> Result<JobOutcome, String> {
    let Cancel {
        requested: cancel_requested,
        interrupted,
        on_unstoppable,
        groups,
    } = cancel;
    // The kill took effect on a send of the job (its interrupt went to the foreground, or it
    // kept text from being typed) or its escalation sent a signal: a kill that did neither
    // came after the command line ended.
    let mut delivered = false;
    let mut on_unstoppable = Some(on_unstoppable);
    // The program that held the terminal before the job (a REPL), by name: a kill's
    // escalation that ends it says so.
    let held_before = program_before.first().and_then(|&group| {
        terminals
            .group_members(&owner, &id, group)
            .into_iter()
            .next()
    });
    // The kill's escalation reached SIGKILL (the command had survived SIGINT and SIGTERM).
    let mut sigkill_sent = false;
    // It reached SIGTERM (the command had survived SIGINT).
    let mut sigterm_sent = false;
    let outcome = |result: &SendResult, earlier: &EarlierExits, ran_on: bool| {
        let status = if cancel_requested.load(Ordering::SeqCst) && !ran_on {
            FinalStatus::Killed
        } else {
            FinalStatus::Completed
        };
        let held_before = terminals
            .program_group(&owner, &id)
            .is_some_and(|group| program_before.contains(&group));
        // Its prompt (the cursor row: the result's text may have been read already): a
        // REPL's, or a nested shell's (`bash-5.2$`), is no question the job asked.
        let program = result.foreground.as_deref().unwrap_or_default();
        // A shell or REPL the job started (`sh`, `node`), at its command prompt, asked no
        // question either; of such a program only its own REPL's prompt counts (a script's
        // `stubborn> ` is its question).
        let row = terminals.cursor_row(&owner, &id);
        let shell_prompt = row
            .as_deref()
            .is_some_and(|row| dsh_terminal_core::is_shell_prompt_of(row, program));
        // A question shows text before the cursor: an empty row is output that came after the
        // REPL's prompt (a timer's line), no question.
        let own_prompt = held_before
            && !shell_prompt
            && row.as_deref().is_some_and(|row| {
                !row.trim().is_empty() && !dsh_terminal_core::is_repl_prompt(row)
            });
        let shell_started = !held_before
            && (shell_prompt
                || row
                    .as_deref()
                    .is_some_and(|row| dsh_terminal_core::is_repl_prompt_of(row.trim(), program)));
        let detail = detail(result, earlier, typed, held_before, own_prompt);
        let running = matches!(result.session_status, SessionStatus::Running);
        let detail = if !held_before && running && terminals.program_replaced_shell(&owner, &id) {
            replaced_the_shell(
                &detail,
                result.foreground.as_deref().unwrap_or("the program"),
            )
        } else if shell_started {
            at_shell_prompt(detail)
        } else {
            detail
        };
        JobOutcome::new(status, Some(detail))
    };
    // Commands that finished before the job's last one, over every send it followed (each
    // send's span starts where the previous one's ended).
    let mut earlier = EarlierExits::default();
    let started = tokio::time::Instant::now();
    // Over every send the job follows: a kill escalates from the first send it reached on.
    let mut escalation = Escalation::default();
    loop {
        let Some(op) = stream.lock().as_ref().map(|s| s.current.clone()) else {
            return Err("background send lost its operation".to_owned());
        };
        let settled = {
            let done = op.done();
            tokio::pin!(done);
            let mut pause = DRAIN_FAST;
            loop {
                tokio::select! {
                    settled = &mut done => {
                        sigkill_sent |= escalation.sent >= 2;
                        sigterm_sent |= escalation.sent >= 1;
                        break settled;
                    }
                    () = tokio::time::sleep(pause) => {
                        let drained = stream.lock().as_mut().map_or(0, Stream::drain);
                        pause = if drained > FLOOD_BYTES || started.elapsed() < YOUNG {
                            DRAIN_FAST
                        } else {
                            DRAIN_EVERY
                        };
                        let killed = cancel_requested.load(Ordering::SeqCst);
                        if killed {
                            note_group(&groups, terminals.program_group(&owner, &id));
                        }
                        escalation.step(&terminals, &owner, &id, killed);
                        if escalation.exhausted()
                            && let Some(note) = on_unstoppable.take()
                        {
                            note();
                        }
                    }
                }
            }
        };
        // The job's output ends with the notices of the send it settled on, as a foreground
        // result does (a full-screen program left on, the terminal modes restored, a cap hit).
        let finish = |notices: &[String]| {
            if let Some(s) = stream.lock().as_mut() {
                s.drain();
                // As whole lines, which the window's room counts (the line being written is
                // added after it: a long notice there pushed the read over the job's limit,
                // whose cut then dropped the output's first lines).
                if !notices.is_empty() {
                    s.window.push(&format!("\n{}\n", notices.join("\n")), false);
                }
                s.finished = true;
            }
        };
        let result = match settled {
            Ok(result) => result,
            Err(e) => {
                finish(&[]);
                return Ok(JobOutcome::new(
                    FinalStatus::Failed,
                    Some(format!("Error: {e}")),
                ));
            }
        };
        earlier.append(&result.earlier_exits);
        delivered |= (cancel_requested.load(Ordering::SeqCst) && op.cancel_took_effect())
            || escalation.sent > 0;
        // The job ends with `result`. Whether its command ran on to its end through the kill:
        // SIGINT and SIGTERM left it running, and SIGKILL stopped only the program running at
        // the time (a shell that ignores them, `trap '' INT TERM`, goes on with its line). A
        // program that ends cleanly on the interrupt (a graceful shutdown, exit 0) was stopped.
        let end = |result: &SendResult, stragglers: Option<String>| {
            let cancelled = cancel_requested.load(Ordering::SeqCst);
            // The kill reached nothing: the shell's prompt came back with the line done, no
            // program of it left waiting.
            let too_late = cancelled
                && !delivered
                && result.wait_reason == WaitReason::StdinRead
                && result.foreground.is_none()
                && matches!(result.session_status, SessionStatus::Running)
                && !left_a_program(&outcome(result, &earlier, false).detail.unwrap_or_default());
            let ran_on = too_late || (cancelled && sigkill_sent && ran_to_its_end(result));
            let mut notices = result.notices.clone();
            notices.extend(stragglers);
            // The escalation ended the program the job's text went to: the shell reads now.
            if cancelled
                && sigterm_sent
                && matches!(result.session_status, SessionStatus::Running)
                && terminals.program_group(&owner, &id).is_none()
                && let (Some(program), Some(&group)) = (&held_before, program_before.first())
                && terminals.group_members(&owner, &id, group).is_empty()
            {
                let signal = if sigkill_sent { "SIGKILL" } else { "SIGTERM" };
                notices.push(held_before_ended_notice(program, signal));
            }
            if too_late {
                notices.push(KILL_TOO_LATE_NOTICE.to_owned());
            } else if ran_on {
                notices.push(KILL_MISSED_NOTICE.to_owned());
            } else if cancel_requested.load(Ordering::SeqCst)
                && sigterm_sent
                && ran_to_its_end(result)
            {
                notices.push(KILL_EXIT_0_NOTICE.to_owned());
            }
            finish(&notices);
            outcome(result, &earlier, ran_on)
        };
        let running = matches!(result.session_status, SessionStatus::Running);
        // A REPL that reads again without its prompt (node while an `await` of the job's line
        // is pending) has not shown the line finished either.
        let unproven = matches!(
            result.wait_reason,
            WaitReason::InferredIdle | WaitReason::Timeout
        ) || (result.prompt_owed && running);
        // A kill ends the job once its interrupt reached a running send; a kill that came as
        // the send settled (on silence, the program still running) is repeated on a poll.
        let killed = cancel_requested.load(Ordering::SeqCst) && interrupted.load(Ordering::SeqCst);
        // A program of the job's that outlived the kill's interrupt and still holds the
        // terminal (an editor, a prompt of its own) is followed while the kill escalates to
        // SIGTERM and SIGKILL: what it prints as it goes, and the shell's prompt after it, end
        // this job's output (not the next send's), and so does its exit status: every program
        // the job would be said to leave running (what a kill of the finished job stops), and
        // one the escalation already reached (the send ran on past the interrupt). Not a REPL
        // the job typed a statement into, back at its prompt: the interrupt stopped the
        // statement, and the program stays.
        let outlived = killed
            && running
            && !escalation.exhausted()
            && (left_a_program(&outcome(&result, &earlier, false).detail.unwrap_or_default())
                || (escalation.sent > 0 && (result.foreground.is_some() || unproven)));
        if (!unproven || !running || killed) && !outlived {
            // What the command started in the groups the kill went to and left running when
            // the shell's prompt came back: the kill goes on with it.
            let stragglers = if cancel_requested.load(Ordering::SeqCst)
                && delivered
                && running
                && terminals.program_group(&owner, &id).is_none()
            {
                let targets: Vec<i32> = groups
                    .lock()
                    .iter()
                    .copied()
                    .filter(|group| !program_before.contains(group))
                    .collect();
                let killed_at = escalation
                    .killed_at
                    .unwrap_or_else(tokio::time::Instant::now);
                stop_stragglers(&terminals, &owner, &id, &targets, killed_at).await
            } else {
                None
            };
            return Ok(end(&result, stragglers));
        }
        if outlived && result.wait_reason == WaitReason::StdinRead {
            escalation.hurry();
            escalation.step(&terminals, &owner, &id, true);
        }
        let poll = SendRequest {
            text: String::new(),
            submit: false,
            timeout: None,
        };
        let next = match start_send_when_free(&terminals, &owner, &id, poll, SLOT_RELEASE_WAIT)
            .await
        {
            Ok(next) => {
                next.in_background();
                next
            }
            // The session closed or exited meanwhile: the last result stands.
            Err(e) => {
                tracing::debug!(session_id = %id, error = %e, "background send not followed further");
                return Ok(end(&result, None));
            }
        };
        {
            let mut guard = stream.lock();
            if let Some(s) = guard.as_mut() {
                // The finished send's unread rest comes first.
                s.switch_to(next.clone());
            }
        }
        // A kill that landed while the poll started cancelled the finished send; repeat it
        // (not to a program that outlived it: the escalation goes on instead).
        if !outlived && cancel_requested.load(Ordering::SeqCst) && next.cancel() {
            interrupted.store(true, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_kill_missed_notice() {
        insta::assert_snapshot!(super::KILL_MISSED_NOTICE);
    }

    #[test]
    fn the_kill_too_late_notice() {
        assert!(
            super::KILL_TOO_LATE_NOTICE.contains("job_kill came after the command line had ended")
        );
    }

    #[test]
    fn the_held_before_ended_notice() {
        assert_eq!(
            super::held_before_ended_notice("python3", "SIGTERM"),
            "[job: job_kill's SIGTERM ended python3, which held the terminal before this job (the \
             job's text ran on through SIGINT): python3 is gone with everything it held, and the \
             shell's prompt is back: the next send runs as a shell command, not in python3 (start \
             it again to go on)]"
        );
    }

    #[test]
    fn the_kill_exit_0_notice() {
        insta::assert_snapshot!(super::KILL_EXIT_0_NOTICE);
    }
}
