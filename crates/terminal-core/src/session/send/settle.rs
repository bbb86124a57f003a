//! Settling a [`SendOp`]: the viewport rendered from its anchor, the next send's resume
//! point, the terminal facts, and the assembled result published to its caller; failing it
//! and releasing the session's send slot are in `release`.

use std::sync::atomic::Ordering;

use crate::pty::TtyModes;
use crate::readiness::Settle;
use crate::screen::PromptState;

use super::super::observe::{
    TerminalFacts, is_repl_prompt, leader_runs_a_repl, starts_with_repl_prompt, terminal_facts,
};
use super::super::result::{
    OutputNotes, ReplContinuation, SettleFacts, assemble, repl_continuation,
};
use super::SendOp;

mod in_front;
mod line_state;
mod release;
mod stopped_jobs;
mod unfinished;

impl SendOp {
    /// Settles with `reason` (no-op when already settled): renders the viewport from the
    /// anchor, places the next send's resume point, gathers the foreground facts and publishes
    /// the assembled result.
    pub(super) fn settle(&self, reason: Settle, last_exit_code: Option<i32>) {
        let shared = &self.shared;
        let mut st = shared.lock();
        if self.settled.swap(true, Ordering::SeqCst) {
            return;
        }
        // The program still runs: binary output it is writing stays one run across this
        // result and the next (the run's line so far shows here).
        let running = matches!(reason, Settle::Timeout | Settle::Idle);
        st.screen.keep_binary_run_open(running);
        // A cancelled send's interrupt is said by the next result someone sees.
        let earlier_cancel = {
            let span = self.span();
            if span.result_discarded {
                st.cancel_unseen |= span.cancel_interrupted;
                false
            } else {
                std::mem::take(&mut st.cancel_unseen)
            }
        };
        let (anchor, bytes_from, exits_from, discarded, rewound_lines, continued_line, poll) = {
            let mut span = self.span();
            span.final_restarts_line = span
                .anchor
                .is_some_and(|anchor| st.screen.anchor_starts_row(anchor));
            // The first line goes on from the unfinished one the previous result ended in
            // (unless the render starts over at its start).
            let continued_line = span
                .anchor
                .filter(|_| span.continues_line && !span.final_restarts_line)
                .and_then(|anchor| st.screen.anchor_prefix(anchor))
                .filter(|prefix| !prefix.trim().is_empty());
            span.final_rewound_lines = span
                .anchor
                .map_or(0, |anchor| st.screen.anchor_rewound_lines(anchor));
            if let Some(anchor) = span.anchor.filter(|_| span.background) {
                st.screen.forget_handed_out_left_rows(anchor);
                st.screen.forget_rewound_left_rows(anchor);
            }
            (
                span.anchor.take(),
                span.bytes_from,
                span.exits_from,
                span.result_discarded,
                // A background job's reads say themselves which of the lines they showed the
                // output went back up into (`SendRead::rewound_lines`).
                if span.background {
                    0
                } else {
                    span.final_rewound_lines
                },
                continued_line,
                span.poll,
            )
        };
        let (alternate_leaves_from, alternate_handed_out, answered_password) = {
            let mut span = self.span();
            (
                span.alternate_leaves_from,
                span.alternate_handed_out,
                span.answered_password.take(),
            )
        };
        if reason == Settle::Exit {
            st.screen.leave_alternate_screen_at_exit();
        }
        // Rows are copied under the lock and rendered after it is released.
        let snapshot = anchor.map(|a| st.screen.snapshot_since(a, shared.max_read_bytes));
        // Text shown highlighted on the rows it shows (a menu's selected item), which the
        // text cannot mark: read from the screen's cells while they are the ones rendered.
        let highlighted = anchor
            .map(|a| st.screen.highlighted_since(a))
            .unwrap_or_default();
        let lost_before_copy = anchor
            .zip(snapshot.as_ref())
            .and_then(|(a, rows)| st.screen.line_ends_since(a, rows.first_row()));
        // The line editor's redraws of its own line (keys that edit it) mix nothing in.
        let screen_mixed = !self.edits_shell_line && snapshot.as_ref().is_some_and(|s| s.mixed());
        let mixed_at_start_only = snapshot.as_ref().is_some_and(|s| s.mixed_at_start_only());
        // The send's captured head is taken (and the capture reset) whatever the outcome, and
        // placed before the rows the viewport shows.
        let head = st
            .screen
            .finish_head()
            .zip(snapshot.as_ref())
            .and_then(|(head, rows)| st.screen.place_head(head, rows.first_row()));
        if let Some(old) = st.resume_from.take() {
            st.screen.release_anchor(old);
        }
        let output_bytes = st.bytes_read.saturating_sub(bytes_from);
        // Bytes left over around a suppressed binary run are no text in another encoding.
        // With what reads of the send still running took (a background job's).
        let mut span_notes = std::mem::take(&mut self.span().read_notes);
        span_notes.absorb(st.screen.take_span_notes());
        // Our shell runs a longer command line (a loop, a list) than one command typed alone:
        // a program in the foreground is one command of it.
        let runs_longer_line = st.screen.command_running()
            && !st.command_lines.is_empty()
            && st.simple_command_at != Some(st.screen.prompt_end_count());
        let line_started_jobs =
            runs_longer_line && super::super::input::starts_background_commands(&st.command_lines);
        let done_now = st.screen.done_count();
        // Text no send typed follows our shell's prompt (a program pushed it into the
        // terminal's input): the prompt came back all the same.
        let foreign_line = (reason == Settle::StdinWait
            && !st.typed_unended
            && shared.pty.foreground_pgid() == Some(shared.shell_pgid()))
        .then(|| st.screen.text_after_prompt())
        .flatten();
        self.note_line_state(&mut st, reason, foreign_line.is_some());
        // Keys this send typed at our shell's prompt without Enter (an arrow recalling a
        // command, a history search) left a line there that has not run; also keys held for a
        // reader, or typed ahead of a program, that reached the prompt once it ended.
        let edited_line = (reason == Settle::StdinWait
            && (self.edits_shell_line || self.keys_while_a_program_ran)
            && st.typed_unended
            && self
                .last_line
                .as_deref()
                .is_some_and(|l| l.contains(char::is_control))
            && shared.pty.foreground_pgid() == Some(shared.shell_pgid()))
        .then(|| st.screen.text_after_prompt())
        .flatten()
        .filter(|line| !line.trim().is_empty());
        // A close that came once the send's command had finished and its prompt was back
        // settles it: the prompt ended the command all the same.
        let closed_at_prompt = reason == Settle::Exit
            && st.closing
            && st.screen.prompt_state() == PromptState::Prompt
            && st.screen.command_exit_since(exits_from).is_some();
        let prompted = reason == Settle::Prompt || foreign_line.is_some() || closed_at_prompt;
        // The newest finished command is the result's own when its prompt settled it.
        let exits = st.screen.exits_since(exits_from, prompted);
        // The result's own status is the newest command's that finished in its span: a
        // prompt after an empty or comment-only line repeats an older command's.
        let last_exit_code = if foreign_line.is_some() || closed_at_prompt {
            st.screen.command_exit_since(exits_from)
        } else {
            last_exit_code.and(st.screen.command_exit_since(exits_from))
        };
        // A full-screen program holds the terminal: this result shows its screen, not what
        // reached the main screen since the anchor (the command's own line), so the next
        // result starts there too, as if nobody had seen this one.
        let main_unseen = st.screen.alternate_screen();
        match anchor {
            // Nobody sees this result: the next one starts where this one did. One that shows
            // a full-screen program's screen did say the exits of its span (`earlier commands
            // … exited`): the next one does not say them again.
            Some(a) if discarded || main_unseen => {
                st.resume_from = Some(a);
                st.bytes_at_resume = bytes_from;
                st.exits_at_resume = if discarded {
                    exits_from
                } else {
                    st.screen.exit_tally()
                };
            }
            _ => {
                if let Some(a) = anchor {
                    st.screen.release_anchor(a);
                }
                let cursor = st.screen.cursor();
                // Also text this send typed without Enter at our shell's prompt: the command
                // line that runs is the next send's text after it, so its result quotes it.
                // Not keys that left the line empty (Ctrl-L redrawing the prompt, a pager's `q`
                // whose program ended): the next line is no continuation of anything.
                let shell_line_typed = st.typed_unended
                    && st.screen.after_prompt_end()
                    && !st.screen.command_running()
                    && st
                        .screen
                        .text_after_prompt()
                        .is_some_and(|text| !text.trim().is_empty());
                st.resume_line_open = !st.screen.alternate_screen()
                    && cursor.col > 0
                    && ((running && (poll || cursor.row != st.write_row)) || shell_line_typed);
                let resume = st.screen.anchor();
                st.screen.move_anchor_past_row_text(resume);
                st.resume_from = Some(resume);
                // The next result's reader has not seen this one's binary advice.
                st.screen.restart_binary_advice();
                st.bytes_at_resume = st.bytes_read;
                st.exits_at_resume = st.screen.exit_tally();
            }
        }
        let status = st.status();
        let closed = reason == Settle::Exit && st.closing;
        let left_running = std::mem::take(&mut st.left_running);
        let alternate = st.screen.alternate_screen();
        // vim in insert mode: what the next send types goes into the file.
        let editor_inserting =
            super::pager_guard::editor_inserting(&mut st, shared, shared.pty.foreground_pgid());
        let left_alternate = st.screen.take_prompt_left_alternate();
        // A full-screen program took the screen and left it within this send.
        let alternate_came_and_went = !alternate
            && !left_alternate
            && !alternate_handed_out
            && alternate_leaves_from.is_some_and(|from| st.screen.alternate_leave_count() > from);
        // Not after a command that resets the terminal on purpose (`reset`).
        let modes_restored = st.screen.take_modes_restored()
            && !self
                .last_line
                .as_deref()
                .is_some_and(super::super::input::resets_the_terminal);
        let errexit_on = st.screen.take_errexit_turned_on();
        let continuation = st.screen.prompt_state() == PromptState::Continuation;
        // A REPL's own continuation prompt (it has no marks): checked once the foreground
        // program is known to be reading.
        let cursor_row = (!alternate && reason == Settle::StdinWait)
            .then(|| st.screen.cursor_row_prefix())
            .flatten();
        let repl_prompt = cursor_row.as_deref().and_then(repl_continuation);
        // A nested shell's continuation prompt (`> `: `bash --norc` or dash in an open `if`
        // or quote), which has no marks of ours.
        let shell_continuation = cursor_row.as_deref().is_some_and(|row| row.trim() == ">");
        // Neither when a script asks its own question at a prompt written like one
        // (`input('... ')`, `read -p '> '` in `bash ask.sh`): the line sent is its answer.
        let script_asks = (repl_prompt.is_some() || shell_continuation)
            && shared
                .pty
                .foreground_pgid()
                .is_some_and(|fg| line_state::script_asks(&st, shared, fg));
        // Nor after a statement that asks at such a prompt of its own (see `statement_read`).
        let statement_prompt = self.statement_prompt(&st, reason, cursor_row.as_deref());
        let script_asks = script_asks || statement_prompt.is_some();
        let repl_prompt = repl_prompt.filter(|_| !script_asks);
        let shell_continuation = shell_continuation && !script_asks;
        // Nothing before the cursor: whatever waits printed no prompt of its own.
        let no_prompt_shown = !alternate
            && reason == Settle::StdinWait
            && cursor_row
                .as_deref()
                .is_none_or(|row| row.trim().is_empty());
        // The group the last SIGINT or SIGTERM went to (see `survived` below).
        let signalled = st.signalled.take();
        st.screen.keep_binary_run_open(false);
        drop(st);
        let copied = snapshot.as_ref().map_or(0, |s| s.text_len());
        let copied_line_ends = snapshot.as_ref().map_or(0, |s| s.line_ends());
        let lines_after_cursor = snapshot.as_ref().map_or(0, |s| s.lines_after_cursor());
        let newest_line = snapshot.as_ref().and_then(|s| s.last_line());
        let rendered = snapshot
            .map(|s| s.render(shared.max_read_bytes))
            .unwrap_or_default();
        // Only a first line with text goes on from the unfinished one (the program may have
        // ended that line at once).
        let continued_line = continued_line
            .filter(|_| !rendered.text.is_empty() && !rendered.text.starts_with('\n'));
        // The render starts over at the row the previous result ended in, and its first line
        // is a binary run's summary: that row showed the run so far.
        let binary_run_continued = {
            let span = self.span();
            span.continues_line && span.final_restarts_line
        } && rendered
            .text
            .lines()
            .next()
            .is_some_and(crate::screen::shows_suppressed_run);
        // A job's last read hands the viewport on: the line ends its bound left out.
        self.span().final_lost_lines =
            super::span::lost_lines(lost_before_copy, copied_line_ends, &rendered);
        // The start the byte bound cut off the first copied row lies before the viewport too.
        let cut = copied.saturating_sub(rendered.text.len()) as u64;
        let head = head.filter(|_| rendered.truncated).map(|mut h| {
            match h.line_start.as_mut() {
                // The cut start is part of the line the viewport begins inside.
                Some(start) => start.gap += cut,
                None => h.retained_bytes_before += cut,
            }
            h
        });
        let TerminalFacts {
            foreground,
            echo_off,
            single_key,
            marks_gone,
            prompt_unmarked,
            input_unread,
            stderr_away,
            stdout_away,
            shell_stopped,
            reads_no_keys,
            signal_keys_off,
            shell_running_line,
            reads_to_end,
            idle_reading,
            line_reader,
            counted_read,
        } = terminal_facts(shared, reason);
        shared.lock().shell_stopped = shell_stopped;
        let (typed_unfinished, foreground) = self.typed_unfinished(reason, foreground);
        let stopped_jobs = self.newly_stopped_jobs(reason, discarded);
        // What the agent is left answering, unless it is our shell's line editor (see
        // `stale_reader`); a result nobody sees leaves the last one's.
        if !discarded {
            let foreground = shared.pty.foreground_pgid();
            let at_shell_editor = foreground == Some(shared.shell_pgid())
                && shared.pty.modes().is_some_and(TtyModes::line_editing);
            let awaited = reason == Settle::StdinWait && !prompted && !at_shell_editor;
            // A result that shows a program still busy, not reading the terminal (one that
            // reads it was said to take the next text).
            let busy = !self.span().background
                && matches!(reason, Settle::Timeout | Settle::Idle)
                && foreground.is_none_or(|pgid| shared.tty_reader(pgid).is_none());
            // A background job's result leaves the last foreground one's (see `Span`).
            let mut st = shared.lock();
            if !self.span().background {
                super::unseen_reader::note(&mut st, busy, foreground);
                let prompt = cursor_row.clone();
                super::stale_reader::note(
                    &mut st,
                    awaited.then_some(prompt),
                    foreground,
                    self.identity(),
                );
            }
        } else if !self.span().background && !self.span().cancel_requested {
            // Nobody sees this result (its caller went away without cancelling it): a reader
            // it would show is one no result showed. (A cancel's caller knows what it stopped.)
            super::unseen_reader::note(&mut shared.lock(), true, None);
        }
        let refused_line =
            self.refused
                .lock()
                .take()
                .map(|notice| match &self.waiting_prompt_notices {
                    Some(to) if notice == to.notice => {
                        to.at_settle(shared, reason == Settle::Prompt)
                    }
                    _ => notice,
                });
        let (refused_line, earlier_input) = self.pass_on_input_notice(refused_line, discarded);
        let untyped_after_answer = self.untyped_after_answer.lock().take();
        let cleared_line = self.cleared_line.clone();
        // A program the last SIGINT or SIGTERM did not end (it ignores or handles it). Not
        // one that read this send's text since: it handled the signal and went on (a REPL
        // back at its prompt after a KeyboardInterrupt), and what keeps it busy now is the
        // new line (text that waits unread still says it is stuck).
        let read_new_text = !self.span().poll && shared.pty.pending_input_bytes() == Some(0);
        let survived = signalled
            .filter(|_| matches!(reason, Settle::Timeout | Settle::Idle) && !read_new_text)
            .filter(|&(pgid, _)| shared.pty.foreground_pgid() == Some(pgid))
            .map(|(_, signal)| signal);
        // Only a REPL (the program run without a script) prints a prompt after each line; a
        // REPL command may enter a mode without one (node's `.editor`); and a prompt among
        // the rows this result shows (printed before a poll began, a timer's output since)
        // says the REPL is back. After lines the send typed, only a prompt after the last
        // one's echo does (`1+1` then an `await` line: the prompt the `await` was typed at
        // is the one before it).
        // A line made of keys (Up to recall an earlier one, then Enter) has no echo of its
        // text: the row it was typed at, the first prompt row shown, stands for it.
        // Nor does the prompt node shows a line typed while an `await` was pending again after
        // (the line the REPL read last, `own_line`: a poll's is the newest send's).
        let shown_again = |l: &str| {
            self.own_line.as_deref().is_some_and(|own| {
                l.split_once(' ')
                    .is_some_and(|(_, rest)| rest.trim() == own)
            })
        };
        let prompt_shown = |after_last_line: bool| {
            let lines: Vec<&str> = rendered.text.lines().collect();
            let prompt =
                |l: &&str| (is_repl_prompt(l) || starts_with_repl_prompt(l)) && !shown_again(l);
            let from = self
                .last_line
                .as_deref()
                .filter(|_| after_last_line)
                .and_then(|last| {
                    if last.contains(char::is_control) {
                        lines.iter().position(prompt)
                    } else {
                        lines.iter().rposition(|l| l.trim_end().ends_with(last))
                    }
                })
                .map_or(0, |at| at + 1);
            lines[from..].iter().any(prompt)
        };
        let unprompted = match self.unprompted_wait.load(Ordering::SeqCst) {
            super::UNPROMPTED_LINE => !self.promptless && !prompt_shown(true),
            super::UNPROMPTED_POLL => !prompt_shown(false),
            _ => false,
        };
        let unprompted_fg = shared
            .pty
            .foreground_pgid()
            // A program reading single keys (`top` on the main screen) or holding the
            // alternate screen is no REPL that owes a prompt.
            .filter(|_| unprompted && !input_unread && !single_key && !alternate)
            .filter(|&pgid| leader_runs_a_repl(pgid));
        let unprompted_wait = unprompted_fg.is_some();
        shared.lock().unprompted_fg = unprompted_fg;
        // A statement of the REPL waits for a line with no prompt (see `statement_read`).
        let statement_read = self.note_statement_read(
            reason,
            no_prompt_shown,
            unprompted_wait,
            discarded,
            statement_prompt.clone(),
        );
        // Our prompt came back after a command ran, yet no mark said where it started: its
        // status cannot be told from an empty line's (a command replaced PS0).
        let exit_unknown = reason == Settle::Prompt
            && self.submits_command
            && last_exit_code.is_none()
            && !marks_gone
            && !prompt_unmarked;
        let in_command_line = foreground.is_some() && runs_longer_line;
        let in_front =
            self.program_in_front(reason, foreground.is_some(), no_prompt_shown && line_reader);
        let mut output = OutputNotes::of(&span_notes, &rendered.text);
        output.highlighted = highlighted;
        // `.editor` that no banner answered went to another reader (a node script reading
        // lines): no editor mode.
        let editor_banner = self.enters_promptless_mode && rendered.text.contains(EDITOR_BANNER);
        if self.enters_promptless_mode && !editor_banner {
            shared.lock().promptless_repl = None;
        }
        // Text written over a row a carriage return ended the output before on is the
        // mixed-row notice's (`\r` with no `\n`), not a cursor moved up over older text.
        let screen_mixed = screen_mixed && !(output.mixed_row.is_some() && mixed_at_start_only);
        // Text typed ahead of a program that read nothing, or held for a reader (see
        // `SendOp::typed_ahead_of`): taken by a prompt of the same command line (the line
        // ended with no command of the text run after it), or echoed before a password prompt
        // that has not read it. Not text that quits what read it (`exit()` to a REPL busy with
        // a statement): the program itself read it, and ended, as meant.
        let typed_ahead = self.typed_ahead_of.lock().take();
        let quits = self.ends_its_reader;
        let (typed_ahead_taken, typed_ahead_echoed, held_text_taken) = match typed_ahead {
            Some(ahead) => {
                let taken = reason == Settle::Prompt
                    && ahead.ends_line
                    && done_now == ahead.done_at + 1
                    && !quits;
                let echoed = !ahead.held && reason == Settle::StdinWait && echo_off;
                let program = Some(ahead.program);
                match (taken, ahead.held) {
                    (true, true) => (None, None, program),
                    (true, false) => (program, None, None),
                    (false, _) => (None, program.filter(|_| echoed), None),
                }
            }
            None => (None, None, None),
        };
        // Read apart: a guard taken in the literal would live to its end.
        let (cancelled_unwritten, entered_none) = {
            let span = self.span();
            (span.cancelled_unwritten, span.entered_none)
        };
        let mut result = assemble(SettleFacts {
            reason,
            rendered,
            newest_line,
            status,
            exits,
            last_exit_code,
            alternate,
            continuation: continuation
                || (repl_prompt.is_some() && foreground.is_some())
                || (shell_continuation
                    && foreground
                        .as_deref()
                        .is_some_and(super::super::nested_shell::is_shell_name)),
            statement_continuation: repl_prompt == Some(ReplContinuation::Statement)
                && foreground.is_some(),
            echo_off,
            single_key,
            foreground,
            output_bytes,
            head,
            left_alternate,
            alternate_came_and_went,
            editor_inserting,
            modes_restored,
            errexit_on,
            errexit_ended: reason == Settle::Exit && self.turns_on_errexit,
            exiting_err_trap: self.sets_exiting_err_trap,
            rewound_lines: if self.edits_shell_line {
                0
            } else {
                rewound_lines
            },
            continued_line,
            binary_run_continued,
            lines_below_prompt: if reason == Settle::Prompt && !alternate && !self.edits_shell_line
            {
                lines_after_cursor
            } else {
                0
            },
            marks_gone,
            prompt_unmarked,
            input_unread,
            reads_no_keys,
            signal_keys_off,
            shell_running_line,
            reads_to_end,
            stderr_away,
            stdout_away,
            unprompted_wait,
            screen_mixed,
            refused_line,
            untyped_after_answer,
            cleared_line,
            foreign_line,
            edited_line,
            shell_stopped,
            shell_continued: self.shell_continued.load(Ordering::SeqCst),
            survived,
            earlier_cancel,
            exit_unknown,
            closed,
            left_running,
            enter_withheld: self.enter_withheld.load(Ordering::SeqCst),
            rest_withheld: self.rest_withheld.load(Ordering::SeqCst),
            keys_withheld: self.keys_withheld.load(Ordering::SeqCst),
            keys_withheld_rest: self
                .keys_withheld_rest
                .lock()
                .take()
                .map(|rest| super::stale_reader::clipped(&rest)),
            idle_reading,
            output,
            line_without_prompt: (no_prompt_shown && line_reader) || statement_read,
            counted_read,
            statement_read,
            statement_read_prompt: statement_prompt.filter(|_| !unprompted_wait),
            in_command_line,
            line_started_jobs,
            cancelled_unwritten,
            entered_none,
            runs_a_repl: in_front.runs_a_repl,
            debugger: in_front.debugger,
            repl_continued: in_front.repl_continued,
            answered_password,
            typed_ahead_taken,
            typed_ahead_echoed,
            held_text_taken,
            typed_unfinished,
            stopped_jobs,
            promptless_mode: (self.in_promptless_mode
                || (self.enters_promptless_mode && self.lines_after_editor && editor_banner))
                && reason == Settle::StdinWait
                && shared.pty.foreground_pgid() == shared.lock().promptless_repl,
        });
        if let Some(notice) = earlier_input {
            result.notices.insert(usize::from(earlier_cancel), notice);
        }
        // What keeps the command open at our shell's continuation prompt (see `open_command`).
        let open =
            super::open_command::notice(&shared.lock(), reason, self.at_continuation.as_ref())
                .filter(|_| result.foreground.is_none());
        result.notices.extend(open);
        tracing::debug!(
            wait = ?result.wait_reason,
            viewport_bytes = result.viewport.len(),
            "send settled"
        );
        // Free the slot before publishing, so a caller that awaited `done()` can send at once
        // (and, after an exit, hears that the session exited rather than that a send is still
        // active). A write still in flight keeps it, unless the session is gone: no later send
        // can start there for late bytes to hit.
        if !self.in_flight.load(Ordering::SeqCst) || reason == Settle::Exit {
            self.release();
        }
        self.result.send_replace(Some(Ok(result)));
    }
}

/// What node's REPL prints as it enters its editor mode (`.editor`).
const EDITOR_BANNER: &str = "// Entering editor mode";
