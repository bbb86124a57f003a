//! [`SendOp`]: one send, and the state machine that takes it from the write to its result.
//!
//! # Flow of a send
//! 1. [`SendOp::start`] reserves the session's send slot synchronously and spawns the driver.
//! 2. The driver waits out a just-delivered signal, holds text for a program at work until
//!    something reads the terminal ([`hold`]), records the foreground before the write,
//!    anchors the screen where the previous result ended (so output between calls is not
//!    lost), notes if the input is typed ahead of a running command, and writes it.
//! 3. It then evaluates [`Readiness`] on every output event and every probe until a tier
//!    settles; `/proc` is consulted when output goes quiet or a prompt mark arrives, then
//!    with a short doubling backoff ([`ProbeSchedule`]), and while a probe reads `/proc` the
//!    driver keeps reacting to output (a prompt mark settles at once); the result's rows are
//!    copied from the anchor under the lock and assembled after it ([`super::result`]).
//! 4. The slot is released once no write or interrupt of this send is still in flight, so late
//!    bytes or a late SIGINT never hit a successor.
//!
//! Every transition (settle, fail, release, close: [`SendOp::settle_on_close`]) is a method.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::error::{TerminalError, TerminalErrorCode};
use crate::pty::TtyModes;
use crate::readiness::{PreWrite, Readiness, Settle};
use crate::screen::PromptState;

use super::Inner;
use super::cancel::CancelInterrupts;
use super::observe::{
    Probe, Probing, SIGNAL_BYTES, is_block_continuation_prompt, leader_runs_a_repl, observe,
    wait_for_shell_read,
};
use super::probe::ProbeSchedule;
use super::signal::runs_shell_image;
use span::Span;

mod anchor;
mod handle;
mod hold;
mod key_answer;
mod left_running;
mod node_input;
mod op;
mod open_command;
mod owed_prompt;
mod pacing;
mod pager_guard;
mod prepare;
mod python_input;
mod settle;
mod shell_ended;
mod span;
mod stale_reader;
mod statement_read;
mod unseen_reader;
mod untyped;
mod waiting_prompt;
pub(super) use op::{SendOp, UNPROMPTED_LINE, UNPROMPTED_NO, UNPROMPTED_POLL};
pub use open_command::OPEN_COMMAND_NOTICE;
pub use stale_reader::clipped;
mod start;

/// After the shell exits: least time before "no unread output" counts as drained.
pub(super) const EXIT_DRAIN_MIN: Duration = Duration::from_millis(10);
/// After the shell exits: most time to wait for its last output (the reader's end of output
/// normally comes first; a process that keeps the terminal open delays it).
pub(super) const EXIT_DRAIN_MAX: Duration = Duration::from_millis(1000);
/// Longest a cancelled send whose result nobody sees keeps the session (its command lingers).
const DISCARDED_SETTLE_MAX: Duration = Duration::from_millis(1000);

/// Notes the time of a write of `bytes` that ends with a lone ESC (see
/// `State::lone_escape_written_at`), or clears it.
fn note_lone_escape(shared: &super::shared::Shared, bytes: &[u8]) {
    shared.lock().lone_escape_written_at = (bytes.last() == Some(&0x1b)).then(Instant::now);
}

impl SendOp {
    pub(super) fn is_settled(&self) -> bool {
        self.settled.load(Ordering::SeqCst)
    }

    /// Drives the send from write to settlement. See the module docs.
    async fn drive(
        self: Arc<Self>,
        inner: Arc<Inner>,
        input: Vec<u8>,
        mut pacing: pacing::Pacing,
        initializing: bool,
    ) {
        let shared = Arc::clone(&inner.shared);
        let mut activity = shared.subscribe();
        self.note_foreground(shared.pty.foreground_pgid());
        // A REPL holding the terminal as the send starts, busy with a statement or not: the
        // lines are its input (`raise SystemExit(4)` then a line: not the shell's once the
        // REPL is gone).
        let repl_at_start = shared
            .pty
            .foreground_pgid()
            .filter(|&group| group != shared.shell_pgid())
            .filter(|&group| leader_runs_a_repl(group));
        let (input, mut readiness, started) = self
            .prepare_write(&inner, &mut activity, (input, &mut pacing), initializing)
            .await;
        let deadline = readiness.deadline();
        // Lines for a reader that ended would run as commands (see `note_reader_ended`).
        let answers_a_reader = self.answers_a_line_reader
            && (readiness.began_at_a_waiting_reader() || repl_at_start.is_some());
        let answered_group = repl_at_start
            .or_else(|| shared.pty.foreground_pgid())
            .filter(|_| answers_a_reader);
        let (mut done_at_write, mut marks_at_write, mut written_at) =
            self.anchor_for_write(&mut readiness, &input, initializing, started);
        // Input written before (lines an earlier send typed ahead as it settled) that nothing
        // read yet: this input is typed ahead of it, and a prompt between those lines, with
        // their exit status, is not this send's.
        if !input.is_empty() && shared.pty.pending_input_bytes().unwrap_or(0) > 0 {
            readiness.set_typeahead(true);
        }
        let held_settle = self.span().held_settle;
        if let Some(reason) = held_settle {
            self.settle(reason, None);
        }
        let mut write_rx = if input.is_empty() || self.cancel_requested() {
            None
        } else {
            self.in_flight.store(true, Ordering::SeqCst);
            self.span().wrote_input = true;
            note_lone_escape(&shared, &input);
            Some(shared.pty.write(input))
        };
        let mut interrupts = CancelInterrupts::default();
        let mut owed_prompt = owed_prompt::OwedPrompt::default();
        let mut discarded_since: Option<Instant> = None;
        let poll_interval = inner.config.poll_interval;
        let mut next_tick = written_at + poll_interval;
        let mut probes = ProbeSchedule::new(written_at, marks_at_write, poll_interval);
        let mut tracker_refresh: Option<tokio::task::JoinHandle<()>> = None;
        let mut probe: Option<Probe> = None;
        // A probe in flight: the driver keeps reacting to output (a prompt mark settles the
        // send at once) while `/proc` is read.
        let mut probing: Option<Probing> = None;
        let mut input_discarded = false;

        loop {
            // A pending write: only exit, deadline, close and an interrupt matter until it
            // lands. An interrupt owed (a cancel, a handed-over SIGINT) first discards what
            // the terminal has not taken yet, as the terminal's own key discards typed-ahead
            // input: a program that does not read would otherwise hold the rest (and the
            // interrupt behind it) until it ends, and the rest would then run.
            if let Some(rx) = write_rx.as_mut() {
                if !input_discarded && self.interrupt_owed() {
                    shared.pty.discard_queued_input();
                    shared.lock().unended_line = None;
                    input_discarded = true;
                }
                // The shell exited: whether the write landed no longer matters. The exit
                // settles as observed below, once the shell's last output is on the screen
                // (settling here could show none of it on a loaded machine).
                if shared.lock().exit.is_some() {
                    write_rx = None;
                    self.in_flight.store(false, Ordering::SeqCst);
                    continue;
                }
                if !self.is_settled() && Instant::now() >= deadline {
                    // Lines not typed yet are typed ahead (after the write in flight), as
                    // when the deadline passes with nothing in flight.
                    let untyped = pacing.untyped_lines();
                    if let Some(rest) = pacing.on_settle(Settle::Timeout) {
                        self.note_typed_ahead(untyped);
                        *rx = shared.pty.write(rest);
                    }
                    self.settle(Settle::Timeout, None);
                }
                tokio::select! {
                    r = rx => {
                        write_rx = None;
                        self.in_flight.store(false, Ordering::SeqCst);
                        match r {
                            Ok(Ok(())) => {
                                let now = Instant::now();
                                next_tick = now + poll_interval;
                                probes.restart(now);
                            }
                            // The rest of the input was discarded for an interrupt.
                            Ok(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => {
                                let now = Instant::now();
                                next_tick = now + poll_interval;
                                probes.restart(now);
                            }
                            Ok(Err(e)) if shared.lock().exit.is_none() => self.fail(TerminalError::new(
                                TerminalErrorCode::Transport,
                                format!("PTY write failed: {e}"),
                            )),
                            _ => {}
                        }
                    }
                    _ = activity.changed() => {}
                    _ = self.wake.notified() => {}
                    _ = tokio::time::sleep_until(deadline.into()), if !self.is_settled() => {}
                }
                if self.is_settled() && write_rx.is_none() {
                    break;
                }
                continue;
            }
            if self.is_settled() {
                break;
            }
            // A cancelled send whose result nobody will see holds the session only briefly
            // once interrupted: a command that ignores the interrupt keeps running, and the
            // next send (typed ahead) shows this send's output as well.
            if self.result_discarded_after_cancel() {
                let at = *discarded_since.get_or_insert_with(Instant::now);
                if Instant::now() >= at + DISCARDED_SETTLE_MAX {
                    self.settle(Settle::Timeout, None);
                    break;
                }
            }
            if self.interrupt_owed()
                && let Err(e) = interrupts.deliver_due(&shared, self.signal_owed()).await
            {
                // No process holds the terminal any more: the session is ending (killed, or
                // closed under a background send), and its exit settles the send.
                if shared.pty.foreground_pgid().is_some() {
                    self.fail(e);
                    break;
                }
                tracing::debug!(error = %e, "nothing left to interrupt; waiting for the exit");
            }
            self.note_cancel_delivered(&interrupts);
            // A handed-over signal is owed until it reached the command's program; a later
            // program of the same send is not interrupted for it.
            if !self.cancel_requested() && interrupts.reached_program() {
                self.span().requested_signal = None;
            }

            let now = Instant::now();
            if now >= next_tick {
                next_tick = now + poll_interval;
                // The tracker scan runs beside the send, never in the way of a probe.
                if tracker_refresh.as_ref().is_none_or(|h| h.is_finished()) {
                    tracker_refresh = Some(tokio::spawn(Arc::clone(&inner).refresh_tracker()));
                }
            }
            let (fence, marks, prompt) = {
                let st = shared.lock();
                (
                    st.probe_fence(),
                    st.screen.mark_count(),
                    st.screen.prompt_state(),
                )
            };
            probes.on_output(fence, marks);
            if probing.is_none() && probes.due(now) {
                let fg = shared.pty.foreground_pgid();
                match fg {
                    Some(pgid) if readiness.wants_probe(fg, prompt, shared.line_editing()) => {
                        let of_shell = pgid == shared.shell_pgid();
                        let watch = readiness.pre_reader(pgid);
                        let outside = pacing.is_pending() && !of_shell;
                        probing = Some((
                            pgid,
                            Instant::now(),
                            Box::pin(shared.probe(pgid, of_shell, watch, outside)),
                        ));
                    }
                    _ => {
                        probe = None;
                        probes.probed(Instant::now());
                    }
                }
            }
            let now = Instant::now();
            let (mut obs, exit_at, last_exit) = observe(
                &shared,
                now,
                probe.take(),
                (done_at_write, marks_at_write, written_at),
                (
                    pacing.wants_cursor_row(readiness.prompt_seen()),
                    pacing.is_pending(),
                ),
                self.own_line.as_deref(),
                pacing.answer_start(),
            );
            self.note_foreground(obs.fg);
            // Silence before an interrupt says nothing of how the program takes it.
            if let Some(at) = interrupts.delivered_at() {
                obs.last_output_at = obs.last_output_at.max(at);
            }
            // Under a launcher (a sandbox), the shell is not the PTY's first process: its
            // group is the one in the foreground at the first prompt of startup.
            if initializing
                && obs.prompt == PromptState::Prompt
                && obs.done_since_write
                && let Some(fg) = obs.fg
                && fg != shared.shell_pgid()
                && shared.adopt_shell_pgid(fg)
            {
                readiness.set_shell_pgid(fg);
            }
            // While a close runs, it ends this send as `session_exit` once the shell is gone;
            // settling sooner would report a running session the close is stopping. Only the
            // exit and the send's own deadline still settle it (and everything again once the
            // close has ended, also when it was abandoned).
            let settle = readiness.evaluate(&obs).filter(|&reason| {
                matches!(reason, Settle::Exit | Settle::Timeout) || !shared.lock().close_running
            });
            // A signal owed to the command that has not gone anywhere yet (within the grace, or
            // at this loop's next turn for a cancel just now) is about to end a wait for input
            // or the silence: not one to settle on (`read v`, then SIGINT at once; a job killed
            // as its send settled on silence: its program gets the interrupt).
            // Nor, for a cancel, the shell's continuation prompt: the construct the send's lines
            // left open (a here-document whose lines the cancel dropped) would take the next
            // send's text as its own; the interrupt ends it, as Ctrl-C would.
            let settle = settle.filter(|&reason| {
                !((matches!(reason, Settle::StdinWait | Settle::Idle)
                    || (reason == Settle::Continuation && self.cancel_requested()))
                    && self.interrupt_owed()
                    && interrupts.pending())
            });
            // Lines still to type: the next one goes now that its reader is ready (or the
            // rest, typed ahead, when the send settles anyway).
            if self.interrupt_owed() || self.untyped_dropped.load(Ordering::SeqCst) {
                self.note_discarded(&mut pacing);
            }
            let program = obs.fg.is_some_and(|fg| fg != shared.shell_pgid());
            let (mut settle, mut release) = pacing.gate(
                settle,
                &pacing::LineReader {
                    program,
                    canonical_now: (program && pacing.is_pending())
                        .then(|| shared.pty.modes().map(|m| m.canonical))
                        .flatten(),
                    waiting: obs.fg_waiting == Some(true) || obs.tty_read_outside_fg,
                    among_others: obs.fg_wait_among_others || obs.tty_read_outside_fg,
                    prompt_since_write: readiness.prompt_seen(),
                    alternate: obs.alternate_screen,
                    input_pending: obs.input_pending,
                    output_drained: obs.output_drained,
                    key_echoed: self.answer_key_echoed(&pacing, obs.fg),
                },
            );
            // An interrupt, quit or suspend key next goes once the line before it was taken
            // up and its program has held the terminal for a while without settling: it is
            // meant for that program, which may never read again by itself (`sleep 10` +
            // Ctrl-C); a program that settles sooner gets it at its prompt. Never while the
            // shell's fork has yet to run the program: the fork would take it for the shell.
            if pacing.signal_next()
                && Instant::now() >= written_at + pacing::SIGNAL_LINE_AFTER
                && shared.pty.pending_input_bytes() == Some(0)
                && shared.pty.foreground_pgid().is_some_and(|fg| {
                    fg != shared.shell_pgid() && !runs_shell_image(fg, shared.shell_pgid())
                })
                && let Some(keys) = pacing.take_next()
            {
                self.in_flight.store(true, Ordering::SeqCst);
                self.span().wrote_input = true;
                write_rx = Some(shared.pty.write(keys));
                continue;
            }
            // The program the send's lines answered (a REPL) is gone: the shell holds the
            // terminal again.
            let reader_gone = answers_a_reader
                && answered_group.is_some_and(|group| group != shared.shell_pgid());
            if let Some(reason) = release
                && let Some(hold_max) = pacing.holds_for_prompt(
                    reason,
                    obs.fg == Some(shared.shell_pgid()),
                    now.saturating_duration_since(written_at),
                    reader_gone,
                )
            {
                // The shell reads again after a Ctrl-C at its prompt, or after the program the
                // lines were for ended, but its new prompt, the sign it has dealt with the key
                // (or that the lines left are not its own), is not up yet: wait for its output
                // (or the end of the hold).
                let hold_until = (written_at + hold_max).min(deadline);
                tokio::select! {
                    _ = activity.changed() => {}
                    _ = self.wake.notified() => {}
                    _ = tokio::time::sleep_until(hold_until.into()) => {}
                }
                continue;
            }
            match self.answer_rest(&mut pacing, release, obs.fg) {
                key_answer::AnswerRest::Types => {}
                key_answer::AnswerRest::NotYet => (settle, release) = (None, None),
                key_answer::AnswerRest::Dropped => continue,
            }
            if answers_a_reader && release == Some(Settle::Prompt) && pacing.is_pending() {
                self.note_reader_ended(&mut pacing);
            }
            // IPython runs a one-line block on its first Enter (Python's REPLs show their
            // continuation prompt and need the second): the Enter that would end it is
            // dropped there unless IPython shows its continuation prompt (another REPL's
            // prompt may be hidden behind a background process's output).
            if release.is_some()
                && pacing.next_ends_a_block()
                && obs
                    .fg
                    .and_then(|pgid| python_input::group_program(&shared, pgid))
                    .is_some_and(|program| super::input::is_ipython(&program))
                && !shared
                    .lock()
                    .screen
                    .cursor_row_prefix()
                    .is_some_and(|row| is_block_continuation_prompt(&row))
            {
                pacing.drop_next();
            }
            // The session's shell ended before it read the lines left: they never run, and the
            // result names them (a close that ends the session says so itself).
            if release == Some(Settle::Exit) && pacing.is_pending() && !shared.lock().closing {
                self.note_shell_ended(&mut pacing);
            }
            // Lines the send settles without: typed ahead (see below), and said so.
            let ahead_lines = release
                .filter(|&reason| matches!(reason, Settle::Idle | Settle::Timeout))
                .and_then(|_| pacing.untyped_lines());
            if let Some(reason) = release
                && pacing.is_pending()
                && let Some(mut line) = pacing.on_settle(reason)
            {
                let ahead = matches!(reason, Settle::Idle | Settle::Timeout);
                if self.refuses_paced_step(&line, &mut pacing, obs.fg).await
                    || self.refuses_literal_escape_step(&line, &mut pacing, obs.fg)
                    || (reason == Settle::StdinWait
                        && self.refuses_step_to_own_prompt(&line, &mut pacing, obs.fg))
                {
                    self.settle(reason, last_exit);
                    break;
                }
                if reason == Settle::StdinWait {
                    line = self.paste_rest_for_block_reader(line, &mut pacing, obs.fg);
                    self.note_command_to_a_prompt(&line, &pacing, answered_group, obs.fg);
                }
                if obs.fg == Some(shared.shell_pgid())
                    && shared.pty.modes().is_some_and(TtyModes::line_editing)
                {
                    line = super::input::close_escapes_for_line_editor(line);
                }
                // A TAB typed to a program's line editor an earlier line started would
                // complete: quoted, as at a send's start (see `input::quote_tabs`).
                if reason == Settle::StdinWait
                    && !obs.alternate_screen
                    && obs.fg != Some(shared.shell_pgid())
                    && shared.pty.modes().is_some_and(TtyModes::line_editing)
                {
                    line = super::input::quote_tabs(line);
                }
                if reason == Settle::StdinWait && !obs.alternate_screen {
                    line = self.key_step(&shared, line, &mut pacing, obs.fg);
                }
                if !ahead {
                    let pre = PreWrite {
                        fg: obs.fg,
                        waiting: reason == Settle::StdinWait,
                        wakes_in: obs.fg_wakes_in,
                        reader: None,
                    };
                    readiness = Readiness::new(
                        inner.config.timing(self.timeout),
                        started,
                        initializing,
                        shared.shell_pgid(),
                        pre,
                    );
                    (done_at_write, marks_at_write, written_at) =
                        self.mark_paced_write(&mut readiness, &line);
                    next_tick = written_at + poll_interval;
                    probes = ProbeSchedule::new(written_at, marks_at_write, poll_interval);
                    probe = None;
                }
                // An interrupt key reaches a shell at its prompt only once readline reads (see
                // `wait_for_shell_read`).
                if line.iter().any(|b| SIGNAL_BYTES.contains(b)) {
                    wait_for_shell_read(&shared).await;
                }
                self.in_flight.store(true, Ordering::SeqCst);
                self.span().wrote_input = true;
                note_lone_escape(&shared, &line);
                write_rx = Some(shared.pty.write(line));
                if ahead {
                    self.note_typed_ahead(ahead_lines);
                    // Settled as before pacing: the loop ends once the rest is written.
                    self.settle(reason, last_exit);
                }
                continue;
            }
            if let Some(reason) = settle
                && let Some(kind) =
                    owed_prompt.settle_kind(&self, &shared, &obs, &readiness, reason)
            {
                self.unprompted_wait.store(kind, Ordering::SeqCst);
                if reason == Settle::Exit && !shared.lock().closing {
                    self.note_left_running(&inner).await;
                }
                if initializing && reason == Settle::Prompt {
                    let sh = Arc::clone(&shared);
                    let _ = tokio::task::spawn_blocking(move || sh.record_shell_image()).await;
                }
                self.settle(reason, last_exit);
                break;
            }
            // Sleep until something can change the decision. A silence or hold deadline that
            // already passed without settling (the foreground is busy, input is pending) waits
            // for the next probe or tick instead: waking for it again would spin.
            let mut wake_at = deadline.min(next_tick);
            if let Some(at) = discarded_since {
                wake_at = wake_at.min(at + DISCARDED_SETTLE_MAX);
            }
            let signal_line_at = written_at + pacing::SIGNAL_LINE_AFTER;
            if pacing.signal_next() && signal_line_at > now {
                wake_at = wake_at.min(signal_line_at);
            }
            let silence_at = readiness.silence_deadline(obs.last_output_at);
            if silence_at > now {
                wake_at = wake_at.min(silence_at);
            }
            if probing.is_none() {
                wake_at = wake_at.min(probes.next_at());
            }
            if let Some(at) = readiness.held_until().filter(|&at| at > now) {
                wake_at = wake_at.min(at);
            }
            if let Some(at) = readiness
                .keys_settle_at(obs.last_output_at)
                .filter(|&at| at > now)
            {
                wake_at = wake_at.min(at);
            }
            if let Some(at) = exit_at {
                wake_at = wake_at.min((at + EXIT_DRAIN_MIN).max(now + Duration::from_millis(2)));
            }
            let stream_failed = shared.lock().stream_error.clone();
            if let Some(err) = stream_failed
                && exit_at.is_none()
            {
                self.fail(TerminalError::new(
                    TerminalErrorCode::Transport,
                    format!("PTY output stream failed: {err}"),
                ));
                break;
            }
            tokio::select! {
                _ = activity.changed() => {}
                _ = self.wake.notified() => {}
                _ = tokio::time::sleep_until(wake_at.into()) => {}
                verdict = async {
                    match probing.as_mut() {
                        Some((_, _, f)) => f.await,
                        None => std::future::pending().await,
                    }
                }, if probing.is_some() => {
                    // A verdict older than the newest output (or query reply) is stale: the
                    // program may have left (or entered) its wait since; the schedule probes
                    // again.
                    let fence = shared.lock().probe_fence();
                    // Nor is a verdict while input the program has not read waits on the
                    // terminal: the program has not been handed all of it yet.
                    probe = probing
                        .take()
                        .filter(|&(_, started, _)| fence <= started && !verdict.input_pending)
                        .map(|(pgid, started, _)| Probe {
                            pgid,
                            started,
                            activity: verdict.activity,
                            shell_replaced: verdict.shell_replaced,
                            relays: verdict.relays,
                            reader_ran: verdict.reader_ran,
                            repl_pending: verdict.repl_pending,
                            read_outside: verdict.read_outside,
                        });
                    probes.probed(Instant::now());
                }
            }
        }
        if let Some(refresh) = tracker_refresh {
            let _ = refresh.await;
        }
        self.release();
    }
}
