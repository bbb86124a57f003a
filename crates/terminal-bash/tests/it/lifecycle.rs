//! Startup failures, cancellation, drop, cleanup of escaped processes, and the plugin.

use std::sync::Arc;

use dsh_context::{Agent, Context};
use dsh_terminal_bash::{BashBackend, BashConfig, TerminalBashPlugin};
use dsh_terminal_core::process::ProcessIdentity;
use dsh_terminal_core::{
    BackendSession, BackendSpawnSpec, CloseOutcome, SendRequest, SilenceRule, SpawnRequest,
    TerminalErrorCode, Terminals, TerminalsPlugin, WaitReason,
};
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use crate::support::{Shell, config, session_pids, unique_id, wait_until, within};

fn spec(cancel: CancellationToken) -> BackendSpawnSpec {
    BackendSpawnSpec {
        cancel,
        session_id: unique_id(),
        owner_id: "agent-test".to_owned(),
        name: None,
        cwd: None,
    }
}

fn sh_c(script: &str, timeout_ms: u64) -> BashConfig {
    BashConfig {
        shell_args: vec!["-c".into(), script.into()],
        timeout_ms,
        ..config()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn startup_exit_is_a_spawn_error() {
    within(async {
        let s = spec(CancellationToken::new());
        let id = s.session_id.clone();
        let err = BashBackend::new(sh_c("exit 2", 10_000))
            .spawn_session(s)
            .await
            .unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::Spawn);
        assert_eq!(err.message(), "PTY shell exited during startup");
        assert!(session_pids(&id).is_empty());
        // What it printed before it exited (a launcher's own error) is quoted.
        let s = spec(CancellationToken::new());
        let err = BashBackend::new(sh_c(
            "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1",
            10_000,
        ))
        .spawn_session(s)
        .await
        .unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::Spawn);
        assert_eq!(
            err.message(),
            "PTY shell exited during startup; its last output: \"bwrap: setting up uid map: Permission denied\""
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_shell_is_named_in_the_spawn_error() {
    within(async {
        let config = BashConfig {
            shell_path: "/nonexistent/dsh-shell".into(),
            ..config()
        };
        let err = BashBackend::new(config)
            .spawn_session(spec(CancellationToken::new()))
            .await
            .unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::Spawn);
        insta::assert_snapshot!(err.message());
    })
    .await;
}

/// A shell setting naming a program that is not bash (`/bin/sh` as dash: it rejects bash's
/// options and exits at once) is named as such, not by that program's complaint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_that_is_not_bash_is_named_in_the_spawn_error() {
    within(async {
        let dir = crate::support::TempDir::new("not-bash");
        let shell = dir.0.join("not-bash");
        std::fs::write(
            &shell,
            "#!/bin/sh\necho \"not-bash: Illegal option --\" >&2\nexit 2\n",
        )
        .unwrap();
        std::fs::set_permissions(&shell, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let config = BashConfig {
            shell_path: shell.clone(),
            ..config()
        };
        let err = BashBackend::new(config)
            .spawn_session(spec(CancellationToken::new()))
            .await
            .unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::Spawn);
        let message = err
            .message()
            .replace(&shell.display().to_string(), "<shell>");
        insta::assert_snapshot!(message);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn startup_timeout_is_a_spawn_error_and_cleans_up() {
    within(async {
        let s = spec(CancellationToken::new());
        let id = s.session_id.clone();
        let err = BashBackend::new(sh_c("sleep 1000", 500))
            .spawn_session(s)
            .await
            .unwrap_err();
        assert_eq!(
            err.message(),
            "PTY shell did not reach readiness before startup timeout"
        );
        assert!(session_pids(&id).is_empty());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn startup_cancellation_stops_and_cleans_up() {
    within(async {
        let cancel = CancellationToken::new();
        let s = spec(cancel.clone());
        let id = s.session_id.clone();
        let backend = BashBackend::new(sh_c("sleep 1000", 60_000));
        let spawn = backend.spawn_session(s);
        let canceller = async {
            // Cancel once the stalled shell is running.
            while session_pids(&id).is_empty() {
                tokio::task::yield_now().await;
            }
            cancel.cancel();
        };
        let (result, ()) = tokio::join!(spawn, canceller);
        let err = result.unwrap_err();
        assert_eq!(err.message(), "PTY startup was cancelled");
        assert!(session_pids(&id).is_empty());
        // Pre-cancelled: nothing starts.
        let pre = CancellationToken::new();
        pre.cancel();
        let err = backend.spawn_session(spec(pre)).await.unwrap_err();
        assert_eq!(err.message(), "PTY startup was cancelled");
    })
    .await;
}

/// The error `backend` gives for a session started in `cwd`.
async fn cwd_error(backend: &BashBackend, cwd: &str) -> String {
    let mut s = spec(CancellationToken::new());
    s.cwd = Some(cwd.into());
    let err = backend.spawn_session(s).await.unwrap_err();
    err.message().to_owned()
}

/// The error for a working directory `dir` that is `what`.
fn cwd_message(dir: &std::path::Path, what: &str) -> String {
    format!(
        "working directory {} {what}; pass an existing directory as cwd (absolute, or relative to where sessions start)",
        dir.display()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_working_directory_is_refused() {
    within(async {
        assert_eq!(
            cwd_error(&BashBackend::new(config()), "/nonexistent/dsh-test").await,
            cwd_message("/nonexistent/dsh-test".as_ref(), "does not exist")
        );
        // A relative one is taken from where sessions start, and named as it was looked for.
        let base = std::env::temp_dir().join(format!("dsh-cwd-{}", unique_id()));
        std::fs::create_dir_all(base.join("sub")).unwrap();
        let backend = BashBackend::new(BashConfig {
            default_cwd: Some(base.clone()),
            ..config()
        });
        assert_eq!(
            cwd_error(&backend, "dsh-no-such-dir/sub").await,
            cwd_message(&base.join("dsh-no-such-dir/sub"), "does not exist")
        );
        // A file is not a directory.
        std::fs::write(base.join("file"), "").unwrap();
        assert_eq!(
            cwd_error(&backend, "file").await,
            cwd_message(&base.join("file"), "is not a directory")
        );
        let mut s = spec(CancellationToken::new());
        s.cwd = Some("sub".into());
        let session = backend.spawn_session(s).await.unwrap();
        let sh = Shell {
            id: session.session_id().clone(),
            session,
        };
        let r = sh.send("pwd").await;
        assert!(
            r.viewport
                .lines()
                .any(|l| l == base.join("sub").to_str().unwrap()),
            "{r:?}"
        );
        sh.close().await;
        let _ = std::fs::remove_dir_all(&base);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requested_cwd_is_used() {
    within(async {
        let mut s = spec(CancellationToken::new());
        s.cwd = Some("/usr".into());
        let session = BashBackend::new(config()).spawn_session(s).await.unwrap();
        let sh = Shell {
            id: session.session_id().clone(),
            session,
        };
        let r = sh.send("pwd").await;
        assert_eq!(r.viewport, "pwd\n/usr\ndsh> ");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_an_unclosed_session_kills_its_processes() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("sleep 1000 & echo \"bg=$!\"").await;
        let pid: i32 = r
            .viewport
            .lines()
            .find_map(|l| l.strip_prefix("bg="))
            .and_then(|p| p.trim().parse().ok())
            .unwrap();
        let bg = ProcessIdentity::of(pid).unwrap();
        let shell = sh.session.shell();
        let id = sh.id.clone();
        drop(sh);
        wait_until("the background job is gone", || !bg.is_alive()).await;
        wait_until("the shell is gone", || !shell.is_alive()).await;
        wait_until("no session process is left", || {
            session_pids(&id).is_empty()
        })
        .await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c18_setsid_daemon_is_killed_by_close() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send("setsid sleep 1001 & sleep 0.2; echo started").await;
        assert!(r.viewport.contains("\nstarted\n"), "{:?}", r.viewport);
        assert!(!session_pids(&sh.id).is_empty());
        sh.close().await;
    })
    .await;
}

/// Children that outlive the shell's `exit` (nohup, setsid) keep running until the close, and
/// the exit's result names them; an exit that leaves nothing running says nothing of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_left_running_by_exit_are_named() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh
            .send("nohup sleep 1002 >/dev/null 2>&1 & setsid sleep 1003 & echo started")
            .await;
        assert!(r.viewport.contains("\nstarted\n"), "{:?}", r.viewport);
        let r = sh.send("exit").await;
        assert_eq!(r.wait_reason, WaitReason::SessionExit, "{r:?}");
        let notices = r.notices.join("\n");
        assert!(
            notices.contains("2 processes it started still run (sleep)"),
            "{r:?}"
        );
        assert!(!session_pids(&sh.id).is_empty(), "they still run");
        sh.close().await;

        let sh = Shell::open(config()).await;
        let r = sh.send("exit").await;
        assert_eq!(r.wait_reason, WaitReason::SessionExit, "{r:?}");
        assert!(r.notices.is_empty(), "{r:?}");
        sh.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c19_term_trap_runs_before_kill() {
    within(async {
        let marker = std::env::temp_dir().join(format!("dsh-c19-{}.txt", unique_id()));
        // The job waits on a sleeping child: only the seed's pure-silence rule settles it.
        let sh = Shell::open(BashConfig {
            idle_silence_ms: 500,
            silence_rule: SilenceRule::PureSilence,
            ..config()
        })
        .await;
        let r = sh
            .send(&format!(
                "bash -c 'trap \"echo cleaned > {}\" EXIT; sleep 1000 & wait'",
                marker.display()
            ))
            .await;
        assert_eq!(r.wait_reason, WaitReason::InferredIdle, "{r:?}");
        sh.close().await;
        let text = std::fs::read_to_string(&marker).unwrap_or_default();
        let _ = std::fs::remove_file(&marker);
        assert_eq!(text, "cleaned\n");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plugin_registers_the_backend_and_unregisters_on_dispose() {
    within(async {
        let ctx = Context::builder()
            .with(TerminalsPlugin)
            .with(TerminalBashPlugin { config: config() })
            .apply()
            .unwrap();
        let terminals: Arc<Terminals> = ctx.require::<Terminals>().unwrap();
        assert_eq!(terminals.backend_types(), vec!["shell".to_owned()]);
        // End to end through the service.
        let agent = Agent::new(&ctx, "agent-1");
        let opened = terminals
            .spawn(
                &agent,
                SpawnRequest {
                    backend_type: "shell".into(),
                    name: Some("main".into()),
                    cwd: None,
                },
            )
            .await
            .unwrap();
        assert_eq!(opened.motd, "dsh> ");
        let id = opened.snapshot.session_id.clone();
        let op = terminals
            .start_send(
                &agent,
                &id,
                SendRequest {
                    text: "echo via-service".into(),
                    submit: true,
                    timeout: None,
                },
            )
            .unwrap();
        let r = op.done().await.unwrap();
        assert_eq!(r.viewport, "echo via-service\nvia-service\ndsh> ");
        let closed = terminals.kill(&agent, &id).await.unwrap();
        assert!(matches!(closed, CloseOutcome::Closed(_)), "{closed:?}");
        ctx.dispose().await;
        assert!(terminals.backend_types().is_empty());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plugin_rejects_invalid_config_at_apply() {
    let err = Context::builder()
        .with(TerminalsPlugin)
        .with(TerminalBashPlugin {
            config: BashConfig {
                rows: 0,
                ..config()
            },
        })
        .apply()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("terminal-bash: rows must be a positive integer (got 0)"),
        "{err}"
    );
}

#[test]
fn invariant_companion_has_a_reason() {
    let companion = dsh_terminal_bash::invariant_companion();
    let ctx = Context::builder()
        .with(dsh_invariants::InvariantsPlugin)
        .with(companion)
        .apply()
        .unwrap();
    let inv = ctx.require::<dsh_invariants::Invariants>().unwrap();
    assert!(
        inv.reason("dsh-terminal-bash")
            .is_some_and(|r| r.starts_with("no runtime invariant:"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backend_trait_object_spawns_too() {
    within(async {
        let backend: Arc<dyn dsh_terminal_core::TerminalBackend> =
            Arc::new(BashBackend::new(config()));
        assert_eq!(backend.backend_type(), "shell");
        let session = backend.spawn(spec(CancellationToken::new())).await.unwrap();
        assert_eq!(session.motd(), "dsh> ");
        assert!(session.pid().is_some());
        session.close("done".into()).await.unwrap();
        // Close is idempotent.
        session.close("again".into()).await.unwrap();
        let err = session
            .start_send(SendRequest {
                text: "echo".into(),
                submit: true,
                timeout: None,
            })
            .unwrap_err();
        assert_eq!(err.code(), TerminalErrorCode::Closing);
    })
    .await;
}

/// An orphan that exits between two scans becomes a zombie of this host (child subreaper);
/// close reaps it, so no `<defunct>` process is left behind (C21's "no defunct" clause).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exited_orphans_are_reaped_not_left_defunct() {
    within(async {
        let shell = Shell::open(crate::support::config()).await;
        let r = shell.send("(sleep 0.2 & echo bgpid=$!)").await;
        let pid: i32 = r
            .viewport
            .lines()
            .find_map(|l| l.strip_prefix("bgpid="))
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("no pid in {:?}", r.viewport));
        let me = std::process::id() as i32;
        crate::support::wait_until("the orphan is a zombie of this host", || {
            dsh_terminal_core::process::stat(pid).is_some_and(|s| s.ppid == me && s.is_zombie())
        })
        .await;
        shell.close().await;
        assert!(
            dsh_terminal_core::process::stat(pid).is_none(),
            "orphan {pid} left defunct"
        );
    })
    .await;
}

/// Closing while a command list runs must not let the shell run the rest of the list once its
/// foreground job is stopped (`sleep 5; touch x` must not create x during close).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_does_not_run_the_rest_of_the_command_line() {
    within(async {
        for round in 0..3 {
            let marker = std::env::temp_dir()
                .join(format!("dsh-close-hazard-{}-{round}", std::process::id()));
            let _ = std::fs::remove_file(&marker);
            let shell = Shell::open(crate::support::quick_config()).await;
            let r = shell
                .send(&format!("sleep 5; touch {}; echo ran", marker.display()))
                .await;
            assert_ne!(
                r.wait_reason,
                dsh_terminal_core::WaitReason::StdinRead,
                "{r:?}"
            );
            shell.close().await;
            assert!(
                !marker.exists(),
                "round {round}: close let the shell run the next command"
            );
        }
    })
    .await;
}

/// Double-forked daemons through `setsid`: the `setsid` intermediates exit at once and come
/// back to this host (child subreaper) as zombie session leaders. Close reaps them too, so a
/// long-running host does not fill the process table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setsid_double_fork_intermediates_are_reaped() {
    within(async {
        let shell = Shell::open(crate::support::config()).await;
        let r = shell
            .send("for i in 1 2 3; do (setsid bash -c 'echo inter=$$; sleep 1000 >/dev/null 2>&1 &' &); done; sleep 0.3")
            .await;
        let pids: Vec<i32> = r
            .viewport
            .lines()
            .filter_map(|l| l.trim().strip_prefix("inter="))
            .filter_map(|p| p.parse().ok())
            .collect();
        assert_eq!(pids.len(), 3, "{:?}", r.viewport);
        let me = std::process::id() as i32;
        crate::support::wait_until("the intermediates are zombies of this host", || {
            pids.iter().all(|&pid| {
                dsh_terminal_core::process::stat(pid).is_none_or(|s| s.ppid == me && s.is_zombie())
            })
        })
        .await;
        shell.close().await;
        for pid in pids {
            assert!(
                dsh_terminal_core::process::stat(pid).is_none(),
                "setsid intermediate {pid} left defunct"
            );
        }
    })
    .await;
}

/// A send in flight when its session closes ends as `session_exit`, also when its program
/// goes silent (and would otherwise settle `inferred_idle` on a running session) while the
/// close waits out a program that ignores SIGTERM and SIGHUP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_in_flight_at_close_ends_as_session_exit() {
    within(async {
        let shell = Shell::open(BashConfig {
            idle_silence_ms: 500,
            dispose_grace_ms: 2000,
            ..config()
        })
        .await;
        let op = shell
            .session
            .start_send(SendRequest {
                text: "python3 -c 'import os, signal\nfor s in (signal.SIGTERM, signal.SIGHUP): signal.signal(s, signal.SIG_IGN)\nr, w = os.pipe()\nprint(\"bl\" + \"ocked\", flush=True)\nos.read(r, 1)'".into(),
                submit: true,
                timeout: None,
            })
            .unwrap();
        let session = Arc::clone(&shell.session);
        wait_until("the program to block", || {
            session.transcript().contains("blocked")
        })
        .await;
        let close = tokio::spawn(async move { session.close("test done".into()).await });
        let r = op.done().await.unwrap();
        assert_eq!(r.wait_reason, WaitReason::SessionExit, "{r:?}");
        // The result says the close ended it (its exit status is the close's doing).
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("[session: closed while this send waited")),
            "{r:?}"
        );
        close.await.unwrap().unwrap();
        let left = session_pids(&shell.id);
        assert!(left.is_empty(), "processes of {} left: {left:?}", shell.id);
    })
    .await;
}

/// After `exec prog` the session's top-level process runs that program: a signal to it is
/// not described as the shell's (which would ignore a SIGTERM), and ending it ends the session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_to_a_program_the_shell_exec_d_is_the_program_s() {
    within(async {
        let sh = Shell::open(config()).await;
        let r = sh.send_within("exec sleep 600", true, 1000).await;
        assert_eq!(r.wait_reason, WaitReason::Timeout, "{r:?}");
        let s = sh
            .session
            .signal(dsh_terminal_core::TerminalSignal::Sigterm)
            .unwrap();
        assert!(
            s.delivered && !s.shell_targeted && !s.shell_ran_command,
            "{s:?}"
        );
        wait_until("the session ends", || {
            matches!(
                sh.session.status(),
                dsh_terminal_core::SessionStatus::Exited { .. }
            )
        })
        .await;
        sh.close().await;
    })
    .await;
}
