//! What `dsh-mcp --listen` refuses before a request reaches MCP: `Host` values off the
//! allowlist (403) or malformed (400), a repeated `Authorization`, `Mcp-Session-Id`,
//! `MCP-Protocol-Version`, `Last-Event-ID` or `Origin` header (400: each was read once, its first
//! value taken), and request bodies declared far over the limit (413
//! from the header alone) or sent whole over it (a 413 the client reads, not a broken pipe). Each request is written on a
//! connection of its own, so the bytes on the wire are exactly the test's.

use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::http_server::{HttpServerProcess, bearer, initialize, json_error};
use crate::support::within;

/// A raw HTTP/1.1 exchange.
struct Exchange {
    status: u16,
    /// The header lines, lowercased.
    headers: Vec<String>,
    body: String,
}

/// `host:port` of a server URL.
fn address(url: &str) -> String {
    let url = reqwest::Url::parse(url).expect("url");
    format!(
        "{}:{}",
        url.host_str().expect("host"),
        url.port().expect("port")
    )
}

/// Writes `head` (the request line and headers, CRLF-separated, without the blank line that
/// ends them) and `body` on a new connection to `url`'s server, then reads the answer until
/// the server closes the connection (`Connection: close` is added).
async fn exchange(url: &str, head: &str, body: &[u8]) -> Exchange {
    let mut socket = within("connect", tokio::net::TcpStream::connect(address(url)))
        .await
        .expect("connect");
    let mut request = format!("{head}\r\nConnection: close\r\n\r\n").into_bytes();
    request.extend_from_slice(body);
    within("write the request", socket.write_all(&request))
        .await
        .expect("write");
    let mut answer = Vec::new();
    within("read the answer", socket.read_to_end(&mut answer))
        .await
        .expect("read");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no complete answer: {answer:?}"));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {answer:?}"));
    Exchange {
        status,
        headers: lines.map(str::to_ascii_lowercase).collect(),
        body: body.to_owned(),
    }
}

/// The head of an authenticated JSON POST to `/mcp` with `host_lines` (each a whole header
/// line, or none) and `Content-Length: length`.
fn post_head(host_lines: &[&str], length: usize) -> String {
    let mut head = String::from("POST /mcp HTTP/1.1");
    for line in host_lines {
        head.push_str("\r\n");
        head.push_str(line);
    }
    head.push_str(&format!(
        "\r\nAuthorization: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {length}",
        bearer()
    ));
    head
}

/// An `initialize` POST with `host_lines`; returns the answer.
async fn initialize_with(url: &str, host_lines: &[&str]) -> Exchange {
    let body = initialize().to_string();
    exchange(url, &post_head(host_lines, body.len()), body.as_bytes()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_hosts_add_to_the_loopback_names() {
    let mut server = HttpServerProcess::start(&["--allowed-host", "app.example.com"]).await;
    let url = server.url.clone();
    let own = format!("Host: {}", address(&url));

    for host in [
        own.as_str(),
        "Host: localhost",
        "Host: [::1]:1234",
        "Host: app.example.com",
    ] {
        let answer = initialize_with(&url, &[host]).await;
        assert_eq!(answer.status, 200, "{host}: {}", answer.body);
    }
    let answer = initialize_with(&url, &["Host: evil.example"]).await;
    assert_eq!(answer.status, 403, "{}", answer.body);
    let error = json_error(&answer.body);
    assert!(error.contains("evil.example"), "{error}");
    assert!(error.contains("--allowed-host"), "{error}");
    assert!(!error.contains("Origin"), "{error}");

    server.terminate().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_repeated_or_malformed_host_or_a_repeated_token_gets_400() {
    let mut server = HttpServerProcess::start(&[]).await;
    let url = server.url.clone();
    let own = format!("Host: {}", address(&url));

    for (hosts, says) in [
        (vec![], "no Host header"),
        (
            vec![own.as_str(), own.as_str()],
            "more than one Host header",
        ),
        (
            vec![own.as_str(), "Host: evil.example"],
            "more than one Host header",
        ),
        (vec!["Host: localhost:abc"], "localhost:abc"),
        (vec!["Host: localhost:99999"], "localhost:99999"),
        (vec!["Host: user@localhost"], "user@localhost"),
        // A second token after the right one is not passed over.
        (
            vec![own.as_str(), "Authorization: Bearer wrong"],
            "repeated Authorization header",
        ),
    ] {
        let answer = initialize_with(&url, &hosts).await;
        assert_eq!(answer.status, 400, "{hosts:?}: {}", answer.body);
        assert!(
            answer
                .headers
                .iter()
                .any(|h| h == "content-type: application/json"),
            "{:?}",
            answer.headers
        );
        let error = json_error(&answer.body);
        assert!(error.contains(says), "{hosts:?}: {error}");
        // Says what to do about the Host header, not about MCP sessions.
        assert!(error.contains("send"), "{hosts:?}: {error}");
        assert!(!error.contains("initialize"), "{hosts:?}: {error}");
    }

    server.terminate().await;
}

/// A header the server reads once given twice gets 400 before anything acts on it, even with
/// equal values: a POST or GET naming a session twice is served in neither, and a DELETE
/// naming it twice ends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_session_version_event_or_origin_header_gets_400() {
    let mut server = HttpServerProcess::start(&[]).await;
    let url = server.url.clone();
    let own = format!("Host: {}", address(&url));
    let answer = initialize_with(&url, &[own.as_str()]).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let session = answer
        .headers
        .iter()
        .find_map(|h| h.strip_prefix("mcp-session-id:"))
        .unwrap_or_else(|| panic!("no Mcp-Session-Id: {:?}", answer.headers))
        .trim()
        .to_owned();
    let id = format!("Mcp-Session-Id: {session}");
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let post = |lines: &[&str]| {
        let mut head = vec![own.as_str()];
        head.extend_from_slice(lines);
        post_head(&head, list.len())
    };
    for (lines, says) in [
        (vec![id.as_str(), id.as_str()], "Mcp-Session-Id"),
        (vec![id.as_str(), "Mcp-Session-Id: other"], "Mcp-Session-Id"),
        (
            vec![
                id.as_str(),
                "MCP-Protocol-Version: 2025-06-18",
                "MCP-Protocol-Version: 2024-11-05",
            ],
            "MCP-Protocol-Version",
        ),
        (
            vec![
                id.as_str(),
                "Origin: http://localhost",
                "Origin: http://evil.example",
            ],
            "Origin",
        ),
    ] {
        let answer = exchange(&url, &post(&lines), list.as_bytes()).await;
        assert_eq!(answer.status, 400, "{lines:?}: {}", answer.body);
        let error = json_error(&answer.body);
        assert!(
            error.starts_with(&format!("repeated {says} header: send exactly one")),
            "{lines:?}: {error}"
        );
    }
    let auth = format!("Authorization: {}", bearer());
    let get = format!(
        "GET /mcp HTTP/1.1\r\n{own}\r\n{auth}\r\nAccept: text/event-stream\r\n{id}\r\n\
         Last-Event-ID: 1\r\nLast-Event-ID: 2"
    );
    let answer = exchange(&url, &get, b"").await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(
        json_error(&answer.body).starts_with("repeated Last-Event-ID header"),
        "{}",
        answer.body
    );
    let delete = format!("DELETE /mcp HTTP/1.1\r\n{own}\r\n{auth}\r\n{id}\r\n{id}");
    let answer = exchange(&url, &delete, b"").await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(
        json_error(&answer.body).starts_with("repeated Mcp-Session-Id header"),
        "{}",
        answer.body
    );
    // The session was neither served nor ended: named once, it answers.
    let answer = exchange(&url, &post(&[id.as_str()]), list.as_bytes()).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(answer.body.contains("terminal_open"), "{}", answer.body);

    server.terminate().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_declared_over_the_limit_gets_413_from_the_header() {
    let mut server = HttpServerProcess::start(&["--max-message-bytes", "4096"]).await;
    let url = server.url.clone();
    let own = format!("Host: {}", address(&url));

    // Only the head is sent: the answer cannot wait for the body.
    let answer = exchange(&url, &post_head(&[&own], 99_999_999_999), b"").await;
    assert_eq!(answer.status, 413, "{}", answer.body);
    assert!(
        answer.headers.iter().any(|h| h == "connection: close"),
        "{:?}",
        answer.headers
    );
    let error = json_error(&answer.body);
    assert!(error.contains("99999999999"), "{error}");
    assert!(error.contains("--max-message-bytes"), "{error}");

    server.terminate().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_sent_over_the_limit_gets_a_413_the_client_reads() {
    let mut server = HttpServerProcess::start(&["--max-message-bytes", "4096"]).await;
    let url = server.url.clone();
    let mut big = initialize();
    big["params"]["clientInfo"]["name"] = Value::String("x".repeat(4 * 1024 * 1024));
    let response = within(
        "an oversized POST",
        reqwest::Client::new()
            .post(&url)
            .header("authorization", bearer())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(big.to_string())
            .send(),
    )
    .await
    .expect("the 413, not a broken connection");
    assert_eq!(response.status().as_u16(), 413);
    let body = within("the 413's body", response.text())
        .await
        .expect("body");
    assert!(json_error(&body).contains("--max-message-bytes"), "{body}");

    server.terminate().await;
}

/// While shutdown closes the sessions (here at least the dispose grace, for a process that
/// ignores SIGTERM and SIGHUP), `/healthz` answers 503 `shutting_down` and `/mcp` 503: a
/// load balancer's probe learns the server is going. The listener was closed at once, and
/// every probe met a refused connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_says_shutting_down_while_sessions_close() {
    let mut server = HttpServerProcess::start(&[
        "--dispose-grace-ms",
        "3000",
        "--sandbox",
        "danger-full-access",
    ])
    .await;
    let raw = crate::http_server::RawSession::open_with_shell(&server.url).await;
    let sent = raw
        .call(
            3,
            "terminal_send",
            &serde_json::json!({"sessionId": "pty-1", "text": "trap '' TERM HUP; sleep 60 &"}),
        )
        .await;
    assert!(sent.to_string().contains("dsh>"), "{sent}");
    let health = server.url.replace("/mcp", "/healthz");
    crate::support::kill(server.pid(), libc::SIGTERM);
    // Probes until the first answer after the signal that is not 200: a 503, not a refused
    // connection (the server takes the dispose grace to close the session meanwhile).
    let answer = within("a 503 from /healthz", async {
        loop {
            match reqwest::get(&health).await {
                Ok(r) if r.status().as_u16() == 200 => tokio::task::yield_now().await,
                Ok(r) => return Ok((r.status().as_u16(), r.text().await.unwrap_or_default())),
                Err(e) => return Err(format!("{e:?}")),
            }
        }
    })
    .await;
    assert_eq!(
        answer,
        Ok((503, r#"{"status":"shutting_down"}"#.to_owned())),
        "{answer:?}"
    );
    server.wait_exit().await;
}
