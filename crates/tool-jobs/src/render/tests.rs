#![allow(clippy::unwrap_used)]

use dsh_jobs::{JobId, JobSnapshot, JobStatus, KillOutcome};
use pretty_assertions::assert_eq;

use super::*;

fn job(id: &str, status: JobStatus, detail: Option<&str>) -> JobSnapshot {
    let kind = id.rsplit_once('-').map_or(id, |(k, _)| k).to_owned();
    JobSnapshot {
        id: JobId::new(id),
        kind,
        label: "pty-1: make test".into(),
        output_limit_bytes: None,
        owner_id: None,
        status,
        detail: detail.map(str::to_owned),
        started_at_ms: 1,
        finished_at_ms: (!status.is_live()).then_some(2),
        reported: false,
    }
}

#[test]
fn output_renders_match_the_seed() {
    let running = job("bash-1", JobStatus::Running, None);
    assert_eq!(
        render_output("line one", &running, None, None),
        "line one\n[status: running]"
    );
    assert_eq!(
        render_output("", &running, None, None),
        "(no new output)\n[status: running]"
    );
    let done = job("subagent-1", JobStatus::Completed, Some("completed"));
    assert_eq!(
        render_output("the answer", &done, None, None),
        "the answer\n[status: completed, completed]"
    );
    let pty = job("pty-send-1", JobStatus::Completed, Some("wait: stdin_read"));
    assert_eq!(
        render_output("live output\n", &pty, None, None),
        "live output\n[status: completed, wait: stdin_read]"
    );
    insta::assert_snapshot!(
        "output_renders",
        [
            render_output("line one", &running, None, None),
            render_output("", &running, None, None),
            render_output("the answer", &done, None, None),
            render_output("tick1\ntick2\n", &pty, None, None),
        ]
        .join("\n---\n")
    );
}

#[test]
fn output_limit_keeps_status_and_reuses_the_producer_marker() {
    let pty = job("pty-send-1", JobStatus::Completed, Some("wait: stdin_read"));
    let long = format!("{}\n", "一二三".repeat(20));
    for cap in [48, 64] {
        let text = render_output(&long, &pty, Some(cap), None);
        assert!(text.len() <= cap, "{cap}: {text:?}");
        // Whole lines only: no piece of the line cut at the front.
        assert!(
            text.starts_with('[') && text.ends_with("[status: completed, wait: stdin_read]"),
            "{cap}: {text:?}"
        );
    }
    // With room for it, exactly one marker right before the status line.
    let text = render_output(&long, &pty, Some(64), None);
    assert_eq!(text.matches("[output truncated]").count(), 1, "{text:?}");
    assert_eq!(
        text, "[output truncated]\n[status: completed, wait: stdin_read]",
        "a line that does not fit is left out whole"
    );
    // A producer marker at the end of the output is reused, never duplicated.
    let cut = format!("{}\n[output truncated]", "一".repeat(40));
    let text = render_output(&cut, &pty, Some(64), None);
    assert_eq!(text.matches("[output truncated]").count(), 1, "{text:?}");
    assert!(text.ends_with("[output truncated]\n[status: completed, wait: stdin_read]"));
    assert!(text.len() <= 64);
    // The status line alone beyond the cap: its tail.
    assert_eq!(render_output(&long, &pty, Some(8), None).len(), 8);
    // A cut inside a line starts the kept output at the next line (numbers stay whole).
    let numbers: String = (1..=300).map(|n| format!("{n}\n")).collect();
    for cap in 60..200 {
        let text = render_output(&numbers, &pty, Some(cap), None);
        assert!(text.len() <= cap, "{cap}: {text:?}");
        let kept: Vec<&str> = text.lines().take_while(|l| !l.starts_with('[')).collect();
        let first: u32 = kept[0]
            .parse()
            .unwrap_or_else(|_| panic!("{cap}: {text:?}"));
        assert_eq!(kept.last(), Some(&"300"), "{cap}: {text:?}");
        assert_eq!(
            kept.len(),
            usize::try_from(301 - first).unwrap(),
            "{cap}: {text:?}"
        );
    }
    // A wait's time as given, fractions too (a wait of 0.4 ms did not take 0).
    assert!(super::wait_timed_out_line(0.4).contains("after 0.4 ms"));
    // A timed-out wait's line stays whole beside the status line, within the cap.
    let running = job("pty-send-1", JobStatus::Running, None);
    let text = render_output(&numbers, &running, Some(300), Some(1000.0));
    assert!(text.len() <= 300, "{text:?}");
    assert!(
        text.ends_with(&format!(
            "\n{}\n[status: running]",
            super::wait_timed_out_line(1000.0)
        )),
        "{text:?}"
    );
    insta::assert_snapshot!(
        "output_limits",
        [48, 64, 8]
            .map(|cap| render_output(&long, &pty, Some(cap), None))
            .join("\n---\n")
    );
}

#[test]
fn list_and_kill_renders() {
    assert_eq!(render_list(&[], None), "(no background jobs)");
    let jobs = [
        job("pty-send-1", JobStatus::Running, None),
        job("pty-send-2", JobStatus::Killed, None),
    ];
    let whole = "pty-send-1 [pty-send] running — pty-1: make test\npty-send-2 [pty-send] killed — pty-1: make test";
    assert_eq!(render_list(&jobs, None), whole);
    assert_eq!(render_list(&jobs, Some(whole.len())), whole);
    // Over the cap, the newest jobs are kept after a line counting the others.
    let cut = render_list(&jobs, Some(whole.len() - 1));
    assert_eq!(
        cut,
        "[… 1 older job not listed]\npty-send-2 [pty-send] killed — pty-1: make test"
    );
    assert!(render_list(&jobs, Some(10)).len() <= 10);
    // A job's detail follows its status: a failed command does not list as plainly completed.
    let failed = job(
        "pty-send-3",
        JobStatus::Completed,
        Some("wait: stdin_read, exit: 2"),
    );
    assert_eq!(
        render_list(&[failed], None),
        "pty-send-3 [pty-send] completed (wait: stdin_read, exit: 2) — pty-1: make test"
    );
    let three = [jobs[0].clone(), jobs[0].clone(), jobs[1].clone()];
    assert_eq!(
        render_list(&three, Some(whole.len() - 1)),
        "[… 2 older jobs not listed]\npty-send-2 [pty-send] killed — pty-1: make test"
    );
    assert_eq!(
        render_kill(&jobs[0], KillOutcome::Requested),
        r#"requested cancellation of job pty-send-1; job_output {"job_id": "pty-send-1", "wait": true} returns once its work has stopped"#
    );
    // A job still stopping that says why (its command outlived every signal): another kill's
    // answer and a timed-out wait show that, not advice to kill it again.
    let stuck = job(
        "pty-send-2",
        JobStatus::Stopping,
        Some("job_kill could not stop it: …; terminal_close ends the session"),
    );
    insta::assert_snapshot!(
        render_kill(&stuck, KillOutcome::Requested),
        @"requested cancellation of job pty-send-2 [status: stopping, job_kill could not stop it: …; terminal_close ends the session]"
    );
    insta::assert_snapshot!(
        render_output("", &stuck, None, Some(2000.0)),
        @"
    (no new output)
    [wait: timed out after 2000 ms with the job still stopping]
    [status: stopping, job_kill could not stop it: …; terminal_close ends the session]
    "
    );
    let done = job("pty-send-3", JobStatus::Completed, Some("wait: stdin_read"));
    assert_eq!(
        render_kill(&done, KillOutcome::AlreadyFinished),
        "job pty-send-3 had already finished [status: completed, wait: stdin_read]"
    );
    let interrupted = job(
        "pty-send-3",
        JobStatus::Completed,
        Some("wait: stdin_read; job_kill then sent it SIGINT"),
    );
    insta::assert_snapshot!(
        render_kill(&interrupted, KillOutcome::LeftoverInterrupted),
        @"job pty-send-3 had already finished, leaving a program running or the shell's command unfinished, which job_kill now stops (terminal_read shows what is left; a send waits until a stopped program is gone) [status: completed, wait: stdin_read; job_kill then sent it SIGINT]"
    );
    assert_eq!(
        bound_result(&"x".repeat(100), 32),
        format!("{}\n[result truncated]", "x".repeat(13))
    );
    assert_eq!(bound_result("short", 32), "short");
    assert_eq!(bound_result(&"x".repeat(100), 8), "uncated]");
}

#[test]
fn notices_degrade_in_exact_shapes() {
    let mut j = job(
        "pty-send-100",
        JobStatus::Completed,
        Some("wait: stdin_read"),
    );
    j.label = "pty-1: for i in 1 2 3 4 5; do echo tick$i; sleep 1; done".into();
    let full = render_notice(&j, None);
    assert_eq!(
        full,
        "background job pty-send-100 (pty-send: pty-1: for i in 1 2 3 4 5; do echo tick$i; sleep 1; done) finished [status: completed, wait: stdin_read]. Read its output with job_output."
    );
    assert_eq!(
        render_notice(&j, Some(64)),
        "background job pty-send-100\n[notice truncated]\nDone; job_output."
    );
    assert_eq!(
        render_notice(&j, Some(61)),
        "background job pty-send-100\nDone; job_output."
    );
    assert_eq!(
        render_notice(&j, Some(32)),
        "background job\nDone; job_output."
    );
    assert_eq!(render_notice(&j, Some(8)), "_output.");
    let at80 = render_notice(&j, Some(80));
    assert_eq!(
        at80,
        "background job pty-send-100 (pty-send: pty-\n[notice truncated]\nDone; job_output."
    );
    for cap in [8, 32, 61, 64, 80, 1000] {
        assert!(render_notice(&j, Some(cap)).len() <= cap);
    }
    insta::assert_snapshot!(
        "notices",
        [None, Some(80), Some(64), Some(61), Some(32), Some(8)]
            .map(|cap| render_notice(&j, cap))
            .join("\n---\n")
    );
}

#[test]
fn a_cut_output_is_the_rendered_text_without_its_status_line() {
    let text: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
    let j = job("pty-send-1", JobStatus::Running, None);
    let kept = super::cut_output(&text, &j, Some(2048), None).expect("cut");
    let rendered = render_output(&text, &j, Some(2048), None);
    assert_eq!(format!("{kept}\n[status: running]"), rendered);
    assert!(kept.ends_with("line 5000\n[output truncated]"), "{kept}");
    // Rendering the kept text gives the same result.
    assert_eq!(render_output(&kept, &j, Some(2048), None), rendered);
    // Text that fits is not cut.
    assert_eq!(super::cut_output("short\n", &j, Some(2048), None), None);
    assert_eq!(super::cut_output("", &j, Some(2048), None), None);
}
