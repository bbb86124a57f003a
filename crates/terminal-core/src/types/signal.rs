//! What a delivered signal did: how it reached the foreground group, and what the group does
//! a moment later.

/// What the program group a signal went to does a moment later (see
/// [`BackendSession::after_signal`](crate::BackendSession::after_signal)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AfterSignal {
    /// It ended, gave the terminal back, or went on as its handling of the signal has it (a
    /// REPL back at its prompt, a program that printed something).
    Settled,
    /// It still holds the terminal and does not wait for input (it ignores or handles the
    /// signal, or is busy): its program's name.
    Busy(String),
    /// It read the terminal before the signal and still waits there, at the same prompt,
    /// having printed nothing (it ignores the signal while it reads): its program's name.
    /// Text sent next answers that prompt, not the shell.
    StillReading(String),
    /// It reads input again with its REPL's primary prompt before the cursor (a REPL or
    /// debugger whose statement the signal interrupted; a nested shell at its prompt, which
    /// ignores SIGTERM and SIGTSTP there): text sent next goes to it, its state kept.
    BackAtPrompt {
        /// The program that reads (`python3`).
        program: String,
        /// Its prompt as the screen shows it, trimmed (`>>>`, `In [5]:`).
        prompt: String,
    },
    /// It ended, and the session's shell holds the terminal again: its program's name. Text
    /// sent next runs in the shell (a REPL that exited on a second Ctrl-C).
    Ended(String),
    /// It is stopped (job control: SIGTSTP, Ctrl-Z) and the session's shell holds the
    /// terminal again: its program's name. Text sent next runs in the shell; `fg` continues
    /// it.
    Stopped(String),
}

/// A delivered signal (seed `TerminalSignalResult`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalResult {
    /// The foreground process group the signal was aimed at.
    pub target_pgid: i32,
    /// `target_pgid` as the session's own processes number it: in a sandboxed session's PID
    /// namespace, the number `ps` and `kill` inside it know; `target_pgid` outside one. Read
    /// before the signal went out (the group may be gone after it).
    pub session_pgid: i32,
    /// False when nothing was sent because it would have no effect: a SIGINT aimed at the
    /// shell idle at its prompt (nothing else running, field case C22) only makes readline
    /// redraw its prompt.
    pub delivered: bool,
    /// The target group was the session's shell itself (no other program held the
    /// foreground). False when the shell replaced itself with a program (`exec prog`): the
    /// group is then that program's, and ending it ends the session.
    pub shell_targeted: bool,
    /// The shell itself was running a command line of its own when the signal went to it (a
    /// loop, a builtin such as `read` or `wait`, a function): something was running, in the
    /// shell.
    pub shell_ran_command: bool,
    /// How the signal reached the group.
    pub delivery: SignalDelivery,
    /// A SIGTERM, SIGKILL or SIGHUP to a program that was one command of a longer command
    /// line (`build; deploy`, `x || echo failed`, a loop) ended the rest of that line too, as
    /// Ctrl-C would: bash itself would go on to the next command.
    pub command_line_ended: bool,
}

/// How a signal reached the foreground group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SignalDelivery {
    /// Sent with `kill(-pgid, sig)`.
    #[default]
    ProcessGroup,
    /// SIGINT to a program that turned `ISIG` off (vim, raw-mode programs): the terminal's
    /// interrupt character (`VINTR`, usually `^C`) was written as input, exactly what the
    /// terminal's own Ctrl-C does for it.
    InterruptCharacter,
    /// SIGTSTP to a program that turned `ISIG` off and suspends itself on Ctrl-Z (node's
    /// REPL): the terminal's suspend character (`VSUSP`, usually `^Z`) was written as input,
    /// exactly what the terminal's own Ctrl-Z does for it (it stops itself, its terminal put
    /// back, and redraws once continued). Another raw-mode program gets the signal: it would
    /// take the key as input (a prompt_toolkit prompt inserts `^Z`).
    SuspendCharacter,
    /// The signal came while the shell still held the terminal for the command line of the
    /// send in progress (it was reading or starting it): handed to that send, which delivers
    /// it to the command once it holds the foreground, as a cancelled send does its
    /// interrupt. A SIGINT reaches the shell after a short grace when the line starts no
    /// program; SIGKILL and SIGHUP never do. Delivered at once, a SIGINT would make the
    /// shell's line editor drop the part of the line it had read and run the rest as another
    /// command, and another signal would reach the shell, not the command, which would run.
    WhenCommandStarts,
}
