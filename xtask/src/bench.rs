//! `cargo xtask bench`: our send round trip against a raw PTY round trip, side by side.
//!
//! Both run bash in a PTY on the same machine in the same process, interleaved iteration by
//! iteration so machine noise hits both alike:
//! - **raw**: portable-pty + `bash --noprofile --norc -i` with a `PROMPT_COMMAND` marker;
//!   write `true\r`, read until the marker (the floor, field-notes §2);
//! - **ours**: `Terminals::start_send("true")` through the composed host (shell backend,
//!   screen emulation, readiness engine) until it settles `stdin_read`.
//!
//! Reported: median and p90 of each in µs and the ratio of medians. Nothing is asserted.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use dsh_context::Agent;
use dsh_terminal_core::{SendRequest, SpawnRequest, Terminals, WaitReason};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const MARK: &[u8] = b"\x1b]133;D;";

struct RawPty {
    _child: Box<dyn portable_pty::Child + Send + Sync>,
    reader: Box<dyn Read + Send>,
    writer: Box<dyn Write + Send>,
    killer: Box<dyn portable_pty::ChildKiller + Send + Sync>,
}

impl RawPty {
    fn spawn() -> Result<Self> {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 40,
                cols: 160,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| anyhow::anyhow!("openpty: {e}"))?;
        let mut cmd = CommandBuilder::new("/bin/bash");
        cmd.args(["--noprofile", "--norc", "-i"]);
        cmd.env("PS1", "$ ");
        cmd.env("PROMPT_COMMAND", r#"printf "\033]133;D;%s\007" "$?""#);
        cmd.env("TERM", "dumb");
        let child = pair
            .slave
            .spawn_command(cmd)
            .map_err(|e| anyhow::anyhow!("spawn: {e}"))?;
        drop(pair.slave);
        let killer = child.clone_killer();
        let reader = pair
            .master
            .try_clone_reader()
            .map_err(|e| anyhow::anyhow!("reader: {e}"))?;
        let writer = pair
            .master
            .take_writer()
            .map_err(|e| anyhow::anyhow!("writer: {e}"))?;
        // Keep the master alive for the PTY's lifetime.
        std::mem::forget(pair.master);
        let mut raw = Self {
            _child: child,
            reader,
            writer,
            killer,
        };
        raw.read_until_mark()?;
        Ok(raw)
    }

    fn read_until_mark(&mut self) -> Result<()> {
        let mut seen = Vec::new();
        let mut buf = [0u8; 65536];
        loop {
            let n = self.reader.read(&mut buf).context("pty read")?;
            if n == 0 {
                bail!("raw bash exited");
            }
            seen.extend_from_slice(&buf[..n]);
            if seen.windows(MARK.len()).any(|w| w == MARK) && seen.ends_with(b"$ ") {
                return Ok(());
            }
        }
    }

    fn round_trip(&mut self) -> Result<Duration> {
        let start = Instant::now();
        self.writer.write_all(b"true\r").context("pty write")?;
        self.read_until_mark()?;
        Ok(start.elapsed())
    }
}

impl Drop for RawPty {
    fn drop(&mut self) {
        let _ = self.killer.kill();
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let idx = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

/// Runs the benchmark with `iterations` measured round trips each (after 20 warm-up ones).
pub(crate) fn run(iterations: usize) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("tokio runtime")?;
    rt.block_on(async move {
        let ctx = dsh_mcp::compose(&dsh_mcp::Options::default())
            .map_err(|e| anyhow::anyhow!("compose: {e}"))?;
        let terminals = ctx.require::<Terminals>()?;
        let agent = Agent::new(&ctx, "bench");
        let opened = terminals
            .spawn(
                &agent,
                SpawnRequest {
                    backend_type: "shell".into(),
                    ..SpawnRequest::default()
                },
            )
            .await
            .map_err(|e| anyhow::anyhow!("open: {e}"))?;
        let id = opened.snapshot.session_id.clone();
        let mut raw = tokio::task::block_in_place(RawPty::spawn)?;

        let mut ours_samples = Vec::with_capacity(iterations);
        let mut raw_samples = Vec::with_capacity(iterations);
        for i in 0..(iterations + 20) {
            let start = Instant::now();
            let op = terminals
                .start_send(
                    &agent,
                    &id,
                    SendRequest {
                        text: "true".into(),
                        submit: true,
                        timeout: None,
                    },
                )
                .map_err(|e| anyhow::anyhow!("send: {e}"))?;
            let result = op.done().await.map_err(|e| anyhow::anyhow!("send: {e}"))?;
            let ours = start.elapsed();
            if result.wait_reason != WaitReason::StdinRead {
                bail!("send settled {:?} instead of StdinRead", result.wait_reason);
            }
            let raw_rt = tokio::task::block_in_place(|| raw.round_trip())?;
            if i >= 20 {
                ours_samples.push(ours);
                raw_samples.push(raw_rt);
            }
        }
        drop(raw);
        terminals
            .kill(&agent, &id)
            .await
            .map_err(|e| anyhow::anyhow!("close: {e}"))?;
        agent.dispose().await;
        ctx.dispose().await;

        ours_samples.sort();
        raw_samples.sort();
        let (o50, o90) = (
            percentile(&ours_samples, 0.5),
            percentile(&ours_samples, 0.9),
        );
        let (r50, r90) = (percentile(&raw_samples, 0.5), percentile(&raw_samples, 0.9));
        println!("send round trip `true`, {iterations} iterations each, interleaved");
        if cfg!(debug_assertions) {
            println!(
                "  (debug build: for release numbers run `cargo run --release -p xtask -- bench`)"
            );
        }
        println!(
            "  raw PTY + bash marker : median {:>8} µs  p90 {:>8} µs",
            r50.as_micros(),
            r90.as_micros()
        );
        println!(
            "  dsh Terminals send    : median {:>8} µs  p90 {:>8} µs",
            o50.as_micros(),
            o90.as_micros()
        );
        println!(
            "  ratio (ours / raw, medians): {:.2}",
            o50.as_secs_f64() / r50.as_secs_f64().max(1e-9)
        );
        Ok(())
    })
}
