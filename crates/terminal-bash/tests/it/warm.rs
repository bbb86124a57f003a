//! The warm pool with real confined bash through the real services: the next open takes the
//! shell started after the previous one, named and with its own id; warm shells are unlisted,
//! keyed by cwd, never let an owner exceed its cap, and leave no process behind when their
//! owner goes or its sandbox mode changes.

use std::sync::Arc;

use dsh_context::{Agent, Context};
use dsh_sandbox::{SandboxConfig, SandboxMode, SandboxPolicies};
use dsh_terminal_core::{
    SendRequest, SessionId, SpawnRequest, SpawnResult, TerminalErrorCode, Terminals,
};
use pretty_assertions::assert_eq;

use crate::support::{TempDir, config, tagged_pids, unique_id, wait_until, within};

struct Pool {
    ctx: Context,
    terminals: Arc<Terminals>,
    owner: Agent,
    owner_id: String,
    ws: TempDir,
}

/// The real services (workspace-write sandbox, as `dsh-mcp` runs by default) with one warm
/// session per owner, and an owner with a unique id.
fn pool() -> Pool {
    let ws = TempDir::new("warm");
    let ctx = Context::builder()
        .with(dsh_terminal_core::TerminalsPlugin)
        .with(dsh_sandbox::SandboxPlugin {
            config: SandboxConfig {
                mode: SandboxMode::WorkspaceWrite,
                workspace_root: Some(ws.0.clone()),
                ..SandboxConfig::default()
            },
        })
        .with(dsh_terminal_bash::TerminalBashPlugin { config: config() })
        .apply()
        .unwrap();
    let terminals = ctx.require::<Terminals>().unwrap();
    terminals.set_warm_sessions(1);
    let owner_id = format!("warm-{}", unique_id());
    let owner = Agent::new(&ctx, &owner_id);
    Pool {
        ctx,
        terminals,
        owner,
        owner_id,
        ws,
    }
}

fn shell(name: Option<&str>) -> SpawnRequest {
    SpawnRequest {
        backend_type: "shell".into(),
        name: name.map(str::to_owned),
        cwd: None,
    }
}

impl Pool {
    async fn open(&self, request: SpawnRequest) -> SpawnResult {
        self.terminals.spawn(&self.owner, request).await.unwrap()
    }

    async fn warm_ready(&self) {
        wait_until("a warm session is ready", || {
            self.terminals.warm_session_count(&self.owner) == 1
        })
        .await;
    }

    /// The last line the command prints.
    async fn run(&self, id: &SessionId, command: &str) -> String {
        let op = self
            .terminals
            .start_send(
                &self.owner,
                id,
                SendRequest {
                    text: command.to_owned(),
                    submit: true,
                    timeout: None,
                },
            )
            .unwrap();
        let result = op.done().await.unwrap();
        let lines: Vec<&str> = result.viewport.lines().collect();
        lines
            .iter()
            .rev()
            .find(|l| !l.is_empty() && !l.starts_with("dsh>"))
            .map(|l| (*l).to_owned())
            .unwrap_or_default()
    }

    /// Live processes started for this owner (their environment carries its id).
    fn owner_pids(&self) -> Vec<i32> {
        owner_pids(&self.owner_id)
    }

    /// Disposes the owner and the context, asserting no process of the owner is left.
    async fn finish(self) {
        self.owner.dispose().await;
        wait_until("the owner's processes are gone", || {
            owner_pids(&self.owner_id).is_empty()
        })
        .await;
        self.terminals.check_invariants().unwrap();
        self.ctx.dispose().await;
        drop(self.ws);
    }
}

fn owner_pids(owner_id: &str) -> Vec<i32> {
    tagged_pids(&format!("DSH_SESSION_ID={owner_id}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_open_takes_the_warm_shell_named_and_with_its_own_id() {
    within(async {
        let p = pool();
        let first = p.open(shell(Some("a"))).await;
        p.warm_ready().await;
        // The warm shell runs, unlisted.
        assert_eq!(p.terminals.list(&p.owner).len(), 1);
        let first_shell = first.snapshot.pid.unwrap() as i32;
        assert!(
            p.owner_pids().iter().any(|pid| *pid != first_shell),
            "no warm shell is running"
        );

        let second = p.open(shell(Some("b"))).await;
        assert_eq!(p.terminals.warm_sessions_taken(), 1);
        assert_eq!(second.snapshot.session_id.as_str(), "pty-2");
        assert_eq!(second.snapshot.name.as_deref(), Some("b"));
        assert_eq!(second.motd, first.motd);
        let id = second.snapshot.session_id.clone();
        assert_eq!(p.run(&id, "echo \"$DSH_PTY_SESSION_ID\"").await, "pty-2");
        assert_eq!(p.run(&id, "echo hi").await, "hi");
        let listed: Vec<_> = p
            .terminals
            .list(&p.owner)
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(listed, vec![Some("a".to_owned()), Some("b".to_owned())]);
        // The next warm shell is started; owner disposal leaves none of it behind.
        p.warm_ready().await;
        p.finish().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_cwd_does_not_take_the_warm_shell_and_the_cap_holds() {
    within(async {
        let p = pool();
        p.terminals.set_max_sessions_per_owner(Some(1));
        let first = p.open(shell(None)).await;
        p.warm_ready().await;
        let over = p.terminals.spawn(&p.owner, shell(None)).await.unwrap_err();
        assert_eq!(over.code(), TerminalErrorCode::SessionLimit);
        assert_eq!(p.terminals.warm_session_count(&p.owner), 1);
        p.terminals
            .kill(&p.owner, &first.snapshot.session_id)
            .await
            .unwrap();

        let sub = p.ws.0.join("sub");
        std::fs::create_dir(&sub).unwrap();
        let other = p
            .open(SpawnRequest {
                cwd: Some(sub.clone()),
                ..shell(None)
            })
            .await;
        assert_eq!(p.terminals.warm_sessions_taken(), 0);
        assert_eq!(
            p.run(&other.snapshot.session_id, "pwd").await,
            sub.to_str().unwrap()
        );
        p.finish().await;
    })
    .await;
}

/// A warm shell whose directory was removed and made again under the same name (a build or
/// scratch directory wiped and recreated) is not handed out: the open runs cold, in the new
/// directory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_shell_in_a_directory_made_again_is_not_taken() {
    within(async {
        let p = pool();
        let dir = p.ws.0.join("scratch");
        std::fs::create_dir(&dir).unwrap();
        let request = || SpawnRequest {
            cwd: Some(dir.clone()),
            ..shell(None)
        };
        p.open(request()).await;
        p.warm_ready().await;
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("fresh.txt"), "").unwrap();
        let second = p.open(request()).await;
        assert_eq!(p.terminals.warm_sessions_taken(), 0);
        let id = second.snapshot.session_id;
        assert_eq!(p.run(&id, "ls").await, "fresh.txt");
        assert_eq!(p.run(&id, "touch made && echo made-$?").await, "made-0");
        p.finish().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandbox_mode_change_discards_the_warm_shell() {
    within(async {
        let p = pool();
        let policies = p.ctx.require::<SandboxPolicies>().unwrap();
        let first = p.open(shell(None)).await;
        p.warm_ready().await;
        // A session holds the fence; the warm shell does not.
        assert!(policies.set_mode(&p.owner, SandboxMode::ReadOnly).is_err());
        p.terminals
            .kill(&p.owner, &first.snapshot.session_id)
            .await
            .unwrap();
        assert!(!p.owner_pids().is_empty(), "the warm shell is not running");
        policies.set_mode(&p.owner, SandboxMode::ReadOnly).unwrap();
        wait_until("the discarded warm shell is gone", || {
            p.owner_pids().is_empty()
        })
        .await;
        // The next open starts cold, under the new mode.
        let next = p.open(shell(None)).await;
        assert_eq!(p.terminals.warm_sessions_taken(), 0);
        let probe = format!(
            "touch {}/x 2>/dev/null && echo writable || echo read-only",
            p.ws.0.display()
        );
        assert_eq!(p.run(&next.snapshot.session_id, &probe).await, "read-only");
        p.finish().await;
    })
    .await;
}
