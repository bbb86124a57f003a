//! Figures through the built `dsh-mcp` server over stdio ([`McpClient`]), each against its
//! reference in the same run:
//!
//! - `terminal_open` through the server, sandboxed and not, 300 ms apart, against bash reaching
//!   its first prompt in a raw PTY;
//! - the MCP floor (`terminal_list`, a call that touches no PTY) next to a `true` round trip
//!   through the same server, and the same round trip with confinement off;
//! - many concurrent `echo` sends (one per session) against as many raw PTYs answering at once,
//!   with idle memory per session (the server's RSS growth over those sessions);
//! - flood isolation: `terminal_list` and `echo` sends in another session while one session
//!   prints a `yes` flood, against the same calls with no flood; the server's peak RSS.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use serde_json::json;

use super::cpu;
use super::mcp::{McpClient, build_server};
use super::raw::{self, MARK, RawPty};
use super::stats::{self, Row};
use super::{WARM_UP, blocking};

/// How many sessions (and raw PTYs) answer at once, and the flood's size.
pub(crate) struct ServerBench {
    pub(crate) iterations: usize,
    /// `terminal_open`s measured through the server.
    pub(crate) opens: usize,
    pub(crate) concurrent: usize,
    pub(crate) rounds: usize,
    pub(crate) flood_bytes: u64,
}

/// Lines printed after the table (memory figures).
pub(crate) type Notes = Vec<String>;

pub(crate) async fn run(
    root: &Path,
    workspace: &Path,
    b: &ServerBench,
) -> Result<(Vec<Row>, Notes)> {
    let bin = blocking(|| build_server(root))?;
    let server = start(&bin, workspace, b.concurrent, &[]).await?;
    let unconfined = start(
        &bin,
        workspace,
        b.concurrent,
        &["--sandbox", "danger-full-access"],
    )
    .await?;
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let result = async {
        rows.extend(opens(&server, &unconfined, b.opens).await?);
        notes.push(waiting_cpu(&server).await?);
        rows.extend(floor(&server, &unconfined, b.iterations).await?);
        let (row, note) = concurrent(&server, b.concurrent, b.rounds).await?;
        rows.push(row);
        notes.push(note);
        let (flood_rows, note) = flood(&server, b.iterations, b.flood_bytes).await?;
        rows.extend(flood_rows);
        notes.push(note);
        anyhow::Ok(())
    }
    .await;
    let closed = server.shutdown().await;
    let closed_unconfined = unconfined.shutdown().await;
    result?;
    closed?;
    closed_unconfined?;
    Ok((rows, notes))
}

/// Only the concurrent sends, through a server of their own (`bench concurrent`).
pub(crate) async fn run_concurrent(
    root: &Path,
    workspace: &Path,
    n: usize,
    rounds: usize,
) -> Result<(Row, String)> {
    let bin = blocking(|| build_server(root))?;
    let server = start(&bin, workspace, n, &[]).await?;
    let measured = concurrent(&server, n, rounds).await;
    let closed = server.shutdown().await;
    let measured = measured?;
    closed?;
    Ok(measured)
}

/// Starts the built server on `workspace` with room for `concurrent` sessions on one
/// connection (one agent holds every concurrent session, plus the flood's and the others the
/// bench keeps open), and `extra` arguments.
async fn start(
    bin: &Path,
    workspace: &Path,
    concurrent: usize,
    extra: &[&str],
) -> Result<McpClient> {
    let ws = workspace.to_string_lossy().into_owned();
    let max_terminals = (concurrent + 8).to_string();
    let mut args = vec![
        "--workspace",
        ws.as_str(),
        "--max-terminals-per-agent",
        max_terminals.as_str(),
    ];
    args.extend_from_slice(extra);
    McpClient::start(bin, &args).await
}

async fn floor(server: &McpClient, unconfined: &McpClient, n: usize) -> Result<Vec<Row>> {
    let id = server.open().await?;
    let free = unconfined.open().await?;
    let mut raw = blocking(RawPty::bash)?;
    let (mut list, mut send, mut send_free, mut reference) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..n + WARM_UP {
        let l = server.timed("terminal_list", json!({})).await?;
        let (s, _) = server.send(&id, "true").await?;
        let (f, _) = unconfined.send(&free, "true").await?;
        let r = blocking(|| {
            raw.timed(b"true\r", |s| {
                s.windows(MARK.len()).any(|w| w == MARK) && s.ends_with(b"$ ")
            })
        })?;
        if i >= WARM_UP {
            list.push(l);
            send.push(s);
            send_free.push(f);
            reference.push(r);
        }
    }
    drop(raw);
    server.close(&id).await?;
    unconfined.close(&free).await?;
    Ok(vec![
        Row {
            name: "MCP floor: `terminal_list` (dsh-mcp over stdio)".into(),
            ours: list.clone(),
            reference_name: "raw PTY `true` prompt marker",
            reference: reference.clone(),
        },
        Row {
            name: "round trip `true` through dsh-mcp".into(),
            ours: send.clone(),
            reference_name: "MCP floor (`terminal_list`)",
            reference: list,
        },
        Row {
            name: "round trip `true` through dsh-mcp, sandboxed (default)".into(),
            ours: send,
            reference_name: "the same, `--sandbox danger-full-access`",
            reference: send_free,
        },
    ])
}

/// How long [`waiting_cpu`] waits on a sleeping command.
const WAIT_CPU_MS: u64 = 3000;

/// The server's CPU while one send waits on a command that sleeps (the foreground is probed;
/// nothing prints), as a share of one core.
async fn waiting_cpu(server: &McpClient) -> Result<String> {
    let id = server.open().await?;
    let before = server.cpu_ticks();
    let start = Instant::now();
    server
        .call(
            "terminal_send",
            json!({"sessionId": id, "text": "sleep 60", "timeoutMs": WAIT_CPU_MS}),
        )
        .await?;
    let ticks = server.cpu_ticks().saturating_sub(before);
    let took = start.elapsed().as_secs_f64();
    server.close(&id).await?;
    // Clock ticks are 1/100 s on Linux.
    Ok(format!(
        "server CPU while a send waits {took:.1} s on `sleep`: {:.1}% of one core",
        ticks as f64 / 100.0 / took * 100.0
    ))
}

/// Pause before each `terminal_open` of [`opens`]: agents open sessions seconds apart, and a
/// server that keeps a warm session ready (`--warm-sessions`) has started it by then.
const OPEN_SPACING: Duration = Duration::from_millis(300);

/// `terminal_open` through the server (until the open result arrives), sandboxed (the
/// default) and `--sandbox danger-full-access`, each against bash reaching its first prompt
/// in a raw PTY, measured in turn.
async fn opens(server: &McpClient, unconfined: &McpClient, n: usize) -> Result<Vec<Row>> {
    let (mut confined, mut free, mut reference) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        for (client, times) in [(server, &mut confined), (unconfined, &mut free)] {
            tokio::time::sleep(OPEN_SPACING).await;
            let start = Instant::now();
            let id = client.open().await?;
            times.push(start.elapsed());
            client.close(&id).await?;
        }
        let start = Instant::now();
        let raw = blocking(RawPty::bash)?;
        reference.push(start.elapsed());
        drop(raw);
    }
    Ok(vec![
        Row {
            name: "`terminal_open` through dsh-mcp, 300 ms apart".into(),
            ours: confined,
            reference_name: "raw bash first prompt",
            reference: reference.clone(),
        },
        Row {
            name: "the same, `--sandbox danger-full-access`".into(),
            ours: free,
            reference_name: "raw bash first prompt",
            reference,
        },
    ])
}

async fn concurrent(server: &McpClient, n: usize, rounds: usize) -> Result<(Row, String)> {
    let rss_before = server.status_kb("VmRSS:");
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        ids.push(server.open().await?);
    }
    let rss_after = server.status_kb("VmRSS:");
    let note = format!(
        "idle memory: dsh-mcp RSS +{} kB for {n} open sessions = {:.0} kB per session",
        rss_after.saturating_sub(rss_before),
        rss_after.saturating_sub(rss_before) as f64 / n as f64
    );
    let raws = blocking(|| (0..n).map(|_| RawPty::bash()).collect::<Result<Vec<_>>>())?;
    let (mut ours, mut reference) = (Vec::new(), Vec::new());
    let mut raws = raws;
    // CPU spent in each side's rounds: [server (ticks), its shells (ns), this client (ticks)]
    // and [raw shells (ns), this client (ticks)].
    let (mut ours_cpu, mut raw_cpu) = ([0u64; 3], [0u64; 2]);
    let me = std::process::id();
    for _ in 0..rounds {
        let before = [
            server.cpu_ticks(),
            server.descendants_cpu_ns(),
            cpu::process_ticks(me),
        ];
        let sends = ids
            .iter()
            .map(|id| async move { server.send(id, "echo hi").await.map(|(d, _)| d) });
        // futures-util's join_all polls only the futures a wake-up names (a loop polling all
        // of them at each wake-up would cost this client O(n²) polls per round).
        for took in futures_util::future::join_all(sends).await {
            ours.push(took?);
        }
        // This process's ticks first: the `/proc` walk for the shells' CPU is the bench's own
        // work, not the client's (and `before` read them last).
        let client_after = cpu::process_ticks(me);
        let after = [
            server.cpu_ticks(),
            server.descendants_cpu_ns(),
            client_after,
        ];
        for (sum, (a, b)) in ours_cpu.iter_mut().zip(after.iter().zip(before)) {
            *sum += a.saturating_sub(b);
        }
        // The raw shells are this process's children; its own ticks are the readers'.
        let before = [cpu::descendants_ns(me), cpu::process_ticks(me)];
        reference.extend(blocking(|| raw_concurrent(&mut raws))?);
        let client_after = cpu::process_ticks(me);
        let after = [cpu::descendants_ns(me), client_after];
        for (sum, (a, b)) in raw_cpu.iter_mut().zip(after.iter().zip(before)) {
            *sum += a.saturating_sub(b);
        }
    }
    drop(raws);
    let sends = (n * rounds).max(1) as f64;
    let per_send = |ticks: u64| cpu::ticks_ms(ticks) / sends;
    let per_send_ns = |ns: u64| ns as f64 / 1e6 / sends;
    let note = format!(
        "{note}\nCPU per concurrent send (ms): server {:.3}, its shells {:.3}, the client {:.3}; \
         raw PTYs: shells {:.3}, the client {:.3}",
        per_send(ours_cpu[0]),
        per_send_ns(ours_cpu[1]),
        per_send(ours_cpu[2]),
        per_send_ns(raw_cpu[0]),
        per_send(raw_cpu[1]),
    );
    // Closing them one by one: the first closes run with all the others still open.
    let mut closes = Vec::with_capacity(n);
    for id in &ids {
        let start = Instant::now();
        server.close(id).await?;
        closes.push(start.elapsed());
    }
    let note = format!(
        "{note}\nclosing the {n} sessions one by one: median {} ms, p90 {} ms",
        stats::ms(stats::percentile(&closes, 0.5)),
        stats::ms(stats::percentile(&closes, 0.9)),
    );
    Ok((
        Row {
            name: format!("{n} concurrent `echo hi` sends (one per session)"),
            ours,
            reference_name: "as many raw PTYs at once",
            reference,
        },
        note,
    ))
}

/// Every raw PTY is sent `echo hi` in one burst; returns each one's time from the burst until
/// its prompt marker.
fn raw_concurrent(raws: &mut [RawPty]) -> Result<Vec<Duration>> {
    raw::all_at_once(raws, b"echo hi\r", |s| {
        s.windows(MARK.len()).any(|w| w == MARK) && s.ends_with(b"$ ")
    })
}

async fn flood(server: &McpClient, n: usize, bytes: u64) -> Result<(Vec<Row>, String)> {
    let flooding = server.open().await?;
    let other = server.open().await?;
    let (mut idle_list, mut idle_send) = (Vec::new(), Vec::new());
    for i in 0..n + WARM_UP {
        let l = server.timed("terminal_list", json!({})).await?;
        let (s, _) = server.send(&other, "echo hi").await?;
        if i >= WARM_UP {
            idle_list.push(l);
            idle_send.push(s);
        }
    }
    let start = Instant::now();
    let command = format!("yes | head -c {bytes}");
    let flood_send = server.send(&flooding, &command);
    tokio::pin!(flood_send);
    let (mut list, mut send) = (Vec::new(), Vec::new());
    // Sample until the flood's send settles (samples taken after it are not counted).
    let flood_took = loop {
        let sample = async {
            let l = server.timed("terminal_list", json!({})).await?;
            let (s, _) = server.send(&other, "echo hi").await?;
            anyhow::Ok((l, s))
        };
        tokio::select! {
            done = &mut flood_send => break done.context("flood send")?.0,
            s = sample => {
                let (l, s) = s?;
                list.push(l);
                send.push(s);
            }
        }
    };
    // A sample cut short by the flood's end may have left a send running: let it finish.
    let _ = server.send(&other, "true").await;
    let peak = server.status_kb("VmHWM:");
    server.close(&flooding).await?;
    server.close(&other).await?;
    let note = format!(
        "flood: `yes | head -c {bytes}` settled in {:.1} s ({:.0} MB/s) while {} samples were taken; dsh-mcp peak RSS {peak} kB; started {:.1} s ago",
        flood_took.as_secs_f64(),
        bytes as f64 / flood_took.as_secs_f64() / 1e6,
        list.len(),
        start.elapsed().as_secs_f64()
    );
    Ok((
        vec![
            Row {
                name: "`terminal_list` during a `yes` flood in another session".into(),
                ours: list,
                reference_name: "`terminal_list`, no flood",
                reference: idle_list,
            },
            Row {
                name: "`echo hi` in another session during a `yes` flood".into(),
                ours: send,
                reference_name: "`echo hi`, no flood",
                reference: idle_send,
            },
        ],
        note,
    ))
}
