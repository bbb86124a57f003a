//! A command line sent as the answer to a prompt a program (or the shell's `read`) waits at
//! (`Proceed? `, `Overwrite? [y/N] `): it answers that prompt, as typed in a terminal, and the
//! result says so, for the agent may have meant a command. A reader in canonical mode with
//! echo on takes a line at any prompt of its own; a line editor of its own (raw mode: a
//! program's readline, node's `readline.question`, prompt libraries, the shell's `read -e`)
//! reads a REPL's statements and a shell's commands as well, so only its question counts
//! (see [`line_editor_asks`]).

use crate::pty::TtyModes;

use super::super::input;
use super::super::nested_shell::is_nested_shell_prompt;
use super::super::observe::{
    DATABASE_SHELLS, group_runs_a_repl, is_programs_own_prompt, is_repl_prompt, is_repl_prompt_of,
};
use super::super::shared::{Shared, State};
use super::key_answer::{asks_in_raw_mode, relays_keys};
use super::{SendOp, pager_guard, python_input, stale_reader};

/// Whether `row` (the cursor row's text before the cursor) asks a question a line editor's
/// line answers: one a program reading raw keys may take key by key (`Continue?`, `Name:`,
/// `Is this OK? (yes)`, `version: (1.0.0)`, `[y/N]`: see `key_answer::asks_in_raw_mode`), or
/// one marked the way prompt libraries mark theirs (Inquirer's `? Project name`, also over an
/// arrow-key menu: `? Pick one (Use arrow keys)`, whose Enter picks the highlighted choice).
/// A REPL's or a shell's prompt is none (`>>>`, `> `, `sqlite>`, `(gdb)`, `In [1]:`,
/// `postgres=#`, `MariaDB [(none)]>`, `user@host:~/proxy/nginx$`, whose `y/n` asks nothing,
/// PARI/GP's `? `: a question has words): its line editor reads statements and commands.
pub(super) fn asks_a_question(row: &str) -> bool {
    let row = row.trim();
    !is_repl_prompt(row)
        && row.contains(char::is_alphabetic)
        && !row.ends_with(['$', '#', '%', '>'])
        && (asks_in_raw_mode(row) || row.starts_with("? "))
}

/// Whether `modes` are those of a line editor that reads keys in raw mode and echoes them
/// itself: readline's, node's (`setRawMode`), prompt_toolkit's, or with output processing off
/// too (`cfmakeraw`: Go's and crossterm's prompts, and relays, which [`relays_keys`] tells).
/// A key reader in cbreak mode (`read -n 1`: the carriage return still mapped) is none, nor
/// is a terminal that echoes.
pub(super) fn edits_lines(modes: TtyModes) -> bool {
    !modes.canonical && !modes.echo && !modes.maps_cr
}

/// Whether the foreground group `fg`, reading with a line editor (`modes`, see
/// [`edits_lines`]) at the cursor row's text `prompt`, asks a question of its own
/// ([`asks_a_question`]) whose answer a line sent now is. Our shell's own line editor asks
/// one only in a builtin (`read -e -p 'Name: '`): no marked prompt of the shell came since
/// the last line was submitted (its own prompt, marked, may end like a question too:
/// `PS1='Ready? '`). A program that replaced the shell (`exec python3`) shows no marked
/// prompt either, and is asked like any other.
pub(super) fn line_editor_asks(
    st: &State,
    shared: &Shared,
    fg: Option<i32>,
    modes: TtyModes,
    prompt: &str,
) -> bool {
    let ours = fg == Some(shared.shell_pgid());
    edits_lines(modes)
        && (if ours {
            st.prompts_at_submit == Some(st.screen.prompt_end_count())
        } else {
            !fg.is_some_and(reads_commands_at_any_prompt)
        })
        && asks_a_question(prompt)
}

/// Whether the program leading process group `pgid` reads commands at whatever prompt it
/// shows: a nested interactive shell (`PS1='Continue? ' bash --norc`; not a script's shell,
/// nor a subshell our shell forked) or a database shell (`DATABASE_SHELLS`). One `/proc`
/// read, two for a shell.
pub(super) fn reads_commands_at_any_prompt(pgid: i32) -> bool {
    let Some(leader) = crate::process::stat(pgid) else {
        return false;
    };
    DATABASE_SHELLS.contains(&leader.comm.as_str())
        || (super::super::nested_shell::is_shell_name(&leader.comm)
            && crate::process::cmdline(pgid)
                .is_some_and(|c| super::super::nested_shell::runs_interactively(&c))
            && !super::super::nested_shell::is_fork_of_parent(pgid))
}

/// What a send's first line that went to a waiting prompt as its answer is told (see
/// [`command_to_waiting_prompt`]), and what the result says once the send settles (see
/// [`ToWaitingPrompt::at_settle`]).
#[derive(Clone)]
pub(super) struct ToWaitingPrompt {
    /// The notice while the prompt's reader may still run.
    pub(super) notice: String,
    /// The notice once the send settled with the shell at its prompt: the reader ended.
    pub(super) once_ended: String,
    /// How a notice of several lines to prompts names this one.
    pub(super) entry: String,
    /// The line and the prompt it went to, clipped, and the reader as the notices name it.
    line: String,
    prompt: String,
    reader: String,
    /// The REPL (as the notices name it) whose statement read the line, not the shell.
    repl: Option<String>,
    /// The reader's process group and the process that read the terminal at the prompt.
    pgid: i32,
    reader_pid: i32,
}

impl ToWaitingPrompt {
    /// The notice for a send that settled now (`at_shell_prompt`: at the shell's prompt).
    /// The first notice holds only while the same process still reads at the same prompt
    /// (a loop asking again). Otherwise the read that took the line is over, and the notice
    /// says what holds the terminal now: the REPL whose statement read it, back at its
    /// prompt; the shell at its prompt; or whatever runs or waits instead (the shell's next
    /// `read`, the command after the reader), which is the one SIGINT is said to stop.
    pub(super) fn at_settle(&self, shared: &Shared, at_shell_prompt: bool) -> String {
        let repl = self.repl.as_deref();
        let left = |then: &str| {
            input::line_left_prompt_notice(&self.line, &self.prompt, &self.reader, repl, then)
        };
        if at_shell_prompt {
            return match repl {
                None => self.once_ended.clone(),
                Some(program) => left(&format!(
                    "that read has ended since, and so has {program}: the shell is at its prompt; if the line was meant for the shell, send it again now"
                )),
            };
        }
        let fg = shared.pty.foreground_pgid();
        let reading = fg.and_then(|pgid| shared.tty_reader(pgid));
        let row = shared
            .lock()
            .screen
            .cursor_row_prefix()
            .map(|row| stale_reader::clipped(row.trim()))
            .unwrap_or_default();
        if fg == Some(self.pgid) && reading == Some(self.reader_pid) && row == self.prompt {
            return self.notice.clone();
        }
        match repl {
            Some(program) if fg == Some(self.pgid) && reading.is_some() && is_repl_prompt(&row) => {
                left(&format!(
                    "that read has ended since and {program} is back at its prompt `{row}`: a statement sent now runs there"
                ))
            }
            _ => {
                let (holder, stops) = holds_the_terminal(shared, fg, reading.is_some(), &row);
                let stops = stops
                    .map(|name| format!(" (terminal_signal SIGINT stops {name})"))
                    .unwrap_or_default();
                left(&format!(
                    "that read has ended since, and {holder}: send it again once {} is back at its prompt{stops}",
                    repl.unwrap_or("the shell"),
                ))
            }
        }
    }
}

/// What holds the terminal at a send's settle, in words: the foreground group `fg`, by name,
/// waiting at the cursor row's prompt `row` when it reads the terminal (`reading`), else
/// running in the foreground; and that name again when SIGINT stops it (not a REPL, which
/// stays, nor our shell itself).
fn holds_the_terminal(
    shared: &Shared,
    fg: Option<i32>,
    reading: bool,
    row: &str,
) -> (String, Option<String>) {
    let Some(pgid) = fg else {
        return ("no program is in the foreground".to_owned(), None);
    };
    let (name, stops) = if pgid == shared.shell_pgid() && !shared.shell_replaced() {
        let shell = if reading {
            "the shell's `read`"
        } else {
            "the shell"
        };
        (shell.to_owned(), reading)
    } else {
        let name = python_input::group_program(shared, pgid)
            .map_or_else(|| "a program".to_owned(), |name| format!("`{name}`"));
        (name, !group_runs_a_repl(pgid))
    };
    let holder = match (reading, row.is_empty()) {
        (true, false) => format!("{name} waits at `{row}`"),
        (true, true) => format!("{name} reads the terminal"),
        (false, _) => format!("{name} runs in the foreground"),
    };
    (holder, stops.then_some(name))
}

/// The notice and the entry (see `input::line_to_a_prompt_entry`) for `text`, a send with
/// Enter that is no answer to a password prompt, when its first line names a shell command
/// with arguments and the foreground group `fg` waits at a prompt of its own on the cursor
/// row, off the alternate screen, reading whole lines with echo on (`modes`: a script's
/// `input()`, the shell's `read`), or with a line editor at a question (see
/// [`line_editor_asks`]: `rl.question('Is this OK? (yes) ')`, `read -e`, an `input()` with
/// readline loaded, `npm init`). A line editor at a REPL's or a nested shell's prompt reads
/// commands. `None` otherwise.
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
) -> Option<ToWaitingPrompt> {
    let modes = modes?;
    let line_editor = edits_lines(modes);
    let reads_lines = (modes.canonical && modes.echo) || line_editor;
    if !reads_lines || st.screen.alternate_screen() {
        return None;
    }
    let prompt = st
        .screen
        .cursor_row_prefix()
        .filter(|row| !row.trim().is_empty())?;
    if line_editor && !line_editor_asks(st, shared, fg, modes, &prompt) {
        return None;
    }
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
    // A relay's raw modes (`ssh`, `docker exec -it`) are not those of the program that asks,
    // elsewhere, which SIGINT to the relay does not stop.
    if line_editor && relays_keys(shared, pgid) {
        return None;
    }
    // The shell's `read`: in the shell's group, unless the shell `exec`ed another program,
    // which is then the reader (`exec dash` reads its commands at its own `# `), or in a fork
    // of the shell (a loop piped on: `while read -p "item> " l; …; done | tee log`).
    let shells_read = if pgid == shared.shell_pgid() {
        !shared.shell_replaced()
    } else {
        crate::process::cmdline(reader_pid).is_some_and(|c| shared.is_shell_image(&c))
    };
    // A REPL's statement (`x = input('Proceed? ')` at `>>>`) reads instead of the REPL, not
    // instead of the shell.
    let mut repl = None;
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
                    || reads_commands_at_any_prompt(pgid)
            }
            None => !is_programs_own_prompt(&prompt),
        };
        if reads_commands {
            return None;
        }
        let reader = name.map_or_else(|| "the program".to_owned(), |name| format!("`{name}`"));
        if group_runs_a_repl(pgid) {
            repl = Some(reader.clone());
        }
        reader
    };
    let (line, prompt) = (
        stale_reader::clipped(line),
        stale_reader::clipped(prompt.trim()),
    );
    let notice = match repl.as_deref() {
        Some(program) => input::line_to_statements_prompt_notice(&line, &prompt, program),
        None => input::line_to_waiting_prompt_notice(&line, &prompt, &reader),
    };
    Some(ToWaitingPrompt {
        notice,
        once_ended: input::line_to_ended_prompt_notice(&line, &prompt, &reader),
        entry: input::line_to_a_prompt_entry(1, &line, &prompt, &reader),
        line,
        prompt,
        reader,
        repl,
        pgid,
        reader_pid,
    })
}

/// Whether `prompt` (trimmed), at which `program` of group `pgid` reads, is where that program
/// reads its commands: the prompt of its REPL or command interpreter ([`is_repl_prompt_of`]:
/// one naming it, `sqlite>` of `sqlite3`, `mysql>`, `sftp>` of `sftp`, `(Pdb)` of Python,
/// one numbering the commands, `DB<1>` of perl's debugger),
/// and, for one with no word to name it (`>`, `>>>`), a group that runs a REPL by its command
/// line or name (`python3`, not `python3 ask.py` asking at `>>> `, nor `node app.js` at `> `).
pub(super) fn is_command_prompt_of(prompt: &str, program: &str, pgid: i32) -> bool {
    is_repl_prompt_of(prompt, program)
        && (prompt.chars().any(char::is_alphabetic) || group_runs_a_repl(pgid))
}

impl SendOp {
    /// Withdraws the notice that line `number` of the send went to a prompt as its answer
    /// (see [`command_to_waiting_prompt`], `note_command_to_a_prompt`), the only line named
    /// yet, when only its first keys went: a reader in raw mode took them one at a time and
    /// went on (a key reader; an arrow-key menu, which shows no key), and the notice of the
    /// keys held back tells what went instead.
    pub(super) fn withdraw_line_to_prompt(&self, number: usize) {
        let mut lines = self.to_prompts.lock();
        if matches!(lines.as_slice(), [(named, _)] if *named == number) {
            lines.clear();
            *self.refused.lock() = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{asks_a_question, is_repl_prompt_of};

    /// The prompts of REPLs and debuggers that number the commands read, or name a REPL a
    /// virtual machine runs, are their command prompts whatever program shows them (`perl`
    /// for `DB<1>`, `java` for `scala>`); questions that number something are none.
    #[test]
    fn numbered_command_prompts_are_repl_prompts() {
        for prompt in [
            "DB<1>",
            "DB<<12>>",
            "irb(main):001:0>",
            "irb(main):001>",
            "(rdb:1)",
            "main[1]",
            "[1] pry(main)>",
            "[12] pry(#<Foo>)>",
            "scala>",
        ] {
            assert!(is_repl_prompt_of(prompt, "perl"), "{prompt}");
        }
        for prompt in [
            "DB>",
            "1>",
            "Port [8080]:",
            "Port[8080]:",
            "Choice (1-3)?",
            "Retry 2/3>",
            "[1] Continue?",
            "[y/N]",
            "Step 1>",
            "v1.2>",
            "",
        ] {
            assert!(!is_repl_prompt_of(prompt, "perl"), "{prompt}");
        }
    }

    /// A line editor's questions, whose line is an answer, and the prompts of REPLs,
    /// debuggers and shells, whose line is a statement or a command.
    #[test]
    fn line_editor_questions() {
        for row in [
            "Is this OK? (yes) ",
            "Continue? ",
            "Overwrite? (y/n) ",
            "package name: (rl) ",
            "version: (1.0.0) ",
            "? Project name ",
            "? Pick a color (Use arrow keys)",
            "Password: ",
        ] {
            assert!(asks_a_question(row), "{row}");
        }
        for row in [
            ">>> ",
            "> ",
            "... ",
            "sqlite> ",
            "(gdb) ",
            "(Pdb) ",
            "In [1]: ",
            "   ...: ",
            "dsh> ",
            "user@host:~$ ",
            "user@host:~/proxy/nginx$ ",
            "postgres=# ",
            "MariaDB [(none)]> ",
            "php > ",
            "main[1] ",
            "? ",
            "",
        ] {
            assert!(!asks_a_question(row), "{row}");
        }
    }
}
