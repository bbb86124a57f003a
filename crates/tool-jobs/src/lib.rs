//! The model-facing job tools (the seed's §5.3–5.5): `job_output`, `job_list`, `job_kill`,
//! completion notices and the `tool:jobs` prompt section.
//!
//! [`ToolJobsPlugin`] requires the jobs service (`dyn dsh_jobs::JobRegistry`), `Tools` and
//! `SystemPrompt`. It attaches itself as the job controller (so producers may start jobs),
//! registers the three tools and the prompt section, and provides [`JobNotices`], the queue of
//! completion notices a host delivers to each owner. Disposing it detaches and removes all of
//! that.
//!
//! Output limits: each job carries its producer's byte cap. `job_output` keeps the newest
//! output and the whole `[status: …]` line within it, reusing a producer's own
//! `[output truncated]` marker; every other single text about that job (errors, kill
//! acknowledgements, policy replacements) keeps its tail and ends `[result truncated]`; a
//! notice pushed to subscribers degrades in fixed steps (see [`render::render_notice`]), while
//! the notices appended to a tool result are whole lines that fit what the result left of its
//! cap (see [`JobNotices::take`]).

#![forbid(unsafe_code)]

use std::sync::Arc;

use dsh_context::{BoxError, Plugin, Registrar, ServiceKey};
use dsh_invariants::Companion;
use dsh_jobs::JobRegistry;
use dsh_system_prompt::SystemPrompt;
use dsh_tools::Tools;

mod notices;
pub mod render;
pub mod schema;
mod tools;

pub use notices::{JobNotices, NOTICE_SEPARATOR_BYTES, Notice};

/// The `tool:jobs` system-prompt section name.
pub const PROMPT_SECTION_NAME: &str = "tool:jobs";
/// Its order (tool guidance band, next to `tool:pty`).
pub const PROMPT_SECTION_ORDER: i32 = 106;
/// The guidance text.
pub const PROMPT_TEXT: &str = "Background jobs: keep track of every job id you start. You are notified when a job finishes, so do not poll job_output or sleep while waiting; keep working on something else. Collect the output of relevant jobs with job_output before your final answer, using wait only when you are blocked on the result, and stop jobs that no longer matter with job_kill.";

/// Names of the three tools, in catalog (lexicographic) order.
pub const TOOL_NAMES: [&str; 3] = ["job_kill", "job_list", "job_output"];

/// Default `job_output {wait: true}` timeout in milliseconds.
pub const DEFAULT_WAIT_TIMEOUT_MS: u64 = 30_000;
/// Default cap on any `job_output` wait, in milliseconds.
pub const DEFAULT_MAX_WAIT_TIMEOUT_MS: u64 = 600_000;

/// Configuration (the seed's §5.3 keys, snake_case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolJobsConfig {
    /// Wait used by `job_output {wait: true}` without `timeout_ms` (default 30000).
    pub wait_timeout_ms: u64,
    /// Upper bound on any wait (default 600000); must be at least `wait_timeout_ms`.
    pub max_wait_timeout_ms: u64,
    /// Cap on the `job_list` text, in bytes (`None`: no cap); the newest jobs are kept.
    pub max_list_bytes: Option<usize>,
    /// Cap on a whole tool result with the completion notices [`JobNotices::take`] appends to
    /// it, in bytes (`None`: no cap): the notices fill only what the result's own text left,
    /// as whole lines (whole notices oldest first, then one line standing for the rest).
    pub max_result_bytes: Option<usize>,
}

impl Default for ToolJobsConfig {
    fn default() -> Self {
        Self {
            wait_timeout_ms: DEFAULT_WAIT_TIMEOUT_MS,
            max_wait_timeout_ms: DEFAULT_MAX_WAIT_TIMEOUT_MS,
            max_list_bytes: None,
            max_result_bytes: None,
        }
    }
}

impl ToolJobsConfig {
    /// Checks the bounds.
    ///
    /// # Errors
    /// `tool-jobs: wait_timeout_ms (X) exceeds max_wait_timeout_ms (Y)`, or a zero timeout.
    pub fn validate(&self) -> Result<(), String> {
        if self.wait_timeout_ms == 0 || self.max_wait_timeout_ms == 0 {
            return Err(
                "tool-jobs: wait_timeout_ms and max_wait_timeout_ms must be positive".to_owned(),
            );
        }
        if self.wait_timeout_ms > self.max_wait_timeout_ms {
            return Err(format!(
                "tool-jobs: wait_timeout_ms ({}) exceeds max_wait_timeout_ms ({})",
                self.wait_timeout_ms, self.max_wait_timeout_ms
            ));
        }
        Ok(())
    }
}

/// The plugin; see the crate docs.
#[derive(Debug, Clone, Default)]
pub struct ToolJobsPlugin {
    /// Validated at apply time.
    pub config: ToolJobsConfig,
}

impl Plugin for ToolJobsPlugin {
    fn name(&self) -> &str {
        "tool-jobs"
    }
    fn requires(&self) -> Vec<ServiceKey> {
        vec![
            ServiceKey::of::<dyn JobRegistry>(),
            ServiceKey::of::<Tools>(),
            ServiceKey::of::<SystemPrompt>(),
        ]
    }
    fn provides(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<JobNotices>()]
    }
    fn validate_config(&self) -> Result<(), String> {
        self.config.validate()
    }
    fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
        let jobs = r.require::<dyn JobRegistry>()?;
        let tools = r.require::<Tools>()?;
        let prompt = r.require::<SystemPrompt>()?;
        let shared = Arc::new(tools::Shared {
            jobs: jobs.clone(),
            config: self.config.clone(),
        });
        tools.register(tools::OutputTool(shared.clone()))?;
        tools.register(tools::ListTool(shared.clone()))?;
        tools.register(tools::KillTool(shared))?;
        prompt.section(PROMPT_SECTION_NAME, PROMPT_SECTION_ORDER, PROMPT_TEXT)?;
        let notices = Arc::new(JobNotices::new(jobs.clone(), self.config.max_result_bytes));
        let sink = Arc::downgrade(&notices);
        let listener = jobs.on_job_done(Box::new(move |job, owner| {
            if let Some(notices) = sink.upgrade() {
                notices.on_done(job, owner);
            }
        }));
        let controller = jobs.attach_controller("tool-jobs");
        r.provide(notices);
        r.on_dispose(move || {
            Box::pin(async move {
                jobs.detach_controller(controller);
                jobs.remove_listener(listener);
                for name in TOOL_NAMES {
                    tools.unregister(name);
                }
                prompt.remove(PROMPT_SECTION_NAME);
            })
        });
        Ok(())
    }
}

/// This package's invariant companion. No runtime invariant: the tools are stateless and the
/// notice queue only holds texts derived from job snapshots, which the jobs companion checks.
pub fn invariant_companion() -> Companion {
    Companion::none(
        "dsh-tool-jobs",
        "no runtime invariant: the job tools are stateless adapters and queued notices are derived from job snapshots, which the dsh-jobs companion checks",
    )
}
