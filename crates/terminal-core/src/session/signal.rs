//! Signal delivery to the foreground process group, and the aftermath the next send waits
//! out.

use std::time::{Duration, Instant};

use crate::error::{TerminalError, TerminalErrorCode};
use crate::process::pgid_in_own_namespace;
use crate::screen::PromptState;
use crate::types::{SignalDelivery, SignalResult, TerminalSignal};

use super::cancel::program_name;
use super::shared::Shared;

mod aftermath;
mod refusal;
pub(super) use aftermath::SignalAftermath;
use refusal::job_control_off_refusal;
pub(super) use refusal::refusal;

/// What a signal takes of the reader the agent was left answering (see
/// `after_signal::note_reader` and `State::unseen_reader_guard`), kept to put back when the
/// signal is refused: a refused signal changes nothing (the next text to a prompt that still
/// waits is still refused once, a password's too).
struct ReaderNotes {
    awaited: Option<super::shared::AwaitedReader>,
    survived: Option<super::after_signal::SurvivedReader>,
    guard: Option<(u64, Option<i32>)>,
    at_signal: Option<super::after_signal::ReaderAtSignal>,
}

impl ReaderNotes {
    fn of(st: &super::shared::State) -> Self {
        Self {
            awaited: st.awaited_reader.clone(),
            survived: st.survived_reader.clone(),
            guard: st.unseen_reader_guard,
            at_signal: st.reader_at_signal.clone(),
        }
    }

    fn put_back(self, st: &mut super::shared::State) {
        st.awaited_reader = self.awaited;
        st.survived_reader = self.survived;
        st.unseen_reader_guard = self.guard;
        st.reader_at_signal = self.at_signal;
    }
}

/// `terminal_signal`: a SIGINT to a shell idle at its prompt is a no-op (nothing runs);
/// anything else goes to the foreground group, the way the terminal's own keys would (see
/// [`deliver`]).
pub(super) fn signal(
    shared: &Shared,
    signal: TerminalSignal,
) -> Result<SignalResult, TerminalError> {
    let kept = {
        let mut st = shared.lock();
        if st.closing {
            return Err(TerminalError::closing(&shared.id));
        }
        if st.exit.is_some() {
            return Err(TerminalError::exited(&shared.id));
        }
        let kept = ReaderNotes::of(&st);
        // The agent acts on what it was left answering (and a SIGINT refused at an idle
        // prompt says the prompt is back): its next text is no late answer (see
        // `send::stale_reader`). Whether that reader goes on waiting after the signal is
        // what the signal's answer looks at (see `after_signal`).
        super::after_signal::note_reader(&mut st, signal);
        st.unseen_reader_guard = None;
        kept
    };
    let idle_at_prompt = signal == TerminalSignal::Sigint
        && shared.pty.foreground_pgid() == Some(shared.shell_pgid())
        && {
            let st = shared.lock();
            st.screen.prompt_state() == PromptState::Prompt && st.active.is_none()
        };
    if idle_at_prompt {
        return Ok(SignalResult {
            target_pgid: shared.shell_pgid(),
            session_pgid: pgid_in_own_namespace(shared.shell_pgid()),
            delivered: false,
            shell_targeted: true,
            shell_ran_command: false,
            delivery: SignalDelivery::ProcessGroup,
            command_line_ended: false,
        });
    }
    // A REPL still taking in the text written to it, or node between a line and its next
    // read of keys, gets its interrupt or suspend a moment later (see `holds_interrupt`).
    if matches!(signal, TerminalSignal::Sigint | TerminalSignal::Sigtstp) {
        super::cancel::wait_for_repl_to_take_interrupt(shared);
    }
    // The shell (or a fork of it that has yet to run the command's program) still holds the
    // terminal for the command line of a send in progress: the send delivers the signal to
    // the command once it starts (see `SignalDelivery::WhenCommandStarts`). A signal now
    // would reach the shell instead, which ignores SIGTERM and SIGTSTP (SIGKILL and SIGHUP to
    // it are refused) and would run the command all the same; a SIGINT would make its line
    // editor drop the part of the line it had read. See `hands_over` for when.
    let handed_over = shared
        .pty
        .foreground_pgid()
        .and_then(|fg| hands_over(shared, signal, fg));
    let active = shared.lock().active.clone();
    if let Some(line_running) = handed_over
        && let Some(op) = active.as_ref()
    {
        // As below: the lines the send has not typed yet are dropped.
        op.drop_untyped();
        if op.request_signal(signal) {
            return Ok(SignalResult {
                target_pgid: shared.shell_pgid(),
                session_pgid: pgid_in_own_namespace(shared.shell_pgid()),
                delivered: true,
                shell_targeted: line_running,
                shell_ran_command: line_running,
                delivery: SignalDelivery::WhenCommandStarts,
                command_line_ended: false,
            });
        }
    }
    // A refused signal changes nothing, the send in progress included.
    if let Some(refused) = shared.pty.foreground_pgid().and_then(|pgid| {
        refusal(signal, pgid, shared.shell_pgid()).or_else(|| {
            job_control_off_refusal(signal, pgid, shared.shell_pgid(), |group| {
                shared.group_runs_others(group)
            })
        })
    }) {
        kept.put_back(&mut shared.lock());
        return Err(refused);
    }
    // A signal stops what the send typed so far: the lines it has not typed yet are dropped,
    // as the terminal's keys discard input typed ahead.
    if let Some(op) = active {
        op.drop_untyped();
    }
    let ran_command = shared.lock().screen.command_running();
    // After `exec prog` the session's top-level process runs that program, not the shell, and
    // with job control off (`set +m`) the shell's group runs the command too: asked before
    // the signal, which may end it.
    let replaced = shared.pty.foreground_pgid() == Some(shared.shell_pgid())
        && (shared.shell_replaced() || shared.shell_group_runs_a_command());
    // Numbered and named before the signal, which may end the group's leader.
    let numbered = shared
        .pty
        .foreground_pgid()
        .map(|pgid| (pgid, pgid_in_own_namespace(pgid)));
    // A pipeline's first command may be gone already: the member reading the terminal (its
    // pager) names it then.
    let target = numbered.and_then(|(pgid, _)| {
        let name = program_name(pgid).or_else(|| shared.tty_reader(pgid).and_then(program_name))?;
        Some((pgid, name))
    });
    shared.lock().signal_target = target;
    let Delivered {
        pgid: target_pgid,
        delivery,
        command_line_ended,
    } = deliver(shared, signal, true)?;
    // A signal ends a REPL's mode without a prompt (node's `.editor`), as Ctrl-C typed does.
    shared.lock().promptless_repl = None;
    let shell_targeted = target_pgid == shared.shell_pgid() && !replaced;
    Ok(SignalResult {
        target_pgid,
        session_pgid: numbered
            .filter(|&(pgid, _)| pgid == target_pgid)
            .map_or_else(|| pgid_in_own_namespace(target_pgid), |(_, n)| n),
        delivered: true,
        shell_targeted,
        shell_ran_command: shell_targeted && ran_command,
        delivery,
        command_line_ended,
    })
}

/// Whether `signal`, with group `fg` in the foreground and a send in progress, goes to that
/// send to deliver once its command starts (`Some`), and whether the shell has been running
/// the send's line on its own for a while then (`Some(true)`: the signal goes to the shell
/// after a short grace unless a program of the line takes the terminal first). A fork of the
/// shell that has yet to run the command's program holds the terminal: always. The shell
/// itself: a SIGINT always (a line of builtins gets it after a short grace); another signal
/// while the shell has not started the line yet, started it within [`PROGRAM_START_WINDOW`],
/// or has forked a copy of itself that is about to run the line's program. A shell running a
/// command line of its own for longer (a loop of builtins, `wait`) with no such fork gets
/// those, or refuses them, as before.
fn hands_over(shared: &Shared, signal: TerminalSignal, fg: i32) -> Option<bool> {
    let shell = shared.shell_pgid();
    if fg != shell {
        return runs_shell_image(fg, shell).then_some(false);
    }
    let starting = {
        let st = shared.lock();
        !st.screen.command_running()
            || st
                .command_seen_at
                .is_none_or(|at| at.elapsed() < PROGRAM_START_WINDOW)
    };
    if starting || forks_about_to_run(shared, shell) {
        return Some(false);
    }
    (signal == TerminalSignal::Sigint).then_some(true)
}

/// How long after a command line's start (its `C` mark) the shell still holding the terminal
/// counts as about to start the line's program: it expands the line and forks first.
const PROGRAM_START_WINDOW: Duration = Duration::from_millis(250);

/// Whether the shell (`shell`, its pid) has a child still running the shell's own program:
/// a fork about to run a command's program (`/proc`, the session's processes).
fn forks_about_to_run(shared: &Shared, shell: i32) -> bool {
    let Some(image) = program_name(shell) else {
        return false;
    };
    shared
        .processes()
        .into_iter()
        .any(|s| s.ppid == shell && !s.is_zombie() && s.comm == image)
}

/// How long a fork of the shell may hold the foreground and still count as about to run the
/// command's program: one older runs commands of its own, a subshell (`( … )`).
const FORK_EXEC_WINDOW: Duration = Duration::from_secs(1);

/// Whether the leader of group `pgid` runs the shell's program with the shell's own command
/// line and started within [`FORK_EXEC_WINDOW`] (`/proc`): a fork of the shell before it runs
/// the command's program. A script the shell's program runs (`bash -c '…'`, `bash build.sh`)
/// has a command line of its own, and a subshell (`( trap … INT; while …; done )`) lives on.
pub(super) fn runs_shell_image(pgid: i32, shell_pgid: i32) -> bool {
    program_name(pgid).is_some_and(|leader| Some(leader) == program_name(shell_pgid))
        && crate::process::cmdline(pgid)
            .is_some_and(|line| Some(line) == crate::process::cmdline(shell_pgid))
        && crate::process::age(pgid).is_none_or(|age| age < FORK_EXEC_WINDOW)
}

/// Delivers `signal` to the foreground group and records its aftermath; returns the group and
/// how it went. With `as_key` (`terminal_signal`), a SIGINT goes the way the terminal's own
/// Ctrl-C would, and a SIGTSTP to node's REPL as its Ctrl-Z (see `suspends_on_ctrl_z`): when
/// the foreground program turned `ISIG` off (vim, node, raw-mode programs) and reads keys (it
/// holds the alternate screen, or reads the terminal now), the terminal's interrupt or suspend
/// character is written as input (a signal would bypass the program's own handling of the
/// key: node puts the terminal back before it stops, and redraws its prompt once continued). Otherwise (a cancelled send,
/// `job_kill`: a real signal, so a program that takes Ctrl-C as a key, such as a node
/// script's readline pausing at its prompt, is interrupted all the same; a REPL run with no
/// script gets the key, see `CancelInterrupts::deliver_due`) `kill(-pgid, signal)`, after
/// discarding unread typed-ahead input as the terminal's key does (SIGTSTP too, unless it
/// goes to the shell itself, which ignores it).
pub(super) fn deliver(
    shared: &Shared,
    signal: TerminalSignal,
    as_key: bool,
) -> Result<Delivered, TerminalError> {
    let pgid = shared.pty.foreground_pgid().ok_or_else(|| {
        TerminalError::new(
            TerminalErrorCode::Signal,
            format!(
                "cannot resolve foreground process group for terminal {}; the session may have exited (check terminal_list)",
                shared.shell_pid
            ),
        )
    })?;
    if let Some(refused) = refusal(signal, pgid, shared.shell_pgid()) {
        return Err(refused);
    }
    let pid = rustix::process::Pid::from_raw(pgid).ok_or_else(|| {
        TerminalError::new(
            TerminalErrorCode::Signal,
            format!("invalid foreground process group {pgid}"),
        )
    })?;
    let (redraw_from, prompt_ends, shell_idle, at_continuation) = {
        let st = shared.lock();
        (
            st.screen.done_count(),
            st.screen.prompt_end_count(),
            st.screen.prompt_state() == PromptState::Prompt && st.active.is_none(),
            st.screen.prompt_state() == PromptState::Continuation,
        )
    };
    let aftermath = has_aftermath(pgid, shared.shell_pgid(), shell_idle);
    // The interrupt character is a key only to a program that reads keys: a full-screen one,
    // or one reading the terminal's keys now (not in canonical mode), also while another of
    // its threads or processes runs (a key-reading thread beside one at work takes Ctrl-C as
    // its key, as it would from the terminal; a SIGINT would hit the thread at work). With
    // ISIG left off by someone else (`stty -isig; sleep 20`), a program that reads nothing gets the signal
    // itself, and so does one reading lines (`stty -isig; read x`, `input()`): there the
    // character would only join the line it answers, and interrupt nothing; so does the
    // session's shell, whatever it reads (its `read` builtin takes the character as data).
    // A SIGTSTP goes as Ctrl-Z only to a program known to suspend itself on it (see
    // `suspends_on_ctrl_z`): another one that reads keys raw takes it as a key (a
    // prompt_toolkit prompt inserts `^Z`), so it gets the signal, and stops.
    // Node's REPL reads keys raw between its lines, and turns the signal keys back on while a
    // line runs (where its handler stops the line on a SIGINT): with them off it takes the
    // key, also while it is busy with keys it read (echoing a line it was sent, not in a read
    // at that moment), where a real SIGINT would end it.
    let raw_key = as_key
        .then(|| shared.pty.raw_signal_char(signal))
        .flatten()
        .filter(|_| {
            pgid != shared.shell_pgid()
                && (shared.lock().screen.alternate_screen()
                    || (shared.pty.modes().is_some_and(|m| !m.canonical)
                        && (shared.group_reads_tty(pgid) || repl_edits_lines_raw(pgid))))
                && (signal != TerminalSignal::Sigtstp || suspends_on_ctrl_z(shared, pgid))
        });
    // The terminal's interrupt, quit and suspend keys discard input typed ahead and not yet
    // read: so does the input still queued for the terminal (a send to a program that does
    // not read), or it would reach the next program (and the interrupt character below would
    // wait behind it). A signal that ends a program other than the shell (SIGTERM, SIGKILL,
    // SIGHUP) discards it too, as it ends the rest of the command line (see
    // `ends_the_command_line`): text the program never read must not run in the shell once
    // the program is gone, as it would not after the terminal's Ctrl-C. Not a SIGTSTP (or
    // SIGTERM) to the shell itself: an interactive shell ignores it, so nothing changes, the
    // typed-ahead input included.
    let discards = match signal {
        TerminalSignal::Sigint => true,
        TerminalSignal::Sigtstp
        | TerminalSignal::Sigterm
        | TerminalSignal::Sigkill
        | TerminalSignal::Sighup => pgid != shared.shell_pgid(),
    };
    if discards {
        shared.pty.discard_queued_input();
        // Text sent without Enter is gone with the line the signal ends (a line editor drops
        // it at Ctrl-C, a program that ends takes it along): nothing waits on a line.
        let mut st = shared.lock();
        (st.typed_unended, st.typed_unended_at_shell) = (false, false);
        // The shell's line editor drops its line and draws a new prompt, which may come after
        // the next send starts (readline waiting out a key sequence: Ctrl-X and its key).
        let prompts = st.screen.prompt_end_count();
        st.line_discarded_at_prompt =
            (signal == TerminalSignal::Sigint && pgid == shared.shell_pgid()).then_some(prompts);
        st.typed_escape_last = false;
        // An interrupt ends vim's insert (its Ctrl-C); another signal the editor itself.
        st.editor_insert = None;
        // So does text a send holds for a reader that has not come (see `send::hold`).
        let active = st.active.clone();
        drop(st);
        if let Some(op) = active {
            op.drop_held();
        }
    }
    let mut command_line_ended = false;
    let delivery = if let Some(byte) = raw_key {
        // Written ahead of any later input.
        drop(shared.pty.write(vec![byte]));
        if signal == TerminalSignal::Sigtstp {
            SignalDelivery::SuspendCharacter
        } else {
            SignalDelivery::InterruptCharacter
        }
    } else {
        // The terminal's own key would also discard input typed ahead and not yet read (a
        // cancelled send's line must not run once the shell reads again).
        if discards && shared.pty.flush_unread_input() {
            shared.lock().unended_line = None;
        }
        let simple_command_running = {
            let st = shared.lock();
            st.simple_command_at == Some(st.screen.prompt_end_count())
        };
        if ends_the_command_line(signal, pgid, shared.shell_pgid(), simple_command_running) {
            interrupt_the_shell(shared);
            // A shell that ignores SIGINT (`trap '' INT`) runs the rest of its line on.
            command_line_ended = crate::process::ignores_signal(
                shared.shell_pgid(),
                TerminalSignal::Sigint.as_raw(),
            ) != Some(true);
        }
        rustix::process::kill_process_group(pid, signal.to_rustix()).map_err(|e| {
            TerminalError::new(
                TerminalErrorCode::Signal,
                format!("cannot deliver {signal} to process group {pgid}: {e}"),
            )
        })?;
        SignalDelivery::ProcessGroup
    };
    // A program that survives the signal is said to at the next settled result.
    if delivery == SignalDelivery::ProcessGroup
        && pgid != shared.shell_pgid()
        && matches!(signal, TerminalSignal::Sigint | TerminalSignal::Sigterm)
    {
        shared.lock().signalled = Some((pgid, signal));
    }
    if aftermath {
        shared.lock().redraw_pending = Some(SignalAftermath {
            pgid,
            killed: signal == TerminalSignal::Sigkill,
            done_count: redraw_from,
            prompt_end_count: prompt_ends,
            at: Instant::now(),
            key_byte: raw_key,
            interrupts_a_continuation: signal == TerminalSignal::Sigint
                && pgid == shared.shell_pgid()
                && at_continuation,
        });
    }
    tracing::debug!(%signal, pgid, ?delivery, "signal delivered");
    Ok(Delivered {
        pgid,
        delivery,
        command_line_ended,
    })
}

/// Where [`deliver`] sent a signal, and how.
pub(super) struct Delivered {
    /// The foreground group it went to.
    pub(super) pgid: i32,
    /// How it reached the group.
    pub(super) delivery: SignalDelivery,
    /// It ended the rest of the shell's command line too (see `ends_the_command_line`).
    pub(super) command_line_ended: bool,
}

/// Whether the program of group `pgid` that reads the terminal (or its leader) is one that
/// takes Ctrl-Z as its suspend key with the terminal's signal keys off, whatever it is doing,
/// and handles no SIGTSTP of its own: node's REPL (and deno's) puts the terminal back, stops
/// itself, and redraws once continued, where the signal stopped it with its raw modes in
/// place. Not vim or emacs: they handle the signal themselves, and vim in insert mode takes
/// Ctrl-Z as a character to insert.
fn suspends_on_ctrl_z(shared: &Shared, pgid: i32) -> bool {
    shared
        .tty_reader(pgid)
        .or(Some(pgid))
        .and_then(crate::process::stat)
        .is_some_and(|s| edits_lines_raw(&s.comm))
}

/// Whether the leader of group `pgid` is a REPL (no script) whose line editor reads keys raw
/// (see [`edits_lines_raw`]; `/proc`).
fn repl_edits_lines_raw(pgid: i32) -> bool {
    program_name(pgid).is_some_and(|name| edits_lines_raw(&name))
        && super::observe::leader_runs_a_repl(pgid)
}

/// Whether program `name` (its process name) is a REPL whose line editor reads keys raw, the
/// terminal's signal keys off, and takes Ctrl-C and Ctrl-Z as keys: node's REPL (and deno's).
pub(super) fn edits_lines_raw(name: &str) -> bool {
    matches!(name, "node" | "nodejs" | "deno")
}

/// Whether `signal` to the foreground group `pgid` ends the rest of the shell's command line
/// too: a signal that ends a program (SIGTERM, SIGKILL, SIGHUP) while the shell waits on it.
/// Bash abandons the rest of a list (`build; deploy`, a loop) by itself only when the program
/// died of SIGINT; a program ended any other way lets the next command run, which is not
/// what stopping a command means to whoever stops it. Not when the running command is a
/// simple command typed alone (`simple_command_running`): nothing of its line is left, and
/// the shell's interrupt would replace the program's own exit status (one that handles
/// SIGTERM and exits 3) with 130.
fn ends_the_command_line(
    signal: TerminalSignal,
    pgid: i32,
    shell_pgid: i32,
    simple_command_running: bool,
) -> bool {
    pgid != shell_pgid
        && !simple_command_running
        && matches!(
            signal,
            TerminalSignal::Sigterm | TerminalSignal::Sigkill | TerminalSignal::Sighup
        )
}

/// SIGINT to the shell process itself (the leader of its own group), before the program's
/// signal: an interactive shell waiting on a program notes it and, once the program is gone,
/// returns to its prompt instead of running the rest of the line. A shell that ignores SIGINT
/// (`trap '' INT`) goes on as it would after a Ctrl-C.
fn interrupt_the_shell(shared: &Shared) {
    let Some(shell) = rustix::process::Pid::from_raw(shared.shell_pgid()) else {
        return;
    };
    if let Err(err) = rustix::process::kill_process(shell, rustix::process::Signal::INT) {
        tracing::debug!(%err, "shell not interrupted; the rest of its command line may run");
    }
}

/// Whether a signal to the foreground group `pgid` leaves an aftermath the next send must wait
/// out. Not when it went to the shell itself idle at its prompt (`shell_idle`): nothing runs
/// that it could end, and an interactive shell ignores the signals that reach it there
/// (SIGTSTP, SIGTERM; SIGINT at an idle prompt is not delivered at all), so no fresh prompt
/// ever comes to end the wait.
fn has_aftermath(pgid: i32, shell_pgid: i32, shell_idle: bool) -> bool {
    !(pgid == shell_pgid && shell_idle)
}

#[cfg(test)]
mod tests {
    use super::{TerminalSignal, ends_the_command_line, has_aftermath};

    #[test]
    fn only_signals_that_end_a_program_other_than_the_shell_end_its_command_line() {
        let (program, shell) = (200, 100);
        for signal in TerminalSignal::ALL {
            let ends = matches!(
                signal,
                TerminalSignal::Sigterm | TerminalSignal::Sigkill | TerminalSignal::Sighup
            );
            assert_eq!(
                ends_the_command_line(signal, program, shell, false),
                ends,
                "{signal}"
            );
            assert!(
                !ends_the_command_line(signal, shell, shell, false),
                "{signal}"
            );
            // A simple command typed alone leaves nothing of its line to end.
            assert!(
                !ends_the_command_line(signal, program, shell, true),
                "{signal}"
            );
        }
    }

    #[test]
    fn only_a_signal_to_the_shell_idle_at_its_prompt_has_no_aftermath() {
        // A program in the foreground, or the shell running something (a builtin loop, a
        // command substitution in its own group): wait for the fresh prompt.
        assert!(has_aftermath(200, 100, true));
        assert!(has_aftermath(200, 100, false));
        assert!(has_aftermath(100, 100, false));
        // The shell itself at its prompt ignores it: nothing to wait for.
        assert!(!has_aftermath(100, 100, true));
    }
}
