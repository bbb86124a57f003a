//! What the program in front of the shell is, as a send settles: a REPL running a statement,
//! a program a debugger runs, or a REPL or debugger this send continued with `fg`.

use crate::readiness::Settle;

use super::super::super::input::continues_a_job;
use super::super::super::observe::{debugger_of, group_runs_a_repl, runs_a_debugger};
use super::super::SendOp;

/// See [`SendOp::program_in_front`].
pub(super) struct InFront {
    /// A REPL still running a statement (the send settled on silence or its deadline): SIGINT
    /// interrupts the statement, the REPL stays (also when a longer command line started it:
    /// `cd /tmp && python3`).
    pub(super) runs_a_repl: bool,
    /// The debugger the program in front runs under (`gdb` for its inferior, `pdb` for
    /// `python3 -m pdb app.py`).
    pub(super) debugger: Option<&'static str>,
    /// This send continued a REPL or debugger with `fg`: it reads a line at its prompt, which
    /// it does not print again.
    pub(super) repl_continued: bool,
}

impl SendOp {
    /// What the program in front is as this send settles for `reason`: `foreground_shown`
    /// whether a program other than the shell holds the terminal, `reads_unprompted` whether
    /// it reads a line with nothing on the cursor's row.
    pub(super) fn program_in_front(
        &self,
        reason: Settle,
        foreground_shown: bool,
        reads_unprompted: bool,
    ) -> InFront {
        let shared = &self.shared;
        let group = shared.pty.foreground_pgid().filter(|_| foreground_shown);
        let runs_a_repl = matches!(reason, Settle::Idle | Settle::Timeout)
            && group.is_some_and(group_runs_a_repl);
        let group = group.filter(|&pgid| pgid != shared.shell_pgid());
        let repl_continued = reason == Settle::StdinWait
            && reads_unprompted
            && self.submits_command
            && self.last_line.as_deref().is_some_and(continues_a_job)
            && group.is_some_and(|pgid| group_runs_a_repl(pgid) || runs_a_debugger(pgid));
        InFront {
            runs_a_repl,
            debugger: group.and_then(debugger_of),
            repl_continued,
        }
    }
}
