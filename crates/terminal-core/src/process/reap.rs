//! Child-subreaper mode and reaping of adopted orphans.

use std::sync::OnceLock;

use super::procfs::{self, ProcessIdentity};

static SUBREAPER: OnceLock<bool> = OnceLock::new();

/// Makes this process a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER, 1)`), once per process.
/// Returns whether the mode is active.
///
/// As a subreaper, orphaned descendants (double forks, `setsid cmd &`, `(cmd &)`) are
/// re-parented to this process instead of init, so teardown can still find and kill them. The
/// cost: they come back as zombies of this process, so [`reap_adopted_zombies`] must be called
/// (teardown reaps the ones it captured itself).
pub fn enable_child_subreaper() -> bool {
    *SUBREAPER.get_or_init(|| {
        match rustix::process::set_child_subreaper(Some(rustix::process::getpid())) {
            Ok(()) => true,
            Err(err) => {
                tracing::debug!(%err, "PR_SET_CHILD_SUBREAPER failed; orphans go to init");
                false
            }
        }
    })
}

/// Reaps zombie children of this process that `exclude` does not claim, and returns how many
/// were reaped.
///
/// `exclude` must claim every child this process spawned itself and waits on elsewhere (the
/// shells portable-pty waits on, tokio / std `Command` children), or their exit statuses are
/// stolen. Never uses `waitpid(-1)`: a `waitid(P_ALL, WNOWAIT)` peek says whether any child is
/// waitable at all, then each zombie child found in `/proc` is reaped by pid.
pub fn reap_adopted_zombies(exclude: &dyn Fn(i32) -> bool) -> usize {
    if !any_waitable_child() {
        return 0;
    }
    let me = rustix::process::getpid().as_raw_nonzero().get();
    procfs::scan_all()
        .into_iter()
        .filter(|s| s.ppid == me && s.is_zombie() && !exclude(s.pid))
        .filter(|s| reap_zombie_child(s.identity()))
        .count()
}

/// Whether some child of this process can be waited for right now (peek, status left in place).
fn any_waitable_child() -> bool {
    use rustix::process::{WaitId, WaitIdOptions, waitid};
    // WNOWAIT leaves the child waitable; `None` means no child was waitable.
    matches!(
        waitid(
            WaitId::All,
            WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
        ),
        Ok(Some(_))
    )
}

/// Reaps `id` if it is a zombie child of this process with exactly that identity.
pub(crate) fn reap_zombie_child(id: ProcessIdentity) -> bool {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let Some(s) = procfs::stat(id.pid) else {
        return false;
    };
    if s.start_time != id.start_time || s.ppid != me || !s.is_zombie() {
        return false;
    }
    let Some(pid) = rustix::process::Pid::from_raw(id.pid) else {
        return false;
    };
    // WNOHANG on a specific pid only touches that child, which is a zombie of ours (a zombie's
    // pid cannot be reused).
    matches!(
        rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG),
        Ok(Some((reaped, _))) if reaped == pid
    )
}
