//! What a send is refused for, first, by what reads the terminal: a reader that ended since
//! the last result, one that survived a signal, one the agent has not seen, a pager or vim
//! reading keys where a command line was meant for the shell.

use crate::error::TerminalError;
use crate::pty::TtyModes;
use crate::types::SendRequest;

use super::super::super::shared::{Shared, State};

/// Refuses `request` for what reads the terminal (foreground group `fg`, its `modes`;
/// `shell_line_editor`: our shell's line editor reads): an answer to a reader that ended since
/// the last result, once (see `stale_reader`), one to a reader that survived a signal or that
/// the agent has not seen (see `unseen_reader`), and a command line meant for the shell sent
/// with Enter while a pager or vim of the foreground group reads keys (see `pager_guard`; not
/// while that group dies of a SIGKILL the send waits out first).
///
/// # Errors
/// `InvalidRequest` from those checks, nothing typed.
pub(super) fn refuse_for_the_reader(
    st: &mut State,
    shared: &Shared,
    (fg, modes): (Option<i32>, Option<TtyModes>),
    shell_line_editor: bool,
    request: &SendRequest,
) -> Result<(), TerminalError> {
    let text = &request.text;
    super::super::stale_reader::check(st, shared, fg, shell_line_editor, text)?;
    super::super::stale_reader::check_survivor(st, fg, text)?;
    super::super::unseen_reader::check(st, shared, fg, shell_line_editor, text)?;
    if !st.redraw_pending.is_some_and(|after| after.kills(fg)) {
        super::super::pager_guard::check(st, shared, fg, modes, text, request.submit)?;
    }
    Ok(())
}
