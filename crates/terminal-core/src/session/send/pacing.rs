//! Input typed in steps, each once the one before was taken up and its reader is ready for
//! more (the prompt came back, a continuation prompt, or a program waits for input):
//!
//! - Several lines to a line editor, one line at a time, as a user types line after line:
//!   the shell's own at its prompt, a program's that reads keys raw on the main screen (a
//!   REPL: node, sqlite3, a nested shell; a Python REPL given a block as one paste is not
//!   split), and a program's reading lines in canonical mode (answers to prompts: typed ahead,
//!   a password's would show, echoed, before `getpass` turned echo off and discarded it). Written all at once they would be typed ahead: a line that starts a program
//!   switches the terminal to canonical mode with the later lines already queued, and the
//!   kernel then hands them over as one line, so a program that reads in blocks (`read` in
//!   bash, `head -n1`) takes them all and the commands after it never run (`read a` + its
//!   answer + `echo $a`); a REPL that reads everything queued evaluates a line meant for the
//!   shell after its own `.exit`.
//! - Keys to a program reading them raw (an editor): an ESC followed by `O` or `[` that do not
//!   make a known key with it (`ESC O t`, vim's "open a line above" then `t`) goes alone, so
//!   the program times it out as the ESC key instead of reading a keypad or function key.
//! - To any reader, an interrupt, quit or suspend key (Ctrl-C, Ctrl-\, Ctrl-Z) goes only once
//!   the text before it was taken up: the terminal discards the input not yet read when it
//!   sends the signal, so `x = 5\nprint(x)\n` + Ctrl-C at once lost both lines in a REPL, and
//!   `echo a` + Ctrl-Z at the prompt lost `echo a`, which a line editor keeps.
//!   The text after such a key or end-of-file (Ctrl-D) goes once the program has dealt with
//!   the key and reads again (the shell's new prompt after `^C`): sent at once, its first keys
//!   are lost while the line editor handles the signal (`echo a^Cecho b` ran `cho b`), or
//!   reach the program the Ctrl-D was meant to end. An interrupt, quit or suspend key on a
//!   line of its own goes as soon as a program holds the terminal, as a user presses it while
//!   the program runs.

use std::collections::VecDeque;

use crate::readiness::Settle;

mod after_exit;
mod answer_checks;
pub(super) mod insert_paste;

use super::super::observe::{EOF_KEY, SIGNAL_BYTES};

/// The lines of a send still to be typed.
#[derive(Debug, Default)]
pub(super) struct Pacing {
    pending: VecDeque<Vec<u8>>,
    /// The step written last ended with an interrupt, quit or suspend key.
    after_signal_key: bool,
    /// Line ends in the steps handed out before the newest one.
    line_ends_before_newest: usize,
    /// Line ends in every step handed out.
    line_ends_taken: usize,
    /// The step handed out last ended a line.
    newest_ends_line: bool,
    /// The step handed out last ended with text (no key: not a control character).
    newest_ends_text: bool,
    /// Whether the terminal was in canonical mode when the send began to a program's reader
    /// (`None`: unknown, or the shell's own line editor read it).
    reader_canonical: Option<bool>,
    /// The steps still to type are a Python REPL's statements, one per step, already shaped
    /// for it (see [`Pacing::plan_statements`]).
    statements_planned: bool,
    /// The step with text handed out before the newest such step (the line whose statement
    /// may now read; keys alone, an Enter that ends a block, are left out).
    before_newest: Vec<u8>,
    /// The step with text handed out last.
    newest: Vec<u8>,
    /// The next step to type is a planned statement step that only ends the block the step
    /// before typed (see [`Pacing::next_ends_a_block`]): not a line end split off a step, nor
    /// one put back.
    front_ends_a_block: bool,
    /// The steps still to type are split as keys to a full-screen program that takes pastes
    /// (see [`Pacing::respace_for_full_screen`]).
    full_screen_split: bool,
    /// The step pending is the rest of a key answer, typed only when its reader shows the key
    /// (see `key_answer`).
    answer_check: Option<super::key_answer::AnswerCheck>,
    /// The check of the answer rest handed out next, which passed.
    passed: Option<super::key_answer::AnswerCheck>,
}

/// Whom a send's input goes to, as the terminal said when it began (see
/// [`Pacing::for_reader`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Typing {
    /// The shell's own line editor reads it (readline at its prompt).
    pub(super) shell_line_editor: bool,
    /// Whether the terminal is in canonical mode (`None`: unknown).
    pub(super) canonical: Option<bool>,
    /// A program, not the shell, holds the terminal.
    pub(super) program: bool,
    /// The program is a shell reading its commands in canonical mode (`sh`, dash: no line
    /// editor).
    pub(super) shell_reads_lines: bool,
    /// A full-screen program that enabled bracketed paste reads the keys: each line end goes
    /// as a step of its own, so that when the program is in its insert mode by then, it and
    /// the text lines after it go as one paste (see `insert_paste`).
    pub(super) line_ends_apart: bool,
    /// A reader of single keys (cbreak mode) on the main screen, the shell's own `read -n`
    /// included: each line of several is an answer of its own, typed once it reads again.
    pub(super) key_reader: bool,
}

/// What the reader of the lines is doing now (see [`Pacing::gate`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LineReader {
    /// A program, not the shell, holds the terminal.
    pub(super) program: bool,
    /// Whether the terminal is in canonical mode (`None`: not asked, or unknown).
    pub(super) canonical_now: Option<bool>,
    /// A fresh probe found the program blocked reading the terminal.
    pub(super) waiting: bool,
    /// ...among other event sources (an event loop).
    pub(super) among_others: bool,
    /// A REPL's prompt came back after output that followed the newest step
    /// (`Readiness::prompt_seen`).
    pub(super) prompt_since_write: bool,
    /// A full-screen program holds the alternate screen: one blocked reading again with
    /// nothing unread has dealt with the keys before, whatever else it waits on.
    pub(super) alternate: bool,
    /// Input written to the terminal is still unread.
    pub(super) input_pending: bool,
    /// Everything the program wrote is on the screen (`Shared::output_drained`, read after
    /// the probe): the next line is shaped from the screen (the prompt it answers, where
    /// its echo starts), which lags a program that printed and read again at once on a
    /// loaded machine.
    pub(super) output_drained: bool,
    /// The reader shows the key of a key answer whose rest waits echoed (see
    /// `SendOp::answer_key_echoed`).
    pub(super) key_echoed: bool,
}

/// How long the program a line started runs without settling before a Ctrl-C (Ctrl-\,
/// Ctrl-Z) on the next line goes to it anyway: a program that settles sooner (a REPL done
/// with the line, or started and at its prompt) gets the key at its prompt instead.
pub(super) const SIGNAL_LINE_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// Longest the text after a key to the shell waits for its new prompt (see
/// [`Pacing::holds_for_prompt`]).
pub(super) const PROMPT_HOLD_MAX: std::time::Duration = std::time::Duration::from_millis(500);

/// Longest the lines after one that ended the program they were for wait for the shell's
/// prompt (see [`Pacing::holds_for_prompt`]): the program's exit and the prompt may take a
/// while on a loaded machine.
pub(super) const READER_GONE_HOLD_MAX: std::time::Duration = std::time::Duration::from_secs(3);

impl Pacing {
    /// Splits `input`, shaped for the reader `to` describes, into its first step and the steps
    /// paced after it. Lines go one at a time to a line editor: the shell's, a program's that
    /// reads keys raw (a REPL; a full-screen program, which an Enter may end, as vim's `:wq`
    /// does, taking what was typed after it) unless the text went as one paste, and any
    /// reader of lines in canonical mode (a shell reading its commands, a prompt, the shell's
    /// own `read`: each
    /// line may start a program that reads, or flushes, the next; `getpass` flushes what was
    /// typed ahead, which the terminal had echoed). A program reading keys raw gets a lone ESC
    /// apart.
    pub(super) fn for_reader(input: Vec<u8>, to: &Typing) -> (Vec<u8>, Self) {
        let raw_keys = !to.shell_line_editor && to.canonical == Some(false) && to.program;
        let lines = to.shell_line_editor
            || to.shell_reads_lines
            || to.canonical == Some(true)
            || to.key_reader
            || (raw_keys && !super::super::input::is_paste(&input));
        let (first, pacing) = Self::split(input, lines, raw_keys);
        let (first, mut pacing) = if to.line_ends_apart && lines {
            let (first, mut pacing) =
                Self::from_steps(line_ends_apart([first].into_iter().chain(pacing.pending)));
            pacing.full_screen_split = true;
            (first, pacing)
        } else {
            (first, pacing)
        };
        pacing.set_reader_canonical(to.canonical.filter(|_| !to.shell_line_editor));
        (first, pacing)
    }

    /// `input` as the steps [`Pacing::for_reader`] makes of keys to a full-screen program
    /// that enabled bracketed paste: lines, a lone ESC apart, each line end apart.
    pub(super) fn full_screen_steps(input: Vec<u8>) -> Vec<Vec<u8>> {
        let (first, pacing) = Self::split(input, true, true);
        line_ends_apart([first].into_iter().chain(pacing.pending)).into()
    }

    /// `step`, just handed out, and the steps after it split again as keys to a full-screen
    /// program that enabled bracketed paste (one an earlier line of the send started): the
    /// first of them, handed out in its place. Done once: later steps are split so already.
    pub(super) fn respace_for_full_screen(&mut self, step: Vec<u8>) -> Vec<u8> {
        if std::mem::replace(&mut self.full_screen_split, true) {
            return step;
        }
        let rest = [step, self.pending_bytes()].concat();
        let mut steps: VecDeque<Vec<u8>> = Self::full_screen_steps(rest).into();
        let first = steps.pop_front().unwrap_or_default();
        self.pending = steps;
        self.front_ends_a_block = false;
        self.line_ends_taken = self.line_ends_before_newest;
        self.handed_out(&first);
        first
    }

    /// Splits `input` into its first step, written at once, and the steps paced after it:
    /// lines when it goes to a line editor (`lines`), a lone ESC before `O` or `[` when it
    /// goes to a program reading keys raw (`raw_keys`, see the module docs), and around
    /// interrupt, quit, suspend and end-of-file keys for any reader.
    pub(super) fn split(input: Vec<u8>, lines: bool, raw_keys: bool) -> (Vec<u8>, Self) {
        let mut steps = VecDeque::new();
        let mut start = 0;
        for at in 0..input.len() {
            let b = input[at];
            // The text before the key goes first, and the key once it was read, as typing
            // would: the terminal discards unread input when it sends the signal (a partial
            // line a line editor already holds survives a Ctrl-Z at its prompt).
            if SIGNAL_BYTES.contains(&b) && at > start {
                steps.push_back(input[start..at].to_vec());
                start = at;
            }
            let cut = SIGNAL_BYTES.contains(&b)
                || b == EOF_KEY
                || (lines && (b == b'\n' || b == b'\r'))
                || (raw_keys && b == 0x1b && lone_escape(&input[at + 1..]));
            if cut && at + 1 < input.len() {
                steps.push_back(input[start..=at].to_vec());
                start = at + 1;
            }
        }
        steps.push_back(input[start..].to_vec());
        Self::from_steps(steps)
    }

    /// The first of `steps`, handed out, and the pacing of the rest.
    fn from_steps(mut steps: VecDeque<Vec<u8>>) -> (Vec<u8>, Self) {
        let first = steps.pop_front().unwrap_or_default();
        let mut pacing = Self {
            pending: steps,
            ..Self::default()
        };
        pacing.handed_out(&first);
        (first, pacing)
    }

    /// Notes `step` as handed out to be written.
    fn handed_out(&mut self, step: &[u8]) {
        if step.iter().any(|&b| b >= 0x20 && b != 0x7f) {
            self.before_newest = std::mem::replace(&mut self.newest, step.to_vec());
        }
        self.after_signal_key = ends_with_signal_key(step);
        self.newest_ends_line = step.last().is_some_and(|&b| b == b'\n' || b == b'\r');
        self.newest_ends_text = step.last().is_some_and(|&b| b >= 0x20 && b != 0x7f);
        self.line_ends_before_newest = self.line_ends_taken;
        self.line_ends_taken += line_ends(step);
    }

    /// The step with text handed out before the newest one: the line typed before it.
    pub(super) fn step_before_newest(&self) -> &[u8] {
        &self.before_newest
    }

    /// The number (from 1) of the input line the step handed out last starts on.
    pub(super) fn newest_step_first_line(&self) -> usize {
        self.line_ends_before_newest + 1
    }

    /// How long from the write of the step before (`since_write`) a settle for `reason` must
    /// not release the next step yet, while the shell holds the terminal (`shell_fg`) and its
    /// new prompt has not come: that step ended with an interrupt, quit or suspend key to the
    /// shell, whose new prompt is the sign it has dealt with the key (at most
    /// [`PROMPT_HOLD_MAX`]); or the program the send's lines answered has ended
    /// (`reader_gone`: `raise SystemExit` in a REPL), and the prompt is what says the lines
    /// after are not the shell's (at most [`READER_GONE_HOLD_MAX`]); but not while the next
    /// step is a key answer's rest waiting on its check (see `key_answer`), which the shell
    /// reading now settles (the reader that took the key is gone: the rest is dropped at
    /// once; the lines after it wait then). The shell's line editor reading again is not
    /// such a sign. `None`: released.
    pub(super) fn holds_for_prompt(
        &self,
        reason: Settle,
        shell_fg: bool,
        since_write: std::time::Duration,
        reader_gone: bool,
    ) -> Option<std::time::Duration> {
        let max = if self.after_signal_key {
            PROMPT_HOLD_MAX
        } else if reader_gone && self.answer_check.is_none() {
            READER_GONE_HOLD_MAX
        } else {
            return None;
        };
        (shell_fg && reason == Settle::StdinWait && self.is_pending() && since_write < max)
            .then_some(max)
    }

    /// Whether the next step may go as soon as the program that took the line written last
    /// reads again (seen blocked reading the terminal with nothing unread), without the quiet
    /// a settled result needs; so may a line end kept apart from its line's text (see
    /// [`Typing::line_ends_apart`]). Not after an ESC or a signal key: the program must first
    /// time the ESC out, or deal with the key.
    pub(super) fn releases_on_read(&self) -> bool {
        self.is_pending()
            && (self.newest_ends_line || (self.newest_ends_text && self.next_starts_line()))
    }

    /// Whether the next step is a line end kept apart from its line (see
    /// [`Typing::line_ends_apart`]).
    pub(super) fn next_starts_line(&self) -> bool {
        self.pending
            .front()
            .and_then(|step| step.first())
            .is_some_and(|&b| b == b'\n' || b == b'\r')
    }

    /// Notes the terminal's mode when the send began to a program's reader (not the shell's
    /// line editor): the mode that program takes lines in.
    pub(super) fn set_reader_canonical(&mut self, canonical: Option<bool>) {
        self.reader_canonical = canonical;
    }

    /// Whether [`Pacing::gate`] needs the cursor row's facts (whether a prompt came back):
    /// lines wait for a program's prompt, not seen yet (`prompt_seen`). Reading the row brings
    /// the screen up to date, which would cut the binary-output filter's runs short, so it is
    /// read only then.
    pub(super) fn wants_cursor_row(&self, prompt_seen: bool) -> bool {
        self.reader_canonical.is_some() && self.releases_on_read() && !prompt_seen
    }

    /// The send's settle decision `settle` as the lines still to type see it, and whether the
    /// next line goes now (`Some` reason), given what their reader does (`reader`).
    ///
    /// Lines to a program's line editor (a REPL, a nested shell): one that took the line and
    /// reads again, in the terminal mode it took lines in, gets the next one now, without the
    /// quiet a settled result needs (its own output may go on meanwhile: a timer printing),
    /// once what it printed before is on the screen;
    /// an event loop (a wait among other sources) must have put a prompt back since, for it
    /// may still act on what it read (node reads `.exit` and waits again first). An event
    /// loop that reads in another mode is done with lines (node's `.exit` leaves raw mode,
    /// then reads on until it exits): its stdin wait releases nothing, and the next line waits
    /// for the next reader (the shell's prompt) or for silence; unless it reads raw at a
    /// prompt of its own since (node began the send running a statement in line mode). A
    /// program reading the terminal alone in another mode is a new reader (one the line
    /// started).
    pub(super) fn gate(
        &mut self,
        settle: Option<Settle>,
        reader: &LineReader,
    ) -> (Option<Settle>, Option<Settle>) {
        let mode_kept = (reader.program && self.is_pending())
            .then(|| self.reader_mode_kept(reader.canonical_now))
            .flatten()
            // An event loop back at a prompt of its own since the write, reading keys raw (at
            // its line editor), takes the next line whatever mode the send began in (node runs
            // a statement with the terminal in line mode).
            .map(|kept| {
                kept || (reader.among_others
                    && reader.prompt_since_write
                    && reader.canonical_now == Some(false))
            });
        let settle = settle.filter(|&s| {
            !(s == Settle::StdinWait && mode_kept == Some(false) && reader.among_others)
        });
        let line_taken = mode_kept == Some(true)
            && self.releases_on_read()
            && (!reader.among_others || reader.prompt_since_write || reader.alternate);
        let key_taken =
            mode_kept != Some(false) && self.answer_check.is_some() && reader.key_echoed;
        let early = settle.is_none()
            && (line_taken || key_taken)
            && reader.waiting
            && !reader.input_pending
            && reader.output_drained;
        (settle, settle.or(early.then_some(Settle::StdinWait)))
    }

    /// Whether the terminal is still in the mode the program took lines in, given its mode
    /// now (`canonical_now`); `None` when the send began at the shell's line editor or a mode
    /// is unknown.
    pub(super) fn reader_mode_kept(&self, canonical_now: Option<bool>) -> Option<bool> {
        Some(self.reader_canonical? == canonical_now?)
    }

    /// Whether lines are still to be typed.
    pub(super) fn is_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Whether the next step starts with an interrupt, quit or suspend key: it goes once a
    /// program holds the terminal, without waiting for that program to read.
    pub(super) fn signal_next(&self) -> bool {
        self.pending
            .front()
            .and_then(|step| step.first())
            .is_some_and(|b| SIGNAL_BYTES.contains(b))
    }

    /// Every step not typed yet as `rewrite` makes it (the same length and line ends: cursor
    /// keys in another form).
    pub(super) fn rewrite_steps(&mut self, rewrite: impl Fn(Vec<u8>) -> Vec<u8>) {
        self.pending = std::mem::take(&mut self.pending)
            .into_iter()
            .map(rewrite)
            .collect();
    }

    /// The next step, whatever its reader is doing.
    pub(super) fn take_next(&mut self) -> Option<Vec<u8>> {
        let block_end = self.front_ends_a_block;
        let step = self.pop_front()?;
        self.handed_out(&step);
        // An Enter that ends a block is no line of the input: the lines after it keep their
        // numbers.
        if block_end {
            self.line_ends_taken = self.line_ends_taken.saturating_sub(line_ends(&step));
        }
        Some(step)
    }

    /// Takes the next step off the queue; the one after it, when a planned statement step, may
    /// end a block (a line end split off a step or put back goes before it, and is none).
    fn pop_front(&mut self) -> Option<Vec<u8>> {
        let step = self.pending.pop_front();
        self.front_ends_a_block = self.statements_planned
            && self
                .pending
                .front()
                .is_some_and(|next| next.as_slice() == super::super::input::BLOCK_END_KEY);
        step
    }

    /// What to write instead of settling for `reason`: the next line when the reader is ready
    /// for it; every line left (typed ahead, as before pacing) when the send settles anyway
    /// (silence or its deadline); nothing on an exit.
    pub(super) fn on_settle(&mut self, reason: Settle) -> Option<Vec<u8>> {
        match reason {
            Settle::Prompt | Settle::Continuation | Settle::StdinWait => self.take_next(),
            Settle::Idle | Settle::Timeout => {
                // A key answer's rest is never typed ahead: its reader did not show the key.
                if self.answer_check.take().is_some() {
                    let _ = self.drop_next();
                }
                self.front_ends_a_block = false;
                let rest: Vec<u8> = self.pending.drain(..).flatten().collect();
                self.handed_out(&rest);
                (!rest.is_empty()).then_some(rest)
            }
            Settle::Exit => {
                self.front_ends_a_block = false;
                self.pending.clear();
                None
            }
        }
    }

    /// Drops the next step (an answer's rest whose reader took what it had, an Enter that
    /// would end a block the REPL already ran).
    pub(super) fn drop_next(&mut self) -> Option<Vec<u8>> {
        // The line it ended was answered all the same: its line end counts as taken.
        let block_end = self.front_ends_a_block;
        let step = self.pop_front()?;
        if !block_end {
            self.line_ends_taken += line_ends(&step);
        }
        Some(step)
    }

    /// Replaces the steps not typed yet with `steps`.
    pub(super) fn replace_pending(&mut self, steps: Vec<Vec<u8>>) {
        self.pending = steps.into();
        self.front_ends_a_block = false;
    }

    /// The steps still to be typed become `steps`: a Python REPL's statements, one per step,
    /// each shaped for it (a block as a paste, a line with the Enter key). Planned once; later
    /// steps go as they are.
    pub(super) fn plan_statements(&mut self, steps: Vec<Vec<u8>>) {
        self.front_ends_a_block = steps
            .first()
            .is_some_and(|step| step.as_slice() == super::super::input::BLOCK_END_KEY);
        self.pending = steps.into();
        self.statements_planned = true;
    }

    /// Whether the next step is a Python REPL's statement step that only ends the block the
    /// step before typed (Enter alone, `input::BLOCK_END_KEY`): the send drops it
    /// ([`Pacing::drop_next`]) where IPython ran the block on the Enter before (IPython runs
    /// `for i in x: f(i)` at once, and took the second Enter as an empty line at its next
    /// prompt, or at an `input()` the block made); Python's REPLs need it.
    pub(super) fn next_ends_a_block(&self) -> bool {
        self.front_ends_a_block
    }

    /// Whether [`Pacing::plan_statements`] planned the steps still to be typed.
    pub(super) fn statements_planned(&self) -> bool {
        self.statements_planned
    }

    /// The steps not typed yet, joined.
    pub(super) fn pending_bytes(&self) -> Vec<u8> {
        self.pending.iter().flatten().copied().collect()
    }

    /// The number (from 1) of the input line the step handed out last begins.
    pub(super) fn newest_line_number(&self) -> usize {
        self.line_ends_before_newest + 1
    }

    /// Puts `step`, which was never written, back before the steps still to type (text
    /// held for a reader that a signal dropped: see `hold`), so that [`Pacing::discard`]
    /// counts its lines too.
    pub(super) fn put_back(&mut self, step: Vec<u8>) {
        if !step.is_empty() {
            self.line_ends_taken = self.line_ends_taken.saturating_sub(line_ends(&step));
            self.pending.push_front(step);
            self.front_ends_a_block = false;
        }
    }

    /// Drops the lines not yet typed (the send was cancelled or interrupted: like input typed
    /// ahead, they are discarded). Returns the number (from 1) of the first input line not
    /// typed whole and how many lines were not, when any were left.
    pub(super) fn discard(&mut self) -> Option<(usize, usize)> {
        self.answer_check = None;
        self.passed = None;
        let untyped = self.untyped_lines();
        self.pending.clear();
        self.front_ends_a_block = false;
        untyped
    }

    /// The number (from 1) of the first input line not typed whole yet and how many lines
    /// are not, when any are left (the steps still to type, counted by their line ends, and a
    /// last line without one).
    pub(super) fn untyped_lines(&self) -> Option<(usize, usize)> {
        let last = *self.pending.back()?.last()?;
        let ends: usize = self.pending.iter().map(|step| line_ends(step)).sum();
        Some((
            self.line_ends_taken + 1,
            ends + usize::from(last != b'\n' && last != b'\r'),
        ))
    }
}

/// `steps` with each line end that ends a step after other keys split off into a step of its
/// own, and an indentation (a TAB, or two spaces or more) after the first keys of a step
/// (vim's `o    text`) too: the keys before it may start insert mode, and then the indented
/// text goes as a paste (see `insert_paste`).
fn line_ends_apart(steps: impl Iterator<Item = Vec<u8>>) -> VecDeque<Vec<u8>> {
    let mut apart = VecDeque::new();
    for mut step in steps {
        let end = (step.len() > 1 && step.last().is_some_and(|&b| b == b'\n' || b == b'\r'))
            .then(|| step.split_off(step.len() - 1));
        if let Some(at) = indent_after_keys(&step) {
            let indented = step.split_off(at);
            apart.push_back(step);
            apart.push_back(indented);
        } else {
            apart.push_back(step);
        }
        apart.extend(end);
    }
    apart
}

/// Where an indentation (a TAB, or two spaces or more) first follows other keys in `step`.
fn indent_after_keys(step: &[u8]) -> Option<usize> {
    let at = step.iter().position(|&b| b == b' ' || b == b'\t')?;
    let indent = step[at] == b'\t' || step.get(at + 1) == Some(&b' ');
    (at > 0 && indent).then_some(at)
}

/// Line ends (`\n`, `\r`) in `step`.
fn line_ends(step: &[u8]) -> usize {
    step.iter().filter(|&&b| b == b'\n' || b == b'\r').count()
}

/// Whether `step` ends with an interrupt, quit or suspend key.
fn ends_with_signal_key(step: &[u8]) -> bool {
    step.last().is_some_and(|b| SIGNAL_BYTES.contains(b))
}

/// Whether an ESC followed by `rest` is the ESC key although `O` or `[` follows it: they do
/// not make a known key with it. The cursor and editing keys (`ESC [ A`, `ESC [ 1 ; 5 C`,
/// `ESC [ 3 ~`) are keys; so are `ESC O B` and the first function keys (`ESC O P`) when the
/// input ends with them or another ESC follows (keys sent as keys), while text after them
/// makes `ESC O` vim's "open a line above" (`\x1bOHello`).
pub(super) fn lone_escape(rest: &[u8]) -> bool {
    match rest {
        [b'O', final_byte, tail @ ..] => {
            !(b"ABCDHFPQRS".contains(final_byte) && tail.first().is_none_or(|&b| b == 0x1b))
        }
        [b'[', tail @ ..] => {
            let params = tail
                .iter()
                .take_while(|b| b.is_ascii_digit() || **b == b';')
                .count();
            !tail
                .get(params)
                .is_some_and(|b| b"ABCDHFPQRSZ~".contains(b))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
