//! [`BashBackend`]: the `shell` backend (the seed's §3.2, §3.6).

use std::ffi::OsString;
use std::sync::Arc;

use dsh_terminal_core::PtyCommand;
use dsh_terminal_core::{
    BackendSession, BackendSpawnSpec, PromptNonce, PtySession, PtySpawnSpec, TerminalBackend,
    TerminalError, TerminalErrorCode,
};

use crate::capped::CappedSession;
use crate::config::BashConfig;
use crate::confine::{Sandboxing, WatchedLimits};
use crate::env::{InstalledLocales, shell_env};
use crate::rc::RcFile;
use crate::shell_check::{NOT_BASH, NOT_EXECUTABLE, is_executable_file, runs_bash};

/// Starts bash sessions: bash reads an rc this backend owns (prompt marks with a per-session
/// nonce), runs with the environment of [`shell_env`], on the generic [`PtySession`] engine.
#[derive(Debug, Clone)]
pub struct BashBackend {
    config: BashConfig,
    sandboxing: Sandboxing,
    host_env: Option<Vec<(OsString, OsString)>>,
}

impl BashBackend {
    /// A backend with `config` (validate it first with [`BashConfig::validate`]) that runs
    /// every session with full access. Sessions draw on this process's environment as it is
    /// when each one starts.
    pub fn new(config: BashConfig) -> Self {
        Self::with_sandboxing(config, Sandboxing::default())
    }

    /// A backend that applies `sandboxing` (policy, confinement, limits) at every launch.
    pub fn with_sandboxing(config: BashConfig, sandboxing: Sandboxing) -> Self {
        Self {
            config,
            sandboxing,
            host_env: None,
        }
    }

    /// Uses `host_env` instead of this process's environment as the host environment that
    /// [`shell_env`] filters (for hosts that keep their own environment apart, and tests).
    #[must_use]
    pub fn with_host_env(mut self, host_env: Vec<(OsString, OsString)>) -> Self {
        self.host_env = Some(host_env);
        self
    }

    fn host_env(&self) -> Vec<(OsString, OsString)> {
        self.host_env
            .clone()
            .unwrap_or_else(|| std::env::vars_os().collect())
    }

    /// The configuration.
    pub fn config(&self) -> &BashConfig {
        &self.config
    }

    /// Starts one session and waits for its first prompt; returns the concrete session (the
    /// [`TerminalBackend`] impl returns it as a trait object).
    ///
    /// # Errors
    /// `Spawn`: the rc file cannot be written, the working directory does not exist or is not a
    /// directory, the owner's sandbox mode is confined but no sandbox provider exists, the
    /// confinement or the
    /// resource limits cannot be set up, the shell is not bash, bash cannot start, exits during startup, does not
    /// reach its prompt before `timeout_ms`, or `spec.cancel` fired. Everything started is
    /// cleaned up first.
    ///
    /// # Cancel safety
    /// Not cancel safe (see [`PtySession::spawn`]); cancel through `spec.cancel`.
    pub async fn spawn_session(
        &self,
        spec: BackendSpawnSpec,
    ) -> Result<Arc<PtySession>, TerminalError> {
        self.spawn_parts(spec).await.map(|(session, _)| session)
    }

    /// [`spawn_session`](Self::spawn_session), with the session's resource caps when it has
    /// some.
    async fn spawn_parts(
        &self,
        spec: BackendSpawnSpec,
    ) -> Result<(Arc<PtySession>, Option<Arc<WatchedLimits>>), TerminalError> {
        let shell = &self.config.shell_path;
        if !is_executable_file(shell) {
            return Err(spawn_error(format!(
                "terminal-bash: the shell {} {NOT_EXECUTABLE}, and nothing you can do from a session changes that; ask the user to fix the server's shell setting (dsh-mcp: --shell <path of bash>)",
                shell.display()
            )));
        }
        let nonce = PromptNonce::generate()?;
        let rc = RcFile::create(&nonce, self.config.rows, self.config.cols).map_err(|e| {
            spawn_error(format!(
                "terminal-bash: cannot write the shell rc file ({e}), and nothing you can do from a session changes that; ask the user to give the server a writable temp directory (TMPDIR, or /tmp)"
            ))
        })?;
        let mut argv = vec![self.config.shell_path.clone().into_os_string()];
        argv.extend(self.config.effective_args(rc.path()));
        let default_cwd = self
            .config
            .default_cwd
            .clone()
            .or_else(|| std::env::current_dir().ok());
        let launch = self.sandboxing.launch(
            argv,
            &spec.owner_id,
            spec.session_id.as_str(),
            spec.cwd.clone(),
            default_cwd,
            &[rc.path()],
        )?;
        if let Some(dir) = &launch.cwd
            && !dir.is_dir()
        {
            let what = if dir.exists() {
                "is not a directory"
            } else {
                "does not exist"
            };
            return Err(spawn_error(format!(
                "working directory {} {what}; pass an existing directory as cwd (absolute, or relative to where sessions start)",
                dir.display()
            )));
        }
        let mut argv = launch.argv.into_iter();
        let program = argv.next().map(Into::into).unwrap_or_default();
        let command = PtyCommand {
            program,
            args: argv.collect(),
            env: shell_env(
                self.host_env(),
                &self.config.env,
                InstalledLocales::of_host(),
                &spec.owner_id,
                spec.session_id.as_str(),
            ),
            cwd: launch.cwd,
            rows: self.config.rows,
            cols: self.config.cols,
        };
        let session = PtySession::spawn(
            PtySpawnSpec {
                session_id: spec.session_id.clone(),
                command,
                nonce: Some(nonce),
                repair_keys: Some(crate::rc::REPAIR_KEYS.to_vec()),
                clear_line_keys: Some(crate::rc::CLEAR_LINE_KEYS.to_vec()),
                editor_reset_keys: Some(crate::rc::EDITOR_RESET_KEYS.to_vec()),
                keep_alive: launch
                    .limits
                    .clone()
                    .map(|l| l as Arc<dyn std::any::Any + Send + Sync>),
                cgroup: launch.cgroup,
                member_cgroup: launch.member_cgroup,
            },
            self.config.session_config(),
            spec.cancel.clone(),
        )
        .await;
        // Bash has read the rc once its first prompt appeared (or it is gone): remove it now.
        drop(rc);
        match session {
            Ok(session) => {
                // A shell that reached its prompt though its caps stopped something while it
                // started (a fork refused: `bash: fork: retry`, its setup half done) is no
                // usable session: closed, and the open fails naming the cap.
                let started = spawn_error("PTY shell started, but not whole".to_owned());
                if let Some(limits) = &launch.limits
                    && let Some(error) = crate::capped::startup_cap_error(&started, limits)
                {
                    if let Err(close_error) = session.close("PTY startup failed".to_owned()).await {
                        tracing::warn!(%close_error, "cleanup after a capped startup failed");
                    }
                    return Err(error);
                }
                Ok((session, launch.limits))
            }
            Err(err)
                if err.code() == TerminalErrorCode::Spawn
                    && let Some(limits) = &launch.limits
                    && let Some(capped) = crate::capped::startup_cap_error(&err, limits) =>
            {
                Err(capped)
            }
            Err(err) if err.code() == TerminalErrorCode::Spawn && !spec.cancel.is_cancelled() => {
                // A shell that is not bash (`--shell /bin/sh`: dash) rejects bash's options and
                // exits at once; name that instead of its own complaint. (Not after a cancel:
                // the start was stopped, and the check would run the shell once more.)
                let shell = shell.clone();
                let bash = tokio::task::spawn_blocking(move || runs_bash(&shell))
                    .await
                    .unwrap_or(true);
                Err(if bash {
                    err
                } else {
                    spawn_error(format!(
                        "terminal-bash: the shell {} {NOT_BASH}, and nothing you can do from a session changes that; ask the user to fix the server's shell setting (dsh-mcp: --shell <path of bash>)",
                        self.config.shell_path.display()
                    ))
                })
            }
            Err(err) => Err(err),
        }
    }
}

fn spawn_error(message: String) -> TerminalError {
    TerminalError::new(TerminalErrorCode::Spawn, message)
}

#[async_trait::async_trait]
impl TerminalBackend for BashBackend {
    fn backend_type(&self) -> &str {
        &self.config.backend_type
    }

    async fn spawn(
        &self,
        spec: BackendSpawnSpec,
    ) -> Result<Arc<dyn BackendSession>, TerminalError> {
        match self.spawn_parts(spec).await? {
            (session, Some(limits)) => Ok(Arc::new(CappedSession::new(session, limits))),
            (session, None) => Ok(session as Arc<dyn BackendSession>),
        }
    }
}
