//! Sessions confined by bubblewrap: what each mode allows, the private devpts (field case
//! C35), resource limits, the mode fence, and the engine (marks, readiness, signals, stdin
//! detection, close) working inside the sandbox.

use std::sync::Arc;

use dsh_context::{Agent, Context};
use dsh_sandbox::{
    LimitMechanism, SandboxConfig, SandboxMode, SandboxPlugin, SandboxPolicies, SessionLimits,
};
use dsh_terminal_bash::{BashBackend, Sandboxing, TerminalBashPlugin};
use dsh_terminal_core::{
    BackendSession, CloseOutcome, SpawnRequest, TerminalErrorCode, TerminalSignal, Terminals,
    TerminalsPlugin, WaitReason,
};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, quick_config, sandboxed, unique_id, within};

/// A TCP port on the host's loopback that accepts connections while the listener lives.
fn listener() -> (std::net::TcpListener, u16) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

fn connect_probe(port: u16) -> String {
    format!("(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo net-open || echo net-refused")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_write_writes_only_the_workspace_and_has_no_network() {
    within(async {
        let ws = TempDir::new("ww");
        let host_file = std::env::temp_dir().join(format!("dsh-host-{}", unique_id()));
        std::fs::write(&host_file, "host").unwrap();
        let (_l, port) = listener();
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws.0, false, None);
        let sh = Shell::open_on(&backend).await;
        // The private /tmp holds only the workspace (under the host's /tmp here): the
        // generated rc, and with it the nonce, is out of sight.
        let r = sh.send("ls -A /tmp").await;
        let ws_name = ws.0.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(r.viewport, format!("ls -A /tmp\n{ws_name}\ndsh> "), "{r:?}");
        // The working directory defaults to the workspace root.
        let r = sh.send("pwd").await;
        assert!(r.viewport.contains(&ws.0.display().to_string()), "{r:?}");
        let r = sh.send("echo ok > inside.txt && echo wrote").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(
            std::fs::read_to_string(ws.0.join("inside.txt")).unwrap(),
            "ok\n"
        );
        let probe = format!("/usr/dsh-probe-{}", unique_id());
        let r = sh.send(&format!("touch {probe}")).await;
        assert_eq!(r.exit_code, Some(1), "{r:?}");
        assert!(r.viewport.contains("Read-only file system"), "{r:?}");
        assert!(!std::path::Path::new(&probe).exists());
        // /tmp is private: the host's files there are invisible, and writes stay inside.
        let r = sh
            .send(&format!(
                "test -e {} && echo host-visible || echo host-hidden",
                host_file.display()
            ))
            .await;
        assert!(r.viewport.contains("\nhost-hidden\n"), "{r:?}");
        let private = format!("/tmp/dsh-private-{}", unique_id());
        let r = sh
            .send(&format!("echo p > {private} && cat {private}"))
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(!std::path::Path::new(&private).exists());
        let r = sh.send(&connect_probe(port)).await;
        assert!(r.viewport.contains("\nnet-refused\n"), "{r:?}");
        sh.close().await;
        let _ = std::fs::remove_file(&host_file);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_refuses_writes_to_the_workspace_too() {
    within(async {
        let ws = TempDir::new("ro");
        std::fs::write(ws.0.join("readme"), "visible").unwrap();
        let backend = sandboxed(config(), SandboxMode::ReadOnly, &ws.0, false, None);
        let sh = Shell::open_on(&backend).await;
        let r = sh.send("cat readme; echo; echo x > new.txt").await;
        assert!(r.viewport.contains("visible"), "{r:?}");
        assert!(r.viewport.contains("Read-only file system"), "{r:?}");
        assert_eq!(r.exit_code, Some(1));
        assert!(!ws.0.join("new.txt").exists());
        // The private /tmp is still writable.
        let r = sh.send("echo t > /tmp/t && cat /tmp/t").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_network_and_full_access_reach_the_host() {
    within(async {
        let ws = TempDir::new("net");
        let (_l, port) = listener();
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws.0, true, None);
        let sh = Shell::open_on(&backend).await;
        let r = sh.send(&connect_probe(port)).await;
        assert!(r.viewport.contains("\nnet-open\n"), "{r:?}");
        sh.close().await;
        // danger-full-access: no confinement at all (no provider needed).
        let full = BashBackend::with_sandboxing(
            config(),
            Sandboxing {
                policies: Some(Arc::new(policies(SandboxMode::DangerFullAccess, &ws.0))),
                ..Sandboxing::default()
            },
        );
        let sh = Shell::open_on(&full).await;
        let host_visible = std::env::temp_dir().join(format!("dsh-full-{}", unique_id()));
        let r = sh
            .send(&format!("echo f > {} && echo done", host_visible.display()))
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert_eq!(std::fs::read_to_string(&host_visible).unwrap(), "f\n");
        let _ = std::fs::remove_file(&host_visible);
        sh.close().await;
    })
    .await;
}

fn policies(mode: SandboxMode, ws: &std::path::Path) -> SandboxPolicies {
    SandboxPolicies::new(dsh_sandbox::PolicyDefaults {
        mode,
        workspace_root: ws.to_path_buf(),
        allow_network: false,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confined_mode_without_a_provider_fails_before_anything_starts() {
    within(async {
        let ws = TempDir::new("noprov");
        let backend = BashBackend::with_sandboxing(
            config(),
            Sandboxing {
                policies: Some(Arc::new(policies(SandboxMode::ReadOnly, &ws.0))),
                ..Sandboxing::default()
            },
        );
        let e = Shell::try_open_on(&backend).await.err().unwrap();
        assert_eq!(e.code(), TerminalErrorCode::Spawn);
        insta::assert_snapshot!("no_sandbox_provider", e.message());
    })
    .await;
}

/// Without bubblewrap, the open fails with an error that tells the model what it can do (ask
/// for bubblewrap or an unconfined server: the mode is the operator's), and nothing starts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_bubblewrap_is_reported_as_the_operators_to_fix() {
    within(async {
        let ws = TempDir::new("nobwrap");
        let backend = BashBackend::with_sandboxing(
            config(),
            Sandboxing {
                policies: Some(Arc::new(policies(SandboxMode::WorkspaceWrite, &ws.0))),
                sandbox: Some(Arc::new(dsh_sandbox::Bubblewrap::at("/nonexistent/bwrap"))),
                ..Sandboxing::default()
            },
        );
        let e = Shell::try_open_on(&backend).await.err().unwrap();
        assert_eq!(e.code(), TerminalErrorCode::Spawn);
        insta::assert_snapshot!("bubblewrap_missing", e.message());
    })
    .await;
}

/// The engine inside the sandbox: prompt marks with exit statuses, stdin-wait detection,
/// SIGINT to a running job and refusal at an idle prompt, and close stopping every
/// background form.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marks_readiness_signals_and_close_work_inside_the_sandbox() {
    within(async {
        let ws = TempDir::new("engine");
        let backend = sandboxed(
            quick_config(),
            SandboxMode::WorkspaceWrite,
            &ws.0,
            false,
            None,
        );
        let sh = Shell::open_on(&backend).await;
        assert_eq!(sh.session.motd(), "dsh> ");
        let r = sh.send("false").await;
        assert_eq!(
            (r.wait_reason, r.exit_code),
            (WaitReason::StdinRead, Some(1))
        );
        let r = sh.send("read -p 'name? ' x").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.ends_with("name? "), "{r:?}");
        let r = sh.send("world").await;
        assert_eq!(
            (r.wait_reason, r.exit_code),
            (WaitReason::StdinRead, Some(0))
        );
        // At an idle prompt SIGINT is not sent, and SIGKILL of the shell is refused.
        let s = sh.session.signal(TerminalSignal::Sigint).unwrap();
        assert!(!s.delivered && s.shell_targeted, "{s:?}");
        let e = sh.session.signal(TerminalSignal::Sigkill).unwrap_err();
        assert_eq!(e.code(), TerminalErrorCode::Signal);
        // A running job gets SIGINT and the shell prompt comes back.
        let r = sh.send("sleep 100").await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
        let s = sh.session.signal(TerminalSignal::Sigint).unwrap();
        assert!(s.delivered && !s.shell_targeted, "{s:?}");
        let r = sh.send("echo after-$?").await;
        assert!(r.viewport.contains("\nafter-130\n"), "{r:?}");
        // Every background form, then close: nothing may remain.
        let r = sh
            .send(
                "sleep 1001 & setsid sleep 1002 & nohup sleep 1003 >/dev/null 2>&1 & \
                 (sleep 1004 &) ; sleep 1005 & disown; echo started",
            )
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// Field case C35 (terminal part): a confined session cannot see, open, write to or type
/// into another session's terminal, and the other session is untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c35_sessions_cannot_reach_each_others_terminal() {
    within(async {
        let ws = TempDir::new("c35");
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws.0, false, None);
        let a = Shell::open_on(&backend).await;
        let b = Shell::open_on(&backend).await;
        let b_tty = b.session.tty_path().unwrap().display().to_string();
        // The attack works without a sandbox: the host can open B's terminal device.
        assert!(std::fs::OpenOptions::new().write(true).open(&b_tty).is_ok());
        let a_tty = a.session.tty_path().unwrap().display().to_string();
        let a_name = a_tty.rsplit('/').next().unwrap();
        // A's /dev/pts holds A's own terminal (so `tty` names it) and ptmx, nothing else.
        let r = a.send("ls -1 /dev/pts; tty").await;
        assert_eq!(
            r.viewport,
            format!("ls -1 /dev/pts; tty\n{a_name}\nptmx\n{a_tty}\ndsh> "),
            "{r:?}"
        );
        let r = a.send(&format!("echo pwned > {b_tty}")).await;
        assert_eq!(r.exit_code, Some(1), "{r:?}");
        assert!(r.viewport.contains("Read-only file system"), "{r:?}");
        // The session's own devpts instance gives programs terminals of their own, and those
        // are not B's either.
        let r = a
            .send("python3 -c \"import os; m, s = os.openpty(); print(os.ttyname(s))\"")
            .await;
        assert!(r.viewport.contains("\n/dev/.dsh/pts/0\n"), "{r:?}");
        let r = a
            .send(&format!(
                "python3 -c \"import os, fcntl, termios; fd = os.open('{b_tty}', os.O_RDWR); \
                 fcntl.ioctl(fd, termios.TIOCSTI, b'x')\" 2>&1 | tail -1"
            ))
            .await;
        assert!(r.viewport.contains("FileNotFoundError"), "{r:?}");
        // B's processes are not even visible to A.
        let r = a.send("ps -e -o comm= | sort -u | tr '\\n' ' '").await;
        // Only this session's shell and the namespace's init (bwrap) besides the pipeline.
        assert!(
            r.viewport.contains("\nbash bwrap ps sort tr dsh> "),
            "{r:?}"
        );
        let r = b.send("echo still-mine").await;
        assert_eq!(r.viewport, "echo still-mine\nstill-mine\ndsh> ");
        let history = b.session.transcript();
        assert!(!history.contains("pwned"), "{history:?}");
        a.close().await;
        b.close().await;
    })
    .await;
}

/// Field case C35 (limits part): a fork bomb in one session is capped by its own pids
/// cgroup; another session and this process stay responsive; close stops every bomb
/// process. On a host without a limit mechanism, the open result says so instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c35_a_fork_bomb_is_contained_by_the_sessions_pid_cap() {
    const MAX_PIDS: u64 = 48;
    within(async {
        let ws = TempDir::new("bomb");
        let limits = SessionLimits {
            max_pids: Some(MAX_PIDS),
            max_memory_bytes: Some(256 * 1024 * 1024),
        };
        let cfg = dsh_terminal_bash::BashConfig {
            timeout_ms: 4000,
            ..quick_config()
        };
        let bomb_backend = sandboxed(cfg, SandboxMode::WorkspaceWrite, &ws.0, false, Some(limits));
        // The directory the session's pids cgroup goes under, and the line of
        // /proc/PID/cgroup that names it.
        let (pids_base, line_prefix) = match LimitMechanism::detect() {
            LimitMechanism::CgroupV1 {
                pids: Some(base), ..
            } => (base, ":pids:/"),
            LimitMechanism::CgroupV2 {
                base, pids: true, ..
            } => (base, "0::/"),
            _ => {
                // Nothing can cap the session here: the open result must say so.
                let sh = Shell::open_on(&bomb_backend).await;
                assert!(
                    sh.session.motd().starts_with("[limits: the process"),
                    "{}",
                    sh.session.motd()
                );
                sh.close().await;
                return;
            }
        };
        let victim = Shell::open_on(&sandboxed(
            config(),
            SandboxMode::WorkspaceWrite,
            &ws.0,
            false,
            None,
        ))
        .await;
        let bomb = Shell::open_on(&bomb_backend).await;
        assert_eq!(bomb.session.motd(), "dsh> ");
        // Memory: an allocation past the cap fails instead of taking the host's memory.
        let r = bomb
            .send("python3 -c 'x = bytearray(512 * 1024 * 1024); print(\"allocated\")'")
            .await;
        assert!(!r.viewport.contains("\nallocated\n"), "{r:?}");
        assert_ne!(r.exit_code, Some(0), "{r:?}");
        // The session's pids cgroup, as the host sees it.
        let own =
            std::fs::read_to_string(format!("/proc/{}/cgroup", bomb.session.shell().pid)).unwrap();
        let leaf = own
            .lines()
            .find_map(|l| l.split_once(line_prefix).map(|(_, p)| p.to_owned()))
            .unwrap();
        let cgroup = pids_base.join(leaf.rsplit('/').next().unwrap());
        assert!(
            cgroup
                .to_string_lossy()
                .ends_with(&format!("-{}", bomb.id.as_str())),
            "{} is not the cgroup of {}",
            cgroup.display(),
            bomb.id.as_str()
        );
        let read = |file: &str| std::fs::read_to_string(cgroup.join(file)).unwrap_or_default();
        // Verify the cap before detonating anything.
        assert_eq!(read("pids.max").trim(), MAX_PIDS.to_string());
        let refused_forks = || {
            read("pids.events")
                .trim()
                .strip_prefix("max ")
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0)
        };
        assert_eq!(refused_forks(), 0, "{}", cgroup.display());
        // The bomb.
        let r = bomb.send(":(){ :|:& };:").await;
        assert_ne!(r.wait_reason, WaitReason::SessionExit, "{r:?}");
        crate::support::wait_until("the bomb runs into its cap", || refused_forks() > 0).await;
        let current: u64 = read("pids.current").trim().parse().unwrap();
        assert!(
            current <= MAX_PIDS,
            "{current} processes in a session capped at {MAX_PIDS}"
        );
        let r = victim.send("echo victim-alive").await;
        assert_eq!(r.viewport, "echo victim-alive\nvictim-alive\ndsh> ");
        // The bomb keeps forking while teardown stops it: many more than MAX_PIDS may be
        // stopped in all, never more than MAX_PIDS at once (checked above).
        bomb.close_stopping_at_most(usize::MAX).await;
        victim.close().await;
    })
    .await;
}

/// Caps that nothing on the host can enforce are reported in the open result (the startup
/// screen), and the session works uncapped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unenforceable_caps_are_reported_at_open() {
    within(async {
        let caps = SessionLimits {
            max_pids: Some(100),
            max_memory_bytes: None,
        };
        let backend = BashBackend::with_sandboxing(
            config(),
            Sandboxing {
                limits: Some(Arc::new(dsh_sandbox::ResourceLimits::with_mechanism(
                    caps,
                    LimitMechanism::Unavailable,
                ))),
                ..Sandboxing::default()
            },
        );
        let sh = Shell::open_on(&backend).await;
        assert_eq!(
            sh.session.motd(),
            "[limits: the process cap is not enforced: none available on this host (sessions are not capped)]\ndsh> "
        );
        let r = sh.send("echo works").await;
        assert!(r.viewport.contains("\nworks\n"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// The mode fence through the real services: while an owner has a session, its mode cannot
/// change; other owners can; once the session is closed the change goes through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mode_fence_holds_while_an_owner_has_sessions() {
    within(async {
        let ws = TempDir::new("fence");
        let ctx = Context::builder()
            .with(TerminalsPlugin)
            .with(SandboxPlugin {
                config: SandboxConfig {
                    mode: SandboxMode::WorkspaceWrite,
                    workspace_root: Some(ws.0.clone()),
                    ..SandboxConfig::default()
                },
            })
            .with(TerminalBashPlugin { config: config() })
            .apply()
            .unwrap();
        let terminals: Arc<Terminals> = ctx.require::<Terminals>().unwrap();
        let policies: Arc<SandboxPolicies> = ctx.require::<SandboxPolicies>().unwrap();
        let (a, b) = (Agent::new(&ctx, "a"), Agent::new(&ctx, "b"));
        let opened = terminals
            .spawn(
                &a,
                SpawnRequest {
                    backend_type: "shell".into(),
                    name: None,
                    cwd: None,
                },
            )
            .await
            .unwrap();
        let e = policies.set_mode(&a, SandboxMode::DangerFullAccess).unwrap_err();
        assert!(e.to_string().starts_with("cannot change the sandbox mode from workspace-write to danger-full-access while persistent terminal sessions are open"), "{e}");
        policies.set_mode(&a, SandboxMode::WorkspaceWrite).unwrap();
        policies.set_mode(&b, SandboxMode::ReadOnly).unwrap();
        let closed = terminals.kill(&a, &opened.snapshot.session_id).await.unwrap();
        assert!(matches!(closed, CloseOutcome::Closed(_)), "{closed:?}");
        policies.set_mode(&a, SandboxMode::ReadOnly).unwrap();
        assert_eq!(policies.resolve("a").mode, SandboxMode::ReadOnly);
        ctx.dispose().await;
    })
    .await;
}

/// bubblewrap's `--die-with-parent` is a parent-death signal, which the kernel sends when the
/// *thread* that forked bwrap exits. Sessions are forked from one long-lived thread, so a
/// runtime whose idle blocking threads retire quickly (tokio's default keep-alive is 10 s)
/// does not take confined sessions down with them.
#[test]
fn a_confined_session_outlives_the_runtimes_idle_blocking_threads() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_keep_alive(std::time::Duration::from_millis(20))
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(within(async {
        let ws = TempDir::new("keepalive");
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws.0, false, None);
        let sh = Shell::open_on(&backend).await;
        // Far longer than the keep-alive: any blocking thread used during the open retires
        // (this pause is the behaviour under test, not a synchronisation).
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let r = sh.send("echo still-alive").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "still-alive"), "{r:?}");
        sh.close().await;
    }));
}

/// A confined shell's exit is reported as the shell's own, exactly as without a sandbox: the
/// launcher in between would turn a signal N into exit code 128 + N.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confined_shells_own_exit_status_is_reported() {
    use dsh_terminal_core::SessionStatus;
    within(async {
        let ws = TempDir::new("status");
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws.0, false, None);
        for (text, expected) in [
            (
                "exit 137",
                SessionStatus::Exited {
                    exit_code: Some(137),
                    signal: None,
                },
            ),
            (
                "kill -TERM $$; kill -KILL $$",
                SessionStatus::Exited {
                    exit_code: None,
                    signal: Some("SIGKILL".to_owned()),
                },
            ),
            (
                "exec sh -c 'kill -SEGV $$'",
                SessionStatus::Exited {
                    exit_code: None,
                    signal: Some("SIGSEGV".to_owned()),
                },
            ),
        ] {
            let sh = Shell::open_on(&backend).await;
            let r = sh.send(text).await;
            assert_eq!(r.wait_reason, WaitReason::SessionExit, "{text}: {r:?}");
            assert_eq!(r.session_status, expected, "{text}");
            sh.close().await;
        }
    })
    .await;
}

/// A workspace that is a git worktree (its `.git` a file naming a directory in the main
/// repository) can commit in `workspace-write`: the worktree's git directory and the common
/// directory are writable, except the hooks and config, which would run outside the sandbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_git_worktree_workspace_can_commit() {
    within(async {
        let root = TempDir::new("worktree");
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
                .args(args)
                .current_dir(&root.0)
                .output()
                .unwrap();
            assert!(out.status.success(), "git {args:?}: {out:?}");
        };
        git(&["init", "-q", "main"]);
        git(&["-C", "main", "commit", "-q", "--allow-empty", "-m", "first"]);
        git(&["-C", "main", "worktree", "add", "-q", "../feature"]);
        let ws = root.0.join("feature");
        assert!(ws.join(".git").is_file());
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws, false, None);
        let sh = Shell::open_on(&backend).await;
        let r = sh
            .send(
                "echo change > file && git add file && \
                 git -c user.name=t -c user.email=t@example.com commit -q -m second && \
                 git log --format=%s | tr '\\n' ' '",
            )
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.contains("\nsecond first dsh> "), "{r:?}");
        let r = sh
            .send("touch \"$(git rev-parse --git-common-dir)/hooks/pre-commit\"")
            .await;
        assert_eq!(r.exit_code, Some(1), "{r:?}");
        assert!(r.viewport.contains("Read-only file system"), "{r:?}");
        sh.close().await;
        // The commit is real: the main repository sees the worktree's branch move.
        let out = std::process::Command::new("git")
            .args(["-C", "main", "log", "--format=%s", "feature"])
            .current_dir(&root.0)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "second\nfirst\n");
    })
    .await;
}

/// With cgroup v2 limits, the session's first process joins its limit cgroup before the shell
/// runs, and the engine keeps it there (moving it into a cgroup of its own would lift the
/// caps): tracking and close work by that cgroup. Run on whatever writable cgroup2 this host
/// has (its controllers need not be delegated: no cap is written here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_keeps_a_session_in_its_cgroup_v2_limit_group() {
    within(async {
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        let Some(base) = mountinfo.lines().find_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            let f: Vec<&str> = left.split_whitespace().collect();
            (right.starts_with("cgroup2 ") && f.get(3) == Some(&"/") && f[5].starts_with("rw"))
                .then(|| std::path::PathBuf::from(f[4]))
        }) else {
            eprintln!("no read-write cgroup2 mount on this host: nothing to check");
            return;
        };
        let limits = dsh_sandbox::ResourceLimits::with_mechanism(
            SessionLimits {
                max_pids: Some(64),
                max_memory_bytes: None,
            },
            LimitMechanism::CgroupV2 {
                base,
                pids: false,
                memory: false,
            },
        );
        let backend = BashBackend::with_sandboxing(
            config(),
            Sandboxing {
                limits: Some(Arc::new(limits)),
                ..Sandboxing::default()
            },
        );
        let sh = Shell::open_on(&backend).await;
        let own =
            std::fs::read_to_string(format!("/proc/{}/cgroup", sh.session.shell().pid)).unwrap();
        let group = own
            .lines()
            .find_map(|l| l.strip_prefix("0::"))
            .unwrap()
            .to_owned();
        assert!(
            group.ends_with(&format!("-{}", sh.id.as_str())) && group.contains("/dsh-"),
            "{group}"
        );
        let r = sh.send("setsid sleep 1001 & echo started").await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A send during which the session's memory cap killed a process, or its process cap
/// refused forks, says so in its result (a `[limit: …]` notice), once: the next result is
/// quiet again. Through the real services, as
/// a host composes them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_says_when_a_cap_stopped_something() {
    within(async {
        let limits = SessionLimits {
            max_pids: Some(24),
            max_memory_bytes: Some(128 * 1024 * 1024),
        };
        let (enforced, memory_enforced) = match LimitMechanism::detect() {
            LimitMechanism::CgroupV1 { pids, memory } => (pids.is_some(), memory.is_some()),
            LimitMechanism::CgroupV2 { pids, memory, .. } => (pids, memory),
            LimitMechanism::Rlimit | LimitMechanism::Unavailable => (false, false),
        };
        if !enforced {
            eprintln!("no cgroup enforces a process cap on this host: nothing to report");
            return;
        }
        let ws = TempDir::new("capped");
        let ctx = Context::builder()
            .with(TerminalsPlugin)
            .with(SandboxPlugin {
                config: SandboxConfig {
                    mode: SandboxMode::WorkspaceWrite,
                    workspace_root: Some(ws.0.clone()),
                    limits,
                    ..SandboxConfig::default()
                },
            })
            .with(TerminalBashPlugin { config: config() })
            .apply()
            .unwrap();
        let terminals: Arc<Terminals> = ctx.require::<Terminals>().unwrap();
        let agent = Agent::new(&ctx, "capped");
        let opened = terminals
            .spawn(
                &agent,
                SpawnRequest {
                    backend_type: "shell".into(),
                    name: None,
                    cwd: None,
                },
            )
            .await
            .unwrap();
        let id = opened.snapshot.session_id;
        let send = |text: &str| {
            let op = terminals
                .start_send(
                    &agent,
                    &id,
                    dsh_terminal_core::SendRequest {
                        text: text.to_owned(),
                        submit: true,
                        timeout: None,
                    },
                )
                .unwrap();
            async move { op.done().await.unwrap() }
        };
        let r = send("echo quiet").await;
        assert!(r.notices.is_empty(), "{r:?}");
        if memory_enforced {
            // Past the memory cap the kernel kills the allocating process
            // (before the process cap below fills the session with sleeps).
            let r = send("python3 -c 'x = bytearray(512 * 1024 * 1024)'").await;
            assert_ne!(r.exit_code, Some(0), "{r:?}");
            insta::assert_snapshot!("memory_cap_notice", r.notices.join("\n"));
        }
        // dash gives up on the first refused fork (bash would retry with back-off).
        let r =
            send("sh -c 'for i in $(seq 40); do sleep 60 >/dev/null 2>&1 & done' 2>&1 | tail -1")
                .await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        insta::assert_snapshot!("process_cap_notice", r.notices.join("\n"));
        let r = send("echo quiet again").await;
        assert!(r.notices.is_empty(), "{r:?}");
        let closed = terminals.kill(&agent, &id).await.unwrap();
        assert!(matches!(closed, CloseOutcome::Closed(_)), "{closed:?}");
        ctx.dispose().await;
    })
    .await;
}
