//! A REPL that reads the terminal but owes its prompt (node's pending `await` or timer,
//! jshell's engine still at work on a line): whether a send about to settle waits on for what
//! it prints, and what the result then says of the wait ([`SendOp::unprompted_wait`]).

use std::time::Instant;

use crate::readiness::{Observation, Readiness, Settle};

use super::super::observe::leader_runs_a_repl;
use super::super::shared::Shared;
use super::{SendOp, UNPROMPTED_LINE, UNPROMPTED_NO, UNPROMPTED_POLL};

/// What one send's turns learnt of a REPL that owes its prompt.
#[derive(Default)]
pub(super) struct OwedPrompt {
    /// A turn waited for a REPL that owes its prompt (see `awaits_output` below).
    awaited_repl: bool,
    /// The newest probe that saw the foreground found a REPL with work of its own pending
    /// (a timer in its wait, a child running).
    repl_pending: bool,
}

impl OwedPrompt {
    /// The send would settle on `reason`: `Some(kind)` to settle, `kind` being what the
    /// result says of an event loop's wait with no prompt ([`UNPROMPTED_NO`],
    /// [`UNPROMPTED_LINE`] or [`UNPROMPTED_POLL`]); `None` to wait on for the REPL's output.
    pub(super) fn settle_kind(
        &mut self,
        op: &SendOp,
        shared: &Shared,
        obs: &Observation,
        readiness: &Readiness,
        reason: Settle,
    ) -> Option<u8> {
        // node's REPL reads the terminal while an `await` or a timer of the line it read is
        // still pending: it reads, but has not printed its prompt since (a poll that finds it
        // still so says it again; settling checks it is a REPL).
        // Not a key reader in cbreak mode, its signal keys on (`top`, `less`): a REPL's line
        // editor turns them off (raw mode), or at least the carriage return's mapping
        // (jline's, in jshell), and the key reader's cursor rests where it drew (a blank row
        // below `top`'s short list in a sandbox), owing no prompt (taken for one, the send
        // waited out its deadline).
        // Not in node's editor mode, which shows no prompt (with a deadline, the send waited
        // for one until the REPL was quiet, and said it still owed it).
        let unprompted = reason == Settle::StdinWait
            && !op.promptless
            && obs.fg != Some(shared.shell_pgid())
            && obs.fg_wait_among_others
            && !obs.fg_relays
            && !obs.prompt_at_cursor
            && !obs.prompt_above_cursor
            && !readiness.prompt_seen()
            && obs.cursor_on_blank_row
            && !obs.alternate_screen
            && !shared
                .pty
                .modes()
                .is_some_and(|m| !m.canonical && m.signals && !m.line_editing());
        let again =
            readiness.poll_only() && obs.fg.is_some() && shared.lock().unprompted_fg == obs.fg;
        // The deadline or the idle window came first while the REPL still owes its prompt.
        let owed_at_end = self.awaited_repl && matches!(reason, Settle::Timeout | Settle::Idle);
        let kind = match (unprompted, readiness.poll_only(), again) {
            (true, false, _) => UNPROMPTED_LINE,
            (true, true, true) => UNPROMPTED_POLL,
            _ if owed_at_end => UNPROMPTED_POLL,
            _ => UNPROMPTED_NO,
        };
        // A poll of a REPL that still owes its prompt waits for what the pending await or
        // timer prints (up to the idle window, or past it to its own deadline) rather than
        // answer at once with nothing new, leaving the agent to poll in a loop; so does the
        // line itself (a statement at work: jshell's result comes from its engine a moment
        // later), and, when its send gave a deadline, any program's line (it waits out
        // timers).
        let keeps_waiting =
            unprompted || (reason == Settle::Idle && self.awaited_repl && op.timeout.is_some());
        // Without a deadline of its own, a line waits no longer than the idle window of
        // quiet (a statement that waits for input itself, jshell's `sc.nextLine()`, prints
        // nothing more).
        let quiet_window_passed = Instant::now() >= readiness.silence_deadline(obs.last_output_at);
        // A line sent with a deadline waits on past the idle window, its own echo
        // notwithstanding, while the newest probe that saw the REPL found work of its
        // pending (a timer in its wait, a child running: an `await` of either): a wait with
        // none (gdb continued by `fg`, drawing no prompt) may never end.
        if obs.fg_waiting.is_some() {
            self.repl_pending = obs.fg_repl_pending;
        }
        let timer_owed = !readiness.poll_only() && self.repl_pending;
        let awaits_output =
            (kind == UNPROMPTED_POLL && keeps_waiting && (!obs.output_since_write || timer_owed))
                || (kind == UNPROMPTED_LINE
                    && (op.timeout.is_some()
                        || (!quiet_window_passed && obs.fg.is_some_and(leader_runs_a_repl))));
        self.awaited_repl |= awaits_output;
        // What the result says of a line that waited so: the REPL owes its prompt after that
        // line (its own echo is not the prompt back).
        let kind = if owed_at_end && kind == UNPROMPTED_POLL && !readiness.poll_only() {
            UNPROMPTED_LINE
        } else {
            kind
        };
        (!awaits_output).then_some(kind)
    }
}
