//! [`InFlight`]: the ids of requests forwarded to rmcp and not answered yet, so that a request
//! reusing one of them is answered with an error instead of vanishing.
//!
//! JSON-RPC 2.0 leaves a duplicate id among requests in flight undefined; rmcp served both and
//! wrote one answer, so the client read the second request's result as the first's and waited
//! for ever on the other. An id is free again once its request was answered (the id is
//! released before the answer is written, so a client that reuses it right after reading the
//! answer is served) or the client cancelled it (`notifications/cancelled`).

use std::collections::HashSet;
use std::sync::Arc;

use parking_lot::Mutex;
use rmcp::model::{ClientNotification, ErrorCode, JsonRpcMessage, RequestId};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use serde_json::Value;

use crate::inbound::error;

/// The ids in flight (each as its JSON text, so the number `1` and the string `"1"` differ).
#[derive(Debug, Clone, Default)]
pub(crate) struct InFlight(Arc<Mutex<HashSet<String>>>);

fn key(id: &RequestId) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

impl InFlight {
    /// Notes a message from the client: a request's id is taken (`Err` with the answer to write
    /// when it is already in flight: the request is not served), a cancellation frees its id.
    pub(crate) fn receive(&self, message: &RxJsonRpcMessage<RoleServer>) -> Result<(), Value> {
        match message {
            JsonRpcMessage::Request(request) => {
                if self.0.lock().insert(key(&request.id)) {
                    Ok(())
                } else {
                    Err(duplicate(&request.id))
                }
            }
            JsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(id) = &c.params.request_id
                {
                    self.0.lock().remove(&key(id));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Frees the id a message to the client answers (a result or an error).
    pub(crate) fn send(&self, message: &TxJsonRpcMessage<RoleServer>) {
        let id = match message {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        if let Some(id) = id {
            self.0.lock().remove(&key(id));
        }
    }
}

/// The answer to a request whose id is already in flight.
fn duplicate(id: &RequestId) -> Value {
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

    fn answer(id: Value) -> TxJsonRpcMessage<RoleServer> {
        serde_json::from_value(json!({"jsonrpc": "2.0", "id": id, "result": {}}))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_duplicate_id_in_flight_is_refused_until_answered_or_cancelled() {
        let f = InFlight::default();
        assert_eq!(f.receive(&request(json!(60))), Ok(()));
        // The string "60" is another id.
        assert_eq!(f.receive(&request(json!("60"))), Ok(()));
        let refused = f.receive(&request(json!(60))).unwrap_err();
        assert_eq!(refused["id"], json!(60));
        assert_eq!(refused["error"]["code"], json!(-32600));
        insta::assert_snapshot!(refused["error"]["message"].as_str().unwrap_or_default());
        f.send(&answer(json!(60)));
        assert_eq!(f.receive(&request(json!(60))), Ok(()));
        f.receive(&message(json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 60}
        })))
        .unwrap();
        assert_eq!(f.receive(&request(json!(60))), Ok(()));
    }
}
