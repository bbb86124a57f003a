//! A send waiting for a human's approval ends when its session goes away: the approval could
//! only send into a session that is no longer there, and a question nobody needs to answer
//! any more should not stay open on the client.

use std::sync::Arc;
use std::time::Duration;

use dsh_context::{Agent, BoxFuture};
use dsh_terminal_core::{SessionId, Terminals};

/// How often a pending approval checks that its session is still there.
const CHECK_EVERY: Duration = Duration::from_millis(250);

/// The sentence a send's denial starts with when its session closed while the human decided.
pub(crate) fn session_closed(id: &SessionId) -> String {
    format!(
        "session closed while waiting for approval: terminal session {id} was closed before the user answered, so the question was withdrawn"
    )
}

/// A future that ends (with [`session_closed`]) once `owner`'s session `id` is gone (closed,
/// by terminal_close or otherwise); `None` when it is not there now (the send's own error names
/// that once it runs).
pub(crate) fn until_session_gone(
    terminals: &Arc<Terminals>,
    owner: &Agent,
    id: &SessionId,
) -> Option<BoxFuture<'static, String>> {
    terminals.check_owned(owner, id).ok()?;
    let (terminals, owner, id) = (Arc::clone(terminals), owner.clone(), id.clone());
    Some(Box::pin(async move {
        while terminals.check_owned(&owner, &id).is_ok() {
            tokio::time::sleep(CHECK_EVERY).await;
        }
        session_closed(&id)
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_sentence() {
        assert_eq!(
            super::session_closed(&dsh_terminal_core::SessionId::new("pty-1")),
            "session closed while waiting for approval: terminal session pty-1 was closed before the user answered, so the question was withdrawn"
        );
    }
}
