//! A raw JSON-RPC client of the built binary over stdio: it writes lines as given (several
//! requests before any answer, too) and files every answer by id.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::support::{server_command, within};

pub(crate) fn call(id: u64, name: &str, arguments: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
    .to_string()
}

pub(crate) fn text_of(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

/// A raw JSON-RPC client: writes lines, files every answer by id.
pub(crate) struct Raw {
    pub(crate) stdin: tokio::process::ChildStdin,
    pub(crate) lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    pub(crate) by_id: BTreeMap<String, Value>,
    pub(crate) null_ids: Vec<Value>,
}

impl Raw {
    /// Starts the server with `args` and a raw client on its stdio.
    pub(crate) fn spawn(args: &[&str]) -> (tokio::process::Child, Self) {
        let mut child = server_command(args).spawn().expect("spawn dsh-mcp");
        let raw = Self {
            stdin: child.stdin.take().expect("stdin"),
            lines: BufReader::new(child.stdout.take().expect("stdout")).lines(),
            by_id: BTreeMap::new(),
            null_ids: Vec::new(),
        };
        (child, raw)
    }

    /// `initialize` (id 1), then `notifications/initialized`.
    pub(crate) async fn initialize(&mut self) {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}});
        self.exchange(init.to_string(), "1").await;
        self.write(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
    }

    pub(crate) async fn write(&mut self, line: &str) {
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write");
        self.stdin.flush().await.expect("flush");
    }

    /// The next message the server writes, waited for as `what`.
    pub(crate) async fn next_message(&mut self, what: &str) -> Value {
        let out = within(what, self.lines.next_line())
            .await
            .expect("read stdout")
            .expect("stdout closed early");
        let message: Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {out:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "{out}");
        message
    }

    /// Sends `line` and reads answers until the one with `id` (as JSON text) arrived.
    pub(crate) async fn exchange(&mut self, line: String, id: &str) -> Value {
        self.write(&line).await;
        self.answer(id).await
    }

    /// Reads answers until the one with `id` (as JSON text) arrived.
    pub(crate) async fn answer(&mut self, id: &str) -> Value {
        while !self.by_id.contains_key(id) {
            let message = self.next_message("a response line").await;
            match &message["id"] {
                Value::Null => self.null_ids.push(message),
                other => {
                    self.by_id.insert(other.to_string(), message);
                }
            }
        }
        self.by_id[id].clone()
    }
}
