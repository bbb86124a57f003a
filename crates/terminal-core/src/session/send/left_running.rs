//! What the session started that still runs once its shell exited: `nohup cmd &`,
//! `setsid cmd &` and other children that outlive the shell keep running (outside a sandbox,
//! whose PID namespace ends with the shell) until `terminal_close`, and the exit's result
//! names them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::SendOp;
use crate::process::ProcessIdentity;
use crate::session::Inner;

/// How long the processes found still running at the exit may take to go on their own (a
/// sandbox's PID namespace ending with the shell, a SIGHUP the shell's exit sent them) before
/// the result says they run.
const GONE_WITHIN: Duration = Duration::from_millis(200);

/// How often, within [`GONE_WITHIN`], the processes are looked at again.
const RECHECK_EVERY: Duration = Duration::from_millis(20);

impl SendOp {
    /// Records, for the exit's result, the command names of the processes the session
    /// started that still run after its shell exited (see [`running_names`]); nothing when
    /// none do. Reads `/proc` off the async workers; waits up to [`GONE_WITHIN`] for ones that
    /// are ending anyway.
    pub(super) async fn note_left_running(&self, inner: &Arc<Inner>) {
        let inner = Arc::clone(inner);
        let names = tokio::task::spawn_blocking(move || {
            let until = Instant::now() + GONE_WITHIN;
            loop {
                let alive = match inner.tracker.lock().as_mut() {
                    Some(t) => {
                        t.refresh();
                        t.captured()
                    }
                    None => Vec::new(),
                };
                let names = running_names(&alive);
                if names.is_empty() || Instant::now() >= until {
                    return names;
                }
                std::thread::sleep(RECHECK_EVERY);
            }
        })
        .await
        .unwrap_or_default();
        self.shared.lock().left_running = names;
    }
}

/// The command names (`comm`) of the live, non-zombie processes among `ids`, in order.
fn running_names(ids: &[ProcessIdentity]) -> Vec<String> {
    ids.iter()
        .filter_map(|id| crate::process::stat(id.pid).filter(|s| s.start_time == id.start_time))
        .filter(|s| !s.is_zombie())
        .map(|s| s.comm)
        .collect()
}
