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
    /// Bytes of notice text one [`JobNotices::take`] returns at most.
    max_bytes: Option<usize>,
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

/// Job ids a summary of notices left out names at most (one more is named rather than
/// elided).
const SUMMARY_IDS: usize = 5;

/// The notice standing for `rest` (not empty), which did not fit a result's notice budget;
/// `after_kept`: whole notices come before it ("N more background jobs").
fn more_jobs_line(rest: &[Notice], after_kept: bool) -> String {
    let named = if rest.len() <= SUMMARY_IDS + 1 {
        rest.len()
    } else {
        SUMMARY_IDS
    };
    let ids: Vec<&str> = rest[..named].iter().map(|n| n.job_id.as_str()).collect();
    let elided = if named < rest.len() { ", …" } else { "" };
    let more = if after_kept { " more" } else { "" };
    format!(
        "[{}{more} background jobs finished: {}{elided}; job_list shows them, job_output reads each]",
        rest.len(),
        ids.join(", ")
    )
}

/// How many notices a slow subscriber may lag behind before it skips some (the queue behind
/// [`JobNotices::take`] is unaffected).
const SUBSCRIBER_BACKLOG: usize = 256;

impl JobNotices {
    /// An empty notice queue over `jobs`, whose [`JobNotices::take`] returns at most
    /// `max_bytes` of notice text (`None`: no cap).
    pub fn new(jobs: Arc<dyn JobRegistry>, max_bytes: Option<usize>) -> Self {
        let (tx, _) = broadcast::channel(SUBSCRIBER_BACKLOG);
        Self {
            jobs,
            max_bytes,
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
    /// Within the cap: whole notices while they fit, then one notice
    /// `[N more background jobs finished: <ids>; job_list shows them, job_output reads each]`
    /// for the rest (`N background jobs` when none fit; the ids in the order the jobs
    /// settled, the first five named, all six when there are six).
    pub fn take(&self, owner: &Agent) -> Vec<Notice> {
        let mut notices = self.take_all(owner);
        let Some(cap) = self.max_bytes else {
            return notices;
        };
        let total: usize = notices.iter().map(|n| n.text.len()).sum();
        if total <= cap {
            return notices;
        }
        // Room for the summary when every notice goes into it (its longest form).
        let room = cap.saturating_sub(more_jobs_line(&notices, true).len());
        let mut used = 0;
        let kept = notices
            .iter()
            .take_while(|n| {
                used += n.text.len();
                used <= room
            })
            .count();
        let rest = notices.split_off(kept);
        let Some(first) = rest.first() else {
            return notices;
        };
        let job_id = first.job_id.clone();
        let mut text = more_jobs_line(&rest, kept > 0);
        if text.len() > cap {
            text = dsh_output_retention::head_slice(&text, cap).to_owned();
        }
        notices.push(Notice {
            owner: owner.clone(),
            job_id,
            text,
        });
        notices
    }

    /// [`JobNotices::take`] without the cap.
    fn take_all(&self, owner: &Agent) -> Vec<Notice> {
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
