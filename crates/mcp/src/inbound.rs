//! What to do with one incoming JSON-RPC message (a line of newline-delimited JSON-RPC over
//! stdio, or the body of an HTTP POST): forward it to rmcp, answer it ourselves, or ignore it (a
//! notification rmcp would drop).
//!
//! Rules (every request gets an answer; see the crate README, "Protocol"):
//! - lone UTF-16 surrogate escapes (`"\udc80"`, which some JSON encoders emit for unpaired
//!   surrogates) become U+FFFD before parsing, so the message is served; one in the `id`
//!   gets `-32600` with a `null` id (echoed back changed, it would answer no request);
//! - a line or body that is not JSON (or is cut short; an empty body too) gets JSON-RPC
//!   `-32700` (parse error);
//! - a line over the size limit gets `-32600` (invalid request) naming the limit;
//! - a message that is not an object, or whose `method` is not a string, gets `-32600`;
//! - `tools/call` whose `params` is not an object or whose `params.name` is not a string gets
//!   `-32602` (invalid params) naming the field; one whose `arguments` is neither an object nor
//!   `null` gets a tool error result `invalid arguments: expected an object, got …`;
//! - any other message rmcp cannot read gets `-32600` naming the method.
//!
//! Answers carry the request's `id` when it can be read (for a cut-short or over-long line,
//! from the top-level `"id"` member that precedes the damage), else `null`.

use std::borrow::Cow;

use dsh_tools::{ToolResult, codes};
use rmcp::model::ErrorCode;
use rmcp::service::{RoleServer, RxJsonRpcMessage};
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};

use crate::server::call_tool_result;

/// What the transport does with one line.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// A message rmcp serves.
    Forward(Box<RxJsonRpcMessage<RoleServer>>),
    /// A complete JSON-RPC response to write back ourselves.
    Answer(Value),
    /// Nothing to do (blank line, or a notification rmcp would ignore).
    Ignore,
}

/// How messages arrive, which decides what a blank one means and what answers call them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    /// One message per line (stdio): a blank line is skipped.
    Line,
    /// One message per HTTP request body: an empty body is a parse error.
    Body,
}

/// Classifies one line (without its newline).
pub(crate) fn classify(line: &[u8]) -> Inbound {
    classify_framed(line, Framing::Line)
}

/// Classifies one HTTP request body (a whole JSON-RPC message).
pub(crate) fn classify_body(body: &[u8]) -> Inbound {
    classify_framed(body, Framing::Body)
}

fn classify_framed(message: &[u8], framing: Framing) -> Inbound {
    let message = message.strip_suffix(b"\r").unwrap_or(message);
    let message = message.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(message);
    if framing == Framing::Line && message.iter().all(u8::is_ascii_whitespace) {
        return Inbound::Ignore;
    }
    let repaired = repair_lone_surrogates(message);
    // An id holding one: the answer's id would not be the one the client waits on.
    if matches!(repaired, Cow::Owned(_))
        && recover_id(&repair_lone_surrogates_with(message, b"\\ufffe")) != recover_id(&repaired)
    {
        return Inbound::Answer(error(
            Value::Null,
            ErrorCode::INVALID_REQUEST,
            "Invalid Request: `id` holds a lone UTF-16 surrogate escape, which no answer can carry back unchanged; send a string id of valid Unicode, or an integer".into(),
        ));
    }
    let value: Value = match serde_json::from_slice(&repaired) {
        Ok(value) => value,
        Err(e) => {
            let (what, unit) = match framing {
                Framing::Line => ("line", "line"),
                Framing::Body => ("request body", "request"),
            };
            return Inbound::Answer(error(
                recover_id(&repaired),
                ErrorCode::PARSE_ERROR,
                format!(
                    "Parse error: the {what} is not valid JSON ({e}); send one complete JSON-RPC message per {unit}"
                ),
            ));
        }
    };
    classify_value(value)
}

/// The answer to a line longer than `limit` bytes, of which `head` is the start.
pub(crate) fn oversized(head: &[u8], limit: usize) -> Value {
    error(
        recover_id(head),
        ErrorCode::INVALID_REQUEST,
        format!(
            "Invalid Request: the message is longer than the {limit}-byte line limit and was discarded; send less per request (e.g. write large input to a file first)"
        ),
    )
}

fn classify_value(value: Value) -> Inbound {
    let Value::Object(object) = value else {
        return Inbound::Answer(error(
            Value::Null,
            ErrorCode::INVALID_REQUEST,
            "Invalid Request: a message must be a JSON object (batches are not supported)".into(),
        ));
    };
    let id = match object.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(Value::Number(n)) if n.is_i64() => Some(Value::Number(n.clone())),
        // A fraction, or an integer beyond a signed 64-bit one (read as a float, or not taken
        // by the MCP layer): echoed back it would not be the id the client sent.
        Some(Value::Number(n)) => {
            return Inbound::Answer(error(
                Value::Null,
                ErrorCode::INVALID_REQUEST,
                format!(
                    "Invalid Request: `id` must be a string or a signed 64-bit integer, got {n}; send a whole number in that range, or a string id"
                ),
            ));
        }
        // A request whose id is null, an object, an array or a boolean would otherwise be read
        // as a notification and never answered.
        Some(other) => {
            return Inbound::Answer(error(
                Value::Null,
                ErrorCode::INVALID_REQUEST,
                format!(
                    "Invalid Request: `id` must be a string or an integer, got {}; omit `id` only for notifications",
                    json_kind(other)
                ),
            ));
        }
    };
    let method = match object.get("method") {
        None => None,
        Some(Value::String(method)) => Some(method.clone()),
        Some(_) => {
            return Inbound::Answer(error(
                id.unwrap_or(Value::Null),
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: `method` must be a string".into(),
            ));
        }
    };
    // JSON-RPC 2.0 messages say so; rmcp would only call such a request unrecognized.
    if method.is_some() && object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        let Some(id) = id else {
            return Inbound::Ignore;
        };
        let got = object.get("jsonrpc").map_or_else(
            || "no `jsonrpc` member".to_owned(),
            |v| format!("`jsonrpc` {v}"),
        );
        return Inbound::Answer(error(
            id,
            ErrorCode::INVALID_REQUEST,
            format!(
                "Invalid Request: this server speaks JSON-RPC 2.0, and the request has {got}; add \"jsonrpc\": \"2.0\" to every message"
            ),
        ));
    }
    if let (Some(id), Some("tools/call")) = (&id, method.as_deref())
        && let Some(answer) = check_tool_call(id, object.get("params"))
    {
        return Inbound::Answer(answer);
    }
    // A method of a capability this server does not offer: rmcp would answer with the
    // method's name alone.
    if let (Some(id), Some(method)) = (&id, method.as_deref())
        && NOT_OFFERED.contains(&method)
    {
        return Inbound::Answer(error(
            id.clone(),
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "Method not found: `{method}`: this server offers no resources, prompts or completions, only tools{TOOLS_HINT}"
            ),
        ));
    }
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(Value::Object(object)) {
        // A method MCP defines whose params rmcp could not read (it takes the request for an
        // unknown method then), or one MCP does not define: rmcp would answer with the
        // method's name alone.
        Ok(rmcp::model::JsonRpcMessage::Request(rmcp::model::JsonRpcRequest {
            request: rmcp::model::ClientRequest::CustomRequest(custom),
            ..
        })) => Inbound::Answer(match SERVED.iter().find(|(m, _)| *m == custom.method) {
            Some((method, expected)) => error(
                id.unwrap_or(Value::Null),
                ErrorCode::INVALID_PARAMS,
                format!(
                    "Invalid params: the `{method}` request's params do not match the MCP schema{expected}"
                ),
            ),
            None => error(
                id.unwrap_or(Value::Null),
                ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "Method not found: `{}` is not an MCP method this server handles{TOOLS_HINT}",
                    custom.method
                ),
            ),
        }),
        Ok(message) => Inbound::Forward(Box::new(message)),
        // A notification gets no answer, whatever is wrong with it.
        Err(_) if id.is_none() && method.is_some() => Inbound::Ignore,
        Err(e) => {
            let what = method.map_or_else(
                || "message".to_owned(),
                |method| format!("`{method}` request"),
            );
            Inbound::Answer(error(
                id.unwrap_or(Value::Null),
                ErrorCode::INVALID_REQUEST,
                format!("Invalid Request: the {what} does not match the MCP schema ({e})"),
            ))
        }
    }
}

/// What the answers to methods this server does not serve add: what it does serve.
const TOOLS_HINT: &str = "; its tools are listed by tools/list and run by tools/call";

/// MCP methods of the capabilities this server does not declare (resources, prompts,
/// completions).
const NOT_OFFERED: [&str; 8] = [
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
];

/// MCP methods this server serves besides `tools/call` (checked on its own), each with what
/// its params must hold, for the answer to a request whose params do not match.
const SERVED: [(&str, &str); 4] = [
    (
        "initialize",
        " (`protocolVersion`, `capabilities` and `clientInfo`)",
    ),
    ("ping", ""),
    ("tools/list", " (none, or a `cursor` string)"),
    (
        "logging/setLevel",
        " (`level`: one of debug, info, notice, warning, error, critical, alert, emergency)",
    ),
];

/// Checks the shape of a `tools/call` that rmcp would misread (as an unknown method) or drop.
fn check_tool_call(id: &Value, params: Option<&Value>) -> Option<Value> {
    let Some(Value::Object(params)) = params else {
        return Some(error(
            id.clone(),
            ErrorCode::INVALID_PARAMS,
            "Invalid params: tools/call needs `params`, an object with `name` (the tool's name) and `arguments` (an object)".into(),
        ));
    };
    if !params.get("name").is_some_and(Value::is_string) {
        return Some(error(
            id.clone(),
            ErrorCode::INVALID_PARAMS,
            "Invalid params: `params.name` must be a string (the tool's name, from tools/list)"
                .into(),
        ));
    }
    let kind = match params.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => return None,
        Some(other) => json_kind(other),
    };
    let result = call_tool_result(ToolResult::error(
        format!(
            "invalid arguments: expected an object, got {kind}; pass the tool's arguments as a JSON object"
        ),
        Some(codes::INVALID_ARGS),
    ));
    let mut result = serde_json::to_value(result).unwrap_or_else(|e| {
        tracing::error!(error = %e, "cannot serialize a tool result");
        json!({"content": [], "isError": true})
    });
    // Shaped like every other tool result rmcp sends: without the newer protocols'
    // `resultType`, which its own path leaves out for the protocols this server speaks.
    if let Some(fields) = result.as_object_mut() {
        fields.remove("resultType");
    }
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// How a JSON value's type reads in a message ("an array", "null", …).
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn error(id: Value, code: ErrorCode, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code.0, "message": message}})
}

/// Replaces every `\uXXXX` escape of a UTF-16 surrogate that is not half of a valid pair with
/// `\ufffd`, leaving everything else (including escaped backslashes) untouched.
pub(crate) fn repair_lone_surrogates(line: &[u8]) -> Cow<'_, [u8]> {
    repair_lone_surrogates_with(line, b"\\ufffd")
}

/// [`repair_lone_surrogates`] with `escape` (six bytes, `\uXXXX`) in place of each.
fn repair_lone_surrogates_with<'a>(line: &'a [u8], escape: &[u8]) -> Cow<'a, [u8]> {
    fn hex4(bytes: &[u8]) -> Option<u32> {
        let text = std::str::from_utf8(bytes.get(..4)?).ok()?;
        u32::from_str_radix(text, 16).ok()
    }
    let is_high = |cp: u32| (0xD800..0xDC00).contains(&cp);
    let is_low = |cp: u32| (0xDC00..0xE000).contains(&cp);
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < line.len() {
        let step = if line[i] != b'\\' {
            1
        } else if line.get(i + 1) != Some(&b'u') {
            2
        } else {
            match line.get(i + 2..).and_then(hex4) {
                Some(cp) if is_high(cp) => {
                    let paired = line.get(i + 6..i + 8) == Some(b"\\u".as_slice())
                        && line.get(i + 8..).and_then(hex4).is_some_and(is_low);
                    if paired { 12 } else { 0 }
                }
                Some(cp) if is_low(cp) => 0,
                _ => 2,
            }
        };
        if step == 0 {
            let buf = out.get_or_insert_with(|| line[..i].to_vec());
            buf.extend_from_slice(escape);
            i += 6;
            continue;
        }
        let end = (i + step).min(line.len());
        if let Some(buf) = out.as_mut() {
            buf.extend_from_slice(&line[i..end]);
        }
        i = end;
    }
    out.map_or(Cow::Borrowed(line), Cow::Owned)
}

/// The top-level `"id"` (a string or number) of a JSON object, read from its start as far as
/// the text parses; `null` when there is none before the damage.
pub(crate) fn recover_id(text: &[u8]) -> Value {
    let mut id = None;
    let mut de = serde_json::Deserializer::from_slice(text);
    let _ = IdSeed(&mut id).deserialize(&mut de);
    id.unwrap_or(Value::Null)
}

struct IdSeed<'a>(&'a mut Option<Value>);

impl<'de> DeserializeSeed<'de> for IdSeed<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for IdSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "id" {
                let value: Value = map.next_value()?;
                if value.is_string() || value.is_number() {
                    *self.0 = Some(value);
                }
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
