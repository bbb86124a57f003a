//! What runs in our shell's process group: the shell's own program as recorded at its first
//! prompt, whether it replaced itself (`exec prog`), and the commands it runs there itself
//! with job control off (`set +m`).

use std::sync::Arc;

use super::Shared;

impl Shared {
    /// Records the shell's command line (blocking `/proc` read; call at its first prompt).
    pub(in crate::session) fn record_shell_image(&self) {
        *self.shell_image.lock() = crate::process::cmdline(self.shell_pgid());
    }

    /// Whether `cmdline` is the shell's command line as recorded at its first prompt (a fork
    /// of the shell has it too). `false` when none was recorded.
    pub(in crate::session) fn is_shell_image(&self, cmdline: &[u8]) -> bool {
        self.shell_image
            .lock()
            .as_deref()
            .is_some_and(|recorded| recorded == cmdline)
    }

    /// Whether our shell holds its own process group: it did not replace itself
    /// ([`Shared::shell_replaced`]), and no other member of the group reads the terminal (with
    /// job control off, `set +m`, a REPL the shell started runs in the shell's group). Blocking
    /// `/proc` reads.
    pub(in crate::session) fn shell_holds_its_group(&self) -> bool {
        let shell = self.shell_pgid();
        !self.shell_replaced() && self.tty_reader(shell).is_none_or(|pid| pid == shell)
    }

    /// Whether a live process other than our shell is in the shell's process group: a command
    /// the shell runs with job control off (`set +m`), or a command substitution's. Blocking
    /// `/proc` reads.
    pub(in crate::session) fn shell_group_runs_a_command(&self) -> bool {
        self.group_runs_others(self.shell_pgid())
    }

    /// Whether process group `pgid` has a live member other than its leader (found among the
    /// session's processes: a blocking `/proc` scan).
    pub(in crate::session) fn group_runs_others(&self, pgid: i32) -> bool {
        self.processes()
            .iter()
            .any(|p| p.pgrp == pgid && p.pid != pgid && !p.is_zombie())
    }

    /// Whether the shell has replaced itself with another program since its first prompt
    /// (blocking `/proc` read). `false` when it cannot be told.
    pub(in crate::session) fn shell_replaced(&self) -> bool {
        let Some(recorded) = self.shell_image.lock().clone() else {
            return false;
        };
        crate::process::cmdline(self.shell_pgid()).is_some_and(|now| now != recorded)
    }

    /// Whether the shell's process group reads the terminal with no marked prompt of our
    /// shell to come: what replaced our shell reads (`exec bash --norc` at its own prompt,
    /// `exec python3` at `>>>`), or another member does (a REPL run with job control off,
    /// `set +m`). No mark tells that such a reader is back at its prompt; reading is what
    /// does. `false` while our own shell reads (its fresh prompt's marks tell) or nothing of
    /// the group reads. `/proc` reads off the async workers.
    pub(in crate::session) async fn shell_group_reads_unmarked(self: &Arc<Self>) -> bool {
        let sh = Arc::clone(self);
        tokio::task::spawn_blocking(move || {
            let shell = sh.shell_pgid();
            sh.tty_reader(shell)
                .is_some_and(|pid| pid != shell || sh.shell_replaced())
        })
        .await
        .unwrap_or(false)
    }
}
