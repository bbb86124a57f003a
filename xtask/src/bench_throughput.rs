//! `cargo xtask bench`, output throughput and scrollback memory: our sessions against a raw
//! PTY, side by side in the same run.
//!
//! - **raw**: portable-pty + `bash --noprofile --norc -i` with a `PROMPT_COMMAND` marker; the
//!   command is written and the master is read (64 KiB reads) until the marker;
//! - **ours**: `Terminals::start_send` through the composed host (shell backend, screen
//!   emulation, readiness engine) until the send settles.
//!
//! Workloads: `cat` of a file of 80-character lines, `cat` of 4000-character lines, and
//! `yes | head -c N`. Each runs several times, alternating raw and ours; reported are the
//! medians in MB/s of output bytes and their ratio, and the host's CPU time per MB of output on
//! each side (steadier than the rates on a shared machine). Memory: the host's RSS growth after
//! 10,000 lines of 80 characters in one session, and its peak RSS through a `yes` flood. Nothing
//! is asserted.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use dsh_context::Agent;
use dsh_terminal_core::{SendRequest, SessionId, SpawnRequest, Terminals, WaitReason};

use crate::bench::raw::RawPty;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2).copied().unwrap_or(0.0)
}

/// CPU time every live thread of this process has run, from `/proc/self/task/*/schedstat`
/// (nanoseconds, unlike the 10 ms ticks of `stat`). Raw and our runs alternate, so the
/// difference across one run is that run's CPU: the raw reader's loop, or our reader thread,
/// send settling and rendering.
fn process_cpu() -> Duration {
    let mut ns = 0u64;
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for task in tasks.flatten() {
            let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
            ns += stat
                .split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    Duration::from_nanos(ns)
}

/// Resident and peak resident memory of this process, in kB.
fn rss_kb() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn write_lines(path: &Path, line_chars: usize, total_bytes: usize) -> Result<()> {
    let mut line = "x".repeat(line_chars);
    line.push('\n');
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("create {}", path.display()))?,
    );
    let mut written = 0;
    while written < total_bytes {
        file.write_all(line.as_bytes())?;
        written += line.len();
    }
    file.flush()?;
    Ok(())
}

struct Ours<'a> {
    terminals: &'a Terminals,
    agent: &'a Agent,
    id: SessionId,
}

impl Ours<'_> {
    /// Sends `command` and waits until it settles at the prompt.
    async fn run(&self, command: &str) -> Result<Duration> {
        let start = Instant::now();
        let mut text = command.to_owned();
        let mut submit = true;
        loop {
            let op = self
                .terminals
                .start_send(
                    self.agent,
                    &self.id,
                    SendRequest {
                        text: std::mem::take(&mut text),
                        submit: std::mem::take(&mut submit),
                        timeout: None,
                    },
                )
                .map_err(|e| anyhow::anyhow!("send: {e}"))?;
            let result = op.done().await.map_err(|e| anyhow::anyhow!("send: {e}"))?;
            match result.wait_reason {
                // A command that failed (e.g. a file the session cannot see) measures nothing.
                WaitReason::StdinRead if result.exit_code.is_some_and(|c| c != 0) => {
                    bail!("`{command}` exited with {:?}", result.exit_code)
                }
                WaitReason::StdinRead => return Ok(start.elapsed()),
                WaitReason::Timeout | WaitReason::InferredIdle => continue,
                other => bail!("send settled {other:?}"),
            }
        }
    }
}

/// Runs the throughput and memory benchmark (`quick`: smaller volumes, fewer runs).
pub(crate) fn run(quick: bool) -> Result<()> {
    let (volume, runs, flood) = if quick {
        (5_000_000, 2, 10_000_000u64)
    } else {
        (100_000_000, 5, 2_000_000_000u64)
    };
    let dir = std::env::temp_dir().join(format!("dsh-bench-throughput-{}", std::process::id()));
    std::fs::create_dir_all(&dir).context("temp dir")?;
    let result = run_in(&dir, volume, runs, flood);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run_in(dir: &Path, volume: usize, runs: usize, flood: u64) -> Result<()> {
    let short: PathBuf = dir.join("lines80.txt");
    let long: PathBuf = dir.join("lines4000.txt");
    write_lines(&short, 80, volume)?;
    write_lines(&long, 4000, volume)?;
    let workloads = [
        ("cat 80-char lines", format!("cat {}", short.display())),
        ("cat 4000-char lines", format!("cat {}", long.display())),
        ("yes", format!("yes | head -c {volume}")),
    ];
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("tokio runtime")?;
    rt.block_on(async move {
        let (rss_start, _) = rss_kb();
        // The files live in the workspace, so a confined session (the default) sees them.
        let options = dsh_mcp::Options {
            workspace: Some(dir.to_path_buf()),
            ..dsh_mcp::Options::default()
        };
        let ctx = dsh_mcp::compose(&options).map_err(|e| anyhow::anyhow!("compose: {e}"))?;
        let terminals = ctx.require::<Terminals>()?;
        let agent = Agent::new(&ctx, "bench-throughput");
        let open = || async {
            terminals
                .spawn(
                    &agent,
                    SpawnRequest {
                        backend_type: "shell".into(),
                        ..SpawnRequest::default()
                    },
                )
                .await
                .map(|o| o.snapshot.session_id.clone())
                .map_err(|e| anyhow::anyhow!("open: {e}"))
        };

        // Scrollback memory: 10,000 lines of 80 characters in a fresh session.
        let id = open().await?;
        let ours = Ours {
            terminals: &terminals,
            agent: &agent,
            id: id.clone(),
        };
        let (rss_before, _) = rss_kb();
        ours.run("yes \"$(printf '%080d' 0)\" | head -n 10000").await?;
        let (rss_after, _) = rss_kb();
        terminals
            .kill(&agent, &id)
            .await
            .map_err(|e| anyhow::anyhow!("close: {e}"))?;

        let id = open().await?;
        let ours = Ours {
            terminals: &terminals,
            agent: &agent,
            id: id.clone(),
        };
        let mut raw = tokio::task::block_in_place(RawPty::bash)?;
        println!("output throughput, {volume} bytes per run, {runs} runs each, alternating");
        if cfg!(debug_assertions) {
            println!(
                "  (debug build: for release numbers run `cargo run --release -p xtask -- bench`)"
            );
        }
        for (name, command) in &workloads {
            let (mut raw_rates, mut our_rates) = (Vec::new(), Vec::new());
            let (mut raw_cpu, mut our_cpu) = (Vec::new(), Vec::new());
            for _ in 0..runs {
                let cpu_before = process_cpu();
                let (raw_time, raw_bytes) = tokio::task::block_in_place(|| raw.run_counting(command))?;
                let cpu_between = process_cpu();
                raw_rates.push(raw_bytes as f64 / raw_time.as_secs_f64() / 1e6);
                // Our session sees the same bytes (ONLCR included) as the raw PTY.
                let our_time = ours.run(command).await?;
                let cpu_after = process_cpu();
                our_rates.push(raw_bytes as f64 / our_time.as_secs_f64() / 1e6);
                let mb = raw_bytes as f64 / 1e6;
                raw_cpu.push((cpu_between - cpu_before).as_secs_f64() * 1e3 / mb);
                our_cpu.push((cpu_after - cpu_between).as_secs_f64() * 1e3 / mb);
            }
            let (r, o) = (median(raw_rates), median(our_rates));
            let (rc, oc) = (median(raw_cpu), median(our_cpu));
            println!(
                "  {name:<20} raw PTY {r:>7.1} MB/s   dsh {o:>7.1} MB/s   ratio {:.2}   \
                 reader CPU per MB: raw {rc:.2} ms, dsh {oc:.2} ms",
                o / r.max(1e-9)
            );
        }
        drop(raw);

        let flood_start = Instant::now();
        ours.run(&format!("yes | head -c {flood}")).await?;
        let flood_time = flood_start.elapsed();
        let (rss_end, rss_peak) = rss_kb();
        crate::bench::close_all(&ctx, &terminals, &agent, &id).await?;

        println!("memory (host process RSS)");
        println!(
            "  10,000 lines of 80 chars in one session: +{} kB",
            rss_after.saturating_sub(rss_before)
        );
        println!(
            "  `yes` flood of {flood} bytes: {:.1} s, peak RSS {} kB (start {rss_start} kB, end {rss_end} kB)",
            flood_time.as_secs_f64(),
            rss_peak
        );
        Ok(())
    })
}
