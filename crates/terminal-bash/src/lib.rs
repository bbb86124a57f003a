//! The `shell` terminal backend: bash with an rc this crate owns.
//!
//! [`BashBackend`] starts `bash --noprofile --rcfile <generated rc> -i` on a PTY through the
//! generic [`dsh_terminal_core::PtySession`] engine. The generated rc ([`rc`]) makes every
//! prompt emit OSC 133 marks carrying a per-session random nonce and the last exit status, so
//! a send settles the moment the prompt returns and reports `[exit: N]`; look-alike marks
//! printed by programs are ordinary output. The environment ([`mod@env`]) is an allowlist of
//! the host's variables plus what the operator passes, with a UTF-8 locale, pagers neutralised and `TERM=xterm-256color` (the engine emulates a real
//! screen, so no escape sequence ever reaches the model). [`TerminalBashPlugin`] registers the
//! backend on the `Terminals` service.
//!
//! ```no_run
//! # async fn demo() -> Result<(), dsh_terminal_core::TerminalError> {
//! use dsh_terminal_bash::{BashBackend, BashConfig};
//! use dsh_terminal_core::{BackendSession, BackendSpawnSpec, SendRequest, SessionId};
//!
//! let backend = BashBackend::new(BashConfig::default());
//! let session = backend
//!     .spawn_session(BackendSpawnSpec {
//!         cancel: Default::default(),
//!         session_id: SessionId::new("pty-1"),
//!         owner_id: "agent-1".into(),
//!         name: None,
//!         cwd: None,
//!     })
//!     .await?;
//! assert_eq!(session.motd(), "dsh> ");
//! let op = session.start_send(SendRequest { text: "echo hello".into(), submit: true, timeout: None })?;
//! let result = op.done().await?;
//! assert_eq!(result.viewport, "echo hello\nhello\ndsh> ");
//! assert_eq!(result.exit_code, Some(0));
//! session.close("done".into()).await?;
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

#[cfg(not(target_os = "linux"))]
compile_error!(
    "dsh-terminal-bash supports Linux only: it runs on dsh-terminal-core's Linux PTY engine"
);

pub mod backend;
mod capped;
pub mod config;
pub mod confine;
pub mod env;
mod locale;
pub mod plugin;
pub mod rc;
pub mod shell_check;
mod shell_options;

pub use backend::BashBackend;
pub use config::{
    BashConfig, BashConfigError, DEFAULT_BACKEND_TYPE, DEFAULT_SHELL, MAX_TERMINAL_SIDE,
    RC_PLACEHOLDER,
};
pub use confine::Sandboxing;
pub use env::{EnvPass, EnvPolicy, InstalledLocales};
pub use plugin::TerminalBashPlugin;

/// The package name used with the invariants registry.
pub const PACKAGE: &str = "dsh-terminal-bash";

/// This crate's invariant companion. No runtime invariant: the backend holds only its
/// immutable config; session state lives in the `Terminals` service and the core engine,
/// which check their own.
pub fn invariant_companion() -> dsh_invariants::Companion {
    dsh_invariants::Companion::none(
        PACKAGE,
        "no runtime invariant: the backend holds only its immutable config; sessions are checked by dsh-terminal-core",
    )
}
