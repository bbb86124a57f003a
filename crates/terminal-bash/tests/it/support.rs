//! Shared fixtures: open a real bash session, send, close and prove nothing is left.

use std::ffi::OsString;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use std::path::{Path, PathBuf};

use dsh_sandbox::{
    Bubblewrap, PolicyDefaults, ResourceLimits, SandboxMode, SandboxPolicies, SessionLimits,
};
use dsh_terminal_bash::{BashBackend, BashConfig, Sandboxing};
use dsh_terminal_core::process::ProcessIdentity;
use dsh_terminal_core::{
    BackendSession, BackendSpawnSpec, PtySession, SendOperation, SendRequest, SendResult,
    SessionId, SilenceRule, TerminalError,
};

/// Upper bound of one test (generous: the machine is shared and has two cores).
pub(crate) const TEST_TIMEOUT: Duration = Duration::from_secs(120);

/// Runs `f` under [`TEST_TIMEOUT`].
pub(crate) async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(TEST_TIMEOUT, f)
        .await
        .unwrap_or_else(|_| panic!("test exceeded {TEST_TIMEOUT:?}"))
}

/// Waits until `cond` holds, checking every few milliseconds, for at most 30 s (for OS facts
/// that have no event to wait on, such as a killed process disappearing).
pub(crate) async fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !cond() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting until {what}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Whether `program` is on `PATH` (tests of optional programs skip without it).
pub(crate) fn installed(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A session id unique across tests and test processes.
pub(crate) fn unique_id() -> SessionId {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    SessionId::new(format!(
        "pty-t{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    ))
}

/// Pids of live (non-zombie) processes whose environment carries this session's id.
pub(crate) fn session_pids(id: &SessionId) -> Vec<i32> {
    tagged_pids(&format!("DSH_PTY_SESSION_ID={}", id.as_str()))
}

/// Pids of live (non-zombie) processes whose environment has the entry `needle`
/// (`NAME=VALUE`).
pub(crate) fn tagged_pids(needle: &str) -> Vec<i32> {
    let mut pids = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return pids;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let tagged = environ
            .split(|&b| b == 0)
            .any(|var| var == needle.as_bytes());
        if tagged && ProcessIdentity::of(pid).is_some_and(|p| p.is_alive()) {
            pids.push(pid);
        }
    }
    pids
}

/// An open session under test.
pub(crate) struct Shell {
    pub(crate) session: Arc<PtySession>,
    pub(crate) id: SessionId,
}

impl Shell {
    /// Opens a session with `config`.
    pub(crate) async fn open(config: BashConfig) -> Shell {
        Self::try_open(config)
            .await
            .unwrap_or_else(|e| panic!("open failed: {e}"))
    }

    /// Opens a session with `config`, returning the error.
    pub(crate) async fn try_open(config: BashConfig) -> Result<Shell, TerminalError> {
        Self::try_open_on(&BashBackend::new(config)).await
    }

    /// Opens a session with `config` as if the host's environment were `host_env`.
    pub(crate) async fn open_with_host_env(
        config: BashConfig,
        host_env: Vec<(OsString, OsString)>,
    ) -> Shell {
        Self::open_on(&BashBackend::new(config).with_host_env(host_env)).await
    }

    /// Opens a session on `backend`.
    pub(crate) async fn open_on(backend: &BashBackend) -> Shell {
        Self::try_open_on(backend)
            .await
            .unwrap_or_else(|e| panic!("open failed: {e}"))
    }

    /// Opens a session on `backend`, returning the error.
    pub(crate) async fn try_open_on(backend: &BashBackend) -> Result<Shell, TerminalError> {
        Self::try_open_in(backend, None).await
    }

    /// Opens a session on `backend` asking for working directory `cwd`, returning the error.
    pub(crate) async fn try_open_in(
        backend: &BashBackend,
        cwd: Option<std::path::PathBuf>,
    ) -> Result<Shell, TerminalError> {
        let id = unique_id();
        let session = backend
            .spawn_session(BackendSpawnSpec {
                cancel: tokio_util::sync::CancellationToken::new(),
                session_id: id.clone(),
                owner_id: "agent-test".to_owned(),
                name: None,
                cwd,
            })
            .await?;
        Ok(Shell { session, id })
    }

    /// Sends `text` + Enter and waits for settlement.
    pub(crate) async fn send(&self, text: &str) -> SendResult {
        self.send_raw(text, true).await
    }

    /// Sends `text` (+ Enter when `submit`) and waits for settlement.
    pub(crate) async fn send_raw(&self, text: &str, submit: bool) -> SendResult {
        self.try_send(text, submit)
            .await
            .unwrap_or_else(|e| panic!("send {text:?} failed: {e}"))
    }

    /// Opens a default session and starts node's REPL in it, waiting at its prompt (the
    /// caller checks `installed("node")` first).
    pub(crate) async fn open_node_repl() -> Shell {
        let sh = Self::open(config()).await;
        let r = sh.send("node").await;
        assert_eq!(
            r.wait_reason,
            dsh_terminal_core::WaitReason::StdinRead,
            "{r:?}"
        );
        sh
    }

    /// Starts sending `text` + Enter with its own deadline of `timeout_ms`, without waiting
    /// for settlement (to act on the session while the send runs).
    pub(crate) fn start_within(&self, text: &str, timeout_ms: u64) -> SendOperation {
        self.session
            .start_send(SendRequest {
                text: text.to_owned(),
                submit: true,
                timeout: Some(std::time::Duration::from_millis(timeout_ms)),
            })
            .unwrap_or_else(|e| panic!("send {text:?} failed: {e}"))
    }

    /// Sends `text` (+ Enter when `submit`) with its own deadline of `timeout_ms` and waits
    /// for settlement.
    pub(crate) async fn send_within(
        &self,
        text: &str,
        submit: bool,
        timeout_ms: u64,
    ) -> SendResult {
        let op = self
            .session
            .start_send(SendRequest {
                text: text.to_owned(),
                submit,
                timeout: Some(std::time::Duration::from_millis(timeout_ms)),
            })
            .unwrap_or_else(|e| panic!("send {text:?} failed: {e}"));
        op.done()
            .await
            .unwrap_or_else(|e| panic!("send {text:?} failed: {e}"))
    }

    /// Sends and returns the error, if any.
    pub(crate) async fn try_send(
        &self,
        text: &str,
        submit: bool,
    ) -> Result<SendResult, TerminalError> {
        let op = self.session.start_send(SendRequest {
            text: text.to_owned(),
            submit,
            timeout: None,
        })?;
        op.done().await
    }

    /// Closes the session and asserts that no process of it remains (and that close stopped
    /// no more than a plain test session can have started).
    pub(crate) async fn close(self) {
        self.close_stopping_at_most(64).await;
    }

    /// [`Shell::close`] for a session whose processes multiply while they are stopped (a fork
    /// bomb re-forks between kills): `max_stopped` bounds the count close reports.
    pub(crate) async fn close_stopping_at_most(self, max_stopped: usize) {
        let shell = self.session.shell();
        let captured = self.session.captured_processes();
        let report = self
            .session
            .close("test done".to_owned())
            .await
            .unwrap_or_else(|e| panic!("close failed: {e}"));
        assert!(report.processes_stopped <= max_stopped, "{report:?}");
        assert!(!shell.is_alive(), "shell {} survived close", shell.pid);
        for p in captured {
            assert!(!p.is_alive(), "captured process {} survived close", p.pid);
        }
        let left = session_pids(&self.id);
        assert!(left.is_empty(), "processes of {} left: {left:?}", self.id);
    }
}

/// A scratch directory removed on drop.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(tag: &str) -> Self {
        let path = std::env::temp_dir().join(format!("dsh-{tag}-{}", unique_id()));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A backend that confines every session with bubblewrap in `mode`, with `workspace` as the
/// workspace root, and caps each session with `limits` when given.
pub(crate) fn sandboxed(
    config: BashConfig,
    mode: SandboxMode,
    workspace: &Path,
    allow_network: bool,
    limits: Option<SessionLimits>,
) -> BashBackend {
    let policies = SandboxPolicies::new(PolicyDefaults {
        mode,
        workspace_root: workspace.to_path_buf(),
        allow_network,
    });
    BashBackend::with_sandboxing(
        config,
        Sandboxing {
            policies: Some(Arc::new(policies)),
            sandbox: Some(Arc::new(Bubblewrap::default())),
            limits: limits.map(|l| Arc::new(ResourceLimits::new(l))),
        },
    )
}

/// A config with the seed's defaults except a shorter idle window.
pub(crate) fn config() -> BashConfig {
    BashConfig::default()
}

/// A config for tests that expect silence or the deadline to settle: short windows, and
/// silence alone settles (the seed's rule), whatever the foreground job does.
pub(crate) fn quick_config() -> BashConfig {
    BashConfig {
        silence_rule: SilenceRule::PureSilence,
        idle_silence_ms: 800,
        handoff_grace_ms: 100,
        timeout_ms: 5000,
        ..BashConfig::default()
    }
}

/// The real services as a host composes them (terminals, the sandbox with `sandbox`, the
/// shell backend), with a new session opened for `owner`: the context, the service, the
/// owner and the session's id.
pub(crate) async fn composed(
    sandbox: dsh_sandbox::SandboxConfig,
    owner: &str,
) -> (
    dsh_context::Context,
    Arc<dsh_terminal_core::Terminals>,
    dsh_context::Agent,
    SessionId,
) {
    let ctx = dsh_context::Context::builder()
        .with(dsh_terminal_core::TerminalsPlugin)
        .with(dsh_sandbox::SandboxPlugin { config: sandbox })
        .with(dsh_terminal_bash::TerminalBashPlugin { config: config() })
        .apply()
        .unwrap();
    let terminals = ctx.require::<dsh_terminal_core::Terminals>().unwrap();
    let agent = dsh_context::Agent::new(&ctx, owner);
    let opened = terminals
        .spawn(
            &agent,
            dsh_terminal_core::SpawnRequest {
                backend_type: "shell".into(),
                name: None,
                cwd: None,
            },
        )
        .await
        .unwrap();
    (ctx, terminals, agent, opened.snapshot.session_id)
}

/// Every earlier command's exit status in order (see `EarlierExits::statuses`); fails the test
/// when a failure's position was not kept.
pub(crate) fn earlier(r: &dsh_terminal_core::SendResult) -> Vec<i32> {
    r.earlier_exits
        .statuses(usize::MAX)
        .unwrap_or_else(|| panic!("earlier statuses not all known: {r:?}"))
}

/// A page of the newest `count` lines of `sh`'s scrollback.
pub(crate) fn newest_lines(sh: &Shell, count: u64) -> dsh_terminal_core::ReadResult {
    use dsh_terminal_core::BackendSession as _;
    sh.session
        .read(dsh_terminal_core::ReadRequest {
            offset: Some(0),
            count: Some(count),
            from_line: None,
        })
        .unwrap_or_else(|e| panic!("read: {e}"))
}
