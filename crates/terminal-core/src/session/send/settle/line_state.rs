//! What the lines of a session hold as a send settles: a REPL at its primary prompt holds no
//! statement, and text the send typed ahead without Enter may be on the shell's line.

use crate::readiness::Settle;

use super::super::super::observe::{at_primary_repl_prompt, is_repl_prompt_of, reads_for_a_script};
use super::super::super::shared::{Shared, State};
use super::super::{SendOp, python_input};

impl SendOp {
    /// Notes, as this send settles for `reason` (`foreign_line`: text no send typed follows
    /// the shell's prompt), what the REPL and the shell's line hold for the next send.
    pub(in crate::session::send) fn note_line_state(
        &self,
        st: &mut State,
        reason: Settle,
        foreign_line: bool,
    ) {
        // A REPL reading at its primary prompt, with nothing typed on its line, holds no
        // statement: what earlier sends typed is done with. Output the REPL prints later (a
        // thread's, a timer's) can push that prompt off the cursor's row, and the next send
        // must still find no statement open there.
        if reason == Settle::StdinWait
            && !st.typed_unended
            && at_primary_repl_prompt(&mut st.screen)
            && st.screen.cursor_row_rest_blank()
        {
            st.python_block = None;
            st.repl_idle_at_prompt = true;
            // Only the prompt of the group's own REPL (`>>>` of a Python, `> ` of a node): a
            // script asking at `> ` or `=> ` runs none.
            let fg = self.shared.pty.foreground_pgid();
            let program = fg.and_then(|pgid| python_input::group_program(&self.shared, pgid));
            let own = st
                .screen
                .cursor_row_prefix()
                .zip(program)
                .is_some_and(|(row, program)| is_repl_prompt_of(row.trim(), &program));
            st.repl_prompt_group = fg.filter(|_| own);
        }
        // Text this send typed ahead without Enter while a program held the terminal and did
        // not read it, on our shell's input line as the send settles at its prompt: the line
        // holds the send's text (the program ended without reading it), and the next send goes
        // on with it, as keys typed ahead at a terminal do. (Typed as an answer to a program
        // that ends later, it is no line of the shell's the send saw.)
        if !foreign_line
            && reason == Settle::StdinWait
            && st.typed_unended
            && !st.typed_unended_at_shell
            && !self.edits_shell_line
            && self.shared.pty.foreground_pgid() == Some(self.shared.shell_pgid())
            && self.shared.line_editing()
            && let Some(line) = self.last_line.as_deref()
            && st.screen.text_after_prompt().is_some_and(|shown| {
                // Editing keys among the text (a backspace, Ctrl-W) change what shows.
                if line.contains(char::is_control) {
                    !shown.trim().is_empty()
                } else {
                    shown.trim_end().ends_with(line)
                }
            })
        {
            st.typed_unended_at_shell = true;
        }
    }
}

/// Whether foreground group `fg`, reading at a prompt written like a REPL's or a shell's
/// continuation prompt (`... `, `...> `, `-> `, `> `), is a script asking its own question,
/// whose answer is the line sent (`input('... ')` of `python3 app.py`, `read -p '> '` of
/// `bash ask.sh`): the member reading the terminal runs a script or code given inline
/// ([`reads_for_a_script`]), reads no Python statements ([`python_input::reads_statements`]:
/// `python3 -i app.py`, IPython), and no send settled with the group at its REPL's primary
/// prompt (a REPL the script started: `code.interact()`, a framework's shell, `breakpoint()`'s
/// pdb). Blocking `/proc` reads.
pub(super) fn script_asks(st: &State, shared: &Shared, fg: i32) -> bool {
    let reader = shared.tty_reader(fg).unwrap_or(fg);
    st.repl_prompt_group != Some(fg)
        && reads_for_a_script(reader)
        && !python_input::reads_statements(reader)
}
