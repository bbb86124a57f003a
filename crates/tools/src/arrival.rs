//! [`ArrivalOrder`]: calls that act on one target (a terminal session), written by the client
//! together, take effect in the order the host received them, even when it runs them
//! concurrently.
//!
//! A host that reads calls in an order (one connection's stdio lines) hands each call it
//! receives for a target an [`ArrivalTicket`] (through [`crate::ToolCall::arrival`]). A ticket
//! waits for the calls to its target that had not started when it arrived (calls written
//! together, an agent's parallel tool calls), and a queued one (a send) also for the queued
//! calls before it that are still running (a send behind a running send, as typed-ahead
//! commands); any other call that arrives while an earlier one already runs is not held behind
//! it, nor behind the sends queued after that one (a read or a signal while a long send runs
//! acts on it, as the terminal's keys would), unless it was written together with that one
//! (a close written with a send closes the session once that send is done, even when the send
//! started before the close was read). Each call marks
//! when it started ([`ArrivalTicket::started`]: a send holds the session) and when it is done
//! ([`ArrivalTicket::done`]: a send settled); a tool waits either for the calls before it to be
//! done ([`ArrivalTicket::turn`]: a send after a send, a read, a close) or only to have started
//! ([`ArrivalTicket::turn_started`]: a signal, meant for what the send before it started).
//! Dropping a ticket marks it done, so a call that ends in any way never holds the ones after
//! it; a call that waits for a human's approval is marked done first (the registry does that).
//!
//! Which calls take a place, and of which target, each tool declares ([`crate::Tool::arrival`]):
//! [`ArrivalOrder::for_tools`] reads that from the registry as each call arrives.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::Tools;

/// How a tool's calls take their place among the calls to one target (see the module docs),
/// as the tool declares it ([`crate::Tool::arrival`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// The argument naming the target, a string (blanks around it are ignored, as
    /// [`crate::id_argument`] does); a call without it takes no place.
    pub target_argument: &'static str,
    /// Whether a call also waits for the queued calls before it that still run (a send
    /// behind a running send, as a command typed ahead waits for the one before it).
    pub queued: bool,
}

/// The calls a host received per target that have not started yet (see the module docs).
/// Cheap to clone: clones share the order.
#[derive(Clone, Debug, Default)]
pub struct ArrivalOrder(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    /// The registry whose tools declare how their calls are ordered (none: [`Self::ticket_for`]
    /// hands out no ticket).
    tools: Option<Arc<Tools>>,
    /// The last number handed out.
    last: AtomicU64,
    /// Per target, the tickets not done yet, by number.
    pending: Mutex<HashMap<String, BTreeMap<u64, Marks>>>,
}

/// A ticket's two marks, each a token cancelled when it is reached, whether it is queued, and
/// the group of calls written together it came in.
#[derive(Clone, Debug, Default)]
struct Marks {
    started: CancellationToken,
    done: CancellationToken,
    queued: bool,
    batch: u64,
}

impl ArrivalOrder {
    /// An order for the calls to the tools of `tools`, each placed as its tool declares.
    #[must_use]
    pub fn for_tools(tools: Arc<Tools>) -> Self {
        Self(Arc::new(Inner {
            tools: Some(tools),
            ..Inner::default()
        }))
    }

    /// The ticket for a call of the tool `tool` with `arguments`, received now in the
    /// group `batch` of calls the client wrote together, when that tool
    /// declares an [`Arrival`] and the call names its target; `None` for any other call (and
    /// always for an order not made [`Self::for_tools`]).
    #[must_use]
    pub fn ticket_for(
        &self,
        tool: &str,
        arguments: Option<&Map<String, Value>>,
        batch: u64,
    ) -> Option<ArrivalTicket> {
        let arrival = self.0.tools.as_ref()?.arrival(tool)?;
        let Some(Value::String(target)) = arguments?.get(arrival.target_argument) else {
            return None;
        };
        Some(self.ticket(target.trim(), arrival.queued, batch))
    }

    /// A ticket for a call to `target` received now in the group `batch` of calls written
    /// together: it waits for the tickets for `target` that have not started yet (but, not
    /// `queued`, for a queued one behind a queued one that runs and came in an earlier group),
    /// for the queued ones of its own group that started, and, when `queued` (a
    /// send), for the queued ones still running.
    #[must_use]
    pub(crate) fn ticket(&self, target: &str, queued: bool, batch: u64) -> ArrivalTicket {
        let number = self.0.last.fetch_add(1, Ordering::SeqCst) + 1;
        let mut pending = self.0.pending.lock();
        let tickets = pending.entry(target.to_owned()).or_default();
        // A queued call waits for the queued ones still running; any call for those not
        // started yet, but a call that is not queued (a signal, a read, a close) not for a
        // queued call behind a queued one that runs now and was written apart from it (sends
        // typed ahead of a running one): it acts on what runs now, as the terminal's keys
        // do. Written together with the running one, it comes after every call written with
        // it (a signal for what the send just before it starts), and a close waits for those
        // sends to be done even when they had started by the time it was read.
        let mut running_apart = false;
        let before: Vec<Marks> = tickets
            .values()
            .filter(|m| {
                let started = m.started.is_cancelled();
                let passed = m.queued && running_apart;
                let together = m.queued && started && m.batch == batch;
                let waits = (queued && m.queued) || (!started && (queued || !passed)) || together;
                running_apart |= m.queued && started && m.batch != batch;
                waits
            })
            .cloned()
            .collect();
        let marks = Marks {
            queued,
            batch,
            ..Marks::default()
        };
        tickets.insert(number, marks.clone());
        ArrivalTicket {
            order: self.clone(),
            target: target.to_owned(),
            number,
            marks,
            before,
        }
    }
}

/// One call's place in its target's [`ArrivalOrder`].
#[derive(Debug)]
pub struct ArrivalTicket {
    order: ArrivalOrder,
    target: String,
    number: u64,
    marks: Marks,
    /// The marks of the calls to the same target that had not started when this one arrived.
    before: Vec<Marks>,
}

impl ArrivalTicket {
    /// Returns once every call to the same target that had not started when this one arrived
    /// is done (at once when there was none). Cancel safe.
    pub async fn turn(&self) {
        for marks in &self.before {
            marks.done.cancelled().await;
        }
    }

    /// Returns once every call to the same target that had not started when this one arrived
    /// has started (or is done). Cancel safe.
    pub async fn turn_started(&self) {
        for marks in &self.before {
            marks.started.cancelled().await;
        }
    }

    /// Whether this call waited for calls written before it (see [`ArrivalTicket::turn`]).
    #[must_use]
    pub fn waited_for_others(&self) -> bool {
        !self.before.is_empty()
    }

    /// Whether a queued call to the same target (a send) was not done when this one arrived:
    /// this call was written before that one's result came back.
    #[must_use]
    pub fn followed_a_queued_call(&self) -> bool {
        self.before.iter().any(|marks| marks.queued)
    }

    /// This call started (a send holds its session): calls that wait only for that may act.
    pub fn started(&self) {
        self.marks.started.cancel();
    }

    /// This call is done: every call after it may act. Idempotent.
    pub fn done(&self) {
        if self.marks.done.is_cancelled() {
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
        self.marks.started.cancel();
        self.marks.done.cancel();
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

    /// Whether `wait` ends within a moment.
    async fn ends(wait: impl Future<Output = ()>) -> bool {
        tokio::time::timeout(Duration::from_millis(50), wait)
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn calls_written_together_take_turns_in_arrival_order() {
        let order = ArrivalOrder::default();
        let first = order.ticket("pty-1", false, 0);
        let other = order.ticket("pty-2", false, 0);
        let second = order.ticket("pty-1", false, 0);
        let third = order.ticket("pty-1", false, 0);
        assert!(ends(first.turn()).await);
        assert!(
            ends(other.turn()).await,
            "another target's calls do not wait"
        );
        assert!(!ends(second.turn()).await);
        assert!(!ends(second.turn_started()).await);
        // Started: a call waiting only for that goes on; one waiting for its end does not.
        first.started();
        assert!(ends(second.turn_started()).await);
        assert!(!ends(second.turn()).await);
        first.done();
        assert!(ends(second.turn()).await);
        assert!(!ends(third.turn()).await);
        // A ticket dropped (its call ended in any way) is done too.
        drop(second);
        assert!(ends(third.turn()).await);
        third.done();
        third.done();
        assert!(order.0.pending.lock().get("pty-1").is_none());
    }

    /// A call that arrives while an earlier one already runs (a read while a long send runs)
    /// does not wait for it.
    #[tokio::test]
    async fn a_call_after_an_earlier_one_started_does_not_wait_for_it() {
        let order = ArrivalOrder::default();
        let send = order.ticket("s", false, 0);
        send.started();
        let read = order.ticket("s", false, 0);
        assert!(!read.waited_for_others());
        assert!(ends(read.turn()).await);
        let waiting = order.ticket("s", false, 0);
        assert!(waiting.waited_for_others(), "the read had not started");
        let task = tokio::spawn(async move {
            waiting.turn().await;
        });
        read.done();
        tokio::time::timeout(Duration::from_secs(30), task)
            .await
            .unwrap_or_else(|_| panic!("the turn never came"))
            .unwrap_or_else(|e| panic!("{e}"));
        drop(send);
    }

    /// A queued call (a send) waits for a queued one still running (a send behind a send),
    /// not for other calls that started.
    #[tokio::test]
    async fn a_queued_call_waits_for_the_queued_ones_still_running() {
        let order = ArrivalOrder::default();
        let send = order.ticket("s", true, 0);
        send.started();
        let read = order.ticket("s", false, 0);
        read.started();
        let next_send = order.ticket("s", true, 0);
        assert!(next_send.waited_for_others());
        assert!(!ends(next_send.turn()).await);
        send.done();
        assert!(
            ends(next_send.turn()).await,
            "the started read is not waited for"
        );
        drop(read);
    }

    /// Sends written together: once the first runs, a signal, read or close made then (in a
    /// later write) does not wait for the second, queued behind it (before, only a send that
    /// arrived after the first had started was passed over, so a SIGINT waited for the
    /// running command to end and stopped the second); one written together with them comes
    /// after them, also when the first has started by the time it is read.
    #[tokio::test]
    async fn a_call_made_while_the_first_of_sends_written_together_runs_acts_on_it() {
        let order = ArrivalOrder::default();
        let first = order.ticket("s", true, 1);
        let second = order.ticket("s", true, 1);
        let third = order.ticket("s", true, 1);
        first.started();
        let together = order.ticket("s", false, 1);
        assert!(
            !ends(together.turn_started()).await,
            "written with them: after them"
        );
        drop(together);
        let signal = order.ticket("s", false, 2);
        assert!(!signal.waited_for_others(), "{signal:?}");
        assert!(ends(signal.turn()).await);
        assert!(!ends(second.turn()).await);
        drop(first);
        assert!(ends(second.turn()).await);
        assert!(!ends(third.turn()).await);
        drop((second, third));
    }

    /// A close written together with a send comes after it, also when the send started
    /// before the close was read (it closed the session under the send's command); a signal
    /// or read written together waits only for the send to have started (one made in a later
    /// group does not wait: see the test below).
    #[tokio::test]
    async fn a_close_written_with_a_running_send_waits_for_it_to_be_done() {
        let order = ArrivalOrder::default();
        let send = order.ticket("s", true, 1);
        send.started();
        let close = order.ticket("s", false, 1);
        assert!(close.waited_for_others());
        assert!(ends(close.turn_started()).await, "a signal acts on it");
        assert!(!ends(close.turn()).await, "a close waits for its end");
        send.done();
        assert!(ends(close.turn()).await);
    }

    /// A signal, read or close made while a send runs does not wait for a send queued behind
    /// the running one: it acts on what runs now.
    #[tokio::test]
    async fn a_call_made_while_a_send_runs_is_not_held_behind_the_queue() {
        let order = ArrivalOrder::default();
        let running = order.ticket("s", true, 1);
        running.started();
        let queued = order.ticket("s", true, 2);
        assert!(!ends(queued.turn()).await);
        // Written in one write with the queued send, too.
        let signal = order.ticket("s", false, 2);
        assert!(!signal.waited_for_others());
        assert!(ends(signal.turn_started()).await);
        drop(running);
        assert!(ends(queued.turn()).await);
    }
}
