//! Every field case again (`cases.rs`, `cases_status.rs`, `queries.rs`), with each session
//! confined by bubblewrap in `workspace-write`.
//!
//! The workspace root is the host's temp directory (the cases' scratch repositories live
//! there) and the network is allowed (C17 connects from the host to a server in the
//! session); the confinement itself (read-only root, private devpts and PID namespace, no
//! network) is tested in `sandbox.rs`.

/// What `cases.rs` imports, with a `Shell::open` that confines.
pub(crate) mod support {
    pub(crate) use crate::support::{
        TempDir, config, quick_config, session_pids, wait_until, within,
    };
    use dsh_sandbox::SandboxMode;

    use dsh_terminal_bash::BashConfig;

    /// Opens confined sessions.
    pub(crate) struct Shell;

    impl Shell {
        /// Opens a `workspace-write` session with `config`.
        pub(crate) async fn open(config: BashConfig) -> crate::support::Shell {
            let backend = crate::support::sandboxed(
                config,
                SandboxMode::WorkspaceWrite,
                &std::env::temp_dir(),
                true,
                None,
            );
            crate::support::Shell::open_on(&backend).await
        }
    }
}

#[expect(
    clippy::duplicate_mod,
    reason = "deliberate: the same cases, compiled against a confining `support`"
)]
#[path = "cases.rs"]
mod cases;
#[expect(
    clippy::duplicate_mod,
    reason = "deliberate: the same cases, compiled against a confining `support`"
)]
#[path = "cases_status.rs"]
mod cases_status;
#[expect(
    clippy::duplicate_mod,
    reason = "deliberate: the same cases, compiled against a confining `support`"
)]
#[path = "queries.rs"]
mod queries;
