//! [`Sandbox`] (the seed's `ctx.sandbox`: wraps a shell's argv) and its Linux implementation
//! [`Bubblewrap`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::error::SandboxError;
use crate::mode::SandboxMode;
use crate::policy::SandboxPolicy;

/// What to confine.
#[derive(Clone, Debug)]
pub struct ConfineRequest {
    /// The program and its arguments, e.g. `["/bin/bash", "--rcfile", "/tmp/rc", "-i"]`.
    pub argv: Vec<OsString>,
    /// The session's effective policy.
    pub policy: SandboxPolicy,
    /// Files or directories the program needs that the confinement would otherwise hide
    /// (e.g. an rc file in the host's `/tmp`); they are visible read-only at the same path.
    pub read_only_paths: Vec<PathBuf>,
}

/// A confinement provider (seed `ctx.sandbox.confine(argv, policy)`): returns the argv that
/// runs `request.argv` confined according to `request.policy`.
pub trait Sandbox: Send + Sync + std::fmt::Debug + 'static {
    /// The wrapped argv (never empty on success).
    ///
    /// # Errors
    /// [`SandboxError`] when the confinement cannot be built (missing program, empty argv).
    fn confine(&self, request: &ConfineRequest) -> Result<Vec<OsString>, SandboxError>;
}

/// Default location of bubblewrap.
pub const DEFAULT_BWRAP: &str = "/usr/bin/bwrap";

/// Confinement with bubblewrap (`bwrap`), a well-kept setuid-free namespace sandbox.
///
/// Every confined session gets:
/// - the host filesystem read-only (`--ro-bind / /`), a private empty `/tmp`, the workspace
///   root writable in `workspace-write` and read-only in `read-only`;
/// - a private `/dev` with its **own devpts instance** (`--dev /dev`): `/dev/pts` holds only
///   `ptmx`, so no other session's terminal can be opened, written to or typed into
///   (TIOCSTI needs an open fd of the target). The session keeps its own terminal on fds 0–2,
///   `/dev/tty` and `/dev/console`;
/// - its own PID namespace (`--unshare-pid`): other sessions' and the host's processes are
///   invisible, and when the namespace's init exits every process in it is killed;
/// - its own IPC namespace, and a private network namespace (loopback only) unless the policy
///   allows the network.
///
/// Never `--new-session`: it calls `setsid()` and the shell would lose its controlling
/// terminal (job control, SIGINT from the terminal, `/dev/tty`). `--die-with-parent` ties the
/// sandbox to the bwrap process the PTY started: when it dies (the terminal hung up, or
/// teardown killed it), the namespace's init and with it every process inside dies too.
#[derive(Clone, Debug)]
pub struct Bubblewrap {
    program: PathBuf,
}

impl Default for Bubblewrap {
    fn default() -> Self {
        Self::at(DEFAULT_BWRAP)
    }
}

impl Bubblewrap {
    /// Bubblewrap at `program`.
    #[must_use]
    pub fn at(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
        }
    }

    /// The bwrap program.
    #[must_use]
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// Whether the program exists and is executable.
    #[must_use]
    pub fn is_available(&self) -> bool {
        use rustix::fs::{Access, access};
        self.program.is_file() && access(&self.program, Access::EXEC_OK).is_ok()
    }
}

impl Sandbox for Bubblewrap {
    fn confine(&self, request: &ConfineRequest) -> Result<Vec<OsString>, SandboxError> {
        if request.argv.is_empty() {
            return Err(SandboxError::EmptyArgv);
        }
        if !self.is_available() {
            return Err(SandboxError::BwrapMissing(self.program.clone()));
        }
        let policy = &request.policy;
        let mut argv: Vec<OsString> = vec![self.program.clone().into()];
        let mut push = |items: &[&std::ffi::OsStr]| argv.extend(items.iter().map(|s| s.into()));
        push(&["--ro-bind".as_ref(), "/".as_ref(), "/".as_ref()]);
        push(&["--dev".as_ref(), "/dev".as_ref()]);
        push(&["--proc".as_ref(), "/proc".as_ref()]);
        push(&["--tmpfs".as_ref(), "/tmp".as_ref()]);
        for path in &request.read_only_paths {
            push(&["--ro-bind".as_ref(), path.as_os_str(), path.as_os_str()]);
        }
        // After /tmp, so a workspace under /tmp is visible (and writable when allowed).
        let ws = policy.workspace_root.as_os_str();
        let bind = match policy.mode {
            SandboxMode::WorkspaceWrite | SandboxMode::DangerFullAccess => "--bind",
            SandboxMode::ReadOnly => "--ro-bind",
        };
        push(&[bind.as_ref(), ws, ws]);
        push(&[
            "--unshare-pid".as_ref(),
            "--unshare-ipc".as_ref(),
            "--die-with-parent".as_ref(),
        ]);
        if !policy.allow_network {
            push(&["--unshare-net".as_ref()]);
        }
        push(&["--".as_ref()]);
        argv.extend(request.argv.iter().cloned());
        Ok(argv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(mode: SandboxMode, allow_network: bool) -> ConfineRequest {
        ConfineRequest {
            argv: vec!["/bin/bash".into(), "-i".into()],
            policy: SandboxPolicy {
                mode,
                workspace_root: PathBuf::from("/w"),
                owner_id: "agent".into(),
                allow_network,
            },
            read_only_paths: vec![PathBuf::from("/tmp/rc")],
        }
    }

    fn joined(argv: &[OsString]) -> String {
        argv.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn wraps_the_argv_per_mode() {
        // `/bin/sh` exists everywhere the tests run; the argv shape is what is checked.
        let bwrap = Bubblewrap::at("/bin/sh");
        let ro = bwrap
            .confine(&request(SandboxMode::ReadOnly, false))
            .unwrap();
        assert_eq!(
            joined(&ro),
            "/bin/sh --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --ro-bind /tmp/rc /tmp/rc \
             --ro-bind /w /w --unshare-pid --unshare-ipc --die-with-parent --unshare-net -- /bin/bash -i"
        );
        let ww = bwrap
            .confine(&request(SandboxMode::WorkspaceWrite, true))
            .unwrap();
        assert!(joined(&ww).contains(
            "--bind /w /w --unshare-pid --unshare-ipc --die-with-parent -- /bin/bash -i"
        ));
        assert!(!joined(&ww).contains("--new-session"));
    }

    #[test]
    fn refuses_empty_argv_and_missing_bwrap() {
        let mut r = request(SandboxMode::ReadOnly, false);
        r.argv.clear();
        assert!(matches!(
            Bubblewrap::at("/bin/sh").confine(&r),
            Err(SandboxError::EmptyArgv)
        ));
        let e = Bubblewrap::at("/nonexistent/bwrap")
            .confine(&request(SandboxMode::ReadOnly, false))
            .unwrap_err();
        insta::assert_snapshot!(e.to_string());
    }
}
