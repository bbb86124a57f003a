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
