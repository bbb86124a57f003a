//! Whether a program a signal was sent to is still busy a moment later: the answer to
//! `terminal_signal` can then say so at once, instead of the agent finding out when its next
//! send, typed into the busy program, waits out its whole deadline.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::cancel::program_name;
use super::shared::Shared;

/// How often [`busy_after_signal`] looks at the group.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// What the group is doing, as far as a signal's effect goes.
enum Effect {
    /// It ended, gave the terminal back, or reads input again (handled: back at a prompt).
    Settled,
    /// It still holds the terminal and does not wait for input.
    Busy,
}

/// The name of the program of group `pgid` when, `within` after a signal, the group still
/// holds `shared`'s terminal and is not waiting to read it; `None` as soon as it ended, gave
/// the terminal back or reads input again. Looks every [`LOOK_EVERY`] (blocking `/proc`
/// reads, off the async workers).
pub(super) async fn busy_after_signal(
    shared: &Arc<Shared>,
    pgid: i32,
    within: Duration,
) -> Option<String> {
    let deadline = Instant::now() + within;
    loop {
        let sh = Arc::clone(shared);
        let effect = tokio::task::spawn_blocking(move || {
            if sh.pty.foreground_pgid() != Some(pgid) || sh.tty_reader(pgid).is_some() {
                Effect::Settled
            } else {
                Effect::Busy
            }
        })
        .await
        .unwrap_or(Effect::Settled);
        if matches!(effect, Effect::Settled) {
            return None;
        }
        if Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep_until((Instant::now() + LOOK_EVERY).min(deadline)).await;
    }
    tokio::task::spawn_blocking(move || program_name(pgid))
        .await
        .ok()
        .flatten()
}
