//! The model-visible tool schemas and the prompt section (snapshots), and config validation.

use dsh_context::{Context, ContextError};
use dsh_system_prompt::{SystemPrompt, SystemPromptPlugin};
use dsh_terminal_core::TerminalsPlugin;
use dsh_tool_terminal::{ToolTerminalConfig, ToolTerminalPlugin};
use dsh_tools::ToolsPlugin;
use serde_json::json;

use crate::support::Host;

fn list_json(host: &Host) -> serde_json::Value {
    let tools: Vec<_> = host
        .tools
        .list()
        .into_iter()
        .map(|t| {
            json!({
                "name": t.name,
                "description": t.description,
                "inputSchema": t.input_schema,
                "outputSchema": t.output_schema,
            })
        })
        .collect();
    json!(tools)
}

#[tokio::test]
async fn six_tools_in_catalog_order_with_seed_schemas() {
    let host = Host::new(ToolTerminalConfig::default(), None);
    let names: Vec<String> = host.tools.list().into_iter().map(|t| t.name).collect();
    assert_eq!(names, dsh_tool_terminal::TOOL_NAMES);
    insta::assert_json_snapshot!("tools_list_default", list_json(&host));
    let prompt = host.ctx.require::<SystemPrompt>().unwrap().assemble();
    insta::assert_snapshot!("system_prompt", prompt);
    host.shutdown().await;
}

#[tokio::test]
async fn background_disabled_removes_the_option_and_the_sentence() {
    let host = Host::new(
        ToolTerminalConfig {
            enable_run_in_background: false,
            ..ToolTerminalConfig::default()
        },
        None,
    );
    let send = host
        .tools
        .list()
        .into_iter()
        .find(|t| t.name == "terminal_send")
        .unwrap();
    assert!(
        send.input_schema["properties"]
            .get("run_in_background")
            .is_none()
    );
    assert!(!send.description.contains("Background mode"));
    insta::assert_json_snapshot!("terminal_send_background_disabled", send.input_schema);
    // A forced undeclared run_in_background is rejected by validation (seed §6.3).
    let agent = host.agent("a");
    let r = host
        .call(
            &agent,
            "terminal_send",
            json!({"sessionId": "pty-1", "text": "x", "run_in_background": true}),
        )
        .await;
    assert!(r.is_error);
    assert!(r.text().contains("run_in_background"), "{}", r.text());
    host.shutdown().await;
}

#[test]
fn max_result_bytes_below_64_fails_at_apply() {
    for bad in [0, 63] {
        let err = Context::builder()
            .with(SystemPromptPlugin)
            .with(ToolsPlugin)
            .with(TerminalsPlugin)
            .with(ToolTerminalPlugin {
                config: ToolTerminalConfig {
                    max_result_bytes: bad,
                    ..ToolTerminalConfig::default()
                },
            })
            .apply()
            .unwrap_err();
        assert!(
            matches!(&err.0[0], ContextError::InvalidConfig { plugin, message }
                if plugin == "tool-terminal" && message.contains("at least 64")),
            "{err}"
        );
    }
}

#[test]
fn plugin_requires_its_services() {
    let err = Context::builder()
        .with(ToolTerminalPlugin::default())
        .apply()
        .unwrap_err();
    let text = err.to_string();
    for service in ["Terminals", "Tools", "SystemPrompt"] {
        assert!(
            text.contains(&format!(
                "plugin `tool-terminal` requires service `{service}`"
            )),
            "{text}"
        );
    }
}
