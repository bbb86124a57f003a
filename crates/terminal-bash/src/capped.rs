//! [`CappedSession`]: a session with resource caps, whose send results say when a cap
//! stopped something since the previous result (a fork refused at the process cap, a process
//! killed at the memory cap), as `[limit: …]` notices.

use std::sync::{Arc, OnceLock};

use dsh_sandbox::LimitHits;
use dsh_terminal_core::{
    BackendSession, CloseReport, OperationHandle, PtySession, ReadRequest, ReadResult,
    SendOperation, SendProgress, SendRead, SendRequest, SendResult, SessionStatus, SignalResult,
    TerminalError, TerminalSignal,
};
use parking_lot::Mutex;

use crate::confine::WatchedLimits;

/// The caps of one session and what its results reported of them so far.
struct CapWatch {
    limits: Arc<WatchedLimits>,
    reported: Mutex<LimitHits>,
}

impl CapWatch {
    /// Notices for every cap that stopped something since the last call.
    fn take_notices(&self) -> Vec<String> {
        let guard = self.limits.guard();
        let now = guard.hits();
        let mut reported = self.reported.lock();
        let notices = guard.notices(*reported, now);
        *reported = now;
        notices
    }
}

/// The error for a shell that failed to start (`err`) after its caps stopped something (a
/// process killed at the memory cap, a fork refused at the process cap): `err`'s message, what
/// the caps did, and that the operator must raise them. `None` when the caps stopped nothing.
pub(crate) fn startup_cap_error(
    err: &TerminalError,
    limits: &WatchedLimits,
) -> Option<TerminalError> {
    let guard = limits.guard();
    let stops = guard.stops(LimitHits::default(), guard.hits());
    if stops.is_empty() {
        return None;
    }
    let stops: Vec<String> = stops.iter().map(ToString::to_string).collect();
    Some(TerminalError::new(
        err.code(),
        format!(
            "{} ({}): the session's caps are too small for the shell to start, and nothing you can do from a session changes that; ask the user to raise them (dsh-mcp: --max-session-memory-mib, --max-session-pids)",
            err.message(),
            stops.join("; ")
        ),
    ))
}

/// A [`PtySession`] with resource caps (see the module docs).
pub(crate) struct CappedSession {
    inner: Arc<PtySession>,
    caps: Arc<CapWatch>,
}

impl CappedSession {
    pub(crate) fn new(inner: Arc<PtySession>, limits: Arc<WatchedLimits>) -> Self {
        // Whatever the startup hit is not news to the first send.
        let reported = Mutex::new(limits.guard().hits());
        Self {
            inner,
            caps: Arc::new(CapWatch { limits, reported }),
        }
    }
}

#[async_trait::async_trait]
impl BackendSession for CappedSession {
    fn motd(&self) -> String {
        self.inner.motd()
    }
    fn pid(&self) -> Option<u32> {
        BackendSession::pid(&*self.inner)
    }
    fn status(&self) -> SessionStatus {
        BackendSession::status(&*self.inner)
    }
    fn start_send(&self, request: SendRequest) -> Result<SendOperation, TerminalError> {
        let op = self.inner.start_send(request)?;
        Ok(SendOperation::new(Arc::new(CappedSend {
            op,
            caps: Arc::clone(&self.caps),
            notices: OnceLock::new(),
        })))
    }
    fn read(&self, request: ReadRequest) -> Result<ReadResult, TerminalError> {
        self.inner.read(request)
    }
    fn input_hidden(&self) -> bool {
        self.inner.input_hidden()
    }
    fn prompts_drawn(&self) -> Option<u64> {
        self.inner.prompts_drawn()
    }
    fn program_group(&self) -> Option<i32> {
        self.inner.program_group()
    }
    fn program_groups_held(&self) -> Vec<i32> {
        self.inner.program_groups_held()
    }
    fn program_replaced_shell(&self) -> bool {
        self.inner.program_replaced_shell()
    }
    fn group_members(&self, pgid: i32) -> Vec<String> {
        self.inner.group_members(pgid)
    }
    fn signal_group(&self, pgid: i32, signal: TerminalSignal) -> bool {
        self.inner.signal_group(pgid, signal)
    }
    fn cursor_row(&self) -> Option<String> {
        self.inner.cursor_row()
    }
    fn working_dir_gone(&self) -> bool {
        self.inner.working_dir_gone()
    }
    fn signal(&self, signal: TerminalSignal) -> Result<SignalResult, TerminalError> {
        self.inner.signal(signal)
    }
    async fn after_signal(
        &self,
        pgid: i32,
        within: std::time::Duration,
    ) -> dsh_terminal_core::AfterSignal {
        self.inner.after_signal(pgid, within).await
    }
    async fn close(&self, reason: String) -> Result<CloseReport, TerminalError> {
        self.inner.close(reason).await
    }
}

/// A send whose settled result carries the caps' notices (taken once, so every caller of
/// `done` gets the same result). Only the notices are kept here: the result itself is held
/// once, by the inner send.
struct CappedSend {
    op: SendOperation,
    caps: Arc<CapWatch>,
    notices: OnceLock<Vec<String>>,
}

#[async_trait::async_trait]
impl OperationHandle for CappedSend {
    async fn done(&self) -> Result<SendResult, TerminalError> {
        let mut result = self.op.done().await?;
        let notices = self.notices.get_or_init(|| self.caps.take_notices());
        result.notices.extend(notices.iter().cloned());
        Ok(result)
    }
    fn read_output(&self) -> SendRead {
        self.op.read_output()
    }
    fn output_shown(&self) {
        self.op.output_shown();
    }
    fn cancel(&self) -> bool {
        self.op.cancel()
    }
    fn cancel_took_effect(&self) -> bool {
        self.op.cancel_took_effect()
    }
    fn in_background(&self) {
        self.op.in_background();
    }
    fn discard_result(&self) {
        self.op.discard_result();
    }
    fn is_finished(&self) -> bool {
        self.op.is_finished()
    }
    // Settled while it still writes the rest of its input: a send now is told that
    // (`INPUT_PENDING`), not that another send is still active.
    fn is_settled(&self) -> bool {
        self.op.is_settled()
    }
    fn progress(&self) -> SendProgress {
        self.op.progress()
    }
    fn output_bytes(&self) -> u64 {
        self.op.output_bytes()
    }
}
