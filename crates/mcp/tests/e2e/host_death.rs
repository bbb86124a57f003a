//! Field case C36: with no writable cgroup v2 (the server is told to act as if there were
//! none), nothing a session started survives a SIGKILLed server for more than a few seconds,
//! in a confined and in an unconfined session: the host watchdog finds the processes by
//! session id, environment tag and the sessions' cgroup v1 limit groups; a confined session's
//! PID namespace dies with its launcher as well.

use std::time::{Duration, Instant};

use dsh_terminal_core::process::NO_CGROUP2_ENV;
use serde_json::json;

use crate::support::{ProcessWatch, ServerProcess, kill, ok, pid_of_command, send};

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
