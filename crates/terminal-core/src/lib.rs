//! The terminal service and the shared PTY machinery behind it.
//!
//! [`Terminals`] is the `Terminals` service of seed-contract §2: a backend registry, `pty-N`
//! ids, exact-owner fencing, one active send per session, read / signal / kill / list, and
//! owner and service disposal that await teardown. Backends implement [`TerminalBackend`]; the
//! PTY machinery they share lives in [`pty`] (spawn through portable-pty), [`screen`] (terminal
//! emulation: screen-true text, OSC 133 prompt marks, DSR replies), [`readiness`] (when a send
//! settles) and [`process`] (`/proc` inspection and process-tree teardown).
//!
//! **Invariant:** this crate never parses tool JSON and knows nothing about tools or MCP.

#[cfg(not(target_os = "linux"))]
compile_error!(
    "dsh-terminal-core supports Linux only: sessions rely on /proc, pidfds, cgroup v2 and PR_SET_CHILD_SUBREAPER"
);

pub mod backend;
pub mod error;
pub mod process;
pub mod pty;
pub mod readiness;
pub mod screen;
pub mod service;
pub mod session;
pub mod types;

pub use backend::{BackendSession, OperationHandle, SendOperation, TerminalBackend};
pub use error::{TerminalError, TerminalErrorCode};
pub use screen::{PromptNonce, Screen, ScreenConfig};
pub use service::invariant_companion;
pub use service::{Terminals, TerminalsPlugin};
pub use session::{PtySession, PtySessionConfig, PtySpawnSpec};
pub use types::*;
