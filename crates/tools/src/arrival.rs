//! [`ArrivalOrder`]: calls that act on one target (a terminal session) take effect in the order
//! the host received them, even when it runs them concurrently.
//!
//! A host that reads calls in an order (one connection's stdio lines) hands each call it
//! receives for a target an [`ArrivalTicket`] (through [`crate::ToolCall::arrival`]). A tool
//! waits for its turn ([`ArrivalTicket::turn`]: every earlier call to the same target gave up
//! its place) before it acts, and gives its place up ([`ArrivalTicket::done`]) once its effect
//! is in place (a send's input reserved the session, a signal went out); dropping the ticket
//! gives it up too, so a call that ends in any way never holds the ones after it. A call that
//! waits for a human's approval gives its place up first (the registry does that): the calls
//! after it go on, as they would have without it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

/// The calls a host received per target that have not given up their place yet (see the module
/// docs). Cheap to clone: clones share the order.
#[derive(Clone, Debug, Default)]
pub struct ArrivalOrder(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    /// The last number handed out.
    last: AtomicU64,
    /// Per target, the tickets still in place, by number, each with the token cancelled when
    /// it gives its place up.
    pending: Mutex<HashMap<String, BTreeMap<u64, CancellationToken>>>,
}

impl ArrivalOrder {
    /// A ticket for a call to `target` received now: its turn comes after every ticket for
    /// `target` taken before it.
    #[must_use]
    pub fn ticket(&self, target: &str) -> ArrivalTicket {
        let number = self.0.last.fetch_add(1, Ordering::SeqCst) + 1;
        let done = CancellationToken::new();
        self.0
            .pending
            .lock()
            .entry(target.to_owned())
            .or_default()
            .insert(number, done.clone());
        ArrivalTicket {
            order: self.clone(),
            target: target.to_owned(),
            number,
            done,
        }
    }
}

/// One call's place in its target's [`ArrivalOrder`].
#[derive(Debug)]
pub struct ArrivalTicket {
    order: ArrivalOrder,
    target: String,
    number: u64,
    done: CancellationToken,
}

impl ArrivalTicket {
    /// Returns once every call to the same target received before this one gave up its place
    /// (at once when none is left). Cancel safe.
    pub async fn turn(&self) {
        let earlier: Vec<CancellationToken> = self
            .order
            .0
            .pending
            .lock()
            .get(&self.target)
            .map(|tickets| {
                tickets
                    .range(..self.number)
                    .map(|(_, t)| t.clone())
                    .collect()
            })
            .unwrap_or_default();
        // Tickets are numbered as they are taken, so no earlier one can come after this look.
        for token in earlier {
            token.cancelled().await;
        }
    }

    /// Gives up this call's place: the calls to the same target received after it may act.
    /// Idempotent.
    pub fn done(&self) {
        if self.done.is_cancelled() {
            return;
        }
        {
            let mut pending = self.order.0.pending.lock();
            if let Some(tickets) = pending.get_mut(&self.target) {
                tickets.remove(&self.number);
                if tickets.is_empty() {
                    pending.remove(&self.target);
                }
            }
        }
        self.done.cancel();
    }
}

impl Drop for ArrivalTicket {
    fn drop(&mut self) {
        self.done();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Whether `ticket`'s turn has come (its wait ends within a moment).
    async fn has_turn(ticket: &ArrivalTicket) -> bool {
        tokio::time::timeout(Duration::from_millis(50), ticket.turn())
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn calls_to_one_target_take_turns_in_arrival_order() {
        let order = ArrivalOrder::default();
        let first = order.ticket("pty-1");
        let other = order.ticket("pty-2");
        let second = order.ticket("pty-1");
        let third = order.ticket("pty-1");
        assert!(has_turn(&first).await);
        assert!(has_turn(&other).await, "another target's calls do not wait");
        assert!(!has_turn(&second).await);
        assert!(!has_turn(&third).await);
        first.done();
        assert!(has_turn(&second).await);
        assert!(!has_turn(&third).await);
        // A ticket dropped (its call ended in any way) gives its place up too.
        drop(second);
        assert!(has_turn(&third).await);
        third.done();
        third.done();
        assert!(order.0.pending.lock().get("pty-1").is_none());
    }

    #[tokio::test]
    async fn a_turn_waited_for_ends_when_the_earlier_call_is_done() {
        let order = ArrivalOrder::default();
        let first = order.ticket("s");
        let second = order.ticket("s");
        let waiting = tokio::spawn(async move {
            second.turn().await;
            second
        });
        first.done();
        let second = tokio::time::timeout(Duration::from_secs(30), waiting)
            .await
            .unwrap_or_else(|_| panic!("the turn never came"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(has_turn(&second).await);
    }
}
