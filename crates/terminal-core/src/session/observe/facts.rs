//! [`TerminalFacts`]: what a settled result reports of the terminal and its foreground (the
//! program, its modes, where its standard streams go, how it reads).

use crate::process::{cmdline, fd_leaves_stdin, group_member};
use crate::pty::TtyModes;
use crate::readiness::Settle;

use super::super::nested_shell::{is_shell_name, runs_interactively};
use super::super::shared::Shared;
use super::super::stream_reader::{
    CountedRead, counted_read_of, reads_terminal_as_data, reads_to_end_of_input,
};
use super::shell_stopped;

/// The terminal facts a settled result reports.
pub(in crate::session) struct TerminalFacts {
    /// Name of the foreground program when it is not the shell.
    pub(in crate::session) foreground: Option<String>,
    /// The terminal has echo off in canonical mode (a password prompt).
    pub(in crate::session) echo_off: bool,
    /// The program waiting reads single keys (cbreak mode).
    pub(in crate::session) single_key: bool,
    /// No prompt (and so no exit status) can come from our shell now.
    pub(in crate::session) marks_gone: bool,
    /// Our shell reads at its line editor, and no marked prompt came since the last command
    /// was submitted: that command replaced what prints the marks (the backend restores them
    /// before the next command), or a builtin reads with the line editor (`read -e`).
    pub(in crate::session) prompt_unmarked: bool,
    /// A program other than the shell holds the terminal and has not read input written to
    /// it (text typed ahead to a server, or to a job that reads no input), or the shell itself
    /// does, still running a command line (`wait`, a loop of builtins), with `foreground`
    /// `None`.
    pub(in crate::session) input_unread: bool,
    /// Our shell reads at its line editor with no marked prompt because its standard error,
    /// where bash writes prompts and the echo of typed keys, is not the terminal.
    pub(in crate::session) stderr_away: bool,
    /// Back at our prompt, the shell's standard output is not the terminal (`exec >file`):
    /// the commands it runs print there.
    pub(in crate::session) stdout_away: bool,
    /// The session's shell itself is stopped (`suspend`, SIGSTOP): nothing reads the terminal.
    pub(in crate::session) shell_stopped: bool,
    /// A full-screen program holds the terminal on a send that settled on silence or its
    /// deadline, and nothing reads the terminal (`watch`: keys sent to it stay unread).
    pub(in crate::session) reads_no_keys: bool,
    /// The terminal's signal keys are off (`ISIG`, a raw-mode program): SIGINT goes as a key.
    pub(in crate::session) signal_keys_off: bool,
    /// On silence or the deadline, the shell itself holds the terminal, running a command
    /// line of builtins (`wait`, a loop): no program of it is in the foreground to name.
    pub(in crate::session) shell_running_line: bool,
    /// The program waiting reads the terminal line by line as a stream to the end of input
    /// (`cat > file`, `sort`): only an end of input (Ctrl-D) or a signal ends it.
    pub(in crate::session) reads_to_end: bool,
    /// Settled on silence with the foreground reading the terminal among other sources.
    pub(in crate::session) idle_reading: bool,
    /// Waiting for input in canonical mode with echo on: what reads takes a line.
    pub(in crate::session) line_reader: bool,
    /// With `line_reader`: the program reading takes a counted amount (`head -c 5`).
    pub(in crate::session) counted_read: Option<CountedRead>,
}

/// The terminal facts for a send settling with `reason` (blocking `/proc` reads of the
/// foreground's name and the shell's command line; brief).
pub(in crate::session) fn terminal_facts(shared: &Shared, reason: Settle) -> TerminalFacts {
    // After an exit the terminal facts no longer apply; don't ask a dead terminal.
    let exited = reason == Settle::Exit;
    // A program that replaced the shell in its process group (`exec python3`), or that the
    // shell started there with job control off (`set +m`), is named as one a command
    // started; `/proc` is read for it only when our prompt is not the newest thing on screen.
    let fg = if exited {
        None
    } else {
        shared.pty.foreground_pgid().filter(|&p| {
            p != shared.shell_pgid()
                || (shared.lock().screen.prompt_state() != crate::screen::PromptState::Prompt
                    && !shared.shell_holds_its_group())
        })
    };
    // Waiting for input, the program reading the terminal is named (an editor that
    // `git commit` started, not git); otherwise the group's leader.
    let member = fg.and_then(|pgid| {
        (reason == Settle::StdinWait)
            .then(|| shared.tty_reader(pgid).and_then(crate::process::stat))
            .flatten()
            .filter(|s| s.pgrp == pgid && !s.is_zombie())
            .or_else(|| group_member(pgid))
    });
    let foreground = member.as_ref().map(|s| s.comm.clone());
    let modes = shared.pty.modes().filter(|_| !exited);
    let echo_off = modes.is_some_and(|m| !m.echo && m.canonical);
    let signal_keys_off = modes.is_some_and(|m| !m.signals);
    // A filter reading the terminal as its data, to the end of input (`cat > f`), on its
    // standard input, and asking no question (`gzip`'s `… overwrite (y or n)?`: see
    // `stream_reader`).
    let reads_to_end = reason == Settle::StdinWait
        && modes.is_some_and(|m| m.canonical && m.echo)
        && member
            .as_ref()
            .filter(|s| reads_to_end_of_input(&s.comm))
            .is_some_and(|s| {
                let row = shared.lock().screen.cursor_row_prefix();
                reads_terminal_as_data(s, row.as_deref())
            });
    // Also a raw-mode reader (no canonical mode, no output processing: `cfmakeraw`, Python's
    // `tty.setraw`; line editors keep output processing) at a "Press a key", "Press any key",
    // "Press Enter" prompt: it takes one key, not a line.
    let single_key = reason == Settle::StdinWait
        && modes.is_some_and(|m| {
            m.single_keys()
                || (!m.canonical
                    && !m.output_processing
                    && shared
                        .lock()
                        .screen
                        .cursor_row_prefix()
                        .as_deref()
                        .is_some_and(|row| super::press_to_go_on(row).is_some()))
        });
    // A line reader with echo on (`read line`, `input()`).
    let line_reader = reason == Settle::StdinWait && modes.is_some_and(|m| m.canonical && m.echo);
    let counted_read = member
        .as_ref()
        .filter(|s| line_reader && reads_to_end_of_input(&s.comm))
        .and_then(|s| counted_read_of(s.pid))
        .map(|(_, read)| read);
    // Without a prompt, say when no prompt (and so no exit status) can come from our shell:
    // it replaced itself, or another interactive shell waits at the terminal (a shell running
    // a script that asks for input is not one: our prompt comes back when it ends).
    // A fork of our shell (a subshell in a pipeline: the same command line) is not one either.
    let nested_shell = || {
        reason == Settle::StdinWait
            && foreground.as_deref().is_some_and(is_shell_name)
            && member.as_ref().is_none_or(|s| {
                let line = cmdline(s.pid).unwrap_or_default();
                runs_interactively(&line) && !shared.is_shell_image(&line)
            })
    };
    let marks_gone = match reason {
        Settle::Exit | Settle::Prompt | Settle::Continuation => false,
        _ => shared.shell_replaced() || nested_shell(),
    };
    let unmarked = reason == Settle::StdinWait
        && !marks_gone
        && fg.is_none()
        && shared.pty.foreground_pgid() == Some(shared.shell_pgid())
        && shared.pty.modes().is_some_and(TtyModes::line_editing)
        && {
            let st = shared.lock();
            let prompts = st.screen.prompt_end_count();
            prompts > 0 && st.prompts_at_submit == Some(prompts)
        };
    // The shell's prompts (and with them the marks) go where its stderr goes.
    let stderr_away = unmarked && fd_leaves_stdin(shared.shell_pgid(), 2);
    // Back at our prompt (or at its line editor without one, its stderr away too): the
    // shell's own standard output, which the commands it runs inherit, is checked (one
    // `/proc` lookup pair per command).
    let stdout_away =
        (reason == Settle::Prompt || stderr_away) && fd_leaves_stdin(shared.shell_pgid(), 1);
    let prompt_unmarked = unmarked && !stderr_away;
    let shell_stopped = matches!(reason, Settle::Idle | Settle::Timeout) && shell_stopped(shared);
    // The shell holds the terminal without reading it: it runs a builtin or a loop of the
    // command line (`sleep 30 & wait`), so text sent now waits until the line has ended.
    let shell_busy = || {
        matches!(reason, Settle::Idle | Settle::Timeout)
            && !shell_stopped
            && !marks_gone
            && shared.pty.foreground_pgid() == Some(shared.shell_pgid())
            && shared.lock().screen.command_running()
            // Its `read` builtin waiting for a line (`read -t 30 x` past the send's deadline)
            // reads the next send: it is no line of builtins the send waits behind.
            && shared.tty_reader(shared.shell_pgid()).is_none()
    };
    let shell_running_line = foreground.is_none() && shell_busy();
    let input_unread = !exited
        && reason != Settle::Prompt
        && (foreground.is_some() || shell_running_line)
        && shared.pty.pending_input_bytes().unwrap_or(0) > 0;
    // Quiet for a redraw pause (or at the send's deadline), a full-screen program that reads
    // keys waits for them; one that sleeps between redraws (`watch`) never reads them. A
    // multiplexer's server reads the client's terminal outside its group.
    let running = matches!(reason, Settle::Idle | Settle::Timeout);
    let alternate = running && shared.lock().screen.alternate_screen();
    let reads_no_keys = running
        && alternate
        && fg.is_some_and(|pgid| {
            shared.tty_reader(pgid).is_none()
                && !shared.pty.tty_path().is_some_and(|tty| {
                    crate::process::tty_read_outside_group_in(pgid, tty, &shared.scope)
                })
        });
    // Quiet on the main screen while reading the terminal among other sources (an event loop
    // holding a socket, as a relay does): it may be waiting for input.
    let idle_reading = reason == Settle::Idle
        && !shared.lock().screen.alternate_screen()
        && fg.is_some_and(|pgid| shared.tty_reader(pgid).is_some());
    TerminalFacts {
        foreground,
        echo_off,
        single_key,
        marks_gone,
        prompt_unmarked,
        input_unread,
        stderr_away,
        stdout_away,
        shell_stopped,
        reads_no_keys,
        signal_keys_off,
        shell_running_line,
        reads_to_end,
        idle_reading,
        line_reader,
        counted_read,
    }
}
