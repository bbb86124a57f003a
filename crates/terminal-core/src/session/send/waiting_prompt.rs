//! A command line sent as the answer to a prompt a program (or the shell's `read`) waits at
//! (`Proceed? `, `Overwrite? [y/N] `): it answers that prompt, as typed in a terminal, and the
//! result says so, for the agent may have meant a command.

use crate::pty::TtyModes;

use super::super::input;
use super::super::nested_shell::is_nested_shell_prompt;
use super::super::observe::{group_runs_a_repl, is_programs_own_prompt, is_repl_prompt_of};
use super::super::shared::{Shared, State};
use super::{pager_guard, python_input, stale_reader};

/// The notice and the entry (see `input::line_to_a_prompt_entry`) for `text`, a send with
/// Enter that is no answer to a password prompt, when its first line names a shell command
/// with arguments and the foreground group `fg` reads whole lines with echo on now (`modes`: a
/// script's `input()`, the shell's `read`; a line editor's prompt is a REPL's or a nested
/// shell's, which reads commands) at a prompt of its own on the cursor row, off the alternate
/// screen. `None` otherwise.
///
/// A prompt is the reader's own unless it is one where the reader reads commands: a REPL's or
/// a command interpreter's, named by the program that reads it (see [`is_command_prompt_of`]:
/// `sqlite>` of `sqlite3`, `sftp>` of `sftp`), or a nested shell's. A prompt ending in `>`
/// that a script shows (`read -p "item> "`, `input("sftp> ")` in `python3 ask.py`) is the
/// script's question, and a command line sent there is the wrong program's: the shell's own
/// `read`, while a command line of the shell runs, takes any prompt it shows.
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
        .filter(|row| !row.trim().is_empty())?;
    let line = text.lines().find(|l| !l.trim().is_empty())?.trim();
    let path = std::env::var("PATH").ok();
    if !pager_guard::has_a_command_with_arguments(line, path.as_deref()) {
        return None;
    }
    let pgid = fg?;
    // Only a prompt read now takes the line: a program that printed it and went on working
    // (`printf 'Name: '; sleep 2`) may end without reading, and the line then runs in the
    // shell, typed ahead.
    let reader_pid = shared.tty_reader(pgid)?;
    // The shell's `read`: in the shell's group, unless the shell `exec`ed another program,
    // which is then the reader (`exec dash` reads its commands at its own `# `), or in a fork
    // of the shell (a loop piped on: `while read -p "item> " l; …; done | tee log`).
    let shells_read = if pgid == shared.shell_pgid() {
        !shared.shell_replaced()
    } else {
        crate::process::cmdline(reader_pid).is_some_and(|c| shared.is_shell_image(&c))
    };
    let reader = if shells_read {
        // Read while no command line runs, a prompt like a REPL's is the shell's own (`dsh> `
        // with its line editor off), where the line is a command.
        if !is_programs_own_prompt(&prompt) && !st.screen.command_running() {
            return None;
        }
        "the shell's `read`".to_owned()
    } else {
        let name = python_input::group_program(shared, pgid);
        // A nested or `exec`ed shell without a line editor (`sh`, `dash`) reads its commands
        // so, at its own prompt (`# `, `$ `): the line is the command it runs. So does a REPL
        // or a command interpreter at its own prompt.
        let reads_commands = match name.as_deref() {
            Some(name) => {
                is_nested_shell_prompt(&prompt, name, pgid)
                    || is_command_prompt_of(prompt.trim(), name, pgid)
            }
            None => !is_programs_own_prompt(&prompt),
        };
        if reads_commands {
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

/// Whether `prompt` (trimmed), at which `program` of group `pgid` reads, is where that program
/// reads its commands: the prompt of its REPL or command interpreter ([`is_repl_prompt_of`]:
/// one naming it, `sqlite>` of `sqlite3`, `mysql>`, `sftp>` of `sftp`, `(Pdb)` of Python),
/// and, for one with no word to name it (`>`, `>>>`), a group that runs a REPL by its command
/// line or name (`python3`, not `python3 ask.py` asking at `>>> `, nor `node app.js` at `> `).
fn is_command_prompt_of(prompt: &str, program: &str, pgid: i32) -> bool {
    is_repl_prompt_of(prompt, program)
        && (prompt.chars().any(char::is_alphabetic) || group_runs_a_repl(pgid))
}
