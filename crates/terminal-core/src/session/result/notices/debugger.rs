//! The notices for a program a debugger runs (see [`SettleFacts::debugger`]): still running
//! when the send settled, or asking on the terminal at a prompt of its own. SIGINT breaks
//! into the debugger rather than ending the program as a server's would (an interpreter's own
//! debugger, pdb or `perl -d`, only once a read of its program returns), and a line sent while
//! the program reads is the program's input, not a debugger command.

use super::super::super::observe::is_tracing_debugger;
#[cfg(doc)]
use super::super::SettleFacts;
use super::StillRunning;

/// What SIGINT does to a program a debugger runs.
const BREAKS_IN: &str = "terminal_signal SIGINT to break into the debugger: it stops the \
     program where it is and returns to the debugger's prompt, the program's state kept for the \
     debugger's commands (print, backtrace, continue)";

/// The notice for a send that settled (`why`) with `program` still running under `debugger`
/// (`gdb` running its inferior `program`, or `pdb` in `python3` itself): no advice to put a
/// server in the background, and SIGINT returns to the debugger's prompt.
pub(in crate::session::result) fn debugged_running_notice(
    program: &str,
    debugger: &str,
    why: StillRunning,
) -> String {
    let what = format!("{program} is still running, under the debugger {debugger}");
    match why {
        StillRunning::Deadline => format!(
            "[timeout: {what}: poll (empty text, submit: false) to wait again, with timeoutMs \
             for longer, or {BREAKS_IN}]"
        ),
        StillRunning::Quiet => format!(
            "[idle: {what}, quiet and not busy (waiting on a timer, the network or a child): \
             poll (empty text, submit: false) with timeoutMs to wait up to that long for it, \
             or {BREAKS_IN}]"
        ),
        StillRunning::CancelledUnwritten => format!(
            "[cancelled before any of the text was typed (it waited for the program already \
             running to read; the cancel leaves that program alone): {what}: poll (empty \
             text, submit: false) with timeoutMs to wait for it, or {BREAKS_IN}]"
        ),
    }
}

/// What SIGINT does to a program that an interpreter's own debugger runs (`pdb`, `perl -d`,
/// `node inspect`: no tracing debugger such as gdb or lldb) while the program waits for a line:
/// the debugger's handler only notes it, and the read goes on.
const BREAKS_IN_AFTER_READ: &str = "a terminal_signal SIGINT now does not break in while the \
     read waits (the debugger is no separate process: it only notes the signal, pdb printing \
     `Program interrupted`, and stops the program once the read has its line), and a second \
     SIGINT during the read can end the debugging session (pdb: `can't re-enter readline`, \
     then post-mortem debugging with the program's state lost)";

/// The notice for a program `debugger` runs (`program`, its process) waiting for a line at a
/// prompt of its own (`prompt`; empty: a read with no prompt), which a resume command of the
/// debugger (`next` over an `input()`, `continue`) led to: the debugger does not read there.
/// Under gdb or lldb SIGINT breaks in at once; under an interpreter's own debugger (pdb,
/// `perl -d`) only once the read returns, so the line is sent first.
pub(in crate::session::result) fn debugged_read_notice(
    program: &str,
    debugger: &str,
    prompt: &str,
) -> String {
    let at = if prompt.is_empty() {
        "with no prompt (the cursor is at the start of an empty line)".to_owned()
    } else {
        format!(
            "at its own prompt `{}`",
            super::super::super::send::clipped(prompt)
        )
    };
    let head = format!(
        "[input: the program the debugger {debugger} runs ({program}) waits for a line of input \
         {at}, not the debugger at its prompt: the next send's first line is taken as the \
         program's input, not as a debugger command (`p x` would be read by the program); send \
         the line it waits for, then the debugger's commands once its prompt is back"
    );
    if is_tracing_debugger(debugger) {
        format!("{head}, or {BREAKS_IN}]")
    } else {
        format!("{head}; {BREAKS_IN_AFTER_READ}]")
    }
}
