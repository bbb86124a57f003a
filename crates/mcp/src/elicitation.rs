//! [`ElicitationApproval`]: approval requests answered by the human behind the MCP client,
//! through `elicitation/create` (a form with one required boolean, `approve`).
//!
//! Accept with `approve: true` → approved once; accept with `false`, or decline → rejected;
//! accept without a boolean `approve` (no content, `{}`, `"maybe"`), or an answer that is no
//! elicitation result (an unknown `action`) → not understood (the user rejected nothing: the
//! client sent an answer the request does not allow); cancel (or the tool
//! call being cancelled while waiting) → cancelled. A client that did not declare the
//! `elicitation` capability, or that fails the request, makes approval unavailable, which the
//! pipeline turns into a denial saying so. When the pipeline stops waiting (the approval
//! deadline, the session closed, the call cancelled) the client is sent
//! `notifications/cancelled` for the request, so it can close the form.

use dsh_context::BoxFuture;
use dsh_tools::{Approval, ApprovalOutcome, ApprovalRequest};
use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientResult, ElicitRequest,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, ServerNotification,
    ServerRequest,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleServer};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// The form field the human sets to approve.
const APPROVE_FIELD: &str = "approve";

/// Most bytes of the call's input quoted in the question.
const MAX_QUOTED_BYTES: usize = 2_000;

/// Most bytes of a client's unreadable answer quoted in the denial.
const MAX_ANSWER_QUOTED_BYTES: usize = 200;

/// The reason sent with `notifications/cancelled` when the server stops waiting for an answer.
const WITHDRAWN: &str = "the server no longer waits for this approval (the tool call was cancelled, its session closed, or no answer came in time)";

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
                .send_cancellable_request(
                    ServerRequest::ElicitRequest(ElicitRequest::new(params)),
                    PeerRequestOptions::no_options(),
                )
                .await;
            let handle = match sent {
                Ok(handle) => handle,
                Err(err) => {
                    return ApprovalOutcome::Unavailable {
                        why: format!("the client failed the elicitation request ({err})"),
                    };
                }
            };
            let id = handle.id.clone();
            let answer = tokio::select! {
                answer = handle.await_response() => answer,
                () = cancel.cancelled() => {
                    // The form should close: nobody waits for its answer any more.
                    let withdrawn = CancelledNotification::new(CancelledNotificationParam::new(
                        Some(id),
                        Some(WITHDRAWN.to_owned()),
                    ));
                    let _ = self
                        .peer
                        .send_notification(ServerNotification::CancelledNotification(withdrawn))
                        .await;
                    return ApprovalOutcome::Cancelled;
                }
            };
            match answer {
                Ok(ClientResult::ElicitResult(result)) => outcome(&result),
                // An answer, but none the request allows (`"action": "yes please"`).
                Ok(other) => ApprovalOutcome::NotUnderstood {
                    why: format!(
                        "it answered with {}, not an elicitation result (an object with `action`: accept, decline or cancel)",
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

/// The decision an elicitation result holds: accept with `approve` true or false approves or
/// rejects; accept without a boolean `approve` is an answer the form does not allow (the user
/// rejected nothing); decline rejects; cancel (and any action a later protocol adds) decides
/// nothing.
fn outcome(result: &ElicitResult) -> ApprovalOutcome {
    match result.action {
        ElicitationAction::Accept => {
            let approve = result.content.as_ref().and_then(|c| c.get(APPROVE_FIELD));
            match approve.and_then(Value::as_bool) {
                Some(true) => ApprovalOutcome::Approved,
                Some(false) => ApprovalOutcome::Rejected,
                None => ApprovalOutcome::NotUnderstood {
                    why: format!(
                        "it accepted the form without a true or false \"{APPROVE_FIELD}\" (content: {})",
                        quoted_content(result.content.as_ref())
                    ),
                },
            }
        }
        ElicitationAction::Decline => ApprovalOutcome::Rejected,
        // Cancel, and any action a later protocol adds: no decision was made.
        _ => ApprovalOutcome::Cancelled,
    }
}

/// The content of an answer as compact JSON, cut to [`MAX_ANSWER_QUOTED_BYTES`] (`none` when
/// absent).
fn quoted_content(content: Option<&Value>) -> String {
    let Some(content) = content else {
        return "none".to_owned();
    };
    let text = content.to_string();
    if text.len() <= MAX_ANSWER_QUOTED_BYTES {
        return text;
    }
    let mut cut = MAX_ANSWER_QUOTED_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &text[..cut])
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

    /// An accepted form without a boolean `approve` is no rejection by the user.
    #[test]
    fn an_accept_without_a_boolean_approve_is_not_understood() {
        let accept = |content: Option<Value>| {
            let result = ElicitResult::new(ElicitationAction::Accept);
            match content {
                Some(c) => result.with_content(c),
                None => result,
            }
        };
        assert_eq!(
            outcome(&accept(Some(serde_json::json!({"approve": true})))),
            ApprovalOutcome::Approved
        );
        assert_eq!(
            outcome(&accept(Some(serde_json::json!({"approve": false})))),
            ApprovalOutcome::Rejected
        );
        assert_eq!(
            outcome(&ElicitResult::new(ElicitationAction::Decline)),
            ApprovalOutcome::Rejected
        );
        for (content, quoted) in [
            (Some(serde_json::json!({})), "{}"),
            (
                Some(serde_json::json!({"approve": "maybe", "x": [1]})),
                "{\"approve\":\"maybe\",\"x\":[1]}",
            ),
            (None, "none"),
        ] {
            assert_eq!(
                outcome(&accept(content)),
                ApprovalOutcome::NotUnderstood {
                    why: format!(
                        "it accepted the form without a true or false \"approve\" (content: {quoted})"
                    )
                }
            );
        }
        let long = quoted_content(Some(&serde_json::json!({"approve": "é".repeat(500)})));
        assert!(long.len() <= MAX_ANSWER_QUOTED_BYTES + "…".len(), "{long}");
        assert!(long.ends_with('…'), "{long}");
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
