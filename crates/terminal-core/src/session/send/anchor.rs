//! Where a send's input is written from: the anchor its result starts at, and the counts and
//! time the readiness decision measures "since the write" from, for the send's first input
//! and for each line paced after it.

use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::pty::TtyModes;
use crate::readiness::Readiness;
use crate::screen::{Position, PromptState};

use super::super::input;
use super::super::observe::{
    EOF_KEY, SIGNAL_BYTES, at_primary_repl_prompt, is_programs_own_prompt, leader_runs_a_repl,
};
use super::super::shared::State;
use super::{SendOp, node_input, python_input};

use super::pacing::insert_paste;

impl SendOp {
    /// Places the anchor and returns `(done_count, mark_count, written_at)` at the write.
    pub(super) fn anchor_for_write(
        &self,
        readiness: &mut Readiness,
        input: &[u8],
        initializing: bool,
        started: Instant,
    ) -> (u64, u64, Instant) {
        let mut st = self.shared.lock();
        if initializing {
            // Startup renders (and counts marks) from the very beginning: the shell may have
            // printed its first prompt before this task ran.
            let anchor = st.screen.anchor_at(Position::default());
            self.span().anchor = Some(anchor);
            return (0, 0, started);
        }
        let is_line_end = |b: &u8| matches!(b, b'\n' | b'\r');
        let line_end = input.iter().any(is_line_end);
        // Several lines sent at once are typed ahead of each other: a prompt between two of
        // them must not settle the send.
        let multi_line = input
            .get(..input.len().saturating_sub(1))
            .is_some_and(|head| head.iter().any(is_line_end));
        // Output printed on rows below the prompt (a background job's log) leaves the shell
        // reading at it: no command runs that the input would be typed ahead of.
        let under_output = self.shared.pty.foreground_pgid() == Some(self.shared.shell_pgid())
            && self.shared.pty.modes().is_some_and(TtyModes::line_editing)
            && st.screen.prompt_under_output() != PromptState::Busy;
        readiness.set_typeahead(
            (st.screen.prompt_state() == PromptState::Busy && !under_output)
                || multi_line
                || self.signal_unsettled.load(Ordering::SeqCst),
        );
        readiness.set_poll_only(input.is_empty());
        // Keys without a line end: at the shell's line editor they edit the line (and may
        // print nothing); to a reader in canonical mode the kernel holds them in its line.
        let keys = !input.is_empty() && !line_end;
        let modes = self.shared.pty.modes();
        let shell_reads = self.shared.pty.foreground_pgid() == Some(self.shared.shell_pgid())
            && modes.is_some_and(TtyModes::line_editing)
            && st.screen.after_prompt_end();
        readiness.set_keys_at_prompt(
            keys && (st.screen.prompt_state() == PromptState::Prompt || shell_reads),
        );
        readiness.set_held_by_line_discipline(
            keys && modes.is_some_and(|m| m.canonical)
                && !input
                    .iter()
                    .any(|b| SIGNAL_BYTES.contains(b) || *b == EOF_KEY),
        );
        // A send's start is no end of the output: binary output a program is still writing
        // stays one run (the line of its run so far shows meanwhile).
        st.screen.keep_binary_run_open(true);
        // Start where the last result ended (see `State::resume_from`).
        let line_open = std::mem::take(&mut st.resume_line_open);
        self.span().poll = input.is_empty();
        let (mut anchor, bytes_from, exits_from) = match st.resume_from.take() {
            Some(resume) => {
                self.span().continues_line = line_open;
                (resume, st.bytes_at_resume, st.exits_at_resume)
            }
            None => {
                // What the screen noted of the output before this span is not this send's
                // (see `SpanNotes`), and its first binary run's summary gives the advice again.
                st.screen.take_span_notes();
                st.screen.restart_binary_advice();
                (st.screen.anchor(), st.bytes_read, st.screen.exit_tally())
            }
        };
        if let Some(at) = st.screen.anchor_position(anchor) {
            st.screen.set_erased_floor(at);
        }
        // Blanks the input deletes first: the echo of its line shows from where they began.
        if self.indent_cleared > 0 && st.screen.anchor_position(anchor) == Some(st.screen.cursor())
        {
            st.screen.release_anchor(anchor);
            anchor = st.screen.anchor_left_of_cursor(self.indent_cleared);
        }
        {
            let mut span = self.span();
            span.anchor = Some(anchor);
            span.bytes_from = bytes_from;
            span.exits_from = exits_from;
            span.alternate_leaves_from =
                (!st.screen.alternate_screen()).then(|| st.screen.alternate_leave_count());
        }
        st.screen.start_head(anchor);
        if line_end {
            st.prompts_at_submit = Some(st.screen.prompt_end_count());
            note_command_line(&mut st, input, shell_reads);
        }
        // The silence window and "output since the write" both start here, just before the
        // input is queued (its echo can arrive before the write is acknowledged).
        let now = Instant::now();
        st.last_output_at = now;
        st.write_row = st.screen.cursor().row;
        st.screen.keep_binary_run_open(false);
        (st.screen.done_count(), st.screen.mark_count(), now)
    }

    /// Sets `readiness` up for `line`, one of the lines paced after the send's first (see
    /// [`pacing`]), written now to a reader ready for it; returns `(done_count, mark_count,
    /// written_at)` at the write. The send's anchor stays where its first line was written.
    pub(super) fn mark_paced_write(
        &self,
        readiness: &mut Readiness,
        line: &[u8],
    ) -> (u64, u64, Instant) {
        let mut st = self.shared.lock();
        let line_end = line.iter().any(|b| matches!(b, b'\n' | b'\r'));
        readiness.set_keys_at_prompt(!line_end && st.screen.prompt_state() == PromptState::Prompt);
        if line_end {
            st.prompts_at_submit = Some(st.screen.prompt_end_count());
            let shell_reads = self.shared.pty.foreground_pgid() == Some(self.shared.shell_pgid());
            note_command_line(&mut st, line, shell_reads);
        }
        let now = Instant::now();
        st.last_output_at = now;
        st.write_row = st.screen.cursor().row;
        (st.screen.done_count(), st.screen.mark_count(), now)
    }
}

impl SendOp {
    /// `step` with the steps still paced after it, as one bracketed paste, when the program
    /// that will read them (the foreground group `fg`, which an earlier line of the send
    /// started) takes a multi-line paste as one block: a Python REPL with bracketed paste on
    /// (typed line by line, Python 3.13's auto-indent would indent the block again). To a
    /// Python REPL without pastes at its primary prompt, the lines as a file would run them
    /// (an empty line after each block, none inside). `step` alone otherwise, and when the
    /// text carries keys a paste would make literal. To a full-screen program that took
    /// pastes, the steps are split again as keys to it (it may have started on an earlier
    /// line), and in its insert mode a line end or an indented text, kept apart, goes with the
    /// text after it as one paste (see `insert_paste`).
    pub(super) fn paste_rest_for_block_reader(
        &self,
        step: Vec<u8>,
        pacing: &mut super::pacing::Pacing,
        fg: Option<i32>,
    ) -> Vec<u8> {
        let step = self.full_screen_step(step, pacing);
        let insert_mode = insert_paste::insert_mode(&mut self.shared.lock().screen);
        if let Some(blank_before_cursor) = insert_mode
            && matches!(step.first(), Some(b'\n' | b'\r' | b' ' | b'\t'))
        {
            let replace = insert_paste::replaces_indent(&step, blank_before_cursor);
            return insert_paste::paste_text(&step, pacing, replace).unwrap_or(step);
        }
        let (takes_pastes, at_prompt, own_prompt) = {
            let mut st = self.shared.lock();
            let at_prompt = at_primary_repl_prompt(&mut st.screen);
            // A program's own prompt: its lines answer it one at a time, not as statements.
            let own_prompt = !at_prompt
                && st.python_block.is_none()
                && st
                    .screen
                    .cursor_row_prefix()
                    .is_some_and(|row| is_programs_own_prompt(&row));
            (
                st.screen.bracketed_paste() && !st.screen.alternate_screen(),
                at_prompt,
                own_prompt,
            )
        };
        let modes = self.shared.pty.modes();
        let raw = modes.is_some_and(|m| !m.canonical);
        // A REPL that reads with GNU readline takes a paste as one line (see
        // `TtyModes::readline_editing`): its statements are typed.
        let takes_pastes = takes_pastes && !modes.is_some_and(TtyModes::readline_editing);
        if own_prompt
            || !pacing.is_pending()
            || pacing.statements_planned()
            || !raw
            || !(takes_pastes || at_prompt)
        {
            return step;
        }
        let Some(pgid) = fg.filter(|&p| p != self.shared.shell_pgid()) else {
            return step;
        };
        // The leader alone (one `/proc` read per step): a REPL under a wrapper had its
        // statements planned at the send's start (see `python_input::group_program`).
        let leader = crate::process::stat(pgid)
            .filter(|s| s.pgrp == pgid)
            .map(|leader| python_input::program_name(&leader));
        // Node's REPL, which an earlier line started: lines of which one goes on with the
        // line before it go through its editor mode (see `node_input`).
        if at_prompt
            && leader.as_deref().is_some_and(node_input::has_editor_mode)
            && leader_runs_a_repl(pgid)
        {
            let rest = [step.as_slice(), &pacing.pending_bytes()].concat();
            let steps = std::str::from_utf8(&rest)
                .ok()
                .and_then(|text| node_input::editor_steps(text, false));
            return match steps {
                Some(mut steps) => {
                    let first = steps.remove(0);
                    pacing.plan_statements(steps);
                    first
                }
                None => step,
            };
        }
        let blocks = leader.as_deref().is_some_and(input::pastes_blocks);
        let rest = [step.as_slice(), &pacing.pending_bytes()].concat();
        let Ok(text) = String::from_utf8(rest) else {
            return step;
        };
        if !takes_pastes {
            // Typed line by line to a Python REPL at its primary prompt: as a file would run
            // them (see `input::python_separated`).
            let Some(text) = input::python_separated(&text).filter(|_| blocks) else {
                return step;
            };
            let mut lines = text
                .split_inclusive(['\n', '\r'])
                .map(|line| line.as_bytes().to_vec());
            let first = lines.next().unwrap_or_default();
            pacing.replace_pending(lines.collect());
            return first;
        }
        // One statement per step (each goes once the REPL reads again), statements of one line
        // each too: pasted together they would make one block the REPL waits on for an empty
        // line, and a line answering `input()` would take the rest of the paste with it.
        let steps = match input::python_statement_steps(&text) {
            Some(steps) if blocks => steps,
            _ => match input::shape(&text, false, paste_reader()) {
                Ok(paste) if blocks && input::is_paste(&paste) => vec![paste],
                _ => return step,
            },
        };
        let mut steps = steps.into_iter();
        let first = steps.next().unwrap_or_default();
        pacing.plan_statements(steps.collect());
        first
    }

    /// Drops the lines not typed yet (a signal or a cancel came first), and says so in the
    /// result unless it already says why input went untyped.
    pub(super) fn note_discarded(&self, pacing: &mut super::pacing::Pacing) {
        if let Some((first, count)) = pacing.discard() {
            self.span().entered_none |= first == 1;
            self.refused
                .lock()
                .get_or_insert_with(|| input::discarded_lines_notice(first, count));
        }
    }

    /// Notes, for the result, that the newest line of `pacing`'s input (`line`, about to be
    /// typed), which names a shell command with arguments, goes as the answer to a prompt an
    /// earlier line's command showed (a program, or the shell's `read`, reading lines in canonical
    /// mode at a prompt, or with a line editor at a question: `read -e -p 'A? '`, a script's
    /// `rl.question`), not to the shell: `read -p 'A: ' a` then `echo next` answers `A:` with
    /// `echo next`, as typing the lines would. A line editor's lines at a REPL's or a shell's
    /// prompt (see `waiting_prompt::line_editor_asks`), the shell's continuation lines and
    /// data for a filter with no prompt are left alone, and
    /// so are the lines of a send that began at a program's reader (`answered`, its process
    /// group) while that program (`fg`) reads them: they went where they were meant to (a
    /// loop's body at a nested shell's `> `, a script's reads with no prompt).
    pub(super) fn note_command_to_a_prompt(
        &self,
        line: &[u8],
        pacing: &super::pacing::Pacing,
        answered: Option<i32>,
        fg: Option<i32>,
    ) {
        let number = pacing.newest_line_number();
        let Ok(text) = std::str::from_utf8(line) else {
            return;
        };
        if answered.is_some() && answered == fg {
            return;
        }
        let text = text.trim();
        let Some(modes) = self
            .shared
            .pty
            .modes()
            .filter(|&m| m.canonical || super::waiting_prompt::edits_lines(m))
        else {
            return;
        };
        if text.is_empty() {
            return;
        }
        let prompt = {
            let mut st = self.shared.lock();
            let prompt = st.screen.cursor_row_prefix().unwrap_or_default();
            if !modes.canonical
                && !super::waiting_prompt::line_editor_asks(&st, &self.shared, fg, modes, &prompt)
            {
                return;
            }
            prompt.trim().to_owned()
        };
        let path = std::env::var("PATH").ok();
        if super::pager_guard::has_a_command_with_arguments(text, path.as_deref()) {
            // With no prompt shown, the reader by name: the shell's `read`, or the program (one
            // the shell `exec`ed holds its group: `exec sh` reads its commands at its `# `).
            let fg = self.shared.pty.foreground_pgid();
            let ours = fg == Some(self.shared.shell_pgid()) && !self.shared.shell_replaced();
            let member = fg.filter(|_| !ours).and_then(crate::process::group_member);
            let program = member.as_ref().map(|s| s.comm.clone());
            // A shell an earlier line started (`dash`, `sh`), reading at its own prompt, or a
            // REPL or debugger at its command prompt (`DB<1>` of `perl -de 0`; not a shell
            // script's `read -p`): the line went to it as a command, and ran.
            if member.as_ref().is_some_and(|s| {
                super::super::nested_shell::is_nested_shell_prompt(&prompt, &s.comm, s.pid)
                    || (!super::super::nested_shell::is_shell_name(&s.comm)
                        && super::waiting_prompt::is_command_prompt_of(&prompt, &s.comm, s.pgrp))
            }) || fg
                .filter(|_| !ours)
                .is_some_and(super::waiting_prompt::reads_commands_at_any_prompt)
            {
                return;
            }
            // A relay's raw modes (`ssh`) are not those of the program that asks, elsewhere.
            if !modes.canonical
                && fg.is_some_and(|pgid| super::key_answer::relays_keys(&self.shared, pgid))
            {
                return;
            }
            let reader = if ours {
                "the shell's `read`".to_owned()
            } else {
                program.map_or_else(|| "a program".to_owned(), |comm| format!("`{comm}`"))
            };
            let cut = super::stale_reader::clipped;
            self.note_line_to_a_prompt(
                number,
                input::line_to_a_prompt_notice(number, &cut(text), &cut(&prompt), &reader),
                input::line_to_a_prompt_entry(number, &cut(text), &cut(&prompt), &reader),
            );
        }
    }

    /// Sets the result's notice for the lines that went to prompts earlier lines showed:
    /// `single` when line `number` is the first, else one naming each line (`entry` this
    /// one's); unless another notice of lines came first, or line `number` was named already
    /// (its rest, typed a key at a time).
    fn note_line_to_a_prompt(&self, number: usize, single: String, entry: String) {
        let mut lines = self.to_prompts.lock();
        let mut refused = self.refused.lock();
        if (refused.is_some() && lines.is_empty()) || lines.iter().any(|(n, _)| *n == number) {
            return;
        }
        lines.push((number, entry));
        *refused = Some(if lines.len() == 1 {
            single
        } else {
            let entries: Vec<String> = lines.iter().map(|(_, entry)| entry.clone()).collect();
            input::lines_to_prompts_notice(&entries)
        });
    }

    /// Drops the lines not typed yet when the reader the send answered has ended and the
    /// shell's prompt is back (they were meant for that reader; the shell would run them as
    /// commands), and says so in the result.
    pub(super) fn note_reader_ended(&self, pacing: &mut super::pacing::Pacing) {
        if let Some((first, count)) = pacing.discard() {
            self.span().entered_none |= first == 1;
            let notice = input::reader_ended_lines_notice(first, count);
            // After the notice of a line that went to a prompt as its answer, this one too.
            if self.to_prompts.lock().is_empty() {
                self.refused.lock().get_or_insert(notice);
            } else {
                self.untyped_after_answer.lock().get_or_insert(notice);
            }
        }
    }

    /// Whether `step`, paced after the send's first input to a REPL or debugger that stood at
    /// its prompt as the send began (`repl_at_start`), must not be typed: that program, still
    /// in the foreground (`fg`), now waits at a prompt of its own instead (a statement's
    /// `input()` or `getpass`, the question of a program a debugger runs: the cursor row is
    /// text and no REPL prompt, or blank after a line that asks for input: a read with no
    /// prompt), which takes the line as its answer. At a prompt that hides its input (a
    /// password's: line mode, echo off) the step and the rest are dropped, and
    /// the result names the line and the prompt: a statement taken as the password, the
    /// secret sent next would run as a statement, echoed. At one that shows it, the line goes
    /// as its answer, as lines sent together may mean it to (`a = input('A? ')`, then
    /// `hello`), and the result says where it went. A step of control keys alone is no line.
    pub(super) fn refuses_step_to_own_prompt(
        &self,
        step: &[u8],
        pacing: &mut super::pacing::Pacing,
        fg: Option<i32>,
    ) -> bool {
        if self.repl_at_start.is_none() || self.repl_at_start != fg {
            return false;
        }
        // Keys alone (a Ctrl-C after text the send typed, which waited for that text to be
        // taken up) answer no prompt: the cursor row is the REPL's prompt and that text.
        if step.iter().all(u8::is_ascii_control) {
            return false;
        }
        // A blank row before the cursor: a read with no prompt (`input()`), since the REPL's
        // own prompt would show.
        let prompt = self
            .shared
            .lock()
            .screen
            .cursor_row_prefix()
            .unwrap_or_default();
        if !prompt.trim().is_empty() && !is_programs_own_prompt(&prompt) {
            return false;
        }
        // A blank row is a read only when the line before asked for one: other output (a
        // background process printing, a prompt made empty, node's editor mode) leaves the
        // cursor at a blank row too; in an editor mode the send entered or found (node's
        // `.editor`), every line goes into its buffer.
        if prompt.trim().is_empty()
            && (self.promptless || !input::asks_for_input(pacing.step_before_newest()))
        {
            return false;
        }
        let number = pacing.newest_step_first_line();
        let hidden = self
            .shared
            .pty
            .modes()
            .is_some_and(|m| m.canonical && !m.echo);
        // The line's text, without the markers of a paste.
        let marker = |m: &'static [u8]| std::str::from_utf8(m).unwrap_or_default();
        let line = String::from_utf8_lossy(step)
            .replace(marker(input::PASTE_START), "")
            .replace(marker(input::PASTE_END), "");
        let line = line
            .split(['\n', '\r'])
            .find(|l| !l.trim().is_empty())
            .unwrap_or_default();
        let cut = super::stale_reader::clipped;
        if !hidden {
            self.note_line_to_a_prompt(
                number,
                input::line_to_programs_prompt_notice(
                    number,
                    &cut(line.trim()),
                    &cut(prompt.trim()),
                ),
                input::line_to_a_prompt_entry(
                    number,
                    &cut(line.trim()),
                    &cut(prompt.trim()),
                    input::PROMPTLESS_READ,
                ),
            );
            return false;
        }
        let rest = pacing.discard().map_or(0, |(_, count)| count);
        *self.refused.lock() = Some(input::line_to_hidden_prompt_notice(
            number,
            &cut(line.trim()),
            rest,
            &cut(prompt.trim()),
        ));
        true
    }

    /// `step` and the steps after it split again as keys to a full-screen program that took
    /// pastes, when an earlier line of the send started it (`vim f.py` and then `i…`).
    fn full_screen_step(&self, step: Vec<u8>, pacing: &mut super::pacing::Pacing) -> Vec<u8> {
        let full_screen = {
            let st = self.shared.lock();
            st.screen.alternate_screen() && st.screen.bracketed_paste()
        };
        if full_screen && self.shared.pty.modes().is_some_and(|m| !m.canonical) {
            pacing.respace_for_full_screen(step)
        } else {
            step
        }
    }

    /// Whether `step`, paced after the send's first input, must not be typed: a line in it is
    /// over the canonical limit and the reader (the foreground group `fg`) is in canonical
    /// mode, so the kernel would cut it. The step and the rest are then dropped, and the
    /// result gets the notice naming the line and the reader.
    pub(super) async fn refuses_paced_step(
        &self,
        step: &[u8],
        pacing: &mut super::pacing::Pacing,
        fg: Option<i32>,
    ) -> bool {
        let Some((index, len)) = input::over_long_line(step) else {
            return false;
        };
        if !self.shared.pty.modes().is_some_and(|m| m.canonical) {
            return false;
        }
        pacing.discard();
        let shared = std::sync::Arc::clone(&self.shared);
        let reader = tokio::task::spawn_blocking(move || {
            fg.and_then(|pgid| shared.tty_reader(pgid))
                .and_then(crate::process::stat)
                .map(|s| s.comm)
        })
        .await
        .ok()
        .flatten();
        *self.refused.lock() = Some(input::over_long_line_notice(
            pacing.newest_step_first_line() + index,
            len,
            reader.as_deref(),
        ));
        true
    }

    /// Whether `step`, paced after the send's first input, must not be typed: the shell's line
    /// editor reads it (the foreground group `fg` is the shell's, in readline's modes: its
    /// prompt came back after an earlier line's command), and it holds an ESC meant as a
    /// character (see `input::literal_escapes`), which readline would take for a key. The
    /// step and the rest are then dropped, and the result gets the notice naming the line.
    pub(super) fn refuses_literal_escape_step(
        &self,
        step: &[u8],
        pacing: &mut super::pacing::Pacing,
        fg: Option<i32>,
    ) -> bool {
        use super::super::input::literal_escapes::{Syntax, literal_escape, literal_escape_notice};
        if fg != Some(self.shared.shell_pgid())
            || !self.shared.pty.modes().is_some_and(TtyModes::line_editing)
        {
            return false;
        }
        let Some(found) = std::str::from_utf8(step)
            .ok()
            .and_then(|text| literal_escape(text, Syntax::Shell))
        else {
            return false;
        };
        pacing.discard();
        let number = pacing.newest_step_first_line() + found.line - 1;
        *self.refused.lock() = Some(literal_escape_notice(number, found.why));
        true
    }
}

/// A reader that takes a multi-line bracketed paste as one block (a Python REPL).
fn paste_reader() -> input::Reader {
    input::Reader {
        bracketed_paste: true,
        block_paste: true,
        ..input::Reader::default()
    }
}

/// Longest command line (its lines together) judged for [`note_command_line`]: a longer one
/// counts as no simple command.
const COMMAND_LINE_MAX_BYTES: usize = 64 * 1024;

/// Records whether `input`, written with a line end to our shell (`shell_reads`), is one
/// simple command typed at its primary prompt (see `State::simple_command_at`), with the
/// lines that go on with it at its continuation prompt (an open quote: `python3 -c '…` over
/// several lines is one command) judged together with it. Input to a program the command
/// runs (a REPL's lines, typed-ahead text) changes nothing about it.
fn note_command_line(st: &mut State, input: &[u8], shell_reads: bool) {
    if !shell_reads {
        return;
    }
    match st.screen.prompt_state() {
        PromptState::Prompt => {
            st.command_lines.clear();
            st.command_lines.extend_from_slice(input);
        }
        PromptState::Continuation
            if !st.command_lines.is_empty()
                && st.command_lines.len() + input.len() <= COMMAND_LINE_MAX_BYTES =>
        {
            st.command_lines.extend_from_slice(input);
        }
        _ => st.command_lines.clear(),
    }
    st.simple_command_at = (!st.command_lines.is_empty()
        && st.command_lines.len() <= COMMAND_LINE_MAX_BYTES
        && input::is_simple_command(&st.command_lines))
    .then(|| st.screen.prompt_end_count());
}
