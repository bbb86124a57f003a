//! The session engine inside a bubblewrap sandbox: prompt marks, readiness, signals and close,
//! sessions kept from each other's terminal (field case C35), the mode fence, blocking threads,
//! the confined shell's own exit status and a relative working directory.

use std::sync::Arc;

use dsh_context::Agent;
use dsh_sandbox::{SandboxConfig, SandboxMode, SandboxPolicies};
use dsh_terminal_bash::BashConfig;
use dsh_terminal_core::{
    BackendSession, CloseOutcome, TerminalErrorCode, TerminalSignal, WaitReason,
};
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, quick_config, sandboxed, unique_id, within};

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

/// A workspace named through a symbolic link: a `cwd` naming its real directory opens there,
/// writable as the workspace is (bubblewrap bound only the link's path, and failed to chdir).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workspace_named_through_a_link_opens_at_its_real_path() {
    within(async {
        let base = TempDir::new("linked-ws");
        let real = base.0.join("real");
        std::fs::create_dir_all(&real).unwrap();
        let link = base.0.join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &link, false, None);
        let sh = Shell::try_open_in(&backend, Some(real.clone()))
            .await
            .unwrap();
        let r = sh.send("pwd; touch made-here && echo made").await;
        assert!(
            r.viewport.lines().any(|l| l == real.display().to_string()),
            "{r:?}"
        );
        assert!(r.viewport.lines().any(|l| l == "made"), "{r:?}");
        assert!(real.join("made-here").exists());
        sh.close().await;
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
