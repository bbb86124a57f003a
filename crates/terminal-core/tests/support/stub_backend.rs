//! An in-memory [`TerminalBackend`] test double (the seed's §8 "stub backend"). Test-only.
//!
//! Sessions report motd `stub ready`, pid 123 (configurable), canned reads and signals, and
//! record every close reason. Timing is controlled with channels, never sleeps:
//! [`StubBackend::gate_spawns`] makes each spawn wait for [`PendingSpawn::resolve`] /
//! [`PendingSpawn::fail`]; [`StubSession::gate_closes`] does the same for closes; sends settle
//! when the test calls [`StubOp::finish`].

#![allow(dead_code, unreachable_pub)] // each test binary uses a different part of the double

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use std::time::Duration;

use dsh_terminal_core::{
    BackendSession, BackendSpawnSpec, CloseReport, OperationHandle, ReadRequest, ReadResult,
    SendOperation, SendRead, SendRequest, SendResult, SessionStatus, SignalResult, TerminalBackend,
    TerminalError, TerminalErrorCode, TerminalSignal, WaitReason,
};
use tokio::sync::{Mutex as AsyncMutex, mpsc, oneshot, watch};

/// Generous deadline for anything a test waits on.
pub const WAIT: Duration = Duration::from_secs(10);

/// Awaits `fut`, failing the test if it does not finish within [`WAIT`].
pub async fn within<T>(what: &str, fut: impl Future<Output = T>) -> T {
    match tokio::time::timeout(WAIT, fut).await {
        Ok(value) => value,
        Err(_) => panic!("timed out waiting for {what}"),
    }
}

/// Yields to other tasks until `cond` holds, failing the test after [`WAIT`].
pub async fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    within(what, async {
        while !cond() {
            tokio::task::yield_now().await;
        }
    })
    .await;
}

/// Lets every other ready task run a few times (used to show something is still blocked).
pub async fn let_others_run() {
    for _ in 0..64 {
        tokio::task::yield_now().await;
    }
}

fn lock<T>(m: &Mutex<T>) -> parking_lot::MutexGuard<'_, T> {
    m.lock()
}

/// A spawn waiting for the test to decide its outcome.
pub struct PendingSpawn {
    /// What the service passed to the backend.
    pub spec: BackendSpawnSpec,
    reply: oneshot::Sender<Result<(), TerminalError>>,
}

impl PendingSpawn {
    /// Lets the spawn succeed.
    pub fn resolve(self) {
        let _ = self.reply.send(Ok(()));
    }
    /// Makes the spawn fail with `error`.
    pub fn fail(self, error: TerminalError) {
        let _ = self.reply.send(Err(error));
    }
}

/// The stub backend.
pub struct StubBackend {
    backend_type: String,
    pid: Mutex<Option<u32>>,
    gated: AtomicBool,
    fail_spawn: Mutex<Option<TerminalError>>,
    gate_tx: mpsc::UnboundedSender<PendingSpawn>,
    gate_rx: AsyncMutex<mpsc::UnboundedReceiver<PendingSpawn>>,
    specs: Mutex<Vec<BackendSpawnSpec>>,
    sessions: Mutex<Vec<Arc<StubSession>>>,
    new_close_gated: AtomicBool,
    new_close_failure: Mutex<Option<TerminalError>>,
}

impl StubBackend {
    /// A backend of type `backend_type` whose spawns succeed at once.
    pub fn new(backend_type: &str) -> Arc<Self> {
        let (gate_tx, gate_rx) = mpsc::unbounded_channel();
        Arc::new(Self {
            backend_type: backend_type.to_owned(),
            pid: Mutex::new(Some(123)),
            gated: AtomicBool::new(false),
            fail_spawn: Mutex::new(None),
            gate_tx,
            gate_rx: AsyncMutex::new(gate_rx),
            specs: Mutex::new(Vec::new()),
            sessions: Mutex::new(Vec::new()),
            new_close_gated: AtomicBool::new(false),
            new_close_failure: Mutex::new(None),
        })
    }

    /// Sessions created from now on gate their closes (see [`StubSession::gate_closes`]).
    pub fn gate_closes_of_new_sessions(&self) {
        self.new_close_gated.store(true, Ordering::SeqCst);
    }

    /// Sessions created from now on fail their closes with `error` (see
    /// [`StubSession::fail_closes_with`]).
    pub fn fail_closes_of_new_sessions_with(&self, error: Option<TerminalError>) {
        *lock(&self.new_close_failure) = error;
    }

    /// From now on, each spawn waits for the test (see [`StubBackend::next_spawn`]).
    pub fn gate_spawns(&self) {
        self.gated.store(true, Ordering::SeqCst);
    }

    /// Waits for the next gated spawn.
    pub async fn next_spawn(&self) -> PendingSpawn {
        within("a gated spawn", async {
            self.gate_rx.lock().await.recv().await
        })
        .await
        .unwrap_or_else(|| panic!("stub spawn channel closed"))
    }

    /// Makes every later spawn fail with `error` (until cleared with `None`).
    pub fn fail_spawns_with(&self, error: Option<TerminalError>) {
        *lock(&self.fail_spawn) = error;
    }

    /// The pid later sessions report.
    pub fn set_pid(&self, pid: Option<u32>) {
        *lock(&self.pid) = pid;
    }

    /// Every spec the service passed, in call order.
    pub fn specs(&self) -> Vec<BackendSpawnSpec> {
        lock(&self.specs).clone()
    }

    /// Every session this backend created, in creation order.
    pub fn sessions(&self) -> Vec<Arc<StubSession>> {
        lock(&self.sessions).clone()
    }

    /// The session created for `id`.
    pub fn session(&self, id: &str) -> Arc<StubSession> {
        self.sessions()
            .into_iter()
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("stub has no session {id}"))
    }

    async fn spawn_inner(
        &self,
        spec: BackendSpawnSpec,
    ) -> Result<Arc<dyn BackendSession>, TerminalError> {
        lock(&self.specs).push(spec.clone());
        let id = spec.session_id.as_str().to_owned();
        if self.gated.load(Ordering::SeqCst) {
            let (reply, rx) = oneshot::channel();
            let _ = self.gate_tx.send(PendingSpawn { spec, reply });
            match rx.await {
                Ok(Ok(())) => {}
                Ok(Err(error)) => return Err(error),
                Err(_) => {
                    return Err(TerminalError::new(
                        TerminalErrorCode::Spawn,
                        "stub spawn abandoned",
                    ));
                }
            }
        }
        if let Some(error) = lock(&self.fail_spawn).clone() {
            return Err(error);
        }
        let session = StubSession::new(id, *lock(&self.pid));
        if self.new_close_gated.load(Ordering::SeqCst) {
            session.gate_closes();
        }
        session.fail_closes_with(lock(&self.new_close_failure).clone());
        lock(&self.sessions).push(session.clone());
        Ok(session)
    }
}

#[async_trait::async_trait]
impl TerminalBackend for StubBackend {
    fn backend_type(&self) -> &str {
        &self.backend_type
    }
    async fn spawn(
        &self,
        spec: BackendSpawnSpec,
    ) -> Result<Arc<dyn BackendSession>, TerminalError> {
        self.spawn_inner(spec).await
    }
}

/// A close waiting for the test to decide its outcome.
pub struct PendingClose {
    /// The reason the service passed.
    pub reason: String,
    reply: oneshot::Sender<()>,
}

impl PendingClose {
    /// Lets the close proceed (it then succeeds or fails per [`StubSession::fail_closes_with`]).
    pub fn release(self) {
        let _ = self.reply.send(());
    }
}

/// One stub session.
pub struct StubSession {
    /// The id the service minted.
    pub id: String,
    pid: Option<u32>,
    status: Mutex<SessionStatus>,
    closed: AtomicBool,
    closed_tx: watch::Sender<bool>,
    close_reasons: Mutex<Vec<String>>,
    close_failure: Mutex<Option<TerminalError>>,
    close_gated: AtomicBool,
    close_gate_tx: mpsc::UnboundedSender<PendingClose>,
    close_gate_rx: AsyncMutex<mpsc::UnboundedReceiver<PendingClose>>,
    send_failure: Mutex<Option<TerminalError>>,
    sends: Mutex<Vec<SendRequest>>,
    ops: Mutex<Vec<Arc<StubOp>>>,
}

impl StubSession {
    fn new(id: String, pid: Option<u32>) -> Arc<Self> {
        let (close_gate_tx, close_gate_rx) = mpsc::unbounded_channel();
        Arc::new(Self {
            id,
            pid,
            status: Mutex::new(SessionStatus::Running),
            closed: AtomicBool::new(false),
            closed_tx: watch::channel(false).0,
            close_reasons: Mutex::new(Vec::new()),
            close_failure: Mutex::new(None),
            close_gated: AtomicBool::new(false),
            close_gate_tx,
            close_gate_rx: AsyncMutex::new(close_gate_rx),
            send_failure: Mutex::new(None),
            sends: Mutex::new(Vec::new()),
            ops: Mutex::new(Vec::new()),
        })
    }

    /// Every close reason received, in order (failed closes included).
    pub fn close_reasons(&self) -> Vec<String> {
        lock(&self.close_reasons).clone()
    }

    /// Whether a close succeeded.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Waits until a close succeeds.
    pub async fn wait_closed(&self) {
        let mut rx = self.closed_tx.subscribe();
        within("the stub session to close", rx.wait_for(|closed| *closed))
            .await
            .unwrap_or_else(|_| panic!("close channel dropped"));
    }

    /// Makes closes fail with `error` (until cleared with `None`).
    pub fn fail_closes_with(&self, error: Option<TerminalError>) {
        *lock(&self.close_failure) = error;
    }

    /// From now on, each close waits for the test (see [`StubSession::next_close`]).
    pub fn gate_closes(&self) {
        self.close_gated.store(true, Ordering::SeqCst);
    }

    /// Waits for the next gated close.
    pub async fn next_close(&self) -> PendingClose {
        within("a gated close", async {
            self.close_gate_rx.lock().await.recv().await
        })
        .await
        .unwrap_or_else(|| panic!("stub close channel closed"))
    }

    /// Makes later `start_send` calls fail with `error` (until cleared).
    pub fn fail_sends_with(&self, error: Option<TerminalError>) {
        *lock(&self.send_failure) = error;
    }

    /// Every accepted send request.
    pub fn sends(&self) -> Vec<SendRequest> {
        lock(&self.sends).clone()
    }

    /// The operations started so far.
    pub fn ops(&self) -> Vec<Arc<StubOp>> {
        lock(&self.ops).clone()
    }

    /// Sets the reported status.
    pub fn set_status(&self, status: SessionStatus) {
        *lock(&self.status) = status;
    }

    async fn close_inner(&self, reason: String) -> Result<CloseReport, TerminalError> {
        lock(&self.close_reasons).push(reason.clone());
        if self.close_gated.load(Ordering::SeqCst) {
            let (reply, rx) = oneshot::channel();
            let _ = self.close_gate_tx.send(PendingClose { reason, reply });
            let _ = rx.await;
        }
        if let Some(error) = lock(&self.close_failure).clone() {
            return Err(error);
        }
        self.closed.store(true, Ordering::SeqCst);
        self.closed_tx.send_replace(true);
        Ok(CloseReport {
            processes_stopped: 1,
        })
    }
}

#[async_trait::async_trait]
impl BackendSession for StubSession {
    fn motd(&self) -> String {
        "stub ready".to_owned()
    }
    fn pid(&self) -> Option<u32> {
        self.pid
    }
    fn status(&self) -> SessionStatus {
        lock(&self.status).clone()
    }
    fn start_send(&self, request: SendRequest) -> Result<SendOperation, TerminalError> {
        if self.is_closed() {
            return Err(TerminalError::new(
                TerminalErrorCode::Closing,
                "stub session is closed",
            ));
        }
        if let Some(error) = lock(&self.send_failure).clone() {
            return Err(error);
        }
        lock(&self.sends).push(request);
        let op = StubOp::new();
        lock(&self.ops).push(op.clone());
        Ok(SendOperation::new(op))
    }
    fn input_hidden(&self) -> bool {
        false
    }

    fn working_dir_gone(&self) -> bool {
        false
    }

    fn read(&self, request: ReadRequest) -> Result<ReadResult, TerminalError> {
        if request.count == Some(0) {
            return Err(TerminalError::invalid("count must be positive"));
        }
        Ok(ReadResult {
            text: format!("{} scrollback", self.id),
            total_lines: 1,
            line_begin: 0,
            line_end: 1,
            truncated: false,
            line_start: None,
            alternate_screen: false,
            first_line: None,
        })
    }
    /// The stub's programs are never busy after a signal.
    async fn after_signal(
        &self,
        _pgid: i32,
        _within: std::time::Duration,
    ) -> dsh_terminal_core::AfterSignal {
        dsh_terminal_core::AfterSignal::Settled
    }
    fn cursor_row(&self) -> Option<String> {
        None
    }
    fn signal(&self, _signal: TerminalSignal) -> Result<SignalResult, TerminalError> {
        if self.is_closed() {
            return Err(TerminalError::new(
                TerminalErrorCode::Closing,
                "stub session is closed",
            ));
        }
        Ok(SignalResult {
            target_pgid: 42,
            session_pgid: 42,
            delivered: true,
            shell_targeted: false,
            shell_ran_command: false,
            delivery: dsh_terminal_core::SignalDelivery::ProcessGroup,
            command_line_ended: false,
        })
    }
    async fn close(&self, reason: String) -> Result<CloseReport, TerminalError> {
        self.close_inner(reason).await
    }
}

/// A stub send operation; settles when the test calls [`StubOp::finish`] or it is cancelled.
pub struct StubOp {
    outcome: watch::Sender<Option<Result<SendResult, TerminalError>>>,
    output: Mutex<String>,
    cancelled: AtomicBool,
}

impl StubOp {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            outcome: watch::channel(None).0,
            output: Mutex::new(String::new()),
            cancelled: AtomicBool::new(false),
        })
    }

    /// Appends output that `read_output` will return.
    pub fn push_output(&self, text: &str) {
        lock(&self.output).push_str(text);
    }

    /// Settles the send with `result` (no-op once settled).
    pub fn finish(&self, result: Result<SendResult, TerminalError>) {
        self.outcome.send_if_modified(|slot| {
            if slot.is_some() {
                return false;
            }
            *slot = Some(result);
            true
        });
    }

    /// Whether `cancel` was called before settlement.
    pub fn was_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }
}

/// A settled-send result with `viewport`.
pub fn send_result(viewport: &str, wait_reason: WaitReason) -> SendResult {
    SendResult {
        viewport: viewport.to_owned(),
        wait_reason,
        session_status: SessionStatus::Running,
        truncated: false,
        exit_code: Some(0),
        foreground: None,
        input_mode: Default::default(),
        earlier_exits: dsh_terminal_core::EarlierExits::default(),
        output_bytes: viewport.len() as u64,
        head: None,
        notices: Vec::new(),
        newest_line: None,
        prompt_owed: false,
        prompt_unmarked: false,
        entered_none: false,
    }
}

#[async_trait::async_trait]
impl OperationHandle for StubOp {
    async fn done(&self) -> Result<SendResult, TerminalError> {
        let mut rx = self.outcome.subscribe();
        match rx.wait_for(Option::is_some).await {
            Ok(outcome) => outcome.clone().unwrap_or_else(|| unreachable!()),
            Err(_) => Err(TerminalError::new(
                TerminalErrorCode::Transport,
                "stub op dropped",
            )),
        }
    }
    fn read_output(&self) -> SendRead {
        SendRead {
            delta: std::mem::take(&mut *lock(&self.output)),
            truncated: false,
            ..SendRead::default()
        }
    }
    fn cancel(&self) -> bool {
        if self.is_finished() {
            return false;
        }
        self.cancelled.store(true, Ordering::SeqCst);
        self.finish(Ok(send_result("^C", WaitReason::StdinRead)));
        true
    }
    fn is_finished(&self) -> bool {
        self.outcome.borrow().is_some()
    }
}
