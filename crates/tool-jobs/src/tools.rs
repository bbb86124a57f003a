//! The three job tools over the jobs service.

use std::sync::Arc;

use dsh_context::Agent;
use dsh_jobs::{JobError, JobId, JobRegistry, KillOutcome};
use dsh_tools::{Card, CardKind, Content, Tool, ToolCall, ToolError};

use crate::ToolJobsConfig;
use crate::render;
use crate::schema::*;

pub(crate) struct Shared {
    pub(crate) jobs: Arc<dyn JobRegistry>,
    pub(crate) config: ToolJobsConfig,
}

impl Shared {
    /// Bounds any single text to the named job's own limit (tail kept, `[result truncated]`).
    /// Success renders already fit, so they pass unchanged; errors, denials and policy
    /// replacements are cut. Jobs the caller cannot see impose no limit.
    fn finalize(
        &self,
        job_id: Option<&str>,
        agent: Option<&Agent>,
        content: &[Content],
    ) -> Option<Vec<Content>> {
        let limit = self
            .jobs
            .get(&JobId::new(job_id?), agent)
            .ok()?
            .output_limit_bytes?;
        match content {
            [only] => only
                .as_text()
                .map(|text| vec![Content::text(render::bound_result(text, limit))]),
            _ => None,
        }
    }
}

fn job_id(raw: &str) -> Result<JobId, ToolError> {
    if raw.trim().is_empty() {
        return Err(ToolError::invalid_args(format!(
            "invalid job_id: expected a non-empty string, got {}; pass the id terminal_send with run_in_background returned (such as \"pty-send-1\"), or call job_list to see your jobs",
            serde_json::Value::String(raw.to_owned())
        )));
    }
    // No job has a longer id: refused without echoing it (it could fill the result).
    if raw.chars().count() > MAX_JOB_ID_CHARS {
        return Err(ToolError::invalid_args(format!(
            "invalid job_id: it is {} characters long, and job ids are at most {MAX_JOB_ID_CHARS} (such as \"pty-send-1\"); call job_list to see your jobs",
            raw.chars().count()
        )));
    }
    // Refused without echoing it (see `id_argument`).
    let Some(id) = dsh_tools::id_argument(raw) else {
        return Err(ToolError::invalid_args(
            "invalid job_id: it contains control characters (a newline, a tab or an escape), which no job id has; call job_list to see your jobs (ids such as \"pty-send-1\")",
        ));
    };
    Ok(JobId::new(id))
}

/// Longest `job_id` a call may name, in chars (the ids jobs get are like `pty-send-1`).
pub(crate) const MAX_JOB_ID_CHARS: usize = 128;

/// The tool error for a jobs service error, with a machine-readable code.
pub(crate) fn job_error(e: JobError) -> ToolError {
    let code = match &e {
        JobError::UnknownJob(_)
        | JobError::NotAJobId { .. }
        | JobError::NoJobsYet(_)
        | JobError::Forgotten(_) => "UNKNOWN_JOB",
        JobError::Foreign(_) => "FOREIGN_JOB",
        JobError::InvalidTimeout(_) => "INVALID_ARGS",
        JobError::WaitAborted | JobError::ConnectionClosing => "ABORTED",
        JobError::LimitReached(_) => "JOB_LIMIT",
        _ => "JOBS",
    };
    ToolError::new(e.to_string()).with_code(code)
}

fn card(title: String, kind: &str, raw_input: Option<&str>) -> Card {
    Card {
        card: CardKind::Generic,
        title: Some(title),
        kind: Some(kind.to_owned()),
        raw_input: raw_input.map(|s| serde_json::Value::String(s.to_owned())),
        ..Card::default()
    }
}

/// `job_output`.
pub(crate) struct OutputTool(pub(crate) Arc<Shared>);

impl Tool for OutputTool {
    type Args = OutputArgs;
    type Output = OutputOutput;

    fn name(&self) -> &'static str {
        "job_output"
    }
    fn description(&self) -> String {
        let config = &self.0.config;
        format!(
            "Read a background job. A job that streams output (a background terminal_send) returns what it printed since your last read; a job with one final result returns it once the job has settled. Every reply ends with [status: ...]. Returns at once unless wait is true (or timeout_ms is given without wait): then it first waits until the job settles or timeout_ms passes (default {} ms, at most {} ms); a wait that times out leaves the job running.",
            config.wait_timeout_ms, config.max_wait_timeout_ms
        )
    }
    async fn execute(&self, args: OutputArgs, call: ToolCall) -> Result<OutputOutput, ToolError> {
        let id = job_id(&args.job_id)?;
        // Checked also without `wait` (where it is unused): a value no wait could take is a
        // mistake the model should hear about, as with `wait: true` (the schema's integer
        // `minimum: 1` refuses it first; this is the registry's own rule).
        if let Some(t) = args.timeout_ms {
            dsh_jobs::check_wait_timeout(t as f64).map_err(job_error)?;
        }
        let agent = call.agent.as_ref();
        let mut waited_ms = None;
        // A timeout alone asks for a wait (a model that gave one meant to wait that long).
        if args.wait.unwrap_or(args.timeout_ms.is_some()) {
            let config = &self.0.config;
            let requested = args.timeout_ms.unwrap_or(config.wait_timeout_ms);
            // A number past u64 arrives saturated: capped like any other.
            let timeout = requested.min(config.max_wait_timeout_ms) as f64;
            // A wait whose answer can no longer reach the caller (an HTTP client gone) stops
            // as a cancelled one does: the output stays for the caller's next read. One whose
            // connection ends says so: the job ends with the connection's agent.
            tokio::select! {
                r = self.0.jobs.wait(&id, timeout, agent, &call.cancel) => r,
                () = call.answer_lost.cancelled() => Err(JobError::WaitAborted),
                () = call.closing.cancelled() => Err(JobError::ConnectionClosing),
            }
            .map_err(|e| match e {
                // Cancelled as the connection closes (its calls' tokens go with it).
                JobError::WaitAborted if call.closing.is_cancelled() => JobError::ConnectionClosing,
                e => e,
            })
            .map_err(job_error)?;
            waited_ms = Some(timeout);
        }
        // Nor is output read for an answer that can no longer be delivered.
        if call.answer_lost.is_cancelled() {
            return Err(job_error(JobError::WaitAborted));
        }
        let read = self.0.jobs.read(&id, agent).map_err(job_error)?;
        // The wait ran out when the job is still live after it.
        let wait_timed_out_ms = waited_ms.filter(|_| read.snapshot.status.is_live());
        let limit = read.snapshot.output_limit_bytes;
        // Structured content carries the same text the model reads: cut to the limit the way
        // the rendered text is (newest output, from a line start, with the truncation marker).
        let text = match render::cut_output(&read.text, &read.snapshot, limit, wait_timed_out_ms) {
            Some(kept) => kept,
            None => read.text,
        };
        Ok(OutputOutput {
            text,
            job: (&read.snapshot).into(),
            limit,
            wait_timed_out_ms,
        })
    }
    fn render(&self, _args: &OutputArgs, out: &OutputOutput) -> String {
        render::render_output(
            &out.text,
            &snapshot_of(&out.job),
            out.limit,
            out.wait_timed_out_ms,
        )
    }
    fn finalize_call(
        &self,
        args: Option<&OutputArgs>,
        agent: Option<&Agent>,
        content: &[Content],
    ) -> Option<Vec<Content>> {
        self.0
            .finalize(args.map(|a| a.job_id.as_str()), agent, content)
    }
    fn present_call(&self, args: &OutputArgs) -> Option<Card> {
        Some(card(
            format!("Read output from background job {}", args.job_id),
            "read",
            Some(&args.job_id),
        ))
    }
}

/// The status-line fields of a public job, as a snapshot for the shared renders.
fn snapshot_of(job: &PublicJob) -> dsh_jobs::JobSnapshot {
    dsh_jobs::JobSnapshot {
        id: JobId::new(job.id.clone()),
        kind: job.kind.clone(),
        label: job.label.clone(),
        output_limit_bytes: None,
        owner_id: None,
        status: match job.status {
            StatusOutput::Running => dsh_jobs::JobStatus::Running,
            StatusOutput::Stopping => dsh_jobs::JobStatus::Stopping,
            StatusOutput::Completed => dsh_jobs::JobStatus::Completed,
            StatusOutput::Killed => dsh_jobs::JobStatus::Killed,
            StatusOutput::Failed => dsh_jobs::JobStatus::Failed,
        },
        detail: job.detail.clone(),
        started_at_ms: job.started_at,
        finished_at_ms: job.finished_at,
        reported: false,
    }
}

/// `job_list`.
pub(crate) struct ListTool(pub(crate) Arc<Shared>);

impl Tool for ListTool {
    type Args = ListArgs;
    type Output = ListOutput;

    fn name(&self) -> &'static str {
        "job_list"
    }
    fn description(&self) -> String {
        "List your running and finished background jobs with their ids, kinds and statuses."
            .to_owned()
    }
    async fn execute(&self, _args: ListArgs, call: ToolCall) -> Result<ListOutput, ToolError> {
        let jobs = self.0.jobs.list(call.agent.as_ref());
        self.0.jobs.shown(&jobs);
        Ok(ListOutput {
            jobs: jobs.iter().map(PublicJob::from).collect(),
        })
    }
    fn render(&self, _args: &ListArgs, out: &ListOutput) -> String {
        let jobs: Vec<_> = out.jobs.iter().map(snapshot_of).collect();
        render::render_list(&jobs, self.0.config.max_list_bytes)
    }
    fn present_call(&self, _args: &ListArgs) -> Option<Card> {
        Some(card("List background jobs".to_owned(), "read", None))
    }
}

/// `job_kill`.
pub(crate) struct KillTool(pub(crate) Arc<Shared>);

impl Tool for KillTool {
    type Args = KillArgs;
    type Output = KillOutput;

    fn name(&self) -> &'static str {
        "job_kill"
    }
    fn description(&self) -> String {
        "Stop a background job and return at once. The job's status becomes killed once its work has actually stopped (job_output with wait true waits for that). A job that already ended is left as it is, except a program it left running (stopped at its own prompt, or full-screen), which job_kill then stops.".to_owned()
    }
    async fn execute(&self, args: KillArgs, call: ToolCall) -> Result<KillOutput, ToolError> {
        let id = job_id(&args.job_id)?;
        let agent = call.agent.as_ref();
        let outcome = self
            .0
            .jobs
            .kill(&id, agent, args.reason.as_deref())
            .map_err(job_error)?;
        let job = self.0.jobs.get(&id, agent).map_err(job_error)?;
        Ok(KillOutput {
            outcome: match outcome {
                KillOutcome::Requested => KillOutcomeOutput::CancellationRequested,
                KillOutcome::AlreadyFinished => KillOutcomeOutput::AlreadyFinished,
                KillOutcome::LeftoverInterrupted => KillOutcomeOutput::LeftoverInterrupted,
            },
            job: (&job).into(),
        })
    }
    fn render(&self, _args: &KillArgs, out: &KillOutput) -> String {
        render::render_kill(
            &snapshot_of(&out.job),
            match out.outcome {
                KillOutcomeOutput::CancellationRequested => KillOutcome::Requested,
                KillOutcomeOutput::AlreadyFinished => KillOutcome::AlreadyFinished,
                KillOutcomeOutput::LeftoverInterrupted => KillOutcome::LeftoverInterrupted,
            },
        )
    }
    fn finalize_call(
        &self,
        args: Option<&KillArgs>,
        agent: Option<&Agent>,
        content: &[Content],
    ) -> Option<Vec<Content>> {
        self.0
            .finalize(args.map(|a| a.job_id.as_str()), agent, content)
    }
    fn present_call(&self, args: &KillArgs) -> Option<Card> {
        Some(card(
            format!("Kill background job {}", args.job_id),
            "execute",
            Some(&args.job_id),
        ))
    }
}
