//! `cargo xtask bench http [--quick]`: a load test of `dsh-mcp --listen` on loopback.
//!
//! One in-process HTTP server (the same `HttpServer` the binary runs, default sandbox, a
//! bearer token) and N concurrent rmcp Streamable HTTP clients: each opens a session, opens a
//! terminal, starts a background `sleep` and then sends M commands one after another, all
//! sessions at once. Reported: the p50 / p99 latency of `terminal_send` as the client sees it,
//! the open latency, and the wall time. Then every session is deleted (HTTP DELETE) and the
//! run checks that no process any session started is still alive. Bounded in count (N×M sends)
//! and time (a deadline on the whole run). Nothing about speed is asserted.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::bench::stats::percentile;

const TOKEN: &str = "xtask-bench-http-token";

/// What one session measured.
struct SessionRun {
    open: Duration,
    sends: Vec<Duration>,
    /// Host pids of the session's shell and everything below it, before the session ended.
    pids: BTreeSet<i32>,
}

/// Runs the load test (`quick`: 10 sessions × 5 commands instead of 50 × 20).
pub(crate) fn run(quick: bool) -> Result<()> {
    let (sessions, commands, deadline) = if quick {
        (10, 5, Duration::from_secs(120))
    } else {
        (50, 20, Duration::from_secs(600))
    };
    let dir = std::env::temp_dir().join(format!("dsh-bench-http-{}", std::process::id()));
    std::fs::create_dir_all(&dir).context("temp dir")?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("tokio runtime")?;
    let result = rt.block_on(run_in(&dir, sessions, commands, deadline));
    let _ = std::fs::remove_dir_all(&dir);
    result
}

async fn run_in(dir: &Path, sessions: usize, commands: usize, deadline: Duration) -> Result<()> {
    let token_file = dir.join("token");
    std::fs::write(&token_file, TOKEN).context("token file")?;
    let mut options = dsh_mcp::Options {
        cwd: Some(dir.to_path_buf()),
        ..dsh_mcp::Options::default()
    };
    options.http.listen = Some(([127, 0, 0, 1], 0).into());
    options.http.token_file = Some(token_file);
    options.http.max_sessions = sessions;
    let ctx = dsh_mcp::compose(&options).map_err(|e| anyhow::anyhow!("compose: {e}"))?;
    let server = dsh_mcp::McpServer::new(&ctx)?.with_teardown_deadline(options.teardown_deadline());
    let http = dsh_mcp::HttpServer::bind(server, &options.http, options.max_message_bytes).await?;
    let url = format!("http://{}{}", http.local_addr(), dsh_mcp::MCP_PATH);
    let shutdown = CancellationToken::new();
    let serving = tokio::spawn({
        let shutdown = shutdown.clone();
        async move { http.serve(&shutdown).await }
    });

    let started = Instant::now();
    let runs = tokio::time::timeout(deadline, async {
        let tasks: Vec<_> = (0..sessions)
            .map(|s| tokio::spawn(one_session(url.clone(), s, commands)))
            .collect();
        let mut runs = Vec::new();
        for task in tasks {
            runs.push(task.await.context("session task")?);
        }
        anyhow::Ok(runs)
    })
    .await;
    let wall = started.elapsed();
    shutdown.cancel();
    let end = serving.await.context("server task")?;
    let root_disposed = dsh_mcp::dispose_with_deadline(&ctx, options.teardown_deadline()).await;
    let runs = match runs {
        Ok(runs) => runs?,
        Err(_) => bail!("the load test did not finish within {deadline:?}"),
    };
    let runs: Vec<SessionRun> = runs.into_iter().collect::<Result<_>>()?;
    if !end.teardown_complete || !root_disposed {
        bail!("the server's shutdown was not clean: {end:?}, root disposed: {root_disposed}");
    }

    let pids: BTreeSet<i32> = runs.iter().flat_map(|r| r.pids.iter().copied()).collect();
    let survivors = wait_gone(&pids, Duration::from_secs(30)).await;
    let sends: Vec<Duration> = runs.iter().flat_map(|r| r.sends.iter().copied()).collect();
    let opens: Vec<Duration> = runs.iter().map(|r| r.open).collect();
    println!(
        "cargo xtask bench http: {sessions} MCP sessions over Streamable HTTP on loopback, each opening a terminal and sending {commands} commands, all sessions concurrently"
    );
    if cfg!(debug_assertions) {
        println!(
            "(debug build: for release numbers run `cargo run --release -p xtask -- bench http`)"
        );
    }
    println!();
    println!("| measure | count | p50 ms | p99 ms | max ms |");
    println!("|---|---:|---:|---:|---:|");
    for (name, samples) in [
        ("terminal_open (client round trip)", &opens),
        ("terminal_send `echo` (client round trip)", &sends),
    ] {
        println!(
            "| {name} | {} | {} | {} | {} |",
            samples.len(),
            ms(percentile(samples, 0.5)),
            ms(percentile(samples, 0.99)),
            ms(percentile(samples, 1.0)),
        );
    }
    println!();
    println!(
        "wall time {:.1} s for {} sends; {} processes the sessions started, {} still alive after the sessions ended",
        wall.as_secs_f64(),
        sends.len(),
        pids.len(),
        survivors.len()
    );
    if !survivors.is_empty() {
        bail!("processes outlived their sessions: {survivors:?}");
    }
    Ok(())
}

/// One client session: open a terminal, start a background sleep, send `commands` commands,
/// note the session's processes, then end the session (HTTP DELETE).
async fn one_session(url: String, s: usize, commands: usize) -> Result<SessionRun> {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(TOKEN),
    );
    let client = ().serve(transport).await.context("MCP initialize")?;
    let started = Instant::now();
    let open = call(&client, "terminal_open", json!({"type": "shell"})).await?;
    let open_took = started.elapsed();
    let id = open
        .split_whitespace()
        .nth(3)
        .context("session id in the open result")?
        .to_owned();
    call(
        &client,
        "terminal_send",
        json!({"sessionId": id, "text": format!("sleep 600.{s} &")}),
    )
    .await?;
    let mut sends = Vec::with_capacity(commands);
    for i in 0..commands {
        let text = format!("echo bench-{s}-{i}");
        let started = Instant::now();
        let out = call(
            &client,
            "terminal_send",
            json!({"sessionId": id, "text": text}),
        )
        .await?;
        sends.push(started.elapsed());
        let want = format!("bench-{s}-{i}");
        if !out.lines().any(|l| l.trim_end() == want) {
            bail!("session {s}: {text:?} did not print {want:?}: {out}");
        }
    }
    let list = call(&client, "terminal_list", json!({})).await?;
    let shell: i32 = list
        .split_whitespace()
        .find_map(|w| w.strip_prefix("pid="))
        .and_then(|n| n.parse().ok())
        .context("pid= in terminal_list")?;
    let pids = descendants(shell);
    client.cancel().await.context("closing the client")?;
    Ok(SessionRun {
        open: open_took,
        sends,
        pids,
    })
}

/// Calls `tool` and returns its text; a tool error or a protocol error fails the run.
async fn call(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> Result<String> {
    let Value::Object(args) = args else {
        bail!("tool arguments must be an object")
    };
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .with_context(|| format!("tools/call {tool}"))?;
    let text: Vec<String> = result
        .content
        .iter()
        .filter_map(|b| b.as_text().map(|t| t.text.clone()))
        .collect();
    let text = text.join("\n");
    if result.is_error == Some(true) {
        bail!("{tool} failed: {text}");
    }
    Ok(text)
}

/// `pid` and every process below it (from `/proc/PID/task/*/children`).
fn descendants(pid: i32) -> BTreeSet<i32> {
    let mut found = BTreeSet::new();
    let mut stack = vec![pid];
    while let Some(pid) = stack.pop() {
        if !found.insert(pid) {
            continue;
        }
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let children: PathBuf = task.path().join("children");
            if let Ok(text) = std::fs::read_to_string(children) {
                stack.extend(
                    text.split_whitespace()
                        .filter_map(|n| n.parse::<i32>().ok()),
                );
            }
        }
    }
    found
}

/// Waits up to `deadline` for every pid to be gone (or a zombie); returns those still alive.
async fn wait_gone(pids: &BTreeSet<i32>, deadline: Duration) -> Vec<i32> {
    let started = Instant::now();
    loop {
        let alive: Vec<i32> = pids.iter().copied().filter(|p| is_alive(*p)).collect();
        if alive.is_empty() || started.elapsed() > deadline {
            return alive;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn is_alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        // The state follows the parenthesised command name.
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}
