//! Completion notices: queued per exact owner for the host to deliver.

use std::sync::Arc;

use dsh_context::Agent;
use dsh_jobs::{JobId, JobRegistry, JobSnapshot};
use parking_lot::Mutex;
use tokio::sync::broadcast;

use crate::render::render_notice;

/// One completion notice.
#[derive(Debug, Clone)]
pub struct Notice {
    /// The exact owner the notice is for.
    pub owner: Agent,
    /// The settled job.
    pub job_id: JobId,
    /// The model-visible text, already bounded by the job's output limit.
    pub text: String,
}

/// Completion notices for owned jobs that settled without the owner seeing their final status
/// (no kill, no wait, no read of the settled job). Provided by the tool-jobs plugin.
///
/// A host delivers them two ways: [`JobNotices::take`] drains an owner's queue (for example to
/// append to that owner's next tool result, so each notice is seen once), and
/// [`JobNotices::subscribe`] streams every new notice as it is queued (for example for a log
/// notification). Notices of owners that are no longer live are dropped.
pub struct JobNotices {
    jobs: Arc<dyn JobRegistry>,
    queue: Mutex<Vec<Notice>>,
    tx: broadcast::Sender<Notice>,
}

impl std::fmt::Debug for JobNotices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobNotices")
            .field("queued", &self.queue.lock().len())
            .finish()
    }
}

/// How many notices a slow subscriber may lag behind before it skips some (the queue behind
/// [`JobNotices::take`] is unaffected).
const SUBSCRIBER_BACKLOG: usize = 256;

impl JobNotices {
    /// An empty notice queue over `jobs`.
    pub fn new(jobs: Arc<dyn JobRegistry>) -> Self {
        let (tx, _) = broadcast::channel(SUBSCRIBER_BACKLOG);
        Self {
            jobs,
            queue: Mutex::new(Vec::new()),
            tx,
        }
    }

    /// Queues the notice for a settled job, if it is owned, unreported and its owner is live.
    pub(crate) fn on_done(&self, job: &JobSnapshot, owner: Option<&Agent>) {
        let Some(owner) = owner else { return };
        if job.reported || !owner.is_live() {
            return;
        }
        let notice = Notice {
            owner: owner.clone(),
            job_id: job.id.clone(),
            text: render_notice(job, job.output_limit_bytes),
        };
        {
            let mut queue = self.queue.lock();
            queue.retain(|n| n.owner.is_live());
            queue.push(notice.clone());
        }
        let _ = self.tx.send(notice);
    }

    /// Removes and returns `owner`'s queued notices, oldest first, skipping jobs whose final
    /// status the owner has seen since (a `job_output` of the settled job, for instance).
    pub fn take(&self, owner: &Agent) -> Vec<Notice> {
        let mine: Vec<Notice> = {
            let mut queue = self.queue.lock();
            let (mine, rest) = std::mem::take(&mut *queue)
                .into_iter()
                .partition(|n| n.owner == *owner);
            *queue = rest;
            mine
        };
        mine.into_iter()
            .filter(|n| {
                self.jobs
                    .get(&n.job_id, Some(owner))
                    .is_ok_and(|s| !s.reported)
            })
            .collect()
    }

    /// Every notice as it is queued (all owners; filter by [`Notice::owner`]).
    pub fn subscribe(&self) -> broadcast::Receiver<Notice> {
        self.tx.subscribe()
    }
}
