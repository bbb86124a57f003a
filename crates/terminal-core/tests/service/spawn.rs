//! Registry, spawn, owner fencing, preflight, unknown ids, one active send, name reservation.

use super::*;
use pretty_assertions::assert_eq;

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
                from_line: None,
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

/// A spawn the backend fails gives its id back: the ids a model sees stay consecutive.
#[tokio::test]
async fn failed_spawns_give_their_id_back() {
    let f = fixture();
    assert_eq!(
        open(&f, &f.owner, None).await.snapshot.session_id,
        id("pty-1")
    );
    f.stub.fail_spawns_with(Some(TerminalError::new(
        TerminalErrorCode::Spawn,
        "no shell here",
    )));
    for _ in 0..2 {
        let err = within("spawn", f.terminals.spawn(&f.owner, request(None)))
            .await
            .unwrap_err();
        assert_eq!(err.message(), "no shell here");
    }
    f.terminals.check_invariants().unwrap();
    f.stub.fail_spawns_with(None);
    assert_eq!(
        open(&f, &f.owner, None).await.snapshot.session_id,
        id("pty-2")
    );
    assert_eq!(
        open(&f, &f.owner, None).await.snapshot.session_id,
        id("pty-3")
    );
    // The failed attempts were offered pty-2 each time.
    let offered: Vec<String> = f
        .stub
        .specs()
        .iter()
        .map(|s| s.session_id.as_str().to_owned())
        .collect();
    assert_eq!(offered, ["pty-1", "pty-2", "pty-2", "pty-2", "pty-3"]);
    f.terminals.check_invariants().unwrap();
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
    // A name shaped like an id would be taken for another session's.
    let err = within("spawn", f.terminals.spawn(&f.owner, request(Some("pty-2"))))
        .await
        .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::InvalidRequest);
    assert!(err.message().contains("starts as session ids do"), "{err}");
    for name in ["pty-send-1", " pty-2"] {
        let err = within("spawn", f.terminals.spawn(&f.owner, request(Some(name))))
            .await
            .unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::InvalidRequest, "{name:?}");
    }

    assert_eq!(
        open(&f, &f.owner, Some("main")).await.snapshot.session_id,
        id("pty-1")
    );
    let err = within("spawn", f.terminals.spawn(&f.owner, request(Some("main"))))
        .await
        .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::DuplicateName);
    assert_eq!(
        err.message(),
        "PTY session name \"main\" already exists for this owner (session pty-1); pick another name or use that session"
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

#[tokio::test]
async fn the_per_owner_cap_counts_spawns_in_flight_and_frees_on_close() {
    let f = Arc::new(fixture());
    f.terminals.set_max_sessions_per_owner(Some(2));
    let other = Agent::new(&f.ctx, "agent-2");
    open(&f, &f.owner, None).await;
    // A spawn still in flight counts against the cap.
    f.stub.gate_spawns();
    let pending = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(None)).await }
    });
    let gate = f.stub.next_spawn().await;
    let err = within(
        "spawn over the cap",
        f.terminals.spawn(&f.owner, request(None)),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), TerminalErrorCode::SessionLimit);
    assert_eq!(
        err.message(),
        "this agent already has 2 terminal sessions, the most allowed; close one with terminal_close (terminal_list shows them) before opening another"
    );
    gate.resolve();
    let second = within("pending spawn", pending).await.unwrap().unwrap();
    // The cap is per owner.
    let other_spawn = tokio::spawn({
        let f = f.clone();
        let other = other.clone();
        async move { f.terminals.spawn(&other, request(None)).await }
    });
    f.stub.next_spawn().await.resolve();
    within("other owner's spawn", other_spawn)
        .await
        .unwrap()
        .unwrap();
    // Closing one makes room; no cap removes the limit.
    within(
        "kill",
        f.terminals.kill(&f.owner, &second.snapshot.session_id),
    )
    .await
    .unwrap();
    let again = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(None)).await }
    });
    f.stub.next_spawn().await.resolve();
    within("spawn after close", again).await.unwrap().unwrap();
    f.terminals.set_max_sessions_per_owner(None);
    let uncapped = tokio::spawn({
        let f = f.clone();
        async move { f.terminals.spawn(&f.owner, request(None)).await }
    });
    f.stub.next_spawn().await.resolve();
    within("uncapped spawn", uncapped).await.unwrap().unwrap();
    let f = Arc::into_inner(f).expect("no other fixture handle");
    finish(f).await;
}
