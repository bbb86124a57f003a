//! Shared helpers: MCP clients (child process or in-process), tool calls, process watching.

// pidfd_open, poll and kill are FFI calls; each use is commented.
#![allow(unsafe_code)]

use std::future::Future;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dsh_context::Context;
use dsh_mcp::{ConnectionEnd, EndCause, McpServer, Options, compose, dispose_with_deadline};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{Peer, RoleClient, RunningService};
use serde_json::Value;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// An rmcp client with the default (empty) client handler.
pub(crate) type Client = RunningService<RoleClient, ()>;

/// Deadline of one step (a tool call, a handshake, a process exit).
pub(crate) const STEP: Duration = Duration::from_secs(20);

/// Awaits `fut`, failing the test if it takes longer than [`STEP`].
pub(crate) async fn within<F: Future>(what: &str, fut: F) -> F::Output {
    match tokio::time::timeout(STEP, fut).await {
        Ok(out) => out,
        Err(_) => panic!("{what} did not finish within {STEP:?}"),
    }
}

/// One tool result as the client saw it.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub(crate) is_error: bool,
    pub(crate) text: String,
    pub(crate) blocks: usize,
    pub(crate) structured: Option<Value>,
    pub(crate) elapsed: Duration,
}

impl Reply {
    fn from_result(result: CallToolResult, elapsed: Duration) -> Self {
        let texts: Vec<String> = result
            .content
            .iter()
            .map(|block| {
                block
                    .as_text()
                    .map(|t| t.text.clone())
                    .unwrap_or_else(|| panic!("non-text content block: {block:?}"))
            })
            .collect();
        Self {
            is_error: result.is_error == Some(true),
            text: texts.join("\n"),
            blocks: texts.len(),
            structured: result.structured_content,
            elapsed,
        }
    }

    /// Whether some line of the text equals `line` (trailing blanks ignored).
    pub(crate) fn has_line(&self, line: &str) -> bool {
        self.text.lines().any(|l| l.trim_end() == line)
    }
}

/// Calls `tool` and returns the result; a protocol error fails the test.
pub(crate) async fn call(client: &Peer<RoleClient>, tool: &str, args: Value) -> Reply {
    let Value::Object(args) = args else {
        panic!("tool arguments must be a JSON object")
    };
    let started = Instant::now();
    let result = within(
        &format!("tools/call {tool}"),
        client.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args)),
    )
    .await
    .unwrap_or_else(|e| panic!("tools/call {tool}: protocol error instead of a tool result: {e}"));
    Reply::from_result(result, started.elapsed())
}

/// Calls `tool` and asserts success with exactly one text block.
pub(crate) async fn ok(client: &Peer<RoleClient>, tool: &str, args: Value) -> Reply {
    let reply = call(client, tool, args.clone()).await;
    assert!(
        !reply.is_error,
        "{tool} {args} failed: {text}",
        text = reply.text
    );
    assert_eq!(reply.blocks, 1, "{tool}: {reply:?}");
    reply
}

/// Calls `tool` and asserts an `isError` result whose text is `Error: ...`.
pub(crate) async fn err(client: &Peer<RoleClient>, tool: &str, args: Value) -> Reply {
    let reply = call(client, tool, args.clone()).await;
    assert!(
        reply.is_error,
        "{tool} {args} should fail but returned: {text}",
        text = reply.text
    );
    assert!(
        reply.text.starts_with("Error: "),
        "{tool} {args}: error text should start with `Error: `: {text:?}",
        text = reply.text
    );
    reply
}

/// Opens a shell session and returns its id. Session ids are minted host-wide, and every
/// connection starts a warm shell that takes one, so with several connections an open's id
/// is not known in advance.
pub(crate) async fn open_shell(client: &Peer<RoleClient>) -> String {
    let open = ok(
        client,
        "terminal_open",
        serde_json::json!({"type": "shell"}),
    )
    .await;
    open.structured.as_ref().expect("structured")["sessionId"]
        .as_str()
        .expect("sessionId")
        .to_owned()
}

/// `terminal_send {sessionId, text}` (submit defaults to true), asserting success.
pub(crate) async fn send(client: &Peer<RoleClient>, session: &str, text: &str) -> Reply {
    ok(
        client,
        "terminal_send",
        serde_json::json!({"sessionId": session, "text": text}),
    )
    .await
}

/// Starts `sleep 1000.<unique> &` in `session` and returns (shell pid, background pid), both
/// as the host sees them (a confined session has its own PID namespace, so `$!` inside it is
/// not a host pid: the sleep is found by its unique command line instead).
pub(crate) async fn start_background_sleep(client: &Client, session: &str) -> (i32, i32) {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let arg = format!(
        "1000.{}{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    );
    send(client, session, &format!("sleep {arg} &")).await;
    let bg = pid_of_command(&["sleep", &arg]).await;
    (shell_pid(client, session).await, bg)
}

/// The host pid of the process whose command line is exactly `argv`, waiting (up to
/// [`STEP`]) for it to appear.
pub(crate) async fn pid_of_command(argv: &[&str]) -> i32 {
    let want: Vec<u8> = argv
        .iter()
        .flat_map(|a| [a.as_bytes(), b"\0"].concat())
        .collect();
    let started = Instant::now();
    loop {
        let found = std::fs::read_dir("/proc").ok().and_then(|dir| {
            dir.flatten().find_map(|e| {
                let pid = e.file_name().to_str()?.parse::<i32>().ok()?;
                (std::fs::read(e.path().join("cmdline")).ok()? == want).then_some(pid)
            })
        });
        if let Some(pid) = found {
            return pid;
        }
        assert!(started.elapsed() < STEP, "{argv:?} never started");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The shell pid of `session`, from `terminal_list`'s `pid=` field.
pub(crate) async fn shell_pid(client: &Peer<RoleClient>, session: &str) -> i32 {
    let list = ok(client, "terminal_list", serde_json::json!({})).await;
    list.text
        .lines()
        .find(|l| l.starts_with(&format!("{session} ")))
        .and_then(|l| l.split_whitespace().find_map(|w| w.strip_prefix("pid=")))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no `pid=` for {session} in terminal_list: {:?}", list.text))
}

/// Sends `signal` to `pid`.
pub(crate) fn kill(pid: i32, signal: i32) {
    // SAFETY: kill(2) takes plain integers and has no memory effects.
    let rc = unsafe { libc::kill(pid, signal) };
    assert_eq!(
        rc,
        0,
        "kill({pid}, {signal}): {}",
        std::io::Error::last_os_error()
    );
}

/// Watches one process through a pidfd, which pins its identity (no pid-reuse races) and
/// becomes readable when the process terminates.
pub(crate) struct ProcessWatch {
    pid: i32,
    fd: Option<OwnedFd>,
}

impl ProcessWatch {
    /// Starts watching `pid`; a process that is already gone is recorded as exited.
    pub(crate) fn new(pid: i32) -> Self {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let fd = if raw < 0 {
            let e = std::io::Error::last_os_error();
            assert_eq!(
                e.raw_os_error(),
                Some(libc::ESRCH),
                "pidfd_open({pid}): {e}"
            );
            None
        } else {
            let raw = i32::try_from(raw).expect("descriptor fits in i32");
            // SAFETY: `raw` is a fresh descriptor that nothing else owns.
            Some(unsafe { OwnedFd::from_raw_fd(raw) })
        };
        Self { pid, fd }
    }

    /// The watched pid.
    pub(crate) fn pid(&self) -> i32 {
        self.pid
    }

    /// Whether the process has not terminated yet.
    pub(crate) fn is_running(&self) -> bool {
        self.fd
            .as_ref()
            .is_some_and(|fd| !poll_readable(fd, Duration::ZERO))
    }

    /// Blocks until the process terminated or `deadline` passed; returns whether it did.
    pub(crate) fn wait_blocking(&self, deadline: Duration) -> bool {
        self.fd
            .as_ref()
            .is_none_or(|fd| poll_readable(fd, deadline))
    }

    /// Waits (off the runtime's worker threads) until the process terminated; fails the test
    /// after [`STEP`].
    pub(crate) async fn assert_exits(&self, what: &str) {
        let Some(fd) = &self.fd else { return };
        let fd = fd.try_clone().expect("dup pidfd");
        let exited = tokio::task::spawn_blocking(move || poll_readable(&fd, STEP))
            .await
            .expect("poll task");
        assert!(
            exited,
            "{what} (pid {}) still runs after {STEP:?}",
            self.pid
        );
    }
}

fn poll_readable(fd: &OwnedFd, timeout: Duration) -> bool {
    let mut pfd = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
    loop {
        // SAFETY: `pfd` is a valid pollfd array of length 1 for the duration of the call.
        let rc = unsafe { libc::poll(&mut pfd, 1, ms) };
        if rc >= 0 {
            return rc > 0;
        }
        let e = std::io::Error::last_os_error();
        assert_eq!(e.raw_os_error(), Some(libc::EINTR), "poll(pidfd): {e}");
    }
}

/// `dsh-mcp <args>` with piped stdin/stdout, stderr shown, killed if dropped.
pub(crate) fn server_command(args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_dsh-mcp"));
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    command
}

/// The built `dsh-mcp` binary, talking MCP over its stdin/stdout.
pub(crate) struct ServerProcess {
    child: tokio::process::Child,
    pid: i32,
}

impl ServerProcess {
    /// Starts `dsh-mcp <args>` and completes the MCP handshake with rmcp's client.
    pub(crate) async fn start(args: &[&str]) -> (Self, Client) {
        Self::start_with_client(args, &[], &[], ()).await
    }

    /// [`Self::start`] with `set` added to and `remove` removed from the server's environment.
    pub(crate) async fn start_with_env(
        args: &[&str],
        set: &[(&str, &str)],
        remove: &[&str],
    ) -> (Self, Client) {
        Self::start_with_client(args, set, remove, ()).await
    }

    /// Like [`ServerProcess::start`], with a client handler that observes notifications.
    pub(crate) async fn start_with<H: rmcp::ClientHandler>(
        args: &[&str],
        handler: H,
    ) -> (Self, RunningService<RoleClient, H>) {
        Self::start_with_client(args, &[], &[], handler).await
    }

    /// Starts `dsh-mcp <args>` (with `set` added to and `remove` removed from its environment)
    /// and completes the handshake with `handler` as the client (e.g. one that declares and
    /// answers elicitation or observes notifications).
    pub(crate) async fn start_with_client<H: rmcp::ClientHandler>(
        args: &[&str],
        set: &[(&str, &str)],
        remove: &[&str],
        handler: H,
    ) -> (Self, RunningService<RoleClient, H>) {
        let mut command = server_command(args);
        for name in remove {
            command.env_remove(name);
        }
        let mut child = command
            .envs(set.iter().copied())
            .spawn()
            .expect("spawn dsh-mcp");
        let pid = i32::try_from(child.id().expect("child pid")).expect("pid fits in i32");
        let stdout = child.stdout.take().expect("child stdout");
        let stdin = child.stdin.take().expect("child stdin");
        let server = Self { child, pid };
        let client = within("MCP initialize", handler.serve((stdout, stdin)))
            .await
            .expect("MCP initialize");
        (server, client)
    }

    /// The server's pid.
    pub(crate) fn pid(&self) -> i32 {
        self.pid
    }

    /// Waits for the server to exit on its own; fails the test after [`STEP`].
    pub(crate) async fn wait_exit(&mut self) -> ExitStatus {
        within("dsh-mcp exit", self.child.wait())
            .await
            .expect("wait for dsh-mcp")
    }

    /// Closes `client`'s connection (the server's stdin) and checks that the server then exits
    /// on its own, successfully; fails the test after [`STEP`] each.
    pub(crate) async fn disconnect<S: rmcp::Service<RoleClient>>(
        &mut self,
        client: RunningService<RoleClient, S>,
    ) {
        within("client close", client.cancel())
            .await
            .expect("client task");
        let status = self.wait_exit().await;
        assert!(status.success(), "dsh-mcp exited with {status}");
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        stop_server(&mut self.child, self.pid);
    }
}

/// For a server's `Drop`, the failure path only (a passing test waits for the exit): ask for a
/// clean shutdown so the server closes its sessions, wait for it (bounded), then kill it.
pub(crate) fn stop_server(child: &mut tokio::process::Child, pid: i32) {
    if matches!(child.try_wait(), Ok(None)) {
        let watch = ProcessWatch::new(pid);
        // SAFETY: kill(2) takes plain integers and has no memory effects.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        watch.wait_blocking(STEP);
        let _ = child.start_kill();
    }
}

/// Asserts that `client` can neither send to, read, signal nor close `id`, another agent's
/// session.
pub(crate) async fn assert_foreign(client: &Peer<RoleClient>, id: &str) {
    for (tool, args) in [
        (
            "terminal_send",
            serde_json::json!({"sessionId": id, "text": "echo intruder"}),
        ),
        ("terminal_read", serde_json::json!({"sessionId": id})),
        (
            "terminal_signal",
            serde_json::json!({"sessionId": id, "signal": "SIGINT"}),
        ),
        ("terminal_close", serde_json::json!({"sessionId": id})),
    ] {
        let r = err(client, tool, args).await;
        assert!(
            r.text.contains(&format!("{id} belongs to another agent")),
            "{tool}: {:?}",
            r.text
        );
    }
}

/// Test options: a 10 s send deadline keeps a misbehaving readiness engine from stalling a test
/// for the default 30 s.
pub(crate) fn test_options() -> Options {
    Options {
        timeout_ms: 10_000,
        ..Options::default()
    }
}

/// A server context in this process with connections over `tokio::io::duplex`.
pub(crate) struct InProcess {
    pub(crate) ctx: Context,
    server: Arc<McpServer>,
    shutdown: CancellationToken,
    connections: Vec<JoinHandle<ConnectionEnd>>,
}

impl InProcess {
    /// Composes a context from `options`.
    pub(crate) fn new(options: &Options) -> Self {
        let ctx = compose(options).expect("compose");
        let server = Arc::new(
            McpServer::new(&ctx)
                .expect("server")
                .with_teardown_deadline(STEP),
        );
        Self {
            ctx,
            server,
            shutdown: CancellationToken::new(),
            connections: Vec::new(),
        }
    }

    /// Opens one more connection (one more agent) and completes the handshake.
    pub(crate) async fn connect(&mut self) -> Client {
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        let server = self.server.clone();
        let shutdown = self.shutdown.clone();
        self.connections.push(tokio::spawn(async move {
            server.serve_connection(server_io, &shutdown).await
        }));
        within("MCP initialize", ().serve(client_io))
            .await
            .expect("MCP initialize")
    }

    /// Disconnects every client, asserts each connection ended because its client closed and
    /// its agent teardown completed, then disposes the context.
    pub(crate) async fn finish(self, clients: Vec<Client>) {
        for client in clients {
            within("client close", client.cancel())
                .await
                .expect("client task");
        }
        for connection in self.connections {
            let end = within("connection end", connection)
                .await
                .expect("connection task");
            assert_eq!(end.cause, EndCause::ClientClosed, "{end:?}");
            assert!(end.teardown_complete, "{end:?}");
        }
        assert!(
            dispose_with_deadline(&self.ctx, STEP).await,
            "root context teardown missed its deadline"
        );
    }
}

/// A private directory under the temp directory, unique in this run, removed on drop.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(what: &str) -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("dsh-mcp-{what}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
