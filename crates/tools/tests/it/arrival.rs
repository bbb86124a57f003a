//! The registry tells a host how each tool's calls are ordered ([`Tool::arrival`]), and
//! [`ArrivalOrder::for_tools`] hands out tickets by it.

use std::sync::Arc;
use std::time::Duration;

use dsh_tools::{Arrival, ArrivalOrder, Tools};
use serde_json::{Map, Value, json};

use crate::fixtures::{Mode, Named, SendTool};
use crate::ok;

fn registry() -> Arc<Tools> {
    let tools = Tools::new();
    ok(tools.register(SendTool::new(Mode::Succeed)));
    ok(tools.register(Named("list")));
    Arc::new(tools)
}

fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

#[test]
fn the_registry_holds_what_each_tool_declares() {
    let tools = registry();
    assert_eq!(
        tools.arrival("send"),
        Some(Arrival {
            target_argument: "sessionId",
            queued: true
        })
    );
    assert_eq!(tools.arrival("list"), None, "a tool declaring none");
    assert_eq!(tools.arrival("nope"), None, "a tool not registered");
}

/// Only a declaring tool's call that names its target (a string) takes a place; calls to one
/// target (blanks around its id ignored) wait in arrival order, another target's do not.
#[tokio::test]
async fn tickets_go_to_the_calls_naming_a_declared_target() {
    let order = ArrivalOrder::for_tools(registry());
    let send =
        |id: Value| order.ticket_for("send", Some(&arguments(json!({ "sessionId": id }))), 1);
    assert!(order.ticket_for("list", Some(&Map::new()), 1).is_none());
    assert!(order.ticket_for("send", None, 1).is_none());
    assert!(send(json!(7)).is_none(), "a target that is not a string");
    assert!(
        ArrivalOrder::default()
            .ticket_for("send", Some(&arguments(json!({ "sessionId": "pty-1" }))), 1)
            .is_none(),
        "an order with no registry orders nothing"
    );
    let first = send(json!("pty-1")).unwrap_or_else(|| panic!("no ticket"));
    let other = send(json!("pty-2")).unwrap_or_else(|| panic!("no ticket"));
    let second = send(json!(" pty-1 ")).unwrap_or_else(|| panic!("no ticket"));
    assert!(!first.waited_for_others());
    assert!(
        !other.waited_for_others(),
        "another session's calls do not wait"
    );
    assert!(second.waited_for_others());
    let turn = tokio::spawn(async move { second.turn().await });
    first.done();
    tokio::time::timeout(Duration::from_secs(30), turn)
        .await
        .unwrap_or_else(|_| panic!("the second call's turn never came"))
        .unwrap_or_else(|e| panic!("{e}"));
}
