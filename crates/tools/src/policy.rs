//! Pre- and post-execute policies: what a policy sees of a call and the strictest decision.

use std::sync::Arc;

use serde_json::Value;

use crate::erased::catch;
use crate::tool::ToolResult;

/// A pre-execute policy decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Let the call proceed.
    Allow,
    /// Refuse the call; `reason` is shown to the model as `Error: <reason>`.
    Deny {
        /// Why, and what to do instead.
        reason: String,
    },
    /// Needs approval: the call's [`Approval`](crate::Approval) service decides; without one
    /// it is denied (approval unavailable).
    Ask {
        /// Why approval is needed (appended to the denial when non-empty).
        reason: String,
    },
}

/// What a policy sees of a call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallInfo {
    /// The tool name.
    pub name: String,
    /// The arguments (`null` already replaced by `{}`; not yet validated).
    pub args: Value,
    /// The calling agent's id, if any (display only; never an authorization token).
    pub agent_id: Option<String>,
}

/// A pre-execute policy: a small synchronous predicate over the call.
pub trait PreExecute: Send + Sync {
    /// Decides whether the call may run.
    fn check(&self, call: &ToolCallInfo) -> Decision;
}

/// A post-execute policy: may rewrite any result (success, error or denial).
pub trait PostExecute: Send + Sync {
    /// Inspects or rewrites the result.
    fn after(&self, call: &ToolCallInfo, result: &mut ToolResult);
}

/// The combined pre-execute decision.
pub(crate) enum Verdict {
    Allow,
    Deny(String),
    /// Needs approval; the policy's reason (may be empty).
    Ask(String),
}

/// The strictest decision of `pre` (`Err(stage)` when a policy panicked).
pub(crate) fn decide(
    pre: &[Arc<dyn PreExecute>],
    info: &ToolCallInfo,
) -> Result<Verdict, &'static str> {
    let mut ask: Option<String> = None;
    for policy in pre {
        match catch(|| policy.check(info)).ok_or("pre-execute policy")? {
            Decision::Allow => {}
            Decision::Deny { reason } => return Ok(Verdict::Deny(reason)),
            Decision::Ask { reason } => {
                ask.get_or_insert(reason);
            }
        }
    }
    Ok(ask.map_or(Verdict::Allow, Verdict::Ask))
}
