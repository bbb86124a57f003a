//! `terminal_signal`'s renders: where the signal went (a program, the shell itself, the
//! terminal's interrupt character, the send in progress) and where its effect shows.

/// Appended to a `terminal_signal` result when the signal ended the rest of a command line the
/// program was one command of (SIGTERM, SIGKILL or SIGHUP: bash alone goes on to the next
/// command after a program those end).
pub const COMMAND_LINE_ENDED: &str = "the rest of its command line (the commands after it in a list such as `a; b` or `a || b`, a loop's next turns) does not run either, as after Ctrl-C (unless the shell itself traps SIGINT with a handler: `trap '…' INT` runs it on)";

/// Where a delivered signal's effect shows (the end of every `terminal_signal` delivery).
const SIGNAL_EFFECT: &str = "the next terminal_send or terminal_read (job_output while a background job holds the session) shows its effect";

/// `terminal_signal`: `delivered <SIG> to foreground process group <pgid>`, plus where to see
/// its effect, or a note when the group is the shell itself: running a command of its own
/// (`shell_ran_command`: a loop, a builtin, a function), or nothing (field case C22); SIGTERM
/// and SIGTSTP, which an interactive shell ignores, changed nothing.
pub fn render_signal(
    signal: &str,
    target_pgid: i32,
    shell_is_target: bool,
    shell_ran_command: bool,
) -> String {
    const OWN_COMMAND: &str = "the shell itself, running a command of its own: a loop, a builtin such as read or wait, or a function";
    if shell_is_target && shell_ran_command {
        return if matches!(signal, "SIGTERM" | "SIGTSTP") {
            format!(
                "delivered {signal} to foreground process group {target_pgid} ({OWN_COMMAND}); an interactive shell ignores {signal}, so nothing changed: send SIGINT to interrupt the command, or terminal_close to end the session (the one way to stop a command of the shell's own that traps or ignores SIGINT)"
            )
        } else {
            format!(
                "delivered {signal} to foreground process group {target_pgid} ({OWN_COMMAND}, which {signal} interrupts unless it traps it); {SIGNAL_EFFECT}"
            )
        };
    }
    // An interactive bash ignores these two, so they change nothing when it is the target.
    if shell_is_target && matches!(signal, "SIGTERM" | "SIGTSTP") {
        let next = if signal == "SIGTERM" {
            "to end the session use terminal_close"
        } else {
            "there was no job to suspend"
        };
        format!(
            "delivered {signal} to foreground process group {target_pgid} (the shell itself: nothing else was running in the foreground, and an interactive shell ignores {signal}, so nothing changed; {next})"
        )
    } else if shell_is_target {
        format!(
            "delivered {signal} to foreground process group {target_pgid} (the shell itself: nothing else was running in the foreground)"
        )
    } else {
        // The signal is not awaited: say where its effect shows.
        format!("delivered {signal} to foreground process group {target_pgid}; {SIGNAL_EFFECT}")
    }
}

/// `terminal_signal` when the program a SIGINT or SIGTERM went to still held the terminal a
/// second later without reading input: it ignores or handles the signal, and text sent now
/// would wait in its input.
pub fn render_signal_still_running(signal: &str, target_pgid: i32, program: &str) -> String {
    let next = if signal == "SIGINT" {
        "SIGTERM"
    } else {
        "SIGKILL"
    };
    format!(
        "delivered {signal} to foreground process group {target_pgid}; {program} is still running a second later and reads no input (it ignores or handles {signal}, is busy in code that does not check for it, or is still cleaning up): send terminal_signal {next} to stop it (it ends {program} itself: a REPL's or debugger's state is lost, and the next text goes to the shell), or poll (empty text, submit: false) to wait for it; text sent now waits until it reads"
    )
}

/// How a signal went: as a signal, or typed as the terminal's key for it.
const DELIVERED: &str = "delivered";
const TYPED_AS_KEY: &str = "typed";
/// What a SIGINT typed as the terminal's interrupt character was: a key the program read (its
/// signal keys are off), not a signal.
const AS_KEY_NOT_SIGNAL: &str = " as the terminal's interrupt character (Ctrl-C), not as a signal: the terminal's Ctrl-C sends no signal now (its signal keys are off, or its interrupt key is unset), so the program read it as a key of its input";

/// `terminal_signal` when the program (or the shell's own `read`) was waiting at a prompt and
/// still waits there, silent, a moment after the signal (`as_key`: a SIGINT written as the
/// terminal's interrupt character to a program reading keys raw): the next text answers that
/// prompt.
pub fn render_signal_still_reading(
    signal: &str,
    target_pgid: i32,
    program: &str,
    as_key: bool,
) -> String {
    let end = dsh_terminal_core::end_reader_advice(program, signal);
    let (verb, how, what) = if as_key {
        (TYPED_AS_KEY, AS_KEY_NOT_SIGNAL, "Ctrl-C")
    } else {
        (DELIVERED, "", signal)
    };
    format!(
        "{verb} {signal} to foreground process group {target_pgid}{how}; {program} still waits for input at the same prompt a moment later and printed nothing (it ignores {what} while it reads): text sent now answers that prompt, not the shell (a password prompt takes it as the password), so the next text sent is refused once unless sent again; {end}, or answer the prompt"
    )
}

/// `terminal_signal` when the program ended a moment after the signal (`as_key`: a SIGINT
/// written as the terminal's interrupt character) and the shell holds the terminal again;
/// `left_running`: the command names of processes still in its group (children that ignore
/// the signal).
pub fn render_signal_ended(
    signal: &str,
    target_pgid: i32,
    (program, left_running): (&str, &[String]),
    as_key: bool,
) -> String {
    let (verb, how) = if as_key {
        (TYPED_AS_KEY, AS_KEY_NOT_SIGNAL)
    } else {
        (DELIVERED, "")
    };
    let held = if left_running.is_empty() {
        "whatever it held is gone: start it again to go on".to_owned()
    } else {
        format!(
            "processes of its group still run, the shell's prompt notwithstanding: {}; they ignore {signal}: `kill -TERM -{target_pgid}` in the session (or terminal_close) ends them",
            left_running.join(", ")
        )
    };
    format!(
        "{verb} {signal} to foreground process group {target_pgid}{how}; {program} ended and the shell holds the terminal again: text sent next runs as a shell command, not in {program} ({held}); {SIGNAL_EFFECT}"
    )
}

/// `terminal_signal` when the program reads input again a moment after the signal with its
/// REPL's primary prompt (or a nested shell's) shown (`as_key`: a SIGINT written as the
/// terminal's interrupt character): any statement it ran is over, and it kept its state.
pub fn render_signal_back_at_prompt(
    signal: &str,
    target_pgid: i32,
    program: &str,
    prompt: &str,
    as_key: bool,
) -> String {
    let (verb, how) = if as_key {
        (TYPED_AS_KEY, AS_KEY_NOT_SIGNAL)
    } else {
        (DELIVERED, "")
    };
    format!(
        "{verb} {signal} to foreground process group {target_pgid}{how}; {program} is back at its prompt ({prompt}) and reads the next input, its state kept: text sent next goes to {program}; {SIGNAL_EFFECT}"
    )
}

/// `terminal_signal` when the signal stopped the program (job control) and the shell holds
/// the terminal again.
/// What it says of the stopped program is a send's notice for a job stopped by the Ctrl-Z key
/// too ([`dsh_terminal_core::stopped_job_advice`]).
pub fn render_signal_stopped(signal: &str, target_pgid: i32, program: &str) -> String {
    let stopped = dsh_terminal_core::stopped_job_advice(program);
    format!(
        "delivered {signal} to foreground process group {target_pgid}; {stopped}; {SIGNAL_EFFECT}"
    )
}

/// `terminal_signal` when a SIGINT went as the terminal's interrupt character: the foreground
/// program turned the terminal's signal keys off, so Ctrl-C is a key of its input.
pub fn render_interrupt_character(signal: &str, target_pgid: i32) -> String {
    format!(
        "typed {signal} to foreground process group {target_pgid} as the terminal's interrupt character (Ctrl-C), the way the terminal's own key would, not as a signal: the terminal's Ctrl-C sends no signal now (the program turned the signal keys off or unset the interrupt key, or stty -isig), so Ctrl-C is a key of its input: the program reads keys and handles it itself (an editor such as vim does not quit on it: use its own quit command; SIGTERM stops a program that does not act on it); {SIGNAL_EFFECT}"
    )
}

/// `terminal_signal` when SIGTSTP went as the terminal's suspend character (Ctrl-Z) to a
/// program that turned the terminal's signal keys off.
pub fn render_suspend_character(signal: &str, target_pgid: i32) -> String {
    format!(
        "typed {signal} to foreground process group {target_pgid} as the terminal's suspend character (Ctrl-Z), the way the terminal's own key would, not as a signal: the terminal's signal keys are off (the program turned them off, or stty -isig), so Ctrl-Z is a key of its input, and this program (node's REPL) takes it as its suspend key: it puts the terminal back and stops itself, and the shell's `fg` continues it (started from another program, such as a REPL's `os.system`, it stops alone and that program keeps the terminal, so the shell's prompt does not come back: send SIGTSTP again to stop that one too, then fg); {SIGNAL_EFFECT}"
    )
}

/// `terminal_signal` when the signal was handed to the send in progress, whose command line
/// the shell was still reading or starting.
pub fn render_signal_when_command_starts(signal: &str, shell_runs_line: bool) -> String {
    if shell_runs_line {
        return format!(
            "{signal} goes to the shell, which has been running the command line just sent on its own (a loop, a builtin such as read or wait, or a function, which {signal} interrupts unless it traps it), after a short grace, or to a program of that line that takes the terminal first; lines of the send not typed yet are dropped; {SIGNAL_EFFECT}"
        );
    }
    let why = match signal {
        "SIGINT" => {
            "the shell was still reading its line, and an interrupt then would cut the line short; a line that starts no program gets it after a short grace"
        }
        "SIGKILL" | "SIGHUP" => {
            "the shell was still reading or starting its line, and the signal would have gone to the shell, which is never ended this way; a line that starts no program does not get it"
        }
        _ => {
            "the shell was still reading or starting its line, and the signal would have gone to the shell, which ignores it; a line that starts no program is not affected"
        }
    };
    format!("{signal} goes to the command just sent once it starts ({why}); {SIGNAL_EFFECT}")
}

/// `terminal_signal` when nothing was sent: the shell was idle at its prompt (field case C22).
pub fn render_signal_skipped(signal: &str) -> String {
    format!(
        "nothing is running in the foreground (the shell is idle at its prompt); {signal} was not sent (a terminal_send made at the same moment may not have started yet: signal once its call returned, or after a background send's acknowledgement)"
    )
}
