//! [`InitializeOnce`]: a connection (stdio) or MCP session (HTTP) is initialized once.
//!
//! rmcp hands the handler the `initialize` that starts a connection, and any later one too,
//! like any other request (neither its serve loop nor its HTTP service refuses one on a live
//! session); its default handler answered each and took the new request's client info and
//! protocol version for the session's, so a second `initialize` naming an older protocol
//! lowered the version the session was already running. MCP's lifecycle has one
//! initialization per session: a later `initialize` is refused with `-32600` and changes
//! nothing. The check is the handler's, so it holds for every transport alike (the stdio
//! transport's `initialize_seen` only decides which notifications reach rmcp).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::ErrorData as McpError;

/// The error text of an `initialize` on a connection or session already initialized.
pub(crate) const ALREADY_INITIALIZED: &str = "Invalid Request: already initialized: this session was initialized by an earlier initialize and keeps the protocol version and capabilities negotiated then, so this one changed nothing; go on with other requests, or start a new session to initialize again (over HTTP: a POST without Mcp-Session-Id; on stdio: a new server process)";

/// Whether the connection's (or the HTTP session's) `initialize` was taken; shared by the
/// clones of its handler.
#[derive(Debug, Clone, Default)]
pub(crate) struct InitializeOnce(Arc<AtomicBool>);

impl InitializeOnce {
    /// Takes an `initialize`: `Ok` for the first, the `-32600` error for every later one.
    pub(crate) fn take(&self) -> Result<(), McpError> {
        if self.0.swap(true, Ordering::AcqRel) {
            tracing::warn!("refused a second initialize on an initialized session");
            return Err(McpError::invalid_request(ALREADY_INITIALIZED, None));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_first_initialize_is_taken_by_every_clone() {
        let once = InitializeOnce::default();
        let clone = once.clone();
        assert!(once.take().is_ok());
        for later in [&once, &clone] {
            let error = later.take().err().unwrap_or_else(|| panic!("taken twice"));
            assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_REQUEST);
            assert!(error.message.contains("already initialized"), "{error:?}");
        }
        // Another connection's is its own.
        assert!(InitializeOnce::default().take().is_ok());
    }
}
