//! Answers to terminal queries (DSR cursor position, DA) the screen produced.
//!
//! The reader thread only enqueues a [`QueryReply`] on a bounded channel (a full queue drops
//! the reply: a program flooding queries gets no answers rather than unbounded memory); one
//! tokio task per session writes each reply once the foreground program that asked is
//! blocked reading the terminal, and drops it when that program is gone, reads whole lines
//! (canonical mode), or the shell's prompt (or a REPL's) is back, so no reply leaks into the
//! next command line.

use std::sync::Weak;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::shared::Shared;

/// Most query replies waiting per session; further queries go unanswered.
const MAX_PENDING_REPLIES: usize = 4;
/// How long a terminal query reply may wait for its program to block on the terminal (long
/// enough for a program that is slow to get the CPU on a loaded machine).
const REPLY_WAIT_MAX: Duration = Duration::from_secs(3);
/// How long a reply to the shell itself lets the screen catch up before checking its prompt.
const REPLY_SHELL_SETTLE: Duration = Duration::from_millis(5);
/// Longest pause between checks while a reply waits.
const REPLY_BACKOFF_MAX: Duration = Duration::from_millis(25);

/// The replies one output chunk asked for.
#[derive(Debug)]
pub(super) struct QueryReply {
    /// The reply bytes, in query order.
    pub(super) bytes: Vec<u8>,
    /// The terminal's foreground group when the query was read.
    pub(super) fg_at_query: Option<i32>,
}

/// The reader thread's end of the queue.
pub(super) type ReplySender = mpsc::Sender<QueryReply>;

/// A new bounded reply queue.
pub(super) fn channel() -> (ReplySender, mpsc::Receiver<QueryReply>) {
    mpsc::channel(MAX_PENDING_REPLIES)
}

/// The replier task: answers queued queries in order until the session is gone (its
/// [`Shared`], which owns the sender, is dropped).
pub(super) async fn run(shared: Weak<Shared>, mut queue: mpsc::Receiver<QueryReply>) {
    while let Some(reply) = queue.recv().await {
        answer(&shared, reply).await;
        if let Some(shared) = shared.upgrade() {
            shared.reply_finished();
        }
    }
}

/// What to do with a pending reply right now.
enum ReplyVerdict {
    Write,
    Drop(&'static str),
    Retry,
}

/// Writes one reply once the foreground program that asked is blocked reading the terminal;
/// drops it when that program is gone or the shell's prompt is back.
async fn answer(shared: &Weak<Shared>, reply: QueryReply) {
    let deadline = Instant::now() + REPLY_WAIT_MAX;
    let mut delay = Duration::from_millis(1);
    loop {
        let Some(shared) = shared.upgrade() else {
            return;
        };
        match verdict(&shared, reply.fg_at_query).await {
            ReplyVerdict::Write => {
                let _ = shared.pty.write(reply.bytes).await;
                // The asking program reads the reply now: probes from before are stale. Set
                // before the reply counts as done (`reply_finished`, by the caller), the order
                // the send's observation relies on.
                shared.lock().last_reply_at = Some(Instant::now());
                shared.bump();
                return;
            }
            ReplyVerdict::Drop(why) => {
                tracing::debug!("dropping terminal query reply: {why}");
                return;
            }
            ReplyVerdict::Retry => {}
        }
        drop(shared);
        if Instant::now() >= deadline {
            tracing::debug!("dropping terminal query reply: nobody read the terminal");
            return;
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(REPLY_BACKOFF_MAX);
    }
}

async fn verdict(shared: &Shared, fg_at_query: Option<i32>) -> ReplyVerdict {
    let fg = shared.pty.foreground_pgid();
    let Some(pgid) = fg.filter(|_| fg == fg_at_query) else {
        return ReplyVerdict::Drop("the querying program left");
    };
    if pgid == shared.shell_pgid() && shared.prompt_current() {
        return ReplyVerdict::Drop("the shell prompt is back");
    }
    if shared.pty.tty_path().is_none() {
        return ReplyVerdict::Write;
    }
    if !shared.waiting_on_tty(pgid).await {
        return ReplyVerdict::Retry;
    }
    if shared.pty.modes().is_some_and(|modes| modes.canonical) {
        // A reader in canonical mode gets input a line at a time, and a reply ends no line:
        // it would start the next line typed (`sh`'s next command, an `input()` answer). A
        // program that asks in order to read the answer reads keys (cbreak or raw mode).
        return ReplyVerdict::Drop("the reader takes whole lines");
    }
    if pgid != shared.shell_pgid() {
        // A REPL or a nested shell that printed the query (`print("\x1b[6n")` at Python's
        // prompt, `printf '\033[c'` in `bash --norc`) waits at its prompt again, reading with
        // its line editor: the reply would be typed into its next line. A program that asked
        // in order to read the answer reads it otherwise (in cbreak mode, or raw on its screen).
        tokio::time::sleep(REPLY_SHELL_SETTLE).await;
        if !shared.output_drained() {
            return ReplyVerdict::Retry;
        }
        if program_prompt_current(shared, pgid) {
            return ReplyVerdict::Drop("the program's prompt is back");
        }
        return ReplyVerdict::Write;
    }
    // The shell blocks on the terminal both in `read` (wants the reply) and at its prompt
    // (must not get it). Its prompt precedes that wait in the output, so let the screen catch
    // up before deciding.
    tokio::time::sleep(REPLY_SHELL_SETTLE).await;
    if !shared.output_drained() {
        return ReplyVerdict::Retry;
    }
    if shared.prompt_current() {
        return ReplyVerdict::Drop("the shell prompt is back");
    }
    if shared.waiting_on_tty(pgid).await {
        ReplyVerdict::Write
    } else {
        ReplyVerdict::Retry
    }
}

/// Whether process group `pgid` (not the session's shell) waits at a prompt with a line
/// editor that would take a query reply for typed text (the terminal in a line editor's
/// modes with the signal keys on, the main screen): a REPL at its primary prompt (`>>> `,
/// `sqlite> `, nothing typed after it), or a nested shell (`bash`, `sh`), which reads with
/// its line editor only at its prompt. A line editor that turned the signal keys off takes
/// every key itself and reads the replies to the queries it sends as it draws its prompt
/// (prompt_toolkit's, in IPython and ptpython, asks for the cursor position there and,
/// unanswered, holds each entered line a second before running it).
fn program_prompt_current(shared: &Shared, pgid: i32) -> bool {
    if !shared
        .pty
        .modes()
        .is_some_and(|modes| modes.line_editing() && modes.signals)
    {
        return false;
    }
    let repl_prompt = {
        let mut st = shared.lock();
        !st.screen.alternate_screen()
            && st
                .screen
                .cursor_row_prefix()
                .is_some_and(|row| super::observe::is_primary_repl_prompt(&row))
    };
    repl_prompt
        || crate::process::group_member(pgid)
            .is_some_and(|leader| super::nested_shell::is_shell_name(&leader.comm))
}
