//! Spawn: child-subreaper mode, the PTY ([`crate::pty`]), the session's cgroup (before any
//! input is written), the process-tree tracker, the reader / waiter threads and the query
//! replier, then startup: an internal empty send that settles on the first prompt; its
//! viewport is the MOTD.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

use crate::error::{TerminalError, TerminalErrorCode};
use crate::process::{
    ProcessIdentity, ProcessScope, SessionCgroup, TreeTracker, enable_child_subreaper,
};
use crate::pty::Pty;
use crate::screen::{PromptNonce, Screen, ScreenConfig};
use crate::types::{SendRequest, WaitReason};

use super::send::SendOp;
use super::shared::{Reader, Shared, on_shell_exit};
use super::{ENVIRON_TAG, Inner, PtySession, PtySessionConfig, PtySpawnSpec, replies};

impl PtySession {
    /// Spawns the program on a PTY and waits for its first prompt (startup, the seed's
    /// §3.6). Everything started is cleaned up on failure.
    ///
    /// # Errors
    /// `Spawn`: the PTY or program could not start; "PTY shell exited during startup" (with
    /// `; its last output: "…"`, the newest 300 bytes of what it printed,
    /// when it printed anything: a launcher's own error, such as bubblewrap's); "PTY
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
        // both the process tree and the session (`setsid cmd &`) even without a cgroup. It
        // starts with the host's tag, so the host-death watchdog finds every session's.
        let tag = format!(
            "{}-{}",
            crate::process::host_tag(),
            PromptNonce::generate()?.as_str()
        );
        command.env.retain(|(k, _)| k != ENVIRON_TAG);
        command.env.push((ENVIRON_TAG.into(), tag.clone().into()));
        let spawn_label = label.clone();
        let (pty, streams) =
            super::spawner::on_spawner_thread(move || Pty::spawn(&command, &spawn_label))
                .await
                .map_err(|_| spawn_error("the PTY spawner thread is gone"))?
                .map_err(|e| {
                    spawn_error(format!(
                        "cannot start {}: {e}",
                        spec.command.program.display()
                    ))
                })?;
        let shell_pid = i32::try_from(pty.pid()).unwrap_or(0);
        // The PTY's first process leads the session's POSIX session.
        crate::process::watch_session(shell_pid);
        // `/proc` reads and cgroup writes block: they run off the async workers.
        let cgroup_label = label.clone();
        let given = spec.cgroup.clone();
        // Every session process is born in a cgroup the launcher joined before the shell ran.
        let scope = spec
            .cgroup
            .as_deref()
            .or(spec.member_cgroup.as_deref())
            .map_or_else(ProcessScope::everywhere, ProcessScope::cgroup_members);
        let tracker_scope = scope.clone();
        let placed = tokio::task::spawn_blocking(move || {
            place_shell(shell_pid, &cgroup_label, &tag, given, tracker_scope)
        })
        .await
        .map_err(|e| spawn_error(format!("PTY setup task failed: {e}")))?;
        let (shell, cgroup, tracker) = placed?;
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
        let (reply_tx, reply_rx) = replies::channel();
        let shared = Arc::new(Shared::new(
            spec.session_id.clone(),
            pty,
            config.max_read_bytes,
            screen,
            reply_tx,
            scope,
        ));
        runtime.spawn(replies::run(Arc::downgrade(&shared), reply_rx));
        let inner = Arc::new(Inner {
            config,
            shared: Arc::clone(&shared),
            shell,
            tracker: Mutex::new(Some(tracker)),
            cgroup,
            close_lock: tokio::sync::Mutex::new(None),
            closed: AtomicBool::new(false),
            motd: Mutex::new(String::new()),
            runtime,
            span: span.clone(),
            _keep_alive: spec.keep_alive.clone(),
            repair_keys: spec.repair_keys.clone(),
            clear_line_keys: spec.clear_line_keys.clone(),
            editor_reset_keys: spec.editor_reset_keys.clone(),
        });
        let session = Arc::new(PtySession { inner });
        let mut reader = Reader::new(Arc::clone(&shared));
        let reader_span = span.clone();
        Pty::start_reader(streams, &label, move |event| {
            let _enter = reader_span.enter();
            reader.on_event(event);
        })
        .map_err(|e| spawn_error(format!("cannot start the PTY reader thread: {e}")))?;
        let waiter_shared = Arc::clone(&shared);
        let waiter_span = span;
        Pty::start_waiter(shared.pty.pid(), &label, move |info| {
            let _enter = waiter_span.enter();
            on_shell_exit(&waiter_shared, info);
        })
        .map_err(|e| spawn_error(format!("cannot start the PTY waiter thread: {e}")))?;

        let startup = async {
            let request = SendRequest {
                text: String::new(),
                submit: false,
                timeout: None,
            };
            let op = SendOp::start(&session.inner, request, true)?;
            crate::backend::OperationHandle::done(&*op).await
        };
        let outcome = tokio::select! {
            r = startup => r,
            () = cancel.cancelled() => Err(cancelled()),
        };
        let failure = match outcome {
            Ok(result) => match result.wait_reason {
                WaitReason::SessionExit => Some(exited_during_startup(&result.viewport)),
                WaitReason::Timeout => Some(spawn_error(
                    "PTY shell did not reach readiness before startup timeout",
                )),
                _ => {
                    *session.inner.motd.lock() = result.viewport;
                    None
                }
            },
            // The shell exited before the startup send could even start (a fast `-c` script
            // on a loaded machine): the same failure as exiting during startup, quoting what
            // it printed once the reader has taken all of it.
            Err(e) if e.code() == TerminalErrorCode::Exited => {
                session.inner.shared.output_end(OUTPUT_END_WAIT).await;
                Some(exited_during_startup(&session.transcript()))
            }
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
}

/// Longest a failed startup waits for the rest of the program's output once it exited.
const OUTPUT_END_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Most bytes of a program's output an "exited during startup" error quotes.
const STARTUP_OUTPUT_QUOTED_BYTES: usize = 300;

/// The error for a program that exited before its first prompt, quoting the newest part of
/// what it printed (`output`, the startup send's viewport), so its own reason shows.
fn exited_during_startup(output: &str) -> TerminalError {
    let output = output.trim();
    if output.is_empty() {
        return spawn_error("PTY shell exited during startup");
    }
    let tail = dsh_output_retention::tail_slice(output, STARTUP_OUTPUT_QUOTED_BYTES);
    let cut = if tail.len() < output.len() { "…" } else { "" };
    spawn_error(format!(
        "PTY shell exited during startup; its last output: {cut}{tail:?}"
    ))
}

fn spawn_error(message: impl Into<String>) -> TerminalError {
    TerminalError::new(TerminalErrorCode::Spawn, message)
}

fn cancelled() -> TerminalError {
    spawn_error("PTY startup was cancelled")
}

/// Reads the shell's identity, moves it into a cgroup of its own (when cgroup v2 is
/// writable; or into the launcher's, `given`) and starts the process-tree tracker:
/// blocking `/proc` and cgroup work.
fn place_shell(
    shell_pid: i32,
    label: &str,
    tag: &str,
    given: Option<std::path::PathBuf>,
    scope: ProcessScope,
) -> Result<(ProcessIdentity, Option<SessionCgroup>, TreeTracker), TerminalError> {
    // Until our waiter reaps it, the shell's pid cannot be reused, so its identity read now
    // is exact.
    let Some(shell) = ProcessIdentity::of(shell_pid) else {
        if let Some(pid) = rustix::process::Pid::from_raw(shell_pid) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
        return Err(spawn_error(format!(
            "cannot read /proc/{shell_pid}/stat of the PTY shell"
        )));
    };
    // A launcher's cgroup for the session (resource limits) is the session's; otherwise the
    // session gets one.
    let cgroup = match given {
        Some(path) => Some(SessionCgroup::adopt(path)),
        None => SessionCgroup::create(label),
    };
    if let Some(cg) = &cgroup
        && let Err(err) = cg.add_pid(shell_pid)
    {
        tracing::debug!(%err, "cannot move the shell into its cgroup");
    }
    let mut tracker = TreeTracker::new(shell)
        .with_environ_tag(ENVIRON_TAG, tag)
        .with_scope(scope);
    if let Some(cg) = &cgroup {
        tracker.attach_cgroup(cg);
    }
    Ok((shell, cgroup, tracker))
}
