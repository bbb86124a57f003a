//! A command line sent as the answer to a prompt a program (or the shell's `read`) waits at
//! (`Proceed? `, `Overwrite? [y/N] `): it answers that prompt, as typed in a terminal, and the
//! result says so, for the agent may have meant a command.

use crate::pty::TtyModes;

use super::super::input;
use super::super::nested_shell::is_nested_shell_prompt;
use super::super::observe::is_programs_own_prompt;
use super::super::shared::{Shared, State};
use super::{pager_guard, python_input, stale_reader};

/// The notice and the entry (see `input::line_to_a_prompt_entry`) for `text`, a send with
/// Enter that is no answer to a password prompt, when its first line names a shell command
/// with arguments and the foreground group `fg` reads whole lines with echo on now (`modes`: a
/// script's `input()`, the shell's `read`; a line editor's prompt is a REPL's or a nested
/// shell's, which reads commands) at a prompt of its own on the cursor row, off the alternate
/// screen. `None` otherwise.
pub(super) fn command_to_waiting_prompt(
    st: &mut State,
    shared: &Shared,
    fg: Option<i32>,
    modes: Option<TtyModes>,
    text: &str,
) -> Option<(String, String)> {
    if !modes.is_some_and(|m| m.canonical && m.echo) || st.screen.alternate_screen() {
        return None;
    }
    let prompt = st
        .screen
        .cursor_row_prefix()
        .filter(|row| is_programs_own_prompt(row))?;
    let line = text.lines().find(|l| !l.trim().is_empty())?.trim();
    let path = std::env::var("PATH").ok();
    if !pager_guard::has_a_command_with_arguments(line, path.as_deref()) {
        return None;
    }
    let pgid = fg?;
    // Only a prompt read now takes the line: a program that printed it and went on working
    // (`printf 'Name: '; sleep 2`) may end without reading, and the line then runs in the
    // shell, typed ahead.
    shared.tty_reader(pgid)?;
    // The shell's group: its `read`, unless the shell `exec`ed another program, which is then
    // the reader (`exec dash` reads its commands at its own `# `).
    let reader = if pgid == shared.shell_pgid() && !shared.shell_replaced() {
        "the shell's `read`".to_owned()
    } else {
        let name = python_input::group_program(shared, pgid);
        // A nested or `exec`ed shell without a line editor (`sh`, `dash`) reads its commands
        // so, at its own prompt (`# `, `$ `): the line is the command it runs.
        if name
            .as_deref()
            .is_some_and(|name| is_nested_shell_prompt(&prompt, name, pgid))
        {
            return None;
        }
        name.map_or_else(|| "the program".to_owned(), |name| format!("`{name}`"))
    };
    let (line, prompt) = (
        stale_reader::clipped(line),
        stale_reader::clipped(prompt.trim()),
    );
    Some((
        input::line_to_waiting_prompt_notice(&line, &prompt, &reader),
        input::line_to_a_prompt_entry(1, &line, &prompt, &reader),
    ))
}
