//! The `Terminals` service against an in-memory stub backend (the seed's §8.1).

#![expect(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions unwrap like the tests do"
)]

#[path = "../support/stub_backend.rs"]
mod stub;

use std::path::PathBuf;
use std::sync::Arc;

use dsh_context::{Agent, Context};
use dsh_invariants::{Invariants, InvariantsPlugin};
use dsh_terminal_core::{
    CLOSE_REASON_MODEL_REQUEST, CLOSE_REASON_OWNER_DISPOSED, CLOSE_REASON_ROLLBACK,
    CLOSE_REASON_SERVICE_DISPOSED,
};
use dsh_terminal_core::{
    CloseOutcome, CloseReport, ReadRequest, SendRequest, SessionId, SessionSnapshot, SessionStatus,
    SpawnRequest, SpawnResult, TerminalError, TerminalErrorCode, TerminalSignal, Terminals,
    TerminalsPlugin, WaitReason, invariant_companion,
};
use pretty_assertions::assert_eq;
use stub::{StubBackend, eventually, let_others_run, send_result, within};

struct Fixture {
    ctx: Context,
    terminals: Arc<Terminals>,
    stub: Arc<StubBackend>,
    owner: Agent,
}

fn fixture() -> Fixture {
    let ctx = Context::empty();
    let terminals = Terminals::new();
    let stub = StubBackend::new("stub");
    terminals.register_backend(stub.clone()).unwrap();
    let owner = Agent::new(&ctx, "agent-1");
    Fixture {
        ctx,
        terminals,
        stub,
        owner,
    }
}

fn request(name: Option<&str>) -> SpawnRequest {
    SpawnRequest {
        backend_type: "stub".to_owned(),
        name: name.map(str::to_owned),
        cwd: None,
    }
}

fn send(text: &str) -> SendRequest {
    SendRequest {
        text: text.to_owned(),
        submit: true,
        timeout: None,
    }
}

fn id(s: &str) -> SessionId {
    SessionId::new(s)
}

fn code<T: std::fmt::Debug>(result: Result<T, TerminalError>) -> TerminalErrorCode {
    result.unwrap_err().code()
}

async fn open(f: &Fixture, owner: &Agent, name: Option<&str>) -> SpawnResult {
    within("spawn", f.terminals.spawn(owner, request(name)))
        .await
        .unwrap()
}

/// Disposes the service and asserts nothing is left (every stub session closed).
async fn finish(f: Fixture) {
    within("service disposal", f.terminals.dispose())
        .await
        .unwrap();
    assert_eq!(f.terminals.session_count(), 0);
    assert!(f.stub.sessions().iter().all(|s| s.is_closed()));
    f.terminals.check_invariants().unwrap();
    f.ctx.dispose().await;
}

mod listing;
mod spawn;
mod teardown;
mod warm;
