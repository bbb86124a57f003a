//! The one thread every PTY child is forked from.
//!
//! A child that asks for a parent-death signal (`PR_SET_PDEATHSIG`, e.g. bubblewrap's
//! `--die-with-parent`) gets it when the *thread* that forked it exits, not when the process
//! does. Forking from tokio's blocking pool, whose idle threads retire after a keep-alive
//! (10 s by default), killed such sessions that long after they opened. This thread is started
//! on first use and lives as long as the process, so a parent-death signal means what it says.

use std::sync::OnceLock;
use std::sync::mpsc;

/// A unit of work for the spawner thread.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// Name of the spawner thread (visible in `/proc/<pid>/task/*/comm`).
pub(super) const SPAWNER_THREAD_NAME: &str = "dsh-pty-spawner";

/// The spawner thread is gone (it could not start, or a job panicked on it).
#[derive(Debug)]
pub(super) struct SpawnerGone;

fn sender() -> Option<&'static mpsc::Sender<Job>> {
    static SENDER: OnceLock<Option<mpsc::Sender<Job>>> = OnceLock::new();
    SENDER
        .get_or_init(|| {
            let (tx, rx) = mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name(SPAWNER_THREAD_NAME.to_owned())
                .spawn(move || {
                    while let Ok(job) = rx.recv() {
                        job();
                    }
                })
                .map_err(|err| tracing::error!(%err, "cannot start the PTY spawner thread"))
                .ok()
                .map(|_| tx)
        })
        .as_ref()
}

/// Runs `job` on the spawner thread and waits (without blocking the runtime) for its result.
///
/// # Errors
/// [`SpawnerGone`] when the thread could not start or `job` panicked.
pub(super) async fn on_spawner_thread<T: Send + 'static>(
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, SpawnerGone> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(job());
    });
    sender()
        .ok_or(SpawnerGone)?
        .send(job)
        .map_err(|_| SpawnerGone)?;
    rx.await.map_err(|_| SpawnerGone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_run_on_one_named_long_lived_thread() {
        let first = on_spawner_thread(|| std::thread::current().id())
            .await
            .unwrap();
        let name = on_spawner_thread(|| std::thread::current().name().map(str::to_owned))
            .await
            .unwrap();
        let second = on_spawner_thread(|| std::thread::current().id())
            .await
            .unwrap();
        assert_eq!(first, second);
        assert_ne!(first, std::thread::current().id());
        assert_eq!(name.as_deref(), Some(SPAWNER_THREAD_NAME));
    }
}
