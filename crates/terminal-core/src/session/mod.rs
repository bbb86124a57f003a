//! [`PtySession`]: the generic PTY session engine behind a backend's [`BackendSession`].
//!
//! A backend (e.g. `dsh-terminal-bash`) decides *what* to run (program, arguments, environment,
//! prompt nonce); this engine runs it on a PTY and implements the session contract: sends that
//! settle by [readiness](crate::readiness), screen-true viewports and pages from a
//! [`Screen`](crate::screen::Screen), foreground signals, and a close that leaves no process
//! behind.
//!
//! # Files, one job each
//! - `mod.rs` (this facade): [`PtySession`], [`PtySpawnSpec`], the [`BackendSession`] impl.
//! - `config.rs`: [`PtySessionConfig`], the one home of the engine's defaults.
//! - `shared.rs`: the state the reader thread, the waiter thread, the send driver and the
//!   query replier share, and the reader / waiter halves that feed it. The reader feeds the
//!   screen and bumps an activity counter that wakes a pending send at once.
//! - `spawn.rs`: PTY, cgroup, tracker, threads, and startup (an internal empty send that
//!   settles on the first prompt; its viewport is the MOTD).
//! - `send.rs`: `SendOp`, one send's whole state machine (one active send at a time; `done()`
//!   may be awaited by several callers; `read_output()` consumes the screen-true delta;
//!   `cancel()` delivers a real SIGINT to the foreground group).
//! - `input.rs`: the bytes a send writes (bracketed paste for multi-line text to a program
//!   that enabled it; lines over the canonical-mode limit refused), a pure function with
//!   table tests.
//! - `result.rs`: result assembly, a pure function with table tests.
//! - `signal.rs`: signal delivery and the aftermath the next send waits out.
//! - `replies.rs`: terminal query (DSR, DA) replies, queued on a bounded channel and answered
//!   only while the querying program is blocked reading the terminal.
//! - `close.rs`: whole-session teardown ([`crate::process::terminate_session`]); the shell is
//!   reaped by the waiter thread. Dropping a session that was never closed kills everything
//!   synchronously.

mod after_signal;
mod cancel;
mod close;
mod config;
mod input;
mod nested_shell;
mod observe;
mod probe;
mod replies;
mod result;
mod send;
mod shared;
mod signal;
mod spawn;
mod spawner;
mod stream_reader;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use parking_lot::Mutex;
use tracing::Instrument as _;

use crate::backend::{BackendSession, SendOperation};
use crate::error::TerminalError;
use crate::process::{ProcessIdentity, SessionCgroup, TreeTracker};
use crate::pty::PtyCommand;
use crate::screen::PromptNonce;
use crate::types::{
    CloseReport, ReadRequest, ReadResult, SendRequest, SessionId, SessionStatus, SignalResult,
    TerminalSignal,
};

pub use after_signal::end_reader_advice;
pub use config::PtySessionConfig;
pub use input::{holds_no_command, holds_paste_marker};
pub use nested_shell::{is_shell_name, is_shell_prompt_of};
pub use observe::{is_repl_prompt, is_repl_prompt_of, press_to_go_on};
pub use result::{rewound_notice, stopped_job_advice};
pub use send::OPEN_COMMAND_NOTICE;
pub use send::clipped as clipped_prompt;

use send::SendOp;
use shared::Shared;

/// Environment variable carrying the per-session random tag (see [`PtySpawnSpec::command`]).
pub const ENVIRON_TAG: &str = "DSH_PTY_TAG";

/// What to start.
#[derive(Clone, Debug)]
pub struct PtySpawnSpec {
    /// The session's id (used in errors, thread names, logs and the cgroup name).
    pub session_id: SessionId,
    /// Program, arguments, complete environment, working directory. `rows`/`cols` are taken
    /// from the [`PtySessionConfig`]. The engine adds one variable, [`ENVIRON_TAG`], set to a
    /// per-session random value that teardown uses to find escaped daemons.
    pub command: PtyCommand,
    /// The token genuine prompt marks carry; `None` disables mark-based readiness.
    pub nonce: Option<PromptNonce>,
    /// Keys that make the shell put its prompt marks back when typed at its line editor (a
    /// bound key sequence). The engine types them ahead of a send's input when the shell
    /// (still the session's own program, not replaced) reads at its line editor while no
    /// prompt mark came: a command replaced everything that printed the marks. `None`: never.
    pub repair_keys: Option<Vec<u8>>,
    /// Keys that empty the line the shell's line editor holds (a key sequence bound to
    /// readline's `kill-whole-line`, which does nothing on an empty line). The engine types
    /// them ahead of a send's input whenever the shell itself reads at its marked prompt (no
    /// command running) and the previous send ended its line: text no send typed that a
    /// program pushed into the terminal's input (TIOCSTI), shown yet or still unread, would
    /// otherwise run joined to the send's text; the result names the text it saw. `None`:
    /// never.
    pub clear_line_keys: Option<Vec<u8>>,
    /// Keys that end a pending line-editor command without changing the line (a key sequence
    /// bound to readline's `abort`, and in vi command mode to `vi-insertion-mode`). The
    /// engine types them ahead of a send that submits text at the shell's marked prompt when
    /// the previous send left its line unended: a lone control key sent before (a numeric
    /// argument, a `Ctrl-X` prefix, vi command mode after ESC) would otherwise change the
    /// command typed next. An incremental history search shown before the cursor is ended
    /// with Ctrl-G first, which restores the line. `None`: never.
    pub editor_reset_keys: Option<Vec<u8>>,
    /// Held by the session and dropped with it, after its processes were stopped (e.g. the
    /// session's resource-limit cgroups, removed on drop).
    pub keep_alive: Option<Arc<dyn std::any::Any + Send + Sync>>,
    /// A cgroup v2 directory the program's first process joins itself before it runs the
    /// session's program (a launcher's per-session resource-limit cgroup). The engine puts
    /// the process there too, tracks and kills the session by it, and creates no cgroup of
    /// its own (moving the process out would lift the limits); the directory stays the
    /// launcher's to remove.
    pub cgroup: Option<std::path::PathBuf>,
    /// A cgroup directory (v1 or v2) the program's first process joins itself before it runs
    /// the session's program, so every process of the session is born in it (a launcher's
    /// cgroup v1 limit group). The session's `/proc` scans (foreground probes, tracker
    /// refreshes) then read its `cgroup.procs` instead of every process on the machine.
    /// `cgroup`, when set, serves the same purpose; a cgroup the engine creates itself does
    /// not (the shell joins it only after it started).
    pub member_cgroup: Option<std::path::PathBuf>,
}

/// A live PTY session. Implements [`BackendSession`].
pub struct PtySession {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for PtySession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PtySession")
            .field("session_id", &self.inner.shared.id)
            .field("pid", &self.inner.shared.shell_pid)
            .finish_non_exhaustive()
    }
}

/// The session's engine: what the facade, the send driver and close share.
struct Inner {
    config: PtySessionConfig,
    shared: Arc<Shared>,
    shell: ProcessIdentity,
    tracker: Mutex<Option<TreeTracker>>,
    cgroup: Option<SessionCgroup>,
    close_lock: tokio::sync::Mutex<Option<CloseReport>>,
    closed: AtomicBool,
    motd: Mutex<String>,
    runtime: tokio::runtime::Handle,
    span: tracing::Span,
    /// See [`PtySpawnSpec::keep_alive`]; dropped after the processes were stopped.
    _keep_alive: Option<Arc<dyn std::any::Any + Send + Sync>>,
    /// See [`PtySpawnSpec::repair_keys`].
    repair_keys: Option<Vec<u8>>,
    /// See [`PtySpawnSpec::clear_line_keys`].
    clear_line_keys: Option<Vec<u8>>,
    /// See [`PtySpawnSpec::editor_reset_keys`].
    editor_reset_keys: Option<Vec<u8>>,
}

impl Drop for PtySession {
    /// A session dropped without [`BackendSession::close`] kills everything it started, at
    /// once and synchronously (SIGKILL; no grace).
    fn drop(&mut self) {
        self.inner.kill_now();
    }
}

impl PtySession {
    /// The session id.
    pub fn session_id(&self) -> &SessionId {
        &self.inner.shared.id
    }

    /// Path of the terminal's slave side (e.g. `/dev/pts/3`).
    pub fn tty_path(&self) -> Option<&std::path::Path> {
        self.inner.shared.pty.tty_path()
    }

    /// The shell's process identity.
    pub fn shell(&self) -> ProcessIdentity {
        self.inner.shell
    }

    /// Every still-alive process this session started that the tracker has captured (the
    /// shell excluded), after a fresh scan. For diagnostics and tests.
    pub fn captured_processes(&self) -> Vec<ProcessIdentity> {
        let mut guard = self.inner.tracker.lock();
        match guard.as_mut() {
            Some(t) => {
                t.refresh();
                t.captured()
            }
            None => Vec::new(),
        }
    }

    /// The whole transcript (history plus screen) as text. For diagnostics and tests.
    pub fn transcript(&self) -> String {
        self.inner.shared.lock().screen.transcript()
    }
}

#[async_trait::async_trait]
impl BackendSession for PtySession {
    fn motd(&self) -> String {
        self.inner.motd.lock().clone()
    }

    fn pid(&self) -> Option<u32> {
        u32::try_from(self.inner.shared.shell_pid).ok()
    }

    fn status(&self) -> SessionStatus {
        self.inner.shared.status()
    }

    fn start_send(&self, request: SendRequest) -> Result<SendOperation, TerminalError> {
        let op = SendOp::start(&self.inner, request, false)?;
        Ok(SendOperation::new(op))
    }

    fn working_dir_gone(&self) -> bool {
        // The shell leads its own group (under a launcher too); the kernel marks the link of
        // a removed directory.
        std::fs::read_link(format!("/proc/{}/cwd", self.inner.shared.shell_pgid()))
            .is_ok_and(|dir| dir.to_string_lossy().ends_with(" (deleted)"))
    }

    fn input_hidden(&self) -> bool {
        self.inner
            .shared
            .pty
            .modes()
            .is_some_and(|m| !m.echo && m.canonical)
    }

    fn program_group(&self) -> Option<i32> {
        let shared = &self.inner.shared;
        shared
            .pty
            .foreground_pgid()
            .filter(|&pgid| pgid != shared.shell_pgid() || shared.shell_replaced())
    }

    fn program_groups_held(&self) -> Vec<i32> {
        /// Most ancestors looked through (a chain of nested programs is short).
        const MOST_ANCESTORS: usize = 32;
        let shared = &self.inner.shared;
        let Some(front) = self.program_group() else {
            return Vec::new();
        };
        let mut groups = vec![front];
        let processes = shared.processes();
        // The group's leader, or any live member when the leader is gone (a pipeline's first
        // command that ended).
        let mut at = processes
            .iter()
            .find(|s| s.pid == front && s.pgrp == front)
            .or_else(|| processes.iter().find(|s| s.pgrp == front && !s.is_zombie()));
        for _ in 0..MOST_ANCESTORS {
            let Some(process) = at else { break };
            if process.pid == shared.shell_pid || process.pgrp == shared.shell_pgid() {
                break;
            }
            if !groups.contains(&process.pgrp) {
                groups.push(process.pgrp);
            }
            at = processes.iter().find(|s| s.pid == process.ppid);
        }
        groups
    }

    fn group_members(&self, pgid: i32) -> Vec<String> {
        let shared = &self.inner.shared;
        if pgid == shared.shell_pgid() {
            return Vec::new();
        }
        // A process group lies within one login session: the shell's is this terminal's.
        let Some(login) = crate::process::stat(shared.shell_pgid()).map(|s| s.session) else {
            return Vec::new();
        };
        shared
            .processes()
            .into_iter()
            .filter(|s| s.pgrp == pgid && s.session == login && !s.is_zombie())
            .map(|s| s.comm)
            .collect()
    }

    fn signal_group(&self, pgid: i32, signal: TerminalSignal) -> bool {
        if self.group_members(pgid).is_empty() {
            return false;
        }
        rustix::process::Pid::from_raw(pgid)
            .is_some_and(|pid| rustix::process::kill_process_group(pid, signal.to_rustix()).is_ok())
    }

    fn program_replaced_shell(&self) -> bool {
        let shared = &self.inner.shared;
        shared.pty.foreground_pgid() == Some(shared.shell_pgid())
            && shared.lock().screen.prompt_state() != crate::screen::PromptState::Prompt
            && shared.shell_replaced()
    }

    fn cursor_row(&self) -> Option<String> {
        self.inner.shared.lock().screen.cursor_row_prefix()
    }

    fn prompts_drawn(&self) -> Option<u64> {
        Some(self.inner.shared.lock().screen.prompt_end_count())
    }

    fn read(&self, request: ReadRequest) -> Result<ReadResult, TerminalError> {
        // Rows are copied under the lock; the page is assembled after it is released.
        let snapshot = {
            let mut st = self.inner.shared.lock();
            // A page with the newest line shows what reads now: a reader the last result left
            // waiting may be seen gone (see `send::stale_reader`).
            if request.from_line.is_none() && request.offset.unwrap_or(0) == 0 {
                st.awaited_reader = None;
                st.unseen_reader_guard = None;
            }
            st.screen.with_open_binary_run(|screen| {
                let (offset, count) = match request.from_line {
                    Some(from) => {
                        let (offset, count) = screen.page_at_line(from, request.count)?;
                        (Some(offset), Some(count))
                    }
                    None => (request.offset, request.count),
                };
                Ok::<_, TerminalError>((screen.page_snapshot(offset, count)?, offset, count))
            })?
        };
        let (snapshot, offset, count) = snapshot;
        snapshot.page(offset, count, self.inner.config.max_read_bytes)
    }

    fn signal(&self, signal: TerminalSignal) -> Result<SignalResult, TerminalError> {
        signal::signal(&self.inner.shared, signal)
    }

    async fn after_signal(&self, pgid: i32, within: std::time::Duration) -> crate::AfterSignal {
        after_signal::after_signal(&self.inner.shared, pgid, within).await
    }

    async fn close(&self, reason: String) -> Result<CloseReport, TerminalError> {
        let inner = Arc::clone(&self.inner);
        inner
            .close_now(&reason)
            .instrument(inner.span.clone())
            .await
    }
}
