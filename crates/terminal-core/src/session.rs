//! [`PtySession`]: the generic PTY session engine behind a backend's [`BackendSession`].
//!
//! A backend (e.g. `dsh-terminal-bash`) decides *what* to run (program, arguments, environment,
//! prompt nonce); this engine runs it on a PTY and implements the session contract: sends that
//! settle by [readiness](crate::readiness), screen-true viewports and pages from a
//! [`Screen`], foreground signals, and a close that leaves no process behind.
//!
//! # Responsibilities
//! - Spawn: child-subreaper mode, the PTY ([`crate::pty`]), the session's cgroup (before any
//!   input is written), the process-tree tracker, then startup: an internal empty send that
//!   settles on the first prompt; its viewport is the MOTD.
//! - Event-driven readiness: the reader thread feeds the screen and bumps an activity counter
//!   that wakes the send's driver task at once; `/proc` is only consulted on a
//!   `poll_interval` tick while a send is pending.
//! - One active send at a time; `done()` may be awaited by several callers; `read_output()`
//!   consumes the screen-true delta; `cancel()` delivers a real SIGINT to the foreground group.
//! - Terminal queries (DSR, DA) are answered only while the querying foreground program is
//!   blocked reading the terminal, so no reply leaks into the next command line.
//! - Close: whole-session teardown ([`crate::process::terminate_session`]), then the shell is
//!   reaped by the waiter thread. Dropping a session that was never closed kills everything
//!   synchronously.
//!
//! # Flow of a send
//! 1. `start_send` reserves the slot synchronously and spawns the driver.
//! 2. The driver records the foreground before the write, anchors the screen where the
//!    previous result ended (so output between calls is not lost), notes whether the input is
//!    typed ahead of a running command, and writes `text` (+ `\r`) through the writer thread.
//! 3. It then evaluates [`Readiness`] on every output event and every tick until a tier
//!    settles; the result is rendered from the anchor.
//! 4. The slot is released once no write or interrupt of this send is still in flight.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use dsh_context::BoxFuture;
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use crate::backend::{BackendSession, OperationHandle, SendOperation};
use crate::error::{TerminalError, TerminalErrorCode};
use crate::process::{
    ProcessIdentity, SessionCgroup, TeardownConfig, TreeTracker, enable_child_subreaper,
    group_name, is_group_waiting_on_tty, kill_session_now, terminate_session,
};
use crate::pty::{ExitInfo, Pty, PtyCommand, ReadEvent};
use crate::readiness::{Observation, PreWrite, Readiness, ReadinessTiming, Settle};
use crate::screen::{AnchorId, PromptNonce, PromptState, Screen, ScreenConfig};
use crate::types::{
    CloseReport, InputMode, ReadRequest, ReadResult, SendProgress, SendRead, SendRequest,
    SendResult, SessionId, SessionStatus, SignalResult, TerminalSignal, WaitReason,
};

/// Environment variable carrying the per-session random tag (see [`PtySpawnSpec::command`]).
pub const ENVIRON_TAG: &str = "DSH_PTY_TAG";
/// How long a terminal query reply may wait for its program to block on the terminal.
const REPLY_WAIT_MAX: Duration = Duration::from_secs(1);
/// Most query-reply tasks in flight per session; further queries go unanswered.
const MAX_REPLY_TASKS: usize = 4;
/// How long a reply to the shell itself lets the screen catch up before checking its prompt.
const REPLY_SHELL_SETTLE: Duration = Duration::from_millis(5);
/// Longest pause between checks while a reply waits.
const REPLY_BACKOFF_MAX: Duration = Duration::from_millis(25);
/// After the shell exits: least time before "no unread output" counts as drained.
const EXIT_DRAIN_MIN: Duration = Duration::from_millis(10);
/// After the shell exits: most time to wait for its last output.
const EXIT_DRAIN_MAX: Duration = Duration::from_millis(200);
/// After a signal to the foreground: most time the next send waits for it to play out.
const SIGNAL_AFTERMATH_MAX: Duration = Duration::from_millis(1000);

/// Engine configuration (the backend maps its own config onto this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtySessionConfig {
    /// Terminal rows.
    pub rows: u16,
    /// Terminal columns.
    pub cols: u16,
    /// Most history rows retained.
    pub scrollback_lines: usize,
    /// Most history bytes retained.
    pub scrollback_max_bytes: usize,
    /// Cap of one page, one viewport and one `read_output` delta, in bytes.
    pub max_read_bytes: usize,
    /// Period of `/proc` checks while a send is pending.
    pub poll_interval: Duration,
    /// Earliest time after a send started that a stdin wait may settle it.
    pub exact_probe_after: Duration,
    /// Output silence that settles a send as `inferred_idle`.
    pub idle_silence: Duration,
    /// Extra silence once a prompt mark was seen.
    pub handoff_grace: Duration,
    /// Absolute bound of one send, and of startup.
    pub timeout: Duration,
    /// Grace of each teardown tier (TERM → KILL).
    pub dispose_grace: Duration,
}

impl Default for PtySessionConfig {
    /// The seed's defaults (seed-contract §3.1).
    fn default() -> Self {
        Self {
            rows: 40,
            cols: 160,
            scrollback_lines: 10_000,
            scrollback_max_bytes: 4 * 1024 * 1024,
            max_read_bytes: 256 * 1024,
            poll_interval: Duration::from_millis(50),
            exact_probe_after: Duration::from_millis(150),
            idle_silence: Duration::from_millis(3000),
            handoff_grace: Duration::from_millis(500),
            timeout: Duration::from_millis(30_000),
            dispose_grace: Duration::from_millis(3000),
        }
    }
}

impl PtySessionConfig {
    fn timing(&self) -> ReadinessTiming {
        ReadinessTiming {
            poll_interval: self.poll_interval,
            exact_probe_after: self.exact_probe_after,
            idle_silence: self.idle_silence,
            handoff_grace: self.handoff_grace,
            timeout: self.timeout,
        }
    }
}

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
}

/// A live PTY session. Implements [`BackendSession`].
pub struct PtySession {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for PtySession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PtySession")
            .field("session_id", &self.inner.id)
            .field("pid", &self.inner.io.shell_pid)
            .finish_non_exhaustive()
    }
}

struct State {
    screen: Screen,
    last_output_at: Instant,
    output_ended: bool,
    stream_error: Option<String>,
    exit: Option<(ExitInfo, Instant)>,
    closing: bool,
    active: Option<Arc<Op>>,
    /// A signal just reached the foreground group: the next send waits for it to play out
    /// (see [`SignalAftermath`]), or its input could be discarded with the interrupted line.
    redraw_pending: Option<SignalAftermath>,
    /// Where the last result's viewport ended. The next send's viewport starts here, so
    /// output that arrived between two calls (a command still running after `inferred_idle`
    /// finishing later) is shown in the next result instead of only in scrollback.
    resume_from: Option<AnchorId>,
    /// Raw bytes read from the terminal so far.
    bytes_read: u64,
    /// `bytes_read` when `resume_from` was placed.
    bytes_at_resume: u64,
    /// `screen.done_count()` when `resume_from` was placed.
    done_at_resume: u64,
}

/// What the reader, waiter and reply tasks share.
struct Io {
    id: SessionId,
    pty: Pty,
    shell_pid: i32,
    shell_pgid: i32,
    max_read_bytes: usize,
    state: Mutex<State>,
    activity: watch::Sender<u64>,
    /// The reader thread holds a chunk it has not fed to the screen yet.
    reader_busy: AtomicBool,
    /// Query-reply tasks in flight (bounded by [`MAX_REPLY_TASKS`]).
    reply_tasks: AtomicUsize,
}

impl Io {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bump(&self) {
        self.activity.send_modify(|v| *v = v.wrapping_add(1));
    }

    fn on_output(self: &Arc<Self>, bytes: &[u8], runtime: &tokio::runtime::Handle) {
        let replies = {
            let mut st = self.lock();
            st.bytes_read = st.bytes_read.saturating_add(bytes.len() as u64);
            let out = st.screen.feed(bytes);
            if out.printed_text() || out.has_mark() {
                st.last_output_at = Instant::now();
            }
            out.replies
        };
        tracing::trace!(bytes = bytes.len(), "pty output");
        self.bump();
        if !replies.is_empty() {
            if self.reply_tasks.fetch_add(1, Ordering::SeqCst) >= MAX_REPLY_TASKS {
                self.reply_tasks.fetch_sub(1, Ordering::SeqCst);
                tracing::debug!("dropping terminal query replies: too many unanswered queries");
                return;
            }
            let fg = self.pty.foreground_pgid();
            let weak = Arc::downgrade(self);
            runtime.spawn(async move {
                answer_queries(weak.clone(), replies, fg).await;
                if let Some(io) = weak.upgrade() {
                    io.reply_tasks.fetch_sub(1, Ordering::SeqCst);
                }
            });
        }
    }

    /// Whether everything the program wrote has been read and fed to the screen.
    fn output_drained(&self) -> bool {
        !self.reader_busy.load(Ordering::SeqCst) && self.pty.unread_output_bytes().unwrap_or(0) == 0
    }

    /// Whether the shell's prompt is the current screen state.
    fn prompt_current(&self) -> bool {
        self.lock().screen.prompt_state() != PromptState::Busy
    }

    fn status(st: &State) -> SessionStatus {
        match &st.exit {
            Some((info, _)) => info.status(),
            None if st.stream_error.is_some() => SessionStatus::Exited {
                exit_code: None,
                signal: None,
            },
            None => SessionStatus::Running,
        }
    }

    async fn waiting_on_tty(self: &Arc<Self>, pgid: i32) -> bool {
        let Some(tty) = self.pty.tty_path().map(std::path::Path::to_path_buf) else {
            return false;
        };
        tokio::task::spawn_blocking(move || is_group_waiting_on_tty(pgid, &tty))
            .await
            .unwrap_or(false)
    }
}

/// What to do with pending query replies right now.
enum ReplyVerdict {
    Write,
    Drop(&'static str),
    Retry,
}

/// Writes query replies once the foreground program that asked is blocked reading the
/// terminal; drops them when that program is gone or the shell's prompt is back.
async fn answer_queries(io: Weak<Io>, replies: Vec<Vec<u8>>, fg_at_query: Option<i32>) {
    let deadline = Instant::now() + REPLY_WAIT_MAX;
    let mut delay = Duration::from_millis(1);
    loop {
        let Some(io) = io.upgrade() else { return };
        match reply_verdict(&io, fg_at_query).await {
            ReplyVerdict::Write => {
                let _ = io.pty.write(replies.concat()).await;
                return;
            }
            ReplyVerdict::Drop(why) => {
                tracing::debug!("dropping terminal query reply: {why}");
                return;
            }
            ReplyVerdict::Retry => {}
        }
        drop(io);
        if Instant::now() >= deadline {
            tracing::debug!("dropping terminal query reply: nobody read the terminal");
            return;
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(REPLY_BACKOFF_MAX);
    }
}

async fn reply_verdict(io: &Arc<Io>, fg_at_query: Option<i32>) -> ReplyVerdict {
    let fg = io.pty.foreground_pgid();
    let Some(pgid) = fg.filter(|_| fg == fg_at_query) else {
        return ReplyVerdict::Drop("the querying program left");
    };
    if pgid == io.shell_pgid && io.prompt_current() {
        return ReplyVerdict::Drop("the shell prompt is back");
    }
    if io.pty.tty_path().is_none() {
        return ReplyVerdict::Write;
    }
    if !io.waiting_on_tty(pgid).await {
        return ReplyVerdict::Retry;
    }
    if pgid != io.shell_pgid {
        return ReplyVerdict::Write;
    }
    // The shell blocks on the terminal both in `read` (wants the reply) and at its prompt
    // (must not get it). Its prompt precedes that wait in the output, so let the screen catch
    // up before deciding.
    tokio::time::sleep(REPLY_SHELL_SETTLE).await;
    if !io.output_drained() {
        return ReplyVerdict::Retry;
    }
    if io.prompt_current() {
        return ReplyVerdict::Drop("the shell prompt is back");
    }
    if io.waiting_on_tty(pgid).await {
        ReplyVerdict::Write
    } else {
        ReplyVerdict::Retry
    }
}

struct Inner {
    id: SessionId,
    config: PtySessionConfig,
    io: Arc<Io>,
    shell: ProcessIdentity,
    tracker: Mutex<Option<TreeTracker>>,
    cgroup: Option<SessionCgroup>,
    close_lock: tokio::sync::Mutex<Option<CloseReport>>,
    closed: AtomicBool,
    motd: Mutex<String>,
    runtime: tokio::runtime::Handle,
    span: tracing::Span,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.kill_now();
    }
}

impl Drop for PtySession {
    /// A session dropped without [`BackendSession::close`] kills everything it started, at
    /// once and synchronously (SIGKILL; no grace).
    fn drop(&mut self) {
        self.inner.kill_now();
    }
}

impl Inner {
    /// Synchronous SIGKILL of the whole session unless it was closed (or killed) already.
    fn kill_now(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        let _enter = self.span.enter();
        tracing::debug!("session dropped without close; killing its processes");
        let mut tracker = self
            .tracker
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or_else(|| TreeTracker::new(self.shell));
        kill_session_now(self.shell, &mut tracker, self.cgroup.as_ref());
        *self.tracker.lock().unwrap_or_else(|e| e.into_inner()) = Some(tracker);
        self.io.lock().closing = true;
        self.io.pty.close_writer();
        if let Some(cg) = &self.cgroup {
            cg.remove();
        }
    }

    async fn refresh_tracker(self: Arc<Self>) {
        let _ = tokio::task::spawn_blocking(move || {
            if let Some(t) = self
                .tracker
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_mut()
            {
                t.refresh();
                t.reap_zombies();
            }
            reap_session_orphans(self.shell.pid);
        })
        .await;
    }

    fn begin_send(
        self: &Arc<Self>,
        request: SendRequest,
        initializing: bool,
    ) -> Result<Arc<Op>, TerminalError> {
        let mut st = self.io.lock();
        if st.closing {
            return Err(TerminalError::closing(&self.id));
        }
        if st.exit.is_some() || st.stream_error.is_some() {
            return Err(TerminalError::exited(&self.id));
        }
        if st.active.is_some() {
            return Err(TerminalError::send_active(&self.id));
        }
        let (result, _) = watch::channel(None);
        let op = Arc::new(Op {
            io: Arc::clone(&self.io),
            result,
            wake: Notify::new(),
            shared: Mutex::new(OpShared::default()),
            settled: AtomicBool::new(false),
            finished: AtomicBool::new(false),
            in_flight: AtomicBool::new(false),
        });
        st.active = Some(Arc::clone(&op));
        drop(st);
        let mut input = request.text.into_bytes();
        if request.submit {
            input.push(b'\r');
        }
        let driver = drive(Arc::clone(self), Arc::clone(&op), input, initializing);
        self.runtime.spawn(driver.instrument(self.span.clone()));
        Ok(op)
    }

    async fn close_now(self: &Arc<Self>, reason: &str) -> Result<CloseReport, TerminalError> {
        let mut guard = self.close_lock.lock().await;
        if let Some(report) = guard.as_ref() {
            return Ok(report.clone());
        }
        tracing::debug!(%reason, "closing session");
        self.io.lock().closing = true;
        let mut tracker = self
            .tracker
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or_else(|| TreeTracker::new(self.shell));
        let teardown = TeardownConfig {
            grace: self.config.dispose_grace,
        };
        let report =
            terminate_session(self.shell, &mut tracker, self.cgroup.as_ref(), &teardown).await;
        *self.tracker.lock().unwrap_or_else(|e| e.into_inner()) = Some(tracker);
        // The waiter thread reaps the shell; give it the grace to report.
        let mut activity = self.io.activity.subscribe();
        let reap_deadline = tokio::time::Instant::now() + self.config.dispose_grace;
        while self.io.lock().exit.is_none() {
            if tokio::time::timeout_at(reap_deadline, activity.changed())
                .await
                .is_err()
            {
                break;
            }
        }
        let active = self.io.lock().active.clone();
        if let Some(op) = active {
            settle(self, &op, Settle::Exit, None);
            op.wake.notify_one();
        }
        if !report.survivors.is_empty() {
            let pids: Vec<String> = report.survivors.iter().map(i32::to_string).collect();
            return Err(TerminalError::new(
                TerminalErrorCode::Cleanup,
                format!(
                    "PTY cleanup failed ({reason}); surviving pids: {}; retry terminal_close",
                    pids.join(", ")
                ),
            ));
        }
        self.io.pty.close_writer();
        if let Some(cg) = &self.cgroup {
            cg.remove();
        }
        let shell_pid = self.shell.pid;
        let _ = tokio::task::spawn_blocking(move || reap_session_orphans(shell_pid)).await;
        let close_report = CloseReport {
            processes_stopped: report.stopped,
        };
        self.closed.store(true, Ordering::SeqCst);
        *guard = Some(close_report.clone());
        Ok(close_report)
    }
}

#[derive(Default)]
struct OpShared {
    anchor: Option<AnchorId>,
    /// `State::bytes_read` where the anchor starts.
    bytes_from: u64,
    /// `screen.done_count()` where the anchor starts.
    done_from: u64,
    cancel_requested: bool,
    final_delta: Option<SendRead>,
}

/// One send.
struct Op {
    io: Arc<Io>,
    result: watch::Sender<Option<Result<SendResult, TerminalError>>>,
    wake: Notify,
    shared: Mutex<OpShared>,
    settled: AtomicBool,
    finished: AtomicBool,
    /// A write or an interrupt of this send is still in flight: the slot stays reserved after
    /// settlement until it lands, so late bytes or a late SIGINT never hit a successor.
    in_flight: AtomicBool,
}

impl Op {
    fn shared(&self) -> MutexGuard<'_, OpShared> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn is_settled(&self) -> bool {
        self.settled.load(Ordering::SeqCst)
    }

    fn cancel_requested(&self) -> bool {
        self.shared().cancel_requested
    }

    /// Releases the session's send slot (once nothing of this send is in flight).
    fn release(self: &Arc<Self>) {
        let mut st = self.io.lock();
        self.release_locked(&mut st);
    }

    fn release_locked(self: &Arc<Self>, st: &mut State) {
        if st.active.as_ref().is_some_and(|a| Arc::ptr_eq(a, self)) {
            st.active = None;
        }
        self.finished.store(true, Ordering::SeqCst);
    }

    fn fail(self: &Arc<Self>, error: TerminalError) {
        let mut st = self.io.lock();
        if self.settled.swap(true, Ordering::SeqCst) {
            return;
        }
        if let Some(anchor) = self.shared().anchor.take() {
            st.screen.release_anchor(anchor);
        }
        if !self.in_flight.load(Ordering::SeqCst) {
            self.release_locked(&mut st);
        }
        drop(st);
        self.result.send_replace(Some(Err(error)));
    }
}

impl OperationHandle for Op {
    fn done(&self) -> BoxFuture<'_, Result<SendResult, TerminalError>> {
        let mut rx = self.result.subscribe();
        Box::pin(async move {
            match rx.wait_for(Option::is_some).await {
                Ok(v) => v.clone().unwrap_or_else(|| Err(abandoned())),
                Err(_) => Err(abandoned()),
            }
        })
    }

    fn read_output(&self) -> SendRead {
        let mut st = self.io.lock();
        let mut shared = self.shared();
        if self.is_settled() {
            return shared.final_delta.take().unwrap_or_default();
        }
        let Some(anchor) = shared.anchor else {
            return SendRead::default();
        };
        let rendered = st.screen.render_since(anchor, self.io.max_read_bytes);
        st.screen.move_anchor_to_cursor(anchor);
        SendRead {
            delta: rendered.text,
            truncated: rendered.truncated,
        }
    }

    fn cancel(&self) -> bool {
        if self.is_settled() {
            return false;
        }
        self.shared().cancel_requested = true;
        self.wake.notify_one();
        true
    }

    fn progress(&self) -> SendProgress {
        /// Enough of the newest output to find its last line.
        const LAST_LINE_BYTES: usize = 1024;
        let st = self.io.lock();
        let shared = self.shared();
        let last_line = shared.anchor.and_then(|anchor| {
            let rendered = st.screen.render_since(anchor, LAST_LINE_BYTES);
            rendered
                .text
                .lines()
                .rev()
                .map(str::trim_end)
                .find(|l| !l.is_empty())
                .map(str::to_owned)
        });
        SendProgress {
            output_bytes: st.bytes_read.saturating_sub(shared.bytes_from),
            last_line,
        }
    }

    fn is_finished(&self) -> bool {
        self.finished.load(Ordering::SeqCst)
    }
}

fn abandoned() -> TerminalError {
    TerminalError::new(
        TerminalErrorCode::Transport,
        "PTY send was abandoned before it settled",
    )
}

/// Settles `op` with `reason` (no-op when already settled): renders the viewport from the
/// op's anchor and gathers the foreground facts.
fn settle(inner: &Inner, op: &Arc<Op>, reason: Settle, exit_code: Option<i32>) {
    let io = &inner.io;
    let mut st = io.lock();
    if op.settled.swap(true, Ordering::SeqCst) {
        return;
    }
    let anchor = op.shared().anchor.take();
    let rendered = anchor
        .map(|a| st.screen.render_since(a, io.max_read_bytes))
        .unwrap_or_default();
    if let Some(a) = anchor {
        st.screen.release_anchor(a);
    }
    if let Some(old) = st.resume_from.take() {
        st.screen.release_anchor(old);
    }
    st.resume_from = Some(st.screen.anchor());
    st.bytes_at_resume = st.bytes_read;
    let output_bytes = st.bytes_read.saturating_sub(op.shared().bytes_from);
    let mut exits = st.screen.exit_codes_since(op.shared().done_from);
    st.done_at_resume = st.screen.done_count();
    // The last one is the result's own `[exit: N]` when the prompt settled it.
    if reason == Settle::Prompt {
        exits.pop();
    }
    let earlier_exit_codes: Vec<i32> = exits.into_iter().flatten().collect();
    let status = Io::status(&st);
    let alternate = st.screen.alternate_screen();
    let continuation = st.screen.prompt_state() == PromptState::Continuation;
    drop(st);
    let exited = reason == Settle::Exit;
    let fg = if exited {
        None
    } else {
        io.pty.foreground_pgid()
    };
    let foreground = fg.filter(|&p| p != io.shell_pgid).and_then(group_name);
    let echo_off = !exited && io.pty.modes().is_some_and(|m| !m.echo && m.canonical);
    let input_mode = if exited {
        InputMode::Normal
    } else if alternate {
        InputMode::AlternateScreen
    } else if reason == Settle::Continuation || continuation {
        InputMode::Continuation
    } else if echo_off {
        InputMode::EchoOff
    } else {
        InputMode::Normal
    };
    let wait_reason = match reason {
        Settle::Exit => WaitReason::SessionExit,
        Settle::Prompt | Settle::Continuation | Settle::StdinWait => WaitReason::StdinRead,
        Settle::Idle => WaitReason::InferredIdle,
        Settle::Timeout => WaitReason::Timeout,
    };
    tracing::debug!(
        wait = wait_reason.as_str(),
        viewport_bytes = rendered.text.len(),
        "send settled"
    );
    op.shared().final_delta = Some(SendRead {
        delta: rendered.text.clone(),
        truncated: rendered.truncated,
    });
    // Free the slot before publishing, so a caller that awaited `done()` can send at once.
    if !op.in_flight.load(Ordering::SeqCst) {
        op.release();
    }
    op.result.send_replace(Some(Ok(SendResult {
        viewport: rendered.text,
        wait_reason,
        session_status: status,
        truncated: rendered.truncated,
        exit_code: if reason == Settle::Prompt {
            exit_code
        } else {
            None
        },
        foreground,
        input_mode,
        earlier_exit_codes,
        output_bytes,
    })));
}

/// Facts about the foreground before the write.
async fn pre_write(io: &Arc<Io>) -> PreWrite {
    let fg = io.pty.foreground_pgid();
    let waiting = match fg {
        Some(pgid) if !(pgid == io.shell_pgid && io.prompt_current()) => {
            io.waiting_on_tty(pgid).await
        }
        _ => false,
    };
    PreWrite { fg, waiting }
}

/// Delivers SIGINT to the foreground group (cancellation).
fn interrupt(io: &Io) -> Result<i32, TerminalError> {
    deliver(io, TerminalSignal::Sigint)
}

fn deliver(io: &Io, signal: TerminalSignal) -> Result<i32, TerminalError> {
    let pgid = io.pty.foreground_pgid().ok_or_else(|| {
        TerminalError::new(
            TerminalErrorCode::Signal,
            format!(
                "cannot resolve foreground process group for terminal {}; the session may have exited (check terminal_list)",
                io.shell_pid
            ),
        )
    })?;
    // Either would end the session itself: that is terminal_close's job (which also stops
    // everything the shell started).
    if matches!(signal, TerminalSignal::Sigkill | TerminalSignal::Sighup) && pgid == io.shell_pgid {
        return Err(TerminalError::new(
            TerminalErrorCode::Signal,
            format!(
                "refusing to {signal} the terminal shell; use terminal_close to end the session"
            ),
        ));
    }
    let sig = rustix::process::Signal::from_named_raw(signal.as_raw()).ok_or_else(|| {
        TerminalError::new(
            TerminalErrorCode::Signal,
            format!("signal {signal} is not supported on this platform"),
        )
    })?;
    let pid = rustix::process::Pid::from_raw(pgid).ok_or_else(|| {
        TerminalError::new(
            TerminalErrorCode::Signal,
            format!("invalid foreground process group {pgid}"),
        )
    })?;
    let redraw_from = io.lock().screen.done_count();
    rustix::process::kill_process_group(pid, sig).map_err(|e| {
        TerminalError::new(
            TerminalErrorCode::Signal,
            format!("cannot deliver {signal} to process group {pgid}: {e}"),
        )
    })?;
    io.lock().redraw_pending = Some(SignalAftermath {
        pgid,
        done_count: redraw_from,
        at: Instant::now(),
    });
    tracing::debug!(%signal, pgid, "signal delivered");
    Ok(pgid)
}

/// A signal was just delivered to the foreground group `pgid`; the next send's input must not
/// reach the terminal while that group is dying or the shell is re-arming readline (the typed
/// text would be swallowed with the interrupted line, or settle on the interrupted command's
/// prompt).
#[derive(Clone, Copy, Debug)]
struct SignalAftermath {
    pgid: i32,
    done_count: u64,
    at: Instant,
}

/// Waits (at most [`SIGNAL_AFTERMATH_MAX`]) until the signal has played out: the shell showed a
/// fresh prompt (a new command-finished mark and the prompt's end mark), or the signalled
/// program survived and is blocked reading the terminal again (a REPL catching SIGINT).
async fn wait_for_signal_aftermath(
    io: &Arc<Io>,
    op: &Arc<Op>,
    activity: &mut watch::Receiver<u64>,
    after: SignalAftermath,
) {
    let until = after.at + SIGNAL_AFTERMATH_MAX;
    loop {
        if op.is_settled() || Instant::now() >= until {
            return;
        }
        let fresh_prompt = {
            let st = io.lock();
            st.screen.done_count() > after.done_count
                && st.screen.prompt_state() == PromptState::Prompt
        };
        if fresh_prompt {
            return;
        }
        if after.pgid != io.shell_pgid
            && io.pty.foreground_pgid() == Some(after.pgid)
            && io.waiting_on_tty(after.pgid).await
        {
            return;
        }
        let tick = (Instant::now() + Duration::from_millis(20)).min(until);
        tokio::select! {
            _ = activity.changed() => {}
            _ = op.wake.notified() => {}
            _ = tokio::time::sleep_until(tick.into()) => {}
        }
    }
}

/// Drives one send from write to settlement. See the module docs.
async fn drive(inner: Arc<Inner>, op: Arc<Op>, input: Vec<u8>, initializing: bool) {
    let io = Arc::clone(&inner.io);
    let mut activity = io.activity.subscribe();
    let aftermath = io.lock().redraw_pending.take();
    if let Some(after) = aftermath {
        wait_for_signal_aftermath(&io, &op, &mut activity, after).await;
    }
    let started = Instant::now();
    let pre = pre_write(&io).await;
    let mut readiness = Readiness::new(
        inner.config.timing(),
        started,
        initializing,
        io.shell_pgid,
        pre,
    );
    let deadline = readiness.deadline();
    let (done_at_write, marks_at_write, written_at) = {
        let mut st = io.lock();
        if initializing {
            // Startup renders (and counts marks) from the very beginning: the shell may have
            // printed its first prompt before this task ran.
            let anchor = st.screen.anchor_at(crate::screen::Position::default());
            op.shared().anchor = Some(anchor);
            (0, 0, started)
        } else {
            // Several lines sent at once are typed ahead of each other: a prompt between two of
            // them must not settle the send.
            let multi_line = input
                .get(..input.len().saturating_sub(1))
                .is_some_and(|head| head.iter().any(|&b| b == b'\n' || b == b'\r'));
            readiness.set_typeahead(st.screen.prompt_state() == PromptState::Busy || multi_line);
            readiness.set_poll_only(input.is_empty());
            // Start where the last result ended (see `State::resume_from`).
            let (anchor, bytes_from, done_from) = match st.resume_from.take() {
                Some(resume) => (resume, st.bytes_at_resume, st.done_at_resume),
                None => (st.screen.anchor(), st.bytes_read, st.screen.done_count()),
            };
            op.shared().anchor = Some(anchor);
            op.shared().bytes_from = bytes_from;
            op.shared().done_from = done_from;
            // The silence window and "output since the write" both start here, just before
            // the input is queued (its echo can arrive before the write is acknowledged).
            let now = Instant::now();
            st.last_output_at = now;
            (st.screen.done_count(), st.screen.mark_count(), now)
        }
    };
    let mut write_rx = if input.is_empty() || op.cancel_requested() {
        None
    } else {
        op.in_flight.store(true, Ordering::SeqCst);
        Some(io.pty.write(input))
    };
    let mut interrupted = false;
    let mut next_tick = written_at + inner.config.poll_interval;
    let mut probe: Option<(i32, bool)> = None;

    loop {
        // A pending write: only exit, deadline and close matter until it lands.
        if let Some(rx) = write_rx.as_mut() {
            let exited = io.lock().exit.is_some();
            if !op.is_settled() && exited {
                settle(&inner, &op, Settle::Exit, None);
            } else if !op.is_settled() && Instant::now() >= deadline {
                settle(&inner, &op, Settle::Timeout, None);
            }
            tokio::select! {
                r = rx => {
                    write_rx = None;
                    op.in_flight.store(false, Ordering::SeqCst);
                    match r {
                        Ok(Ok(())) => {
                            next_tick = Instant::now() + inner.config.poll_interval;
                        }
                        Ok(Err(e)) if !exited => op.fail(TerminalError::new(
                            TerminalErrorCode::Transport,
                            format!("PTY write failed: {e}"),
                        )),
                        _ => {}
                    }
                }
                _ = activity.changed() => {}
                _ = op.wake.notified() => {}
                _ = tokio::time::sleep_until(deadline.into()), if !op.is_settled() => {}
            }
            if op.is_settled() && write_rx.is_none() {
                break;
            }
            continue;
        }
        if op.is_settled() {
            break;
        }
        if op.cancel_requested() && !interrupted {
            interrupted = true;
            if let Err(e) = interrupt(&io) {
                op.fail(e);
                break;
            }
        }

        let now = Instant::now();
        if now >= next_tick {
            next_tick = now + inner.config.poll_interval;
            Arc::clone(&inner).refresh_tracker().await;
            let (fg, prompt) = (io.pty.foreground_pgid(), io.lock().screen.prompt_state());
            probe = match fg {
                Some(pgid) if readiness.wants_probe(fg, prompt) => {
                    Some((pgid, io.waiting_on_tty(pgid).await))
                }
                _ => None,
            };
        }
        // Observe.
        let now = Instant::now();
        let probed = probe.take();
        let (mut obs, exit_at, last_exit) = {
            let st = io.lock();
            let exit_at = st.exit.map(|(_, at)| at);
            let ended = st.output_ended;
            let obs = Observation {
                now,
                exited: false,
                prompt: st.screen.prompt_state(),
                done_since_write: st.screen.done_count() > done_at_write,
                mark_since_write: st.screen.mark_count() > marks_at_write,
                fg: None,
                input_pending: false,
                fg_waiting: None,
                last_output_at: st.last_output_at,
                output_since_write: st.last_output_at > written_at,
                has_output: st.screen.has_output(),
                output_drained: false,
            };
            (
                obs,
                exit_at.map(|at| (at, ended)),
                st.screen.last_exit_code(),
            )
        };
        if let Some((at, ended)) = exit_at {
            let waited = now.saturating_duration_since(at);
            obs.exited = ended
                || waited >= EXIT_DRAIN_MAX
                || (waited >= EXIT_DRAIN_MIN && io.pty.unread_output_bytes().unwrap_or(0) == 0);
        }
        obs.fg = io.pty.foreground_pgid();
        obs.output_drained = io.output_drained();
        obs.fg_waiting = probed
            .filter(|(pgid, _)| Some(*pgid) == obs.fg)
            .map(|(_, w)| w);
        if obs.prompt != PromptState::Busy || obs.fg_waiting == Some(true) {
            obs.input_pending = io.pty.pending_input_bytes().unwrap_or(0) > 0;
        }
        if let Some(reason) = readiness.evaluate(&obs) {
            settle(&inner, &op, reason, last_exit);
            break;
        }
        // Sleep until something can change the decision.
        let mut wake_at = deadline.min(readiness.silence_deadline(obs.last_output_at));
        wake_at = wake_at.min(next_tick);
        if let Some((at, _)) = exit_at {
            wake_at = wake_at.min((at + EXIT_DRAIN_MIN).max(now + Duration::from_millis(2)));
        }
        let stream_failed = io.lock().stream_error.clone();
        if let Some(err) = stream_failed
            && exit_at.is_none()
        {
            op.fail(TerminalError::new(
                TerminalErrorCode::Transport,
                format!("PTY output stream failed: {err}"),
            ));
            break;
        }
        tokio::select! {
            _ = activity.changed() => {}
            _ = op.wake.notified() => {}
            _ = tokio::time::sleep_until(wake_at.into()) => {}
        }
    }
    op.release();
}

impl PtySession {
    /// Spawns the program on a PTY and waits for its first prompt (startup, seed-contract
    /// §3.6). Everything started is cleaned up on failure.
    ///
    /// # Errors
    /// `Spawn`: the PTY or program could not start; "PTY shell exited during startup"; "PTY
    /// shell did not reach readiness before startup timeout"; "PTY startup was cancelled" when
    /// `cancel` fired.
    ///
    /// # Cancel safety
    /// Not cancel safe: dropping the future mid-startup leaves cleanup to `Drop` (which kills
    /// the session's processes synchronously). Use `cancel` instead.
    pub async fn spawn(
        spec: PtySpawnSpec,
        config: PtySessionConfig,
        cancel: CancellationToken,
    ) -> Result<Arc<PtySession>, TerminalError> {
        if cancel.is_cancelled() {
            return Err(cancelled());
        }
        enable_child_subreaper();
        let runtime = tokio::runtime::Handle::current();
        let label = spec.session_id.as_str().to_owned();
        let mut command = spec.command.clone();
        command.rows = config.rows;
        command.cols = config.cols;
        // A per-session random tag in the environment lets teardown find daemons that left
        // both the process tree and the session (`setsid cmd &`) even without a cgroup.
        let tag = PromptNonce::generate()?.as_str().to_owned();
        command.env.retain(|(k, _)| k != ENVIRON_TAG);
        command.env.push((ENVIRON_TAG.into(), tag.clone().into()));
        let spawn_label = label.clone();
        let (pty, streams) =
            tokio::task::spawn_blocking(move || Pty::spawn(&command, &spawn_label))
                .await
                .map_err(|e| spawn_error(format!("PTY spawn task failed: {e}")))?
                .map_err(|e| {
                    spawn_error(format!(
                        "cannot start {}: {e}",
                        spec.command.program.display()
                    ))
                })?;
        let shell_pid = i32::try_from(pty.pid()).unwrap_or(0);
        // Until our waiter reaps it, the shell's pid cannot be reused, so its identity read
        // now is exact.
        let Some(shell) = ProcessIdentity::of(shell_pid) else {
            if let Some(pid) = rustix::process::Pid::from_raw(shell_pid) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
            return Err(spawn_error(format!(
                "cannot read /proc/{shell_pid}/stat of the PTY shell"
            )));
        };
        let cgroup = SessionCgroup::create(&label);
        if let Some(cg) = &cgroup
            && let Err(err) = cg.add_pid(shell_pid)
        {
            tracing::debug!(%err, "cannot move the shell into its cgroup");
        }
        let mut tracker = TreeTracker::new(shell).with_environ_tag(ENVIRON_TAG, &tag);
        if let Some(cg) = &cgroup {
            tracker.attach_cgroup(cg);
        }
        let span =
            tracing::info_span!("pty_session", session_id = %spec.session_id, pid = shell_pid);
        let screen = Screen::new(
            ScreenConfig {
                rows: config.rows,
                cols: config.cols,
                scrollback_lines: config.scrollback_lines,
                scrollback_max_bytes: config.scrollback_max_bytes,
            },
            spec.nonce.clone(),
        );
        let (activity, _) = watch::channel(0u64);
        let io = Arc::new(Io {
            id: spec.session_id.clone(),
            pty,
            shell_pid,
            shell_pgid: shell_pid,
            max_read_bytes: config.max_read_bytes,
            state: Mutex::new(State {
                screen,
                last_output_at: Instant::now(),
                output_ended: false,
                stream_error: None,
                exit: None,
                closing: false,
                active: None,
                redraw_pending: None,
                resume_from: None,
                bytes_read: 0,
                bytes_at_resume: 0,
                done_at_resume: 0,
            }),
            activity,
            reader_busy: AtomicBool::new(false),
            reply_tasks: AtomicUsize::new(0),
        });
        let inner = Arc::new(Inner {
            id: spec.session_id.clone(),
            config,
            io: Arc::clone(&io),
            shell,
            tracker: Mutex::new(Some(tracker)),
            cgroup,
            close_lock: tokio::sync::Mutex::new(None),
            closed: AtomicBool::new(false),
            motd: Mutex::new(String::new()),
            runtime: runtime.clone(),
            span: span.clone(),
        });
        let session = Arc::new(PtySession { inner });
        let reader_io = Arc::clone(&io);
        let reader_runtime = runtime.clone();
        let reader_span = span.clone();
        let mut emulator_failed = false;
        Pty::start_reader(streams, &label, move |event| {
            let _enter = reader_span.enter();
            match event {
                ReadEvent::Output(bytes) => {
                    if emulator_failed {
                        return;
                    }
                    reader_io.reader_busy.store(true, Ordering::SeqCst);
                    let fed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        reader_io.on_output(bytes, &reader_runtime);
                    }));
                    reader_io.reader_busy.store(false, Ordering::SeqCst);
                    if fed.is_err() {
                        // Keep draining (so the program never blocks on a full terminal) but
                        // stop interpreting; the active send fails as a transport error.
                        emulator_failed = true;
                        tracing::error!("terminal emulator panicked; session output is lost");
                        reader_io.lock().stream_error =
                            Some("the terminal emulator failed on this output".to_owned());
                        reader_io.bump();
                    }
                }
                ReadEvent::End(err) => {
                    {
                        let mut st = reader_io.lock();
                        st.output_ended = true;
                        if let Some(e) = err {
                            st.stream_error = Some(e.to_string());
                        }
                    }
                    tracing::debug!("pty output ended");
                    reader_io.bump();
                }
            }
        })
        .map_err(|e| spawn_error(format!("cannot start the PTY reader thread: {e}")))?;
        let waiter_io = Arc::clone(&io);
        let waiter_span = span.clone();
        Pty::start_waiter(pty_pid(&io), &label, move |info| {
            let _enter = waiter_span.enter();
            tracing::debug!(code = ?info.code, signal = ?info.signal, "shell exited");
            waiter_io.lock().exit = Some((info, Instant::now()));
            waiter_io.bump();
        })
        .map_err(|e| spawn_error(format!("cannot start the PTY waiter thread: {e}")))?;

        let startup = async {
            let op = session.inner.begin_send(
                SendRequest {
                    text: String::new(),
                    submit: false,
                },
                true,
            )?;
            op.done().await
        };
        let outcome = tokio::select! {
            r = startup => r,
            () = cancel.cancelled() => Err(cancelled()),
        };
        let failure = match outcome {
            Ok(result) => match result.wait_reason {
                WaitReason::SessionExit => Some(spawn_error("PTY shell exited during startup")),
                WaitReason::Timeout => Some(spawn_error(
                    "PTY shell did not reach readiness before startup timeout",
                )),
                _ => {
                    *session.inner.motd.lock().unwrap_or_else(|e| e.into_inner()) = result.viewport;
                    None
                }
            },
            Err(e) => Some(e),
        };
        if let Some(error) = failure {
            if let Err(close_error) = session.inner.close_now("PTY startup failed").await {
                tracing::warn!(%close_error, "cleanup after failed startup failed");
                return Err(TerminalError::new(
                    TerminalErrorCode::Spawn,
                    format!("{error}; cleanup also failed: {close_error}"),
                ));
            }
            return Err(error);
        }
        Ok(session)
    }

    /// The session id.
    pub fn session_id(&self) -> &SessionId {
        &self.inner.id
    }

    /// Path of the terminal's slave side (e.g. `/dev/pts/3`).
    pub fn tty_path(&self) -> Option<&std::path::Path> {
        self.inner.io.pty.tty_path()
    }

    /// The shell's process identity.
    pub fn shell(&self) -> ProcessIdentity {
        self.inner.shell
    }

    /// Every still-alive process this session started that the tracker has captured (the
    /// shell excluded), after a fresh scan. For diagnostics and tests.
    pub fn captured_processes(&self) -> Vec<ProcessIdentity> {
        let mut guard = self.inner.tracker.lock().unwrap_or_else(|e| e.into_inner());
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
        self.inner.io.lock().screen.transcript()
    }
}

/// Reaps zombies adopted by this host (child subreaper) that were never captured, e.g.
/// `(sleep 0.1 &)` or a `setsid` intermediate of a double fork finishing between two scans.
/// Touched: zombies in the session led by `shell_pid`, and zombie session leaders (what
/// `setsid` makes) — never a PTY top-level process whose waiter still owns its status. Other
/// children an embedding host spawned and waits on are not session leaders, so they keep their
/// exit status.
fn reap_session_orphans(shell_pid: i32) {
    let _ = crate::process::reap_adopted_zombies(&|pid| {
        crate::pty::is_live_shell(pid)
            || crate::process::stat(pid).is_none_or(|s| s.session != shell_pid && s.session != pid)
    });
}

fn pty_pid(io: &Io) -> u32 {
    io.pty.pid()
}

fn spawn_error(message: impl Into<String>) -> TerminalError {
    TerminalError::new(TerminalErrorCode::Spawn, message)
}

fn cancelled() -> TerminalError {
    spawn_error("PTY startup was cancelled")
}

impl BackendSession for PtySession {
    fn motd(&self) -> String {
        self.inner
            .motd
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn pid(&self) -> Option<u32> {
        u32::try_from(self.inner.io.shell_pid).ok()
    }

    fn status(&self) -> SessionStatus {
        Io::status(&self.inner.io.lock())
    }

    fn start_send(&self, request: SendRequest) -> Result<SendOperation, TerminalError> {
        let op = self.inner.begin_send(request, false)?;
        Ok(SendOperation::new(op))
    }

    fn read(&self, request: ReadRequest) -> Result<ReadResult, TerminalError> {
        self.inner.io.lock().screen.page(
            request.offset,
            request.count,
            self.inner.config.max_read_bytes,
        )
    }

    fn signal(&self, signal: TerminalSignal) -> Result<SignalResult, TerminalError> {
        {
            let st = self.inner.io.lock();
            if st.closing {
                return Err(TerminalError::closing(&self.inner.id));
            }
            if st.exit.is_some() {
                return Err(TerminalError::exited(&self.inner.id));
            }
        }
        let io = &self.inner.io;
        let idle_at_prompt = signal == TerminalSignal::Sigint
            && io.pty.foreground_pgid() == Some(io.shell_pgid)
            && {
                let st = io.lock();
                st.screen.prompt_state() == PromptState::Prompt && st.active.is_none()
            };
        if idle_at_prompt {
            return Ok(SignalResult {
                target_pgid: io.shell_pgid,
                delivered: false,
                shell_targeted: true,
            });
        }
        let target_pgid = deliver(io, signal)?;
        Ok(SignalResult {
            target_pgid,
            delivered: true,
            shell_targeted: target_pgid == io.shell_pgid,
        })
    }

    fn close(&self, reason: String) -> BoxFuture<'_, Result<CloseReport, TerminalError>> {
        Box::pin(async move {
            let inner = Arc::clone(&self.inner);
            inner
                .close_now(&reason)
                .instrument(inner.span.clone())
                .await
        })
    }
}

impl std::fmt::Debug for Io {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Io")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}
