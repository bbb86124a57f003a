//! A send whose deadline passed before the shell was done with its text (see
//! `SettleFacts::typed_unfinished`): it may show none of the text, though it was typed.

use crate::readiness::Settle;

use super::super::super::cancel::program_name;
use super::super::super::signal::runs_shell_image;
use super::super::SendOp;

impl SendOp {
    /// Whether the send, settling for `reason`, typed text that its deadline overtook before
    /// any program of it held the terminal (`foreground`: the program the terminal facts
    /// named); and the program to name. A fork of the shell that has yet to run the command's
    /// program holds the terminal for a moment under the shell's own name: it is no program
    /// the command started (`bash`), so none is named, or the program it has run since.
    pub(super) fn typed_unfinished(
        &self,
        reason: Settle,
        foreground: Option<String>,
    ) -> (bool, Option<String>) {
        let typed = {
            let span = self.span();
            span.wrote_input && !span.entered_none && !span.background
        };
        if reason != Settle::Timeout || !typed {
            return (false, foreground);
        }
        let shared = &self.shared;
        let shell = shared.shell_pgid();
        let Some(named) = foreground else {
            return (true, None);
        };
        let fg = shared.pty.foreground_pgid().filter(|&fg| fg != shell);
        let shell_named = program_name(shell).is_some_and(|name| name == named);
        match fg {
            Some(fg) if shell_named && runs_shell_image(fg, shell) => (true, None),
            // The fork ran the command's program since the facts named it.
            Some(fg) if shell_named => {
                let now = crate::process::group_name(fg).filter(|now| *now != named);
                (false, Some(now.unwrap_or(named)))
            }
            _ => (false, Some(named)),
        }
    }
}
