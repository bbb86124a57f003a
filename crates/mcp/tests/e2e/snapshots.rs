//! Snapshots of what an MCP client sees: the `tools/list` result and the `instructions`.
//! Model-facing names and texts are frozen API; review changes with `cargo insta review`.

use crate::support::{InProcess, test_options, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_and_instructions_as_the_client_sees_them() {
    let mut host = InProcess::new(&test_options());
    let client = host.connect().await;

    let tools = within("tools/list", client.list_all_tools())
        .await
        .expect("tools/list");
    insta::assert_json_snapshot!("tools_list", tools);

    let info = client.peer_info().expect("server info");
    let implementation = info.server_info.as_ref().expect("serverInfo");
    assert_eq!(implementation.name, "dsh-mcp");
    assert!(info.capabilities.tools.is_some());
    let instructions = info.instructions.clone().expect("instructions");
    insta::assert_snapshot!("instructions", instructions);

    host.finish(vec![client]).await;
}

/// Without background sends there are no jobs: neither the job tools nor their guidance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_background_sends_no_job_tools_or_job_guidance() {
    let mut options = test_options();
    options.disable_run_in_background = true;
    let mut host = InProcess::new(&options);
    let client = host.connect().await;
    let tools = within("tools/list", client.list_all_tools())
        .await
        .expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(names.iter().all(|n| !n.starts_with("job_")), "{names:?}");
    assert!(names.contains(&"terminal_send"), "{names:?}");
    let send = tools
        .iter()
        .find(|t| t.name == "terminal_send")
        .expect("send");
    assert!(
        !serde_json::to_string(&send.input_schema)
            .expect("schema")
            .contains("run_in_background"),
        "{send:?}"
    );
    let instructions = client
        .peer_info()
        .and_then(|i| i.instructions.clone())
        .expect("instructions");
    assert!(!instructions.contains("job_"), "{instructions}");
    assert!(!instructions.contains("Background jobs"), "{instructions}");
    host.finish(vec![client]).await;
}
