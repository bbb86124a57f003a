//! What a program a signal was sent to does a moment later: still busy, or still waiting at
//! the prompt it was answering. The answer to `terminal_signal` can then say so at once,
//! instead of the agent finding out when its next send, typed into the busy program, waits out
//! its whole deadline, or answers a prompt that ignored the signal (a password prompt takes a
//! command meant for the shell as the password).

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::screen::{Position, Screen};
use crate::types::{AfterSignal, TerminalSignal};

use super::cancel::program_name;
use super::observe::{is_primary_repl_prompt, is_repl_prompt_of, leader_runs_a_repl};
use super::shared::{Shared, State};

/// How often [`after_signal`] looks at the group.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// How long, once a signal's effect showed (the group printed something, or gave the terminal
/// up) while it neither reads input nor has given the terminal back to the shell, to look
/// whether it does: node prints a line end on its second Ctrl-C, then exits.
const FATE_WAIT: Duration = Duration::from_millis(250);

/// How often [`fate`] looks.
const FATE_LOOK_EVERY: Duration = Duration::from_millis(10);

/// How long a reader must go on waiting at its prompt, silent, after the signal to count as
/// one that ignores it: the kernel delivers a signal at once, and a program that acts on it
/// leaves its wait (to end, print or clean up) well within this.
const STILL_READING_AFTER: Duration = Duration::from_millis(300);

/// The reader the last result left waiting, as a signal found it (see
/// `State::reader_at_signal`).
#[derive(Clone, Debug)]
pub(super) struct ReaderAtSignal {
    /// Its process group.
    pub(super) pgid: i32,
    /// Its prompt (trimmed), when it showed one.
    pub(super) prompt: Option<String>,
    /// The signal.
    pub(super) signal: TerminalSignal,
    /// `State::bytes_read` when the signal went.
    pub(super) bytes_read: u64,
}

/// A reader still waiting at its prompt after a signal (see `State::survived_reader`).
#[derive(Clone, Debug)]
pub(super) struct SurvivedReader {
    /// Its process group.
    pub(super) pgid: i32,
    /// Its prompt (trimmed), when it showed one.
    pub(super) prompt: Option<String>,
    /// The signal it went on after.
    pub(super) signal: TerminalSignal,
    /// Its program's name (`the shell's read` for our shell's own).
    pub(super) program: String,
    /// `screen.prompt_end_count()` then: a marked prompt of our shell since means it ended.
    pub(super) prompts: u64,
}

/// Notes, as `signal` goes now, the reader the last result left waiting (see
/// `State::reader_at_signal`), which the signal's answer looks at: else the reader an earlier
/// signal left waiting, while no prompt of the shell came since (a second signal it ignores
/// too is said to leave it waiting as the first was). The survivor of the earlier signal is
/// forgotten either way.
pub(super) fn note_reader(st: &mut State, signal: TerminalSignal) {
    let awaited = st.awaited_reader.take();
    let survived = st.survived_reader.take();
    let bytes_read = st.bytes_read;
    let prompts = st.screen.prompt_end_count();
    let reader = match awaited {
        Some(a) => a.foreground.map(|pgid| (pgid, a.prompt)),
        None => survived
            .filter(|s| s.prompts == prompts)
            .map(|s| (s.pgid, s.prompt)),
    };
    st.reader_at_signal = reader.map(|(pgid, prompt)| ReaderAtSignal {
        pgid,
        prompt,
        signal,
        bytes_read,
    });
}

/// How to end a reader that still waits after `signal` (a prompt that ignored it): the shell's
/// own `read` by end of input; a program by SIGTERM, or by SIGKILL once SIGTERM (or SIGHUP)
/// was what it ignored.
pub fn end_reader_advice(program: &str, signal: &str) -> String {
    if program == SHELL_READ {
        "end the read with \\u0004 (Ctrl-D, end of input) sent with submit: false".to_owned()
    } else if matches!(signal, "SIGTERM" | "SIGHUP") {
        format!("end {program} with terminal_signal SIGKILL")
    } else {
        format!("end {program} with terminal_signal SIGTERM (SIGKILL if it ignores that too)")
    }
}

/// The program name a survivor of the shell's own `read` goes by.
pub(super) const SHELL_READ: &str = "the shell's read";

/// What the group is doing, as far as a signal's effect goes.
enum Effect {
    /// It ended, gave the terminal back, or reads input again (handled: back at a prompt).
    Settled,
    /// It still holds the terminal and does not wait for input.
    Busy,
}

/// What group `pgid` does a moment after a signal (see [`AfterSignal`]): when it is the
/// reader the last result left waiting, whether it still waits there, silent,
/// [`STILL_READING_AFTER`] later (noted for the next send's guard, see
/// `send::stale_reader::check_survivor`); otherwise, the name of its program when, `within`
/// later, it still holds the terminal and is not waiting to read it. Looks every
/// [`LOOK_EVERY`] (blocking `/proc` reads, off the async workers).
pub(super) async fn after_signal(shared: &Arc<Shared>, pgid: i32, within: Duration) -> AfterSignal {
    let name = shared
        .lock()
        .signal_target
        .take()
        .filter(|(target, _)| *target == pgid)
        .map(|(_, name)| name);
    let after = match looks(shared, pgid, within).await {
        AfterSignal::Settled if pgid != shared.shell_pgid() => fate(shared, pgid, name).await,
        other => other,
    };
    if after == AfterSignal::Settled && pgid != shared.shell_pgid() {
        if let Some(back) = back_at_prompt(shared, pgid).await {
            return back;
        }
        // The program a debugger runs: the signal stopped it, and the debugger, another
        // group, holds the terminal again at its prompt (`(gdb)` once gdb's inferior got
        // SIGINT).
        let debugger = shared
            .pty
            .foreground_pgid()
            .filter(|&fg| fg != pgid && fg != shared.shell_pgid());
        if let Some(fg) = debugger {
            return back_at_prompt(shared, fg).await.unwrap_or(after);
        }
    }
    after
}

/// How long, once a signal's effect settled with group `pgid` reading again, to look for its
/// REPL's prompt on the cursor's row: the REPL printed it before it read, so only the
/// session's reader of the terminal's output can be behind.
const PROMPT_SHOWS_WITHIN: Duration = Duration::from_millis(100);

/// [`AfterSignal::BackAtPrompt`] when group `pgid` holds the terminal and reads it with its
/// REPL's primary prompt (`>>>`, `In [5]:`, `(Pdb)`), or a nested shell's (`bash-5.2$`),
/// before the cursor, looking up to
/// [`PROMPT_SHOWS_WITHIN`], and still does [`PROMPT_STAYS_FOR`] later; `None` otherwise.
async fn back_at_prompt(shared: &Arc<Shared>, pgid: i32) -> Option<AfterSignal> {
    let deadline = Instant::now() + PROMPT_SHOWS_WITHIN;
    loop {
        if let Some(found) = reading_at_prompt(shared, pgid).await {
            // Still so a moment later: a REPL the key ends (node's second Ctrl-C) may read
            // again at its prompt for a moment as it exits.
            tokio::time::sleep(PROMPT_STAYS_FOR).await;
            // Not a debugger's fresh prompt after its program ended with an exception (pdb's
            // post-mortem one, after a second SIGINT in its program's read): no state kept.
            return reading_at_prompt(shared, pgid)
                .await
                .filter(|again| *again == found)
                .filter(|(_, prompt)| !after_post_mortem(&mut shared.lock().screen, prompt))
                .map(|(program, prompt)| AfterSignal::BackAtPrompt { program, prompt });
        }
        if Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(FATE_LOOK_EVERY).await;
    }
}

/// How many rows above the cursor [`after_post_mortem`] looks at.
const POST_MORTEM_ROWS: u64 = 12;

/// Whether the rows of `screen` just above the cursor, up to an earlier row beginning with the
/// debugger's `prompt` (`(Pdb)`), show Python's debugger entering post-mortem debugging
/// (`Uncaught exception. Entering post mortem debugging`, after a traceback): the program
/// ended with an exception (a second SIGINT while pdb's program read a line: `can't re-enter
/// readline`), and the prompt at the cursor is the debugger's over a program that is gone.
fn after_post_mortem(screen: &mut Screen, prompt: &str) -> bool {
    let cursor = screen.cursor();
    let col = screen.cols();
    (1..=POST_MORTEM_ROWS)
        .map_while(|up| cursor.row.checked_sub(up))
        .map_while(|row| screen.text_before(Position { row, col }))
        .take_while(|text| !text.trim_start().starts_with(prompt))
        .any(|text| text.contains("Entering post mortem debugging"))
}

/// How long the REPL must go on reading at its prompt once seen there to count as back at it.
const PROMPT_STAYS_FOR: Duration = Duration::from_millis(150);

/// The program of group `pgid` and its primary prompt before the cursor, when the group holds
/// the terminal and reads it there (`/proc` reads off the async workers).
async fn reading_at_prompt(shared: &Arc<Shared>, pgid: i32) -> Option<(String, String)> {
    let sh = Arc::clone(shared);
    let (program, reader) = tokio::task::spawn_blocking(move || {
        (sh.pty.foreground_pgid() == Some(pgid))
            .then(|| sh.tty_reader(pgid))
            .flatten()
            .and_then(|pid| program_name(pid).map(|name| (name, pid)))
    })
    .await
    .ok()
    .flatten()?;
    let prompt = shared
        .lock()
        .screen
        .cursor_row_prefix()
        .map(|row| row.trim().to_owned())
        .filter(|row| {
            (is_primary_repl_prompt(row) && is_repl_prompt_of(row, &program))
                // A nested shell at its prompt (it ignores SIGTERM and SIGTSTP there), not a
                // shell running a script (`bash ask.sh` at its `pw> `).
                || super::nested_shell::is_nested_shell_prompt(row, &program, reader)
        })?;
    Some((program, prompt))
}

/// Once the effect of a signal to group `pgid` (whose leader ran program `name`) settled:
/// whether the group ended ([`AfterSignal::Ended`]) or was stopped ([`AfterSignal::Stopped`])
/// and the shell holds the terminal again, looking up to [`FATE_WAIT`] while the group holds
/// the terminal without reading it; `Settled` when it reads again, or another group holds
/// the terminal.
async fn fate(shared: &Arc<Shared>, pgid: i32, name: Option<String>) -> AfterSignal {
    let deadline = Instant::now() + FATE_WAIT;
    loop {
        let sh = Arc::clone(shared);
        let looked = tokio::task::spawn_blocking(move || {
            let foreground = sh.pty.foreground_pgid();
            if foreground == Some(pgid) {
                return sh.tty_reader(pgid).map(|_| None);
            }
            if foreground != Some(sh.shell_pgid()) {
                return Some(None);
            }
            // Stopped by job control: a process of the group is (its leader may be gone: a
            // pipeline's first command).
            let stopped = sh
                .processes()
                .iter()
                .any(|s| s.pgrp == pgid && matches!(s.state, 'T' | 't'));
            Some(Some(stopped))
        })
        .await
        .unwrap_or(Some(None));
        match looked {
            Some(None) => return AfterSignal::Settled,
            Some(Some(stopped)) => {
                let program = name.unwrap_or_else(|| "the program".to_owned());
                return if stopped {
                    // Said here: the next send's result does not say it again.
                    shared.lock().stopped_jobs_seen.push(pgid);
                    AfterSignal::Stopped(program)
                } else {
                    AfterSignal::Ended(program)
                };
            }
            None if Instant::now() >= deadline => return AfterSignal::Settled,
            None => tokio::time::sleep(FATE_LOOK_EVERY).await,
        }
    }
}

/// [`after_signal`] up to the effect: `Settled` once the group's handling of the signal
/// showed, before [`fate`] looks at what became of it.
async fn looks(shared: &Arc<Shared>, pgid: i32, within: Duration) -> AfterSignal {
    let reader = shared
        .lock()
        .reader_at_signal
        .take()
        .filter(|r| r.pgid == pgid);
    if let Some(reader) = reader
        && let Some(after) = reads_on(shared, reader, within.min(STILL_READING_AFTER)).await
    {
        return after;
    }
    // Not a reader the signal left waiting (or one at work now): busy or not.
    if pgid == shared.shell_pgid() {
        return AfterSignal::Settled;
    }
    let deadline = Instant::now() + within;
    loop {
        let sh = Arc::clone(shared);
        let effect = tokio::task::spawn_blocking(move || {
            if sh.pty.foreground_pgid() != Some(pgid) || sh.tty_reader(pgid).is_some() {
                Effect::Settled
            } else {
                Effect::Busy
            }
        })
        .await
        .unwrap_or(Effect::Settled);
        if matches!(effect, Effect::Settled) {
            return AfterSignal::Settled;
        }
        if Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep_until((Instant::now() + LOOK_EVERY).min(deadline)).await;
    }
    tokio::task::spawn_blocking(move || program_name(pgid))
        .await
        .ok()
        .flatten()
        .map_or(AfterSignal::Settled, AfterSignal::Busy)
}

/// Whether `reader` still waits at its prompt `after` the signal, having printed nothing and
/// kept the terminal (a REPL, whose prompt takes the next statement as before, and a nested
/// shell at its prompt do not count): `StillReading`, noted as `State::survived_reader`;
/// `Settled` as soon as it gave the terminal back or printed, or a REPL reads again; `None`
/// when it holds the terminal without reading (at work on the signal: the caller looks
/// whether it stays busy).
async fn reads_on(
    shared: &Arc<Shared>,
    reader: ReaderAtSignal,
    after: Duration,
) -> Option<AfterSignal> {
    let pgid = reader.pgid;
    let deadline = Instant::now() + after;
    let moved = |shared: &Shared| {
        let st = shared.lock();
        st.bytes_read != reader.bytes_read || st.exit.is_some()
    };
    loop {
        if shared.pty.foreground_pgid() != Some(pgid) || moved(shared) {
            return Some(AfterSignal::Settled);
        }
        if Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep_until((Instant::now() + LOOK_EVERY).min(deadline)).await;
    }
    let sh = Arc::clone(shared);
    let prompt = reader.prompt.clone();
    let looked = tokio::task::spawn_blocking(move || {
        let of_shell = pgid == sh.shell_pgid();
        if sh.tty_reader(pgid).is_none() || (of_shell && sh.prompt_current()) {
            return (false, None);
        }
        if of_shell {
            // The shell's own `read`: never a REPL, whatever its prompt looks like.
            return (true, Some(SHELL_READ.to_owned()));
        }
        let name = program_name(pgid);
        // A REPL's prompt takes the next statement as before the signal, and so does a nested
        // shell's prompt the next command (an interactive shell ignores SIGTERM and SIGTSTP);
        // a password prompt (no echo, whole lines) is never a REPL's.
        let password = sh.pty.modes().is_some_and(|m| !m.echo && m.canonical);
        let program = name.as_deref().unwrap_or_default();
        // Nor does a program a debugger runs in its own process (`perl -d`, pdb) at a read
        // of its own: the debugger notes the signal and breaks in once the read has its line.
        let repl = !password
            && (leader_runs_a_repl(pgid)
                || super::observe::runs_a_debugger(pgid)
                || prompt.as_deref().is_some_and(|p| {
                    is_repl_prompt_of(p, program)
                        || super::nested_shell::is_nested_shell_prompt(p, program, pgid)
                }));
        (true, if repl { None } else { name })
    })
    .await
    .unwrap_or((true, None));
    // A full-screen program's keys are no answer to a prompt: nothing to guard.
    let full_screen = || shared.lock().screen.alternate_screen();
    match looked {
        (false, _) => None,
        (true, Some(program)) if !moved(shared) && !full_screen() => {
            let mut st = shared.lock();
            st.survived_reader = Some(SurvivedReader {
                pgid,
                prompt: reader.prompt,
                signal: reader.signal,
                program: program.clone(),
                prompts: st.screen.prompt_end_count(),
            });
            Some(AfterSignal::StillReading(program))
        }
        (true, _) => Some(AfterSignal::Settled),
    }
}

#[cfg(test)]
mod tests {
    use super::after_post_mortem;
    use crate::screen::{Screen, ScreenConfig};

    fn screen(bytes: &[u8]) -> Screen {
        let mut screen = Screen::new(
            ScreenConfig {
                rows: 24,
                cols: 80,
                scrollback_lines: 100,
                scrollback_max_bytes: 1 << 20,
            },
            None,
        );
        screen.feed(bytes);
        screen
    }

    #[test]
    fn a_debuggers_prompt_after_post_mortem_is_told_from_one_that_kept_the_state() {
        // A second SIGINT while pdb's program read: a traceback, then post-mortem debugging.
        let mut crashed = screen(
            b"(Pdb) c\r\nYour name: \r\nProgram interrupted. (Use 'cont' to resume).\r\n\
              Traceback (most recent call last):\r\nRuntimeError: can't re-enter readline\r\n\
              Uncaught exception. Entering post mortem debugging\r\n\
              Running 'cont' or 'step' will restart the program\r\n\
              > /usr/lib/python3.11/cmd.py(126)cmdloop()\r\n-> line = input(self.prompt)\r\n\
              (Pdb) ",
        );
        assert!(after_post_mortem(&mut crashed, "(Pdb)"));
        // A SIGINT that broke in: the prompt comes after the program's line, state kept.
        let mut kept = screen(
            b"(Pdb) c\r\n^C\r\nProgram interrupted. (Use 'cont' to resume).\r\n\
              > /tmp/loop.py(3)<module>()\r\n-> time.sleep(0.1)\r\n(Pdb) ",
        );
        assert!(!after_post_mortem(&mut kept, "(Pdb)"));
        // An earlier post-mortem, above a prompt since: not this signal's.
        let mut earlier = screen(
            b"Uncaught exception. Entering post mortem debugging\r\n(Pdb) c\r\n\
              Program interrupted. (Use 'cont' to resume).\r\n> /tmp/a.py(3)<module>()\r\n\
              -> x = 1\r\n(Pdb) ",
        );
        assert!(!after_post_mortem(&mut earlier, "(Pdb)"));
    }
}
