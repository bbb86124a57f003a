//! The warm pool: taking a ready or starting warm session, refill, hiding, the cap, the cwd
//! key, discards and disposal.

use super::*;
use pretty_assertions::assert_eq;

fn warm_fixture() -> Arc<Fixture> {
    let f = fixture();
    f.terminals.set_warm_sessions(1);
    Arc::new(f)
}

fn in_dir(dir: &str) -> SpawnRequest {
    SpawnRequest {
        cwd: Some(PathBuf::from(dir)),
        ..request(None)
    }
}

async fn warm_ready(f: &Fixture, owner: &Agent) {
    eventually("a ready warm session", || {
        f.terminals.warm_session_count(owner) == 1
    })
    .await;
}

/// Opens a session on a task (for gated spawns the test resolves).
fn open_task(
    f: &Arc<Fixture>,
    owner: &Agent,
    request: SpawnRequest,
) -> tokio::task::JoinHandle<Result<SpawnResult, TerminalError>> {
    let f = f.clone();
    let owner = owner.clone();
    tokio::spawn(async move { f.terminals.spawn(&owner, request).await })
}

async fn done(f: Arc<Fixture>) {
    let f = Arc::into_inner(f).unwrap();
    finish(f).await;
}

/// With spawns gated: the owner's first (cold) open, resolved and published; its warm refill
/// is the next spawn.
async fn first_open_gated(f: &Arc<Fixture>) {
    let first = open_task(f, &f.owner, request(None));
    f.stub.next_spawn().await.resolve();
    within("first open", first).await.unwrap().unwrap();
}

#[tokio::test]
async fn an_open_takes_the_ready_warm_session_with_its_own_name_and_refills() {
    let f = warm_fixture();
    let first = open(&f, &f.owner, Some("a")).await;
    assert_eq!(first.snapshot.session_id, id("pty-1"));
    warm_ready(&f, &f.owner).await;
    // The warm one was spawned with its own id and no name, and is not listed.
    let specs = f.stub.specs();
    assert_eq!(specs.len(), 2);
    assert_eq!(
        (specs[1].session_id.clone(), specs[1].name.clone()),
        (id("pty-2"), None)
    );
    assert_eq!(f.terminals.list(&f.owner).len(), 1);
    assert_eq!(f.terminals.session_count(), 1);

    let second = open(&f, &f.owner, Some("b")).await;
    assert_eq!(f.terminals.warm_sessions_taken(), 1);
    assert_eq!(second.snapshot.session_id, id("pty-2"));
    assert_eq!(second.snapshot.name.as_deref(), Some("b"));
    assert_eq!(second.snapshot.backend_type, "stub");
    assert_eq!(second.motd, "stub ready");
    let names: Vec<_> = f
        .terminals
        .list(&f.owner)
        .into_iter()
        .map(|s| (s.session_id, s.name))
        .collect();
    assert_eq!(
        names,
        vec![
            (id("pty-1"), Some("a".to_owned())),
            (id("pty-2"), Some("b".to_owned()))
        ]
    );
    // The taken session works; the next warm one is already starting.
    f.terminals
        .start_send(&f.owner, &id("pty-2"), send("echo hi"))
        .unwrap();
    warm_ready(&f, &f.owner).await;
    assert_eq!(f.stub.specs().len(), 3);
    f.terminals.check_invariants().unwrap();
    done(f).await;
}

#[tokio::test]
async fn an_open_awaits_a_warm_spawn_still_starting_and_a_dropped_open_rolls_it_back() {
    let f = warm_fixture();
    f.stub.gate_spawns();
    first_open_gated(&f).await;
    let warm = f.stub.next_spawn().await;
    assert_eq!(warm.spec.session_id, id("pty-2"));

    // The open claims the starting warm spawn instead of spawning another.
    let second = open_task(&f, &f.owner, request(Some("b")));
    let_others_run().await;
    assert_eq!(f.stub.specs().len(), 2);
    warm.resolve();
    let second = within("second open", second).await.unwrap().unwrap();
    assert_eq!(second.snapshot.session_id, id("pty-2"));
    assert_eq!(second.snapshot.name.as_deref(), Some("b"));
    assert_eq!(f.terminals.warm_sessions_taken(), 1);

    // A caller that goes away while awaiting a claimed warm spawn rolls it back.
    let next = f.stub.next_spawn().await;
    assert_eq!(next.spec.session_id, id("pty-3"));
    let dropped = open_task(&f, &f.owner, request(None));
    let_others_run().await;
    assert_eq!(f.stub.specs().len(), 3);
    dropped.abort();
    let _ = dropped.await;
    next.resolve();
    eventually("the claimed warm session to come up", || {
        f.stub.sessions().len() == 3
    })
    .await;
    f.stub.session("pty-3").wait_closed().await;
    assert_eq!(
        f.stub.session("pty-3").close_reasons(),
        vec![CLOSE_REASON_ROLLBACK]
    );
    assert_eq!(f.terminals.list(&f.owner).len(), 2);
    // Its id is given back; the next open runs cold and reuses it.
    let third = open_task(&f, &f.owner, request(None));
    let cold = f.stub.next_spawn().await;
    assert_eq!(cold.spec.session_id, id("pty-3"));
    cold.resolve();
    within("third open", third).await.unwrap().unwrap();
    f.stub.next_spawn().await.resolve();
    warm_ready(&f, &f.owner).await;
    done(f).await;
}

#[tokio::test]
async fn warm_sessions_are_unreachable_uncapped_and_keyed_by_cwd() {
    let f = warm_fixture();
    f.terminals.set_max_sessions_per_owner(Some(1));
    let first = open(&f, &f.owner, None).await;
    warm_ready(&f, &f.owner).await;
    // Not reachable by id, not listed, not owner activity once the session is gone.
    assert_eq!(
        code(f.terminals.start_send(&f.owner, &id("pty-2"), send("x"))),
        TerminalErrorCode::NoSession
    );
    assert_eq!(
        code(within("kill", f.terminals.kill(&f.owner, &id("pty-2"))).await),
        TerminalErrorCode::NoSession
    );
    // At the cap, the warm session does not let the owner exceed it, and stays warm.
    assert_eq!(
        code(
            within(
                "open over the cap",
                f.terminals.spawn(&f.owner, request(None))
            )
            .await
        ),
        TerminalErrorCode::SessionLimit
    );
    assert_eq!(f.terminals.warm_session_count(&f.owner), 1);
    within(
        "kill",
        f.terminals.kill(&f.owner, &first.snapshot.session_id),
    )
    .await
    .unwrap();
    assert!(!f.terminals.has_owner_activity(&f.owner));

    // Another cwd does not take it; the pool keeps one per owner, so the old one goes.
    let other = within("open in /tmp", f.terminals.spawn(&f.owner, in_dir("/tmp")))
        .await
        .unwrap();
    assert_eq!(f.terminals.warm_sessions_taken(), 0);
    assert_eq!(other.snapshot.session_id, id("pty-3"));
    f.stub.session("pty-2").wait_closed().await;
    assert_eq!(
        f.stub.session("pty-2").close_reasons(),
        vec![CLOSE_REASON_ROLLBACK]
    );
    warm_ready(&f, &f.owner).await;
    let warm_spec = f.stub.specs().pop().unwrap();
    assert_eq!(warm_spec.cwd, Some(PathBuf::from("/tmp")));
    done(f).await;
}

#[tokio::test]
async fn a_warm_session_that_exited_while_idle_is_closed_and_the_open_runs_cold() {
    let f = warm_fixture();
    open(&f, &f.owner, None).await;
    warm_ready(&f, &f.owner).await;
    f.stub.session("pty-2").set_status(SessionStatus::Exited {
        exit_code: Some(0),
        signal: None,
    });
    let second = open(&f, &f.owner, None).await;
    assert_eq!(f.terminals.warm_sessions_taken(), 0);
    assert_eq!(second.snapshot.status, SessionStatus::Running);
    assert!(f.stub.session("pty-2").is_closed());
    // Its id was given back and reused by the cold open.
    assert_eq!(second.snapshot.session_id, id("pty-2"));
    done(f).await;
}

#[tokio::test]
async fn a_failed_warm_spawn_is_dropped_and_the_next_open_runs_cold() {
    let f = warm_fixture();
    f.stub.gate_spawns();
    first_open_gated(&f).await;
    f.stub
        .next_spawn()
        .await
        .fail(TerminalError::new(TerminalErrorCode::Spawn, "no bash"));
    eventually("the failed warm spawn to settle", || {
        f.terminals.check_invariants().is_ok()
            && format!("{:?}", f.terminals).contains("pending: 0")
    })
    .await;
    let second = open_task(&f, &f.owner, request(None));
    let cold = f.stub.next_spawn().await;
    assert_eq!(cold.spec.session_id, id("pty-2"));
    cold.resolve();
    within("second open", second).await.unwrap().unwrap();
    assert_eq!(f.terminals.warm_sessions_taken(), 0);
    f.stub.next_spawn().await.resolve();
    done(f).await;
}

#[tokio::test]
async fn owner_disposal_closes_its_warm_session_and_the_mode_fence_discards_it() {
    let f = warm_fixture();
    let other = Agent::new(&f.ctx, "agent-2");
    open(&f, &f.owner, None).await;
    warm_ready(&f, &f.owner).await;
    within("owner disposal", f.owner.dispose()).await;
    f.stub.session("pty-2").wait_closed().await;
    assert_eq!(
        f.stub.session("pty-2").close_reasons(),
        vec![CLOSE_REASON_OWNER_DISPOSED]
    );
    assert_eq!(f.terminals.warm_session_count(&f.owner), 0);

    // While the owner has a session, the fence holds and the warm session stays.
    let session = open(&f, &other, None).await;
    warm_ready(&f, &other).await;
    let warm_id = f.stub.specs().pop().unwrap().session_id;
    assert!(f.terminals.has_owner_activity_or_discard_warm(&other));
    assert_eq!(f.terminals.warm_session_count(&other), 1);
    // Without sessions, the warm one is discarded and closed.
    within(
        "kill",
        f.terminals.kill(&other, &session.snapshot.session_id),
    )
    .await
    .unwrap();
    assert!(!f.terminals.has_owner_activity_or_discard_warm(&other));
    assert_eq!(f.terminals.warm_session_count(&other), 0);
    f.stub.session(warm_id.as_str()).wait_closed().await;
    // The next open starts cold.
    open(&f, &other, None).await;
    assert_eq!(f.terminals.warm_sessions_taken(), 0);
    done(f).await;
}

#[tokio::test]
async fn service_disposal_closes_warm_sessions_ready_or_starting() {
    let f = warm_fixture();
    let other = Agent::new(&f.ctx, "agent-2");
    open(&f, &f.owner, None).await;
    warm_ready(&f, &f.owner).await;
    f.stub.gate_spawns();
    let second = open_task(&f, &other, request(None));
    f.stub.next_spawn().await.resolve();
    within("other open", second).await.unwrap().unwrap();
    // The other owner's warm spawn is still starting when the service is disposed.
    let starting = f.stub.next_spawn().await;
    let f2 = f.clone();
    let disposal = tokio::spawn(async move { f2.terminals.dispose().await });
    let_others_run().await;
    starting.resolve();
    within("disposal", disposal).await.unwrap().unwrap();
    assert!(f.stub.sessions().iter().all(|s| s.is_closed()));
    done(f).await;
}

#[tokio::test]
async fn a_warm_session_whose_cwd_went_away_is_closed_and_the_open_runs_cold() {
    let f = warm_fixture();
    let dir = std::env::temp_dir().join(format!("dsh-warm-cwd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dir_str = dir.to_str().unwrap().to_owned();
    within("open", f.terminals.spawn(&f.owner, in_dir(&dir_str)))
        .await
        .unwrap();
    warm_ready(&f, &f.owner).await;
    std::fs::remove_dir(&dir).unwrap();
    within("open again", f.terminals.spawn(&f.owner, in_dir(&dir_str)))
        .await
        .unwrap();
    assert_eq!(f.terminals.warm_sessions_taken(), 0);
    assert!(f.stub.session("pty-2").is_closed());
    done(f).await;
}

#[tokio::test]
async fn prewarm_serves_the_first_open_and_is_closed_with_its_owner() {
    let f = warm_fixture();
    // Off, or for a type no backend serves: nothing starts.
    f.terminals.set_warm_sessions(0);
    f.terminals.prewarm(&f.owner, &request(None));
    f.terminals.set_warm_sessions(1);
    f.terminals.prewarm(
        &f.owner,
        &SpawnRequest {
            backend_type: "nope".into(),
            ..request(None)
        },
    );
    let_others_run().await;
    assert!(f.stub.specs().is_empty());

    f.terminals.prewarm(&f.owner, &request(Some("ignored")));
    warm_ready(&f, &f.owner).await;
    // A second call while one is ready starts nothing more.
    f.terminals.prewarm(&f.owner, &request(None));
    let_others_run().await;
    let specs = f.stub.specs();
    assert_eq!(specs.len(), 1);
    assert_eq!(specs[0].name, None);
    assert!(f.terminals.list(&f.owner).is_empty());

    // The owner's first open takes it (with the open's name) and the refill starts.
    let first = open(&f, &f.owner, Some("a")).await;
    assert_eq!(first.snapshot.session_id, id("pty-1"));
    assert_eq!(first.snapshot.name.as_deref(), Some("a"));
    assert_eq!(f.terminals.warm_sessions_taken(), 1);
    warm_ready(&f, &f.owner).await;

    // Owner disposal closes the refill with the session.
    within("owner disposal", f.owner.dispose()).await;
    assert!(f.stub.sessions().iter().all(|s| s.is_closed()));
    // A disposed owner gets nothing.
    f.terminals.prewarm(&f.owner, &request(None));
    let_others_run().await;
    assert_eq!(f.stub.specs().len(), 2);
    done(f).await;
}

#[tokio::test]
async fn a_discarded_warm_sessions_id_is_not_reused() {
    let f = warm_fixture();
    f.terminals.prewarm(&f.owner, &request(None));
    warm_ready(&f, &f.owner).await;
    // An open elsewhere discards the warm shell (pty-1) and takes the next id.
    let first = within("open in /tmp", f.terminals.spawn(&f.owner, in_dir("/tmp")))
        .await
        .unwrap();
    assert_eq!(first.snapshot.session_id, id("pty-2"));
    f.stub.session("pty-1").wait_closed().await;
    eventually("the discard to finish", || {
        format!("{:?}", f.terminals).contains("pending: 0")
            || f.terminals.warm_session_count(&f.owner) == 1
    })
    .await;
    // Ids only go forward: the next open does not get pty-1 back.
    let second = within("open in /", f.terminals.spawn(&f.owner, in_dir("/")))
        .await
        .unwrap();
    assert_ne!(second.snapshot.session_id, id("pty-1"));
    done(f).await;
}
