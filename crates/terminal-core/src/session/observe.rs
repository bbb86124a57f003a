//! What the send driver observes: the foreground before the write, foreground probes of
//! `/proc` (run beside the driver's other events), the one [`Observation`] each readiness
//! decision is made from, and the terminal facts a settled result reports.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::process::{GroupActivity, fd_leaves_stdin};
use crate::pty::TtyModes;
use crate::readiness::{Observation, PreWrite};
use crate::screen::{Position, PromptState};

use super::probe::ProbeVerdict;
use super::send::{EXIT_DRAIN_MAX, EXIT_DRAIN_MIN};
use super::shared::Shared;

mod debugger;
mod facts;
mod prompt_rows;
pub(super) use debugger::{
    debugger_of, is_tracing_debugger, resumes_the_program, runs_a_debugger, runs_under,
};
pub(super) use facts::{TerminalFacts, terminal_facts};
pub(super) use prompt_rows::{
    DATABASE_SHELLS, at_primary_repl_prompt, continuation_indent, ends_like_a_question,
    group_runs_a_repl, is_block_continuation_prompt, is_primary_repl_prompt,
    is_programs_own_prompt, leader_runs_a_repl, prompt_then_text, reads_for_a_script,
    starts_with_repl_prompt,
};
pub use prompt_rows::{is_repl_prompt, is_repl_prompt_of, press_to_go_on};

/// A foreground probe in flight: the group probed, when the probe started, and what the
/// group is doing (with whether the shell replaced itself, for the shell's group, and whether
/// input still waited on the terminal once the group was seen: `Pty::input_pending`).
pub(super) type Probing = (
    i32,
    Instant,
    std::pin::Pin<Box<dyn std::future::Future<Output = ProbeVerdict> + Send>>,
);

/// The control bytes a terminal turns into signals with ISIG on (the default VINTR, VQUIT and
/// VSUSP: Ctrl-C, Ctrl-\\ and Ctrl-Z).
pub(super) const SIGNAL_BYTES: [u8; 3] = [0x03, 0x1c, 0x1a];

/// The terminal's default end-of-file key (Ctrl-D): it hands a canonical-mode reader the line
/// typed so far.
pub(super) const EOF_KEY: u8 = 0x04;
/// Longest wait, before a send writes, for output our shell wrote before it read the
/// terminal to reach the screen (see `pre_write`).
const PROMPT_DRAIN_MAX: Duration = Duration::from_millis(200);
/// Longest wait for the shell to read the terminal before a signal byte is written anyway.
pub(super) const SHELL_READ_WAIT_MAX: Duration = Duration::from_millis(1000);
/// Longest pause between two checks of that wait.
pub(super) const SHELL_READ_BACKOFF_MAX: Duration = Duration::from_millis(20);

/// Waits (bounded) until a shell at its prompt is blocked reading the terminal. bash acts on a
/// Ctrl-C that arrives after it printed its prompt but before readline reads only when the
/// next key arrives, and then eats that key: the next command would lose its first character.
/// Returns at once when a program other than the shell holds the terminal, or no prompt is
/// current.
pub(super) async fn wait_for_shell_read(shared: &Arc<Shared>) {
    wait_for_shell_prompt_read(shared, false).await;
}

/// Waits (bounded) until a shell just continued (SIGCONT) is back at its prompt and reads the
/// terminal: a shell that stopped itself (`suspend`, `kill -STOP $$`) ends that command and
/// prints its prompt once continued (after any `CONT` trap it runs), and that prompt must not
/// be taken as the end of the command about to be typed. A shell stopped while it waited on a
/// foreground job prints none until the job ends: the wait then runs to its bound. One that
/// replaced ours (`exec bash --norc`) prints no marks: reading, it is back at its prompt.
pub(super) async fn wait_for_continued_shell(shared: &Arc<Shared>) {
    wait_for_shell_prompt_read(shared, true).await;
}

/// Until the shell reads the terminal at a current prompt, or its group reads it unmarked
/// (`Shared::shell_group_reads_unmarked`, output drained); unless `prompt_awaited`, also until
/// another group holds the terminal or no prompt is current. Within [`SHELL_READ_WAIT_MAX`].
async fn wait_for_shell_prompt_read(shared: &Arc<Shared>, prompt_awaited: bool) {
    let deadline = Instant::now() + SHELL_READ_WAIT_MAX;
    let mut pause = Duration::from_millis(1);
    loop {
        let shell = shared.shell_pgid();
        if !prompt_awaited && shared.pty.foreground_pgid() != Some(shell) {
            return;
        }
        let current = shared.prompt_current();
        if !current && !prompt_awaited {
            return;
        }
        let reads = if current {
            shared.waiting_on_tty(shell).await
        } else {
            shared.shell_group_reads_unmarked().await && shared.output_drained()
        };
        if reads || Instant::now() >= deadline {
            return;
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(SHELL_READ_BACKOFF_MAX);
    }
}

/// One `/proc` probe of the foreground group.
pub(super) struct Probe {
    pub(super) pgid: i32,
    /// When the probe began: a verdict is stale once output arrived after it.
    pub(super) started: Instant,
    pub(super) activity: GroupActivity,
    /// The group is the shell's, and the shell `exec`ed another program.
    pub(super) shell_replaced: bool,
    /// The group waits on the terminal among other sources and relays another side's output.
    pub(super) relays: bool,
    /// The thread that waited on the terminal before the write has run since (see
    /// `ProbeVerdict::reader_ran`).
    pub(super) reader_ran: bool,
    /// The group is a REPL with work of its own pending (`ProbeVerdict::repl_pending`).
    pub(super) repl_pending: bool,
    /// The group is idle elsewhere, and a session process outside it reads the terminal.
    pub(super) read_outside: bool,
}

/// Facts about the foreground before the write.
/// Whether the session's shell itself is stopped (`suspend`, SIGSTOP): nothing reads the
/// terminal until it is continued.
pub(super) fn shell_stopped(shared: &Shared) -> bool {
    // The shell leads its process group (under a sandbox launcher it is not the direct child).
    crate::process::stat(shared.shell_pgid()).is_some_and(|s| s.state == 'T')
}

/// Continues the session's shell when it is stopped (SIGCONT), as a terminal's user would
/// (`kill -CONT` from elsewhere) before typing to it; returns whether it was stopped. Blocking
/// `/proc` read: call off the async workers or where a short read is acceptable.
pub(super) fn continue_stopped_shell(shared: &Shared) -> bool {
    if !shell_stopped(shared) {
        return false;
    }
    if let Some(pid) = rustix::process::Pid::from_raw(shared.shell_pgid())
        && let Err(err) = rustix::process::kill_process(pid, rustix::process::Signal::CONT)
    {
        tracing::warn!(%err, "cannot continue the stopped shell");
        return false;
    }
    tracing::debug!("the shell was stopped; sent SIGCONT before the send");
    true
}

pub(super) async fn pre_write(shared: &Shared) -> PreWrite {
    let fg = shared.pty.foreground_pgid();
    let mut reader = match fg {
        Some(pgid) if !(pgid == shared.shell_pgid() && shared.prompt_current()) => {
            shared.tty_reader_thread(pgid).await
        }
        _ => None,
    };
    // Our shell found reading with no prompt on the screen as the look began: the prompt it
    // printed as its command ended may not have been there yet (the screen lags the
    // terminal's output on a loaded machine). Once that output is on the screen, a current
    // prompt makes the wait the prompt's own. Taken for a reader's (the shell's `read`), a
    // send's lines after the first were dropped as meant for a reader that ended.
    if reader.is_some()
        && fg == Some(shared.shell_pgid())
        && shared.output_drained_within(PROMPT_DRAIN_MAX).await
        && shared.prompt_current()
    {
        reader = None;
    }
    PreWrite {
        fg,
        waiting: reader.is_some(),
        wakes_in: None,
        reader,
    }
}

/// Whether our shell reads at its line editor with no marked prompt since the last command was
/// submitted, before a write (`pre`): it printed marks before and has not replaced itself, so
/// that command replaced what printed them (`PS0`, `PS1` and `PROMPT_COMMAND` together).
/// Text typed at a marked prompt without Enter is not such a case. Blocking `/proc` reads run
/// off the async workers.
pub(super) async fn marks_gone_at_line_editor(shared: &Arc<Shared>, pre: &PreWrite) -> bool {
    let no_prompt_since_submit = {
        let st = shared.lock();
        let prompts = st.screen.prompt_end_count();
        prompts > 0 && st.prompts_at_submit == Some(prompts)
    };
    let at_line_editor = pre.waiting
        && pre.fg == Some(shared.shell_pgid())
        && pre
            .reader
            .as_ref()
            .is_some_and(|r| r.pid == shared.shell_pgid())
        && no_prompt_since_submit
        && shared.pty.modes().is_some_and(TtyModes::line_editing);
    if !at_line_editor {
        return false;
    }
    // With its stderr away from the terminal the shell prints no marks on purpose (and a
    // `set -x` trace of the repair would land in the user's file).
    let sh = Arc::clone(shared);
    tokio::task::spawn_blocking(move || {
        !sh.shell_replaced() && !fd_leaves_stdin(sh.shell_pgid(), 2)
    })
    .await
    .unwrap_or(false)
}

/// One observation for the readiness decision; also returns when the shell exited and the
/// newest prompt mark's exit status. The cursor row's facts are read for a wait among other
/// sources, and after output when the caller wants them (`cursor_row_wanted`). With lines of
/// the send still to type (`lines_pending`), a key reader's terminal wait keeps its timeout
/// too (see `Observation::fg_wakes_in`). `own_line`:
/// the input's last non-blank line, trimmed (a REPL that shows it again after its prompt
/// has not printed a prompt for it). `at_write`: the screen's done and mark counts and the
/// time at the write.
pub(super) fn observe(
    shared: &Shared,
    now: Instant,
    probed: Option<Probe>,
    (done_at_write, marks_at_write, written_at): (u64, u64, Instant),
    (cursor_row_wanted, lines_pending): (bool, bool),
    own_line: Option<&str>,
    answer_from: Option<Position>,
) -> (Observation, Option<Instant>, Option<i32>) {
    // Drained first, the screen's facts after: everything the probe's program wrote before
    // it blocked is then on the screen these facts are read from.
    let output_drained = shared.output_drained();
    // Whether a query reply waits, read before the probe fence: the replier records its
    // write (which moves the fence) before it counts the reply done, so a probe that looked
    // before the reply landed is either fenced off or met with a reply still pending here.
    // Read after the fence, a reply finished in between left that probe's stale wait (the
    // shell's `read` before the cursor-position reply) to settle the send.
    let reply_pending = shared.reply_pending();
    let marks_seen;
    let fence;
    let (mut obs, exit_at, last_exit) = {
        let st = shared.lock();
        marks_seen = st.screen.mark_count() > 0;
        fence = st.probe_fence();
        let exit_at = st.exit.map(|(_, at)| at);
        let ended = st.output_ended;
        let obs = Observation {
            now,
            exited: false,
            prompt: st.screen.prompt_state(),
            prompt_under_output: st.screen.prompt_under_output(),
            done_since_write: st.screen.done_count() > done_at_write,
            mark_since_write: st.screen.mark_count() > marks_at_write,
            fg: None,
            input_pending: false,
            fg_waiting: None,
            fg_busy: None,
            fg_timed_wait: false,
            fg_wait_among_others: false,
            fg_wakes_in: None,
            fg_key_wakes_in: None,
            cursor_row: None,
            cursor_text: None,
            cursor_jumps: 0,
            fg_relays: false,
            fg_reader_ran: false,
            fg_repl_pending: false,
            tty_read_outside_fg: false,
            reply_pending: false,
            last_output_at: st.last_output_at,
            output_since_write: st.last_output_at > written_at,
            has_output: st.screen.has_output(),
            output_drained,
            shell_marks_alive: false,
            line_editor_mode: false,
            tty_line_editing: false,
            alternate_screen: st.screen.alternate_screen(),
            prompt_at_cursor: false,
            question_at_cursor: false,
            cursor_on_blank_row: false,
            prompt_above_cursor: false,
        };
        (
            obs,
            exit_at.map(|at| (at, ended)),
            st.screen.last_exit_code(),
        )
    };
    if let Some((at, ended)) = exit_at {
        let waited = now.saturating_duration_since(at);
        // Drained as `output_drained` tells it (the poll makes the kernel hand over output it
        // accepted from the program, which `FIONREAD` alone does not count: on a loaded
        // machine the exit then settled before the program's last output was on the screen).
        obs.exited =
            ended || waited >= EXIT_DRAIN_MAX || (waited >= EXIT_DRAIN_MIN && output_drained);
    }
    obs.fg = shared.pty.foreground_pgid();
    // A probe is about the foreground it looked at, and stale once output arrived after it
    // began: the program may have read input and printed since (a wait seen at the previous
    // prompt, before the shell read the line, must not settle the send on a screen that
    // shows the command's output but not yet its prompt).
    let probed = probed.filter(|p| Some(p.pgid) == obs.fg && fence <= p.started);
    let activity = probed.as_ref().map(|p| p.activity);
    // A thread reading lines beside one that computes (a spinner beside `getpass`): a read for
    // input now at a prompt before the cursor (decided once the cursor row is read, below);
    // with no prompt there, the program is at work (a worker beside a "press Enter to cancel"
    // reader).
    let busy_reading = activity == Some(GroupActivity::BusyReadingTty)
        && shared.pty.modes().is_some_and(|m| m.canonical);
    obs.fg_waiting = activity.map(|a| matches!(a, GroupActivity::ReadingTty { .. }));
    obs.fg_wait_among_others = activity.is_some_and(|a| {
        matches!(
            a,
            GroupActivity::ReadingTty {
                only_tty: false,
                ..
            }
        )
    });
    // In canonical mode, in raw mode (node's `setRawMode`: a spinner that discards what is
    // typed while it spins), and for the shell's own `read -t`; not for a key reader in cbreak
    // mode (`top`, `less`: the signal keys kept), which polls for keys on its timer and waits
    // for them whatever it prints meanwhile, unless a line of the send would go to it next: a
    // short timed read with no prompt before the cursor (`read -t 0.3 -n 10000 junk`, which
    // drains keys typed ahead before a question) must not take the answer meant for the
    // question after it.
    // Its timeout is kept apart (`fg_key_wakes_in`): the rows its output appends, not the
    // timer, tell a key reader at work (progress printed beside a read for `q`) from one idle
    // on its screen.
    let wakes_in = match activity {
        Some(GroupActivity::ReadingTty { wakes_in, .. }) => wakes_in,
        _ => None,
    };
    let timer_counts = lines_pending
        || obs.fg == Some(shared.shell_pgid())
        || shared
            .pty
            .modes()
            .is_some_and(|m| m.canonical || !m.signals);
    obs.fg_wakes_in = wakes_in.filter(|_| timer_counts);
    obs.fg_key_wakes_in = wakes_in.filter(|_| !timer_counts);
    obs.fg_relays = obs.fg_wait_among_others && probed.as_ref().is_some_and(|p| p.relays);
    obs.fg_reader_ran = probed.as_ref().is_some_and(|p| p.reader_ran);
    obs.fg_repl_pending = probed.as_ref().is_some_and(|p| p.repl_pending);
    obs.tty_read_outside_fg = probed.as_ref().is_some_and(|p| p.read_outside);
    // The cursor row is read only when it matters: reading it brings the screen up to date,
    // which would cut short the binary-output filter's runs during a flood. While a run of
    // binary output goes on, the cursor's row holds no prompt to find.
    // A terminal wait that wakes by itself settles at once only with a prompt before the
    // cursor, which the row says.
    let row_wanted = obs.fg_wait_among_others
        || busy_reading
        || obs.fg_wakes_in.is_some()
        || obs.fg_key_wakes_in.is_some()
        || (cursor_row_wanted && obs.output_since_write);
    let mut st = row_wanted.then(|| shared.lock());
    if let Some(st) = st.as_mut().filter(|st| !st.screen.binary_run_open()) {
        // Keys of an answer typed one at a time follow the prompt they answer.
        let row = st.screen.prompt_row_prefix(answer_from);
        obs.cursor_row = Some(st.screen.cursor().row);
        obs.cursor_jumps = st.screen.cursor_jumps();
        obs.cursor_text = row.as_deref().and_then(progress_text_hash);
        obs.prompt_at_cursor = row.as_deref().is_some_and(is_repl_prompt);
        obs.question_at_cursor = row.as_deref().is_some_and(ends_like_a_question);
        obs.cursor_on_blank_row = row.as_deref().is_none_or(str::is_empty);
        // Below the row the input's echo starts on: that one begins with the prompt too. Nor
        // the prompt with the input's own line after it: node shows a line typed while an
        // `await` was pending again after the prompt that await's end brings, and has printed
        // none for the line itself.
        let after = st.write_row;
        obs.prompt_above_cursor = obs.cursor_on_blank_row
            && obs.fg_wait_among_others
            && st
                .screen
                .row_above_cursor(after)
                .as_deref()
                .is_some_and(|row| {
                    starts_with_repl_prompt(row)
                        && !own_line.is_some_and(|line| {
                            row.split_once(' ')
                                .is_some_and(|(_, rest)| rest.trim() == line)
                        })
                });
    }
    drop(st);
    let reading_at_prompt = busy_reading && obs.question_at_cursor;
    if reading_at_prompt {
        obs.fg_waiting = Some(true);
    }
    obs.reply_pending = reply_pending;
    obs.fg_busy = activity.map(|a| {
        a == GroupActivity::Busy || (a == GroupActivity::BusyReadingTty && !reading_at_prompt)
    });
    obs.fg_timed_wait = activity == Some(GroupActivity::TimedWait);
    obs.shell_marks_alive = marks_seen
        && probed
            .as_ref()
            .is_some_and(|p| p.pgid == shared.shell_pgid() && !p.shell_replaced);
    obs.tty_line_editing = shared.pty.modes().is_some_and(TtyModes::line_editing);
    obs.line_editor_mode = obs.shell_marks_alive && obs.tty_line_editing;
    if obs.prompt != PromptState::Busy || obs.fg_waiting == Some(true) {
        obs.input_pending = shared.pty.pending_input_bytes().unwrap_or(0) > 0;
    }
    (obs, exit_at.map(|(at, _)| at), last_exit)
}

#[cfg(test)]
mod tests;

/// A hash of `row`'s text that tells progress (`Observation::cursor_text`): its spinner
/// glyphs, dots and blanks left out, so a spinner cycling beside a read for a key (`Waiting...
/// |/-\`) is no progress, and a count, a time or a bar that moves is; `None` when nothing else
/// is left.
fn progress_text_hash(row: &str) -> Option<u64> {
    use std::hash::{Hash as _, Hasher as _};
    let spinner = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '|' | '/'
                    | '-'
                    | '\\'
                    | '.'
                    | '\u{2800}'..='\u{28FF}'
                    | '◐'..='◓'
                    | '◜'..='◟'
                    | '◴'..='◷'
                    | '▖'
                    | '▗'
                    | '▘'
                    | '▝'
                    | '●'
                    | '○'
            )
    };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut any = false;
    for c in row.chars().filter(|&c| !spinner(c)) {
        c.hash(&mut h);
        any = true;
    }
    any.then(|| h.finish())
}
