//! When a send settles (the seed's §3.5, direction "Readiness"), as a pure decision over
//! observed facts so every tier is unit-testable without a PTY.
//!
//! A send settles with the first of (checked in this order):
//! 1. **exit**: the top-level process exited → `session_exit`;
//! 2. **prompt**: a command-finished mark arrived after the write, the prompt's end mark was
//!    the last thing printed, the shell owns the terminal and no typed-ahead input is still
//!    queued → `stdin_read` with the mark's exit status;
//! 3. **continuation**: a continuation-prompt mark arrived after the write and was the last
//!    thing printed (same terminal checks) → `stdin_read`, input mode continuation;
//! 4. **exact stdin**: after `exact_probe_after`, the foreground group is provably blocked
//!    reading the terminal (kernel-true, from `/proc`), no terminal query reply is owed to
//!    it, the screen has caught up and output has been quiet for [`PROBE_QUIET`] (for a wait
//!    among other event sources or with a timeout, [`WEAK_WAIT_QUIET`], or
//!    [`PROMPT_WAIT_QUIET`] when the cursor follows a REPL prompt such as node's `> `; a wait
//!    with a timeout on the main screen with no prompt or question before the cursor, once its
//!    timeout plus [`TIMED_WAIT_MARGIN`] has passed since it was first seen with no output
//!    after it, or [`TIMED_WAIT_SILENCE_LEAD`] before silence would settle; a key reader's
//!    such wait the same way, with only output that appends rows counting, see
//!    [`Observation::fg_key_wakes_in`]), and it was not
//!    already blocked before the write unless it was seen leaving that wait (a probe found
//!    it away, or found the thread that waited then has run since, with no short timer
//!    pending) or answered the input with output; the shell's
//!    own group counts too (`read -p`), except while its prompt is current (that is tier
//!    2/3's business) → `stdin_read`; keys without a line end typed at the shell's line
//!    editor (an edit such as Ctrl-U, at the prompt or after text typed there) settle the
//!    same way once none is queued and output was quiet for [`WEAK_WAIT_QUIET`], and keys a
//!    canonical-mode reader cannot have received (no line end) leave its earlier wait valid;
//! 5. **silence**: no visible output for `idle_silence` (+ `handoff_grace` once a mark was
//!    seen; on the alternate screen, once that long has passed since the send started, a
//!    [`REDRAW_PAUSE`] between redraws), and (under [`SilenceRule::KernelIdle`]) the kernel
//!    does not say the foreground
//!    job is busy → `inferred_idle`;
//! 6. **deadline**: `timeout` since the send started → `timeout`.
//!
//! During startup tiers 4–5 wait for the first visible output: zero-output silence never
//! publishes a session.

use std::time::{Duration, Instant};

use crate::process::ReaderThread;
use crate::screen::PromptState;

pub(crate) use observation::Observation;

/// Output quiet a stdin wait needs before it settles a send: the program's prompt is on a
/// caught-up screen. Also the first step of the driver's probe backoff.
pub(crate) const PROBE_QUIET: Duration = Duration::from_millis(1);

/// Output quiet a weaker terminal wait needs before it settles a send: one among other event
/// sources (an event loop may still be busy with what it just read) or with a timeout (an
/// editor that awaits terminal responses for about 100 ms before it exits).
pub(crate) const WEAK_WAIT_QUIET: Duration = Duration::from_millis(150);

/// Output quiet a wait among other event sources needs when the cursor follows a REPL's
/// prompt alone on its row (node's `> `): the program has printed its prompt, but a line-mode
/// program may print an answer a few milliseconds after redrawing it.
pub(crate) const PROMPT_WAIT_QUIET: Duration = Duration::from_millis(40);

/// How long a wait of the shell itself (its marks alive, no prompt current, the terminal in
/// non-canonical mode as readline sets it) holds the stdin tier for the prompt mark: bash
/// prints its prompt before it reads, so such a shell is either still handing its prompt over
/// (the mark settles the send at once with the exit status) or runs a non-canonical builtin
/// `read` (`read -n`), which settles when this bound passes. A builtin `read` in canonical
/// mode (`read -p`) is no line editor and settles at once.
pub(crate) const PROMPT_MARK_WAIT: Duration = Duration::from_millis(250);

/// A pause between redraws that settles a send on the alternate screen once the idle window
/// has passed since the send started: a full-screen program that redraws on a timer (`watch`,
/// `top`, `htop`) is never silent for the idle window.
pub(crate) const REDRAW_PAUSE: Duration = Duration::from_millis(100);

/// Beyond its own timeout, how long a terminal wait with a timeout (no REPL prompt before the
/// cursor, the main screen) must have lasted, with no output, before it settles a send: time
/// for the program, woken by its timer, to print what it woke up for.
pub(crate) const TIMED_WAIT_MARGIN: Duration = Duration::from_millis(100);

/// How long before output silence would settle a send a terminal wait with a timeout settles
/// it at the latest (see [`TIMED_WAIT_MARGIN`]): time for a probe to see the wait first.
pub(crate) const TIMED_WAIT_SILENCE_LEAD: Duration = Duration::from_millis(250);

/// The longest a key reader's terminal wait with a timeout (see
/// [`Observation::fg_key_wakes_in`]) is watched for appended rows before it settles a send that
/// gave no deadline of its own: `top` (its 3 s timer) is reported waiting for its key after
/// this long, while a program printing its progress beside its key read every second or more
/// often is seen at work.
pub(crate) const KEY_TIMER_LOOK: Duration = Duration::from_secs(1);

/// A terminal wait whose timer fires sooner than this may be a program holding what it read
/// for that timer (a lone ESC kept for the escape timeout: readline's and node's 500 ms,
/// prompt_toolkit's 0.5 s then 1 s; a key sent before it passes joins it, ESC `2` is Meta-2),
/// not one done with the input (see [`Observation::fg_reader_ran`]).
pub(crate) const HELD_INPUT_TIMER_MAX: Duration = Duration::from_secs(2);

/// What output silence alone may settle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SilenceRule {
    /// Silence settles as `inferred_idle` only when the kernel does not say the foreground
    /// job is busy: a job that computes, sleeps on a timer or waits on busy children keeps
    /// the send waiting up to its deadline; one blocked indefinitely (a server in `accept`,
    /// an event loop, a stopped job) settles at the idle window, and so does a full-screen
    /// program on the alternate screen whatever the kernel says (`watch`, a TUI between
    /// redraws).
    #[default]
    KernelIdle,
    /// The seed's rule: silence alone settles.
    PureSilence,
}

/// Timing knobs of the decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ReadinessTiming {
    /// Earliest time after the send started that a stdin wait may settle it.
    pub(crate) exact_probe_after: Duration,
    /// Output silence that settles as `inferred_idle`.
    pub(crate) idle_silence: Duration,
    /// Extra silence once a prompt mark was seen.
    pub(crate) handoff_grace: Duration,
    /// Absolute bound from the send's start.
    pub(crate) timeout: Duration,
    /// What output silence alone may settle.
    pub(crate) silence_rule: SilenceRule,
    /// The send gave its own deadline (`timeoutMs`): a foreground blocked on events with a
    /// timeout (a download's poll, `asyncio.sleep`, an event loop's timer) counts as busy, so
    /// silence waits for it up to that deadline instead of settling at the idle window.
    pub(crate) waits_out_timed_waits: bool,
}

/// The foreground observed before the input was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PreWrite {
    /// Foreground process group before the write.
    pub(crate) fg: Option<i32>,
    /// Whether that group was blocked reading the terminal (a prompt wait of the shell itself
    /// does not count).
    pub(crate) waiting: bool,
    /// The timeout of that wait, as [`Observation::fg_wakes_in`] gives it (`None`: none, or
    /// not known). A wait with a timeout that the group is seen back in after another wait
    /// counts as left (see [`Readiness::evaluate`]).
    pub(crate) wakes_in: Option<Duration>,
    /// The thread that waited on the terminal, with the CPU time it had run: a probe that
    /// finds it has run since (`Observation::fg_reader_ran`) knows it left its wait, even
    /// when no probe caught it away.
    pub(crate) reader: Option<ReaderThread>,
}

/// Why a send settles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Settle {
    /// Tier 1: the top-level process exited.
    Exit,
    /// Tier 2: the prompt came back.
    Prompt,
    /// Tier 3: a continuation prompt is waiting.
    Continuation,
    /// Tier 4: the foreground group is blocked reading the terminal.
    StdinWait,
    /// Tier 5: output went silent.
    Idle,
    /// Tier 6: the deadline passed.
    Timeout,
}

/// Per-send decision state.
#[derive(Clone, Debug)]
pub(crate) struct Readiness {
    timing: ReadinessTiming,
    started: Instant,
    initializing: bool,
    shell_pgid: i32,
    pre: PreWrite,
    left_wait: bool,
    /// The group waiting before the write was seen in another terminal wait since (a wait
    /// with another timeout): back in a wait like the one before, it left it and came back.
    wait_changed: bool,
    mark_seen: bool,
    typeahead: bool,
    poll_only: bool,
    keys_at_prompt: bool,
    held_by_line_discipline: bool,
    /// The newest busy verdict and the group it is about.
    busy: Option<(i32, bool)>,
    /// Since when the shell's own stdin wait has been holding for its prompt mark.
    shell_wait_since: Option<Instant>,
    /// The group whose terminal wait with a timeout (no prompt before the cursor) has
    /// been seen since this observation with no output after it (see [`TIMED_WAIT_MARGIN`]).
    timed_wait_since: Option<(i32, Instant)>,
    /// Since when the shell has read at a prompt the screen's marks announced while output it
    /// wrote waited unread, and that prompt's settle (see `prompt_drain`).
    undrained_since: Option<(Instant, Settle)>,
    /// The group a probe found blocked reading the terminal, and since when, while output
    /// kept coming (see `loud_wait`).
    loud_wait_since: Option<(i32, Instant)>,
    /// The group whose key reader's terminal wait with a timeout (see
    /// [`Observation::fg_key_wakes_in`]) has been seen since this observation with no row
    /// appended nor its line redrawn after it, the lowest row the cursor reached since, and
    /// the newest look's [`Observation::cursor_text`].
    key_wait_since: Option<KeyWait>,
    /// The newest observation had the alternate screen on.
    alternate: bool,
    /// A REPL's prompt stood before the cursor, after output that followed the write, at an
    /// earlier observation: the program is back at its prompt even when a timer of its own
    /// printed over it since (node's `setInterval`), so its wait needs only the prompt's quiet.
    prompt_seen: bool,
}

impl Readiness {
    /// Decision state for a send that started at `started`.
    pub(crate) fn new(
        timing: ReadinessTiming,
        started: Instant,
        initializing: bool,
        shell_pgid: i32,
        pre: PreWrite,
    ) -> Self {
        Self {
            timing,
            started,
            initializing,
            shell_pgid,
            pre,
            left_wait: !pre.waiting,
            wait_changed: false,
            mark_seen: false,
            typeahead: false,
            poll_only: false,
            keys_at_prompt: false,
            held_by_line_discipline: false,
            busy: None,
            shell_wait_since: None,
            timed_wait_since: None,
            undrained_since: None,
            loud_wait_since: None,
            key_wait_since: None,
            alternate: false,
            prompt_seen: false,
        }
    }

    /// Marks a send that writes nothing (an empty `text` without Enter): a poll. When the
    /// shell is already idle at its prompt or continuation prompt there is nothing to wait
    /// for, so it settles at once instead of after the idle window.
    pub(crate) fn set_poll_only(&mut self, poll_only: bool) {
        self.poll_only = poll_only;
    }

    /// Whether a REPL's prompt was seen, after output that followed the write, at an
    /// observation evaluated since: the one home of that fact for the send (its pacing and
    /// its pending-line notice ask here).
    pub(crate) fn prompt_seen(&self) -> bool {
        self.prompt_seen
    }

    /// The thread of group `fg` that waited on the terminal before the write, while no probe
    /// has seen the group leave that wait: a probe of that group asks whether it ran since.
    pub(crate) fn pre_reader(&self, fg: i32) -> Option<ReaderThread> {
        self.pre
            .reader
            .filter(|_| self.pre.fg == Some(fg) && !self.left_wait)
    }

    /// Whether the send writes nothing (see [`Readiness::set_poll_only`]).
    pub(crate) fn poll_only(&self) -> bool {
        self.poll_only
    }

    /// Marks the input as keys without a line end typed at the shell's line editor (an edit
    /// such as Ctrl-U, which may print nothing): once the line editor has read them all
    /// and printed nothing more for [`WEAK_WAIT_QUIET`], the shell waits at its prompt again
    /// and the send settles as a stdin wait (no exit status: no command ran).
    pub(crate) fn set_keys_at_prompt(&mut self, keys_at_prompt: bool) {
        self.keys_at_prompt = keys_at_prompt;
    }

    /// Marks the input as keys a reader in canonical mode cannot have received: no line end
    /// and none of the keys the line discipline acts on (end-of-file, interrupt, quit,
    /// suspend), so the kernel holds them in its line. A program already waiting before the
    /// write still waits for the same read: its wait is accepted without seeing it leave.
    pub(crate) fn set_held_by_line_discipline(&mut self, held: bool) {
        self.held_by_line_discipline = held;
    }

    /// When keys typed at the prompt settle if nothing else happens (for scheduling the next
    /// wake-up); see [`Readiness::set_keys_at_prompt`].
    pub(crate) fn keys_settle_at(&self, last_output_at: Instant) -> Option<Instant> {
        self.keys_at_prompt
            .then_some(last_output_at + WEAK_WAIT_QUIET)
    }

    /// Marks the input as typed ahead: written while the shell was not at its prompt (a
    /// command was still running). The running command's own prompt may then arrive after
    /// the write, and readline may already have gathered the typed bytes (so none are queued)
    /// before echoing them; only a shell provably blocked reading the terminal again has
    /// consumed the input, so the prompt tier also needs that `/proc` evidence.
    pub(crate) fn set_typeahead(&mut self, typeahead: bool) {
        self.typeahead = typeahead;
    }

    /// Changes the shell's process group (found at startup when the shell runs under a
    /// launcher).
    pub(crate) fn set_shell_pgid(&mut self, pgid: i32) {
        self.shell_pgid = pgid;
    }

    /// Whether the foreground waited for input on the terminal before the write (a reader
    /// the input answers, not a job it was typed ahead of).
    pub(crate) fn began_at_a_waiting_reader(&self) -> bool {
        self.pre.waiting
    }

    /// The absolute deadline.
    pub(crate) fn deadline(&self) -> Instant {
        self.started + self.timing.timeout
    }

    /// When a held wait of the shell itself (see [`PROMPT_MARK_WAIT`]) may settle, for
    /// scheduling the next wake-up.
    pub(crate) fn held_until(&self) -> Option<Instant> {
        self.shell_wait_since.map(|since| since + PROMPT_MARK_WAIT)
    }

    /// Whether the shell's prompt (or continuation prompt) is the current state, in which case
    /// a stdin wait of the shell is the prompt's own and not a program's.
    fn shell_prompt_current(&self, fg: Option<i32>, prompt: PromptState) -> bool {
        fg == Some(self.shell_pgid) && prompt != PromptState::Busy
    }

    /// Decides, updating the "left the pre-write wait" tracking.
    ///
    /// A pre-write wait of the same group is accepted once the group was seen not waiting, or
    /// once it answered the input with output (and went quiet, which every stdin settlement
    /// requires).
    pub(crate) fn evaluate(&mut self, o: &Observation) -> Option<Settle> {
        self.prompt_seen |= o.output_since_write && (o.prompt_at_cursor || o.prompt_above_cursor);
        if o.exited {
            return Some(Settle::Exit);
        }
        if o.mark_since_write {
            self.mark_seen = true;
        }
        let shell_fg = o.fg == Some(self.shell_pgid);
        // A poll at the shell's prompt, or at its continuation prompt (an open quote or
        // heredoc the command left), has nothing to wait for.
        if self.poll_only && !self.initializing && shell_fg && !o.input_pending && o.output_drained
        {
            match o.prompt {
                PromptState::Prompt => return Some(Settle::Prompt),
                PromptState::Continuation => return Some(Settle::Continuation),
                PromptState::Busy => {}
            }
        }
        // Input typed ahead was taken once the shell is seen blocked reading again, and the
        // screen holds everything it wrote before that: on a loaded machine the probe can find
        // the shell back at the prompt after the typed-ahead command ran while the reader has
        // not yet fed that command's output and prompt, so the screen's newest prompt would
        // still be the earlier command's.
        let consumed = !self.typeahead || (o.fg_waiting == Some(true) && o.output_drained);
        // The shell reads at the prompt its marks announce: the terminal is in its line
        // editor's modes, or a probe found it reading (a shell without line editing).
        let reads = o.tty_line_editing || o.fg_waiting == Some(true);
        let reading = shell_fg && !o.input_pending && consumed && reads;
        // Output printed after the prompt's end (a background job's log over the prompt, which
        // may never stop) leaves the marks' prompt the shell's current one while the terminal
        // is in its line editor's modes.
        let prompt = match o.prompt {
            PromptState::Busy if o.tty_line_editing => o.prompt_under_output,
            prompt => prompt,
        };
        let at_prompt = match prompt {
            PromptState::Prompt => o.done_since_write.then_some(Settle::Prompt),
            PromptState::Continuation => o.mark_since_write.then_some(Settle::Continuation),
            PromptState::Busy => None,
        }
        .filter(|_| reading);
        if let Some(settle) = self.prompt_settles(at_prompt, reading, o) {
            return Some(settle);
        }
        if self.keys_at_prompt
            && shell_fg
            && !o.input_pending
            && o.output_drained
            && o.now.saturating_duration_since(o.last_output_at) >= WEAK_WAIT_QUIET
        {
            return Some(Settle::StdinWait);
        }
        let gate = !self.initializing || o.has_output;
        if let (Some(waiting), Some(fg)) = (o.fg_waiting, o.fg) {
            if fg == self.pre.fg.unwrap_or(-1) && (!waiting || o.fg_reader_ran) {
                self.left_wait = true;
            }
            // A program that waited before the write with one timeout, then with another
            // (vim timing out an ESC: 25 ms, then 1 s, then its 4 s idle wait), and is back in
            // a wait like the first has dealt with the input, though it printed nothing and
            // no probe caught it between two waits.
            if fg == self.pre.fg.unwrap_or(-1)
                && waiting
                && self.pre.waiting
                && self.pre.wakes_in.is_some()
            {
                if o.fg_wakes_in != self.pre.wakes_in {
                    self.wait_changed = true;
                } else if self.wait_changed {
                    self.left_wait = true;
                }
            }
            let elapsed = o.now.saturating_duration_since(self.started);
            // The screen must have caught up with what the program printed before it blocked
            // (its prompt, or the shell's own prompt after a flood), so the wait is judged
            // against a current screen.
            let quiet_needed = match (
                o.fg_wait_among_others,
                o.prompt_at_cursor || self.prompt_seen,
            ) {
                (false, _) => PROBE_QUIET,
                (true, true) => PROMPT_WAIT_QUIET,
                (true, false) => WEAK_WAIT_QUIET,
            };
            let quiet = (o.output_drained
                && o.now.saturating_duration_since(o.last_output_at) >= quiet_needed)
                || self.loud_wait_held(waiting, fg, o);
            // A relay's wait (`ssh host make`, `docker exec -it`: it watches the terminal and
            // the remote side's output, which is still coming) with no prompt before the
            // cursor, on the main screen, is not a program's that wants input now: silence
            // decides it, not the wait. An event loop with nothing to relay (node's REPL after
            // a timer printed) is waiting for input.
            let unprompted_relay = o.fg_relays && o.cursor_on_blank_row && !o.alternate_screen;
            // A wait with a timeout on the main screen, with no REPL's prompt before the
            // cursor, may be a program still at work between two steps of its timer (node's
            // `setInterval` beside a stdin listener, a `select` loop that prints a line or
            // redraws a progress line per period): it settles once the timeout has passed
            // since the wait was first seen with no output meanwhile (the program woke and had
            // nothing to print), or shortly before silence would settle the send.
            let timer_passed = self.timed_wait_passed(waiting, fg, o);
            // A poll writes nothing, so a program already waiting for input is simply ready.
            // A program reading the terminal alone that is blocked there again with none of the
            // input left unread took it and asks for more, even when it printed nothing (a
            // `read -s` answered, a key to a program reading keys without echo): a probe
            // verdict only stands once the input was handed over and read (see
            // `Observation::fg_waiting`). A wait among other event sources may be an event
            // loop still busy with what it read, so it needs output or a leave first.
            let accepted = Some(fg) != self.pre.fg
                || self.left_wait
                || o.output_since_write
                || self.poll_only
                || self.held_by_line_discipline
                || !o.fg_wait_among_others;
            if gate
                && waiting
                && !unprompted_relay
                && timer_passed
                && quiet
                && elapsed >= self.timing.exact_probe_after
                && accepted
                && !self.shell_prompt_current(o.fg, o.prompt)
                && !o.input_pending
                && !o.reply_pending
            {
                if fg != self.shell_pgid
                    || !o.shell_marks_alive
                    || !o.line_editor_mode
                    || self.poll_only
                {
                    return Some(Settle::StdinWait);
                }
                let since = *self.shell_wait_since.get_or_insert(o.now);
                if o.now >= since + PROMPT_MARK_WAIT {
                    return Some(Settle::StdinWait);
                }
            } else if !waiting || fg != self.shell_pgid {
                self.shell_wait_since = None;
            }
        }
        if let (Some(busy), Some(fg)) = (o.fg_busy, o.fg) {
            // A send with its own deadline waits out a wait with a timeout (it ends by itself);
            // a poll with one waits out any quiet program (a download blocked on its socket,
            // `flock`): it asked to wait up to that long for what the program does next.
            let busy =
                busy || ((o.fg_timed_wait || self.poll_only) && self.timing.waits_out_timed_waits);
            self.busy = Some((fg, busy));
        }
        self.alternate = o.alternate_screen;
        // Silence is the program's, not the reader's: output waiting on the terminal that the
        // reader has not fed yet (its thread starved on a loaded machine, or busy with a
        // large chunk) is not silence, and settling then would show a screen without the
        // program's last output (a binary run "so far" whose end and the text after it were
        // still unread).
        if gate
            && o.output_drained
            && o.now >= self.silence_deadline(o.last_output_at)
            && self.silence_may_settle(o)
        {
            return Some(Settle::Idle);
        }
        if o.now >= self.deadline() {
            return Some(Settle::Timeout);
        }
        None
    }

    /// Whether a `/proc` probe of `fg` is worth running now (the prompt is not current for the
    /// shell, or it is but the terminal is not in its line editor's modes, `line_editing`: a
    /// prompt settles only once the shell is seen reading; and the probe could change the
    /// decision).
    pub(crate) fn wants_probe(
        &self,
        fg: Option<i32>,
        prompt: PromptState,
        line_editing: bool,
    ) -> bool {
        fg.is_some() && (self.typeahead || !line_editing || !self.shell_prompt_current(fg, prompt))
    }
}

mod loud_wait;
mod observation;
mod prompt_drain;
use timed_wait::KeyWait;
mod silence;
#[cfg(test)]
mod tests;
mod timed_wait;
