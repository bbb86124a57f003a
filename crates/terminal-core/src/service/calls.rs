//! The per-session calls of [`Terminals`]: send, read, signal, kill and list, each fenced to
//! the exact owner.

use std::sync::Arc;

use dsh_context::Agent;

use crate::backend::{BackendSession, SendOperation};
use crate::error::TerminalError;
use crate::types::{
    CloseOutcome, ReadRequest, ReadResult, SendRequest, SessionId, SessionSnapshot, SignalResult,
    TerminalSignal,
};

use super::{CLOSE_REASON_MODEL_REQUEST, SendSlot, Terminals, find_owned, parse_id};

/// Resets a `Starting` send slot if the backend's `start_send` unwinds.
struct SendSlotGuard<'a> {
    service: &'a Terminals,
    id: &'a SessionId,
    armed: bool,
}

impl Drop for SendSlotGuard<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let mut st = self.service.lock();
        if let Some(rec) = st.records.iter_mut().find(|r| r.id == *self.id)
            && matches!(rec.send, SendSlot::Starting)
        {
            rec.send = SendSlot::Idle;
        }
    }
}

impl Terminals {
    /// Starts a send on one of the owner's sessions. The send slot is reserved before this
    /// returns; await [`SendOperation::done`] for the result.
    ///
    /// # Errors
    /// - `NoSession` for an unknown id, `ForeignSession` for another owner's session.
    /// - `Closing` while the session is being closed.
    /// - `SendActive` while the previous send has not finished; `InputPending` while it has
    ///   returned its result but still writes the rest of its input.
    /// - The backend's error (`SendActive`, `Closing`, `Exited`, `Transport`).
    pub fn start_send(
        &self,
        owner: &Agent,
        id: &SessionId,
        request: SendRequest,
    ) -> Result<SendOperation, TerminalError> {
        let session = {
            let mut st = self.lock();
            let rec = find_owned(&mut st.records, owner, id)?;
            if rec.closing.is_some() {
                return Err(TerminalError::closing(id));
            }
            match &rec.send {
                SendSlot::Starting => return Err(TerminalError::send_active(id)),
                SendSlot::Started(op) if !op.is_finished() => {
                    return Err(if op.is_settled() {
                        TerminalError::input_pending(id)
                    } else {
                        TerminalError::send_active(id)
                    });
                }
                SendSlot::Idle | SendSlot::Started(_) => {}
            }
            rec.send = SendSlot::Starting;
            rec.session.clone()
        };
        let mut guard = SendSlotGuard {
            service: self,
            id,
            armed: true,
        };
        let result = session.start_send(request);
        guard.armed = false;
        let mut st = self.lock();
        if let Some(rec) = st.records.iter_mut().find(|r| r.id == *id) {
            rec.send = match &result {
                Ok(op) => SendSlot::Started(op.clone()),
                Err(_) => SendSlot::Idle,
            };
        }
        if let Err(error) = &result {
            tracing::debug!(session_id = %id, owner = %owner.id(), %error, "PTY send rejected");
        }
        result
    }

    /// Reads a scrollback page of one of the owner's sessions. Allowed while closing.
    ///
    /// # Errors
    /// - `NoSession` for an unknown id, `ForeignSession` for another owner's session.
    /// - The backend's error (`InvalidRequest` for a zero count).
    pub fn read(
        &self,
        owner: &Agent,
        id: &SessionId,
        request: ReadRequest,
    ) -> Result<ReadResult, TerminalError> {
        let session = self.owned_session(owner, id)?;
        session.read(request)
    }

    /// Signals the foreground process group of one of the owner's sessions. Blocking (`/proc`
    /// reads; call it off the async workers): a SIGINT or SIGTSTP to a REPL still taking in
    /// the text written to it, or to node between a line and its next read of keys, waits for
    /// it up to 300 ms (see [`BackendSession::signal`]).
    ///
    /// # Errors
    /// - `NoSession` for an unknown id, `ForeignSession` for another owner's session.
    /// - The backend's error (`Closing`, `Signal`).
    pub fn signal(
        &self,
        owner: &Agent,
        id: &SessionId,
        signal: TerminalSignal,
    ) -> Result<SignalResult, TerminalError> {
        let session = self.owned_session(owner, id)?;
        tracing::debug!(session_id = %id, owner = %owner.id(), %signal, "signalling PTY session");
        session.signal(signal)
    }

    /// Closes one of the owner's sessions with reason [`CLOSE_REASON_MODEL_REQUEST`] and waits
    /// until its processes are gone. On success the session is no longer listed.
    ///
    /// Returns [`CloseOutcome::AlreadyClosing`] (after waiting for it) when another close of
    /// the session was already in flight.
    ///
    /// # Errors
    /// - `NoSession` for an unknown id, `ForeignSession` for another owner's session.
    /// - The backend's close error (usually `Cleanup`), also when joining a close that fails.
    ///   The session then stays listed, so the close can be retried.
    ///
    /// # Cancel safety
    /// Cancel safe: the close runs on its own task; dropping the future only stops waiting.
    pub async fn kill(&self, owner: &Agent, id: &SessionId) -> Result<CloseOutcome, TerminalError> {
        let (fence, job) = {
            let mut st = self.lock();
            let rec = find_owned(&mut st.records, owner, id)?;
            let mut jobs = Vec::new();
            let fence = self.fence_for(rec, CLOSE_REASON_MODEL_REQUEST, &mut jobs);
            (fence, jobs.pop())
        };
        match job {
            Some(job) => {
                job.launch().await;
                fence.wait(id).await.map(CloseOutcome::Closed)
            }
            None => fence.wait(id).await.map(|_| CloseOutcome::AlreadyClosing),
        }
    }

    /// Snapshots of `owner`'s sessions in creation (id) order (closing ones included); status and
    /// pid are read live from the backend.
    pub fn list(&self, owner: &Agent) -> Vec<SessionSnapshot> {
        let mut items: Vec<_> = {
            let st = self.lock();
            st.records
                .iter()
                .filter(|r| r.owner == *owner)
                .map(|r| {
                    (
                        r.id.clone(),
                        r.name.clone(),
                        r.backend_type.clone(),
                        r.session.clone(),
                    )
                })
                .collect()
        };
        // Creation order (the id counter), even when concurrent opens were published out of
        // order.
        items.sort_by_key(|(id, ..)| parse_id(id).unwrap_or(u64::MAX));
        items
            .into_iter()
            .map(
                |(session_id, name, backend_type, session)| SessionSnapshot {
                    session_id,
                    name,
                    backend_type,
                    pid: session.pid(),
                    status: session.status(),
                },
            )
            .collect()
    }

    /// Whether text typed into one of `owner`'s sessions now would not be shown (echo off in
    /// canonical mode: a password prompt); `false` for an unknown or foreign id.
    pub fn input_hidden(&self, owner: &Agent, id: &SessionId) -> bool {
        self.owned_session(owner, id)
            .is_ok_and(|session| session.input_hidden())
    }

    /// How many prompts one of `owner`'s sessions has drawn so far (see
    /// [`BackendSession::prompts_drawn`](crate::BackendSession::prompts_drawn)); `None` for an
    /// unknown or foreign id, or a backend without prompt marks.
    pub fn prompts_drawn(&self, owner: &Agent, id: &SessionId) -> Option<u64> {
        self.owned_session(owner, id)
            .ok()
            .and_then(|session| session.prompts_drawn())
    }

    /// The foreground process group of one of `owner`'s sessions when a program the shell
    /// started holds its terminal (see
    /// [`BackendSession::program_group`](crate::BackendSession::program_group)); `None` at the
    /// shell, for an unknown or foreign id, or a backend that cannot tell.
    pub fn program_group(&self, owner: &Agent, id: &SessionId) -> Option<i32> {
        self.owned_session(owner, id)
            .ok()
            .and_then(|session| session.program_group())
    }

    /// The process groups holding the terminal of one of `owner`'s sessions, the foreground
    /// one first (see
    /// [`BackendSession::program_groups_held`](crate::BackendSession::program_groups_held));
    /// empty at the shell, for an unknown or foreign id, or a backend that cannot tell.
    pub fn program_groups_held(&self, owner: &Agent, id: &SessionId) -> Vec<i32> {
        self.owned_session(owner, id)
            .map(|session| session.program_groups_held())
            .unwrap_or_default()
    }

    /// The program names of the live processes of one of `owner`'s sessions in process group
    /// `pgid` (see [`BackendSession::group_members`](crate::BackendSession::group_members));
    /// empty for the shell's group, an unknown or foreign id too.
    pub fn group_members(&self, owner: &Agent, id: &SessionId, pgid: i32) -> Vec<String> {
        self.owned_session(owner, id)
            .map(|session| session.group_members(pgid))
            .unwrap_or_default()
    }

    /// Sends `signal` to process group `pgid` of one of `owner`'s sessions while processes of
    /// the session are in it (see
    /// [`BackendSession::signal_group`](crate::BackendSession::signal_group)); whether it went.
    pub fn signal_group(
        &self,
        owner: &Agent,
        id: &SessionId,
        pgid: i32,
        signal: TerminalSignal,
    ) -> bool {
        self.owned_session(owner, id)
            .is_ok_and(|session| session.signal_group(pgid, signal))
    }

    /// Whether the program holding the terminal of one of `owner`'s sessions replaced its shell
    /// (see [`BackendSession::program_replaced_shell`](crate::BackendSession::program_replaced_shell));
    /// `false` for an unknown or foreign id too.
    pub fn program_replaced_shell(&self, owner: &Agent, id: &SessionId) -> bool {
        self.owned_session(owner, id)
            .is_ok_and(|session| session.program_replaced_shell())
    }

    /// The cursor row's text before the cursor in one of `owner`'s sessions (see
    /// [`BackendSession::cursor_row`](crate::BackendSession::cursor_row)); `None` for an
    /// unknown or foreign id too.
    pub fn cursor_row(&self, owner: &Agent, id: &SessionId) -> Option<String> {
        self.owned_session(owner, id)
            .ok()
            .and_then(|session| session.cursor_row())
    }

    /// After a signal to the program group `pgid` of one of `owner`'s sessions: what it does
    /// a moment later (see [`BackendSession::after_signal`](crate::BackendSession::after_signal));
    /// [`AfterSignal::Settled`](crate::AfterSignal::Settled) for an unknown or foreign id.
    pub async fn after_signal(
        &self,
        owner: &Agent,
        id: &SessionId,
        pgid: i32,
        within: std::time::Duration,
    ) -> crate::AfterSignal {
        match self.owned_session(owner, id) {
            Ok(session) => session.after_signal(pgid, within).await,
            Err(_) => crate::AfterSignal::Settled,
        }
    }

    /// Checks that `id` names one of `owner`'s sessions (closing or not), so a caller can
    /// report a wrong id before any other failure.
    ///
    /// # Errors
    /// `NoSession` for an unknown id, `ForeignSession` for another owner's session.
    pub fn check_owned(&self, owner: &Agent, id: &SessionId) -> Result<(), TerminalError> {
        self.owned_session(owner, id).map(drop)
    }

    fn owned_session(
        &self,
        owner: &Agent,
        id: &SessionId,
    ) -> Result<Arc<dyn BackendSession>, TerminalError> {
        let mut st = self.lock();
        Ok(find_owned(&mut st.records, owner, id)?.session.clone())
    }
}
