//! Argument and output types of the three job tools: the single source of their JSON Schemas
//! (field doc comments are the descriptions the model sees). Shapes follow the seed's §5.4.

use dsh_jobs::{JobSnapshot, JobStatus};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `job_output` arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputArgs {
    /// Job id returned by the tool that started the work.
    #[schemars(length(max = crate::tools::MAX_JOB_ID_CHARS))]
    pub job_id: String,
    /// Block until the job reaches a terminal status or the timeout passes. A timed-out wait reports running and leaves the job alive.
    #[serde(default)]
    #[schemars(with = "bool")]
    pub wait: Option<bool>,
    /// Maximum wait in milliseconds. Given without wait, the read waits as with wait: true (wait: false reads at once). Defaults to the configured wait and is capped by the configured maximum.
    #[serde(default)]
    #[schemars(with = "u64", range(min = 1))]
    pub timeout_ms: Option<u64>,
}

/// `job_list` arguments (none).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {}

/// `job_kill` arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillArgs {
    /// Job id returned by the tool that started the work.
    #[schemars(length(max = crate::tools::MAX_JOB_ID_CHARS))]
    pub job_id: String,
    /// Optional short reason, written to the server's log (the job's output does not show it).
    #[serde(default)]
    #[schemars(with = "String")]
    pub reason: Option<String>,
}

/// A job's status.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum StatusOutput {
    /// The work is in progress.
    Running,
    /// Cancellation was requested; the work has not stopped yet.
    Stopping,
    /// Finished on its own.
    Completed,
    /// Stopped after job_kill.
    Killed,
    /// Failed.
    Failed,
}

impl From<JobStatus> for StatusOutput {
    fn from(s: JobStatus) -> Self {
        match s {
            JobStatus::Running => Self::Running,
            JobStatus::Stopping => Self::Stopping,
            JobStatus::Completed => Self::Completed,
            JobStatus::Killed => Self::Killed,
            JobStatus::Failed => Self::Failed,
        }
    }
}

/// The public view of a job (no owner, no reported flag).
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PublicJob {
    /// `<kind>-<N>`.
    pub id: String,
    /// The producer's kind, e.g. `pty-send`.
    pub kind: String,
    /// One-line label.
    pub label: String,
    /// Current status.
    pub status: StatusOutput,
    /// Short status detail, e.g. `wait: stdin_read`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Milliseconds since the Unix epoch when the job started.
    #[serde(rename = "startedAt")]
    pub started_at: u64,
    /// Milliseconds since the Unix epoch when the job reached a terminal status.
    #[serde(rename = "finishedAt", skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<u64>,
}

impl From<&JobSnapshot> for PublicJob {
    fn from(s: &JobSnapshot) -> Self {
        Self {
            id: s.id.to_string(),
            kind: s.kind.clone(),
            label: s.label.clone(),
            status: s.status.into(),
            detail: s.detail.clone(),
            started_at: s.started_at_ms,
            finished_at: s.finished_at_ms,
        }
    }
}

/// `job_output` output.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
pub struct OutputOutput {
    /// New output (stream jobs) or the result (final-output jobs).
    pub text: String,
    /// The job after the read.
    pub job: PublicJob,
    /// The job's byte cap for the rendered result (not part of the output).
    #[serde(skip)]
    pub(crate) limit: Option<usize>,
    /// How long a wait ran before it timed out with the job still live (rendered as a line
    /// before the status; the job's status says it runs).
    #[serde(skip)]
    pub(crate) wait_timed_out_ms: Option<f64>,
}

/// `job_list` output (wrapped in an object: MCP structured content must be one).
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct ListOutput {
    /// The caller's jobs, in start order.
    pub jobs: Vec<PublicJob>,
}

/// What `job_kill` did.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum KillOutcomeOutput {
    /// Cancellation was requested; the job becomes killed once its work stops.
    CancellationRequested,
    /// The job had already finished.
    AlreadyFinished,
    /// The job had already finished, leaving a program waiting at its input prompt (a
    /// background send that ended there), and that program was sent SIGINT.
    LeftoverInterrupted,
}

/// `job_kill` output.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct KillOutput {
    /// What happened.
    pub outcome: KillOutcomeOutput,
    /// The job after the request.
    pub job: PublicJob,
}
