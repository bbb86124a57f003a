//! [`State`]: what a session's reader, send drivers and signals share under its lock, and
//! the records it keeps of readers and lines the sends left.

use std::sync::Arc;
use std::time::Instant;

use crate::error::TerminalError;
use crate::pty::ExitInfo;
use crate::screen::{AnchorId, ExitTally, Screen};
use crate::types::{SessionId, SessionStatus};

use crate::session::send::SendOp;
use crate::session::signal::SignalAftermath;

/// Mutable session state, behind [`Shared::lock`].
pub(in crate::session) struct State {
    pub(in crate::session) screen: Screen,
    pub(in crate::session) last_output_at: Instant,
    /// When a terminal query reply last landed in the terminal's input: the program that
    /// asked reads it and goes on, so a probe that began before it is stale.
    pub(in crate::session) last_reply_at: Option<Instant>,
    pub(in crate::session) output_ended: bool,
    pub(in crate::session) stream_error: Option<String>,
    pub(in crate::session) exit: Option<(ExitInfo, Instant)>,
    pub(in crate::session) closing: bool,
    /// A close is stopping the session's processes right now (cleared when it ends, also
    /// when its future is dropped): it ends the active send as `session_exit` itself.
    pub(in crate::session) close_running: bool,
    pub(in crate::session) active: Option<Arc<SendOp>>,
    /// A signal just reached the foreground group: the next send waits for it to play out
    /// (see [`SignalAftermath`]), or its input could be discarded with the interrupted line.
    pub(in crate::session) redraw_pending: Option<SignalAftermath>,
    /// Where the last result's viewport ended. The next send's viewport starts here, so
    /// output that arrived between two calls (a command still running after `inferred_idle`
    /// finishing later) is shown in the next result instead of only in scrollback.
    pub(in crate::session) resume_from: Option<AnchorId>,
    /// Raw bytes read from the terminal so far.
    pub(in crate::session) bytes_read: u64,
    /// `bytes_read` when `resume_from` was placed.
    pub(in crate::session) bytes_at_resume: u64,
    /// A send whose result nobody saw was cancelled and interrupted its command: the next
    /// result, which shows its output, says so (`SettleFacts::earlier_cancel`).
    pub(in crate::session) cancel_unseen: bool,
    /// What a send whose result nobody saw said of its input (lines a cancel left untyped):
    /// the next result, which shows its output, says it too.
    pub(in crate::session) input_notice_unseen: Option<String>,
    /// `screen.exit_tally()` when `resume_from` was placed.
    pub(in crate::session) exits_at_resume: ExitTally,
    /// `screen.prompt_end_count()` when input holding a line end was last written: a command
    /// was submitted then. Equal to the current count: no marked prompt came after it (text
    /// typed at a prompt without Enter leaves it alone).
    pub(in crate::session) prompts_at_submit: Option<u64>,
    /// The command line last typed at our shell's primary prompt is one simple command
    /// (`input::is_simple_command`), and `screen.prompt_end_count()` then: while no prompt
    /// came since, that command runs and nothing of its line is left after it.
    pub(in crate::session) simple_command_at: Option<u64>,
    /// The lines of that command line typed so far (at the primary prompt, then at its
    /// continuation prompt), for judging it whole.
    pub(in crate::session) command_lines: Vec<u8>,
    /// When the screen first showed the running command line's start (its `C` mark; `None`
    /// while no command runs): for a short while after it, a shell still holding the
    /// terminal may be about to start the line's program.
    pub(in crate::session) command_seen_at: Option<Instant>,
    /// A line sends typed into the terminal in canonical mode without ending it: the kernel
    /// holds it, and the next line typed continues it (its length limit counts both).
    pub(in crate::session) unended_line: Option<UnendedLine>,
    /// The Python source sends typed to a Python REPL since its `>>> ` prompt: a send that
    /// finds the REPL reading more of that block ends it before a new statement.
    pub(in crate::session) python_block: Option<String>,
    /// The last send settled with a REPL reading at its primary prompt, nothing typed on its
    /// line, and no input was written since: output printed later (a thread's) may push that
    /// prompt off the cursor's row, yet the REPL runs no statement.
    pub(in crate::session) repl_idle_at_prompt: bool,
    /// The foreground group the newest send that settled at a REPL's primary prompt found
    /// there: a Python program that showed one runs a REPL (`code.interact`, a framework's
    /// shell) though its command line names a script.
    pub(in crate::session) repl_prompt_group: Option<i32>,
    /// The foreground group whose REPL read a line but had not printed its prompt again when
    /// the last send settled (`SettleFacts::unprompted_wait`): a poll that still finds it so
    /// says so again.
    pub(in crate::session) unprompted_fg: Option<i32>,
    /// The REPL's group whose statement waited for a line with no prompt when the last send
    /// settled (see `send::statement_read`): the next send's text goes to that read.
    pub(in crate::session) statement_read: Option<i32>,
    /// With `statement_read`: the prompt of its own the statement asked at (`input('... ')`),
    /// trimmed; `None` when it showed none.
    pub(in crate::session) statement_read_prompt: Option<String>,
    /// The last non-blank line of the newest send that typed text, trimmed: a poll's own line
    /// (see `SendOp::own_line`).
    pub(in crate::session) last_sent_line: Option<String>,
    /// What sends typed to a program reading a counted amount of the terminal (its pid, the
    /// bytes): it took them, and reads only what is left of its count (see
    /// `start::counted_read`).
    pub(in crate::session) counted_read_fed: Option<(i32, Vec<u8>)>,
    /// The foreground group a SIGINT or SIGTERM was last sent to: when the next send settles
    /// with it still in the foreground, the result says it survived the signal.
    pub(in crate::session) signalled: Option<(i32, crate::TerminalSignal)>,
    /// The cursor's row (absolute) when a send last wrote: the row the input's echo starts on.
    pub(in crate::session) write_row: u64,
    /// The result that placed `resume_from` ended inside a line a program still running was
    /// writing (`Downloading... ` on a row of its own, not the row input was typed on): the
    /// next result's first line goes on from there, and says so. Text a send typed without
    /// Enter is the sender's own: only at our shell's prompt, where the next send's text
    /// completes a command line, does the next result quote it too.
    pub(in crate::session) resume_line_open: bool,
    /// The newest input a send wrote did not end with a line end (text typed without Enter,
    /// editing keys), and whether it went to the shell's own line editor: only then is text
    /// on the shell's input line the agent's own (not so for a program that never read it).
    pub(in crate::session) typed_unended: bool,
    pub(in crate::session) typed_unended_at_shell: bool,
    /// How many prompts had ended (see `Screen::prompt_end_count`) when a SIGINT to the
    /// shell itself discarded its line: until its next prompt shows, the text after the old
    /// prompt is that discarded line, which a send typed, no text pushed there.
    pub(in crate::session) line_discarded_at_prompt: Option<u64>,
    /// That input ended with a lone ESC: an editor is back in its normal mode (ESC ends
    /// insert mode and cancels a `:` command line).
    pub(in crate::session) typed_escape_last: bool,
    /// When the newest write ended with a lone ESC (a key of its own, or the start of one a
    /// line editor holds for its escape timeout): the next write waits that timeout out.
    pub(in crate::session) lone_escape_written_at: Option<Instant>,
    /// The foreground group (vim's) that the keys sent to it may have left in a mode that
    /// types text: an insert begun (`i`, `o`, `cw`) with no ESC after it, as far as the keys
    /// tell (see `send::pager_guard::insert_keys`). A vim that does not show its mode
    /// (`noshowmode`) is then typing text though its last row says nothing.
    pub(in crate::session) editor_insert: Option<i32>,
    /// The last send settled with the session's shell itself stopped (`suspend`, SIGSTOP).
    pub(in crate::session) shell_stopped: bool,
    /// The process groups of the shell's jobs that were stopped when the last result settled,
    /// or that `terminal_signal` said it stopped: a result says a job is stopped once (see
    /// `SettleFacts::stopped_jobs`).
    pub(in crate::session) stopped_jobs_seen: Vec<i32>,
    /// The command names of processes the session started that still ran after its shell
    /// exited, for the exit's result (see `send::left_running`).
    pub(in crate::session) left_running: Vec<String>,
    /// The foreground group of a REPL a send switched into a mode with no prompt (node's
    /// `.editor`), until a send types Ctrl-D or Ctrl-C (which end it) or another group holds
    /// the terminal.
    pub(in crate::session) promptless_repl: Option<i32>,
    /// What the last settled send left waiting for input, other than our shell's line
    /// editor: a send that finds it gone since (our shell's prompt back, another group in
    /// the foreground) is refused once (see `send::stale_reader`).
    pub(in crate::session) awaited_reader: Option<AwaitedReader>,
    /// The last result the agent saw showed a program still busy, or nobody saw it (with
    /// `screen.prompt_end_count()` then, and the foreground group the busy result showed): a
    /// reader that waits when the next send begins is one no result showed (see
    /// `send::unseen_reader`).
    pub(in crate::session) unseen_reader_guard: Option<(u64, Option<i32>)>,
    /// The reader the last result left waiting, when a signal went to its group: what the
    /// signal's answer looks at (see `after_signal`).
    pub(in crate::session) reader_at_signal: Option<crate::session::after_signal::ReaderAtSignal>,
    /// The group the last `terminal_signal` went to and its leader's program name, read
    /// before the signal (which may end it): what `after_signal` names it by.
    pub(in crate::session) signal_target: Option<(i32, String)>,
    /// A reader that went on waiting at its prompt after a signal: the next send of text is
    /// refused once (see `send::stale_reader::check_survivor`).
    pub(in crate::session) survived_reader: Option<crate::session::after_signal::SurvivedReader>,
}

/// A reader a send left waiting (see `State::awaited_reader`).
#[derive(Clone, Debug)]
pub(in crate::session) struct AwaitedReader {
    /// `screen.prompt_end_count()` then: a marked prompt of our shell since means the reader
    /// ended.
    pub(in crate::session) prompts: u64,
    /// Its prompt (the text before the cursor), trimmed; `None` when it showed none.
    pub(in crate::session) prompt: Option<String>,
    /// The terminal's foreground process group then.
    pub(in crate::session) foreground: Option<i32>,
    /// The send that left it (`SendOp::identity`).
    pub(in crate::session) send: usize,
}

/// The unended canonical-mode line sends typed (see `State::unended_line`).
#[derive(Clone, Copy, Debug)]
pub(in crate::session) struct UnendedLine {
    /// Bytes typed since the last line end.
    pub(in crate::session) bytes: usize,
    /// `screen.prompt_end_count()` when they were typed: a marked prompt since means the
    /// shell's line editor took the terminal and read them.
    pub(in crate::session) prompts: u64,
}

impl State {
    pub(in crate::session) fn new(screen: Screen) -> Self {
        Self {
            screen,
            last_output_at: Instant::now(),
            last_reply_at: None,
            output_ended: false,
            stream_error: None,
            exit: None,
            closing: false,
            close_running: false,
            active: None,
            redraw_pending: None,
            resume_from: None,
            cancel_unseen: false,
            input_notice_unseen: None,
            bytes_read: 0,
            bytes_at_resume: 0,
            exits_at_resume: ExitTally::default(),
            prompts_at_submit: None,
            simple_command_at: None,
            command_lines: Vec::new(),
            command_seen_at: None,
            unended_line: None,
            python_block: None,
            repl_idle_at_prompt: false,
            repl_prompt_group: None,
            unprompted_fg: None,
            statement_read: None,
            statement_read_prompt: None,
            last_sent_line: None,
            counted_read_fed: None,
            signalled: None,
            write_row: 0,
            resume_line_open: false,
            typed_unended: false,
            typed_unended_at_shell: false,
            line_discarded_at_prompt: None,
            typed_escape_last: false,
            lone_escape_written_at: None,
            editor_insert: None,
            shell_stopped: false,
            stopped_jobs_seen: Vec::new(),
            left_running: Vec::new(),
            promptless_repl: None,
            awaited_reader: None,
            unseen_reader_guard: None,
            reader_at_signal: None,
            signal_target: None,
            survived_reader: None,
        }
    }

    /// The newest output or query reply: a probe of the foreground that began before it
    /// describes a program that may have moved on since.
    pub(in crate::session) fn probe_fence(&self) -> Instant {
        self.last_reply_at
            .map_or(self.last_output_at, |at| at.max(self.last_output_at))
    }

    /// The session status as the contract reports it.
    pub(in crate::session) fn status(&self) -> SessionStatus {
        match &self.exit {
            Some((info, _)) => info.status(),
            None if self.stream_error.is_some() => SessionStatus::Exited {
                exit_code: None,
                signal: None,
            },
            None => SessionStatus::Running,
        }
    }

    /// Refuses a new send (or signal) on a closing or exited session.
    pub(in crate::session) fn check_usable(&self, id: &SessionId) -> Result<(), TerminalError> {
        if self.closing {
            return Err(TerminalError::closing(id));
        }
        if self.exit.is_some() || self.stream_error.is_some() {
            return Err(TerminalError::exited(id));
        }
        Ok(())
    }
}
