//! Sessions confined by bubblewrap: what each mode allows, the session's own `/dev/pts`
//! (field case C35), errors the model can act on, the mode fence, the shell's own exit
//! status, and the engine (marks, readiness, signals, stdin detection, close) working inside
//! the sandbox. Resource limits are in `limits.rs`, git directories outside the workspace in
//! `sandbox_git.rs`.

use std::sync::Arc;

use dsh_context::Agent;
use dsh_sandbox::{SandboxConfig, SandboxMode, SandboxPolicies};
use dsh_terminal_bash::{BashBackend, BashConfig, Sandboxing};
use dsh_terminal_core::{
    BackendSession, CloseOutcome, TerminalErrorCode, TerminalSignal, WaitReason,
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

/// A confined session holds none of root's powers over the host, even under a server run as
/// root: no `CAP_SYS_ADMIN`, so it cannot remount the read-only host filesystem writable or set
/// the host's name (its UTS namespace is its own besides). Under root it keeps what ordinary
/// file work needs: a workspace file owned by another user, mode 600, stays readable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confined_session_holds_no_admin_capabilities() {
    /// `CAP_SYS_ADMIN`'s bit in `/proc/<pid>/status`'s capability masks.
    const CAP_SYS_ADMIN: u64 = 1 << 21;
    within(async {
        let ws = TempDir::new("caps");
        let root = rustix::process::geteuid().is_root();
        let private = ws.0.join("private.txt");
        std::fs::write(&private, "owned-by-another\n").unwrap();
        if root {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
            std::os::unix::fs::chown(&private, Some(1000), Some(1000)).unwrap();
            std::os::unix::fs::chown(&ws.0, Some(1000), Some(1000)).unwrap();
        }
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws.0, false, None);
        let sh = Shell::open_on(&backend).await;
        // Checked first: with CAP_SYS_ADMIN, the steps below would change the host.
        let r = sh.send("grep CapEff /proc/self/status").await;
        let effective = r
            .viewport
            .lines()
            .find_map(|l| l.strip_prefix("CapEff:\t"))
            .and_then(|hex| u64::from_str_radix(hex, 16).ok())
            .unwrap_or_else(|| panic!("{r:?}"));
        assert_eq!(effective & CAP_SYS_ADMIN, 0, "{r:?}");
        let probe = format!("/usr/dsh-probe-{}", unique_id());
        let r = sh
            .send(&format!(
                "mount -o remount,rw,bind / 2>/dev/null; touch {probe} 2>/dev/null || echo refused"
            ))
            .await;
        assert!(r.viewport.lines().any(|l| l == "refused"), "{r:?}");
        assert!(!std::path::Path::new(&probe).exists());
        let host_name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
        let r = sh
            .send(&format!(
                "hostname dsh-{} 2>/dev/null || echo refused",
                unique_id()
            ))
            .await;
        assert!(r.viewport.lines().any(|l| l == "refused"), "{r:?}");
        assert_eq!(
            std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap(),
            host_name
        );
        // The host's kernel settings are read-only (as root with the file capabilities, a
        // writable `core_pattern` would run a program as root outside the sandbox). Asked
        // with `test -w`, which writes nothing whatever the answer.
        for setting in [
            "/proc/sys/kernel/core_pattern",
            "/proc/sys/vm/drop_caches",
            "/proc/sysrq-trigger",
        ] {
            let r = sh
                .send(&format!(
                    "test -w {setting} && echo writable || echo read-only"
                ))
                .await;
            assert!(r.viewport.lines().any(|l| l == "read-only"), "{r:?}");
        }
        let r = sh
            .send("cat private.txt && echo new > new.txt && echo wrote")
            .await;
        assert!(r.viewport.lines().any(|l| l == "owned-by-another"), "{r:?}");
        assert!(r.viewport.lines().any(|l| l == "wrote"), "{r:?}");
        sh.close().await;
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

/// Host daemons' sockets live under `/run`, and a read-only bind does not stop a `connect()`
/// to a socket file: a confined session gets an empty `/run` of its own, so a socket there
/// (Docker's, D-Bus's, a database's) cannot be reached, in any confined mode.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_sockets_under_run_are_out_of_reach() {
    within(async {
        // Only root can make a socket in /run; elsewhere the host's own /run entries stand in.
        struct Removed(std::path::PathBuf);
        impl Drop for Removed {
            fn drop(&mut self) {
                let _ = std::fs::remove_file(&self.0);
            }
        }
        let path = std::path::PathBuf::from(format!("/run/dsh-test-{}.sock", unique_id()));
        let listener = std::os::unix::net::UnixListener::bind(&path).ok();
        let _removed = Removed(path.clone());
        let probe = match &listener {
            Some(_) => path.display().to_string(),
            None => std::fs::read_dir("/run")
                .ok()
                .and_then(|mut d| d.next())
                .and_then(Result::ok)
                .map_or_else(|| "/run/nothing".to_owned(), |e| e.path().display().to_string()),
        };
        let ws = TempDir::new("run");
        for mode in [SandboxMode::ReadOnly, SandboxMode::WorkspaceWrite] {
            let backend = sandboxed(config(), mode, &ws.0, false, None);
            let sh = Shell::open_on(&backend).await;
            let r = sh.send(&format!("test -e {probe} && echo present || echo absent")).await;
            assert!(r.viewport.contains("\nabsent\n"), "{mode:?}: {r:?}");
            if listener.is_some() {
                let r = sh
                    .send(&format!(
                        "python3 -c \"import socket; socket.socket(socket.AF_UNIX).connect('{probe}')\""
                    ))
                    .await;
                assert_eq!(r.exit_code, Some(1), "{mode:?}: {r:?}");
            }
            sh.close().await;
        }
        drop(listener);
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
        // The group is named as the session's processes number it (its PID namespace's),
        // also when the signal ends the group's leader at once, and when the leader (a
        // pipeline's first command) had already ended: the group keeps its id, which only its
        // other members can still tell.
        let numbered = "sh -c 'echo pgid=$(ps -o pgid= -p $$ | tr -d \" \"); exec sleep 100'";
        let pipeline = format!("true | {numbered}");
        for line in [numbered, numbered, numbered, pipeline.as_str()] {
            let r = sh.send(line).await;
            let inside: i32 = r
                .viewport
                .lines()
                .find_map(|l| l.strip_prefix("pgid="))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{r:?}"));
            let s = sh.session.signal(TerminalSignal::Sigterm).unwrap();
            assert_eq!(s.session_pgid, inside, "{line}: {s:?}");
            assert_ne!(s.session_pgid, s.target_pgid, "{line}: {s:?}");
            let r = sh.send("echo after-$?").await;
            assert!(r.viewport.contains("\nafter-143\n"), "{line}: {r:?}");
        }
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
        // Only this session's shell and the namespace's init (bwrap) besides the pipeline (a
        // member of which may not have replaced its fork of the shell yet as `ps` looks).
        let names: Vec<&str> = r
            .viewport
            .lines()
            .nth(1)
            .unwrap_or_default()
            .split_whitespace()
            .collect();
        assert!(
            names.contains(&"bash")
                && names.contains(&"bwrap")
                && names
                    .iter()
                    .all(|n| ["bash", "bwrap", "ps", "sort", "tr"].contains(n)),
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

/// The mode fence through the real services: while an owner has a session, its mode cannot
/// change; other owners can; once the session is closed the change goes through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mode_fence_holds_while_an_owner_has_sessions() {
    within(async {
        let ws = TempDir::new("fence");
        let (ctx, terminals, a, id) = crate::support::composed(
            SandboxConfig {
                mode: SandboxMode::WorkspaceWrite,
                workspace_root: Some(ws.0.clone()),
                ..SandboxConfig::default()
            },
            "a",
        )
        .await;
        let policies: Arc<SandboxPolicies> = ctx.require::<SandboxPolicies>().unwrap();
        let b = Agent::new(&ctx, "b");
        let e = policies.set_mode(&a, SandboxMode::DangerFullAccess).unwrap_err();
        assert!(e.to_string().starts_with("cannot change the sandbox mode from workspace-write to danger-full-access while persistent terminal sessions are open"), "{e}");
        policies.set_mode(&a, SandboxMode::WorkspaceWrite).unwrap();
        policies.set_mode(&b, SandboxMode::ReadOnly).unwrap();
        let closed = terminals.kill(&a, &id).await.unwrap();
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

/// A relative `cwd` is taken from the workspace, where sessions start, not from the server's
/// own directory (`default_cwd` here, as `dsh-mcp` sets it from `--cwd` or its own).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relative_cwd_is_taken_from_the_workspace() {
    within(async {
        let ws = TempDir::new("relcwd");
        std::fs::create_dir_all(ws.0.join("calc")).unwrap();
        let elsewhere = TempDir::new("relcwd-server");
        let backend = sandboxed(
            BashConfig {
                default_cwd: Some(elsewhere.0.clone()),
                ..config()
            },
            SandboxMode::WorkspaceWrite,
            &ws.0,
            false,
            None,
        );
        let sh = Shell::try_open_in(&backend, Some("calc".into()))
            .await
            .unwrap();
        let r = sh.send("pwd").await;
        assert!(
            r.viewport
                .lines()
                .any(|l| l == ws.0.join("calc").display().to_string()),
            "{r:?}"
        );
        sh.close().await;
        // A host directory under /tmp outside the workspace is not there in the sandbox: the
        // open says so instead of starting somewhere else.
        let hidden = std::path::PathBuf::from(format!("/tmp/dsh-hidden-{}", unique_id()));
        std::fs::create_dir_all(&hidden).unwrap();
        let opened = Shell::try_open_in(&backend, Some(hidden.clone())).await;
        // Nor through a symlink in the workspace that leads there.
        std::os::unix::fs::symlink(&hidden, ws.0.join("outlink")).unwrap();
        let through_link = Shell::try_open_in(&backend, Some("outlink".into())).await;
        let _ = std::fs::remove_dir(&hidden);
        let Err(e) = through_link else {
            panic!("a cwd linked outside the sandbox's view opened");
        };
        assert!(
            e.to_string().contains("is not visible in the sandbox"),
            "{e}"
        );
        let Err(e) = opened else {
            panic!("a cwd outside the sandbox's view opened");
        };
        assert!(
            e.to_string().contains("is not visible in the sandbox"),
            "{e}"
        );
        // `/tmp` itself is the session's private one: the session starts there, and sees
        // none of the host's files in it.
        let marker = format!("dsh-marker-{}", unique_id());
        std::fs::write(std::path::Path::new("/tmp").join(&marker), "host").unwrap();
        let in_tmp = Shell::try_open_in(&backend, Some("/tmp".into())).await;
        let _ = std::fs::remove_file(std::path::Path::new("/tmp").join(&marker));
        let in_tmp = in_tmp.unwrap();
        let r = in_tmp
            .send(&format!("pwd; test -e {marker} || echo no-host-file"))
            .await;
        assert!(
            r.viewport.lines().any(|l| l == "/tmp")
                && r.viewport.lines().any(|l| l == "no-host-file"),
            "{r:?}"
        );
        in_tmp.close().await;
        // Nor is one reached from the workspace with `..` (the workspace is under /tmp here),
        // unless that is `/tmp` itself.
        let opened = Shell::try_open_in(&backend, Some("..".into())).await;
        if ws
            .0
            .parent()
            .is_some_and(|p| p == std::path::Path::new("/tmp"))
        {
            opened.unwrap().close().await;
        } else if ws.0.parent().is_some_and(|p| p.starts_with("/tmp")) {
            let Err(e) = opened else {
                panic!("the workspace's parent under /tmp opened");
            };
            assert!(
                e.to_string().contains("is not visible in the sandbox"),
                "{e}"
            );
        } else if let Ok(sh) = opened {
            sh.close().await;
        }
        // A host directory the sandbox has its own of (its /proc shows only its own
        // processes): the open fails with the sandbox's reason instead of starting in $HOME.
        let host_only = std::path::PathBuf::from(format!("/proc/{}", std::process::id()));
        if std::process::id() > 1000 {
            let Err(e) = Shell::try_open_in(&backend, Some(host_only.clone())).await else {
                panic!(
                    "{} opened though the sandbox has no such directory",
                    host_only.display()
                );
            };
            assert!(
                e.to_string()
                    .contains(&format!("chdir to {}", host_only.display())),
                "{e}"
            );
        }
    })
    .await;
}
