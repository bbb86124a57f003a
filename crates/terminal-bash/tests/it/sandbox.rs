//! Sessions confined by bubblewrap: what each mode allows and errors the model can act on.
//! The engine inside the sandbox (marks, readiness, signals, close, the session's own
//! `/dev/pts`, the mode fence, the shell's own exit status) is in `sandbox_engine.rs`,
//! resource limits in `limits.rs`, git directories outside the workspace in `sandbox_git.rs`.

use std::sync::Arc;

use dsh_sandbox::{SandboxMode, SandboxPolicies};
use dsh_terminal_bash::{BashBackend, Sandboxing};
use dsh_terminal_core::TerminalErrorCode;
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, sandboxed, unique_id, within};

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
