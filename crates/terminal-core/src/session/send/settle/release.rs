//! The end of a send that does not settle with a result: failing it, and releasing the
//! session's send slot once nothing of it is in flight.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::error::TerminalError;

use super::super::super::shared::State;
use super::super::SendOp;

impl SendOp {
    /// Releases the session's send slot (once nothing of this send is in flight).
    pub(in crate::session) fn release(&self) {
        let mut st = self.shared.lock();
        self.release_locked(&mut st);
    }

    pub(in crate::session) fn release_locked(&self, st: &mut State) {
        if st
            .active
            .as_ref()
            .is_some_and(|a| std::ptr::eq(Arc::as_ptr(a), self))
        {
            st.active = None;
        }
        self.finished.store(true, Ordering::SeqCst);
    }

    pub(in crate::session) fn fail(&self, error: TerminalError) {
        let mut st = self.shared.lock();
        if self.settled.swap(true, Ordering::SeqCst) {
            return;
        }
        if let Some(anchor) = self.span().anchor.take() {
            st.screen.release_anchor(anchor);
        }
        if !self.in_flight.load(Ordering::SeqCst) {
            self.release_locked(&mut st);
        }
        drop(st);
        self.result.send_replace(Some(Err(error)));
    }
}
