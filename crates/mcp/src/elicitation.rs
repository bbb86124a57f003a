//! [`ElicitationApproval`]: approval requests answered by the human behind the MCP client,
//! through `elicitation/create` (a form with one required boolean, `approve`).
//!
//! Accept with `approve: true` → approved once; accept with `false`, or decline → rejected;
//! cancel (or the tool call being cancelled while waiting) → cancelled. A client that did not
//! declare the `elicitation` capability, or that fails the request, makes approval unavailable,
//! which the pipeline turns into a denial saying so.

use dsh_context::BoxFuture;
use dsh_tools::{Approval, ApprovalOutcome, ApprovalRequest};
use rmcp::model::{
    ClientResult, ElicitRequest, ElicitRequestParams, ElicitationAction, ElicitationSchema,
    ServerRequest,
};
use rmcp::service::{Peer, RoleServer};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// The form field the human sets to approve.
const APPROVE_FIELD: &str = "approve";

/// Most bytes of the call's input quoted in the question.
const MAX_QUOTED_BYTES: usize = 2_000;

/// Asks the connection's client (see the module docs).
pub(crate) struct ElicitationApproval {
    peer: Peer<RoleServer>,
}

impl ElicitationApproval {
    pub(crate) fn new(peer: Peer<RoleServer>) -> Self {
        Self { peer }
    }

    fn client_can_elicit(&self) -> bool {
        self.peer
            .peer_info()
            .is_some_and(|info| info.capabilities.elicitation.is_some())
    }
}

/// The question shown to the human.
fn question(request: &ApprovalRequest) -> String {
    let input = match request.args.get("text").and_then(Value::as_str) {
        Some(text) => text.to_owned(),
        None => request.args.to_string(),
    };
    let mut cut = input.len().min(MAX_QUOTED_BYTES);
    while !input.is_char_boundary(cut) {
        cut -= 1;
    }
    let more = if cut < input.len() { " […]" } else { "" };
    let agent = request.agent_id.as_deref().unwrap_or("an agent");
    let why = if request.reason.is_empty() {
        String::new()
    } else {
        format!("\nWhy approval is needed: {}.", request.reason)
    };
    format!(
        "{agent} wants to call {} with:\n{}{more}{why}\nApprove this call once?",
        request.tool,
        &input[..cut]
    )
}

impl Approval for ElicitationApproval {
    fn request_approval(
        &self,
        request: ApprovalRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, ApprovalOutcome> {
        Box::pin(async move {
            if !self.client_can_elicit() {
                return ApprovalOutcome::Unavailable {
                    why: "this MCP client does not support elicitation (elicitation/create), so no human can be asked".to_owned(),
                };
            }
            let schema = ElicitationSchema::builder()
                .required_bool_property(APPROVE_FIELD, |b| {
                    b.title("Approve").description("true runs the call once")
                })
                .build_unchecked();
            let params = ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: question(&request),
                requested_schema: schema,
            };
            let sent = self
                .peer
                .send_request(ServerRequest::ElicitRequest(ElicitRequest::new(params)));
            let answer = tokio::select! {
                answer = sent => answer,
                () = cancel.cancelled() => return ApprovalOutcome::Cancelled,
            };
            match answer {
                Ok(ClientResult::ElicitResult(result)) => match result.action {
                    ElicitationAction::Accept => {
                        let approved = result
                            .content
                            .as_ref()
                            .and_then(|c| c.get(APPROVE_FIELD))
                            .and_then(Value::as_bool)
                            == Some(true);
                        if approved {
                            ApprovalOutcome::Approved
                        } else {
                            ApprovalOutcome::Rejected
                        }
                    }
                    ElicitationAction::Decline => ApprovalOutcome::Rejected,
                    // Cancel, and any action a later protocol adds: no decision was made.
                    _ => ApprovalOutcome::Cancelled,
                },
                Ok(other) => ApprovalOutcome::Unavailable {
                    why: format!(
                        "the client answered the elicitation with {}, not an elicitation result (an object with `action`)",
                        result_kind(&other)
                    ),
                },
                Err(err) => ApprovalOutcome::Unavailable {
                    why: format!("the client failed the elicitation request ({err})"),
                },
            }
        })
    }
}

/// What kind of JSON value `result` is, for the model's reading (`a string`).
fn result_kind(result: &ClientResult) -> &'static str {
    match serde_json::to_value(result) {
        Ok(Value::Object(_)) => "an object of another kind",
        Ok(Value::Array(_)) => "an array",
        Ok(Value::String(_)) => "a string",
        Ok(Value::Number(_)) => "a number",
        Ok(Value::Bool(_)) => "a boolean",
        Ok(Value::Null) => "null",
        Err(_) => "a value it could not read",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer that is no elicitation result is named by its kind, not dumped.
    #[test]
    fn an_answer_of_another_kind_is_named_by_its_kind() {
        let answer = |v: Value| ClientResult::CustomResult(rmcp::model::CustomResult(v));
        assert_eq!(result_kind(&answer(Value::from("yes"))), "a string");
        assert_eq!(result_kind(&answer(Value::from(3))), "a number");
    }

    #[test]
    fn the_question_quotes_the_input_and_the_reason() {
        let q = question(&ApprovalRequest {
            tool: "terminal_send".into(),
            args: serde_json::json!({"sessionId": "pty-1", "text": "git push"}),
            reason: "ask pattern \"^git push\"".into(),
            agent_id: Some("mcp-1".into()),
        });
        assert_eq!(
            q,
            "mcp-1 wants to call terminal_send with:\ngit push\nWhy approval is needed: ask pattern \"^git push\".\nApprove this call once?"
        );
        let long = question(&ApprovalRequest {
            tool: "t".into(),
            args: serde_json::json!({"text": "é".repeat(2000)}),
            reason: String::new(),
            agent_id: None,
        });
        assert!(long.contains(" […]\nApprove"), "{long}");
    }
}
