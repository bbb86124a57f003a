//! Text for a program that reads no input yet is held back until something reads the terminal.
//!
//! In the terminal's line modes the kernel echoes what it receives at once, whoever reads it
//! later: text sent while `sleep 2; read -s -p 'Password: ' pw` sleeps would show on the
//! screen (a secret included) before `read` turned echo off, a prompt that flushes its input
//! (`getpass`, `sudo`) would then drop it, and a command meant for the shell would go to
//! whatever of the running line reads first. So a send to a foreground job that is at work
//! (computing, sleeping on a timer, waiting on busy children or on events with a timeout,
//! such as a CLI reaching its server before it asks for a password, the shell between two
//! commands of a line) writes nothing until the terminal has a reader: a program blocked
//! reading it, the shell back at its prompt, a program that took the terminal out of its line
//! modes or onto the alternate screen (it reads keys its own way), or no foreground at all.
//!
//! Nothing is written, and the result says so, when the send's deadline passes first
//! ([`held_text_expired_notice`]); when the program waits on events with timeouts and its
//! output has been quiet for the idle window (a server in the foreground waking on a timer),
//! unless the send gave its own deadline ([`held_text_quiet_notice`]: the send comes back
//! then, as it would settle on such a program); and when the reader that came takes single
//! keys, for which the text, shaped for a line, would be the wrong answer
//! ([`held_text_keys_notice`]). A job blocked on something else with no timeout (a server in
//! `accept`, a stopped job) whose output has been quiet for the idle window is taken to wait
//! for good and will not read soon by itself: its text goes then, typed ahead, as it would on a
//! user's terminal (the settle's typed-ahead notices say what the terminal did with it). A
//! program starting up, or connecting, waits elsewhere too, for a moment: only the silence
//! tells the two apart. A signal that discards typed-ahead input, or a cancel, drops held text
//! unwritten, as the terminal's keys would (a cancel then interrupts nothing).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::pty::TtyModes;
use crate::readiness::{PROBE_QUIET, PreWrite, Settle};

use super::super::cancel::program_name;
use super::super::observe::{SIGNAL_BYTES, pre_write};
use super::super::probe::Uptake;
use super::super::shared::Shared;
use super::SendOp;

/// How a hold ended.
pub(super) enum Hold {
    /// Write now.
    Write {
        /// The foreground as last seen.
        pre: PreWrite,
        /// When that look began.
        looked_at: Instant,
        /// The program the text waited for, when it waited (its name).
        waited_for: Option<String>,
    },
    /// A signal or a cancel came first: the text is not written.
    Dropped,
    /// The text is not written (the notice says so): the deadline passed first, the program
    /// went quiet waiting on other events, or what reads now takes single keys.
    Expired {
        /// The notice for the result.
        notice: String,
        /// How the send settles at once (`None`: at its deadline, which has passed).
        settle: Option<Settle>,
    },
}

impl SendOp {
    /// Holds `input` while the foreground reads nothing yet and is at work (see the module
    /// docs), until `until` at the latest; `pre` is the foreground seen by a look that began at
    /// `looked_at`; `idle_silence` is the output silence that ends a hold for a program that
    /// waits elsewhere. Looks again whenever output arrives or the send is woken, else after a
    /// pause that starts at [`PROBE_QUIET`] and doubles up to `max_pause`. `/proc` reads run
    /// off the async workers.
    #[expect(
        clippy::too_many_arguments,
        reason = "the foreground seen, the input and the hold's three bounds"
    )]
    pub(super) async fn hold_for_reader(
        &self,
        shared: &Arc<Shared>,
        activity: &mut watch::Receiver<u64>,
        mut pre: PreWrite,
        mut looked_at: Instant,
        input: &[u8],
        until: Instant,
        (idle_silence, max_pause): (Duration, Duration),
    ) -> Hold {
        let mut waited_for: Option<String> = None;
        // The group the text first waited for: its program is named as it is last seen (a
        // fork of the shell becomes the program it runs).
        let mut first_group: Option<i32> = None;
        let mut pause = PROBE_QUIET;
        // Keys with a signal in them are meant for now (see `pacing`); no text, no hold.
        if input.is_empty() || input.iter().any(|b| SIGNAL_BYTES.contains(b)) {
            return Hold::Write {
                pre,
                looked_at,
                waited_for,
            };
        }
        loop {
            // A signal discarded the input typed ahead before this text went in (the program
            // it went to may be gone by now, its shell back at the prompt).
            if self.held_dropped.load(Ordering::SeqCst) {
                return Hold::Dropped;
            }
            let Some(pgid) = pre.fg.filter(|_| !pre.waiting && no_reader_yet(shared)) else {
                break;
            };
            // A cancel, or a signal for the command: what is held goes with it.
            if self.interrupt_owed() {
                return Hold::Dropped;
            }
            let uptake = shared.uptake(pgid).await;
            let quiet = shared.lock().last_output_at.elapsed() >= idle_silence;
            match uptake {
                Uptake::Busy => {}
                // Quiet on events with timeouts (a server waking on a timer, an event loop):
                // a send that gave its own deadline waits for a reader up to it; another one
                // ends at the idle window, as the send would settle on such a program, with
                // nothing written (a secret must not go ahead of a prompt still to come).
                Uptake::TimedWait if quiet && self.timeout.is_none() => {
                    let program = self.name_of(shared, pgid).await;
                    return Hold::Expired {
                        notice: held_text_quiet_notice(program.as_deref().unwrap_or("it")),
                        settle: Some(Settle::Idle),
                    };
                }
                Uptake::TimedWait => {}
                // Quiet for the idle window, the send's time included (a server started a
                // while ago takes text at once).
                Uptake::Elsewhere => {
                    if quiet {
                        break;
                    }
                }
                Uptake::Reads => {
                    looked_at = Instant::now();
                    pre = pre_write(shared).await;
                    break;
                }
            }
            // Named once found (a group that ended before its name was read leaves it to the
            // next), and again as that group goes on (a fork of the shell runs its program).
            if waited_for.is_none() || first_group == Some(pgid) {
                let name = self.name_of(shared, pgid).await;
                if name.is_some() {
                    first_group = Some(pgid);
                    waited_for = name;
                }
            }
            let now = Instant::now();
            if now >= until {
                let program = waited_for.as_deref().unwrap_or("the running program");
                return Hold::Expired {
                    notice: held_text_expired_notice(program),
                    settle: None,
                };
            }
            tokio::select! {
                _ = activity.changed() => {}
                () = self.wake.notified() => {}
                () = tokio::time::sleep_until((now + pause).min(until).into()) => {}
            }
            pause = (pause * 2).min(max_pause.max(PROBE_QUIET));
            looked_at = Instant::now();
            pre = pre_write(shared).await;
        }
        // Held, and what reads now takes single keys (`read -n 1`, a `[y/N]` in cbreak mode),
        // or is a full-screen program another group than the one the text waited for runs
        // (`sleep 2; seq 100 | less`: `ls -la` typed there saved less's input to a file named
        // `-la`): the text was shaped for a line reader (its Enter, a whole word), so it does
        // not go; sent again, it is shaped for the key reader.
        let alternate = shared.lock().screen.alternate_screen();
        let another_full_screen = alternate && pre.fg.is_some() && pre.fg != first_group;
        if waited_for.is_some()
            && ((!alternate && shared.pty.modes().is_some_and(TtyModes::single_keys))
                || another_full_screen)
        {
            // Its prompt shows once it reads (the settled result shows it).
            let mut pause = PROBE_QUIET;
            while !pre_write(shared).await.waiting && Instant::now() < until {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(max_pause.max(PROBE_QUIET));
            }
            let program = waited_for.unwrap_or_default();
            return Hold::Expired {
                notice: held_text_keys_notice(&program),
                settle: Some(Settle::StdinWait),
            };
        }
        Hold::Write {
            pre,
            looked_at,
            waited_for,
        }
    }

    /// The name a notice gives group `pgid`'s program (`the shell` for our shell's group).
    async fn name_of(&self, shared: &Shared, pgid: i32) -> Option<String> {
        if pgid == shared.shell_pgid() {
            return Some("the shell".to_owned());
        }
        tokio::task::spawn_blocking(move || program_name(pgid))
            .await
            .ok()
            .flatten()
    }
}

/// Whether text written now would wait in the terminal's line discipline, echoed, for a
/// reader to come: the terminal is in its canonical mode off the alternate screen (a program
/// that set other modes reads keys its own way), and the shell is not at a current prompt.
fn no_reader_yet(shared: &Shared) -> bool {
    let fg = shared.pty.foreground_pgid();
    fg.is_some()
        && shared.pty.modes().is_some_and(|m| m.canonical)
        && !shared.lock().screen.alternate_screen()
        && !(fg == Some(shared.shell_pgid()) && shared.prompt_current())
}

/// The notice for text held until the send's deadline while `program` ran and read nothing.
fn held_text_expired_notice(program: &str) -> String {
    format!(
        "[input: not sent: {program} ran until the deadline and read no input, so the text \
         was held for a reader and then dropped (written ahead, the terminal would echo it, a \
         secret too, and whatever reads next would take it); send it again once a program \
         waits for input or the prompt is back, or with a longer timeoutMs to wait for that]"
    )
}

/// The notice for text held while `program`, quiet, waited on other events with timeouts.
fn held_text_quiet_notice(program: &str) -> String {
    format!(
        "[input: not sent: {program} went quiet waiting on other events (a server waiting for \
         connections, an event loop) and read no input, so the text was held for a reader and \
         then dropped; a server meant to keep running goes in the background (cmd > log \
         2>&1 &); send the text again once a program waits for input or the prompt is back, \
         or with timeoutMs to wait up to that long for a reader]"
    )
}

/// The notice for text held while `program` ran, when what reads now takes single keys.
fn held_text_keys_notice(program: &str) -> String {
    format!(
        "[input: not sent: the text waited while {program} ran, and what reads the terminal \
         now takes single keys (a key prompt, or a full-screen program such as less or vim), \
         which text shaped for a line would answer wrongly (the rest of a word, an Enter for \
         the next prompt, commands of its own); send the keys meant for it now]"
    )
}

#[cfg(test)]
mod tests {
    use super::{held_text_expired_notice, held_text_keys_notice, held_text_quiet_notice};

    #[test]
    fn the_notice_for_text_held_until_the_deadline_says_it_was_not_sent() {
        insta::assert_snapshot!(held_text_expired_notice("sleep"));
        insta::assert_snapshot!("quiet", held_text_quiet_notice("python3"));
        insta::assert_snapshot!("keys", held_text_keys_notice("sleep"));
    }
}
