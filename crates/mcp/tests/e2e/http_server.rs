//! The built `dsh-mcp` binary serving HTTP on a free loopback port for the e2e tests, and the
//! raw requests (POST bodies, SSE answers, DELETE) the tests speak to it.

use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::ServiceExt as _;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, BufReader};

use crate::support::{Client, TempDir, kill, stop_server, within};

pub(crate) const TOKEN: &str = "e2e-token-0123456789";

/// The built binary serving HTTP on a free loopback port.
pub(crate) struct HttpServerProcess {
    child: tokio::process::Child,
    pid: i32,
    pub(crate) url: String,
    pub(crate) dir: TempDir,
    /// Every line the server logged after its listening line.
    log: Arc<Mutex<Vec<String>>>,
    /// Reads the log until the server's stderr closes.
    log_reader: Option<tokio::task::JoinHandle<()>>,
}

impl HttpServerProcess {
    /// Starts `dsh-mcp --listen 127.0.0.1:0` with a token file and a temp workspace, plus
    /// `args`, and waits for the address it prints.
    pub(crate) async fn start(args: &[&str]) -> Self {
        let dir = TempDir::new("http");
        let workspace = dir.0.join("ws");
        std::fs::create_dir_all(&workspace).expect("workspace");
        let token_file = dir.0.join("token");
        std::fs::write(&token_file, format!("{TOKEN}\n")).expect("token file");
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_dsh-mcp"))
            .args(["--listen", "127.0.0.1:0", "--timeout-ms", "10000"])
            .arg("--token-file")
            .arg(&token_file)
            .arg("--cwd")
            .arg(&workspace)
            .args(args)
            .env_remove("DSH_MCP_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn dsh-mcp --listen");
        let pid = i32::try_from(child.id().expect("pid")).expect("pid fits");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let url = within("the listening line", async {
            loop {
                let line = lines
                    .next_line()
                    .await
                    .expect("read stderr")
                    .expect("dsh-mcp exited before listening");
                eprintln!("{line}");
                if let Some(url) = line.strip_prefix("dsh-mcp: listening on ") {
                    return url.trim().to_owned();
                }
            }
        })
        .await;
        // Keep draining stderr so the server never blocks on a full pipe.
        let log = Arc::new(Mutex::new(Vec::new()));
        let kept = log.clone();
        let log_reader = tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("{line}");
                kept.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(line);
            }
        });
        Self {
            child,
            pid,
            url,
            dir,
            log,
            log_reader: Some(log_reader),
        }
    }

    /// An rmcp client over Streamable HTTP with the token.
    pub(crate) async fn connect(&self) -> Client {
        self.connect_with(()).await
    }

    /// [`Self::connect`] with `handler` as the client.
    pub(crate) async fn connect_with<H: rmcp::ClientHandler>(
        &self,
        handler: H,
    ) -> rmcp::service::RunningService<rmcp::service::RoleClient, H> {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(self.url.as_str()).auth_header(TOKEN),
        );
        within("MCP initialize over HTTP", handler.serve(transport))
            .await
            .expect("MCP initialize over HTTP")
    }

    /// `/healthz` next to `/mcp`.
    /// SIGTERM, and the server exits 0 (having closed its sessions).
    pub(crate) async fn terminate(&mut self) {
        kill(self.pid, libc::SIGTERM);
        self.wait_exit().await;
    }

    /// Waits for the server to exit, and asserts it exited 0.
    pub(crate) async fn wait_exit(&mut self) {
        let status = within("dsh-mcp exit", self.child.wait())
            .await
            .expect("wait");
        assert_eq!(status.code(), Some(0), "{status:?}");
    }

    /// The lines the server logged at ERROR level, read to the end of its log: call it once the
    /// server exited.
    pub(crate) async fn logged_errors(&mut self) -> Vec<String> {
        if let Some(reader) = self.log_reader.take() {
            within("the end of the server's log", reader)
                .await
                .expect("the log reader");
        }
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|line| line.contains(" ERROR "))
            .cloned()
            .collect()
    }

    /// The server's pid.
    pub(crate) fn pid(&self) -> i32 {
        self.pid
    }

    pub(crate) fn health_url(&self) -> String {
        self.url.replace("/mcp", "/healthz")
    }
}

impl Drop for HttpServerProcess {
    fn drop(&mut self) {
        stop_server(&mut self.child, self.pid);
    }
}

/// A raw JSON-RPC POST to `url` with `headers`; returns the status, the session id header and
/// the body.
pub(crate) async fn post(
    url: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> (u16, Option<String>, String) {
    post_raw(url, headers, body.to_string()).await
}

/// [`post`] with any body text.
pub(crate) async fn post_raw(
    url: &str,
    headers: &[(&str, &str)],
    body: String,
) -> (u16, Option<String>, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = within("raw POST", request.send()).await.expect("POST");
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let text = within("raw POST body", response.text())
        .await
        .expect("body");
    (status, session, text)
}

pub(crate) fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
}

pub(crate) fn bearer() -> String {
    format!("Bearer {TOKEN}")
}

/// The `error` of a JSON error answer.
pub(crate) fn json_error(body: &str) -> String {
    let value: Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body:?}"));
    value["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error text: {body}"))
        .to_owned()
}

/// The JSON-RPC message with `id` in an answer body: a JSON answer, or the `data:` lines of an
/// event stream.
pub(crate) fn message_with_id(body: &str, id: &Value) -> Value {
    let messages: Vec<Value> = if body.trim_start().starts_with('{') {
        vec![serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body:?}"))]
    } else {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    };
    messages
        .into_iter()
        .find(|m| &m["id"] == id)
        .unwrap_or_else(|| panic!("no message with id {id} in {body:?}"))
}

/// The text of a tool result.
pub(crate) fn result_text(message: &Value) -> &str {
    message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

/// An MCP session driven with raw requests (so its `Mcp-Session-Id` is known).
pub(crate) struct RawSession {
    url: String,
    auth: String,
    id: String,
}

impl RawSession {
    /// `initialize`, then `notifications/initialized`.
    pub(crate) async fn open(url: &str) -> Self {
        let auth = bearer();
        let (status, id, body) = post(url, &[("authorization", &auth)], &initialize()).await;
        assert_eq!(status, 200, "{body}");
        let session = Self {
            url: url.to_owned(),
            auth,
            id: id.expect("Mcp-Session-Id on initialize"),
        };
        let (status, body) = session
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string())
            .await;
        assert_eq!(status, 202, "{body}");
        session
    }

    /// [`RawSession::open`], then `terminal_open` of a shell (`pty-1`, request id 2).
    pub(crate) async fn open_with_shell(url: &str) -> Self {
        let raw = Self::open(url).await;
        let open = raw
            .call(2, "terminal_open", &json!({"type": "shell"}))
            .await;
        assert_eq!(open["result"]["isError"], false, "{open}");
        raw
    }

    /// POSTs `body` in this session; returns the status and the body.
    pub(crate) async fn post(&self, body: String) -> (u16, String) {
        let (status, _, body) = post_raw(
            &self.url,
            &[("authorization", &self.auth), ("mcp-session-id", &self.id)],
            body,
        )
        .await;
        (status, body)
    }

    /// `tools/call name arguments` with request id `id`; returns the answer, asserting 200.
    /// Pages session `pty-1` with `terminal_read` (request ids after `id`) until a page holds
    /// `line`.
    pub(crate) async fn page_until(&self, id: &mut u64, line: &str) {
        loop {
            *id += 1;
            let page = self
                .call(*id, "terminal_read", &json!({"sessionId": "pty-1"}))
                .await;
            if result_text(&page).lines().any(|l| l == line) {
                return;
            }
            tokio::task::yield_now().await;
        }
    }

    pub(crate) async fn call(&self, id: u64, name: &str, arguments: &Value) -> Value {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}});
        let (status, body) = self.post(request.to_string()).await;
        assert_eq!(status, 200, "{name}: {body}");
        message_with_id(&body, &json!(id))
    }

    /// DELETEs this session; returns the status.
    pub(crate) async fn delete(&self) -> u16 {
        let request = reqwest::Client::new()
            .delete(&self.url)
            .header("authorization", &self.auth)
            .header("mcp-session-id", &self.id);
        within("DELETE", request.send())
            .await
            .expect("DELETE")
            .status()
            .as_u16()
    }

    /// Writes `tools/call name arguments` (request id `id`) on a connection of its own and
    /// returns that connection without reading the answer: dropping it disconnects the
    /// client while the call runs.
    pub(crate) async fn call_on_socket(
        &self,
        id: u64,
        name: &str,
        arguments: &Value,
    ) -> tokio::net::TcpStream {
        use tokio::io::AsyncWriteExt as _;
        let url = reqwest::Url::parse(&self.url).expect("url");
        let address = format!(
            "{}:{}",
            url.host_str().expect("host"),
            url.port().expect("port")
        );
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}})
        .to_string();
        let request = format!(
            "POST {} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nAuthorization: {}\r\n\
             Mcp-Session-Id: {}\r\nContent-Length: {}\r\n\r\n{body}",
            url.path(),
            self.auth,
            self.id,
            body.len()
        );
        let mut socket = within("connect", tokio::net::TcpStream::connect(&address))
            .await
            .expect("connect");
        within("write", socket.write_all(request.as_bytes()))
            .await
            .expect("write");
        socket
    }

    /// The host pid of terminal `terminal`'s shell.
    pub(crate) async fn shell_pid(&self, id: u64, terminal: &str) -> i32 {
        let list = self.call(id, "terminal_list", &json!({})).await;
        result_text(&list)
            .lines()
            .find(|l| l.starts_with(&format!("{terminal} ")))
            .and_then(|l| l.split_whitespace().find_map(|w| w.strip_prefix("pid=")))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no `pid=` for {terminal}: {list}"))
    }
}
