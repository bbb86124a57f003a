//! What the shell's prompt marks say: the prompt state (at a prompt, a continuation prompt, or
//! busy), the marks counted, each finished command's exit status, and the text shown after
//! the newest prompt (what the shell's line editor holds).

use super::exits::ExitLog;
use super::{MarkKind, Position, PromptState, Screen, row_text};

/// The marks seen so far and what they say (see the module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct PromptTracker {
    pub(super) last_mark: Option<MarkKind>,
    pub(super) text_after_mark: bool,
    /// A mark with the session's nonce was refused as a command's output since the newest
    /// admitted one (a command that printed marks with later command numbers makes the
    /// shell's real ones look like its output): the newest admitted mark no longer says where
    /// the shell stands.
    pub(super) refused_since_mark: bool,
    /// The newest `D` mark ended a command whose start a `C` mark showed (not a prompt
    /// redrawn, an empty line, or a line the shell could not parse).
    pub(super) done_ended_a_command: bool,
    pub(super) done_count: u64,
    pub(super) mark_count: u64,
    /// `B` marks (primary and continuation prompts) so far.
    pub(super) prompt_end_count: u64,
    pub(super) last_exit: Option<i32>,
    /// Every `D` mark's status, counted.
    pub(super) exits: ExitLog,
    /// A `C` mark (the shell's `PS0`: a command line was read and runs) came since the last
    /// `D` mark.
    pub(super) command_started: bool,
    /// Any `C` mark came (a shell without `PS0` prints none).
    pub(super) starts_seen: bool,
    /// The command number the newest `D` mark carried.
    pub(super) last_done_number: Option<u64>,
    /// The newest `D` mark starts the prompt the line editor was reading at drawn again, not
    /// a new one: it showed the same command number as the one before, with no command
    /// started since and the newest mark a prompt's end. Readline draws its prompt again in
    /// place, over its own line, when it leaves a history search (Ctrl-R), and the line
    /// stays; an empty line sent shows the same number too, on a fresh row.
    pub(super) redrawn: bool,
    /// Where the cursor stood when the newest `B` mark (a prompt's end) arrived: where the
    /// line the shell reads starts on screen.
    pub(super) prompt_end_at: Option<super::Position>,
    /// Where the cursor stood when the newest `A` mark (a prompt's start, primary or
    /// continuation) arrived: where the prompt's text starts on screen.
    pub(super) prompt_start_at: Option<super::Position>,
    /// A `D` mark said the terminal modes were restored since this was last taken (see
    /// [`super::Screen::take_modes_restored`]).
    pub(super) modes_restored: bool,
    /// The newest `D` mark carried `errexit` (the shell's `set -e` is on).
    pub(super) errexit: bool,
    /// How many bytes of readline's wrap after a prompt may still come (see
    /// [`Self::forced_wrap`]): set when a prompt's end left the cursor past its row's last
    /// column.
    pub(super) forced_wrap_left: u8,
    /// A `D` mark turned [`Self::errexit`] on since this was last taken (see
    /// [`super::Screen::take_errexit_turned_on`]).
    pub(super) errexit_turned_on: bool,
}

/// The most bytes readline writes after a prompt that ends in its row's last column (the
/// terminal's wrap pending) to put the cursor at the next row's start: `\r\n\r` after a prompt
/// ending in invisible text (the session's marks), ` \r` (a space that wraps) otherwise (see
/// [`PromptTracker::forced_wrap`]).
pub(super) const FORCED_WRAP_BYTES: u8 = 3;

/// The prompts readline's incremental history search (Ctrl-R, Ctrl-S) shows in place of the
/// shell's own while it searches.
const SEARCH_PROMPTS: [&str; 4] = [
    "(reverse-i-search)",
    "(i-search)",
    "(failed reverse-i-search)",
    "(failed i-search)",
];

impl PromptTracker {
    pub(super) fn on_mark(&mut self, mark: MarkKind) {
        // Only the finished-command count notes a command's start; readiness and the prompt
        // state follow the prompt marks.
        if mark == MarkKind::CommandStart {
            self.command_started = true;
            self.starts_seen = true;
            return;
        }
        if let MarkKind::CommandDone {
            exit_code,
            modes_restored,
            errexit,
            number,
        } = mark
        {
            self.redrawn = number.is_some_and(|n| self.last_done_number == Some(n))
                && !self.command_started
                && self.last_mark == Some(MarkKind::PromptEnd);
            self.done_count += 1;
            self.modes_restored |= modes_restored;
            self.errexit_turned_on |= errexit && !self.errexit;
            self.errexit = errexit;
            // A prompt after an empty or comment-only line ran no command: its status is
            // the previous command's again, neither this prompt's command's status nor
            // another finished command. The prompts' command numbers tell (the first prompt's
            // too, before any `C` mark came); without them, a shell that marks no command
            // starts (no `PS0`) is taken to have run one. A changed status did come from a
            // command, whether or not its start was marked (a syntax error's 2: bash prints no
            // `PS0` for a line it cannot parse, nor counts it; a command right after `PS0` was
            // replaced).
            let numbered = number.zip(self.last_done_number).map(|(n, last)| n != last);
            self.done_ended_a_command = self.command_started;
            let ran = std::mem::take(&mut self.command_started)
                || numbered.unwrap_or(!self.starts_seen)
                || exit_code != self.last_exit;
            self.last_exit = exit_code;
            if number.is_some() {
                self.last_done_number = number;
            }
            if ran {
                self.exits.record(exit_code);
            }
        }
        if matches!(mark, MarkKind::PromptEnd | MarkKind::ContinuationEnd) {
            self.prompt_end_count += 1;
        }
        self.mark_count += 1;
        self.last_mark = Some(mark);
        self.text_after_mark = false;
        self.refused_since_mark = false;
    }

    /// After a prompt's end that filled its row to the last column, readline writes line
    /// ends, carriage returns or a space (see [`FORCED_WRAP_BYTES`]) to put the cursor at the
    /// next row's start, where the line it reads begins: no text after the prompt. Whether
    /// output byte `b` (`text`: printed, not part of a sequence) is one of them; any other
    /// byte ends the wait.
    pub(super) fn forced_wrap(&mut self, b: u8, text: bool) -> bool {
        if self.forced_wrap_left > 0 && text && matches!(b, b' ' | b'\r' | b'\n') {
            self.forced_wrap_left -= 1;
            true
        } else {
            self.forced_wrap_left = 0;
            false
        }
    }

    pub(super) fn state(&self) -> PromptState {
        match (self.last_mark, self.text_after_mark) {
            (Some(MarkKind::PromptEnd), false) => PromptState::Prompt,
            (Some(MarkKind::ContinuationEnd), false) => PromptState::Continuation,
            _ => PromptState::Busy,
        }
    }

    /// [`state`](Self::state) by the marks alone, for a prompt that followed a command whose
    /// start was marked: text printed after the newest prompt's end (a background job's
    /// output over the prompt) does not count. Busy when no `C` mark came before the newest
    /// `D` mark (a prompt redrawn: the text after it may be a line still being typed), when
    /// one came after it (a command runs), or when a mark was refused since (the shell's own
    /// prompt may be the one refused).
    pub(super) fn marked_state(&self) -> PromptState {
        if self.refused_since_mark || self.command_started || !self.done_ended_a_command {
            return PromptState::Busy;
        }
        match self.last_mark {
            Some(MarkKind::PromptEnd) => PromptState::Prompt,
            Some(MarkKind::ContinuationEnd) => PromptState::Continuation,
            _ => PromptState::Busy,
        }
    }
}

impl Screen {
    /// Whether the newest prompt mark ends a prompt (primary or continuation): the shell read
    /// no command line since, though text may have been typed after it.
    pub(crate) fn after_prompt_end(&self) -> bool {
        matches!(
            self.prompt.last_mark,
            Some(MarkKind::PromptEnd | MarkKind::ContinuationEnd)
        )
    }

    /// Where the shell stands according to the marks and the text printed after them (any
    /// text after a prompt's end makes it [`PromptState::Busy`]).
    pub(crate) fn prompt_state(&self) -> PromptState {
        self.prompt.state()
    }

    /// Where the shell stands according to the marks alone when what followed the newest
    /// prompt's end is output on rows of its own below it (a background job's log over the
    /// prompt, which may never stop): the prompt after a command whose start was marked
    /// (see `PromptTracker::marked_state`). [`PromptState::Busy`] when nothing followed the
    /// prompt, or only text on the prompt's own row and the rows it wraps onto (the line
    /// editor's line: keys typed there, a prompt redrawn).
    pub(crate) fn prompt_under_output(&self) -> PromptState {
        let marked = self.prompt.marked_state();
        if marked == PromptState::Busy || !self.prompt.text_after_mark {
            return PromptState::Busy;
        }
        let Some(start) = self.prompt.prompt_end_at else {
            return PromptState::Busy;
        };
        // The emulator as it stands (lines of a flood not yet fed to it are more of the same):
        // the cursor on a row below the prompt's, which that row does not wrap onto.
        let cursor = self.cursor_unsynced();
        let base = self.history().end_abs();
        let wraps_on = start.row >= base
            && (start.row..cursor.row).all(|row| {
                u16::try_from(row - base).is_ok_and(|r| {
                    row_text::row_continues(self.parser.screen(), r, self.config.cols)
                })
            });
        if cursor.row > start.row && !wraps_on {
            marked
        } else {
            PromptState::Busy
        }
    }

    /// The text shown after the newest prompt's end on the cursor's row, when the shell has
    /// read no line since that prompt and text was printed after it with the cursor still on
    /// the prompt's row (or a row that row wraps onto): what the shell's line editor holds (typed or pushed
    /// into the terminal's input), or output a background job printed without a line end.
    /// `None` otherwise.
    pub(crate) fn text_after_prompt(&mut self) -> Option<String> {
        if !self.after_prompt_end() || !self.prompt.text_after_mark {
            return None;
        }
        let start = self.prompt.prompt_end_at?;
        let cursor = self.cursor();
        let base = self.history().end_abs();
        // A long line wraps: every row from the prompt's to the cursor's continues on the next
        // (all still on the screen).
        if cursor.row < start.row || start.row < base {
            return None;
        }
        let screen = self.parser.screen();
        let continues = (start.row..cursor.row).all(|row| {
            u16::try_from(row - base)
                .is_ok_and(|r| row_text::row_continues(screen, r, self.config.cols))
        });
        if !continues {
            return None;
        }
        let prompt = self.row_prefix(start).unwrap_or_default();
        let mut line = String::new();
        for row in start.row..=cursor.row {
            line.push_str(&self.row_prefix(Position {
                row,
                col: self.config.cols.max(1),
            })?);
        }
        // Readline's incremental history search shows its own prompt in place of the
        // shell's (`(reverse-i-search)`alp': echo alpha`): the row is the search, whole.
        if SEARCH_PROMPTS.iter().any(|search| line.starts_with(search)) {
            return Some(line.trim().to_owned());
        }
        let text = line.get(prompt.len()..)?.trim();
        (!text.is_empty()).then(|| text.to_owned())
    }

    /// The text before the cursor on its row when that row is not the newest prompt's (nor
    /// one the prompt's row wraps onto, see [`Screen::text_after_prompt`]): output a
    /// background job printed after the prompt, whose last line has no line end yet. The
    /// shell's line editor does not know of it: what it echoes next shows right after it,
    /// on the same row. `None` when the shell has read a line since the prompt, nothing was
    /// printed after it, or the cursor's row is empty before the cursor.
    pub(crate) fn output_before_input_line(&mut self) -> Option<String> {
        if !self.after_prompt_end() || !self.prompt.text_after_mark {
            return None;
        }
        let start = self.prompt.prompt_end_at?;
        if self.cursor().row <= start.row || self.text_after_prompt().is_some() {
            return None;
        }
        let text = self.cursor_row_prefix()?;
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_owned())
    }
}
