//! The interrupts a cancelled send delivers (and a signal `terminal_signal` handed to a send
//! whose command line the shell still held, delivered the same way).
//!
//! A cancel interrupts the foreground group the way the terminal's Ctrl-C would. Right after
//! the write, the shell may still be reading the line (readline gathers typed-ahead input into
//! a buffer of its own that an interrupt does not clear, so the rest of the line would be run
//! with the next send's text): while the shell itself holds the foreground, the interrupt
//! waits up to [`SHELL_GRACE`] for the command to take it. One that reaches the command's
//! group while its leader is still the shell's fork (which catches SIGINT as the shell does,
//! then runs the command anyway) is followed by another once the command holds the
//! foreground under its own program image. A program that survives its interrupt (a REPL back
//! at its prompt, one that ignores SIGINT) gets no other. A handed-over SIGKILL or SIGHUP never
//! goes to the shell itself (that would end the session): a line whose shell still holds the
//! terminal after the grace (builtins only, such as `read`) gets none. Until the signal went
//! somewhere (or was given up), the send does not settle on a wait for input: the signal is
//! about to end that wait (`read v` sent, then SIGINT at once).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::TerminalError;
use crate::types::TerminalSignal;

use super::observe::leader_runs_a_repl;
use super::shared::Shared;
use super::signal::{deliver, refusal};

/// Most interrupts one cancel delivers.
const MAX_CANCEL_INTERRUPTS: u32 = 4;
/// Longest wait, after a cancel, for the command to take the foreground from the shell
/// before the shell itself is interrupted (it runs a builtin loop, or never got the line).
const SHELL_GRACE: Duration = Duration::from_millis(250);

/// Longest wait, after a cancel, for a REPL to read the text already written to it before
/// its interrupt key goes (see [`CancelInterrupts::deliver_due`]).
const REPL_READ_GRACE: Duration = Duration::from_millis(300);

/// Longest wait for a REPL still taking in the text written to it (see [`still_taking_input`]):
/// on a loaded machine it can take longer than [`REPL_READ_GRACE`] to read a line, and an
/// interrupt then cuts the line (the terminal discards the rest), which Python acts on only when
/// the next line runs.
const REPL_TAKE_MAX: Duration = Duration::from_secs(3);

/// The foreground group an interrupt went to, and its leader's program name then.
#[derive(Debug, PartialEq, Eq)]
struct Target {
    pgid: Option<i32>,
    leader: Option<String>,
}

impl Target {
    /// The foreground now (reads `/proc`: call it off the async workers).
    fn now(shared: &Shared) -> Self {
        let pgid = shared.pty.foreground_pgid();
        let leader = pgid.and_then(program_name);
        Self { pgid, leader }
    }
}

/// The program name (`comm`) of process `pid` (a blocking `/proc` read).
pub(super) fn program_name(pid: i32) -> Option<String> {
    crate::process::stat(pid).map(|s| s.comm)
}

/// The interrupts a cancelled send delivered so far.
#[derive(Debug, Default)]
pub(super) struct CancelInterrupts {
    last: Option<Target>,
    count: u32,
    /// When the cancel was first seen.
    since: Option<Instant>,
    /// The shell's program name, read with the first target.
    shell_leader: Option<String>,
    /// When an interrupt was last delivered.
    delivered_at: Option<Instant>,
    /// The parent of the leader of the group last interrupted: a nested shell (or other
    /// job-control program) that ran it, and takes the foreground back once it ended.
    parent_of_last: Option<i32>,
}

impl CancelInterrupts {
    /// Delivers `owed`'s signal (a cancel's SIGINT, or the one handed over, with whether it
    /// goes as the terminal's key: see [`deliver`]) to the foreground when it has not reached
    /// it yet: the first time, and again when another group than the shell's,
    /// or the same group under a new program image, holds the foreground (at most
    /// [`MAX_CANCEL_INTERRUPTS`] in all), unless that group's leader ran the group
    /// interrupted before (a nested shell back at its prompt).
    ///
    /// # Errors
    /// The signal could not be delivered (see [`deliver`]).
    pub(super) async fn deliver_due(
        &mut self,
        shared: &Arc<Shared>,
        owed: (TerminalSignal, bool),
    ) -> Result<(), TerminalError> {
        let (signal, as_key) = owed;
        if self.count >= MAX_CANCEL_INTERRUPTS {
            return Ok(());
        }
        let sh = Arc::clone(shared);
        let want_shell = self.shell_leader.is_none();
        let (target, shell_leader, repl, reading, parent) =
            tokio::task::spawn_blocking(move || {
                let shell = want_shell.then(|| program_name(sh.shell_pgid())).flatten();
                let target = Target::now(&sh);
                let parent = target
                    .pgid
                    .and_then(crate::process::stat)
                    .map(|leader| leader.ppid);
                // A REPL (node, run with no script) that reads keys raw takes Ctrl-C as the
                // interrupt of its statement and stays: the key goes to it, as the terminal's own
                // would; a real SIGINT would end it, and everything it held.
                let repl = target.pgid.is_some_and(leader_runs_a_repl);
                // Asked of a REPL only (a `/proc` probe): see below.
                let reading = repl && target.pgid.and_then(|pgid| sh.tty_reader(pgid)).is_some();
                (target, shell, repl, reading, parent)
            })
            .await
            .unwrap_or((
                Target {
                    pgid: None,
                    leader: None,
                },
                None,
                false,
                false,
                None,
            ));
        let as_key = as_key || repl;
        if want_shell {
            self.shell_leader = shell_leader;
        }
        let since = *self.since.get_or_insert_with(Instant::now);
        if repl
            && self.last.is_none()
            && target.pgid.is_some_and(|pgid| {
                holds_back(
                    shared,
                    pgid,
                    target.leader.as_deref(),
                    reading,
                    since.elapsed(),
                )
            })
        {
            return Ok(());
        }
        let of_shell = target.pgid == Some(shared.shell_pgid());
        // Not a group whose leader is gone (the group interrupted last, ending), nor the
        // program that ran the group interrupted last, taking the foreground back once that
        // ended (a nested shell back at its prompt): interrupted there, its line editor would
        // eat the first key of the next send.
        let due = match &self.last {
            None => !of_shell || since.elapsed() >= SHELL_GRACE,
            Some(last) => {
                target.pgid.is_some()
                    && target.leader.is_some()
                    && !of_shell
                    && target != *last
                    && target.pgid != self.parent_of_last
            }
        };
        if !due {
            return Ok(());
        }
        // The shell itself is not ended by a handed-over signal: after the grace with the
        // shell still holding the terminal (its line runs builtins), nothing gets it.
        let shell = shared.shell_pgid();
        if of_shell && refusal(signal, shell, shell).is_some() {
            self.count = MAX_CANCEL_INTERRUPTS;
            return Ok(());
        }
        let first = self.last.is_none();
        let target_pgid = target.pgid;
        self.last = Some(target);
        self.parent_of_last = parent.or(self.parent_of_last);
        self.count += 1;
        self.delivered_at = Some(Instant::now());
        match deliver(shared, signal, as_key) {
            // A later group that ended before its interrupt, or the first one ended since it
            // was looked up (a session closing under a background send): nothing left to
            // interrupt.
            Err(e) if !first || target_pgid.is_none_or(group_gone) => {
                tracing::debug!(error = %e, "cancel interrupt not delivered");
                Ok(())
            }
            other => other.map(drop),
        }
    }

    /// When an interrupt was last delivered: the program's silence before it says nothing of
    /// how it takes the signal, so a send's silence counts from then.
    pub(super) fn delivered_at(&self) -> Option<Instant> {
        self.delivered_at
    }

    /// Whether the signal has yet to go anywhere, though it still may: nothing was delivered,
    /// and it was not given up.
    pub(super) fn pending(&self) -> bool {
        self.last.is_none() && self.count < MAX_CANCEL_INTERRUPTS
    }

    /// Whether an interrupt reached a program of the command: a group other than the shell's
    /// whose leader runs its own program image (not a fork of the shell that has yet to run
    /// the command, which handles SIGINT as the shell does).
    pub(super) fn reached_program(&self) -> bool {
        self.last.as_ref().is_some_and(|t| {
            t.pgid.is_some() && t.leader.is_some() && t.leader != self.shell_leader
        }) && self.shell_leader.is_some()
    }
}

/// Whether an interrupt for the REPL holding the foreground (its leader's program name
/// `leader`; `reading`: it reads the terminal now) is held back, up to [`REPL_READ_GRACE`]:
/// - Bytes written to the REPL still wait unread on the terminal: Python's REPL notes an
///   interrupt that arrives while it takes in a line's characters but acts on it only when the
///   next line runs, so the rest of the cut line (the interrupt discards the unread input) ran
///   joined to the next send's text (`import tiprint(…)`).
/// - Its line editor reads keys raw (node) and it does not read the terminal now: it takes the
///   interrupt as its key only while it reads, and a real SIGINT, which stops a line it runs,
///   ends the REPL and everything it held once the line is done and before it reads keys
///   again (its handler is there only while a line runs). After the grace a line still
///   running gets the signal it stops on.
fn holds_interrupt(shared: &Shared, leader: Option<&str>, reading: bool) -> bool {
    shared.pty.pending_input_bytes().unwrap_or(0) > 0
        || (!reading && leader.is_some_and(super::signal::edits_lines_raw))
}

/// Whether an interrupt for the REPL leading foreground group `pgid` (its program name
/// `leader`; `reading`: it reads the terminal now), held `held` so far, is held on: within
/// [`REPL_READ_GRACE`] while [`holds_interrupt`], within [`REPL_TAKE_MAX`] while
/// [`still_taking_input`].
fn holds_back(
    shared: &Shared,
    pgid: i32,
    leader: Option<&str>,
    reading: bool,
    held: Duration,
) -> bool {
    (held < REPL_READ_GRACE && holds_interrupt(shared, leader, reading))
        || (held < REPL_TAKE_MAX && still_taking_input(shared, pgid, reading))
}

/// Whether the REPL leading foreground group `pgid` (`reading`: it reads the terminal now) is
/// still taking in the text written to it: input waits unread, and it reads the terminal, runs
/// (or waits for a CPU) or writes (its echo, the terminal's output full while the session's
/// reader of it is behind), rather than being blocked elsewhere (a statement's `sleep`, which
/// the interrupt is for).
fn still_taking_input(shared: &Shared, pgid: i32, reading: bool) -> bool {
    shared.pty.pending_input_bytes().unwrap_or(0) > 0
        && (reading
            || crate::process::stat(pgid).is_some_and(|s| s.state == 'R')
            || crate::process::blocked_writing(pgid))
}

/// How often [`wait_for_repl_to_take_interrupt`] looks again.
const REPL_READ_POLL: Duration = Duration::from_millis(5);

/// `terminal_signal`'s SIGINT (or SIGTSTP) to a REPL in the foreground that holds an interrupt
/// back (see [`holds_interrupt`]): blocks, looking at `/proc` every [`REPL_READ_POLL`], until
/// it no longer does, another group holds the foreground, or [`REPL_READ_GRACE`] passed (up to
/// [`REPL_TAKE_MAX`] while it is still taking in the text, see [`still_taking_input`]).
/// Returns at once for anything but a REPL (call it off the async workers).
pub(super) fn wait_for_repl_to_take_interrupt(shared: &Shared) {
    let started = Instant::now();
    let Some(pgid) = shared.pty.foreground_pgid() else {
        return;
    };
    if !leader_runs_a_repl(pgid) {
        return;
    }
    let leader = program_name(pgid);
    while shared.pty.foreground_pgid() == Some(pgid)
        && holds_back(
            shared,
            pgid,
            leader.as_deref(),
            shared.tty_reader(pgid).is_some(),
            started.elapsed(),
        )
    {
        std::thread::sleep(REPL_READ_POLL);
    }
}

/// Whether no process is left in process group `pgid` (`kill(-pgid, 0)` finds none).
fn group_gone(pgid: i32) -> bool {
    rustix::process::Pid::from_raw(pgid).is_none_or(|pid| {
        rustix::process::test_kill_process_group(pid) == Err(rustix::io::Errno::SRCH)
    })
}
