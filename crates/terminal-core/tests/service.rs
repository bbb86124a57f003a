//! The `Terminals` service against an in-memory stub backend (seed-contract §8.1).

#![expect(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions unwrap like the tests do"
)]

#[path = "support/stub_backend.rs"]
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

// §8.1 item 1.
#[tokio::test]
async fn backend_registry_keeps_order_and_rejects_duplicates() {
    let terminals = Terminals::new();
    terminals
        .register_backend(StubBackend::new("stub"))
        .unwrap();
    terminals
        .register_backend(StubBackend::new("other"))
        .unwrap();
    assert_eq!(terminals.backend_types(), vec!["stub", "other"]);

    let err = terminals
        .register_backend(StubBackend::new("stub"))
        .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::DuplicateBackend);
    assert!(err.message().contains("\"stub\""), "{err}");

    terminals.unregister_backend("stub");
    terminals.unregister_backend("missing");
    assert_eq!(terminals.backend_types(), vec!["other"]);
    terminals
        .register_backend(StubBackend::new("stub"))
        .unwrap();
    assert_eq!(terminals.backend_types(), vec!["other", "stub"]);
}

// §8.1 item 2.
#[tokio::test]
async fn empty_backend_type_is_rejected() {
    let terminals = Terminals::new();
    let err = terminals
        .register_backend(StubBackend::new(""))
        .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::InvalidRequest);
    assert_eq!(err.message(), "pty backend type must be non-empty");
    assert!(terminals.backend_types().is_empty());
}

// §8.1 item 3.
#[tokio::test]
async fn spawn_publishes_pty_1_and_fences_foreign_owners() {
    let f = fixture();
    let foreign = Agent::new(&f.ctx, "agent-2");
    let result = within(
        "spawn",
        f.terminals.spawn(
            &f.owner,
            SpawnRequest {
                backend_type: "stub".to_owned(),
                name: Some("main".to_owned()),
                cwd: Some(PathBuf::from("/tmp")),
            },
        ),
    )
    .await
    .unwrap();
    assert_eq!(
        result,
        SpawnResult {
            snapshot: SessionSnapshot {
                session_id: id("pty-1"),
                name: Some("main".to_owned()),
                backend_type: "stub".to_owned(),
                pid: Some(123),
                status: SessionStatus::Running,
            },
            motd: "stub ready".to_owned(),
        }
    );
    let spec = &f.stub.specs()[0];
    assert_eq!(spec.session_id, id("pty-1"));
    assert_eq!(spec.owner_id, "agent-1");
    assert_eq!(spec.name.as_deref(), Some("main"));
    assert_eq!(spec.cwd, Some(PathBuf::from("/tmp")));
    assert!(!spec.cancel.is_cancelled());

    assert!(f.terminals.has_owner_activity(&f.owner));
    assert!(!f.terminals.has_owner_activity(&foreign));
    assert_eq!(f.terminals.list(&f.owner), vec![result.snapshot.clone()]);
    assert!(f.terminals.list(&foreign).is_empty());
    assert_eq!(f.terminals.session_count(), 1);

    let pty1 = id("pty-1");
    let foreign_errors = [
        f.terminals
            .read(&foreign, &pty1, ReadRequest::default())
            .map(|_| ()),
        f.terminals
            .signal(&foreign, &pty1, TerminalSignal::Sigint)
            .map(|_| ()),
        f.terminals
            .start_send(&foreign, &pty1, send("id"))
            .map(|_| ()),
        within("foreign kill", f.terminals.kill(&foreign, &pty1))
            .await
            .map(|_| ()),
    ];
    for result in foreign_errors {
        let err = result.unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::ForeignSession);
        assert!(
            err.message()
                .starts_with("PTY session pty-1 belongs to another agent"),
            "{err}"
        );
    }
    // The owner's own operations reach the backend.
    let page = f
        .terminals
        .read(&f.owner, &pty1, ReadRequest::default())
        .unwrap();
    assert_eq!(page.text, "pty-1 scrollback");
    assert_eq!(
        f.terminals
            .signal(&f.owner, &pty1, TerminalSignal::Sigint)
            .unwrap()
            .target_pgid,
        42
    );
    // Backend errors pass through unchanged.
    let err = f
        .terminals
        .read(
            &f.owner,
            &pty1,
            ReadRequest {
                offset: None,
                count: Some(0),
            },
        )
        .unwrap_err();
    assert_eq!(err.message(), "count must be positive");
    assert!(f.stub.session("pty-1").sends().is_empty());
    f.terminals.check_invariants().unwrap();
    finish(f).await;
}

// §2.9: two agents with the same id are different owners.
#[tokio::test]
async fn same_id_different_instance_is_a_foreign_owner() {
    let f = fixture();
    let twin = Agent::new(&f.ctx, "agent-1");
    assert_eq!(twin.id(), f.owner.id());
    open(&f, &f.owner, Some("main")).await;
    let pty1 = id("pty-1");
    assert_eq!(
        code(f.terminals.read(&twin, &pty1, ReadRequest::default())),
        TerminalErrorCode::ForeignSession
    );
    assert_eq!(
        code(within("kill", f.terminals.kill(&twin, &pty1)).await),
        TerminalErrorCode::ForeignSession
    );
    assert!(f.terminals.list(&twin).is_empty());
    assert!(!f.terminals.has_owner_activity(&twin));
    // Names are per owner instance: the twin may use "main" too.
    let twin_main = open(&f, &twin, Some("main")).await;
    assert_eq!(twin_main.snapshot.session_id, id("pty-2"));
    // A clone of the owner handle is the same owner.
    let clone = f.owner.clone();
    assert_eq!(f.terminals.list(&clone).len(), 1);
    finish(f).await;
}

// §8.1 item 4.
#[tokio::test]
async fn preflight_rejections_do_not_consume_ids() {
    let f = fixture();
    let dead = Agent::new(&f.ctx, "dead");
    dead.dispose().await;
    // Owner liveness is checked before the backend lookup.
    let err = within(
        "spawn",
        f.terminals.spawn(
            &dead,
            SpawnRequest {
                backend_type: "missing".to_owned(),
                ..request(None)
            },
        ),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::OwnerNotLive);
    assert_eq!(err.message(), "agent \"dead\" is not a live PTY owner");

    let err = within(
        "spawn",
        f.terminals.spawn(
            &f.owner,
            SpawnRequest {
                backend_type: "missing".to_owned(),
                ..request(None)
            },
        ),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::NoBackend);
    assert_eq!(
        err.message(),
        "no PTY backend registered for \"missing\"; available types: stub"
    );

    let err = within("spawn", f.terminals.spawn(&f.owner, request(Some(""))))
        .await
        .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::InvalidRequest);
    assert_eq!(err.message(), "PTY session name must be non-empty");

    assert_eq!(
        open(&f, &f.owner, Some("main")).await.snapshot.session_id,
        id("pty-1")
    );
    let err = within("spawn", f.terminals.spawn(&f.owner, request(Some("main"))))
        .await
        .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::DuplicateName);
    assert!(
        err.message()
            .starts_with("PTY session name \"main\" already exists for this owner"),
        "{err}"
    );
    assert_eq!(
        open(&f, &f.owner, None).await.snapshot.session_id,
        id("pty-2")
    );
    assert_eq!(
        f.stub.specs().len(),
        2,
        "rejected spawns never reach the backend"
    );
    finish(f).await;
}

#[tokio::test]
async fn unknown_ids_get_no_session() {
    let f = fixture();
    open(&f, &f.owner, None).await;
    let missing = id("pty-9");
    let err = f
        .terminals
        .read(&f.owner, &missing, ReadRequest::default())
        .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::NoSession);
    assert!(
        err.message().starts_with("unknown PTY session pty-9"),
        "{err}"
    );
    assert_eq!(
        code(
            f.terminals
                .signal(&f.owner, &missing, TerminalSignal::Sigterm)
        ),
        TerminalErrorCode::NoSession
    );
    assert_eq!(
        code(f.terminals.start_send(&f.owner, &missing, send("x"))),
        TerminalErrorCode::NoSession
    );
    assert_eq!(
        code(within("kill", f.terminals.kill(&f.owner, &missing)).await),
        TerminalErrorCode::NoSession
    );
    finish(f).await;
}

// §8.1 item 5.
#[tokio::test]
async fn one_active_send_per_session() {
    let f = fixture();
    open(&f, &f.owner, None).await;
    let pty1 = id("pty-1");
    let first = f
        .terminals
        .start_send(&f.owner, &pty1, send("sleep 1"))
        .unwrap();
    let err = f
        .terminals
        .start_send(&f.owner, &pty1, send("echo again"))
        .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::SendActive);
    assert!(
        err.message()
            .starts_with("PTY session pty-1 already has an active send"),
        "{err}"
    );

    let session = f.stub.session("pty-1");
    let op = session.ops()[0].clone();
    op.push_output("partial");
    assert_eq!(first.read_output().delta, "partial");
    assert_eq!(first.read_output().delta, "");

    assert!(first.cancel());
    assert!(op.was_cancelled());
    let settled = within("first send", first.done()).await.unwrap();
    assert_eq!(settled.wait_reason, WaitReason::StdinRead);
    assert!(!first.cancel(), "cancel after settlement returns false");

    let second = f
        .terminals
        .start_send(&f.owner, &pty1, send("echo ok"))
        .unwrap();
    session.ops()[1].finish(Ok(send_result("ok", WaitReason::StdinRead)));
    assert_eq!(
        within("second send", second.done()).await.unwrap().viewport,
        "ok"
    );

    // A send whose outcome is an error propagates it.
    let third = f
        .terminals
        .start_send(&f.owner, &pty1, send("boom"))
        .unwrap();
    session.ops()[2].finish(Err(TerminalError::new(
        TerminalErrorCode::Transport,
        "send failed",
    )));
    assert_eq!(
        within("third send", third.done())
            .await
            .unwrap_err()
            .message(),
        "send failed"
    );
    assert_eq!(
        session
            .sends()
            .iter()
            .map(|s| s.text.as_str())
            .collect::<Vec<_>>(),
        vec!["sleep 1", "echo ok", "boom"]
    );

    // A backend rejection releases the slot.
    session.fail_sends_with(Some(TerminalError::exited(&pty1)));
    assert_eq!(
        code(f.terminals.start_send(&f.owner, &pty1, send("x"))),
        TerminalErrorCode::Exited
    );
    session.fail_sends_with(None);
    let fourth = f.terminals.start_send(&f.owner, &pty1, send("y")).unwrap();
    session.ops()[3].finish(Ok(send_result("y", WaitReason::InferredIdle)));
    within("fourth send", fourth.done()).await.unwrap();
    finish(f).await;
}

// §8.1 item 6 (first half).
#[tokio::test]
async fn a_name_being_created_is_reserved() {
    let f = Arc::new(fixture());
    f.stub.gate_spawns();
    let first = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(Some("main"))).await }
    });
    let pending = f.stub.next_spawn().await;
    assert_eq!(pending.spec.session_id, id("pty-1"));
    assert!(f.terminals.has_owner_activity(&f.owner));
    assert!(
        f.terminals.list(&f.owner).is_empty(),
        "pending spawns are not listed"
    );
    assert_eq!(
        code(
            f.terminals
                .read(&f.owner, &id("pty-1"), ReadRequest::default())
        ),
        TerminalErrorCode::NoSession
    );

    let err = within("spawn", f.terminals.spawn(&f.owner, request(Some("main"))))
        .await
        .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::DuplicateName);
    assert!(
        err.message()
            .starts_with("PTY session name \"main\" is already being created"),
        "{err}"
    );
    f.terminals.check_invariants().unwrap();

    pending.resolve();
    let published = within("first spawn", first).await.unwrap().unwrap();
    assert_eq!(published.snapshot.session_id, id("pty-1"));
    assert_eq!(f.terminals.list(&f.owner).len(), 1);
    let f = Arc::into_inner(f).unwrap();
    finish(f).await;
}

// §8.1 item 6 (second half) and 11 (owner variant).
#[tokio::test]
async fn owner_disposed_while_spawn_pending_rolls_back() {
    let f = Arc::new(fixture());
    f.stub.gate_spawns();
    let spawn = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(Some("main"))).await }
    });
    let pending = f.stub.next_spawn().await;
    let disposal = tokio::spawn({
        let owner = f.owner.clone();
        async move { owner.dispose().await }
    });
    within("owner cancellation", pending.spec.cancel.cancelled()).await;
    let_others_run().await;
    assert!(
        !disposal.is_finished(),
        "owner disposal must wait for the pending spawn to settle"
    );
    assert!(!spawn.is_finished());

    pending.resolve();
    let err = within("spawn", spawn).await.unwrap().unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::OwnerNotLive);
    within("owner disposal", disposal).await.unwrap();

    let late = f.stub.session("pty-1");
    assert_eq!(late.close_reasons(), vec![CLOSE_REASON_ROLLBACK]);
    assert!(late.is_closed());
    assert!(!f.terminals.has_owner_activity(&f.owner));
    assert_eq!(f.terminals.session_count(), 0);
    f.terminals.check_invariants().unwrap();

    // A disposed owner cannot spawn again.
    let err = within("spawn", f.terminals.spawn(&f.owner, request(None)))
        .await
        .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::OwnerNotLive);
    let f = Arc::into_inner(f).unwrap();
    finish(f).await;
}

// §8.1 items 7 and 9: dropping the spawn future is the Rust form of a caller abort.
#[tokio::test]
async fn dropped_spawn_cancels_the_backend_and_rolls_back() {
    let f = Arc::new(fixture());
    f.stub.gate_spawns();
    let spawn = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(Some("main"))).await }
    });
    let pending = f.stub.next_spawn().await;
    spawn.abort();
    within("caller cancellation", pending.spec.cancel.cancelled()).await;
    // The name stays reserved until the backend settles.
    assert!(f.terminals.has_owner_activity(&f.owner));

    pending.resolve();
    eventually("the late session", || !f.stub.sessions().is_empty()).await;
    let late = f.stub.session("pty-1");
    late.wait_closed().await;
    assert_eq!(late.close_reasons(), vec![CLOSE_REASON_ROLLBACK]);
    eventually("the pending spawn to be released", || {
        !f.terminals.has_owner_activity(&f.owner)
    })
    .await;
    assert!(f.owner.is_live(), "the owner is untouched");

    // A backend that fails in response to the cancel: the id is consumed, nothing is left.
    let spawn = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(Some("main"))).await }
    });
    let pending = f.stub.next_spawn().await;
    assert_eq!(pending.spec.session_id, id("pty-2"));
    spawn.abort();
    within("caller cancellation", pending.spec.cancel.cancelled()).await;
    pending.fail(TerminalError::new(TerminalErrorCode::Spawn, "aborted"));
    eventually("the pending spawn to be released", || {
        !f.terminals.has_owner_activity(&f.owner)
    })
    .await;

    // The name is free again.
    let spawn = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(Some("main"))).await }
    });
    f.stub.next_spawn().await.resolve();
    let result = within("spawn", spawn).await.unwrap().unwrap();
    assert_eq!(result.snapshot.session_id, id("pty-3"));
    let f = Arc::into_inner(f).unwrap();
    finish(f).await;
}

// §8.1 items 8 and 16 (first half): rollback close fails.
#[tokio::test]
async fn failed_rollback_is_retained_until_disposal_retries_it() {
    let f = Arc::new(fixture());
    f.stub.gate_spawns();
    let spawn = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(Some("main"))).await }
    });
    let pending = f.stub.next_spawn().await;
    let disposal = tokio::spawn({
        let terminals = f.terminals.clone();
        async move { terminals.dispose().await }
    });
    within("service cancellation", pending.spec.cancel.cancelled()).await;
    f.stub.gate_closes_of_new_sessions();
    f.stub
        .fail_closes_of_new_sessions_with(Some(TerminalError::new(
            TerminalErrorCode::Cleanup,
            "close failed",
        )));
    pending.resolve();
    eventually("the late session", || !f.stub.sessions().is_empty()).await;
    let late = f.stub.session("pty-1");
    let rollback = late.next_close().await;
    assert_eq!(rollback.reason, CLOSE_REASON_ROLLBACK);
    rollback.release();
    let err = within("spawn", spawn).await.unwrap().unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::Cleanup);
    assert!(
        err.message()
            .starts_with("PTY spawn and rollback both failed: PTY service is disposing"),
        "{err}"
    );
    // Disposal retries the close with its own reason; it fails again.
    let retry = late.next_close().await;
    assert_eq!(retry.reason, CLOSE_REASON_SERVICE_DISPOSED);
    retry.release();
    let err = within("disposal", disposal).await.unwrap().unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::Cleanup);
    assert!(
        err.message()
            .starts_with("failed to clean up PTY lifecycle"),
        "{err}"
    );
    assert!(err.message().contains("pty-1: close failed"), "{err}");
    assert!(!f.terminals.has_owner_activity(&f.owner));
    assert!(!late.is_closed());
    late.fail_closes_with(None);
    f.ctx.dispose().await;
}

#[tokio::test]
async fn caller_abort_with_failed_rollback_keeps_activity_until_owner_disposal() {
    let f = Arc::new(fixture());
    f.stub.gate_spawns();
    let spawn = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(None)).await }
    });
    let pending = f.stub.next_spawn().await;
    spawn.abort();
    within("caller cancellation", pending.spec.cancel.cancelled()).await;
    f.stub.gate_closes_of_new_sessions();
    f.stub
        .fail_closes_of_new_sessions_with(Some(TerminalError::new(
            TerminalErrorCode::Cleanup,
            "close failed",
        )));
    pending.resolve();
    eventually("the late session", || !f.stub.sessions().is_empty()).await;
    let late = f.stub.session("pty-1");
    let rollback = late.next_close().await;
    assert_eq!(rollback.reason, CLOSE_REASON_ROLLBACK);
    rollback.release();
    // The failure is retained: the owner still shows activity.
    let_others_run().await;
    assert!(f.terminals.has_owner_activity(&f.owner));
    f.terminals.check_invariants().unwrap();

    // Owner disposal retries (and now succeeds).
    late.fail_closes_with(None);
    let disposal = tokio::spawn({
        let owner = f.owner.clone();
        async move { owner.dispose().await }
    });
    let retry = late.next_close().await;
    assert_eq!(retry.reason, CLOSE_REASON_OWNER_DISPOSED);
    retry.release();
    within("owner disposal", disposal).await.unwrap();
    assert!(late.is_closed());
    assert!(!f.terminals.has_owner_activity(&f.owner));
    let f = Arc::into_inner(f).unwrap();
    finish(f).await;
}

// §8.1 item 11 (service variant) and 19.
#[tokio::test]
async fn service_disposal_waits_for_pending_spawns_and_closes_everything() {
    let f = Arc::new(fixture());
    let other = Agent::new(&f.ctx, "agent-2");
    open(&f, &f.owner, Some("a")).await;
    open(&f, &other, Some("b")).await;
    f.stub.gate_spawns();
    let spawn = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(Some("c"))).await }
    });
    let pending = f.stub.next_spawn().await;
    let disposal = tokio::spawn({
        let terminals = f.terminals.clone();
        async move { terminals.dispose().await }
    });
    within("service cancellation", pending.spec.cancel.cancelled()).await;
    let_others_run().await;
    assert!(
        !disposal.is_finished(),
        "disposal waits for the pending spawn"
    );
    let err = within(
        "spawn during disposal",
        f.terminals.spawn(&other, request(None)),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::ServiceDisposing);
    assert_eq!(err.message(), "PTY service is disposing");

    pending.resolve();
    let err = within("spawn", spawn).await.unwrap().unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::ServiceDisposing);
    within("disposal", disposal).await.unwrap().unwrap();

    assert_eq!(
        f.stub.session("pty-1").close_reasons(),
        vec![CLOSE_REASON_SERVICE_DISPOSED]
    );
    assert_eq!(
        f.stub.session("pty-2").close_reasons(),
        vec![CLOSE_REASON_SERVICE_DISPOSED]
    );
    assert_eq!(
        f.stub.session("pty-3").close_reasons(),
        vec![CLOSE_REASON_ROLLBACK]
    );
    assert_eq!(f.terminals.session_count(), 0);
    assert!(f.terminals.backend_types().is_empty());
    assert!(!f.terminals.has_owner_activity(&f.owner));
    f.terminals.check_invariants().unwrap();

    let err = within(
        "spawn after disposal",
        f.terminals.spawn(&f.owner, request(None)),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::ServiceDisposing);
    // Disposal is idempotent.
    within("second disposal", f.terminals.dispose())
        .await
        .unwrap();
    f.ctx.dispose().await;
}

// §8.1 items 17 and 19 (kill half).
#[tokio::test]
async fn concurrent_kill_joins_the_close_in_flight() {
    let f = Arc::new(fixture());
    open(&f, &f.owner, None).await;
    let pty1 = id("pty-1");
    let session = f.stub.session("pty-1");
    session.gate_closes();
    let first = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.kill(&f.owner, &id("pty-1")).await }
    });
    let close = session.next_close().await;
    assert_eq!(close.reason, CLOSE_REASON_MODEL_REQUEST);

    // While closing: sends are refused, reads still work, the session is still listed.
    let err = f
        .terminals
        .start_send(&f.owner, &pty1, send("x"))
        .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::Closing);
    assert_eq!(err.message(), "PTY session pty-1 is closing");
    f.terminals
        .read(&f.owner, &pty1, ReadRequest::default())
        .unwrap();
    assert_eq!(f.terminals.list(&f.owner).len(), 1);

    let second = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.kill(&f.owner, &id("pty-1")).await }
    });
    let_others_run().await;
    assert!(!second.is_finished(), "the joined kill waits for the close");
    close.release();
    assert_eq!(
        within("first kill", first).await.unwrap().unwrap(),
        CloseOutcome::Closed(CloseReport {
            processes_stopped: 1
        })
    );
    assert_eq!(
        within("second kill", second).await.unwrap().unwrap(),
        CloseOutcome::AlreadyClosing
    );
    assert_eq!(session.close_reasons(), vec![CLOSE_REASON_MODEL_REQUEST]);
    assert_eq!(
        code(f.terminals.read(&f.owner, &pty1, ReadRequest::default())),
        TerminalErrorCode::NoSession
    );
    assert!(f.terminals.list(&f.owner).is_empty());
    assert!(!f.terminals.has_owner_activity(&f.owner));
    let f = Arc::into_inner(f).unwrap();
    finish(f).await;
}

// §8.1 items 16 (second half) and 20.
#[tokio::test]
async fn failed_close_keeps_the_session_and_a_retry_closes_it() {
    let f = Arc::new(fixture());
    open(&f, &f.owner, None).await;
    let pty1 = id("pty-1");
    let session = f.stub.session("pty-1");
    session.fail_closes_with(Some(TerminalError::new(
        TerminalErrorCode::Cleanup,
        "close failed",
    )));
    let err = within("kill", f.terminals.kill(&f.owner, &pty1))
        .await
        .unwrap_err();
    assert_eq!(err.message(), "close failed");
    assert_eq!(f.terminals.list(&f.owner).len(), 1);
    // Not closing any more: sends work again.
    let op = f.terminals.start_send(&f.owner, &pty1, send("x")).unwrap();
    session.ops()[0].finish(Ok(send_result("x", WaitReason::StdinRead)));
    within("send", op.done()).await.unwrap();

    // Bulk close fails too, and a kill that joins it sees the same failure.
    session.gate_closes();
    let disposal = tokio::spawn({
        let terminals = f.terminals.clone();
        async move { terminals.dispose().await }
    });
    let bulk = session.next_close().await;
    assert_eq!(bulk.reason, CLOSE_REASON_SERVICE_DISPOSED);
    let joined = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.kill(&f.owner, &id("pty-1")).await }
    });
    let_others_run().await;
    bulk.release();
    let err = within("disposal", disposal).await.unwrap().unwrap_err();
    assert!(
        err.message()
            .starts_with("failed to clean up PTY lifecycle: 1 PTY session(s) could not be closed"),
        "{err}"
    );
    assert_eq!(
        within("joined kill", joined)
            .await
            .unwrap()
            .unwrap_err()
            .message(),
        "close failed"
    );
    assert_eq!(f.terminals.session_count(), 1);
    assert!(
        f.terminals.backend_types().is_empty(),
        "registries cleared anyway"
    );
    let violation = f.terminals.check_invariants().unwrap_err();
    assert!(
        violation.contains("pty-1 survived service disposal"),
        "{violation}"
    );

    // After fixing the backend a retry closes it.
    session.fail_closes_with(None);
    let retry = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.kill(&f.owner, &id("pty-1")).await }
    });
    session.next_close().await.release();
    assert!(matches!(
        within("retry", retry).await.unwrap().unwrap(),
        CloseOutcome::Closed(_)
    ));
    assert_eq!(
        session.close_reasons(),
        vec![
            CLOSE_REASON_MODEL_REQUEST,
            CLOSE_REASON_SERVICE_DISPOSED,
            CLOSE_REASON_MODEL_REQUEST
        ]
    );
    assert_eq!(f.terminals.session_count(), 0);
    f.terminals.check_invariants().unwrap();
    f.ctx.dispose().await;
}

// §8.1 item 18.
#[tokio::test]
async fn unregistered_backend_keeps_sessions_and_owner_disposal_closes_them() {
    let f = Arc::new(fixture());
    open(&f, &f.owner, Some("a")).await;
    open(&f, &f.owner, Some("b")).await;
    f.terminals.unregister_backend("stub");
    assert!(f.terminals.backend_types().is_empty());
    let pty1 = id("pty-1");
    f.terminals
        .read(&f.owner, &pty1, ReadRequest::default())
        .unwrap();
    let op = f.terminals.start_send(&f.owner, &pty1, send("ls")).unwrap();
    f.stub.session("pty-1").ops()[0].finish(Ok(send_result("ls", WaitReason::StdinRead)));
    within("send", op.done()).await.unwrap();
    assert_eq!(
        code(within("spawn", f.terminals.spawn(&f.owner, request(None))).await),
        TerminalErrorCode::NoBackend
    );

    // Owner disposal closes both in parallel and waits for the closes.
    let (s1, s2) = (f.stub.session("pty-1"), f.stub.session("pty-2"));
    s1.gate_closes();
    s2.gate_closes();
    let disposal = tokio::spawn({
        let owner = f.owner.clone();
        async move { owner.dispose().await }
    });
    let c1 = s1.next_close().await;
    let c2 = s2.next_close().await;
    assert_eq!(c1.reason, CLOSE_REASON_OWNER_DISPOSED);
    assert_eq!(c2.reason, CLOSE_REASON_OWNER_DISPOSED);
    let_others_run().await;
    assert!(!disposal.is_finished(), "owner disposal awaits the closes");
    c1.release();
    c2.release();
    within("owner disposal", disposal).await.unwrap();
    assert!(f.terminals.list(&f.owner).is_empty());
    assert!(!f.terminals.has_owner_activity(&f.owner));
    assert!(s1.is_closed() && s2.is_closed());
    f.terminals.check_invariants().unwrap();
    let f = Arc::into_inner(f).unwrap();
    finish(f).await;
}

// §8.1 item 14.
#[tokio::test]
async fn concurrent_spawns_publish_and_failed_spawns_consume_ids() {
    let f = Arc::new(fixture());
    f.stub.gate_spawns();
    let a = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(Some("a"))).await }
    });
    let pa = f.stub.next_spawn().await;
    let b = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(Some("b"))).await }
    });
    let pb = f.stub.next_spawn().await;
    // Resolution order differs from id order here.
    pb.resolve();
    let b = within("spawn b", b).await.unwrap().unwrap();
    pa.resolve();
    let a = within("spawn a", a).await.unwrap().unwrap();
    assert_eq!(a.snapshot.session_id, id("pty-1"));
    assert_eq!(b.snapshot.session_id, id("pty-2"));
    let listed: Vec<SessionId> = f
        .terminals
        .list(&f.owner)
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    // Listed in creation (id) order, whatever order they were published in (a deliberate
    // change from the seed's publication order: models read lists top-down).
    assert_eq!(listed, vec![id("pty-1"), id("pty-2")]);

    // A failing backend: its error propagates and the id is consumed.
    let failing = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(Some("c"))).await }
    });
    f.stub.next_spawn().await.fail(TerminalError::new(
        TerminalErrorCode::Spawn,
        "provider failed",
    ));
    let err = within("failing spawn", failing).await.unwrap().unwrap_err();
    assert_eq!(err.message(), "provider failed");
    assert_eq!(err.code(), TerminalErrorCode::Spawn);

    let next = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(Some("c"))).await }
    });
    f.stub.next_spawn().await.resolve();
    assert_eq!(
        within("spawn", next)
            .await
            .unwrap()
            .unwrap()
            .snapshot
            .session_id,
        id("pty-4")
    );
    f.terminals.check_invariants().unwrap();
    let f = Arc::into_inner(f).unwrap();
    finish(f).await;
}

// §8.1 item 15.
#[tokio::test]
async fn session_without_pid_has_no_pid() {
    let f = fixture();
    f.stub.set_pid(None);
    let result = open(&f, &f.owner, None).await;
    assert_eq!(result.snapshot.pid, None);
    assert_eq!(result.snapshot.name, None);
    assert_eq!(f.terminals.list(&f.owner)[0].pid, None);
    finish(f).await;
}

#[tokio::test]
async fn list_reads_status_live() {
    let f = fixture();
    open(&f, &f.owner, None).await;
    let exited = SessionStatus::Exited {
        exit_code: Some(3),
        signal: None,
    };
    f.stub.session("pty-1").set_status(exited.clone());
    assert_eq!(f.terminals.list(&f.owner)[0].status, exited);
    finish(f).await;
}

#[tokio::test]
async fn plugin_provides_the_service_and_disposes_it_with_the_context() {
    let ctx = Context::builder()
        .with(InvariantsPlugin)
        .with(TerminalsPlugin)
        .with(invariant_companion())
        .apply()
        .unwrap();
    let terminals = ctx.require::<Terminals>().unwrap();
    let stub = StubBackend::new("stub");
    terminals.register_backend(stub.clone()).unwrap();
    let invariants = ctx.require::<Invariants>().unwrap();
    assert!(
        invariants
            .packages()
            .contains(&"dsh-terminal-core".to_owned())
    );

    let owner = Agent::new(&ctx, "agent-1");
    within("spawn", terminals.spawn(&owner, request(Some("main"))))
        .await
        .unwrap();
    within("spawn", terminals.spawn(&owner, request(None)))
        .await
        .unwrap();
    assert!(invariants.check_all(&ctx).is_empty());

    within("context disposal", ctx.dispose()).await;
    // Agents are disposed before the service (reverse order): owner cleanup closed them.
    assert!(
        stub.sessions()
            .iter()
            .all(|s| s.close_reasons() == vec![CLOSE_REASON_OWNER_DISPOSED])
    );
    assert_eq!(terminals.session_count(), 0);
    assert_eq!(
        code(within("spawn", terminals.spawn(&owner, request(None))).await),
        TerminalErrorCode::ServiceDisposing
    );
}

#[tokio::test]
async fn invariant_reports_a_session_that_outlived_its_owner() {
    let ctx = Context::builder()
        .with(InvariantsPlugin)
        .with(TerminalsPlugin)
        .with(invariant_companion())
        .apply()
        .unwrap();
    let terminals = ctx.require::<Terminals>().unwrap();
    let invariants = ctx.require::<Invariants>().unwrap();
    let stub = StubBackend::new("stub");
    terminals.register_backend(stub.clone()).unwrap();
    let owner = Agent::new(&ctx, "agent-1");
    within("spawn", terminals.spawn(&owner, request(None)))
        .await
        .unwrap();
    let session = stub.session("pty-1");
    session.fail_closes_with(Some(TerminalError::new(
        TerminalErrorCode::Cleanup,
        "close failed",
    )));
    // Owner cleanup logs the failure; the session stays listed.
    within("owner disposal", owner.dispose()).await;
    assert_eq!(session.close_reasons(), vec![CLOSE_REASON_OWNER_DISPOSED]);
    assert_eq!(terminals.session_count(), 1);

    let violations = invariants.check_all(&ctx);
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].package, "dsh-terminal-core");
    assert_eq!(
        violations[0].message,
        "session pty-1 outlived the cleanup of its disposed owner \"agent-1\""
    );

    // The owner handle can still retry the close.
    session.fail_closes_with(None);
    assert!(matches!(
        within("kill", terminals.kill(&owner, &id("pty-1"))).await,
        Ok(CloseOutcome::Closed(_))
    ));
    assert!(invariants.check_all(&ctx).is_empty());
    ctx.dispose().await;
}

#[tokio::test]
async fn companion_without_the_service_passes() {
    let ctx = Context::builder()
        .with(InvariantsPlugin)
        .with(invariant_companion())
        .apply()
        .unwrap();
    let invariants = ctx.require::<Invariants>().unwrap();
    assert!(invariants.check_all(&ctx).is_empty());
}
