//! A minimal MCP client of the built `dsh-mcp` binary over stdio (newline-delimited JSON-RPC),
//! so figures through the whole server (transport, tool registry, renders) can be taken.
//! Calls may overlap: a reader task hands each response to the call that sent its id.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use parking_lot::Mutex;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::oneshot;

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>;

pub(crate) struct McpClient {
    child: Child,
    stdin: tokio::sync::Mutex<ChildStdin>,
    pending: Pending,
    next_id: AtomicU64,
    pid: u32,
}

/// Builds `dsh-mcp` in the profile this xtask was built in and returns its path.
pub(crate) fn build_server(root: &Path) -> Result<PathBuf> {
    let release = !cfg!(debug_assertions);
    let mut cmd = std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()));
    cmd.current_dir(root)
        .args(["build", "--quiet", "-p", "dsh-mcp"]);
    if release {
        cmd.arg("--release");
    }
    let status = cmd.status().context("cargo build -p dsh-mcp")?;
    if !status.success() {
        bail!("cargo build -p dsh-mcp failed");
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    Ok(target
        .join(if release { "release" } else { "debug" })
        .join("dsh-mcp"))
}

impl McpClient {
    /// Starts the server with `args` and completes the MCP handshake.
    pub(crate) async fn start(bin: &Path, args: &[&str]) -> Result<Self> {
        let mut child = Command::new(bin)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("start {}", bin.display()))?;
        let pid = child.id().context("server pid")?;
        let stdin = child.stdin.take().context("server stdin")?;
        let stdout = child.stdout.take().context("server stdout")?;
        let pending: Pending = Arc::default();
        let routes = Arc::clone(&pending);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                let is_response = msg.get("result").is_some() || msg.get("error").is_some();
                if let (true, Some(id)) = (is_response, msg.get("id").and_then(Value::as_u64))
                    && let Some(tx) = routes.lock().remove(&id)
                {
                    let _ = tx.send(msg);
                }
            }
        });
        let client = Self {
            child,
            stdin: tokio::sync::Mutex::new(stdin),
            pending,
            next_id: AtomicU64::new(1),
            pid,
        };
        client
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "xtask-bench", "version": "0"}
                }),
            )
            .await?;
        client
            .write(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await?;
        Ok(client)
    }

    async fn write(&self, msg: &Value) -> Result<()> {
        let mut line = serde_json::to_vec(msg)?;
        line.push(b'\n');
        let mut stdin = self.stdin.lock().await;
        stdin.write_all(&line).await.context("server stdin")?;
        stdin.flush().await.context("server stdin")
    }

    async fn request(&self, method: &str, params: Value) -> Result<Value> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().insert(id, tx);
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        let msg = rx.await.context("server closed the connection")?;
        if let Some(err) = msg.get("error") {
            bail!("{method}: {err}");
        }
        Ok(msg.get("result").cloned().unwrap_or(Value::Null))
    }

    /// Calls tool `name`; fails when the result is an error result.
    pub(crate) async fn call(&self, name: &str, arguments: Value) -> Result<Value> {
        let result = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await?;
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            bail!("{name}: {}", result.get("content").unwrap_or(&Value::Null));
        }
        Ok(result)
    }

    /// Calls tool `name` and returns how long the round trip took.
    pub(crate) async fn timed(&self, name: &str, arguments: Value) -> Result<Duration> {
        let start = Instant::now();
        self.call(name, arguments).await?;
        Ok(start.elapsed())
    }

    /// `terminal_open` of a shell; returns the session id.
    pub(crate) async fn open(&self) -> Result<String> {
        let result = self.call("terminal_open", json!({"type": "shell"})).await?;
        result
            .pointer("/structuredContent/sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .context("terminal_open returned no sessionId")
    }

    /// `terminal_send` of `text`; returns how long it took and its structured result.
    pub(crate) async fn send(&self, session: &str, text: &str) -> Result<(Duration, Value)> {
        let start = Instant::now();
        let result = self
            .call(
                "terminal_send",
                json!({"sessionId": session, "text": text, "timeoutMs": 600_000}),
            )
            .await?;
        Ok((start.elapsed(), result))
    }

    pub(crate) async fn close(&self, session: &str) -> Result<()> {
        self.call("terminal_close", json!({"sessionId": session}))
            .await
            .map(drop)
    }

    /// A memory field of the server process's `/proc/PID/status` (`VmRSS:`, `VmHWM:`) in kB.
    pub(crate) fn status_kb(&self, field: &str) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.pid))
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }

    /// CPU time the server process used so far (user + system), in clock ticks (`/proc/PID/stat`).
    pub(crate) fn cpu_ticks(&self) -> u64 {
        super::cpu::process_ticks(self.pid)
    }

    /// CPU time the server's live descendants (its shells and their programs) used so far, in
    /// ns.
    pub(crate) fn descendants_cpu_ns(&self) -> u64 {
        super::cpu::descendants_ns(self.pid)
    }

    /// Closes stdin (the server disposes every session and exits) and waits for the exit.
    pub(crate) async fn shutdown(mut self) -> Result<()> {
        drop(self.stdin);
        match tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await {
            Ok(status) => status.map(drop).context("server exit"),
            Err(_) => {
                let _ = self.child.kill().await;
                bail!("the server did not exit within 30 s of its stdin closing")
            }
        }
    }
}
