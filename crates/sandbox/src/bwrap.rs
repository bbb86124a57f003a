//! [`Sandbox`] (the seed's `ctx.sandbox`: wraps a shell's argv) and its Linux implementation
//! [`Bubblewrap`].

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::error::SandboxError;
use crate::locate::BwrapProblem;
use crate::mode::SandboxMode;
use crate::policy::SandboxPolicy;

/// What to confine.
#[derive(Clone, Debug)]
pub struct ConfineRequest {
    /// The program and its arguments, e.g. `["/bin/bash", "--rcfile", "/tmp/rc", "-i"]`.
    pub argv: Vec<OsString>,
    /// The session's effective policy.
    pub policy: SandboxPolicy,
    /// Host files the program reads at startup (e.g. a generated rc file in the host's
    /// `/tmp`). One under `/tmp` is copied into the session's private `/tmp` at the same path,
    /// where the session may delete it once read (so it is out of sight of what runs later);
    /// one elsewhere is visible read-only through the read-only host.
    pub startup_files: Vec<PathBuf>,
    /// The directory the program starts in (absolute). It must exist inside the sandbox:
    /// bubblewrap then fails (`Can't chdir to …`) instead of falling back to `$HOME`. `None`:
    /// the caller's own working directory where the sandbox shows it, else `$HOME`.
    pub cwd: Option<PathBuf>,
    /// The most bytes the session's private file systems in memory hold together: `/dev/shm`
    /// and each private `/run` an eighth of it each, at most [`MAX_RUN_BYTES`], and `/tmp` the
    /// rest; `None`: the kernel's default for each tmpfs, half the host's memory. A tmpfs's pages count against the memory cap of the processes that write
    /// them and no kill frees them, so with a memory cap this should be well below it
    /// ([`tmp_size_for`]): a full `/tmp` then fails a write with "No space left on device"
    /// instead of the kernel killing every process of the session.
    pub tmp_size_bytes: Option<u64>,
}

/// The most a session's private `/run` (and `/var/run`) holds, sockets and pid files, and its
/// `/dev/shm`, POSIX shared memory (Docker's default size for it).
pub const MAX_RUN_BYTES: u64 = 64 * 1024 * 1024;

/// The size of a session's private `/tmp` under a memory cap of `max_memory_bytes`: half of
/// it, so the session's programs keep the other half.
#[must_use]
pub fn tmp_size_for(max_memory_bytes: Option<u64>) -> Option<u64> {
    max_memory_bytes.map(|bytes| bytes / 2)
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
/// - the host filesystem read-only (`--ro-bind / /`), a private empty `/tmp` and `/run` (and
///   `/var/run` when it is no link: host daemons' sockets live there, and a read-only bind
///   does not stop a `connect()` to a socket file), the workspace
///   root writable in `workspace-write` and read-only in `read-only`; in `workspace-write`, a
///   workspace that is a git worktree or submodule also gets its git directories writable,
///   what git runs or follows in them and the workspace's `.git` file read-only (`GitDirs`);
/// - a private `/dev` whose `/dev/pts` holds **only the session's own terminal** (at its
///   host path, so `tty` names it) and `ptmx` from a devpts instance of the session's own
///   (`/dev/.dsh`, for programs that open terminals of their own): no other session's
///   terminal can be opened, written to or typed into (TIOCSTI needs an open fd of the
///   target); `/dev` and `/dev/.dsh` are read-only, `/dev/shm` a small tmpfs of its own;
/// - its own PID namespace (`--unshare-pid`): other sessions' and the host's processes are
///   invisible, and when the namespace's init exits every process in it is killed;
/// - its own IPC and UTS (host name) namespaces, and a private network namespace (loopback
///   only) unless the policy allows the network;
/// - a `/proc` of its own, its kernel settings (`/proc/sys`, `/proc/sysrq-trigger` and the
///   like) read-only;
/// - no capabilities (`--cap-drop ALL`), but for a server run as root those ordinary file work
///   needs (`CAP_CHOWN`, `CAP_DAC_OVERRIDE` and the like): with all of root's, a session could
///   remount the read-only host filesystem writable, mount a cgroup hierarchy and leave its
///   process cap, or set the host's name;
/// - system-call filters (see the `seccomp` module): no set-user-ID or set-group-ID file,
///   none of the kernel's key rings.
///
/// The terminal's path and the startup files' descriptors are known only once the program
/// runs on its terminal, so the argv is a `/bin/sh` prelude that fills them in and `exec`s
/// bwrap (the process stays the PTY's first). Never `--new-session`: it calls `setsid()` and
/// the shell would lose its controlling terminal (job control, SIGINT from the terminal,
/// `/dev/tty`). `--die-with-parent` ties the sandbox to the bwrap process the PTY started:
/// when it dies (the terminal hung up, or teardown killed it), the namespace's init and with
/// it every process inside dies too.
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

    /// The absolute path of the bwrap program that confined sessions run, found as a shell
    /// finds a command: a path with a `/` is checked as given, a bare name (such as `bwrap`)
    /// is looked up in the server's `PATH`.
    ///
    /// # Errors
    /// [`BwrapProblem`] saying why nothing usable is there (no such file, not a file, not
    /// executable, not on `PATH`).
    pub fn locate(&self) -> Result<PathBuf, BwrapProblem> {
        crate::locate::locate(&self.program, std::env::var_os("PATH").as_deref())
    }

    /// Whether [`Bubblewrap::locate`] finds a program to run.
    #[must_use]
    pub fn is_available(&self) -> bool {
        self.locate().is_ok()
    }
}

impl Sandbox for Bubblewrap {
    fn confine(&self, request: &ConfineRequest) -> Result<Vec<OsString>, SandboxError> {
        if request.argv.is_empty() {
            return Err(SandboxError::EmptyArgv);
        }
        let program = self.locate().map_err(SandboxError::BwrapUnusable)?;
        let policy = &request.policy;
        let mut argv: Vec<OsString> = vec![
            "/bin/sh".into(),
            "-c".into(),
            PRELUDE.into(),
            "dsh-sandbox".into(),
            program.into(),
        ];
        let mut push = |items: &[&OsStr]| argv.extend(items.iter().map(|s| s.into()));
        push(&["--ro-bind".as_ref(), "/".as_ref(), "/".as_ref()]);
        // The session's own /dev: its terminal alone in /dev/pts (a tmpfs), ptmx from a
        // devpts instance of its own.
        push(&["--dev".as_ref(), "/dev".as_ref()]);
        push(&["--dev".as_ref(), PRIVATE_DEV.as_ref()]);
        push(&["--tmpfs".as_ref(), "/dev/pts".as_ref()]);
        push(&["--dev-bind".as_ref(), TTY.as_ref(), TTY.as_ref()]);
        let ptmx = format!("{PRIVATE_DEV}/pts/ptmx");
        push(&[
            "--symlink".as_ref(),
            ptmx.as_ref(),
            "/dev/pts/ptmx".as_ref(),
        ]);
        push(&["--remount-ro".as_ref(), "/dev/pts".as_ref()]);
        // Both /dev trees are tmpfs mounts of half the host's memory, whose pages count against
        // the session's memory cap and are freed by no kill: read-only (their device nodes
        // still open for writing), with a /dev/shm of its own sized like /run (POSIX shared
        // memory and semaphores live there).
        let run_dirs: Vec<&str> = RUN_DIRS
            .into_iter()
            .filter(|dir| Path::new(dir).is_dir() && !Path::new(dir).is_symlink())
            .collect();
        // The budget is shared: `/dev/shm` and each `/run` take an eighth, `/tmp` the rest,
        // so all of them full stay within it (each had its own share of the cap, and together
        // they went past a small one: a full `/dev/shm` and `/run` got the session killed).
        let run_bytes = request
            .tmp_size_bytes
            .map(|bytes| (bytes / 8).clamp(1, MAX_RUN_BYTES));
        let run_size = run_bytes.map(|bytes| bytes.to_string());
        if let Some(size) = &run_size {
            push(&["--size".as_ref(), size.as_ref()]);
        }
        push(&["--tmpfs".as_ref(), "/dev/shm".as_ref()]);
        push(&["--remount-ro".as_ref(), "/dev".as_ref()]);
        push(&["--remount-ro".as_ref(), PRIVATE_DEV.as_ref()]);
        push(&["--proc".as_ref(), "/proc".as_ref()]);
        // The kernel's own settings under the fresh /proc stay read-only: for a server run as
        // root, the session's file capabilities would otherwise let it write host-wide
        // settings (`/proc/sys/kernel/core_pattern` runs a program as root outside every
        // namespace, `/proc/sysrq-trigger` reboots the host).
        for path in PROC_READ_ONLY {
            if Path::new(path).exists() {
                push(&["--ro-bind".as_ref(), path.as_ref(), path.as_ref()]);
            }
        }
        let tmp_size = request.tmp_size_bytes.zip(run_bytes).map(|(bytes, run)| {
            let shared = run.saturating_mul(1 + run_dirs.len() as u64);
            bytes.saturating_sub(shared).max(1).to_string()
        });
        if let Some(size) = &tmp_size {
            push(&["--size".as_ref(), size.as_ref()]);
        }
        push(&["--tmpfs".as_ref(), "/tmp".as_ref()]);
        for dir in run_dirs {
            if let Some(size) = &run_size {
                push(&["--size".as_ref(), size.as_ref()]);
            }
            push(&["--tmpfs".as_ref(), dir.as_ref()]);
        }
        if let Some(dir) = resolver_dir() {
            push(&["--ro-bind".as_ref(), dir.as_os_str(), dir.as_os_str()]);
        }
        for path in &request.startup_files {
            if path.starts_with("/tmp") {
                push(&["--file".as_ref(), OPEN_FD.as_ref(), path.as_os_str()]);
            }
        }
        // After /tmp, so a workspace under /tmp is visible (and writable when allowed).
        let ws = policy.workspace_root.as_os_str();
        let bind = match policy.mode {
            SandboxMode::WorkspaceWrite | SandboxMode::DangerFullAccess => "--bind",
            SandboxMode::ReadOnly => "--ro-bind",
        };
        push(&[bind.as_ref(), ws, ws]);
        // A workspace named through a symbolic link is also shown at its real path, alike: a
        // cwd naming the real directory (what a check that resolves links finds) opens there.
        if let Ok(real) = std::fs::canonicalize(&policy.workspace_root)
            && real != policy.workspace_root
        {
            push(&[bind.as_ref(), real.as_os_str(), real.as_os_str()]);
        }
        if bind == "--bind" {
            // The git directories, then the directories pinned in them, then what stays
            // read-only (see `GitDirs`). A directory is bound writable only when it is still
            // the one found, with no link on its way: a session with a wider workspace could
            // have put one there since, and bubblewrap follows it.
            let git = &policy.git_dirs;
            for dir in git.writable.iter().chain(&git.pinned) {
                if std::fs::canonicalize(dir).is_ok_and(|real| &real == dir) && dir.is_dir() {
                    push(&["--bind".as_ref(), dir.as_os_str(), dir.as_os_str()]);
                }
            }
            for path in &git.read_only {
                if path.exists() {
                    push(&["--ro-bind".as_ref(), path.as_os_str(), path.as_os_str()]);
                }
            }
        }
        push(&[
            "--unshare-pid".as_ref(),
            "--unshare-ipc".as_ref(),
            "--unshare-uts".as_ref(),
            "--cap-drop".as_ref(),
            "ALL".as_ref(),
        ]);
        if rustix::process::geteuid().is_root() {
            for cap in ROOT_FILE_CAPS {
                push(&["--cap-add".as_ref(), cap.as_ref()]);
            }
        }
        // The system-call filters (see `crate::seccomp`): each opened by the launcher from
        // this process's sealed copy, read and closed by bubblewrap.
        for path in crate::seccomp::program_paths() {
            push(&[
                "--add-seccomp-fd".as_ref(),
                OPEN_FD_NUMBER.as_ref(),
                path.as_ref(),
            ]);
        }
        push(&["--die-with-parent".as_ref()]);
        if !policy.allow_network {
            push(&["--unshare-net".as_ref()]);
        }
        if let Some(dir) = &request.cwd {
            push(&["--chdir".as_ref(), dir.as_os_str()]);
        }
        push(&["--".as_ref()]);
        argv.extend(request.argv.iter().cloned());
        Ok(argv)
    }
}

/// Directories of the host's runtime state, replaced by an empty tmpfs in a confined session:
/// the sockets of host daemons live there (Docker's, D-Bus's, a database's, a user's
/// `XDG_RUNTIME_DIR` with its ssh and gpg agents), and a read-only bind does not stop a
/// `connect()` to a socket file. `/var/run` is usually a link to `/run` (then it is left
/// alone).
const RUN_DIRS: [&str; 2] = ["/run", "/var/run"];

/// Parts of `/proc` that hold host-wide kernel settings, bound read-only over the session's
/// `/proc` (the paths container runtimes keep read-only). Reads still show the values as the
/// session's namespaces see them: the kernel answers by the reader's namespaces.
const PROC_READ_ONLY: [&str; 5] = [
    "/proc/sys",
    "/proc/sysrq-trigger",
    "/proc/fs",
    "/proc/irq",
    "/proc/bus",
];

/// The directory of the host's resolver configuration when `/etc/resolv.conf` points into
/// [`RUN_DIRS`] (systemd-resolved's `/run/systemd/resolve`): bound back read-only, so name
/// resolution works in a session allowed the network.
fn resolver_dir() -> Option<PathBuf> {
    let target = std::fs::canonicalize("/etc/resolv.conf").ok()?;
    let dir = target.parent()?;
    RUN_DIRS
        .iter()
        .any(|run| dir.starts_with(run))
        .then(|| dir.to_path_buf())
}

/// The capabilities a session keeps under a server run as root: those ordinary file work needs
/// (a workspace owned by another user, `tar` and `cp -a` keeping owners, `chmod`), signals
/// within its own PID namespace, and switching users. Never `CAP_SYS_ADMIN` (mounts, the host
/// name), `CAP_MKNOD` (a device node for the host's disk in the workspace),
/// `CAP_DAC_READ_SEARCH` (opening host files by handle), `CAP_SETFCAP` (file capabilities a
/// host user would gain), nor the network, module, raw I/O and tracing ones.
const ROOT_FILE_CAPS: [&str; 9] = [
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_NET_BIND_SERVICE",
    "CAP_AUDIT_WRITE",
];

/// Where the session's own devpts instance (and a `/dev` around it) is mounted.
const PRIVATE_DEV: &str = "/dev/.dsh";
/// Placeholder for the session's terminal path, filled in by [`PRELUDE`].
const TTY: &str = "@DSH_TTY@";
/// Placeholder before a startup file's path: [`PRELUDE`] opens the file and puts its
/// descriptor number here.
const OPEN_FD: &str = "@DSH_FD@";
/// Placeholder before a file's path that [`PRELUDE`] opens and replaces, path and all, by the
/// descriptor number alone (an option that takes only a descriptor).
const OPEN_FD_NUMBER: &str = "@DSH_FD_NUMBER@";

/// Runs as `sh -c PRELUDE dsh-sandbox bwrap OPTIONS -- COMMAND`: fills the placeholders of
/// the options (the terminal on standard input, a descriptor for each startup file and
/// system-call filter) and
/// `exec`s bwrap, which reads and closes those descriptors.
const PRELUDE: &str = r#"t=$(tty) || { echo "dsh: the sandbox needs the session's terminal on standard input" >&2; exit 125; }
n=3 open= opts=1
for a do
  shift
  if [ -n "$open" ]; then
    eval "exec $n<\"\$a\"" || exit 125
    if [ "$open" = path ]; then set -- "$@" "$n" "$a"; else set -- "$@" "$n"; fi
    n=$((n + 1)) open=
    continue
  fi
  if [ -n "$opts" ]; then
    case $a in
      --) opts= ;;
      @DSH_TTY@) a=$t ;;
      @DSH_FD@) open=path; continue ;;
      @DSH_FD_NUMBER@) open=number; continue ;;
    esac
  fi
  set -- "$@" "$a"
done
exec "$@"
"#;

#[cfg(test)]
mod tests;
