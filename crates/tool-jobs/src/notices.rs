//! Completion notices: queued per exact owner for the host to deliver.

use std::sync::Arc;

use dsh_context::Agent;
use dsh_jobs::{JobId, JobRegistry, JobSnapshot};
use parking_lot::Mutex;
use tokio::sync::broadcast;

use crate::render::{count_jobs, notice_line, render_notice};

/// One completion notice.
#[derive(Debug, Clone)]
pub struct Notice {
    /// The exact owner the notice is for.
    pub owner: Agent,
    /// The settled job (the first job summarised, for a line standing for several).
    pub job_id: JobId,
    /// The model-visible text: from [`JobNotices::subscribe`], the notice within the job's
    /// output limit; from [`JobNotices::take`], one whole line (see there).
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
    /// Bytes a tool result may take with the notices [`JobNotices::take`] appends to it.
    max_result_bytes: Option<usize>,
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

/// Bytes each appended line costs on top of its text: the line break that separates it from
/// what comes before when a client shows a result's text blocks together.
pub const NOTICE_SEPARATOR_BYTES: usize = 1;

/// What one appended line costs of a result's cap.
fn cost(text: &str) -> usize {
    text.len() + NOTICE_SEPARATOR_BYTES
}

/// The lines that may stand for `rest` (not empty), the notices that did not fit whole, longest
/// first: one naming their jobs, then one only counting them. `after_kept`: whole notices come
/// before it ("N more background jobs").
fn summary_lines(rest: &[Pending], after_kept: bool) -> [String; 2] {
    let jobs = count_jobs(
        rest.len(),
        if after_kept {
            "more background "
        } else {
            "background "
        },
    );
    let named = if rest.len() <= SUMMARY_IDS + 1 {
        rest.len()
    } else {
        SUMMARY_IDS
    };
    let ids: Vec<&str> = rest[..named]
        .iter()
        .map(|p| p.notice.job_id.as_str())
        .collect();
    let elided = if named < rest.len() { ", …" } else { "" };
    let (them, each) = if rest.len() == 1 {
        ("it", "it")
    } else {
        ("them", "each")
    };
    [
        format!(
            "[{jobs} finished: {}{elided}; job_list shows {them}, job_output reads {each}]",
            ids.join(", ")
        ),
        format!("[{jobs} finished; call job_list]"),
    ]
}

/// A queued notice whose job the owner has not seen settle, with that job.
struct Pending {
    notice: Notice,
    job: JobSnapshot,
}

impl Pending {
    /// The whole one-line notice, when it is within the job's own output limit.
    fn line(&self) -> Option<String> {
        let line = notice_line(&self.job);
        self.job
            .output_limit_bytes
            .is_none_or(|limit| line.len() <= limit)
            .then_some(line)
    }
}

/// How many notices a slow subscriber may lag behind before it skips some (the queue behind
/// [`JobNotices::take`] is unaffected).
const SUBSCRIBER_BACKLOG: usize = 256;

impl JobNotices {
    /// An empty notice queue over `jobs`. [`JobNotices::take`] keeps a result with its notices
    /// within `max_result_bytes` (`None`: no cap).
    pub fn new(jobs: Arc<dyn JobRegistry>, max_result_bytes: Option<usize>) -> Self {
        let (tx, _) = broadcast::channel(SUBSCRIBER_BACKLOG);
        Self {
            jobs,
            max_result_bytes,
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

    /// The notices to append to `owner`'s tool result whose own text takes `result_bytes`,
    /// oldest first, skipping jobs whose final status the owner has seen since (a `job_output`
    /// of the settled job, for instance). Each is one whole line, never cut: the result with
    /// every returned line (each costing [`NOTICE_SEPARATOR_BYTES`] more than its text) stays
    /// within the cap, so only what the result left of it is filled:
    /// - every notice whole ([`render::notice_line`]) when all fit (and each is within its
    ///   job's output limit);
    /// - else whole notices while they fit, then one line standing for the rest:
    ///   `[N more background jobs finished: <ids>; job_list shows them, job_output reads each]`
    ///   (`N background jobs` when no whole notice comes before it, `1 … job` for one; the
    ///   ids in the order the jobs settled, the first five named, all six when there are six),
    ///   or where that does not fit `[N more background jobs finished; call job_list]`;
    /// - else (not even that fits) nothing: the notices stay queued for a later result.
    ///
    /// [`render::notice_line`]: crate::render::notice_line
    pub fn take(&self, owner: &Agent, result_bytes: usize) -> Vec<Notice> {
        let pending = self.take_pending(owner);
        let room = self
            .max_result_bytes
            .map_or(usize::MAX, |cap| cap.saturating_sub(result_bytes));
        let mut whole: Vec<String> = Vec::new();
        let mut spent = 0;
        for line in pending.iter().map_while(Pending::line) {
            if spent + cost(&line) > room {
                break;
            }
            spent += cost(&line);
            whole.push(line);
        }
        // Fewer whole notices while the line standing for the rest does not fit after them.
        let summary = loop {
            if whole.len() == pending.len() {
                break None;
            }
            let rest = &pending[whole.len()..];
            let fits = summary_lines(rest, !whole.is_empty())
                .into_iter()
                .find(|line| spent + cost(line) <= room);
            if let Some(line) = fits {
                break Some((rest[0].notice.job_id.clone(), line));
            }
            match whole.pop() {
                Some(line) => spent -= cost(&line),
                None => {
                    self.requeue(pending);
                    return Vec::new();
                }
            }
        };
        let mut out: Vec<Notice> = pending
            .into_iter()
            .zip(whole)
            .map(|(p, text)| Notice { text, ..p.notice })
            .collect();
        if let Some((job_id, text)) = summary {
            out.push(Notice {
                owner: owner.clone(),
                job_id,
                text,
            });
        }
        out
    }

    /// Removes `owner`'s queued notices, oldest first, with their jobs, dropping those whose
    /// job the owner has seen settle or that is gone.
    fn take_pending(&self, owner: &Agent) -> Vec<Pending> {
        let mine: Vec<Notice> = {
            let mut queue = self.queue.lock();
            let (mine, rest) = std::mem::take(&mut *queue)
                .into_iter()
                .partition(|n| n.owner == *owner);
            *queue = rest;
            mine
        };
        mine.into_iter()
            .filter_map(|notice| {
                let job = self.jobs.get(&notice.job_id, Some(owner)).ok()?;
                (!job.reported).then_some(Pending { notice, job })
            })
            .collect()
    }

    /// Puts notices [`JobNotices::take`] could not deliver back at the front of the queue,
    /// ahead of any queued since (they settled first).
    fn requeue(&self, pending: Vec<Pending>) {
        let mut queue = self.queue.lock();
        let newer = std::mem::take(&mut *queue);
        queue.extend(pending.into_iter().map(|p| p.notice));
        queue.extend(newer);
    }

    /// Every notice as it is queued (all owners; filter by [`Notice::owner`]).
    pub fn subscribe(&self) -> broadcast::Receiver<Notice> {
        self.tx.subscribe()
    }
}
