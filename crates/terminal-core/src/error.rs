//! Errors of the terminal service and its backends (the seed's §2.2).
//!
//! Every message is lowercase, names the bad value, and where the model can act says what to
//! do next. The tool layer renders them as `Error: <message>`.

use crate::types::SessionId;

/// Stable machine-readable kind of a [`TerminalError`] (the seed's `TerminalErrorCode`, plus
/// kinds for the seed's plain errors).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TerminalErrorCode {
    /// A backend with that type is already registered.
    DuplicateBackend,
    /// The owner already has (or is creating) a session with that name.
    DuplicateName,
    /// The session exists but belongs to another agent.
    ForeignSession,
    /// No backend is registered for the requested type.
    NoBackend,
    /// The session id is unknown (never existed, or already closed).
    NoSession,
    /// The owner is disposed (or not live).
    OwnerNotLive,
    /// The session already has an active send.
    SendActive,
    /// The session's last send returned its result but still writes the rest of its input,
    /// as the program reads it (a long typed-ahead text to a program that reads slowly or
    /// not at all): the next send waits for that.
    InputPending,
    /// The service is being disposed.
    ServiceDisposing,
    /// The session is closing.
    Closing,
    /// The session's top-level process has exited.
    Exited,
    /// A request field is invalid (empty type or name, bad offset/count, ...).
    InvalidRequest,
    /// A signal could not be delivered (no foreground group, SIGKILL at the shell, ...).
    Signal,
    /// The backend failed to start the session.
    Spawn,
    /// The PTY transport failed (write error, read error).
    Transport,
    /// Close could not stop every process.
    Cleanup,
    /// The owner already has as many sessions as [`crate::Terminals::set_max_sessions_per_owner`]
    /// allows.
    SessionLimit,
}

/// An error from the terminal service or a backend. Cloneable so a settled send's outcome can
/// be observed by several waiters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TerminalError {
    code: TerminalErrorCode,
    message: String,
}

impl TerminalError {
    /// An error of `code` with a complete model-facing message.
    pub fn new(code: TerminalErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
    /// The error kind.
    pub fn code(&self) -> TerminalErrorCode {
        self.code
    }
    /// The message (same as `Display`).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// `NO_SESSION`: `unknown PTY session <id>; ...`.
    pub fn no_session(id: &SessionId) -> Self {
        Self::new(
            TerminalErrorCode::NoSession,
            format!(
                "unknown PTY session {id} (never opened, or already closed); call terminal_list to see your open sessions or terminal_open to start one"
            ),
        )
    }
    /// `NO_SESSION` for an id without the shape of a session id (`prefix` and a number):
    /// `unknown PTY session <id>: session ids have the shape <prefix>N; ...`.
    pub fn not_a_session_id(id: &SessionId, prefix: &str) -> Self {
        Self::new(
            TerminalErrorCode::NoSession,
            format!(
                "unknown PTY session {id}: session ids have the shape {prefix}N, as terminal_open returns them (an id of another kind, such as a background job's, goes to that kind's tools); call terminal_list to see your open sessions"
            ),
        )
    }
    /// `NO_SESSION` for an id that is the name of the caller's session `id`: `unknown PTY
    /// session <name>: that is the name of your session <id>; ...`.
    pub fn name_not_id(name: &str, id: &SessionId) -> Self {
        Self::new(
            TerminalErrorCode::NoSession,
            format!(
                "unknown PTY session {name}: that is the name of your session {id}; pass its id (\"{id}\") as sessionId"
            ),
        )
    }
    /// `FOREIGN_SESSION`: `PTY session <id> belongs to another agent`.
    pub fn foreign_session(id: &SessionId) -> Self {
        Self::new(
            TerminalErrorCode::ForeignSession,
            format!(
                "PTY session {id} belongs to another agent; call terminal_list to see your own sessions"
            ),
        )
    }
    /// `SEND_ACTIVE`: `PTY session <id> already has an active send`.
    pub fn send_active(id: &SessionId) -> Self {
        Self::new(
            TerminalErrorCode::SendActive,
            format!(
                "PTY session {id} already has an active send; wait for it to finish, or use terminal_signal to interrupt it"
            ),
        )
    }
    /// `INPUT_PENDING`: the session's last send returned, and still writes its input.
    pub fn input_pending(id: &SessionId) -> Self {
        Self::new(
            TerminalErrorCode::InputPending,
            format!(
                "PTY session {id} is still writing the input of its last terminal_send, whose result was already returned: the rest goes in as the program reads it, and it reads slowly or not at all; send again once it has taken it (terminal_read shows what it is doing), or terminal_signal SIGINT to stop the program, which drops the rest"
            ),
        )
    }
    /// Send on a closing session.
    pub fn closing(id: &SessionId) -> Self {
        Self::new(
            TerminalErrorCode::Closing,
            format!(
                "PTY session {id} is closing: a terminal_close of it is under way and stops every process it started; terminal_open starts a new session"
            ),
        )
    }
    /// Send on an exited session.
    pub fn exited(id: &SessionId) -> Self {
        Self::new(
            TerminalErrorCode::Exited,
            format!(
                "PTY session {id} has exited; terminal_read still shows its last output (anything printed after the last result too) until terminal_close releases it; terminal_open starts a new session"
            ),
        )
    }
    /// `NO_BACKEND`.
    pub fn no_backend(backend_type: &str, available: &[String]) -> Self {
        // A long type is quoted cut (as output is, between characters and their marks), with
        // its length: it could fill the result and push out the types to use.
        const QUOTED_BYTES: usize = 64;
        let cut = dsh_output_retention::head_slice(backend_type, QUOTED_BYTES);
        let quoted = if cut.len() < backend_type.len() {
            format!("{cut:?}… ({} characters)", backend_type.chars().count())
        } else {
            format!("{backend_type:?}")
        };
        Self::new(
            TerminalErrorCode::NoBackend,
            format!(
                "no PTY backend registered for {quoted}; available types: {}",
                if available.is_empty() {
                    "(none)".to_owned()
                } else {
                    available.join(", ")
                }
            ),
        )
    }
    /// `SERVICE_DISPOSING`.
    pub fn service_disposing() -> Self {
        Self::new(
            TerminalErrorCode::ServiceDisposing,
            "PTY service is disposing",
        )
    }
    /// `OWNER_NOT_LIVE`.
    pub fn owner_not_live(owner_id: &str) -> Self {
        Self::new(
            TerminalErrorCode::OwnerNotLive,
            format!("agent {owner_id:?} is not a live PTY owner"),
        )
    }
    /// `SESSION_LIMIT`: the owner already has `max` sessions (open or being opened).
    pub fn session_limit(max: usize) -> Self {
        let sessions = if max == 1 { "session" } else { "sessions" };
        Self::new(
            TerminalErrorCode::SessionLimit,
            format!(
                "this agent already has {max} terminal {sessions}, the most allowed; close one with terminal_close (terminal_list shows them) before opening another"
            ),
        )
    }
    /// An invalid request field.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(TerminalErrorCode::InvalidRequest, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The send-slot errors are model-visible text: which one a busy session gives tells the
    /// model whether the call before it is still running or has returned.
    #[test]
    fn send_slot_errors_say_whether_the_last_send_returned() {
        let id = SessionId::new("pty-7");
        insta::assert_snapshot!(
            "send_slot_errors",
            [
                TerminalError::send_active(&id).to_string(),
                TerminalError::input_pending(&id).to_string(),
            ]
            .join("\n")
        );
    }
}
