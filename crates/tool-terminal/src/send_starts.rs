//! When input last started toward each session: a send a human approved is refused when other
//! input reached its session while the human decided (the approved text would reach whatever
//! that input left in the terminal, a REPL say, which nobody approved).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use dsh_terminal_core::SessionId;
use dsh_tools::ToolError;
use parking_lot::Mutex;

/// Sessions remembered before old entries are dropped (see [`SendStarts::note`]).
const MAX_SESSIONS: usize = 1024;
/// How old an entry may grow once [`MAX_SESSIONS`] is passed.
const KEEP_FOR: Duration = Duration::from_secs(3600);

/// See the module docs.
#[derive(Default)]
pub(crate) struct SendStarts(Mutex<HashMap<SessionId, Instant>>);

impl SendStarts {
    /// Input (a send, foreground or background) starts toward session `id` now.
    pub(crate) fn note(&self, id: &SessionId) {
        let mut starts = self.0.lock();
        if starts.len() >= MAX_SESSIONS {
            starts.retain(|_, at| at.elapsed() < KEEP_FOR);
        }
        starts.insert(id.clone(), Instant::now());
    }

    /// Whether input started toward session `id` after `at`.
    pub(crate) fn since(&self, id: &SessionId, at: Instant) -> bool {
        self.0.lock().get(id).is_some_and(|&started| started > at)
    }
}

/// The refusal of a send a human approved after other input reached its session.
pub(crate) fn input_while_approving(id: &SessionId) -> ToolError {
    ToolError::new(format!(
        "nothing was sent: while this input waited for the user's approval, other input reached terminal session {id}, so the terminal may now hold another program than the one it was approved for; check the session (terminal_read {{\"sessionId\": \"{id}\", \"count\": 10}}), then send it again to ask again"
    ))
    .with_code("SEND_REJECTED")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_refusal() {
        insta::assert_snapshot!(
            super::input_while_approving(&dsh_terminal_core::SessionId::new("pty-1")).to_string()
        );
    }
}
