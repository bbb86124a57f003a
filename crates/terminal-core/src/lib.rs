//! The terminal service and the shared PTY machinery behind it.
//!
//! [`Terminals`] is the `Terminals` service of the seed's §2: a backend registry, `pty-N`
//! ids, exact-owner fencing, one active send per session, read / signal / kill / list, and
//! owner and service disposal that await teardown. Backends implement [`TerminalBackend`]
//! (and [`BackendSession`]); a PTY backend runs its program with [`PtySession::spawn`] (given a
//! [`PtyCommand`], a [`PromptNonce`] and a [`PtySessionConfig`]), the engine that owns the PTY,
//! the terminal emulation, the readiness decision and teardown. [`process`] exposes the
//! `/proc` inspection and process-tree teardown it is built on.
//!
//! The public API is what backends and tools need; everything else is crate-private and
//! tested next to its code.
//!
//! **Invariant:** this crate never parses tool JSON and knows nothing about tools or MCP.

#[cfg(not(target_os = "linux"))]
compile_error!(
    "dsh-terminal-core supports Linux only: sessions rely on /proc, pidfds, cgroup v2 and PR_SET_CHILD_SUBREAPER"
);

mod backend;
mod error;
pub mod process;
mod pty;
mod readiness;
mod screen;
mod service;
mod session;
mod types;

pub use backend::{BackendSession, OperationHandle, SendOperation, TerminalBackend};
pub use error::{TerminalError, TerminalErrorCode};
pub use pty::PtyCommand;
pub use readiness::SilenceRule;
pub use screen::{DEFAULT_PAGE_LINES, PromptNonce, is_open_binary_run_line};
pub use service::{
    CLOSE_REASON_MODEL_REQUEST, CLOSE_REASON_OWNER_DISPOSED, CLOSE_REASON_ROLLBACK,
    CLOSE_REASON_SERVICE_DISPOSED, Terminals, TerminalsPlugin, invariant_companion,
};
pub use session::{
    ENVIRON_TAG, OPEN_COMMAND_NOTICE, PtySession, PtySessionConfig, PtySpawnSpec, clipped_prompt,
    end_reader_advice, holds_no_command, holds_paste_marker, is_repl_prompt, is_repl_prompt_of,
    is_shell_name, is_shell_prompt_of, press_to_go_on, rewound_notice, stopped_job_advice,
};
pub use types::*;
