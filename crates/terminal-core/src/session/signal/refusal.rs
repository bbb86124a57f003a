//! Signals `terminal_signal` refuses to send: those that would end the session's shell, or run
//! a trap of its own where the model expects nothing to change.

use crate::error::{TerminalError, TerminalErrorCode};
use crate::types::TerminalSignal;

use super::super::nested_shell::is_shell_name;

/// The error for `signal` to the foreground group `pgid` when it is refused: SIGKILL or SIGHUP
/// to the shell itself would end the session, which is terminal_close's job (it also stops
/// everything the shell started). So would SIGTERM or SIGTSTP to a shell that does not ignore
/// them, as an interactive shell does unless a `trap` of the session's catches them: the trap
/// would run (and may exit the shell) where the model expects nothing to change; not once the
/// shell `exec`ed another program. Reads the shell's `/proc/PID/stat` and `status` for those
/// two.
pub(in crate::session) fn refusal(
    signal: TerminalSignal,
    pgid: i32,
    shell_pgid: i32,
) -> Option<TerminalError> {
    if pgid != shell_pgid {
        return None;
    }
    if matches!(signal, TerminalSignal::Sigkill | TerminalSignal::Sighup) {
        return Some(TerminalError::new(
            TerminalErrorCode::Signal,
            format!(
                "refusing to {signal} the terminal shell; use terminal_close to end the session (a command a terminal_send made at the same moment may not have started yet: signal once that call returned, or after a background send's acknowledgement)"
            ),
        ));
    }
    // Still the shell: after `exec prog` the group's leader runs that program, whose signal
    // it is.
    let trapped = matches!(signal, TerminalSignal::Sigterm | TerminalSignal::Sigtstp)
        && crate::process::stat(shell_pgid).is_some_and(|s| is_shell_name(&s.comm))
        && crate::process::ignores_signal(shell_pgid, signal.as_raw()) == Some(false);
    trapped.then(|| trapped_refusal(signal))
}

/// The error for a SIGTSTP to the process group of our shell, or of a nested interactive
/// shell, while a command runs in it: with job control off (`set +m`) the shell starts its
/// commands in its own group, so the signal would stop the command, which the shell,
/// ignoring it, then waits for forever (with no job control there is no `fg` to continue it,
/// and SIGKILL to our shell's group is refused). `runs_others` tells whether a group has a
/// live member other than its leader (the command).
pub(in crate::session) fn job_control_off_refusal(
    signal: TerminalSignal,
    pgid: i32,
    shell_pgid: i32,
    runs_others: impl FnOnce(i32) -> bool,
) -> Option<TerminalError> {
    if signal != TerminalSignal::Sigtstp {
        return None;
    }
    // The group's leader is our shell, or a nested interactive shell (`bash --norc` that
    // ran `set +m`): a script's shell (`bash build.sh`) stops whole, and continues with `fg`,
    // and so does a subshell a shell forked as a job's leader (a pipeline's `while` loop,
    // a `( … )` list: the shell's command line, in a group of its own).
    let interactive_shell = pgid == shell_pgid
        || crate::process::stat(pgid).is_some_and(|leader| {
            is_shell_name(&leader.comm)
                && crate::process::cmdline(pgid)
                    .is_some_and(|line| super::super::nested_shell::runs_interactively(&line))
                && !super::super::nested_shell::is_fork_of_parent(pgid)
        });
    if !interactive_shell {
        return None;
    }
    runs_others(pgid).then(job_control_off_text)
}

/// The text of [`job_control_off_refusal`].
fn job_control_off_text() -> TerminalError {
    TerminalError::new(
        TerminalErrorCode::Signal,
        "refusing to SIGTSTP: the command runs in the process group of the shell that runs it, either inside a command substitution (`$(…)`, which that shell waits on itself) or because job control is off in that shell (`set +m`), and a command stopped there could never be continued (the shell would wait for it forever); send SIGINT to interrupt it (with job control off, `set -m` in that shell turns it back on for later commands)".to_owned(),
    )
}

/// The refusal of `signal` to a shell whose trap catches it (see [`refusal`]).
fn trapped_refusal(signal: TerminalSignal) -> TerminalError {
    TerminalError::new(
        TerminalErrorCode::Signal,
        format!(
            "refusing to {signal} the terminal shell: it holds the terminal itself (nothing else runs in the foreground) and a trap of the session's catches {signal}, so the trap would run, and may end the session; send SIGINT to interrupt a command the shell runs itself, send `kill -{name} $$` as a command to run the trap on purpose, or use terminal_close to end the session",
            name = signal.as_str().trim_start_matches("SIG")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::{TerminalSignal, refusal, trapped_refusal};

    /// The refusals' texts are model-visible.
    #[test]
    fn refusal_texts() {
        let shell = i32::try_from(std::process::id()).unwrap();
        insta::assert_snapshot!(
            "sigkill",
            refusal(TerminalSignal::Sigkill, shell, shell)
                .unwrap()
                .to_string()
        );
        insta::assert_snapshot!(
            "trapped_sigterm",
            trapped_refusal(TerminalSignal::Sigterm).to_string()
        );
        insta::assert_snapshot!("job_control_off", super::job_control_off_text().to_string());
        // Another group than the shell's, or a process that is no shell: nothing refused.
        assert!(refusal(TerminalSignal::Sigkill, shell + 1, shell).is_none());
        assert!(refusal(TerminalSignal::Sigterm, shell, shell).is_none());
    }
}
