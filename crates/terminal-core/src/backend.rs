//! The backend seam: what a backend (e.g. `dsh-terminal-bash`'s `shell`) implements and what
//! the service calls (the seed's §2.1 `TerminalBackend` / `TerminalBackendSession`).

use std::sync::Arc;

use crate::error::TerminalError;
use crate::types::{
    AfterSignal, BackendSpawnSpec, CloseReport, ReadRequest, ReadResult, SendProgress, SendRead,
    SendRequest, SendResult, SessionStatus, SignalResult, TerminalSignal,
};

/// A registered session factory, keyed by its type (e.g. `shell`).
#[async_trait::async_trait]
pub trait TerminalBackend: Send + Sync + 'static {
    /// The type models pass to `terminal_open`.
    fn backend_type(&self) -> &str;

    /// Starts one session and waits until it is ready for input (its startup screen is the
    /// MOTD).
    ///
    /// # Errors
    /// [`TerminalError`] with code `Spawn` when the process cannot start or does not become
    /// ready before the startup timeout; everything started is cleaned up first.
    async fn spawn(&self, spec: BackendSpawnSpec)
    -> Result<Arc<dyn BackendSession>, TerminalError>;
}

/// One live session owned by a backend.
#[async_trait::async_trait]
pub trait BackendSession: Send + Sync + 'static {
    /// Startup output (typically `dsh> `).
    fn motd(&self) -> String;
    /// Pid of the top-level process.
    fn pid(&self) -> Option<u32>;
    /// Current status (read live).
    fn status(&self) -> SessionStatus;
    /// Writes input and starts readiness tracking. Synchronous: the send slot is reserved
    /// before this returns.
    ///
    /// # Errors
    /// `SendActive` (one active send per session), `Closing`, `Exited`.
    fn start_send(&self, request: SendRequest) -> Result<SendOperation, TerminalError>;
    /// Reads a newest-relative scrollback page (the seed's §3.7).
    ///
    /// # Errors
    /// `InvalidRequest` for a zero count.
    fn read(&self, request: ReadRequest) -> Result<ReadResult, TerminalError>;
    /// Signals the foreground process group (the seed's §3.8). May block up to 300 ms: a
    /// SIGINT or SIGTSTP to a REPL that still takes in the text written to it (Python acts on
    /// an interrupt that comes then only when its next line runs), or to node between a line
    /// and its next read of keys (a real SIGINT then ends node, where its Ctrl-C key would
    /// not), goes once the REPL reads.
    ///
    /// # Errors
    /// `Closing`, `Signal` (unresolvable group, SIGKILL aimed at the shell).
    fn signal(&self, signal: TerminalSignal) -> Result<SignalResult, TerminalError>;
    /// Whether what is typed now would not be shown: the terminal has echo off in canonical
    /// mode (a password prompt). Text sent then is a secret: it belongs in no label or log.
    fn input_hidden(&self) -> bool;
    /// How many prompts the shell has drawn so far, by its prompt marks (a count that grows by
    /// one or more with each prompt, continuation prompts included), so a caller can tell a
    /// program it saw waiting has since ended; `None` for a backend without prompt marks.
    fn prompts_drawn(&self) -> Option<u64> {
        None
    }
    /// The terminal's foreground process group when it is not the shell's own: a program the
    /// shell started holds the terminal (a REPL, an editor, a command still running), or one
    /// that replaced the shell (`exec python3`: the session's own process group). `None`
    /// at the shell (its prompt, or a builtin), or for a backend that cannot tell. Compare two
    /// answers to tell whether the same program still holds the terminal.
    fn program_group(&self) -> Option<i32> {
        None
    }
    /// The process groups holding the terminal now, from the foreground one ([`Self::program_group`])
    /// up through the groups of its ancestors below the session's shell: a nested shell, a
    /// debugger or a REPL that started the program in front (`bash` under `sleep`, `gdb`
    /// under its inferior), which hold the terminal again once that program ends. Empty at
    /// the shell, or for a backend that cannot tell (the default: [`Self::program_group`]
    /// alone).
    fn program_groups_held(&self) -> Vec<i32> {
        self.program_group().into_iter().collect()
    }
    /// The program names of the session's live processes in process group `pgid`, one per
    /// process: what is left of a program group after its leader ended (a non-interactive
    /// shell's `server &` children, which ignore SIGINT, when the interrupt ended the shell).
    /// Empty for the shell's own group, a group with none of the session's processes left, or
    /// a backend that cannot tell (the default).
    fn group_members(&self, _pgid: i32) -> Vec<String> {
        Vec::new()
    }
    /// Sends `signal` to process group `pgid` when live processes of the session are in it and
    /// it is not the shell's own group (a group the terminal no longer has in its foreground,
    /// see [`Self::group_members`]). Returns whether it went; the default sends nothing.
    fn signal_group(&self, _pgid: i32, _signal: TerminalSignal) -> bool {
        false
    }
    /// Whether the program holding the terminal replaced the session's shell (`exec python3`):
    /// it is the session's own process, so ending it ends the session. `false` at the shell,
    /// with a program the shell started in the foreground, or for a backend that cannot tell.
    fn program_replaced_shell(&self) -> bool {
        false
    }
    /// The text of the cursor's row before the cursor, trailing spaces trimmed: the prompt a
    /// program waits at (`>>>`, `Name?`). `None` with the cursor at the row's first column, or
    /// for a backend without a screen. No default, as for `after_signal`.
    fn cursor_row(&self) -> Option<String>;
    /// After a signal to the program group `pgid` (see [`AfterSignal`]): `Busy` when, `within`
    /// later, the group still holds the terminal and is not waiting for input (it ignores or
    /// handles the signal, busy); `StillReading` when the group read the terminal before the
    /// signal (the last result left it waiting there) and still waits at the same prompt a
    /// moment later, having printed nothing (also for the shell's own `read`); `Ended` or
    /// `Stopped` when it ended or was stopped and the shell holds the terminal again (looked
    /// at for a moment after it printed something: node prints a line end, then exits);
    /// `Settled` as soon as it printed something or reads input again (a REPL back at its
    /// prompt), or another group holds the terminal. No default: a session that wraps
    /// another must pass it on (a default of `Settled` once hid it behind the capped session).
    async fn after_signal(&self, pgid: i32, within: std::time::Duration) -> AfterSignal;
    /// Whether the shell's working directory was removed since it entered it (a directory
    /// deleted and perhaps made again under the same name): an idle shell there would not see
    /// the directory now at that path. Reads `/proc` (brief).
    fn working_dir_gone(&self) -> bool;
    /// Stops every process of the session and waits until they are gone. Idempotent.
    ///
    /// # Errors
    /// `Cleanup` naming surviving pids.
    async fn close(&self, reason: String) -> Result<CloseReport, TerminalError>;
}

/// The backend half of a [`SendOperation`].
#[async_trait::async_trait]
pub trait OperationHandle: Send + Sync + 'static {
    /// Resolves when the send settles. May be awaited by several callers; each gets the same
    /// outcome.
    async fn done(&self) -> Result<SendResult, TerminalError>;
    /// Consumes output produced since the previous read (for background jobs). While a
    /// full-screen program holds the terminal, a read hands out its whole screen when it
    /// changed since the previous read, and nothing otherwise.
    fn read_output(&self) -> SendRead;
    /// Tells the backend that the caller showed the agent everything [`read_output`] handed
    /// out so far (a background job's output read with `job_output`): a line the program
    /// erases after that is not reported as one the agent never saw. Output read but not yet
    /// shown (a job's drain into its window) must not be told. Default: nothing.
    ///
    /// [`read_output`]: Self::read_output
    fn output_shown(&self) {}
    /// Requests cancellation (a real SIGINT to the foreground group, never a written `\x03`).
    /// Returns `false` once settled.
    fn cancel(&self) -> bool;
    /// Whether a requested cancellation changed anything before the send settled: its
    /// interrupt went to the foreground, or it kept text from being written or typed. A
    /// command line that ran to its end first (builtins within the grace the shell is given
    /// to start a program) got no interrupt, and its cancel changed nothing. Default: `true`
    /// (a backend that cannot tell counts every cancel as taking effect).
    fn cancel_took_effect(&self) -> bool {
        true
    }
    /// Tells the backend that no caller will see this send's result (its tool call was
    /// cancelled before it settled): the session's next send should then start its result
    /// where this send's started, so the output printed meanwhile is not lost. Call it before
    /// [`cancel`](Self::cancel). Default: nothing (the next send starts where this one ended).
    fn discard_result(&self) {}
    /// Tells the backend that the send runs as a background job, whose own status tells the
    /// agent what the program it started does next: a program its result leaves waiting for
    /// input is not what the session's next send is taken to answer (a foreground send's late
    /// answer to a reader that ended is refused once; a job's status says the reader ended).
    /// Call it right after starting the send. Default: nothing.
    fn in_background(&self) {}
    /// Whether the send has settled *and* released its slot.
    fn is_finished(&self) -> bool;
    /// Whether the send has settled (its result is ready), whether or not it still holds its
    /// slot to write the rest of its input. Default: [`Self::is_finished`].
    fn is_settled(&self) -> bool {
        self.is_finished()
    }
    /// How far the send has got, without consuming anything. Default: nothing known.
    fn progress(&self) -> SendProgress {
        SendProgress::default()
    }
    /// [`SendProgress::output_bytes`] alone, without the rest of a progress report (no copy
    /// of the screen). Default: the progress report's.
    fn output_bytes(&self) -> u64 {
        self.progress().output_bytes
    }
}

/// A started send (seed `TerminalSendOperation`). Cheap to clone.
#[derive(Clone)]
pub struct SendOperation {
    handle: Arc<dyn OperationHandle>,
}

impl std::fmt::Debug for SendOperation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SendOperation")
            .field("finished", &self.handle.is_finished())
            .finish()
    }
}

impl SendOperation {
    /// Wraps a backend's operation handle.
    pub fn new(handle: Arc<dyn OperationHandle>) -> Self {
        Self { handle }
    }
    /// Waits for settlement.
    ///
    /// # Errors
    /// Transport failures (write error, output stream error).
    ///
    /// # Cancel safety
    /// Cancel safe: dropping the future does not cancel the send (use [`SendOperation::cancel`]).
    pub async fn done(&self) -> Result<SendResult, TerminalError> {
        self.handle.done().await
    }
    /// Consumes new output since the last read.
    pub fn read_output(&self) -> SendRead {
        self.handle.read_output()
    }
    /// Everything [`read_output`](Self::read_output) handed out was shown to the agent (see
    /// [`OperationHandle::output_shown`]).
    pub fn output_shown(&self) {
        self.handle.output_shown();
    }
    /// Requests cancellation; `false` once settled.
    pub fn cancel(&self) -> bool {
        self.handle.cancel()
    }
    /// Whether the cancel changed anything before the send settled (see
    /// [`OperationHandle::cancel_took_effect`]).
    pub fn cancel_took_effect(&self) -> bool {
        self.handle.cancel_took_effect()
    }
    /// No caller will see this send's result: the next send's result starts where this
    /// send's started (see [`OperationHandle::discard_result`]).
    pub fn discard_result(&self) {
        self.handle.discard_result();
    }
    /// The send runs as a background job (see [`OperationHandle::in_background`]).
    pub fn in_background(&self) {
        self.handle.in_background();
    }
    /// Whether the send has settled and released its slot.
    pub fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }
    /// Whether the send has settled, its result ready (see [`OperationHandle::is_settled`]).
    pub fn is_settled(&self) -> bool {
        self.handle.is_settled()
    }
    /// How far the send has got (non-consuming; for progress reports).
    pub fn progress(&self) -> SendProgress {
        self.handle.progress()
    }
    /// The raw bytes the terminal produced since the send started (see
    /// [`SendProgress::output_bytes`]), without copying any of the screen.
    pub fn output_bytes(&self) -> u64 {
        self.handle.output_bytes()
    }
}
