//! Before a send writes: the aftermath of a signal and the shell reading again waited for
//! (within the send's deadline), a stopped shell continued and back at its prompt, the repair
//! keys put ahead of the input when the prompt marks are gone, and the readiness decision set
//! up from the foreground seen before the write.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::readiness::Readiness;
use crate::screen::PromptState;

use super::super::Inner;
use super::super::observe::{
    SIGNAL_BYTES, continue_stopped_shell, marks_gone_at_line_editor, pre_write,
    wait_for_continued_shell, wait_for_shell_read,
};
use super::SendOp;
use crate::readiness::Settle;

use super::hold::Hold;
use super::pacing::Pacing;

/// How long after a write that ended with a lone ESC the next write waits: a line editor
/// holds a lone ESC that long for the key it may begin (readline's `keyseq-timeout` and
/// node's escape-code timeout are 500 ms), and the next text's first key typed sooner would
/// join it (`ESC` then `6*7` to node: Meta-6, and `*7` alone ran).
const LONE_ESCAPE_HOLD: Duration = Duration::from_millis(600);

/// Text a send wrote while the program holding the terminal read nothing (typed ahead): the
/// terminal echoed it at once, and whatever reads the terminal next takes it; or text it held
/// until a reader came (see `hold`). See the settle's typed-ahead notices.
#[derive(Debug)]
pub(super) struct TypedAhead {
    /// The program then.
    pub(super) program: String,
    /// Commands finished then (`Screen::done_count`).
    pub(super) done_at: u64,
    /// The text ended a line.
    pub(super) ends_line: bool,
    /// The text was held until a reader came: the terminal did not echo it ahead.
    pub(super) held: bool,
}

impl SendOp {
    /// Prepares the write of `input` (the send's first step; `pacing` holds the rest): returns
    /// the input to write now (empty when nothing goes: text held for a reader and dropped by
    /// a signal or a cancel is put back among the lines not typed, and one whose deadline came
    /// first takes the rest with it, see `hold`), the readiness decision and when the send
    /// started (after the waits). The send's deadline counts from this call.
    pub(super) async fn prepare_write(
        &self,
        inner: &Inner,
        activity: &mut watch::Receiver<u64>,
        (input, pacing): (Vec<u8>, &mut Pacing),
        initializing: bool,
    ) -> (Vec<u8>, Readiness, Instant) {
        let shared = &inner.shared;
        let called_at = Instant::now();
        // A lone ESC an earlier write ended with is still held as the start of a key.
        let escape_at = if input.is_empty() {
            None
        } else {
            shared.lock().lone_escape_written_at.take()
        };
        if let Some(at) = escape_at {
            tokio::time::sleep_until((at + LONE_ESCAPE_HOLD).into()).await;
        }
        let aftermath = shared.lock().redraw_pending.take();
        if let Some(after) = aftermath {
            // Within the send's own deadline (a short `timeoutMs` is honoured).
            let limit = inner.config.timing(self.timeout).timeout;
            let played_out = tokio::time::timeout(limit, after.wait(shared, self, activity))
                .await
                .unwrap_or(false);
            // Not played out within its bound (a loaded machine): the prompt the signal
            // brings may still come after this send's write, so the input counts as typed
            // ahead of it.
            if !played_out {
                self.signal_unsettled.store(true, Ordering::SeqCst);
            }
        }
        if input.iter().any(|b| SIGNAL_BYTES.contains(b)) {
            wait_for_shell_read(shared).await;
        }
        // A stopped shell reads nothing: any send, a poll too (a background job's), continues
        // it. Looked for (a `/proc` read, off the async workers) unless the shell is at a
        // current prompt and was not seen stopped since.
        let maybe_stopped = {
            let st = shared.lock();
            st.shell_stopped || st.screen.prompt_state() == PromptState::Busy
        };
        if maybe_stopped {
            let sh = Arc::clone(shared);
            let continued = tokio::task::spawn_blocking(move || continue_stopped_shell(&sh))
                .await
                .unwrap_or(false);
            if continued {
                self.shell_continued.store(true, Ordering::SeqCst);
                wait_for_continued_shell(shared).await;
            }
        }
        let looked_at = Instant::now();
        let pre = pre_write(shared).await;
        let done_before = shared.lock().screen.done_count();
        // Text for a program at work that reads nothing yet waits for a reader (see `hold`).
        let limit = inner.config.timing(self.timeout).timeout;
        let (pre, started, input, waited_for) = match self
            .hold_for_reader(
                shared,
                activity,
                pre,
                looked_at,
                &input,
                called_at + limit,
                (inner.config.idle_silence, inner.config.poll_interval),
            )
            .await
        {
            Hold::Write {
                pre,
                looked_at,
                waited_for,
            } => (pre, looked_at, input, waited_for),
            Hold::Dropped => {
                // Said with the lines after it (see `note_discarded`).
                pacing.put_back(input);
                // A cancel alone (no signal for the command): nothing of the send ran.
                let signal_asked = self.span().requested_signal.is_some();
                if !signal_asked && !self.held_dropped.load(Ordering::SeqCst) {
                    self.note_discarded(pacing);
                    let mut span = self.span();
                    span.held_settle = Some(Settle::Timeout);
                    span.cancelled_unwritten = true;
                }
                let at = Instant::now();
                (pre_write(shared).await, at, Vec::new(), None)
            }
            Hold::Expired { notice, settle } => {
                // Not one line of it goes once the first was not sent.
                *self.refused.lock() = Some(notice);
                let _ = pacing.discard();
                self.span().held_settle = settle;
                let at = Instant::now();
                (pre_write(shared).await, at, Vec::new(), None)
            }
        };
        // A program found reading: the mode it takes lines in is the one it reads in now, not
        // the one the send began with (a REPL busy with a statement, or just done with one,
        // may have had the terminal in line mode then, as node does; taken from then, its
        // prompt's raw mode read as a reader done with lines, and the send's later lines
        // waited for silence).
        if pre.waiting && pre.fg.is_some() && pre.fg != Some(shared.shell_pgid()) {
            pacing.set_reader_canonical(shared.pty.modes().map(|m| m.canonical));
        }
        let ends_line = input.iter().any(|&b| b == b'\n' || b == b'\r');
        // Held until a reader came: no echo ahead, but a prompt of the running command line
        // may be what took a command meant for the shell.
        if let Some(program) = waited_for.filter(|_| pre.waiting) {
            *self.typed_ahead_of.lock() = Some(TypedAhead {
                program,
                done_at: done_before,
                ends_line,
                held: true,
            });
        }
        // Text for a program that reads nothing now goes in typed ahead: the terminal echoes
        // it at once, and whatever reads the terminal next takes it (see the settle's notices).
        // Only in the terminal's line modes, off the alternate screen: a program that set its
        // own (a full-screen one polling for keys, a relay) reads keys in ways not seen here.
        let typed_ahead = pre
            .fg
            .filter(|&pgid| {
                !pre.waiting
                    && pgid != shared.shell_pgid()
                    && input.iter().any(|b| !SIGNAL_BYTES.contains(b))
                    && shared.pty.modes().is_some_and(|m| m.canonical)
            })
            .and_then(|pgid| {
                let st = shared.lock();
                (!st.screen.alternate_screen()).then(|| (pgid, st.screen.done_count()))
            });
        if let Some((pgid, done_at)) = typed_ahead {
            // A process of the session outside the group may read the terminal for it (the
            // command `su -c` runs in a session of its own): the text is its answer.
            let tty = shared.pty.tty_path().map(std::path::Path::to_path_buf);
            let scope = shared.scope.clone();
            let name = tokio::task::spawn_blocking(move || {
                let read_outside = tty.is_some_and(|tty| {
                    crate::process::tty_read_outside_group_in(pgid, &tty, &scope)
                });
                (!read_outside)
                    .then(|| super::super::cancel::program_name(pgid))
                    .flatten()
            })
            .await
            .ok()
            .flatten();
            *self.typed_ahead_of.lock() = name.map(|program| TypedAhead {
                program,
                done_at,
                ends_line,
                held: false,
            });
        }
        let input = match inner.repair_keys.as_deref() {
            Some(keys) if !input.is_empty() && marks_gone_at_line_editor(shared, &pre).await => {
                tracing::debug!("prompt marks gone at the line editor; typing the repair keys");
                [keys, &input].concat()
            }
            _ => input,
        };
        // The send's deadline counts from its call: the waits above (a signal's aftermath, the
        // shell reading again) are part of it.
        let mut timing = inner.config.timing(self.timeout);
        timing.timeout = timing.timeout.saturating_sub(called_at.elapsed());
        let readiness = Readiness::new(timing, started, initializing, shared.shell_pgid(), pre);
        (input, readiness, started)
    }
}
