//! [`SandboxError`]: every failure of this crate, worded for the model and the operator.

use std::path::PathBuf;

use crate::locate::BwrapProblem;

/// Why a policy change, a confinement or a limit could not be applied.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// The owner has terminal sessions open or being created (the mode fence).
    #[error(
        "cannot change the sandbox {what} while persistent terminal sessions are open or being created; wait for creation to settle and close them first"
    )]
    Fenced {
        /// What would have changed, e.g. `mode from read-only to workspace-write`.
        what: String,
    },
    /// A workspace root that is not a directory.
    #[error("workspace root {} is not a directory; pass an existing directory", .0.display())]
    NotADirectory(PathBuf),
    /// The confinement program cannot be run (missing, not executable, not on `PATH`).
    /// Worded for the model, which can neither install programs on the host nor change the
    /// sandbox mode (the operator's setting).
    #[error(
        "cannot open a sandboxed terminal session: {0}, and nothing you can do from a session changes that; ask the user to have the operator {fix}",
        fix = .0.operator_fix()
    )]
    BwrapUnusable(BwrapProblem),
    /// The argv to confine was empty.
    #[error("nothing to confine: the argv is empty")]
    EmptyArgv,
    /// A resource limit could not be set up.
    #[error("cannot set up the session's resource limits: {0}")]
    Limits(String),
}
