//! Field case C36: with no writable cgroup v2 (the server is told to act as if there were
//! none), nothing a session started survives a SIGKILLed server for more than a few seconds,
//! in a confined and in an unconfined session: the host watchdog finds the processes by
//! session id, environment tag and the sessions' cgroup v1 limit groups; a confined session's
//! PID namespace dies with its launcher as well.

use std::time::{Duration, Instant};

use dsh_terminal_core::process::NO_CGROUP2_ENV;
use serde_json::json;

use crate::support::{ProcessWatch, ServerProcess, TempDir, kill, ok, pid_of_command, send};

/// "Within a few seconds".
const SURVIVAL_LIMIT: Duration = Duration::from_secs(10);

async fn leave_everything_behind_then_kill_the_server(mode: &str) {
    let (mut server, client) =
        ServerProcess::start_with_env(&["--sandbox", mode], &[(NO_CGROUP2_ENV, "1")], &[]).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let tag = format!("{}{}", std::process::id(), mode.len());
    let args: Vec<String> = (0..5).map(|i| format!("{}.{tag}", 3000 + i)).collect();
    let r = send(
        &client,
        "pty-1",
        &format!(
            "sleep {} & setsid sleep {} & nohup sleep {} >/dev/null 2>&1 & \
             (setsid sh -c 'sleep {} &' </dev/null >/dev/null 2>&1 &); \
             setsid env -i /bin/sleep {} </dev/null >/dev/null 2>&1 & echo started",
            args[0], args[1], args[2], args[3], args[4]
        ),
    )
    .await;
    assert!(r.has_line("started"), "{:?}", r.text);
    let mut watches = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let program = if i == 4 { "/bin/sleep" } else { "sleep" };
        let pid = pid_of_command(&[program, arg]).await;
        watches.push((arg.clone(), ProcessWatch::new(pid)));
    }
    kill(server.pid(), libc::SIGKILL);
    let status = server.wait_exit().await;
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(libc::SIGKILL)
    );
    let killed_at = Instant::now();
    for (arg, watch) in &watches {
        let left = SURVIVAL_LIMIT.saturating_sub(killed_at.elapsed());
        let gone = tokio::task::spawn_blocking({
            let watch = ProcessWatch::new(watch.pid());
            move || watch.wait_blocking(left)
        })
        .await
        .expect("wait task");
        assert!(
            gone && !watch.is_running(),
            "{mode}: `sleep {arg}` survived the server by {SURVIVAL_LIMIT:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c36_nothing_survives_a_sigkilled_server_without_cgroup2_confined() {
    leave_everything_behind_then_kill_the_server("workspace-write").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c36_nothing_survives_a_sigkilled_server_without_cgroup2_unconfined() {
    leave_everything_behind_then_kill_the_server("danger-full-access").await;
}

/// A shell still starting when the server is SIGKILLed: the rc file generated for it (removed
/// by the server once the shell shows its first prompt) is removed by the host watchdog.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rc_file_of_a_shell_still_starting_is_removed_after_a_sigkilled_server() {
    let dir = TempDir::new("rc-after-host-death");
    let started = dir.0.join("started");
    // A "shell" that records its arguments (`--rcfile <path>` among them) and never prompts.
    let shell = dir.0.join("slow-shell");
    std::fs::write(
        &shell,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{0}.tmp' && mv '{0}.tmp' '{0}'\nexec sleep 600\n",
            started.display()
        ),
    )
    .expect("write the shell");
    std::fs::set_permissions(&shell, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod the shell");
    // The agent's warm session starts as it connects (unconfined: a sandbox would not see the
    // script in the temp directory).
    let shell = shell.to_string_lossy();
    let (mut server, _client) =
        ServerProcess::start(&["--sandbox", "danger-full-access", "--shell", &shell]).await;
    let args = wait_for(&started, || std::fs::read_to_string(&started).ok()).await;
    let rc = args
        .lines()
        .skip_while(|a| *a != "--rcfile")
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| panic!("no --rcfile among the shell's arguments: {args:?}"));
    assert!(
        rc.is_file(),
        "{} is not there while the shell starts",
        rc.display()
    );
    kill(server.pid(), libc::SIGKILL);
    server.wait_exit().await;
    wait_for(&rc, || (!rc.exists()).then_some(())).await;
}

/// Polls `found` until it gives a value; fails the test after [`SURVIVAL_LIMIT`].
async fn wait_for<T>(what: &std::path::Path, found: impl Fn() -> Option<T>) -> T {
    let deadline = Instant::now() + SURVIVAL_LIMIT;
    loop {
        if let Some(value) = found() {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "{} did not change within {SURVIVAL_LIMIT:?}",
            what.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
