//! Close: whole-session teardown ([`crate::process::terminate_session`]) that waits for the
//! waiter thread to reap the shell, and the synchronous kill of a session dropped unclosed.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::error::{TerminalError, TerminalErrorCode};
use crate::process::{TeardownConfig, TreeTracker, kill_session_now, terminate_session};
use crate::types::CloseReport;

use super::Inner;
use super::shared::Shared;

impl Inner {
    /// Closes the session once (later calls return the first report): stops every process,
    /// waits up to `dispose_grace` for the shell to be reaped, ends a pending send as
    /// `session_exit`, then releases the writer and the cgroup.
    ///
    /// # Errors
    /// `Cleanup` naming surviving pids (the session stays closable: retry).
    pub(super) async fn close_now(
        self: &Arc<Self>,
        reason: &str,
    ) -> Result<CloseReport, TerminalError> {
        let mut guard = self.close_lock.lock().await;
        if let Some(report) = guard.as_ref() {
            return Ok(report.clone());
        }
        tracing::debug!(%reason, "closing session");
        let _running = CloseRunning::start(&self.shared);
        let mut tracker = self
            .tracker
            .lock()
            .take()
            .unwrap_or_else(|| TreeTracker::new(self.shell));
        let teardown = TeardownConfig {
            grace: self.config.dispose_grace,
        };
        // The interactive shell when it runs under a launcher (its group's leader).
        let pgid = self.shared.shell_pgid();
        let launched = (pgid > 0 && pgid != self.shell.pid)
            .then(|| crate::process::ProcessIdentity::of(pgid))
            .flatten();
        let report = terminate_session(
            self.shell,
            launched,
            &mut tracker,
            self.cgroup.as_ref(),
            &teardown,
        )
        .await;
        *self.tracker.lock() = Some(tracker);
        // The waiter thread reaps the shell; give it the grace to report.
        let mut activity = self.shared.subscribe();
        let reap_deadline = tokio::time::Instant::now() + self.config.dispose_grace;
        while self.shared.lock().exit.is_none() {
            if tokio::time::timeout_at(reap_deadline, activity.changed())
                .await
                .is_err()
            {
                break;
            }
        }
        let active = self.shared.lock().active.clone();
        if let Some(op) = active {
            op.settle_on_close();
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
        self.shared.pty.close_writer();
        if let Some(cg) = &self.cgroup {
            cg.remove();
        }
        crate::process::unwatch_session(self.shell.pid);
        let shell_pid = self.shell.pid;
        let _ = tokio::task::spawn_blocking(move || reap_session_orphans(shell_pid)).await;
        let close_report = CloseReport {
            processes_stopped: report.stopped,
        };
        self.closed.store(true, Ordering::SeqCst);
        *guard = Some(close_report.clone());
        Ok(close_report)
    }

    /// Synchronous SIGKILL of the whole session unless it was closed (or killed) already.
    pub(super) fn kill_now(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        let _enter = self.span.enter();
        tracing::debug!("session dropped without close; killing its processes");
        let mut tracker = self
            .tracker
            .lock()
            .take()
            .unwrap_or_else(|| TreeTracker::new(self.shell));
        kill_session_now(self.shell, &mut tracker, self.cgroup.as_ref());
        *self.tracker.lock() = Some(tracker);
        self.shared.lock().closing = true;
        self.shared.pty.close_writer();
        if let Some(cg) = &self.cgroup {
            cg.remove();
        }
        crate::process::unwatch_session(self.shell.pid);
    }

    /// Rescans the process tree and reaps what finished (off the runtime).
    pub(super) async fn refresh_tracker(self: Arc<Self>) {
        let _ = tokio::task::spawn_blocking(move || {
            if let Some(t) = self.tracker.lock().as_mut() {
                t.refresh();
                t.reap_zombies();
            }
            reap_session_orphans(self.shell.pid);
        })
        .await;
    }
}

/// Marks a close in progress (`close_running` in the session state) for as long as
/// it lives, and the session as closing for good.
struct CloseRunning<'a>(&'a Shared);

impl<'a> CloseRunning<'a> {
    fn start(shared: &'a Shared) -> Self {
        let mut st = shared.lock();
        st.closing = true;
        st.close_running = true;
        Self(shared)
    }
}

impl Drop for CloseRunning<'_> {
    fn drop(&mut self) {
        self.0.lock().close_running = false;
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.kill_now();
    }
}

/// Reaps zombies adopted by this host (child subreaper) that were never captured, e.g.
/// `(sleep 0.1 &)` or a `setsid` intermediate of a double fork finishing between two scans.
/// Touched: zombies in the session led by `shell_pid`, and zombie session leaders (what
/// `setsid` makes) — never a PTY top-level process whose waiter still owns its status. Other
/// children an embedding host spawned and waits on are not session leaders, so they keep their
/// exit status.
fn reap_session_orphans(shell_pid: i32) {
    crate::pty::while_no_spawn_pending(|| {
        crate::process::reap_adopted_zombies(&|pid| {
            crate::pty::is_live_shell(pid)
                || crate::process::stat(pid)
                    .is_none_or(|s| s.session != shell_pid && s.session != pid)
        })
    });
}
