//! Owner disposal, caller aborts, rollback failures, service disposal, kill and close retries.

use super::*;
use pretty_assertions::assert_eq;

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

    // The rolled-back id was given back. A backend that fails in response to the cancel:
    // nothing is left, and the id is given back too.
    let spawn = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(Some("main"))).await }
    });
    let pending = f.stub.next_spawn().await;
    assert_eq!(pending.spec.session_id, id("pty-1"));
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
    assert_eq!(result.snapshot.session_id, id("pty-1"));
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
    assert_eq!(
        err.message(),
        "PTY session pty-1 is closing: a terminal_close of it is under way and stops every process it started; terminal_open starts a new session"
    );
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
