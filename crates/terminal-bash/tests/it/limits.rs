//! Per-session resource limits on the real backend: a fork bomb contained (field case C35),
//! caps nothing enforces reported at open, a cgroup v2 limit group kept by the engine,
//! results that say when a cap stopped something, and a private `/tmp` sized under the cap.

use std::sync::Arc;

use dsh_sandbox::{LimitMechanism, SandboxConfig, SandboxMode, SessionLimits};
use dsh_terminal_bash::{BashBackend, Sandboxing};
use dsh_terminal_core::{BackendSession, CloseOutcome, WaitReason};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, composed, config, quick_config, sandboxed, within};

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
/// quiet again. Through the real services, as a host composes them.
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
        let capped = Capped::open("capped", limits).await;
        let send = |text: &'static str| capped.send(text, None);
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
        capped.close().await;
    })
    .await;
}

/// A confined session's private `/tmp`, `/run` and `/dev/shm` hold half its memory cap
/// together: filling them all fails the writes with "No space left on device" and the shell
/// lives on. (Their tmpfs pages count against the cap and no kill frees them: at the kernel's
/// default size, half the host's memory, filling `/tmp` made the kernel kill every process of
/// the session, the shell included; sized a share of the cap each, a full `/dev/shm` and
/// `/run` beside a full `/tmp` went past a small cap.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_tmp_fails_the_write_and_keeps_the_session() {
    within(async {
        let limits = SessionLimits {
            max_pids: None,
            max_memory_bytes: Some(256 * 1024 * 1024),
        };
        let ws = TempDir::new("tmpfull");
        let backend = sandboxed(
            config(),
            SandboxMode::WorkspaceWrite,
            &ws.0,
            false,
            Some(limits),
        );
        let sh = Shell::open_on(&backend).await;
        let r = sh
            .send("df -k --output=size /tmp /run /dev/shm | tail -n +2")
            .await;
        let sizes_kib: Vec<u64> = r
            .viewport
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        assert_eq!(sizes_kib.len(), 3, "{r:?}");
        assert!(sizes_kib.iter().sum::<u64>() <= 128 * 1024, "{r:?}");
        let r = sh
            .send(
                "for f in /tmp/fill /run/fill /dev/shm/fill; do \
                 head -c 300000000 /dev/zero > $f; echo rc=$?; done",
            )
            .await;
        assert!(r.viewport.contains("No space left on device"), "{r:?}");
        assert_eq!(
            r.viewport.lines().filter(|l| *l == "rc=1").count(),
            3,
            "{r:?}"
        );
        let r = sh.send("echo alive; rm -f /tmp/fill /run/fill /dev/shm/fill").await;
        assert!(r.viewport.lines().any(|l| l == "alive"), "{r:?}");
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        // The rest of /dev (both trees, the session's own devpts's included) takes no files.
        for path in ["/dev/fill", "/dev/.dsh/fill"] {
            let r = sh.send(&format!("echo x > {path}")).await;
            assert!(r.viewport.contains("Read-only file system"), "{r:?}");
        }
        // Its device nodes still work, and programs still open terminals of their own.
        let r = sh
            .send("echo x > /dev/null && python3 -c 'import os, pty; m, s = pty.openpty(); print(os.ttyname(s))'")
            .await;
        assert!(r.viewport.contains("\n/dev/.dsh/pts/"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A command line that fills the session's process cap with background jobs gets its shell
/// back to the prompt once bash gives up the refused fork (its retries take about 15 s), and
/// the jobs can be killed from there. Bash 5.2 then waits, after the next simple command it
/// runs, for the last child it made (a job still running): the prompt hook was that command,
/// so the shell never prompted again; and the hook's own `stty` forks stalled each prompt in
/// bash's retries at the cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_at_its_process_cap_gets_back_to_its_prompt() {
    within(async {
        let enforced = match LimitMechanism::detect() {
            LimitMechanism::CgroupV1 { pids, .. } => pids.is_some(),
            LimitMechanism::CgroupV2 { pids, .. } => pids,
            LimitMechanism::Rlimit | LimitMechanism::Unavailable => false,
        };
        if !enforced {
            eprintln!("no cgroup enforces a process cap on this host: nothing to fill");
            return;
        }
        let limits = SessionLimits {
            max_pids: Some(12),
            max_memory_bytes: None,
        };
        let capped = Capped::open("full", limits).await;
        // Generous: each refused fork costs bash about 15 s of retries before it gives up.
        let send = |text: &'static str| capped.send(text, Some(std::time::Duration::from_secs(90)));
        let r = send("for i in $(seq 20); do sleep 10371 & done; echo started").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.contains("fork"), "{r:?}");
        assert!(!r.viewport.contains("\nstarted"), "{r:?}");
        // The prompt is usable: the jobs are killed from it, and the next prompts come at once.
        let r = send("kill %1 %2 %3 %4; echo killed").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.contains("\nkilled"), "{r:?}");
        let r = send("kill $(jobs -p); wait; echo all done").await;
        assert_eq!(r.wait_reason, WaitReason::StdinRead, "{r:?}");
        assert!(r.viewport.contains("\nall done"), "{r:?}");
        capped.close().await;
    })
    .await;
}

/// A session composed as a host does, confined to its workspace with `limits`.
struct Capped {
    _ws: TempDir,
    ctx: dsh_context::Context,
    terminals: Arc<dsh_terminal_core::Terminals>,
    agent: dsh_context::Agent,
    id: dsh_terminal_core::SessionId,
}

impl Capped {
    async fn open(tag: &str, limits: SessionLimits) -> Self {
        let ws = TempDir::new(tag);
        let (ctx, terminals, agent, id) = composed(
            SandboxConfig {
                mode: SandboxMode::WorkspaceWrite,
                workspace_root: Some(ws.0.clone()),
                limits,
                ..SandboxConfig::default()
            },
            tag,
        )
        .await;
        Self {
            _ws: ws,
            ctx,
            terminals,
            agent,
            id,
        }
    }

    /// Sends `text` with Enter, with `timeout` (the session's default when `None`).
    async fn send(
        &self,
        text: &str,
        timeout: Option<std::time::Duration>,
    ) -> dsh_terminal_core::SendResult {
        let request = dsh_terminal_core::SendRequest {
            text: text.to_owned(),
            submit: true,
            timeout,
        };
        let op = self
            .terminals
            .start_send(&self.agent, &self.id, request)
            .unwrap();
        op.done().await.unwrap()
    }

    /// Closes the session (asserting it closed) and disposes the composed services.
    async fn close(self) {
        let closed = self.terminals.kill(&self.agent, &self.id).await.unwrap();
        assert!(matches!(closed, CloseOutcome::Closed(_)), "{closed:?}");
        self.ctx.dispose().await;
    }
}

/// A cap too small for the shell to start: the open fails naming the cap that stopped it and
/// saying that only the operator can raise it, whether the shell died (a memory cap of 1 MiB:
/// not a bare "exited during startup") or reached its prompt with forks refused on the way (a
/// cap of 2 processes: its setup half done, every command failing to fork).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cap_too_small_for_the_shell_is_named_in_the_open_error() {
    within(async {
        let mechanism = LimitMechanism::detect();
        let (memory, pids) = match &mechanism {
            LimitMechanism::CgroupV2 { memory, pids, .. } => (*memory, *pids),
            LimitMechanism::CgroupV1 { memory, pids } => (memory.is_some(), pids.is_some()),
            _ => (false, false),
        };
        let caps = [
            (
                memory,
                SessionLimits {
                    max_pids: None,
                    max_memory_bytes: Some(1024 * 1024),
                },
                "(this session reached its memory cap of 1 MiB; the kernel killed a process of it (out of memory)): ",
            ),
            (
                pids,
                SessionLimits {
                    max_pids: Some(2),
                    max_memory_bytes: None,
                },
                "(this session reached its cap of 2 processes; new processes were refused (fork: Resource temporarily unavailable)): ",
            ),
        ];
        for (enforced, limits, says) in caps {
            if !enforced {
                eprintln!("no cgroup for {limits:?} on this host: nothing to check");
                continue;
            }
            let backend = BashBackend::with_sandboxing(
                config(),
                Sandboxing {
                    limits: Some(Arc::new(dsh_sandbox::ResourceLimits::with_mechanism(
                        limits,
                        mechanism.clone(),
                    ))),
                    ..Sandboxing::default()
                },
            );
            let Err(err) = Shell::try_open_on(&backend).await else {
                panic!("a shell started whole with {limits:?}");
            };
            assert_eq!(err.code(), dsh_terminal_core::TerminalErrorCode::Spawn);
            assert!(
                err.message().contains(&format!(
                    "{says}the session's caps are too small for the shell to start, and nothing you can do from a session changes that; ask the user to raise them"
                )),
                "{}",
                err.message()
            );
        }
    })
    .await;
}
