//! Concurrent spawns, pids, live listing, the plugin and the invariant companion.

use super::*;
use pretty_assertions::assert_eq;

// §8.1 item 14.
#[tokio::test]
async fn concurrent_spawns_publish_and_failed_spawns_give_ids_back() {
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

    // A failing backend: its error propagates and the id is given back (the seed consumed
    // it; ours keeps the ids a model sees consecutive).
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
        id("pty-3")
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
