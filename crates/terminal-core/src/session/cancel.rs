//! The interrupts a cancelled send delivers.
//!
//! A cancel interrupts the foreground group the way the terminal's Ctrl-C would. One that
//! lands before the command took the foreground reaches the shell, or the command's group
//! while its leader is still the shell's fork (which catches SIGINT as the shell does, then
//! runs the command anyway): the command gets an interrupt too once it is in the foreground
//! under its own program image. A program that survives its interrupt (a REPL back at its
//! prompt, one that ignores SIGINT) gets no other.

use std::sync::Arc;

use crate::error::TerminalError;
use crate::types::TerminalSignal;

use super::shared::Shared;
use super::signal::deliver;

/// Most interrupts one cancel delivers.
const MAX_CANCEL_INTERRUPTS: u32 = 4;

/// The foreground group an interrupt went to, and its leader's program name then.
#[derive(Debug, PartialEq, Eq)]
struct Target {
    pgid: Option<i32>,
    leader: Option<String>,
}

impl Target {
    /// The foreground now (reads `/proc`: call it off the async workers).
    fn now(shared: &Shared) -> Self {
        let pgid = shared.pty.foreground_pgid();
        let leader = pgid.and_then(|p| std::fs::read_to_string(format!("/proc/{p}/comm")).ok());
        Self { pgid, leader }
    }
}

/// The interrupts a cancelled send delivered so far.
#[derive(Debug, Default)]
pub(super) struct CancelInterrupts {
    last: Option<Target>,
    count: u32,
}

impl CancelInterrupts {
    /// Interrupts the foreground when the cancel has not reached it yet: the first time, and
    /// again when another group than the shell's, or the same group under a new program image,
    /// holds the foreground (at most [`MAX_CANCEL_INTERRUPTS`] in all).
    ///
    /// # Errors
    /// The interrupt could not be delivered (see [`deliver`]).
    pub(super) async fn deliver_due(&mut self, shared: &Arc<Shared>) -> Result<(), TerminalError> {
        if self.count >= MAX_CANCEL_INTERRUPTS {
            return Ok(());
        }
        let sh = Arc::clone(shared);
        let target = tokio::task::spawn_blocking(move || Target::now(&sh))
            .await
            .unwrap_or(Target {
                pgid: None,
                leader: None,
            });
        let due = self.last.as_ref().is_none_or(|last| {
            target.pgid.is_some() && target.pgid != Some(shared.shell_pgid()) && target != *last
        });
        if due {
            self.last = Some(target);
            self.count += 1;
            deliver(shared, TerminalSignal::Sigint)?;
        }
        Ok(())
    }
}
