//! The built binary over stdio: the full shell scenario, disconnect and SIGTERM teardown, and
//! a raw JSON-RPC exchange proving stdout carries nothing but the protocol.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::support::{
    ProcessWatch, ServerProcess, call, kill, ok, send, shell_pid, start_background_sleep, within,
};

/// Assert bound for sends that should settle at once; generous so a loaded machine passes.
const QUICK: Duration = Duration::from_secs(4);
/// The idle window the scenario's server runs with.
const IDLE_MS: u64 = 5_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shell_scenario_end_to_end() {
    let idle = IDLE_MS.to_string();
    let (mut server, client) =
        ServerProcess::start(&["--idle-silence-ms", &idle, "--timeout-ms", "10000"]).await;

    let tools = within("tools/list", client.list_all_tools())
        .await
        .expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "job_kill",
            "job_list",
            "job_output",
            "terminal_close",
            "terminal_list",
            "terminal_open",
            "terminal_read",
            "terminal_send",
            "terminal_signal"
        ]
    );
    let info = client.peer_info().expect("server info");
    let implementation = info.server_info.as_ref().expect("serverInfo");
    assert_eq!(implementation.name, "dsh-mcp");
    assert_eq!(implementation.version, env!("CARGO_PKG_VERSION"));
    assert!(info.instructions.as_deref().is_some_and(|i| !i.is_empty()));

    let open = ok(&client, "terminal_open", json!({"type": "shell"})).await;
    assert!(
        open.text
            .starts_with("started terminal session pty-1 [type: shell]"),
        "{:?}",
        open.text
    );

    // A builtin settles on the prompt mark, with its exit status, at once.
    let r = send(&client, "pty-1", "echo hello").await;
    assert!(r.has_line("hello"), "{:?}", r.text);
    assert!(r.text.contains("[wait: stdin_read]"), "{:?}", r.text);
    assert!(r.text.contains("[exit: 0]"), "{:?}", r.text);
    assert!(r.elapsed < QUICK, "echo hello took {:?}", r.elapsed);

    // State persists across sends.
    send(&client, "pty-1", "cd /tmp && export FOO=bar").await;
    let r = send(&client, "pty-1", "pwd; echo $FOO").await;
    assert!(r.has_line("/tmp") && r.has_line("bar"), "{:?}", r.text);

    // A program reading the terminal settles as stdin_read, well before the idle window.
    let r = send(&client, "pty-1", "read -p 'Name: ' x").await;
    assert!(r.text.contains("Name:"), "{:?}", r.text);
    assert!(r.text.contains("[wait: stdin_read]"), "{:?}", r.text);
    assert!(
        r.elapsed < Duration::from_millis(IDLE_MS),
        "read -p took {:?}, the idle window is {IDLE_MS} ms",
        r.elapsed
    );
    send(&client, "pty-1", "alice").await;
    let r = send(&client, "pty-1", "echo hi-$x").await;
    assert!(r.has_line("hi-alice"), "{:?}", r.text);

    // A REPL: the result names the foreground program; exit() returns to the shell.
    let r = send(&client, "pty-1", "python3 -q").await;
    assert!(r.text.contains("[wait: stdin_read]"), "{:?}", r.text);
    let r = send(&client, "pty-1", "1+1").await;
    assert!(r.has_line("2"), "{:?}", r.text);
    assert!(r.text.contains("[foreground: python3]"), "{:?}", r.text);
    send(&client, "pty-1", "exit()").await;
    let r = send(&client, "pty-1", "echo back-in-shell").await;
    assert!(r.has_line("back-in-shell"), "{:?}", r.text);
    assert!(!r.text.contains("[foreground:"), "{:?}", r.text);

    // Screen-true output: carriage-return redraws collapse to the final state.
    let r = send(
        &client,
        "pty-1",
        "for i in 1 2 3; do printf '\\rprogress %d' $i; sleep 0.2; done; echo",
    )
    .await;
    assert!(r.text.contains("progress 3"), "{:?}", r.text);
    assert!(!r.text.contains("progress 1"), "{:?}", r.text);

    // No escape sequence ever reaches the model.
    let r = send(&client, "pty-1", "ls --color=always /").await;
    assert!(r.has_line("tmp") || r.text.contains("tmp"), "{:?}", r.text);
    assert!(!r.text.contains('\x1b'), "{:?}", r.text);

    // A silent job the kernel reports idle (blocked indefinitely, like a server) settles by
    // the idle window; SIGINT stops it. (A sleeping or computing job would keep the send
    // waiting up to its timeout.)
    let r = send(
        &client,
        "pty-1",
        "python3 -c 'import signal; signal.pause()'",
    )
    .await;
    assert!(r.text.contains("[wait: inferred_idle]"), "{:?}", r.text);
    let r = ok(
        &client,
        "terminal_signal",
        json!({"sessionId": "pty-1", "signal": "SIGINT"}),
    )
    .await;
    assert!(r.text.starts_with("delivered SIGINT"), "{:?}", r.text);
    // Sent at once, as a model would: the interrupted command's own prompt must not settle it.
    let r = send(&client, "pty-1", "echo ok").await;
    assert!(r.has_line("ok"), "{:?}", r.text);

    let r = send(&client, "pty-1", "false").await;
    assert!(r.text.contains("[exit: 1]"), "{:?}", r.text);

    // Close stops the whole tree, background jobs included.
    let (shell, bg) = start_background_sleep(&client, "pty-1").await;
    let watches = [ProcessWatch::new(shell), ProcessWatch::new(bg)];
    assert!(watches.iter().all(ProcessWatch::is_running));
    let r = ok(&client, "terminal_close", json!({"sessionId": "pty-1"})).await;
    assert!(
        r.text.starts_with("closed terminal session pty-1"),
        "{:?}",
        r.text
    );
    // The report counts the processes it stopped: at least the shell and the sleep.
    let stopped: usize = r
        .text
        .split("[stopped ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no `[stopped N processes]` in {:?}", r.text));
    assert!(stopped >= 2, "{:?}", r.text);
    watches[0].assert_exits("pty-1 shell").await;
    watches[1].assert_exits("pty-1 `sleep 1000 &`").await;
    let r = ok(&client, "terminal_list", json!({})).await;
    assert_eq!(r.text, "(no terminal sessions)");

    // Disconnecting the client closes every session and the server exits by itself.
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let (shell, bg) = start_background_sleep(&client, "pty-2").await;
    let watches = [ProcessWatch::new(shell), ProcessWatch::new(bg)];
    server.disconnect(client).await;
    watches[0].assert_exits("pty-2 shell").await;
    watches[1].assert_exits("pty-2 `sleep 1000 &`").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_closes_sessions_and_exits() {
    let (mut server, client) = ServerProcess::start(&[]).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let (shell, bg) = start_background_sleep(&client, "pty-1").await;
    let watches = [ProcessWatch::new(shell), ProcessWatch::new(bg)];
    assert!(watches.iter().all(ProcessWatch::is_running));

    kill(server.pid(), libc::SIGTERM);
    let status = server.wait_exit().await;
    assert!(status.success(), "dsh-mcp exited with {status}");
    watches[0].assert_exits("shell").await;
    watches[1].assert_exits("`sleep 1000 &`").await;
    within("client close", client.cancel())
        .await
        .expect("client task");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_during_a_running_send_exits_promptly() {
    let (mut server, client) = ServerProcess::start(&[]).await;
    ok(&client, "terminal_open", json!({"type": "shell"})).await;
    let shell = ProcessWatch::new(shell_pid(&client, "pty-1").await);
    // A send that would take the full 30 s default deadline is in flight when SIGINT arrives.
    let params = rmcp::model::CallToolRequestParams::new("terminal_send").with_arguments(
        json!({"sessionId": "pty-1", "text": "sleep 1000"})
            .as_object()
            .cloned()
            .expect("object"),
    );
    let peer = client.peer().clone();
    let in_flight = tokio::spawn(async move { peer.call_tool(params).await });
    // The send is running once the session reports its foreground job; wait for that.
    let sleep_started = within("sleep to start", async {
        loop {
            let r = call(
                &client,
                "terminal_read",
                json!({"sessionId": "pty-1", "count": 5}),
            )
            .await;
            if r.text.contains("sleep 1000") {
                break;
            }
            tokio::task::yield_now().await;
        }
    });
    sleep_started.await;
    kill(server.pid(), libc::SIGINT);
    let status = server.wait_exit().await;
    assert!(status.success(), "dsh-mcp exited with {status}");
    shell.assert_exits("shell").await;
    // The in-flight call ends (with a result or a closed connection), never hangs.
    let _ = within("in-flight call", in_flight).await;
    within("client close", client.cancel())
        .await
        .expect("client task");
}

/// The built server spoken to as raw newline-delimited JSON-RPC, with its stderr (logs at
/// `rust_log`) collected until it exits.
struct RawServer {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    logs: tokio::task::JoinHandle<std::io::Result<String>>,
}

impl RawServer {
    fn spawn(rust_log: &str) -> Self {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_dsh-mcp"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("RUST_LOG", rust_log)
            .kill_on_drop(true)
            .spawn()
            .expect("spawn dsh-mcp");
        let mut stderr = child.stderr.take().expect("stderr");
        let logs = tokio::spawn(async move {
            let mut text = String::new();
            tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut text)
                .await
                .map(|_| text)
        });
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Self {
            child,
            stdin,
            lines,
            logs,
        }
    }
}

/// Raw newline-delimited JSON-RPC with a 2025-06-18 client: every stdout line is a JSON-RPC
/// message, `initialize` names the server and carries the instructions, and a tool whose
/// output is not an object (terminal_list) answers with its text only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdout_carries_only_json_rpc() {
    // Debug logs are on, and must all go to stderr.
    let RawServer {
        mut child,
        mut stdin,
        mut lines,
        logs,
    } = RawServer::spawn("debug");
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "terminal_list", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "no_such_tool"}}),
    ];
    for request in &requests {
        stdin
            .write_all(format!("{request}\n").as_bytes())
            .await
            .expect("write request");
    }
    stdin.flush().await.expect("flush");
    let mut responses = std::collections::BTreeMap::new();
    while responses.len() < 4 {
        let line = within("a response line", lines.next_line())
            .await
            .expect("read stdout")
            .expect("stdout closed before every response arrived");
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        if let Some(id) = message.get("id").and_then(Value::as_u64) {
            responses.insert(id, message);
        }
    }
    let init = &responses[&1]["result"];
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert_eq!(init["serverInfo"]["name"], "dsh-mcp");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    assert!(init["instructions"].as_str().is_some_and(|s| !s.is_empty()));
    let mut list_schema = None;
    for tool in responses[&2]["result"]["tools"].as_array().expect("tools") {
        if let Some(schema) = tool.get("outputSchema") {
            assert_eq!(schema["type"], "object", "{tool}");
            if tool["name"] == "terminal_list" {
                list_schema = Some(schema.clone());
            }
        }
    }
    let list = &responses[&3]["result"];
    assert_eq!(
        list["content"],
        json!([{"type": "text", "text": "(no terminal sessions)"}])
    );
    assert_eq!(list.get("isError"), Some(&json!(false)));
    match list_schema {
        // Advertised: the structured value is an object.
        Some(_) => assert!(list["structuredContent"].is_object(), "{list}"),
        // Not advertised (an array root): text only.
        None => assert!(list.get("structuredContent").is_none(), "{list}"),
    }
    let unknown = &responses[&4]["result"];
    assert_eq!(unknown["isError"], true, "{}", responses[&4]);
    assert!(
        unknown["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Error: ") && t.contains("no_such_tool")),
        "{unknown}"
    );

    drop(stdin);
    let status = within("dsh-mcp exit", child.wait()).await.expect("wait");
    assert!(status.success(), "dsh-mcp exited with {status}");
    // Nothing after the last response either.
    assert_eq!(
        within("stdout EOF", lines.next_line()).await.expect("read"),
        None
    );
    let logs = within("stderr EOF", logs)
        .await
        .expect("stderr task")
        .expect("read stderr");
    assert!(logs.contains("connection opened"), "{logs}");
}

/// End of input while a send runs: the connection's calls are cancelled at once (the
/// client reads no answer), so the server does not wait out rmcp's drain of in-flight
/// responses before closing the session and exiting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn end_of_input_during_a_running_send_cancels_it_instead_of_waiting() {
    let RawServer {
        mut child,
        mut stdin,
        mut lines,
        logs,
    } = RawServer::spawn("info");
    let line_of = |request: Value| format!("{request}\n");
    for request in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "terminal_open", "arguments": {"type": "shell"}}}),
    ] {
        stdin
            .write_all(line_of(request).as_bytes())
            .await
            .expect("write");
    }
    stdin.flush().await.expect("flush");
    // The open's answer, then a send that runs until cancelled.
    within("the open's answer", async {
        loop {
            let line = lines.next_line().await.expect("read").expect("open answer");
            if serde_json::from_str::<Value>(&line).is_ok_and(|m| m["id"] == 2) {
                break;
            }
        }
    })
    .await;
    let line = line_of(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "terminal_send",
            "arguments": {"sessionId": "pty-1", "text": "echo started; sleep 1000"}}}));
    stdin.write_all(line.as_bytes()).await.expect("write");
    stdin.flush().await.expect("flush");
    // Wait until the command runs: page the scrollback until its first line shows.
    within("the command to start", async {
        let mut id = 10;
        loop {
            id += 1;
            let line = line_of(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "terminal_read", "arguments": {"sessionId": "pty-1"}}}));
            stdin.write_all(line.as_bytes()).await.expect("write");
            stdin.flush().await.expect("flush");
            let answered = loop {
                let line = lines.next_line().await.expect("read").expect("answer");
                let message: Value = serde_json::from_str(&line).expect("json");
                if message["id"] == id {
                    break message;
                }
            };
            if answered.to_string().contains("\\nstarted") {
                break;
            }
        }
    })
    .await;
    drop(stdin);
    let status = within("dsh-mcp exit", child.wait()).await.expect("wait");
    assert!(status.success(), "dsh-mcp exited with {status}");
    let logs = within("stderr EOF", logs)
        .await
        .expect("stderr task")
        .expect("read stderr");
    assert!(logs.contains("cause=ClientClosed"), "{logs}");
    assert!(
        !logs.contains("timed out draining"),
        "the running send was waited for: {logs}"
    );
}
