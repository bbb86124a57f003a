//! What the next send waits out after a signal to the foreground group ([`SignalAftermath`]):
//! the group dying or the shell re-arming its line editor, so the send's text is not
//! swallowed with the interrupted line.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::readiness::WEAK_WAIT_QUIET;
use crate::screen::PromptState;

use super::super::send::SendOp;
use super::super::shared::Shared;

/// After a signal to the foreground: most time the next send waits for it to play out.
const SIGNAL_AFTERMATH_MAX: Duration = Duration::from_millis(1000);
/// Longest pause between checks while waiting out a signal.
const AFTERMATH_TICK: Duration = Duration::from_millis(20);

/// A signal was just delivered to the foreground group `pgid`; the next send's input must not
/// reach the terminal while that group is dying or the shell is re-arming readline (the typed
/// text would be swallowed with the interrupted line, or settle on the interrupted command's
/// prompt).
#[derive(Clone, Copy, Debug)]
pub(in crate::session) struct SignalAftermath {
    pub(super) pgid: i32,
    /// The signal was SIGKILL: the group ends whatever it does (see
    /// [`SignalAftermath::kills`]).
    pub(super) killed: bool,
    pub(super) done_count: u64,
    /// The prompts ended so far (primary or continuation) when the signal went.
    pub(super) prompt_end_count: u64,
    pub(super) at: Instant,
    /// The signal went as the terminal's interrupt or suspend character (this byte): the
    /// program must have read it (and reacted: an editor flushes what was typed after it)
    /// before the next input.
    pub(super) key_byte: Option<u8>,
    /// The signal was a SIGINT to the shell's own group at its continuation prompt, not yet
    /// repeated (see [`SignalAftermath::wait`]).
    pub(super) interrupts_a_continuation: bool,
}

impl SignalAftermath {
    /// Whether this aftermath ends group `fg`, a program's (not the shell's): it went SIGKILL.
    /// Until the shell has reaped it and taken the terminal back, the dying program still
    /// shows as the foreground (a pager, with its modes), so what holds the terminal then is
    /// no guide to where the next text goes: the shell, once the aftermath played out.
    pub(in crate::session) fn kills(&self, fg: Option<i32>) -> bool {
        self.killed && fg == Some(self.pgid)
    }

    /// For an interrupt character: the program had time to answer it. An editor that read
    /// the byte may block reading again (briefly, among its timers) before it redraws and
    /// flushes what was typed after the interrupt; input written then would be discarded.
    /// So its output must be on the screen and quiet for [`WEAK_WAIT_QUIET`] since the
    /// signal or its newest output.
    fn answered(&self, shared: &Shared) -> bool {
        if !shared.output_drained() {
            return false;
        }
        let last = shared.lock().last_output_at.max(self.at);
        last.elapsed() >= WEAK_WAIT_QUIET
    }

    /// Delivers the SIGINT to the shell again, the way it went the first time.
    fn interrupt_again(&self, shared: &Shared) {
        if let Some(byte) = self.key_byte {
            drop(shared.pty.write(vec![byte]));
        } else if let Some(pid) = rustix::process::Pid::from_raw(self.pgid)
            && let Err(err) = rustix::process::kill_process_group(pid, rustix::process::Signal::INT)
        {
            tracing::debug!(%err, "the shell's second interrupt did not go");
        }
    }

    /// Waits (at most [`SIGNAL_AFTERMATH_MAX`]) until the signal has played out: the shell
    /// showed a fresh prompt (a new command-finished mark and the prompt's end mark), or the
    /// signalled program survived and is blocked reading the terminal again (a REPL catching
    /// SIGINT; for an interrupt character, only once it has read the byte), or the program
    /// that ran it (a nested shell) holds the terminal again, reading, its output quiet on
    /// the screen. Our shell's own group counts as such a program while what reads there
    /// prints no marks (see `reads_without_marks`): a shell that replaced ours (`exec bash
    /// --norc`) back at its prompt after its job stopped or ended, `exec python3` reading
    /// again after its interrupt; no fresh prompt of ours comes then. Returns early
    /// when `op` settles. Returns whether the signal played out (not the deadline, nor the
    /// settled `op`).
    pub(in crate::session) async fn wait(
        mut self,
        shared: &Arc<Shared>,
        op: &SendOp,
        activity: &mut watch::Receiver<u64>,
    ) -> bool {
        let until = self.at + SIGNAL_AFTERMATH_MAX;
        loop {
            if op.is_settled() || Instant::now() >= until {
                return false;
            }
            let (fresh_prompt, continued) = {
                let st = shared.lock();
                let fresh = st.screen.done_count() > self.done_count;
                (
                    fresh && st.screen.prompt_state() == PromptState::Prompt,
                    !fresh
                        && st.screen.prompt_end_count() > self.prompt_end_count
                        && st.screen.prompt_state() == PromptState::Continuation,
                )
            };
            if fresh_prompt {
                return true;
            }
            // Bash, interrupted at a continuation prompt just as it printed it (a here-document's
            // next line), may go on reading with the interrupt still pending, showing that
            // prompt again or nothing after its `^C`: the next key it reads is then swallowed
            // with the line it abandons (`echo next` ran as `cho next`). So when no fresh prompt
            // came and the shell reads the terminal again, quiet (or it prompted for the
            // continuation again), a second interrupt ends the continuation as the first should
            // have (once: the shell's own handling of it decides after that).
            if self.interrupts_a_continuation
                && (continued || (self.answered(shared) && shared.waiting_on_tty(self.pgid).await))
            {
                self.interrupts_a_continuation = false;
                tracing::debug!(
                    "the shell reads on after its interrupt without a fresh prompt; interrupting once more"
                );
                self.interrupt_again(shared);
                self.prompt_end_count = shared.lock().screen.prompt_end_count();
                self.at = Instant::now();
                continue;
            }
            if shared.pty.foreground_pgid() == Some(self.pgid)
                && (self.key_byte.is_none()
                    || (shared.pty.pending_input_bytes() == Some(0) && self.answered(shared)))
                && reads_without_marks(shared, self.pgid).await
            {
                return true;
            }
            // The signalled program is gone (or stopped) and the program that ran it (a nested
            // shell, a debugger, a shell that replaced ours) took the terminal back: once its
            // output is on the screen and quiet, reading the terminal again, it is at its
            // prompt.
            if let Some(fg) = shared.pty.foreground_pgid()
                && fg != self.pgid
                && self.answered(shared)
                && reads_without_marks(shared, fg).await
            {
                return true;
            }
            let tick = (Instant::now() + AFTERMATH_TICK).min(until);
            tokio::select! {
                _ = activity.changed() => {}
                _ = op.woken() => {}
                _ = tokio::time::sleep_until(tick.into()) => {}
            }
        }
    }
}

/// Whether group `pgid`, holding the terminal, reads it at a prompt no mark of our shell
/// announces: a program's group blocked reading the terminal, or our shell's own group read
/// by what prints no marks there (see `Shared::shell_group_reads_unmarked`), all it wrote
/// before it read on the screen. Our own shell reading is not enough: its fresh prompt's
/// marks say it is back (bash may read on with an interrupt pending, see
/// [`SignalAftermath::wait`]).
async fn reads_without_marks(shared: &Arc<Shared>, pgid: i32) -> bool {
    if pgid == shared.shell_pgid() {
        shared.shell_group_reads_unmarked().await && shared.output_drained()
    } else {
        shared.waiting_on_tty(pgid).await
    }
}
