//! Sandboxed sessions: who may touch what, and how much.
//!
//! - [`SandboxPolicies`] (the seed's `sandboxPolicy`): each owner's effective
//!   [`SandboxPolicy`]: a [`SandboxMode`] (`read-only`, `workspace-write`,
//!   `danger-full-access`), a workspace root and the network switch. Changing an owner's mode
//!   or workspace is refused while it has terminal sessions open or being created (the mode
//!   fence, installed by the shell backend with [`SandboxPolicies::add_fence`]).
//! - [`Sandbox`] (the seed's `sandbox`): wraps a shell's argv. [`Bubblewrap`] is the Linux
//!   implementation: read-only host, private `/tmp`, writable workspace, private devpts, PID,
//!   IPC and (unless allowed) network namespaces, and system-call filters (no set-user-ID or
//!   set-group-ID files, no kernel key rings).
//! - [`ResourceLimits`]: per-session caps on processes and memory with the best mechanism the
//!   host offers ([`LimitMechanism`]).
//! - [`SandboxPlugin`] provides all three.
//!
//! ```
//! use std::path::PathBuf;
//! use dsh_sandbox::{Bubblewrap, ConfineRequest, GitDirs, Sandbox, SandboxMode, SandboxPolicy};
//!
//! let policy = SandboxPolicy {
//!     mode: SandboxMode::ReadOnly,
//!     workspace_root: PathBuf::from("/srv/project"),
//!     owner_id: "agent-1".into(),
//!     allow_network: false,
//!     git_dirs: GitDirs::default(),
//! };
//! let request = ConfineRequest {
//!     argv: vec!["/bin/bash".into()],
//!     policy,
//!     startup_files: vec![],
//!     cwd: None,
//!     tmp_size_bytes: None,
//! };
//! match Bubblewrap::default().confine(&request) {
//!     Ok(argv) => assert_eq!(argv.last().map(|a| a.to_str()), Some(Some("/bin/bash"))),
//!     Err(e) => assert!(e.to_string().contains("apt-get install bubblewrap")),
//! }
//! ```

#![forbid(unsafe_code)]

mod bwrap;
mod error;
mod git;
mod limits;
mod locate;
mod mode;
mod plugin;
mod policy;
mod prompt;
mod seccomp;

pub use bwrap::{Bubblewrap, ConfineRequest, DEFAULT_BWRAP, MAX_RUN_BYTES, Sandbox, tmp_size_for};
pub use error::SandboxError;
pub use git::GitDirs;
pub use limits::{
    CapStop, LimitGuard, LimitHits, LimitMechanism, Limited, ResourceLimits, SessionLimits,
};
pub use locate::BwrapProblem;
pub use mode::{SandboxMode, UnknownSandboxMode};
pub use plugin::{SandboxConfig, SandboxPlugin};
pub use policy::{OwnerActivity, PolicyDefaults, SandboxPolicies, SandboxPolicy, git_dirs_of};
pub use prompt::{PROMPT_SECTION_NAME, PROMPT_SECTION_ORDER};

/// The package name used with the invariants registry.
pub const PACKAGE: &str = "dsh-sandbox";

/// This crate's invariant companion. No runtime invariant: the policy map holds only
/// overrides of live owners, and confinement only builds an argv (it reads a workspace's
/// `.git` file, nothing more).
pub fn invariant_companion() -> dsh_invariants::Companion {
    dsh_invariants::Companion::none(
        PACKAGE,
        "no runtime invariant: policy overrides are dropped with their owner; confinement only builds an argv",
    )
}
