//! `cargo xtask bench`: figures of our stack, each against its reference measured in the same
//! run, interleaved iteration by iteration so machine noise hits both alike. Reported as a
//! Markdown table of medians, p90 and the ratio of medians. Nothing is asserted.
//!
//! - round trip (`true`, `echo hello`): a send through the composed host until it settles,
//!   against a raw PTY with bash writing the command and reading until its prompt marker;
//! - input-wait latency: `read -p 'Name: '` settling as waiting for input, against the time
//!   the prompt is printed; the answer to it; a Python REPL line (`1+1`) against the time
//!   `>>> ` is printed again;
//! - cold open: `terminal_open` (no warm session) until the session is ready, against bash
//!   reaching its first prompt in a raw PTY;
//! - through the built `dsh-mcp` over stdio (`server.rs`): opens 300 ms apart (warm sessions),
//!   the server's CPU while a send waits on `sleep`, the MCP floor, concurrent sends,
//!   idle memory per session, flood isolation;
//! - throughput and scrollback memory: `bench_throughput` (run after these rows).
//!
//! Files: `raw.rs` (the reference PTY), `mcp.rs` (a stdio MCP client of the server),
//! `server.rs` (its figures), `stats.rs` (percentiles, table).

mod cpu;
mod mcp;
pub(crate) mod raw;
mod server;
pub(crate) mod stats;

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use dsh_context::Agent;
use dsh_terminal_core::{SendRequest, SessionId, SpawnRequest, Terminals, WaitReason};

use raw::{RawPty, ends};
use stats::Row;

/// Options of one run.
pub(crate) struct BenchOptions {
    /// Measured iterations per figure (after a few warm-up ones).
    pub(crate) iterations: usize,
    /// Smaller samples (fewer iterations, sessions and bytes) for a first look.
    pub(crate) quick: bool,
    /// The workspace root (where `dsh-mcp` is built).
    pub(crate) root: std::path::PathBuf,
    /// Only the concurrent-sends figure (`bench concurrent`).
    pub(crate) concurrent_only: bool,
}

pub(super) const WARM_UP: usize = 5;

struct Ours {
    terminals: Arc<Terminals>,
    agent: Agent,
    id: SessionId,
}

impl Ours {
    async fn send(&self, text: &str) -> Result<(Duration, WaitReason)> {
        let start = Instant::now();
        let op = self
            .terminals
            .start_send(
                &self.agent,
                &self.id,
                SendRequest {
                    text: text.into(),
                    submit: true,
                    timeout: None,
                },
            )
            .map_err(|e| anyhow::anyhow!("send: {e}"))?;
        let result = op.done().await.map_err(|e| anyhow::anyhow!("send: {e}"))?;
        Ok((start.elapsed(), result.wait_reason))
    }

    async fn send_expect(&self, text: &str, wait: WaitReason) -> Result<Duration> {
        let (took, reason) = self.send(text).await?;
        if reason != wait {
            bail!("send {text:?} settled {reason:?} instead of {wait:?}");
        }
        Ok(took)
    }
}

pub(super) fn blocking<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    tokio::task::block_in_place(f)
}

/// Runs the benchmark and prints the table.
pub(crate) fn run(options: &BenchOptions) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("tokio runtime")?;
    let n = if options.quick {
        options.iterations.min(15)
    } else {
        options.iterations
    };
    if options.concurrent_only {
        return rt.block_on(concurrent_only(options));
    }
    rt.block_on(async move {
        // No warm sessions here: the open row measures a cold open (process start to first
        // prompt); opens through the server below take warm ones.
        let cold = dsh_mcp::Options {
            warm_sessions: 0,
            ..dsh_mcp::Options::default()
        };
        let ctx = dsh_mcp::compose(&cold).map_err(|e| anyhow::anyhow!("compose: {e}"))?;
        let terminals = ctx.require::<Terminals>()?;
        let agent = Agent::new(&ctx, "bench");
        let mut rows = Vec::new();
        let opens = if options.quick { 3 } else { 20 };
        rows.push(open_latency(&terminals, &agent, opens).await?);
        let id = open(&terminals, &agent).await?.1;
        let ours = Ours {
            terminals: Arc::clone(&terminals),
            agent: agent.clone(),
            id: id.clone(),
        };
        let mut raw = blocking(RawPty::bash)?;
        for cmd in ["true", "echo hello"] {
            rows.push(round_trip(&ours, &mut raw, cmd, n).await?);
        }
        rows.extend(read_prompt(&ours, &mut raw, n).await?);
        rows.push(python_line(&ours, &mut raw, n).await?);
        drop(raw);
        close_all(&ctx, &terminals, &agent, &id).await?;

        let workspace = std::env::temp_dir().join(format!("dsh-bench-{}", std::process::id()));
        std::fs::create_dir_all(&workspace).context("bench workspace")?;
        let plan = server::ServerBench {
            iterations: n,
            opens: if options.quick { 5 } else { 20 },
            concurrent: if options.quick { 20 } else { 200 },
            rounds: if options.quick { 1 } else { 5 },
            flood_bytes: if options.quick {
                5_000_000
            } else {
                2_000_000_000
            },
        };
        let through_server = server::run(&options.root, &workspace, &plan).await;
        let _ = std::fs::remove_dir_all(&workspace);
        let (server_rows, notes) = through_server?;
        rows.extend(server_rows);

        println!("cargo xtask bench: {n} iterations per figure, interleaved with the reference");
        if cfg!(debug_assertions) {
            println!(
                "(debug build: for release numbers run `cargo run --release -p xtask -- bench`)"
            );
        }
        stats::print_table(&rows);
        for note in notes {
            println!("{note}");
        }
        Ok(())
    })
}

/// `bench concurrent`: only the concurrent-sends figure (and idle memory per session).
async fn concurrent_only(options: &BenchOptions) -> Result<()> {
    let workspace = std::env::temp_dir().join(format!("dsh-bench-{}", std::process::id()));
    std::fs::create_dir_all(&workspace).context("bench workspace")?;
    let concurrent = if options.quick { 20 } else { 200 };
    let rounds = if options.quick { 1 } else { 5 };
    let measured = server::run_concurrent(&options.root, &workspace, concurrent, rounds).await;
    let _ = std::fs::remove_dir_all(&workspace);
    let (row, note) = measured?;
    stats::print_table(&[row]);
    println!("{note}");
    Ok(())
}

/// Closes the bench's session, then disposes its agent and the composed context.
pub(crate) async fn close_all(
    ctx: &dsh_context::Context,
    terminals: &Terminals,
    agent: &Agent,
    id: &SessionId,
) -> Result<()> {
    terminals
        .kill(agent, id)
        .await
        .map_err(|e| anyhow::anyhow!("close: {e}"))?;
    agent.dispose().await;
    ctx.dispose().await;
    Ok(())
}

async fn open(terminals: &Terminals, agent: &Agent) -> Result<(Duration, SessionId)> {
    let start = Instant::now();
    let opened = terminals
        .spawn(
            agent,
            SpawnRequest {
                backend_type: "shell".into(),
                ..SpawnRequest::default()
            },
        )
        .await
        .map_err(|e| anyhow::anyhow!("open: {e}"))?;
    Ok((start.elapsed(), opened.snapshot.session_id.clone()))
}

async fn open_latency(terminals: &Terminals, agent: &Agent, n: usize) -> Result<Row> {
    let (mut ours, mut reference) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (took, id) = open(terminals, agent).await?;
        ours.push(took);
        terminals
            .kill(agent, &id)
            .await
            .map_err(|e| anyhow::anyhow!("close: {e}"))?;
        let start = Instant::now();
        let raw = blocking(RawPty::bash)?;
        reference.push(start.elapsed());
        drop(raw);
    }
    Ok(Row {
        name: "cold open (terminal_open until ready, no warm session)".into(),
        ours,
        reference_name: "raw bash first prompt",
        reference,
    })
}

async fn round_trip(ours: &Ours, raw: &mut RawPty, cmd: &str, n: usize) -> Result<Row> {
    let (mut o, mut r) = (Vec::new(), Vec::new());
    let input = format!("{cmd}\r");
    for i in 0..n + WARM_UP {
        let took = ours.send_expect(cmd, WaitReason::StdinRead).await?;
        let raw_took = blocking(|| {
            raw.timed(input.as_bytes(), |s| {
                s.windows(raw::MARK.len()).any(|w| w == raw::MARK) && s.ends_with(b"$ ")
            })
        })?;
        if i >= WARM_UP {
            o.push(took);
            r.push(raw_took);
        }
    }
    Ok(Row {
        name: format!("round trip `{cmd}`"),
        ours: o,
        reference_name: "raw PTY prompt marker",
        reference: r,
    })
}

async fn read_prompt(ours: &Ours, raw: &mut RawPty, n: usize) -> Result<Vec<Row>> {
    let (mut wait_o, mut wait_r, mut answer_o, mut answer_r) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..n + WARM_UP {
        let took = ours
            .send_expect("read -p 'Name: ' x", WaitReason::StdinRead)
            .await?;
        let raw_took = blocking(|| raw.timed(b"read -p 'Name: ' x\r", ends(b"Name: ")))?;
        let answered = ours.send_expect("alice", WaitReason::StdinRead).await?;
        let raw_answered = blocking(|| {
            raw.timed(b"alice\r", |s| {
                s.windows(raw::MARK.len()).any(|w| w == raw::MARK) && s.ends_with(b"$ ")
            })
        })?;
        if i >= WARM_UP {
            wait_o.push(took);
            wait_r.push(raw_took);
            answer_o.push(answered);
            answer_r.push(raw_answered);
        }
    }
    Ok(vec![
        Row {
            name: "`read -p` reported waiting".into(),
            ours: wait_o,
            reference_name: "prompt printed",
            reference: wait_r,
        },
        Row {
            name: "answer to `read -p`".into(),
            ours: answer_o,
            reference_name: "raw PTY prompt marker",
            reference: answer_r,
        },
    ])
}

async fn python_line(ours: &Ours, raw: &mut RawPty, n: usize) -> Result<Row> {
    ours.send_expect("python3 -q", WaitReason::StdinRead)
        .await?;
    blocking(|| {
        raw.write(b"python3 -q\r")?;
        raw.read_until(ends(b">>> "))
    })?;
    let (mut o, mut r) = (Vec::new(), Vec::new());
    for i in 0..n + WARM_UP {
        let took = ours.send_expect("1+1", WaitReason::StdinRead).await?;
        let raw_took = blocking(|| raw.timed(b"1+1\r", ends(b"2\r\n>>> ")))?;
        if i >= WARM_UP {
            o.push(took);
            r.push(raw_took);
        }
    }
    ours.send("exit()").await?;
    blocking(|| {
        raw.write(b"exit()\r")?;
        raw.read_until_prompt()
    })?;
    Ok(Row {
        name: "Python REPL line `1+1`".into(),
        ours: o,
        reference_name: "`>>> ` printed again",
        reference: r,
    })
}
