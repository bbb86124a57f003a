//! A `job_output` wait its connection's end stops says the job goes with the connection (the
//! connection's agent is disposed next); a wait the client cancels leaves the job as it was.

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::{Host, Probe};
use dsh_tool_jobs::ToolJobsConfig;

#[tokio::test]
async fn a_wait_its_connection_ends_says_the_job_ends_with_it() {
    let host = Host::new(ToolJobsConfig::default());
    let a = host.agent("a");
    let p = Probe::new();
    let id = host.start(&p, Some(&a), None);
    // The connection ends during the wait (its calls' tokens are cancelled with it, as on
    // stdio, or not yet, as over HTTP), or had ended when the call began (a call the caller
    // had cancelled by then is not dispatched at all).
    for (closing_before, cancel_too) in [(false, true), (false, false), (true, false)] {
        let closing = CancellationToken::new();
        let cancel = CancellationToken::new();
        let mut call = dsh_tools::ToolCall::new("test")
            .with_cancel(cancel.clone())
            .with_closing(closing.clone());
        call.agent = Some(a.clone());
        let end = move || {
            closing.cancel();
            if cancel_too {
                cancel.cancel();
            }
        };
        if closing_before {
            end();
        } else {
            tokio::spawn(async move { end() });
        }
        let r = host
            .tools
            .execute(
                "job_output",
                json!({"job_id": id.as_str(), "wait": true, "timeout_ms": 60000}),
                call,
            )
            .await;
        let case = (closing_before, cancel_too);
        assert!(r.is_error, "{case:?}: {r:?}");
        assert!(
            r.text()
                .starts_with("Error: wait aborted: the connection this call came on is closing"),
            "{case:?}: {r:?}"
        );
        assert!(
            !r.text().contains("call job_output again"),
            "{case:?}: {r:?}"
        );
    }
    // The client's own cancel leaves the job for a later read.
    let cancel = CancellationToken::new();
    let mut call = dsh_tools::ToolCall::new("test").with_cancel(cancel.clone());
    tokio::spawn(async move { cancel.cancel() });
    call.agent = Some(a.clone());
    let r = host
        .tools
        .execute(
            "job_output",
            json!({"job_id": id.as_str(), "wait": true, "timeout_ms": 60000}),
            call,
        )
        .await;
    assert!(
        r.text()
            .starts_with("Error: wait aborted: the call was cancelled"),
        "{r:?}"
    );
    assert!(r.text().contains("call job_output again"), "{r:?}");
    host.ctx.dispose().await;
}
