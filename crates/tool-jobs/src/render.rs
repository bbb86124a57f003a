//! Model-visible texts of the job tools: renders, the status line, output-limit application
//! (the seed's §5.5) and completion notices. Every cut is UTF-8 safe.

use dsh_jobs::{JobSnapshot, JobStatus, KillOutcome};
use dsh_output_retention::{head_slice, tail_slice, whole_lines_before};

/// Marker a producer appends when it cut its own output; reused, never duplicated.
pub const OUTPUT_TRUNCATED: &str = "\n[output truncated]";
/// Marker for any other job tool text (errors, acknowledgements) cut to a job's limit.
pub const RESULT_TRUNCATED: &str = "\n[result truncated]";
/// Marker inside a completion notice whose details were cut.
pub const NOTICE_TRUNCATED: &str = "\n[notice truncated]";
/// The closing action of a cut notice.
pub const NOTICE_SHORT_ACTION: &str = "\nDone; job_output.";
/// `job_output` body when nothing new was produced.
pub const NO_NEW_OUTPUT: &str = "(no new output)";
/// `job_list` text when the caller has no jobs.
pub const NO_JOBS: &str = "(no background jobs)";

/// `[status: <status>]` or `[status: <status>, <detail>]`.
pub fn status_line(job: &JobSnapshot) -> String {
    match &job.detail {
        Some(detail) => format!("[status: {}, {detail}]", job.status),
        None => format!("[status: {}]", job.status),
    }
}

/// Keeps the newest part of `content` and a fixed `suffix`, within `cap` bytes.
fn fit_with_suffix(content: &str, suffix: &str, cap: usize) -> String {
    if suffix.len() >= cap {
        return tail_slice(suffix, cap).to_owned();
    }
    format!("{}{suffix}", tail_slice(content, cap - suffix.len()))
}

/// When [`render_output`] has to cut `text` to `limit`: the output part it keeps (the newest
/// output from a line start, ending with the truncation marker), without the status line.
/// `None` when it fits whole.
pub fn cut_output(
    text: &str,
    job: &JobSnapshot,
    limit: Option<usize>,
    wait_timed_out_ms: Option<f64>,
) -> Option<String> {
    if text.is_empty() {
        return None;
    }
    let rendered = render_output(text, job, limit, wait_timed_out_ms);
    let status = format!("\n{}", status_lines(job, wait_timed_out_ms));
    let body = rendered.strip_suffix(&status)?;
    (body.len() < text.trim_end_matches('\n').len()).then(|| body.to_owned())
}

/// The line before the status line of a `job_output` whose wait ran out (`ms` milliseconds)
/// with the job still live.
pub fn wait_timed_out_line(ms: f64) -> String {
    format!(
        "[wait: timed out after {ms} ms with the job still running; call job_output with wait true again to keep waiting, or job_kill to stop it]"
    )
}

/// The status line, after [`wait_timed_out_line`] when the wait ran out (for a job already
/// stopping that says why, the status line alone says what to do).
fn status_lines(job: &JobSnapshot, wait_timed_out_ms: Option<f64>) -> String {
    match wait_timed_out_ms {
        Some(ms) if job.status == JobStatus::Stopping && job.detail.is_some() => format!(
            "[wait: timed out after {ms} ms with the job still stopping]\n{}",
            status_line(job)
        ),
        Some(ms) => format!("{}\n{}", wait_timed_out_line(ms), status_line(job)),
        None => status_line(job),
    }
}

/// The `job_output` text: the output (or `(no new output)`), a newline unless it already ends
/// with one, then the status line (after [`wait_timed_out_line`] when `wait_timed_out_ms` says
/// a wait ran out). With a `limit`, the newest output and the whole status lines are kept; a
/// cut adds `[output truncated]` unless the producer's own marker already ends the kept
/// output.
pub fn render_output(
    text: &str,
    job: &JobSnapshot,
    limit: Option<usize>,
    wait_timed_out_ms: Option<f64>,
) -> String {
    let body = if text.is_empty() { NO_NEW_OUTPUT } else { text };
    let sep = if body.ends_with('\n') { "" } else { "\n" };
    let status = status_lines(job, wait_timed_out_ms);
    let full = format!("{body}{sep}{status}");
    let Some(cap) = limit else { return full };
    if full.len() <= cap {
        return full;
    }
    let content = body.strip_suffix('\n').unwrap_or(body);
    let marker = if content.ends_with(OUTPUT_TRUNCATED.trim_start_matches('\n')) {
        ""
    } else {
        OUTPUT_TRUNCATED
    };
    whole_lines_before(content, &format!("{marker}\n{status}"), cap)
}

/// Any other single text cut to a job's limit: the newest part plus `[result truncated]`.
pub fn bound_result(text: &str, cap: usize) -> String {
    if text.len() <= cap {
        return text.to_owned();
    }
    fit_with_suffix(text, RESULT_TRUNCATED, cap)
}

/// The `job_list` text: one `<id> [<kind>] <status> — <label>` line per job, oldest first
/// (`<status> (<detail>)` when the job has a detail: a finished send's exit status, or the
/// prompt it stopped at, so a failed command or one waiting for an answer does not list as
/// plainly `completed`), or `(no background jobs)`. Within `cap` bytes (when given) the
/// newest lines are kept after a first line `[… N older jobs not listed]`.
pub fn render_list(jobs: &[JobSnapshot], cap: Option<usize>) -> String {
    if jobs.is_empty() {
        return NO_JOBS.to_owned();
    }
    let lines: Vec<String> = jobs
        .iter()
        .map(|j| match &j.detail {
            Some(detail) => format!(
                "{} [{}] {} ({detail}) — {}",
                j.id, j.kind, j.status, j.label
            ),
            None => format!("{} [{}] {} — {}", j.id, j.kind, j.status, j.label),
        })
        .collect();
    let whole = lines.join("\n");
    let Some(cap) = cap.filter(|&cap| whole.len() > cap) else {
        return whole;
    };
    // The newest lines that fit after the omission line (sized for the largest count).
    let room = cap.saturating_sub(older_jobs_line(lines.len()).len() + 1);
    let mut used = 0;
    let kept = lines
        .iter()
        .rev()
        .take_while(|line| {
            used += line.len() + 1;
            used <= room
        })
        .count();
    let mut text = older_jobs_line(lines.len() - kept);
    for line in &lines[lines.len() - kept..] {
        text.push('\n');
        text.push_str(line);
    }
    if text.len() > cap {
        return head_slice(&text, cap).to_owned();
    }
    text
}

/// The first line of a cut `job_list`: `n` older jobs are not listed.
fn older_jobs_line(n: usize) -> String {
    format!("[… {} not listed]", count_jobs(n, "older "))
}

/// `n` jobs in words, `words` before the noun: `1 older job`, `2 older jobs`.
pub(crate) fn count_jobs(n: usize, words: &str) -> String {
    let noun = if n == 1 { "job" } else { "jobs" };
    format!("{n} {words}{noun}")
}

/// The `job_kill` acknowledgement.
pub fn render_kill(job: &JobSnapshot, outcome: KillOutcome) -> String {
    match outcome {
        // A job still stopping from an earlier kill may say why (see
        // `JobRegistry::note_unstoppable`).
        KillOutcome::Requested => match &job.detail {
            Some(_) => format!(
                "requested cancellation of job {} {}",
                job.id,
                status_line(job)
            ),
            None => format!(
                "requested cancellation of job {id}; job_output {{\"job_id\": \"{id}\", \"wait\": true}} returns once its work has stopped",
                id = job.id
            ),
        },
        KillOutcome::AlreadyFinished => {
            format!("job {} had already finished {}", job.id, status_line(job))
        }
        KillOutcome::LeftoverInterrupted => format!(
            "job {} had already finished, leaving a program running or the shell's command unfinished, which job_kill now stops (terminal_read shows what is left; a send waits until a stopped program is gone) {}",
            job.id,
            status_line(job)
        ),
    }
}

/// The whole completion notice for a settled job, one line:
/// `background job <id> (<kind>: <label>) finished [status…]. Read its output with job_output.`
pub fn notice_line(job: &JobSnapshot) -> String {
    format!(
        "background job {} ({}: {}) finished {}. Read its output with job_output.",
        job.id,
        job.kind,
        job.label,
        status_line(job)
    )
}

/// The completion notice for a settled job ([`notice_line`]) within `limit` bytes, as pushed
/// to subscribers of [`crate::JobNotices`].
///
/// Over the limit it degrades in steps: the head of the details plus
/// `[notice truncated]` and `Done; job_output.`; then `background job <id>` and the action;
/// then the head of that prefix before the action; finally the tail of the action.
pub fn render_notice(job: &JobSnapshot, limit: Option<usize>) -> String {
    let prefix = format!("background job {}", job.id);
    let details = format!(
        " ({}: {}) finished {}",
        job.kind,
        job.label,
        status_line(job)
    );
    let full = notice_line(job);
    let Some(cap) = limit else { return full };
    if full.len() <= cap {
        return full;
    }
    let fixed = prefix.len() + NOTICE_TRUNCATED.len() + NOTICE_SHORT_ACTION.len();
    if fixed <= cap {
        let kept = head_slice(&details, cap - fixed);
        return format!("{prefix}{kept}{NOTICE_TRUNCATED}{NOTICE_SHORT_ACTION}");
    }
    if prefix.len() + NOTICE_SHORT_ACTION.len() <= cap {
        return format!("{prefix}{NOTICE_SHORT_ACTION}");
    }
    if NOTICE_SHORT_ACTION.len() <= cap {
        let kept = head_slice(&prefix, cap - NOTICE_SHORT_ACTION.len());
        return format!("{kept}{NOTICE_SHORT_ACTION}");
    }
    tail_slice(NOTICE_SHORT_ACTION, cap).to_owned()
}

#[cfg(test)]
mod tests;
