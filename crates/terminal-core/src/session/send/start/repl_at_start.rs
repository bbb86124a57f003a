//! The REPL group a send starts at the prompt of (`SendOp::repl_at_start`): its REPL's
//! prompt at the cursor, by the program's name, not a script's prompt written like one
//! (`pt> `, whose reads take the lines as answers).

use super::super::super::observe::{is_repl_prompt, is_repl_prompt_of, runs_a_debugger};
use super::super::super::shared::{Shared, State};
use super::super::python_input;

/// The foreground group `fg` when it reads at its REPL's prompt: `cursor_row`, the row before
/// the cursor a program reading keys shows (`canonical` off), or, for a debugger that reads
/// its commands in line mode (perl's with no line editor module of its own, at `  DB<1> `),
/// the cursor row read here (only for a debugger: a script's `input('>>> ')` in line mode is
/// no REPL's prompt). `leader`: the group's program when the caller already named it.
pub(super) fn group(
    st: &mut State,
    shared: &Shared,
    fg: Option<i32>,
    canonical: Option<bool>,
    cursor_row: Option<&str>,
    leader: &Option<String>,
) -> Option<i32> {
    let pgid = fg?;
    let row = match cursor_row {
        Some(row) => Some(row.to_owned()),
        None if canonical == Some(true) && runs_a_debugger(pgid) => st.screen.cursor_row_prefix(),
        None => None,
    }?;
    let named = is_repl_prompt(&row)
        && leader
            .clone()
            .or_else(|| python_input::group_program(shared, pgid))
            .is_some_and(|name| is_repl_prompt_of(row.trim(), &name));
    named.then_some(pgid)
}
