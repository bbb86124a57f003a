//! Value types of the terminal service contract (the seed's §2.1), plus the facts we add on
//! top of the seed (exit status from the prompt mark, foreground program, input mode).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

mod signal;

pub use signal::{AfterSignal, SignalDelivery, SignalResult};

/// A session id minted by [`crate::Terminals`] as `pty-N` (N from one per-service counter,
/// starting at 1, never reused). Opaque to callers; authorization never relies on secrecy.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(String);

impl SessionId {
    /// Wraps a string without validation (ids from the model are looked up, not trusted).
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }
    /// The id text, e.g. `pty-1`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a send settled (the seed's §3.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitReason {
    /// Exact evidence: the nonce'd prompt mark came back with the shell owning the terminal, or
    /// a foreground program is provably blocked reading the tty.
    StdinRead,
    /// Heuristic: output was silent for the idle window. The command may still be running.
    InferredIdle,
    /// The absolute deadline passed. Never implies exit.
    Timeout,
    /// The session's top-level process exited.
    SessionExit,
}

/// Signals a model may deliver to the foreground process group (the seed's §2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TerminalSignal {
    /// Interrupt (what Ctrl-C would send).
    Sigint,
    /// Polite termination.
    Sigterm,
    /// Forced kill (refused when the foreground group is the shell itself).
    Sigkill,
    /// Terminal stop (Ctrl-Z).
    Sigtstp,
    /// Hangup.
    Sighup,
}

impl TerminalSignal {
    /// All allowed signals, in the seed's schema order.
    pub const ALL: [TerminalSignal; 5] = [
        Self::Sigint,
        Self::Sigterm,
        Self::Sigkill,
        Self::Sigtstp,
        Self::Sighup,
    ];
    /// The model-visible name, e.g. `SIGINT`.
    pub fn as_str(self) -> &'static str {
        signal_name(self.as_raw()).unwrap_or_default()
    }
    /// The signal as rustix delivers it.
    pub(crate) fn to_rustix(self) -> rustix::process::Signal {
        use rustix::process::Signal;
        match self {
            Self::Sigint => Signal::INT,
            Self::Sigterm => Signal::TERM,
            Self::Sigkill => Signal::KILL,
            Self::Sigtstp => Signal::TSTP,
            Self::Sighup => Signal::HUP,
        }
    }
    /// The raw signal number on this platform.
    pub fn as_raw(self) -> i32 {
        self.to_rustix().as_raw()
    }
}

impl fmt::Display for TerminalSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TerminalSignal {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|sig| sig.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unsupported signal {s:?}; use one of SIGINT, SIGTERM, SIGKILL, SIGTSTP, SIGHUP"
                )
            })
    }
}

/// The conventional name of a Linux signal number (`9` → `SIGKILL`).
pub(crate) fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        10 => "SIGUSR1",
        11 => "SIGSEGV",
        12 => "SIGUSR2",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        16 => "SIGSTKFLT",
        17 => "SIGCHLD",
        18 => "SIGCONT",
        19 => "SIGSTOP",
        20 => "SIGTSTP",
        21 => "SIGTTIN",
        22 => "SIGTTOU",
        23 => "SIGURG",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        26 => "SIGVTALRM",
        27 => "SIGPROF",
        28 => "SIGWINCH",
        29 => "SIGIO",
        30 => "SIGPWR",
        31 => "SIGSYS",
        _ => return None,
    })
}

/// Whether a session's top-level process is still running.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionStatus {
    /// Still running.
    Running,
    /// Exited. `exit_code` is `None` when a signal ended it; `signal` is the signal name
    /// (e.g. `SIGKILL`) or `None`.
    Exited {
        /// Exit status when it exited normally.
        exit_code: Option<i32>,
        /// Signal name when a signal ended it.
        signal: Option<String>,
    },
}

/// A request to open a session (seed `TerminalSpawnRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpawnRequest {
    /// Registered backend type, usually `shell`.
    pub backend_type: String,
    /// Optional owner-local display name (unique per owner).
    pub name: Option<String>,
    /// Initial working directory; the backend's default when `None`.
    pub cwd: Option<PathBuf>,
}

/// What a backend receives to create one session.
#[derive(Clone, Debug)]
pub struct BackendSpawnSpec {
    /// Cancelled when the owner or the service is disposed while the spawn is pending; the
    /// backend then stops startup promptly, cleans up everything it started and fails.
    pub cancel: tokio_util::sync::CancellationToken,
    /// The id minted for this session.
    pub session_id: SessionId,
    /// The owning agent's id (exported to the shell as `DSH_SESSION_ID`; not authorization).
    pub owner_id: String,
    /// Optional display name.
    pub name: Option<String>,
    /// Initial working directory, if requested.
    pub cwd: Option<PathBuf>,
}

/// A live view of one session (seed `TerminalSessionSnapshot`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionSnapshot {
    /// `pty-N`.
    pub session_id: SessionId,
    /// Display name, if given at open.
    pub name: Option<String>,
    /// Backend type, e.g. `shell`.
    pub backend_type: String,
    /// Pid of the top-level process, when known.
    pub pid: Option<u32>,
    /// Running or exited.
    pub status: SessionStatus,
}

/// The result of opening a session: its snapshot plus the startup screen text (MOTD).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpawnResult {
    /// The published session.
    pub snapshot: SessionSnapshot,
    /// Startup output, typically `dsh> `; may be empty.
    pub motd: String,
}

/// Input to write (seed `TerminalSendRequest`). The text is written verbatim (UTF-8 bytes,
/// control characters included); `submit` appends a carriage return (Enter).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SendRequest {
    /// Text to write.
    pub text: String,
    /// Press Enter (`\r`) after the text.
    pub submit: bool,
    /// Absolute deadline of this send, replacing the session's configured timeout; `None`
    /// keeps the configured one. Callers bound it (the engine takes it as given).
    pub timeout: Option<Duration>,
}

/// How the terminal is taking input when a send settles (going past the seed, direction §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InputMode {
    /// Nothing special to report.
    #[default]
    Normal,
    /// The tty has echo off (a password prompt): typed text is not shown.
    EchoOff,
    /// The shell is in a continuation prompt (open quote, heredoc, unfinished compound), or a
    /// REPL in its continuation prompt waits for the rest of a block (`...` in Python, node).
    Continuation,
    /// An SQL shell in its continuation prompt waits for the rest of a statement (sqlite3's
    /// `...>`, psql's `db-#`, mysql's `->`): a `;` ends it.
    StatementContinuation,
    /// A full-screen program holds the alternate screen; the viewport is its rendered screen.
    AlternateScreen,
    /// The program waiting reads single keys as they are typed (the terminal is in cbreak
    /// mode: no line editing, echo on, a carriage return still read as a newline: `read -n 1`,
    /// a "[y/N]" key prompt): an Enter sent after the answer is a key of its own, which the
    /// next read takes.
    SingleKey,
}

/// A settled send (seed `TerminalSendResult` plus our additions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SendResult {
    /// Screen-true text produced since the send started (or the rendered screen when a
    /// full-screen program holds the terminal). Never contains escape sequences.
    pub viewport: String,
    /// Why the send settled.
    pub wait_reason: WaitReason,
    /// Session status at settlement.
    pub session_status: SessionStatus,
    /// Whether output was dropped by a byte or line bound.
    pub truncated: bool,
    /// Exit status of the last command, from the nonce'd prompt mark, when the prompt came back
    /// during this send.
    pub exit_code: Option<i32>,
    /// Name of the foreground program when it is not the shell (e.g. `python3`), if known:
    /// when it waits for input, the program reading the terminal (`vim` that `git commit`
    /// started), otherwise its process group's leader.
    pub foreground: Option<String>,
    /// Input mode facts at settlement.
    pub input_mode: InputMode,
    /// Earlier commands that finished within the span the viewport covers (the last
    /// command's status is `exit_code`): a command typed ahead while another ran, or several
    /// lines sent at once. Empty when there were none.
    pub earlier_exits: EarlierExits,
    /// Raw bytes the terminal produced over the span the viewport covers (since the previous
    /// result), escape sequences included: how much a truncated viewport stands for.
    pub output_bytes: u64,
    /// The send's first output lines (its command line first), present only when the
    /// viewport no longer starts at the send's start: the send printed more than the
    /// scrollback or the read bound holds.
    pub head: Option<SendHead>,
    /// Lines the backend adds about the session since its previous result, each a complete
    /// `[…]` line for the model (e.g. that a resource cap refused new processes, or that the
    /// shell's prompt gave the main screen back from an alternate screen a program left on).
    pub notices: Vec<String>,
    /// The number of the viewport's last line, counted from the session's first line (0),
    /// the lines the scrollback dropped included (addition to the seed): a viewport line
    /// `n` lines before it is line `newest_line - n`, which [`ReadRequest::from_line`] pages
    /// however much output follows. `None` when not known (a full-screen program's screen).
    pub newest_line: Option<u64>,
    /// The foreground program is a REPL that read what was sent and reads input again but has
    /// not printed its prompt since: what it read may still be running (node's REPL while an
    /// `await` or a timer of the line is pending). The notices say so too; a caller following
    /// the send to its end (a background job) polls on rather than take it as finished.
    pub prompt_owed: bool,
    /// The session's shell reads at its line editor with no marked prompt on the screen since
    /// the send's command was submitted: the command replaced the prompt strings or hooks that
    /// print the marks (`unset PS1 PROMPT_COMMAND`) or sent the shell's stderr, where its
    /// prompt goes, elsewhere (`exec 2>file`), so it is most likely back at its prompt with
    /// its exit status unknown; or a builtin reads with the line editor (`read -e`). A notice
    /// says which; a background job's status does not take it for a program's question.
    pub prompt_unmarked: bool,
    /// None of the send's lines was typed (a signal or a cancel dropped them, or the reader
    /// they were for ended first): the status the prompt brought back is an earlier
    /// command's (in `earlier_exits`), and nothing the send typed waits anywhere.
    pub entered_none: bool,
}

/// The first output lines of a send whose viewport lost its start (see [`SendResult::head`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SendHead {
    /// The send's first lines (about 100, at most 16 KiB) on rows before the viewport's first
    /// row, as whole lines.
    pub text: String,
    /// How many of the head's first lines the scrollback no longer holds (the rest of them
    /// can be paged with `terminal_read`).
    pub lines_dropped: u64,
    /// Lines between the head and the oldest row the scrollback still holds: dropped, so not
    /// pageable (a soft-wrapped line counts once). When the scrollback had dropped the send's
    /// start before the send began (a poll after output flooded in between two calls), `text`
    /// is empty (the send's first lines are gone) and this counts every line dropped since
    /// the send's start.
    pub lines_between: u64,
    /// Lines between the head (or the oldest retained row) and the viewport's first line that
    /// the scrollback still holds: pageable with `terminal_read`, though not in the viewport.
    pub retained_lines_before: u64,
    /// Bytes of those retained lines as `terminal_read` joins them (each ending in `\n`), plus
    /// the start of the viewport's first line when the result's byte bound cut it off.
    pub retained_bytes_before: u64,
    /// The start of the viewport's first line when the viewport begins inside a line that
    /// began after `text` (one huge line: the scrollback or the byte bound lost its start).
    pub line_start: Option<LineStart>,
}

/// The start of a line the viewport shows only the end of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineStart {
    /// The line's first bytes (at most 4 KiB, whole characters).
    pub text: String,
    /// Bytes of the line between `text` and the viewport's first line, about (a row the
    /// scrollback dropped counts as the line's retained rows do on average).
    pub omitted_bytes: u64,
    /// The scrollback no longer keeps the line's start: `text` is empty and `omitted_bytes`
    /// counts only the line's retained bytes before the viewport's first line (at least that
    /// many were left out).
    pub start_dropped: bool,
}

/// How far a running send has got, for progress reports (reading it consumes nothing).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SendProgress {
    /// Raw bytes the terminal produced since the send started, escape sequences included.
    pub output_bytes: u64,
    /// The newest non-blank line of screen-true output since the send started, if any.
    pub last_line: Option<String>,
}

/// A consuming read of a running operation's output (seed `TerminalSendRead`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SendRead {
    /// Output since the previous read.
    pub delta: String,
    /// Whether output was dropped since the previous read.
    pub truncated: bool,
    /// When `truncated`, how many line ends the dropped output held (0: the delta's first line
    /// continues the line the previous read ended inside); `None` when not known. The lines
    /// of `head` are not among them.
    pub lost_lines: Option<u64>,
    /// When `truncated`: the send's first lines that were dropped before this read took them
    /// (a flood outran the reads) and that the screen kept as the send's head, as whole lines
    /// each ending in `\n` (at most about 100 lines, 16 KiB), to go before `delta`, the
    /// dropped output between them; empty otherwise.
    pub head: String,
    /// The delta starts at the start of the cursor's row: when the previous read ended inside
    /// that row's line (no newline after it), the program rewrote the line from its start
    /// (`\r`, erase line: a progress bar), and the delta's first line replaces it rather than
    /// continuing it.
    pub restarts_line: bool,
    /// Whole lines at the end of earlier reads that the program rewrote since (a progress
    /// display moved the cursor up and redrew its rows): the delta shows them again, as they
    /// are now, so they replace those lines rather than follow them (0 when nothing was
    /// rewritten). Lines already handed on cannot be taken back: then the rewritten ones
    /// follow them.
    pub rewound_lines: u64,
    /// `delta` is a full-screen program's whole screen (the alternate screen) as it is now,
    /// not output that follows the previous read: it stands in for an earlier screen no one
    /// was shown yet, as a terminal shows only the newest.
    pub screen: bool,
    /// The number of the delta's last line (the line being written), counted from the
    /// session's first line as [`SendResult::newest_line`] counts; `None` when not known (an
    /// empty delta, a full-screen program's screen).
    pub newest_line: Option<u64>,
    /// What a result would say about the delta's text where it shows differently from what
    /// the program printed (characters not UTF-8, escape strings a line end cut off, line
    /// drawing, texts written over one another on a row, lines cut at the right edge,
    /// invisible or concealed characters), for the output this read took; the settled
    /// result says them again for the whole send. Rows the program erased are said by the
    /// settled result only.
    pub notices: Vec<String>,
}

/// A scrollback page request (seed `TerminalReadRequest`). Defaults: offset 0, count 500.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadRequest {
    /// Newest-relative line offset (0 = the newest line).
    pub offset: Option<u64>,
    /// The page's first line by its number from the session's first line (0), the lines the
    /// scrollback dropped included (addition to the seed): stays valid while output goes on,
    /// where an offset moves with every new line. Takes the place of `offset`; the page ends
    /// with the newest line at most. See [`SendResult::newest_line`].
    pub from_line: Option<u64>,
    /// Number of lines (positive; [`DEFAULT_PAGE_LINES`](crate::DEFAULT_PAGE_LINES) when absent).
    pub count: Option<u64>,
}

/// A scrollback page (seed `TerminalReadResult`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadResult {
    /// The lines joined by `\n`, bounded to the backend's `max_read_bytes`.
    pub text: String,
    /// Number of retained lines.
    pub total_lines: u64,
    /// Inclusive newest-relative offset of the page.
    pub line_begin: u64,
    /// Exclusive newest-relative end of the page.
    pub line_end: u64,
    /// Whether the page was cut: by the byte bound, or because it reaches back to the oldest
    /// retained line after the scrollback dropped older ones.
    pub truncated: bool,
    /// The start of the page's first line when the byte bound cut it off (one huge line):
    /// its first bytes and, as `omitted_bytes`, exactly the bytes between them and the text.
    pub line_start: Option<LineStart>,
    /// A full-screen program holds the alternate screen: the newest lines are its screen, and
    /// the shell's rows it covers page again once it leaves.
    pub alternate_screen: bool,
    /// The number of the page's first line, counted from the session's first line as
    /// [`ReadRequest::from_line`] takes it; `None` for an empty page or a full-screen
    /// program's screen.
    pub first_line: Option<u64>,
}

/// What closing a session did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CloseReport {
    /// How many processes (the shell included; a sandbox's launcher processes not) were
    /// signalled to stop.
    pub processes_stopped: usize,
}

/// The outcome of [`crate::Terminals::kill`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CloseOutcome {
    /// This call closed the session.
    Closed(CloseReport),
    /// Another close was already in flight; this call waited for it.
    AlreadyClosing,
}

/// Most failed earlier commands kept with their positions (the newest); counts stay exact.
pub const EARLIER_FAILURES_KEPT: usize = 1000;

/// Commands that finished within a result's span before the one it reports, from the exit
/// statuses their prompt marks carried (a mark without a status is not counted). Exact however
/// many commands one send ran; the positions kept are bounded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EarlierExits {
    /// Commands that finished with a known exit status; positions count them from 1, oldest
    /// first.
    pub finished: u64,
    /// How many of them exited non-zero.
    pub failed: u64,
    /// The failed ones, oldest first: all of them, or the newest [`EARLIER_FAILURES_KEPT`]
    /// when more failed (`failures.len() < failed`).
    pub failures: Vec<EarlierFailure>,
}

impl EarlierExits {
    /// Whether no earlier command finished.
    pub fn is_empty(&self) -> bool {
        self.finished == 0
    }

    /// Adds the commands that finished after these (`later`'s positions follow on), keeping
    /// the newest [`EARLIER_FAILURES_KEPT`] failures.
    pub fn append(&mut self, later: &EarlierExits) {
        let offset = self.finished;
        self.failures
            .extend(later.failures.iter().map(|f| EarlierFailure {
                position: offset + f.position,
                exit_code: f.exit_code,
            }));
        let excess = self.failures.len().saturating_sub(EARLIER_FAILURES_KEPT);
        self.failures.drain(..excess);
        self.finished += later.finished;
        self.failed += later.failed;
    }

    /// Every status in order (0 where no failure is recorded), when at most `max` finished
    /// and every failure's position is known; `None` otherwise.
    pub fn statuses(&self, max: usize) -> Option<Vec<i32>> {
        let finished = usize::try_from(self.finished).ok().filter(|&n| n <= max)?;
        if self.failures.len() as u64 != self.failed {
            return None;
        }
        let mut codes = vec![0; finished];
        for f in &self.failures {
            let slot = usize::try_from(f.position).ok()?.checked_sub(1)?;
            *codes.get_mut(slot)? = f.exit_code;
        }
        Some(codes)
    }
}

/// One failed earlier command: its position among [`EarlierExits::finished`] and its status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EarlierFailure {
    /// 1 for the oldest command that finished in the span.
    pub position: u64,
    /// Its non-zero exit status.
    pub exit_code: i32,
}
