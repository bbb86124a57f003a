//! Foreground probes: the one `/proc` probe of the foreground group a send's readiness is
//! decided from ([`Shared::probe`]), and the schedule of one send's probes: probe once output
//! goes quiet, then back off.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::process::{
    GroupActivity, GroupUsage, ReaderThread, TtyReaders, group_activity_and_readers_in,
    group_look_in, group_member_reads_tty_in, group_relays_in, group_tty_reader_in,
    group_tty_reader_thread_in, tty_read_outside_group_in,
};
use crate::readiness::{HELD_INPUT_TIMER_MAX, PROBE_QUIET};

/// Longest time between two probes while output keeps coming (see [`ProbeSchedule`]).
pub(crate) const LOUD_PROBE_EVERY: Duration = Duration::from_millis(250);

use super::observe::leader_runs_a_repl;
use super::shared::Shared;

mod cpu;

pub(super) use cpu::CpuWatch;

/// When the driver next probes the foreground: once output has been quiet for the current
/// delay, which starts at [`PROBE_QUIET`] when the input lands or a prompt mark arrives and
/// doubles after every probe up to `poll_interval`. A program that prints its prompt and
/// blocks is seen within a millisecond or two; new output pushes the next probe out, but never
/// past [`LOUD_PROBE_EVERY`] after the last one (output that never stops, a background job's
/// log, must not hide a program waiting for input behind it), so a flood costs at most one
/// probe per [`LOUD_PROBE_EVERY`] and a silent long job one per `poll_interval`.
pub(super) struct ProbeSchedule {
    /// When the last probe ran (or the schedule began).
    probed_at: Instant,
    seen_output_at: Instant,
    seen_marks: u64,
    delay: Duration,
    next: Instant,
    max: Duration,
}

impl ProbeSchedule {
    pub(super) fn new(from: Instant, marks: u64, max: Duration) -> Self {
        Self {
            probed_at: from,
            seen_output_at: from,
            seen_marks: marks,
            delay: PROBE_QUIET,
            next: from + PROBE_QUIET,
            max: max.max(PROBE_QUIET),
        }
    }

    /// Starts over from `at` (the input just landed, or a prompt mark arrived).
    pub(super) fn restart(&mut self, at: Instant) {
        self.delay = PROBE_QUIET;
        self.next = at + PROBE_QUIET;
    }

    /// Output (or a mark) at `last_output_at`, `marks` marks seen so far.
    pub(super) fn on_output(&mut self, last_output_at: Instant, marks: u64) {
        if marks != self.seen_marks {
            self.seen_marks = marks;
            self.seen_output_at = last_output_at;
            self.restart(last_output_at);
        } else if last_output_at != self.seen_output_at {
            self.seen_output_at = last_output_at;
            self.next = self
                .next
                .max(last_output_at + self.delay)
                .min(self.probed_at + LOUD_PROBE_EVERY);
        }
    }

    pub(super) fn due(&self, now: Instant) -> bool {
        now >= self.next
    }

    pub(super) fn probed(&mut self, now: Instant) {
        self.probed_at = now;
        self.delay = (self.delay * 2).min(self.max);
        self.next = now + self.delay;
    }

    pub(super) fn next_at(&self) -> Instant {
        self.next
    }
}

impl Shared {
    /// The thread of process group `pgid` that waits for input on this terminal, with the CPU
    /// time it has run so far, if the group waits there (see [`Shared::tty_reader`]).
    pub(super) async fn tty_reader_thread(&self, pgid: i32) -> Option<ReaderThread> {
        let tty = self.pty.tty_path()?.to_path_buf();
        let scope = self.scope.clone();
        tokio::task::spawn_blocking(move || group_tty_reader_thread_in(pgid, &tty, &scope))
            .await
            .ok()
            .flatten()
    }

    /// Whether process group `pgid` takes text written to the terminal soon (see
    /// `send::hold`): a member reads the terminal ([`Uptake::Reads`], also while others
    /// compute), the group is at work and may read later ([`Uptake::Busy`]), waits on other
    /// events with a timeout ([`Uptake::TimedWait`]), or with none, or cannot be told
    /// ([`Uptake::Elsewhere`]). The `/proc` scans run off the async workers.
    pub(super) async fn uptake(&self, pgid: i32) -> Uptake {
        let Some(tty) = self.pty.tty_path().map(std::path::Path::to_path_buf) else {
            return Uptake::Elsewhere;
        };
        let scope = self.scope.clone();
        tokio::task::spawn_blocking(move || {
            match group_activity_and_readers_in(pgid, &tty, &scope).0 {
                GroupActivity::ReadingTty { .. } | GroupActivity::BusyReadingTty => Uptake::Reads,
                GroupActivity::Busy if group_member_reads_tty_in(pgid, &tty, &scope) => {
                    Uptake::Reads
                }
                GroupActivity::Busy => Uptake::Busy,
                GroupActivity::TimedWait => Uptake::TimedWait,
                GroupActivity::Idle => Uptake::Elsewhere,
            }
        })
        .await
        .unwrap_or(Uptake::Elsewhere)
    }

    /// Whether the terminal is in a line editor's modes now (readline at a prompt; see
    /// `TtyModes::line_editing`).
    pub(super) fn line_editing(&self) -> bool {
        self.pty
            .modes()
            .is_some_and(crate::pty::TtyModes::line_editing)
    }

    /// Whether a member of process group `pgid` has a thread asleep reading this terminal,
    /// whatever its other threads and members do (a program whose key-reading thread waits
    /// while another thread or process of it computes). Blocking `/proc` reads: call it off
    /// the async workers.
    pub(super) fn group_reads_tty(&self, pgid: i32) -> bool {
        self.pty
            .tty_path()
            .is_some_and(|tty| group_member_reads_tty_in(pgid, tty, &self.scope))
    }

    /// The member of process group `pgid` that waits for input on this terminal, if the
    /// group waits there (blocking `/proc` reads: call it off the async workers).
    pub(super) fn tty_reader(&self, pgid: i32) -> Option<i32> {
        group_tty_reader_in(pgid, self.pty.tty_path()?, &self.scope)
    }

    /// One foreground probe, run off the runtime as one blocking task: what process group
    /// `pgid` is doing (idle, the seed's silence rule, when it cannot be told); whether the
    /// shell replaced itself (asked only for the shell's group, `of_shell`); whether input
    /// still waits unread on the terminal (`Pty::input_pending`, asked only when the group was
    /// seen reading the terminal: only such a group can have been seen before it got all of
    /// its input); for a wait among other event sources, whether the group relays another
    /// side's output (`group_relays_in`); for a terminal wait, whether `watch` (the thread
    /// that waited before the write) has run since; and, with `outside` for a group that is
    /// idle elsewhere, whether a session process outside it reads the terminal
    /// (`tty_read_outside_group_in`: tmux's server). The future borrows nothing, so a send can
    /// wait for it beside other events.
    pub(super) fn probe(
        self: &Arc<Self>,
        pgid: i32,
        of_shell: bool,
        watch: Option<ReaderThread>,
        outside: bool,
    ) -> impl std::future::Future<Output = ProbeVerdict> + Send + 'static {
        let shared = Arc::clone(self);
        async move {
            tokio::task::spawn_blocking(move || {
                let (activity, readers, usage) = shared.pty.tty_path().map_or_else(
                    || {
                        (
                            GroupActivity::Idle,
                            TtyReaders::default(),
                            GroupUsage::default(),
                        )
                    },
                    |tty| group_look_in(pgid, tty, &shared.scope),
                );
                // Waiting now, but its CPU time grew since the last probe as a computing
                // program's does, or it reaped children: a loop of short-lived commands (see
                // `CpuWatch`).
                let computing = shared.cpu_watch.computing(pgid, usage, Instant::now());
                let activity = match activity {
                    GroupActivity::Idle | GroupActivity::TimedWait if computing => {
                        GroupActivity::Busy
                    }
                    activity => activity,
                };
                let reading = matches!(activity, GroupActivity::ReadingTty { .. });
                let input_pending = reading && shared.pty.input_pending();
                // Input written before the look may have been on its way through the
                // terminal then, and taken between the look and the input check (a reader
                // woken by it, on a loaded machine): with none pending, the readers must be
                // asleep on the terminal still, or the group is at work on it.
                let activity = if reading && !input_pending && !readers.still_waiting() {
                    GroupActivity::Busy
                } else {
                    activity
                };
                let repl = || leader_runs_a_repl(pgid);
                // Woken since the write and waiting again with no timer pending: a timer may be
                // work the input started (an `await asyncio.sleep(2)` before the answer), or
                // the program holding what it read (a lone ESC kept for its escape timeout),
                // whose meaning the next key would change. A REPL's timers are its user's (and
                // node's REPL keeps one of its own): one that had a timer pending before the
                // write may have one after, if not a short one.
                let reader_ran = match (activity, watch) {
                    (GroupActivity::ReadingTty { wakes_in, .. }, Some(watch)) => {
                        wakes_in.is_none_or(|w| watch.timed && w >= HELD_INPUT_TIMER_MAX && repl())
                            && watch.ran_since()
                    }
                    _ => false,
                };
                // A REPL's timers are its user's (node's REPL also keeps one of its own): it
                // waits for the next statement, so a timeout of its wait says nothing of work
                // still in progress.
                let mut repl_pending = false;
                let activity = match activity {
                    GroupActivity::ReadingTty {
                        only_tty,
                        wakes_in: Some(_),
                    } if repl() => {
                        repl_pending = true;
                        GroupActivity::ReadingTty {
                            only_tty,
                            wakes_in: None,
                        }
                    }
                    activity => activity,
                };
                // Or a child of it runs (an `await` of a child process: node's `exec`), not
                // one stopped (a debugger's program at a breakpoint).
                if !repl_pending && matches!(activity, GroupActivity::ReadingTty { .. }) && repl() {
                    repl_pending = shared
                        .processes()
                        .iter()
                        .any(|s| s.ppid == pgid && !matches!(s.state, 'T' | 't' | 'Z' | 'X'));
                }
                let read_outside = outside
                    && matches!(activity, GroupActivity::Idle | GroupActivity::TimedWait)
                    && shared
                        .pty
                        .tty_path()
                        .is_some_and(|tty| tty_read_outside_group_in(pgid, tty, &shared.scope));
                ProbeVerdict {
                    activity,
                    shell_replaced: of_shell && shared.shell_replaced(),
                    input_pending: input_pending || (read_outside && shared.pty.input_pending()),
                    read_outside,
                    relays: matches!(
                        activity,
                        GroupActivity::ReadingTty {
                            only_tty: false,
                            ..
                        }
                    ) && !repl()
                        && group_relays_in(pgid, &shared.scope),
                    reader_ran,
                    repl_pending,
                }
            })
            .await
            .unwrap_or(ProbeVerdict {
                activity: GroupActivity::Idle,
                shell_replaced: false,
                input_pending: false,
                relays: false,
                reader_ran: false,
                repl_pending: false,
                read_outside: false,
            })
        }
    }
}

/// Whether a process group takes text written to the terminal soon (see [`Shared::uptake`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Uptake {
    /// A member reads the terminal.
    Reads,
    /// At work (computing, sleeping on a timer, waiting on busy children): it may read later.
    Busy,
    /// Waiting on other events, each wait with a timeout (an event loop's timer,
    /// `asyncio.sleep`, a client's poll on its socket, a CLI reaching its server before it
    /// asks for a password, a server waking on a timer): it may read later, or never.
    TimedWait,
    /// Blocked on other events with no timeout (a server in `accept`, a stopped job), or not
    /// to be told: for good, once output has been quiet for a while (one look may catch a
    /// program starting up in a short wait of its own).
    Elsewhere,
}

/// What one foreground probe found (see [`Shared::probe`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct ProbeVerdict {
    pub(super) activity: GroupActivity,
    /// The group is the shell's, and the shell `exec`ed another program.
    pub(super) shell_replaced: bool,
    /// Input the group has not read waits on the terminal.
    pub(super) input_pending: bool,
    /// The group waits on the terminal among other sources and relays another side's output.
    pub(super) relays: bool,
    /// The thread that waited on the terminal before the write has run since, and the group
    /// waits on the terminal again with no timer, or (a REPL whose wait had one before the
    /// write) none due within [`HELD_INPUT_TIMER_MAX`].
    pub(super) reader_ran: bool,
    /// The group is a REPL with work of its own pending: its terminal wait has a timer (left
    /// out of `activity`: node's REPL keeps one of its own, an `await` adds one), or a child
    /// process of its leader runs (an `await` of a child process).
    pub(super) repl_pending: bool,
    /// The group is idle elsewhere, and a session process outside it reads the terminal.
    pub(super) read_outside: bool,
}
