//! Generic background jobs (the seed's §5.1–5.2): a registry of work that runs while the model
//! keeps going, read later with consuming stream reads, waited on, or killed.
//!
//! The crate knows nothing about terminals or tools. A producer (for example background
//! `terminal_send`) calls [`JobRegistry::start`] with a [`JobStart`]: kind, label, output limit,
//! owner and a `run` closure that starts the work and returns [`JobHooks`] (cancel, optional
//! stream read, and a `done` future). The registry owns ids (`<kind>-<N>`), statuses
//! (`running`, `stopping`, `completed`, `killed`, `failed`), waiting, and owner cleanup.
//!
//! **Ownership.** Jobs authorize by the exact owner instance ([`dsh_context::Agent`] equality),
//! like the terminal service: a second MCP connection is a different `Agent` and cannot read,
//! list, wait on or kill the first one's jobs even if it guesses the id. (The seed compared
//! session ids for reads; this project uses one rule everywhere.) Lifecycle follows the owner:
//! disposing the `Agent` cancels its live jobs with reason `owner disposed`, awaits them and
//! forgets them.
//!
//! **Admission.** At most `max_concurrent_jobs_per_owner` (default 10) live jobs per exact
//! owner; every check runs before `run` is called and before an id is consumed, so a refused
//! start has no side effects. A job tool controller must be attached
//! ([`JobRegistry::attach_controller`]), otherwise nothing could read or stop the job.
//!
//! **Retention.** A finished job stays listed and readable until its owner goes, up to
//! [`MAX_FINISHED_JOBS_PER_OWNER`] per owner: beyond that the oldest finished ones are
//! forgotten, those already reported first. The first read of a finished stream job takes its
//! last output and frees the producer's state (later reads have nothing new).
//!
//! ```
//! use dsh_jobs::{FinalStatus, JobHooks, JobOutcome, JobRegistry, JobStart, LocalJobRegistry};
//! # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
//! let jobs = LocalJobRegistry::new(10).unwrap();
//! let _controller = jobs.attach_controller("docs");
//! let id = jobs
//!     .start(JobStart {
//!         kind: "demo".into(),
//!         label: "say hello".into(),
//!         output_limit_bytes: None,
//!         owner: None,
//!         run: Box::new(|| {
//!             Ok(JobHooks {
//!                 cancel: Box::new(|_reason| Ok(())),
//!                 read_output: None,
//!                 stop_leftover: None,
//!                 done: Box::pin(async {
//!                     Ok(JobOutcome {
//!                         status: FinalStatus::Completed,
//!                         detail: None,
//!                         output: Some("hello".into()),
//!                     })
//!                 }),
//!             })
//!         }),
//!     })
//!     .unwrap();
//! assert_eq!(id.as_str(), "demo-1");
//! let cancel = tokio_util::sync::CancellationToken::new();
//! let done = jobs.wait(&id, 5_000.0, None, &cancel).await.unwrap();
//! assert_eq!(done.status.as_str(), "completed");
//! assert_eq!(jobs.read(&id, None).unwrap().text, "hello");
//! # });
//! ```

#![forbid(unsafe_code)]

mod invariant;
mod local;
mod registry;
mod types;

use std::sync::Arc;

use dsh_context::{BoxError, Plugin, Registrar, ServiceKey};

pub use invariant::{check_snapshot, invariant_companion};
pub use local::LocalJobRegistry;
pub use registry::{
    DEFAULT_MAX_CONCURRENT_JOBS_PER_OWNER, JobRegistry, MAX_FINISHED_JOBS_PER_OWNER,
    OWNER_DISPOSED_REASON, SERVICE_DISPOSED_REASON,
};
pub use types::{
    CancelHook, ChangedListener, ControllerId, DoneListener, FinalStatus, JobError, JobHooks,
    JobId, JobOutcome, JobRead, JobSnapshot, JobStart, JobStatus, KillOutcome, ListenerId,
    ReadOutputHook, RunFn, SeenListener, StopLeftoverHook, check_wait_timeout,
};

/// Config of [`JobsPlugin`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobsConfig {
    /// Live jobs admitted per exact owner (default 10, at least 1).
    pub max_concurrent_jobs_per_owner: usize,
}

impl Default for JobsConfig {
    fn default() -> Self {
        Self {
            max_concurrent_jobs_per_owner: DEFAULT_MAX_CONCURRENT_JOBS_PER_OWNER,
        }
    }
}

/// Provides the jobs service as `dyn JobRegistry` (a [`LocalJobRegistry`]) under the plugin
/// name `jobs`; disposing the context disposes the service (every job cancelled and awaited).
#[derive(Debug, Clone, Default)]
pub struct JobsPlugin {
    /// Validated at apply time.
    pub config: JobsConfig,
}

impl Plugin for JobsPlugin {
    fn name(&self) -> &str {
        "jobs"
    }
    fn provides(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<dyn JobRegistry>()]
    }
    fn validate_config(&self) -> Result<(), String> {
        LocalJobRegistry::new(self.config.max_concurrent_jobs_per_owner).map(|_| ())
    }
    fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
        let registry = LocalJobRegistry::new(self.config.max_concurrent_jobs_per_owner)?;
        let service: Arc<dyn JobRegistry> = Arc::new(registry.clone());
        r.provide(service);
        r.on_dispose(move || Box::pin(async move { registry.dispose().await }));
        Ok(())
    }
}
