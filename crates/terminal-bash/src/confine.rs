//! [`Sandboxing`]: the sandbox services the backend applies at launch (the seed's launch
//! steps 2–4): resolve the owner's policy, wrap the shell's argv with the confinement when
//! the mode is not `danger-full-access`, then with the per-session resource limits.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dsh_sandbox::{ConfineRequest, LimitGuard, ResourceLimits, Sandbox, SandboxPolicies};
use dsh_terminal_core::{TerminalError, TerminalErrorCode, process};

/// The sandbox services found in the context; every one is optional. Without a policy
/// service every session runs with full access; with one, a confined mode requires a
/// [`Sandbox`] provider (else the open fails, nothing is started).
#[derive(Clone, Default)]
pub struct Sandboxing {
    /// Each owner's policy (mode, workspace root, network).
    pub policies: Option<Arc<SandboxPolicies>>,
    /// The confinement provider.
    pub sandbox: Option<Arc<dyn Sandbox>>,
    /// Per-session caps on processes and memory (applied in every mode).
    pub limits: Option<Arc<ResourceLimits>>,
}

impl std::fmt::Debug for Sandboxing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandboxing")
            .field("policies", &self.policies)
            .field("sandbox", &self.sandbox)
            .field("limits", &self.limits)
            .finish()
    }
}

/// What to start, after the sandbox was applied.
pub(crate) struct Launch {
    pub(crate) argv: Vec<OsString>,
    pub(crate) cwd: Option<PathBuf>,
    /// The session's limit cgroups; held by the session until it is gone.
    pub(crate) limits: Option<Arc<WatchedLimits>>,
    /// The session's cgroup v2 limit group, which the session must stay in.
    pub(crate) cgroup: Option<PathBuf>,
    /// A limit cgroup (v1 or v2) the session's first process joins before the shell runs.
    pub(crate) member_cgroup: Option<PathBuf>,
}

impl Sandboxing {
    /// Applies the owner's policy and the limits to `argv`. `cwd` is the requested working
    /// directory (else the workspace root when a policy service exists, else `default_cwd`);
    /// a relative one is taken from that default, where sessions start, as `cd` from a fresh
    /// session would take it;
    /// `startup_files` are files the shell reads at startup, which a confinement must let it
    /// see (and delete).
    pub(crate) fn launch(
        &self,
        argv: Vec<OsString>,
        owner_id: &str,
        label: &str,
        cwd: Option<PathBuf>,
        default_cwd: Option<PathBuf>,
        startup_files: &[&Path],
    ) -> Result<Launch, TerminalError> {
        let mut argv = argv;
        // `..` is resolved in the path itself (a workspace's `../` is outside it).
        let relative_to = |cwd: Option<PathBuf>, base: Option<&Path>| {
            cwd.map(|dir| match base {
                Some(base) if dir.is_relative() => lexically_normal(&base.join(dir)),
                _ => lexically_normal(&dir),
            })
        };
        let mut cwd = cwd;
        if let Some(policies) = &self.policies {
            let policy = policies.resolve(owner_id);
            cwd = relative_to(cwd, Some(&policy.workspace_root));
            // With no cwd, the host's default start directory when it lies in the workspace
            // (an operator's `--cwd` in it), else the workspace itself.
            if cwd.is_none() {
                let root = lexically_normal(&policy.workspace_root);
                cwd = Some(
                    relative_to(default_cwd, None)
                        .filter(|dir| dir.starts_with(&root))
                        .unwrap_or(root),
                );
            }
            if policy.mode.is_confined() {
                // The sandbox's /tmp is its own: only the workspace is shared there, so a
                // host directory under it is not there (`/tmp` itself is: the session starts
                // in its private one). Judged by where the directory really is (a symlink in
                // the workspace may lead out).
                let real = |path: &Path| std::fs::canonicalize(path).unwrap_or(path.to_path_buf());
                if let Some(dir) = &cwd
                    && let real_dir = real(dir)
                    && real_dir.starts_with("/tmp")
                    && real_dir != Path::new("/tmp")
                    && !real_dir.starts_with(real(&policy.workspace_root))
                {
                    return Err(spawn_error(format!(
                        "working directory {} is not visible in the sandbox: its /tmp is private, and only the workspace ({}) is shared there; pass a cwd inside the workspace, or a path relative to it",
                        dir.display(),
                        policy.workspace_root.display()
                    )));
                }
                let Some(sandbox) = &self.sandbox else {
                    return Err(spawn_error(format!(
                        "terminal-bash: cannot open a terminal session in sandbox mode \"{}\": the server was started without a sandbox provider, and nothing you can do from a session changes that; ask the user to have the operator add the sandbox plugin or restart the server without a sandbox (dsh-mcp: --sandbox danger-full-access)",
                        policy.mode
                    )));
                };
                let request = ConfineRequest {
                    argv,
                    policy,
                    startup_files: startup_files.iter().map(|p| p.to_path_buf()).collect(),
                    cwd: cwd.clone(),
                    tmp_size_bytes: dsh_sandbox::tmp_size_for(
                        self.limits
                            .as_ref()
                            .and_then(|l| l.limits().max_memory_bytes),
                    ),
                };
                argv = sandbox
                    .confine(&request)
                    .map_err(|e| spawn_error(format!("terminal-bash: {e}")))?;
                if argv.is_empty() {
                    return Err(spawn_error(
                        "terminal-bash: sandbox returned empty argv".to_owned(),
                    ));
                }
            }
        } else {
            cwd = relative_to(cwd, default_cwd.as_deref());
            if cwd.is_none() {
                cwd = default_cwd;
            }
        }
        let mut watched = None;
        let mut cgroup = None;
        let mut member_cgroup = None;
        if let Some(limits) = &self.limits {
            let limited = limits
                .apply(label, argv)
                .map_err(|e| spawn_error(format!("terminal-bash: {e}")))?;
            argv = limited.argv;
            cgroup = limited.guard.unified_dir().map(Path::to_path_buf);
            member_cgroup = limited.guard.dirs().first().cloned();
            if !limited.guard.dirs().is_empty() {
                watched = Some(Arc::new(WatchedLimits::new(limited.guard)));
            }
        }
        Ok(Launch {
            argv,
            cwd,
            limits: watched,
            cgroup,
            member_cgroup,
        })
    }
}

/// A session's limit cgroups, registered with the host-death watchdog while they exist (so a
/// killed host's sessions are found by them too).
pub(crate) struct WatchedLimits(LimitGuard);

impl WatchedLimits {
    fn new(guard: LimitGuard) -> Self {
        for dir in guard.dirs() {
            process::watch_cgroup_dir(dir);
        }
        Self(guard)
    }
}

impl WatchedLimits {
    /// The cgroups.
    pub(crate) fn guard(&self) -> &LimitGuard {
        &self.0
    }
}

impl Drop for WatchedLimits {
    fn drop(&mut self) {
        for dir in self.0.dirs() {
            process::unwatch_cgroup_dir(dir);
        }
    }
}

fn spawn_error(message: String) -> TerminalError {
    TerminalError::new(TerminalErrorCode::Spawn, message)
}

/// `path` with its `.` components dropped and each `..` taking off the component before it
/// (without reading the filesystem: `/w/../tmp` is `/tmp`, as `cd` goes there).
fn lexically_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}
