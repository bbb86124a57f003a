//! Terminal modes the host sets on a fresh PTY before its program starts.

use std::os::fd::AsFd;

use rustix::termios::{InputModes, OptionalActions, tcgetattr, tcsetattr};

/// Turns output flow control (`IXON`) off on the terminal whose master is `master` (Linux
/// applies termios calls on the master to the slave). With it on, a Ctrl-S typed to the shell
/// or to a program reading in canonical mode stops all output until a Ctrl-Q, so every later
/// result comes back empty while the program blocks writing; a model has no use for it.
/// Programs that want the key (an editor's "save") read it as a byte, as they do anyway in
/// raw mode. The shell records these modes as the session's own at startup, so a program
/// that turns flow control back on (`stty sane`) has it turned off again at the next prompt.
/// Best effort: a failure leaves the kernel's default.
pub(super) fn disable_flow_control(master: impl AsFd) {
    let fd = master.as_fd();
    if let Ok(mut modes) = tcgetattr(fd)
        && modes.input_modes.contains(InputModes::IXON)
    {
        modes.input_modes.remove(InputModes::IXON);
        if let Err(e) = tcsetattr(fd, OptionalActions::Now, &modes) {
            tracing::debug!(error = %e, "could not turn PTY flow control off");
        }
    }
}
