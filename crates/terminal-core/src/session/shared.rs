//! [`Shared`]: the session state the PTY reader thread, the waiter thread, the send driver and
//! the query replier all see, and the reader / waiter halves that feed it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, MutexGuard};
use tokio::sync::watch;

use crate::process::{ExitWatch, ProcessScope, is_group_waiting_on_tty_in};
use crate::pty::{ExitInfo, Pty, ReadEvent};
use crate::screen::{PromptState, Screen, ScreenEvent};
use crate::types::{SessionId, SessionStatus};

mod shell_group;
mod state;

pub(super) use state::{AwaitedReader, State, UnendedLine};

use super::replies::{QueryReply, ReplySender};

/// Most bytes fed to the screen under one hold of the state lock.
const FEED_PIECE_BYTES: usize = 8 * 1024;

/// While output keeps coming, how often at most plain text wakes the session's watchers (send
/// drivers, job waiters). Marks, replies, screen switches and the end of every burst
/// ([`ReadEvent::Quiet`]) wake them at once: a flood does not wake a driver per read.
const TEXT_WAKE_INTERVAL: Duration = Duration::from_millis(5);

/// What the reader, waiter, send driver and replier share.
pub(super) struct Shared {
    pub(super) id: SessionId,
    pub(super) pty: Pty,
    pub(super) shell_pid: i32,
    /// The shell's process group: the PTY's first process, or (when that process is a
    /// launcher such as a sandbox that starts the shell as its child) the group in the
    /// foreground when the shell's first prompt appeared. See [`Shared::adopt_shell_pgid`].
    shell_pgid: AtomicI32,
    /// The shell under a launcher (see [`Shared::adopt_shell_pgid`]): its own exit status,
    /// which the launcher's does not carry faithfully (a launcher turns a signal into an exit
    /// code).
    launched_shell: Mutex<Option<ExitWatch>>,
    /// The shell's command line at its first prompt: a different one later means it
    /// `exec`ed another program (`exec bash`, `exec sh`), which prints none of our marks.
    shell_image: Mutex<Option<Vec<u8>>>,
    pub(super) max_read_bytes: usize,
    /// Where the session's processes are looked for (its cgroup's members when it has one).
    pub(super) scope: ProcessScope,
    state: Mutex<State>,
    activity: watch::Sender<u64>,
    /// The reader thread holds a chunk it has not fed to the screen yet.
    reader_busy: AtomicBool,
    /// Query replies for the replier task (bounded: further queries go unanswered).
    replies: ReplySender,
    /// Query replies queued or being answered: the asking program waits for them.
    pending_replies: AtomicUsize,
    /// The session status, kept beside the state lock so status and list calls never wait
    /// behind the reader feeding a flood to the screen.
    status: Mutex<SessionStatus>,
    /// The foreground group's CPU time at the last probe.
    pub(super) cpu_watch: super::probe::CpuWatch,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Shared {
    pub(super) fn new(
        id: SessionId,
        pty: Pty,
        max_read_bytes: usize,
        screen: Screen,
        replies: ReplySender,
        scope: ProcessScope,
    ) -> Self {
        let shell_pid = i32::try_from(pty.pid()).unwrap_or(0);
        Self {
            id,
            pty,
            shell_pid,
            shell_pgid: AtomicI32::new(shell_pid),
            launched_shell: Mutex::new(None),
            shell_image: Mutex::new(None),
            max_read_bytes,
            scope,
            state: Mutex::new(State::new(screen)),
            activity: watch::channel(0u64).0,
            reader_busy: AtomicBool::new(false),
            replies,
            pending_replies: AtomicUsize::new(0),
            status: Mutex::new(SessionStatus::Running),
            cpu_watch: super::probe::CpuWatch::default(),
        }
    }

    /// The shell's process group (see the field's docs).
    pub(super) fn shell_pgid(&self) -> i32 {
        self.shell_pgid.load(Ordering::SeqCst)
    }

    /// Takes `pgid` as the shell's process group when it belongs to the PTY's session: the
    /// PTY's first process is a launcher (a sandbox) and the shell runs as its descendant in a
    /// process group of its own. Called at the first prompt of startup only.
    /// The group's leader (an interactive shell leads its own group) is watched from then on,
    /// so the session reports the shell's own exit status, not the launcher's.
    pub(super) fn adopt_shell_pgid(&self, pgid: i32) -> bool {
        let in_session = || crate::process::stat(pgid).is_some_and(|s| s.session == self.shell_pid);
        if !in_session() {
            return false;
        }
        tracing::debug!(
            pgid,
            launcher = self.shell_pid,
            "shell runs under a launcher"
        );
        self.shell_pgid.store(pgid, Ordering::SeqCst);
        // Checked again once the pidfd is open: it names the process that is in our session.
        let watch = ExitWatch::open(pgid).filter(|_| in_session());
        *self.launched_shell.lock() = watch;
        true
    }

    /// How the session's program ended: the launched shell's own status when it is known,
    /// else the PTY process's (`launcher`).
    fn program_exit(&self, launcher: ExitInfo) -> ExitInfo {
        let Some(own) = self
            .launched_shell
            .lock()
            .as_ref()
            .and_then(ExitWatch::status)
        else {
            return launcher;
        };
        ExitInfo {
            code: own.code,
            signal: own.signal,
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock()
    }

    /// Wakes everything waiting on session activity.
    pub(super) fn bump(&self) {
        self.activity.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// A receiver that changes on every output, end-of-output and exit event.
    pub(super) fn subscribe(&self) -> watch::Receiver<u64> {
        self.activity.subscribe()
    }

    /// Waits, at most `limit`, until the reader has taken the last of the PTY's output (after
    /// the program exited: everything it printed is then on the screen).
    pub(super) async fn output_end(&self, limit: std::time::Duration) {
        let mut activity = self.subscribe();
        let deadline = tokio::time::Instant::now() + limit;
        while !self.lock().output_ended {
            match tokio::time::timeout_at(deadline, activity.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) | Err(_) => return,
            }
        }
    }

    /// Waits, at most `limit`, until [`Shared::output_drained`]; returns whether it is.
    pub(super) async fn output_drained_within(&self, limit: std::time::Duration) -> bool {
        /// Longest pause between two checks: the reader's end of a chunk wakes no one.
        const RECHECK: std::time::Duration = std::time::Duration::from_millis(2);
        let mut activity = self.subscribe();
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            if self.output_drained() {
                return true;
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return false;
            }
            let _ = tokio::time::timeout_at(deadline.min(now + RECHECK), activity.changed()).await;
        }
    }

    /// The session status (no wait on the state lock).
    pub(super) fn status(&self) -> SessionStatus {
        self.status.lock().clone()
    }

    /// Publishes `st`'s status for [`Shared::status`]; call after changing exit or stream
    /// facts under the state lock.
    pub(super) fn publish_status(&self, st: &State) {
        *self.status.lock() = st.status();
    }

    /// Feeds one read chunk to the screen in pieces of at most [`FEED_PIECE_BYTES`], taking
    /// the state lock per piece: a send settling, a read or a signal never waits behind a
    /// whole chunk of a flood.
    /// Returns whether the chunk carried more than plain text (a mark, a reply, a screen
    /// switch): its watchers should hear of it at once.
    fn on_output(&self, bytes: &[u8]) -> bool {
        let mut replies = Vec::new();
        let mut urgent = false;
        for piece in bytes.chunks(FEED_PIECE_BYTES) {
            let mut st = self.lock();
            st.bytes_read = st.bytes_read.saturating_add(piece.len() as u64);
            let out = st.screen.feed(piece);
            if out.printed_text() || out.has_mark() {
                st.last_output_at = Instant::now();
            }
            if out.has_mark() {
                st.command_seen_at = st
                    .screen
                    .command_running()
                    .then(|| st.command_seen_at.unwrap_or_else(Instant::now));
            }
            urgent |= out.events.iter().any(|e| *e != ScreenEvent::Text);
            replies.extend(out.replies);
        }
        tracing::trace!(bytes = bytes.len(), "pty output");
        if !replies.is_empty() {
            let reply = QueryReply {
                bytes: replies.concat(),
                fg_at_query: self.pty.foreground_pgid(),
            };
            self.pending_replies.fetch_add(1, Ordering::SeqCst);
            if self.replies.try_send(reply).is_err() {
                self.reply_finished();
                tracing::debug!("dropping terminal query replies: too many unanswered queries");
            }
            urgent = true;
        }
        urgent
    }

    /// Whether a terminal query reply is queued or being answered.
    pub(super) fn reply_pending(&self) -> bool {
        self.pending_replies.load(Ordering::SeqCst) > 0
    }

    /// One queued reply was written (and landed) or dropped.
    pub(super) fn reply_finished(&self) {
        let _ = self
            .pending_replies
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
    }

    /// Whether everything the program wrote so far has been read and fed to the screen: no
    /// output is pending on the terminal (bytes still in the kernel's hand-over from the
    /// program's side included), and then the reader holds no chunk it announced (it
    /// announces a read before taking bytes off the terminal, so a chunk is always one or the
    /// other; checked in this order, a chunk taken between the two checks is still seen). A
    /// program seen blocked in `read` before this call has its last output on the screen when
    /// it returns `true`.
    pub(super) fn output_drained(&self) -> bool {
        !self.pty.output_pending() && !self.reader_busy.load(Ordering::SeqCst)
    }

    /// Whether the shell's prompt is the current screen state.
    pub(super) fn prompt_current(&self) -> bool {
        self.lock().screen.prompt_state() != PromptState::Busy
    }

    /// The session's live and zombie processes (a blocking `/proc` scan of its cgroup, or of
    /// every process without one).
    pub(super) fn processes(&self) -> Vec<crate::process::StatInfo> {
        self.scope.stats()
    }

    /// Whether process group `pgid` is blocked reading this terminal (`/proc`, off the runtime).
    pub(super) async fn waiting_on_tty(&self, pgid: i32) -> bool {
        let Some(tty) = self.pty.tty_path().map(std::path::Path::to_path_buf) else {
            return false;
        };
        let scope = self.scope.clone();
        tokio::task::spawn_blocking(move || is_group_waiting_on_tty_in(pgid, &tty, &scope))
            .await
            .unwrap_or(false)
    }
}

/// The reader thread's half: feeds output to the screen; survives an emulator panic by
/// draining without interpreting.
pub(super) struct Reader {
    shared: Arc<Shared>,
    emulator_failed: bool,
    /// When the watchers were last woken for output.
    woken_at: Instant,
    /// Output was fed that the watchers have not been woken for.
    unannounced: bool,
}

impl Reader {
    pub(super) fn new(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            emulator_failed: false,
            woken_at: Instant::now(),
            unannounced: false,
        }
    }

    fn wake(&mut self) {
        self.unannounced = false;
        self.woken_at = Instant::now();
        self.shared.bump();
    }

    pub(super) fn on_event(&mut self, event: ReadEvent<'_>) {
        let shared = Arc::clone(&self.shared);
        match event {
            ReadEvent::WillRead => shared.reader_busy.store(true, Ordering::SeqCst),
            ReadEvent::ReadNothing => shared.reader_busy.store(false, Ordering::SeqCst),
            ReadEvent::Quiet => {
                if self.unannounced {
                    self.wake();
                }
            }
            ReadEvent::Output(bytes) => {
                if self.emulator_failed {
                    shared.reader_busy.store(false, Ordering::SeqCst);
                    return;
                }
                shared.reader_busy.store(true, Ordering::SeqCst);
                let fed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    shared.on_output(bytes)
                }));
                shared.reader_busy.store(false, Ordering::SeqCst);
                match fed {
                    Ok(urgent) if urgent || self.woken_at.elapsed() >= TEXT_WAKE_INTERVAL => {
                        self.wake();
                    }
                    Ok(_) => self.unannounced = true,
                    Err(_) => {}
                }
                if fed.is_err() {
                    // Keep draining (so the program never blocks on a full terminal) but
                    // stop interpreting; the active send fails as a transport error.
                    self.emulator_failed = true;
                    tracing::error!("terminal emulator panicked; session output is lost");
                    {
                        let mut st = shared.lock();
                        st.stream_error =
                            Some("the terminal emulator failed on this output".to_owned());
                        shared.publish_status(&st);
                    }
                    shared.bump();
                }
            }
            ReadEvent::End(err) => {
                shared.reader_busy.store(false, Ordering::SeqCst);
                {
                    let mut st = shared.lock();
                    st.output_ended = true;
                    if let Some(e) = err {
                        st.stream_error = Some(e.to_string());
                    }
                    shared.publish_status(&st);
                }
                tracing::debug!("pty output ended");
                shared.bump();
            }
        }
    }
}

/// The waiter thread's half: records the shell's exit (the launched shell's own status when
/// a launcher started it; the launcher exits only after the shell it started).
pub(super) fn on_shell_exit(shared: &Shared, info: ExitInfo) {
    let info = shared.program_exit(info);
    tracing::debug!(code = ?info.code, signal = ?info.signal, "shell exited");
    {
        let mut st = shared.lock();
        st.exit = Some((info, Instant::now()));
        shared.publish_status(&st);
    }
    shared.bump();
}
