//! The three tools, their limits and the notices.

use std::sync::Arc;
use std::time::Duration;

use dsh_context::Agent;
use dsh_jobs::{FinalStatus, JobId, JobRegistry, JobsPlugin};
use dsh_system_prompt::SystemPrompt;
use dsh_tool_jobs::{ToolJobsConfig, ToolJobsPlugin};
use dsh_tools::{PostExecute, ToolCallInfo, ToolResult};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::{Host, Probe};

/// Waits for settlement without waiting on the job (which would mark it reported).
async fn settled(host: &Host, id: &JobId, owner: Option<&dsh_context::Agent>) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while host.jobs.get(id, owner).unwrap().status.is_live() {
        assert!(tokio::time::Instant::now() < deadline, "job never settled");
        tokio::task::yield_now().await;
    }
}

#[tokio::test]
async fn schemas_prompt_and_config() {
    let host = Host::new(ToolJobsConfig::default());
    let list: Vec<_> = host
        .tools
        .list()
        .into_iter()
        .map(|t| {
            json!({"name": t.name, "description": t.description,
                   "inputSchema": t.input_schema, "outputSchema": t.output_schema})
        })
        .collect();
    let names: Vec<_> = list.iter().map(|t| t["name"].clone()).collect();
    assert_eq!(names, dsh_tool_jobs::TOOL_NAMES.map(|n| json!(n)));
    insta::assert_json_snapshot!("tools_list", list);
    let prompt = host.ctx.require::<SystemPrompt>().unwrap();
    assert_eq!(
        prompt.sections(),
        vec![("tool:jobs".to_owned(), 106)],
        "one section"
    );
    insta::assert_snapshot!("system_prompt", prompt.assemble());
    host.ctx.dispose().await;
    // Disposing the plugin's scope detaches the controller: producers are refused again.
    let root = dsh_context::Context::builder()
        .with(dsh_system_prompt::SystemPromptPlugin)
        .with(dsh_tools::ToolsPlugin)
        .with(JobsPlugin::default())
        .apply()
        .unwrap();
    let scope = root.child("tool-jobs");
    dsh_context::Context::builder()
        .with(ToolJobsPlugin::default())
        .apply_to(&scope)
        .unwrap();
    let jobs = root.require::<dyn JobRegistry>().unwrap();
    let tools = root.require::<dsh_tools::Tools>().unwrap();
    assert_eq!(tools.list().len(), 3);
    scope.dispose().await;
    assert!(tools.list().is_empty());
    let err = jobs.start(Probe::new().spec(None, None)).unwrap_err();
    assert!(
        err.to_string().starts_with("background jobs unavailable"),
        "{err}"
    );
    root.dispose().await;

    let bad = dsh_context::Context::builder()
        .with(dsh_system_prompt::SystemPromptPlugin)
        .with(dsh_tools::ToolsPlugin)
        .with(dsh_jobs::JobsPlugin::default())
        .with(ToolJobsPlugin {
            config: ToolJobsConfig {
                wait_timeout_ms: 700_000,
                max_wait_timeout_ms: 600_000,
                max_list_bytes: None,
                max_result_bytes: None,
            },
        })
        .apply()
        .unwrap_err();
    assert!(
        bad.to_string()
            .contains("tool-jobs: wait_timeout_ms (700000) exceeds max_wait_timeout_ms (600000)"),
        "{bad}"
    );
}

#[tokio::test]
async fn job_output_consumes_and_reports_status() {
    let host = Host::new(ToolJobsConfig::default());
    let a = host.agent("a");
    let p = Probe::new();
    let id = host.start(&p, Some(&a), None);
    p.push("line one");
    let r = host
        .call(Some(&a), "job_output", json!({"job_id": id.as_str()}))
        .await;
    assert_eq!(r.text(), "line one\n[status: running]");
    let value = r.structured.unwrap();
    assert_eq!(value["job"]["id"], "pty-send-1");
    assert!(value["job"].get("ownerSession").is_none());
    assert!(value["job"].get("reported").is_none());
    let r = host
        .call(Some(&a), "job_output", json!({"job_id": id.as_str()}))
        .await;
    assert_eq!(r.text(), "(no new output)\n[status: running]");
    // A wait capped by the configured maximum returns the live job, and says the wait ran
    // out (after the capped time) and what to do.
    let short = Host::new(ToolJobsConfig {
        wait_timeout_ms: 10,
        max_wait_timeout_ms: 20,
        max_list_bytes: None,
        max_result_bytes: None,
    });
    let p2 = Probe::new();
    let id2 = short.start(&p2, Some(&a), None);
    let r = short
        .call(
            Some(&a),
            "job_output",
            json!({"job_id": id2.as_str(), "wait": true, "timeout_ms": 600000}),
        )
        .await;
    assert_eq!(
        r.text(),
        "(no new output)\n[wait: timed out after 20 ms with the job still running; call job_output with wait true again to keep waiting, or job_kill to stop it]\n[status: running]"
    );
    // A timeout alone waits as `wait: true` does (it was ignored: the read came back at
    // once); `wait: false` with it reads at once.
    let r = short
        .call(
            Some(&a),
            "job_output",
            json!({"job_id": id2.as_str(), "timeout_ms": 15}),
        )
        .await;
    assert!(
        r.text()
            .starts_with("(no new output)\n[wait: timed out after 15 ms"),
        "{}",
        r.text()
    );
    let r = short
        .call(
            Some(&a),
            "job_output",
            json!({"job_id": id2.as_str(), "wait": false, "timeout_ms": 15}),
        )
        .await;
    assert_eq!(r.text(), "(no new output)\n[status: running]");
    // A wait returns the settled job with its output.
    p.push("tick\n");
    let waiter = host.call(
        Some(&a),
        "job_output",
        json!({"job_id": id.as_str(), "wait": true}),
    );
    let (r, ()) = tokio::join!(waiter, async {
        p.finish(FinalStatus::Completed, "wait: stdin_read")
    });
    assert_eq!(r.text(), "tick\n[status: completed, wait: stdin_read]");
    assert!(host.jobs.get(&id, Some(&a)).unwrap().reported);
    // Errors.
    let r = host
        .call(Some(&a), "job_output", json!({"job_id": ""}))
        .await;
    assert_eq!(
        r.text(),
        "Error: invalid job_id: expected a non-empty string, got \"\"; pass the id terminal_send with run_in_background returned (such as \"pty-send-1\"), or call job_list to see your jobs"
    );
    // An id no job can have is refused without being echoed (the schema's maxLength is the
    // tool's own limit).
    for tool in ["job_output", "job_kill"] {
        let r = host
            .call(Some(&a), tool, json!({"job_id": "J".repeat(1_000_000)}))
            .await;
        assert_eq!(
            r.text(),
            "Error: invalid arguments: \"job_id\" must be at most 128 characters long"
        );
    }
    let r = host
        .call(Some(&a), "job_output", json!({"job_id": "pty-send-99"}))
        .await;
    assert_eq!(
        r.text(),
        "Error: unknown job pty-send-99; call job_list to see your jobs"
    );
    // Refused, each naming what is wrong: a timeout no wait could take (also without `wait`),
    // a fraction of a millisecond (the integer rule of every *Ms / *_ms argument, as
    // terminal_send's timeoutMs), and an id with a control character inside (not echoed).
    for (args, expected) in [
        (
            json!({"job_id": id.as_str(), "wait": true, "timeout_ms": 0}),
            "Error: invalid arguments: \"timeout_ms\" must be >= 1",
        ),
        (
            json!({"job_id": id.as_str(), "timeout_ms": -5}),
            "Error: invalid arguments: \"timeout_ms\" must be >= 1",
        ),
        (
            json!({"job_id": id.as_str(), "timeout_ms": 15.5}),
            "Error: invalid arguments: \"timeout_ms\" must be an integer",
        ),
        (
            json!({"job_id": "pty-\nsend-1"}),
            "Error: invalid job_id: it contains control characters",
        ),
    ] {
        let r = host.call(Some(&a), "job_output", args.clone()).await;
        assert!(r.text().starts_with(expected), "{args}: {}", r.text());
    }
    // A fraction below 1 breaks both rules, and is not waited on (it was, for a billionth of a
    // millisecond).
    for t in [json!(1e-9), json!(0.4)] {
        let args = json!({"job_id": id.as_str(), "wait": true, "timeout_ms": t});
        let r = host.call(Some(&a), "job_output", args).await;
        assert!(
            r.text().starts_with("Error: invalid arguments: "),
            "{t}: {}",
            r.text()
        );
        assert!(r.text().contains("must be an integer"), "{t}: {}", r.text());
    }
    // An id with blanks around it names the job.
    let r = host
        .call(
            Some(&a),
            "job_output",
            json!({"job_id": format!(" {}\n", id.as_str())}),
        )
        .await;
    assert!(!r.text().starts_with("Error"), "{}", r.text());
    short.ctx.dispose().await;
    host.ctx.dispose().await;
}

#[tokio::test]
async fn producer_limits_bound_reads_errors_and_acks() {
    let host = Host::new(ToolJobsConfig::default());
    let a = host.agent("a");
    let p = Probe::new();
    let id = host.start(&p, Some(&a), Some(64));
    p.push(&format!("{}\n[output truncated]", "一".repeat(40)));
    let waiter = host.call(
        Some(&a),
        "job_output",
        json!({"job_id": id.as_str(), "wait": true}),
    );
    let (r, ()) = tokio::join!(waiter, async {
        p.finish(FinalStatus::Completed, "wait: stdin_read")
    });
    let text = r.text();
    assert!(text.len() <= 64, "{text:?}");
    assert_eq!(text.matches("[output truncated]").count(), 1);
    assert!(text.ends_with("[output truncated]\n[status: completed, wait: stdin_read]"));
    // A failing cancel is an error bounded by the job's limit, and the job keeps running.
    let p2 = Probe::new();
    let id2 = host.start(&p2, Some(&a), Some(40));
    *p2.fail_cancel.lock() = true;
    let r = host
        .call(Some(&a), "job_kill", json!({"job_id": id2.as_str()}))
        .await;
    assert!(r.is_error);
    assert!(r.text().len() <= 40);
    assert!(r.text().ends_with("\n[result truncated]"), "{}", r.text());
    assert!(host.jobs.get(&id2, Some(&a)).unwrap().status.is_live());
    *p2.fail_cancel.lock() = false;
    host.ctx.dispose().await;
}

struct Replace(String);
impl PostExecute for Replace {
    fn after(&self, call: &ToolCallInfo, result: &mut ToolResult) {
        if call.name == "job_output" {
            *result = ToolResult::success(self.0.clone(), json!({}));
        }
    }
}

#[tokio::test]
async fn policy_replacements_are_bounded_without_a_status_line() {
    let host = Host::new(ToolJobsConfig::default());
    let a = host.agent("a");
    host.tools
        .add_post_execute(Arc::new(Replace("z".repeat(500))));
    let p = Probe::new();
    let id = host.start(&p, Some(&a), Some(64));
    let r = host
        .call(Some(&a), "job_output", json!({"job_id": id.as_str()}))
        .await;
    assert_eq!(r.text().len(), 64);
    assert!(r.text().ends_with("z\n[result truncated]"));
    assert!(!r.text().contains("[status"));
    host.ctx.dispose().await;
}

#[tokio::test]
async fn list_and_kill_per_caller() {
    let host = Host::new(ToolJobsConfig::default());
    let a = host.agent("a");
    let b = host.agent("a");
    let r = host.call(Some(&a), "job_list", json!({})).await;
    assert_eq!(r.text(), "(no background jobs)");
    let p = Probe::new();
    let id = host.start(&p, Some(&a), None);
    let r = host.call(Some(&a), "job_list", json!({})).await;
    assert_eq!(r.text(), "pty-send-1 [pty-send] running — pty-1: make test");
    let r = host.call(Some(&b), "job_list", json!({})).await;
    assert_eq!(r.text(), "(no background jobs)");
    for (tool, args) in [
        ("job_output", json!({"job_id": id.as_str()})),
        ("job_kill", json!({"job_id": id.as_str()})),
    ] {
        let r = host.call(Some(&b), tool, args).await;
        assert_eq!(
            r.text(),
            "Error: job pty-send-1 belongs to another agent; call job_list to see your own jobs"
        );
    }
    p.push("pending");
    let r = host
        .call(
            Some(&a),
            "job_kill",
            json!({"job_id": id.as_str(), "reason": "not needed"}),
        )
        .await;
    assert_eq!(
        r.text(),
        r#"requested cancellation of job pty-send-1; job_output {"job_id": "pty-send-1", "wait": true} returns once its work has stopped"#
    );
    assert_eq!(r.structured.unwrap()["outcome"], "cancellation-requested");
    assert_eq!(*p.cancels.lock(), vec!["not needed".to_owned()]);
    settled(&host, &id, Some(&a)).await;
    let r = host
        .call(Some(&a), "job_kill", json!({"job_id": id.as_str()}))
        .await;
    assert_eq!(
        r.text(),
        "job pty-send-1 had already finished [status: killed, wait: stdin_read]"
    );
    // The already-finished kill did not consume the pending output.
    let r = host
        .call(Some(&a), "job_output", json!({"job_id": id.as_str()}))
        .await;
    assert_eq!(r.text(), "pending\n[status: killed, wait: stdin_read]");
    let card = host
        .tools
        .present_call("job_kill", &json!({"job_id": "pty-send-1"}))
        .unwrap();
    assert_eq!(
        card.title.as_deref(),
        Some("Kill background job pty-send-1")
    );
    host.ctx.dispose().await;
}

#[tokio::test]
async fn notices_once_for_unreported_owned_jobs() {
    let host = Host::new(ToolJobsConfig::default());
    let a = host.agent("a");
    let mut sub = host.notices.subscribe();
    // Settled unreported → one notice, delivered once.
    let p = Probe::new();
    let id = host.start(&p, Some(&a), None);
    p.finish(FinalStatus::Completed, "wait: stdin_read");
    settled(&host, &id, Some(&a)).await;
    let pushed = sub.recv().await.unwrap();
    assert_eq!(pushed.owner, a);
    let taken = host.notices.take(&a, 0);
    assert_eq!(taken.len(), 1);
    insta::assert_snapshot!("notice", &taken[0].text);
    assert_eq!(
        taken[0].text,
        "background job pty-send-1 (pty-send: pty-1: make test) finished [status: completed, wait: stdin_read]. Read its output with job_output."
    );
    assert!(host.notices.take(&a, 0).is_empty());
    // Killed → reported → no notice.
    let p = Probe::new();
    let id = host.start(&p, Some(&a), None);
    host.call(Some(&a), "job_kill", json!({"job_id": id.as_str()}))
        .await;
    settled(&host, &id, Some(&a)).await;
    // Unowned → no notice.
    let p = Probe::new();
    let id = host.start(&p, None, None);
    p.finish(FinalStatus::Completed, "done");
    settled(&host, &id, None).await;
    // Read after settlement but before delivery → dropped at take.
    let p = Probe::new();
    let id = host.start(&p, Some(&a), Some(64));
    p.finish(FinalStatus::Failed, "Error: boom");
    settled(&host, &id, Some(&a)).await;
    host.call(Some(&a), "job_output", json!({"job_id": id.as_str()}))
        .await;
    assert!(host.notices.take(&a, 0).is_empty());
    // The bounded notice text used the job's limit.
    let n = sub.recv().await.unwrap();
    assert_eq!(n.job_id.as_str(), "pty-send-4");
    assert!(n.text.len() <= 64);
    // Teardown never notifies.
    let p = Probe::new();
    host.start(&p, Some(&a), None);
    a.dispose().await;
    assert!(sub.try_recv().is_err());
    host.ctx.dispose().await;
}

/// A host whose tool results may take `cap` bytes with their notices, and `n` jobs of agent
/// `a` that finished without `a` seeing them, in the order they settled.
async fn finished_jobs(cap: usize, n: usize) -> (Host, Agent, Vec<JobId>) {
    let host = Host::new(ToolJobsConfig {
        max_result_bytes: Some(cap),
        ..ToolJobsConfig::default()
    });
    let a = host.agent("a");
    let mut ids = Vec::new();
    for _ in 0..n {
        let p = Probe::new();
        let id = host.start(&p, Some(&a), None);
        p.finish(FinalStatus::Completed, "wait: stdin_read");
        settled(&host, &id, Some(&a)).await;
        ids.push(id);
    }
    (host, a, ids)
}

/// The whole notice of job `id` of [`finished_jobs`].
fn whole(id: &JobId) -> String {
    format!(
        "background job {id} (pty-send: pty-1: make test) finished [status: completed, wait: stdin_read]. Read its output with job_output."
    )
}

/// What lines appended to a result cost of its cap: each with the line break before it.
fn cost(lines: &[&str]) -> usize {
    lines.iter().map(|l| l.len() + 1).sum()
}

fn texts(notices: &[dsh_tool_jobs::Notice]) -> Vec<&str> {
    notices.iter().map(|n| n.text.as_str()).collect()
}

/// Room for the summary alone but not for a whole notice and a summary: the summary alone,
/// not "more" (nothing came before it), naming all six jobs rather than five and an ellipsis.
#[tokio::test]
async fn a_summary_alone_names_six_jobs_without_more() {
    const CAP: usize = 400;
    let (host, a, ids) = finished_jobs(CAP, 6).await;
    let names: Vec<String> = ids.iter().map(ToString::to_string).collect();
    let summary = format!(
        "[6 background jobs finished: {}; job_list shows them, job_output reads each]",
        names.join(", ")
    );
    let room = cost(&[&summary]);
    assert!(
        room < cost(&[
            &whole(&ids[0]),
            "[5 more background jobs finished; call job_list]"
        ])
    );
    let taken = host.notices.take(&a, CAP - room);
    assert_eq!(texts(&taken), [summary.as_str()]);
    a.dispose().await;
    host.ctx.dispose().await;
}

/// One take returns whole notices while they fit, then one line naming the rest, or only
/// counting them where naming them does not fit; the result with them stays within the cap.
#[tokio::test]
async fn notices_beyond_the_room_become_one_summary() {
    const CAP: usize = 400;
    let (host, a, ids) = finished_jobs(CAP, 8).await;
    let taken = host.notices.take(&a, 0);
    let taken = texts(&taken);
    assert!(cost(&taken) <= CAP, "{taken:?}");
    assert_eq!(
        taken,
        [
            whole(&ids[0]).as_str(),
            whole(&ids[1]).as_str(),
            "[6 more background jobs finished; call job_list]"
        ]
    );
    assert!(host.notices.take(&a, 0).is_empty());
    // With room for three whole notices and a line naming the other seven, that line names
    // the first five of them.
    const BIG: usize = 1000;
    let (host, a, ids) = finished_jobs(BIG, 10).await;
    let (w0, w1, w2) = (whole(&ids[0]), whole(&ids[1]), whole(&ids[2]));
    let names = format!(
        "[7 more background jobs finished: {}, {}, {}, {}, {}, …; job_list shows them, job_output reads each]",
        ids[3], ids[4], ids[5], ids[6], ids[7]
    );
    let room = cost(&[&w0, &w1, &w2, &names]);
    let taken = host.notices.take(&a, BIG - room);
    assert_eq!(texts(&taken), [w0.as_str(), &w1, &w2, &names]);
    assert_eq!(taken[3].job_id, ids[3]);
    insta::assert_snapshot!("notice_summary", &taken[3].text);
}

/// Every count in a notice agrees with it: one job left out is "1 more background job" and
/// "1 background job", shown and read as "it".
#[tokio::test]
async fn one_job_is_counted_in_the_singular() {
    const CAP: usize = 400;
    let (host, a, ids) = finished_jobs(CAP, 2).await;
    let more = format!(
        "[1 more background job finished: {}; job_list shows it, job_output reads it]",
        ids[1]
    );
    let first = whole(&ids[0]);
    let taken = host
        .notices
        .take(&a, CAP - cost(&[first.as_str(), more.as_str()]));
    assert_eq!(texts(&taken), [first.as_str(), more.as_str()]);

    let (host, a, ids) = finished_jobs(CAP, 1).await;
    let named = format!(
        "[1 background job finished: {}; job_list shows it, job_output reads it]",
        ids[0]
    );
    let taken = host.notices.take(&a, CAP - cost(&[named.as_str()]));
    assert_eq!(texts(&taken), [named.as_str()]);

    let (host, a, _) = finished_jobs(CAP, 1).await;
    let counted = "[1 background job finished; call job_list]";
    let taken = host.notices.take(&a, CAP - cost(&[counted]));
    assert_eq!(texts(&taken), [counted]);
}

/// Whatever the result left of the cap, the notices fill at most that, as whole lines; when
/// not even a summary fits, nothing is appended and the notices wait for a later result.
#[tokio::test]
async fn notices_fill_only_what_the_result_left() {
    const CAP: usize = 600;
    for used in (0..=CAP + 10).step_by(9) {
        let (host, a, ids) = finished_jobs(CAP, 7).await;
        let taken = host.notices.take(&a, used);
        let lines = texts(&taken);
        assert!(used.min(CAP) + cost(&lines) <= CAP, "{used}: {lines:?}");
        for line in &lines {
            assert!(
                ids.iter().any(|id| *line == whole(id))
                    || (line.starts_with('[')
                        && line.ends_with(']')
                        && line.contains(" finished")
                        && !line.contains('\n')),
                "{used}: a cut notice: {line:?}"
            );
        }
        if lines.is_empty() {
            let later = host.notices.take(&a, 0);
            assert_eq!(later[0].text, whole(&ids[0]), "{used}: {later:?}");
        } else {
            assert!(host.notices.take(&a, 0).is_empty(), "{used}");
        }
    }
}

/// A `job_output` whose answer can no longer reach its caller (an HTTP client that went away
/// while it waited) reads nothing: the output stays for the caller's next read.
#[tokio::test]
async fn a_wait_whose_answer_is_lost_leaves_the_output_unread() {
    let host = Host::new(ToolJobsConfig::default());
    let a = host.agent("a");
    let p = Probe::new();
    let id = host.start(&p, Some(&a), None);
    p.push("kept line\n");
    for lost_before in [false, true] {
        let lost = tokio_util::sync::CancellationToken::new();
        let mut call = dsh_tools::ToolCall::new("test").with_answer_lost(lost.clone());
        call.agent = Some(a.clone());
        if lost_before {
            lost.cancel();
        } else {
            tokio::spawn(async move { lost.cancel() });
        }
        let r = host
            .tools
            .execute(
                "job_output",
                json!({"job_id": id.as_str(), "wait": true, "timeout_ms": 60000}),
                call,
            )
            .await;
        assert!(r.is_error, "{lost_before}: {r:?}");
        assert!(
            r.text().starts_with("Error: wait aborted"),
            "{lost_before}: {r:?}"
        );
    }
    let r = host
        .call(Some(&a), "job_output", json!({"job_id": id.as_str()}))
        .await;
    assert!(r.text().starts_with("kept line\n"), "{r:?}");
    host.ctx.dispose().await;
}
