//! [`InFlight`]: every request forwarded to rmcp gets an id of the server's own, mapped back to
//! the client's in the answer, so a client's id is never seen twice by rmcp; a request reusing
//! the id of one still in flight is answered with an error instead.
//!
//! rmcp keys a request's cancellation by its id. JSON-RPC 2.0 leaves a duplicate id among
//! requests in flight undefined, and rmcp served both and wrote one answer, so the client read
//! the second request's result as the first's and waited for ever on the other. An id reused
//! right after `notifications/cancelled` fared no better: the cancelled request's late answer
//! found the new request under the same id, cancelled it and went out in its place. With ids
//! of its own, rmcp tells the two apart. A client's id is free again once its request was
//! answered (it is released before the answer is written, so a client that reuses it right
//! after reading the answer is served) or cancelled.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use rmcp::model::{ClientNotification, ErrorCode, JsonRpcMessage, RequestId};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use serde_json::Value;

use crate::inbound::error;

/// The requests in flight, by the client's id and by the server's.
#[derive(Debug, Clone, Default)]
pub(crate) struct InFlight(Arc<Mutex<Ids>>);

#[derive(Debug, Default)]
struct Ids {
    /// The last server id handed out.
    last: i64,
    /// Server id of each client id in flight (each as its JSON text, so the number `1` and the
    /// string `"1"` differ).
    by_client: HashMap<String, i64>,
    /// Client id of each server id in flight.
    by_server: HashMap<i64, RequestId>,
}

/// The id of `message` when it is a request (notifications and answers have none to route).
pub(crate) fn request_id(message: &RxJsonRpcMessage<RoleServer>) -> Option<RequestId> {
    match message {
        JsonRpcMessage::Request(request) => Some(request.id.clone()),
        _ => None,
    }
}

/// A request id as its JSON text (the number `1` and the string `"1"` differ).
pub(crate) fn key(id: &RequestId) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

impl InFlight {
    /// Takes a message from the client before rmcp sees it: a request gets a server id (`Err`
    /// with the answer to write when its id is already in flight: it is not served); a
    /// cancellation is redirected to the server id of the request it names, whose client id
    /// is then free.
    pub(crate) fn receive(&self, message: &mut RxJsonRpcMessage<RoleServer>) -> Result<(), Value> {
        let mut ids = self.0.lock();
        match message {
            JsonRpcMessage::Request(request) => {
                let client = key(&request.id);
                if ids.by_client.contains_key(&client) {
                    return Err(duplicate(&request.id));
                }
                ids.last += 1;
                let server = ids.last;
                ids.by_client.insert(client, server);
                ids.by_server.insert(server, request.id.clone());
                request.id = RequestId::Number(server);
            }
            JsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &mut n.notification
                    && let Some(id) = &mut c.params.request_id
                {
                    match ids.by_client.remove(&key(id)) {
                        Some(server) => {
                            // rmcp drops a cancelled request's answer.
                            ids.by_server.remove(&server);
                            *id = RequestId::Number(server);
                        }
                        // No such request in flight: nothing of rmcp's to cancel.
                        None => *id = RequestId::Number(0),
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Gives an answer to the client its request's id again, and frees that id.
    pub(crate) fn send(&self, message: &mut TxJsonRpcMessage<RoleServer>) {
        let id = match message {
            JsonRpcMessage::Response(r) => Some(&mut r.id),
            JsonRpcMessage::Error(e) => e.id.as_mut(),
            _ => None,
        };
        let Some(id) = id else { return };
        let RequestId::Number(server) = *id else {
            return;
        };
        let mut ids = self.0.lock();
        if let Some(client) = ids.by_server.remove(&server) {
            ids.by_client.remove(&key(&client));
            *id = client;
        }
    }
}

/// Gives a `tools/call` request its place in `order` among the calls to its target (a
/// terminal session), when its tool declares one ([`dsh_tools::Tool::arrival`]), as it
/// arrives in group `batch` of the calls the client wrote together (in its extensions, which rmcp hands to the
/// call's context): calls to one session take effect in the order the client sent them,
/// though rmcp runs them concurrently (see [`dsh_tools::ArrivalOrder`]).
pub(crate) fn take_arrival_ticket(
    order: &dsh_tools::ArrivalOrder,
    message: &mut RxJsonRpcMessage<RoleServer>,
    batch: u64,
) {
    if let JsonRpcMessage::Request(request) = message
        && let rmcp::model::ClientRequest::CallToolRequest(call) = &mut request.request
        && let Some(ticket) =
            order.ticket_for(&call.params.name, call.params.arguments.as_ref(), batch)
    {
        call.extensions.insert(Arc::new(ticket));
    }
}

/// The answer to a request whose id `id` is already used by one in flight.
pub(crate) fn duplicate(id: &RequestId) -> Value {
    let id_value = serde_json::to_value(id).unwrap_or(Value::Null);
    error(
        id_value.clone(),
        ErrorCode::INVALID_REQUEST,
        format!(
            "Invalid Request: id {id_value} is already used by a request still in flight, so this one was not served; give every request its own id (an id is free again once its request was answered)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn message(value: Value) -> RxJsonRpcMessage<RoleServer> {
        serde_json::from_value(value).unwrap_or_else(|e| panic!("{e}"))
    }

    fn request(id: Value) -> RxJsonRpcMessage<RoleServer> {
        message(json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
    }

    fn cancel(id: Value) -> RxJsonRpcMessage<RoleServer> {
        message(json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": id}
        }))
    }

    /// Receives `m`; returns the id rmcp sees (the server's), or the refusal.
    fn receive(f: &InFlight, mut m: RxJsonRpcMessage<RoleServer>) -> Result<Value, Value> {
        f.receive(&mut m)?;
        Ok(serde_json::to_value(&m).unwrap_or_default())
    }

    /// The client's view of rmcp's answer to server id `server`.
    fn answer(f: &InFlight, server: &Value) -> Value {
        let mut m: TxJsonRpcMessage<RoleServer> =
            serde_json::from_value(json!({"jsonrpc": "2.0", "id": server, "result": {}}))
                .unwrap_or_else(|e| panic!("{e}"));
        f.send(&mut m);
        serde_json::to_value(&m).unwrap_or_default()["id"].clone()
    }

    #[test]
    fn client_ids_become_server_ids_and_come_back_in_the_answers() {
        let f = InFlight::default();
        let a = receive(&f, request(json!(60))).unwrap()["id"].clone();
        // The string "60" is another id.
        let b = receive(&f, request(json!("60"))).unwrap()["id"].clone();
        assert_ne!(a, b);
        let refused = receive(&f, request(json!(60))).unwrap_err();
        assert_eq!(refused["id"], json!(60));
        assert_eq!(refused["error"]["code"], json!(-32600));
        insta::assert_snapshot!(refused["error"]["message"].as_str().unwrap_or_default());
        assert_eq!(answer(&f, &a), json!(60));
        assert_eq!(answer(&f, &b), json!("60"));
        // Free again once answered.
        let c = receive(&f, request(json!(60))).unwrap()["id"].clone();
        assert_ne!(c, a);
        assert_eq!(answer(&f, &c), json!(60));
    }

    #[test]
    fn a_cancelled_id_is_free_and_its_reuse_is_another_request() {
        let f = InFlight::default();
        let first = receive(&f, request(json!(6))).unwrap()["id"].clone();
        let cancelled = receive(&f, cancel(json!(6))).unwrap();
        assert_eq!(cancelled["params"]["requestId"], first);
        let second = receive(&f, request(json!(6))).unwrap()["id"].clone();
        assert_ne!(second, first, "rmcp tells the two apart");
        assert_eq!(answer(&f, &second), json!(6));
        // A cancellation naming no request in flight reaches none of rmcp's.
        let stray = receive(&f, cancel(json!(99))).unwrap();
        assert_eq!(stray["params"]["requestId"], json!(0));
    }
}
