//! Terminal emulation: bytes in, screen-true text out (direction "Where we go past the seed" 1).
//! A [`Screen`] runs a real terminal emulator ([`vt100`]) over everything a session prints, so
//! carriage-return overwrites, erase-line and cursor moves resolve as on a screen, and nothing
//! the model sees contains an escape sequence. It needs no PTY (which is how it is tested).
//!
//! # Responsibilities
//! - Render: the transcript is the bounded [history](ScreenConfig::scrollback_lines) of rows
//!   that scrolled off the top plus the visible rows; [`Screen::snapshot_since`] copies the rows
//!   from an [`AnchorId`] (a send's start position) to the end, and [`Screen::page_snapshot`]
//!   those of a newest-relative page (the seed's §3.7), so the caller renders them (tail-bounded
//!   on UTF-8 boundaries) after releasing its lock. On the alternate screen: the visible screen.
//! - Prompt marks: OSC 133 marks with the session's [`PromptNonce`] are [`ScreenEvent::Mark`]s.
//! - Queries: cursor-position (DSR), device-status and device-attribute queries, and colour
//!   queries, produce reply bytes for the caller to write back ([`FeedOutcome::replies`]).
//! - Bounds: history rows and bytes, OSC payload bytes, replies per chunk. Invalid UTF-8 never
//!   panics (it shows as U+FFFD, as a program's own U+FFFD does: [`utf8`]); a sequence split
//!   across chunks is completed by the next one.
//!
//! # Flow of [`Screen::feed`]
//! See [`feed`]: binary output is summarised, plain flood lines skip the emulator until read,
//! everything else is emulated in segments the screen observes.

mod alternate;
mod anchor_start;
mod binary;
mod blank_rows;
mod classes;
pub(crate) mod clears;
mod compat;
mod conceal;
mod consume;
mod cursor_rows;
mod dcs_queries;
mod exits;
mod feed;
mod flood;
mod head;
pub(crate) mod highlight;
mod history;
mod hooks;
mod input_modes;
mod insert_mode;
pub(crate) mod invisible;
mod left_rows;
mod line_drawing;
mod mark_order;
mod no_wrap;
mod nonce;
pub(crate) mod notes;
mod open_run;
mod page;
mod presentation;
mod prompt;
mod prompt_row;
mod region;
mod render;
mod row_moves;
mod row_text;
mod scan;
mod segment;
mod snapshot;
mod suggestion;
mod tab_moves;
mod tabs;
mod utf8;

pub use self::binary::is_open_binary_run_line;
pub(crate) use self::binary::shows_suppressed_run;
pub(crate) use self::exits::ExitTally;
pub(crate) use self::head::PlacedHead;
pub use self::nonce::PromptNonce;

use std::num::NonZeroU16;

use crate::types::EarlierExits;

use self::binary::BinaryFilter;
use self::flood::Flood;
use self::history::History;
use self::hooks::Hooks;
use self::prompt::PromptTracker;
use self::scan::EscScanner;

/// Most OSC payload bytes passed to the emulator per sequence (prompt marks are ~60 bytes;
/// longer OSCs such as hyperlinks are not rendered anyway).
const MAX_OSC_BYTES: usize = 4096;

/// Lines a scrollback page holds when its [`ReadRequest`](crate::ReadRequest) gives no `count`.
pub const DEFAULT_PAGE_LINES: u64 = 500;

/// Size and bounds of a [`Screen`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ScreenConfig {
    /// Visible rows (at least 1).
    pub(crate) rows: u16,
    /// Visible columns (at least 1).
    pub(crate) cols: u16,
    /// Most history rows kept (rows that scrolled off the top).
    pub(crate) scrollback_lines: usize,
    /// Most history text bytes kept (each row counts its UTF-8 bytes plus one).
    pub(crate) scrollback_max_bytes: usize,
}

/// A genuine (nonce'd) OSC 133 mark. Payload format:
/// `133;<kind>[;<status>][;k=s];dsh=<nonce>[;n=<command number>][;errexit][;stty=restored]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MarkKind {
    /// `A`: the primary prompt starts.
    PromptStart,
    /// `B`: the primary prompt ends; the shell reads a command next.
    PromptEnd,
    /// `A` with `k=s`: a continuation (PS2) prompt starts.
    ContinuationStart,
    /// `B` with `k=s`: a continuation prompt ends; the shell wants more of the command.
    ContinuationEnd,
    /// `C`: a command starts executing.
    CommandStart,
    /// `D;<status>`: the previous command finished with `exit_code`.
    CommandDone {
        /// The command's exit status, when the mark carried a parsable one.
        exit_code: Option<i32>,
        /// The mark carried `stty=restored`: the shell's prompt hook set the terminal modes
        /// the command left changed (`stty -echo`, a program's raw mode) back to the
        /// session's.
        modes_restored: bool,
        /// The mark carried `errexit`: the shell's `set -e` is on, so a command that fails
        /// ends the shell.
        errexit: bool,
        /// The command number it carried (`n=`, bash's `\#`), which moves on only when a
        /// command line ran (not after an empty line, a comment or a syntax error).
        number: Option<u64>,
    },
}

/// One thing that happened while feeding a chunk, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScreenEvent {
    /// Visible text was printed (or the cursor moved by a newline, return, tab, backspace).
    Text,
    /// A genuine prompt mark.
    Mark(MarkKind),
    /// The alternate screen was entered (`true`) or left (`false`).
    AlternateScreen(bool),
}

/// What one [`Screen::feed`] produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FeedOutcome {
    /// Events in order (consecutive text is reported once).
    pub(crate) events: Vec<ScreenEvent>,
    /// Reply bytes for terminal queries, to be written back to the program (in order).
    pub(crate) replies: Vec<Vec<u8>>,
}

impl FeedOutcome {
    /// Whether the chunk printed visible text.
    pub(crate) fn printed_text(&self) -> bool {
        self.events.contains(&ScreenEvent::Text)
    }

    /// Whether the chunk carried a genuine prompt mark.
    pub(crate) fn has_mark(&self) -> bool {
        self.events
            .iter()
            .any(|e| matches!(e, ScreenEvent::Mark(_)))
    }

    fn push_text(&mut self) {
        if self.events.last() != Some(&ScreenEvent::Text) {
            self.events.push(ScreenEvent::Text);
        }
    }
}

/// Where the shell stands, judged from the latest genuine mark and what followed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PromptState {
    /// No prompt is current (a command runs, or text followed the last prompt).
    Busy,
    /// The primary prompt was the last thing printed.
    Prompt,
    /// A continuation prompt was the last thing printed.
    Continuation,
}

/// An absolute screen position: `row` counts every row since the session started (rows that
/// scrolled off included), `col` is a cell column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub(crate) struct Position {
    /// Absolute row.
    pub(crate) row: u64,
    /// Cell column.
    pub(crate) col: u16,
}

/// A position tracked by the screen (a send's start, a read cursor). See [`Screen::anchor`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct AnchorId(usize);

#[derive(Clone, Debug)]
struct Anchor {
    pos: Position,
    /// Created on the alternate screen: it becomes the main-screen cursor when that returns.
    pending_main: bool,
    /// The text of the anchor's row before its column when it was placed at the cursor: when
    /// the program rewrites that part of the row (`\r`, erase line, cursor moves), a render
    /// from the anchor starts at the row's first column, so the row is shown whole again.
    prefix: Option<String>,
    /// Text an earlier program left at and below the cursor when the anchor was placed there
    /// (absolute row, full text; see [`Screen::rows_left_at_cursor`]), when it moved the
    /// cursor up without clearing (`printf '\033[H'`, `tput cup`): a render from the anchor
    /// does not end on those rows while they are unchanged, nor show their unchanged text after
    /// the prompt, since nothing after the anchor wrote it. Also the rows above the anchor's
    /// row that output moved the cursor up to ([`Screen::note_rows_above_anchors`]), with how
    /// far output wrote on each: whether a row still shows older text is told row by row.
    left_at_cursor: Vec<left_rows::LeftRow>,
    /// Line ends among every row before the anchor's row when it was placed (see
    /// [`Screen::line_ends_before`]): how many lines the scrollback dropped after the anchor
    /// is told from it once the anchor's row itself is gone.
    line_ends_before: Option<u64>,
}

/// Rendered text plus whether anything was cut.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rendered {
    /// Screen-true text (no escape sequences).
    pub(crate) text: String,
    /// Whether the start fell out of the bounded history or the byte bound cut the head.
    pub(crate) truncated: bool,
}

/// The emulated terminal of one session. See the [module docs](self).
pub(crate) struct Screen {
    parser: vt100::Parser<Hooks>,
    scanner: EscScanner,
    config: ScreenConfig,
    anchors: Vec<Option<Anchor>>,
    prompt: PromptTracker,
    alternate: bool,
    /// The shell's prompt came back while a program had left the alternate screen on, and the
    /// screen returned to the main one (see [`Screen::take_prompt_left_alternate`]).
    prompt_left_alternate: bool,
    /// The prompt gave the main screen back while a program's alternate screen was on (see
    /// `prompt_left_alternate`), and no alternate screen was entered since: that program's
    /// own leave (`CSI ? 1049 l`, in a later command) has nothing to leave (see `compat`).
    left_by_prompt: bool,
    /// How often the screen went from the alternate screen back to the main one.
    alternate_leaves: u64,
    has_output: bool,
    binary: BinaryFilter,
    /// A consuming read is in progress: a binary run going on stays open ([`open_run`]).
    keep_binary_open: bool,
    /// The line a consuming read put on the cursor row for the binary run going on, until
    /// the next output erases it ([`open_run`]).
    open_run_line: Option<String>,
    flood: Flood,
    /// [`feed::modes`] currently on.
    modes: u8,
    /// A cursor was saved on the main screen since the start or a reset (`ESC 7`, `CSI s`,
    /// modes 1048 and 1049): `CSI ? 1049 l` restores only such a cursor (see `compat`).
    main_cursor_saved: bool,
    /// Tab stops a program set (HTS, TBC), by column, in order; `None`: every eight columns
    /// (see `tab_moves`).
    tab_stops: Option<Vec<u16>>,
    /// A TAB moved the cursor into the empty last column of this main-screen row, from this
    /// column (`(row, from)`), and nothing was emulated since (see
    /// [`Screen::wrap_wide_after_tab`]).
    tab_to_last_column: Option<(u16, u16)>,
    /// The alternate screen is on by mode 1049, which saved the main screen's cursor to be
    /// restored when it is left (modes 47 and 1047 save none).
    alternate_saved_cursor: bool,
    /// The alternate screen's text when a result last showed it (see `alternate`).
    alternate_shown: Option<Vec<String>>,
    /// When the program saved the main screen's cursor (`ESC 7`, `CSI s`) and has not
    /// restored it yet: it is away drawing elsewhere (a status line on the last row) and will
    /// be back (see [`Screen::consume_since`]).
    cursor_away_since: Option<std::time::Instant>,
    /// Whether the last byte fed was ASCII (no character is half-decoded).
    last_byte_ascii: bool,
    /// Absolute row of the cursor where the current segment's text starts.
    segment_row: u64,
    /// The running send's first output lines ([`head`]).
    head: Option<head::HeadCapture>,
    /// The main screen's scroll region, when it is not the whole screen (its scrolled rows
    /// are saved by [`region`]).
    region: Option<region::Region>,
    /// UTF-8 on its way into the emulator (U+FFFD kept, split characters held).
    decoder: utf8::Decoder,
    /// Text printed with auto-wrap off passed the last column since the last take (`no_wrap`).
    cut_at_edge: bool,
    /// The first invisible character printed since the last take, and how many (`invisible`).
    invisible: Option<(char, u64)>,
    clears: clears::Clears,
    /// Translates printed text while DEC line drawing is designated (`modes::CHARSET`).
    line_drawing: line_drawing::LineDrawing,
    /// Blanks printed text while it is concealed (`modes::CONCEAL`).
    conceal: conceal::Conceal,
    /// The blank rows at the bottom of the visible screen, when known without rendering.
    blank: blank_rows::BlankRows,
    /// Tests compare flood lines against emulating every byte.
    #[cfg(test)]
    no_flood: bool,
}

impl std::fmt::Debug for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Screen")
            .field("config", &self.config)
            .field("alternate", &self.alternate)
            .field("prompt", &self.prompt_state())
            .finish_non_exhaustive()
    }
}

impl Screen {
    /// A blank screen. `nonce` is the token genuine prompt marks must carry; with `None` no
    /// mark is ever recognised.
    pub(crate) fn new(config: ScreenConfig, nonce: Option<PromptNonce>) -> Self {
        let rows = NonZeroU16::new(config.rows).unwrap_or(NonZeroU16::MIN);
        let cols = NonZeroU16::new(config.cols).unwrap_or(NonZeroU16::MIN);
        let history = History::new(
            config.scrollback_lines,
            config.scrollback_max_bytes,
            config.cols,
        );
        Self {
            parser: vt100::Parser::new_with_callbacks(
                rows,
                cols,
                0,
                Hooks::new(nonce, history, config.rows.max(1)),
            ),
            scanner: EscScanner::new(MAX_OSC_BYTES),
            config,
            anchors: Vec::new(),
            prompt: PromptTracker::default(),
            alternate: false,
            prompt_left_alternate: false,
            left_by_prompt: false,
            alternate_leaves: 0,
            has_output: false,
            binary: BinaryFilter::default(),
            keep_binary_open: false,
            open_run_line: None,
            flood: Flood::default(),
            modes: 0,
            main_cursor_saved: false,
            tab_stops: None,
            tab_to_last_column: None,
            alternate_saved_cursor: false,
            alternate_shown: None,
            cursor_away_since: None,
            last_byte_ascii: true,
            segment_row: 0,
            head: None,
            region: None,
            decoder: utf8::Decoder::default(),
            cut_at_edge: false,
            invisible: None,
            clears: clears::Clears::default(),
            line_drawing: line_drawing::LineDrawing::default(),
            conceal: conceal::Conceal::default(),
            blank: blank_rows::BlankRows::new(),
            #[cfg(test)]
            no_flood: false,
        }
    }

    /// The cursor's absolute position (on the alternate screen: its row there, offset like the
    /// main screen's).
    pub(crate) fn cursor(&mut self) -> Position {
        self.materialize();
        self.cursor_unsynced()
    }

    /// The emulator's cursor, without first feeding it pending flood lines.
    fn cursor_unsynced(&self) -> Position {
        let (row, col) = self.parser.screen().cursor_position();
        Position {
            row: self.history().end_abs() + u64::from(row),
            col,
        }
    }

    /// Gives `bytes` to the emulator through the [`utf8`] decoder (and, while DEC line drawing
    /// is designated or text is concealed, [`line_drawing`] or [`conceal`]).
    fn emulate(&mut self, bytes: &[u8]) {
        let bytes = self.decoder.decode(bytes);
        let bytes = self.translate_text(bytes);
        if !bytes.is_empty() {
            self.wrap_wide_after_tab(&bytes);
        }
        self.blank.before_emulate(&bytes);
        presentation::process(&mut self.parser, &bytes);
        self.blank
            .after_emulate(self.parser.screen().cursor_position().0);
        // The newest row scrolled into history may wrap into the main screen's first row by a
        // wide character vt100 moved there unflagged (see `History::note_screen_top`). The
        // alternate screen's first row is not that row: the note stays as it was.
        let screen = self.parser.screen();
        if !screen.alternate_screen() {
            let starts_wide = screen.cell(0, 0).is_some_and(vt100::Cell::is_wide);
            self.parser
                .callbacks_mut()
                .history
                .note_screen_top(starts_wide);
        }
    }

    /// Whether a `D` mark said the shell restored the terminal modes a command left changed,
    /// since the last call.
    pub(crate) fn take_modes_restored(&mut self) -> bool {
        std::mem::take(&mut self.prompt.modes_restored)
    }

    /// Whether a `D` mark said the shell's errexit (`set -e`) is on where the one before it
    /// said it was off (or came first), since the last call.
    pub(crate) fn take_errexit_turned_on(&mut self) -> bool {
        std::mem::take(&mut self.prompt.errexit_turned_on)
    }

    /// Whether a command line the shell read is still running: a `C` mark (the shell's `PS0`)
    /// came after the newest `D` mark.
    pub(crate) fn command_running(&self) -> bool {
        self.prompt.command_started
    }

    /// How many command-finished (`D`) marks arrived so far.
    pub(crate) fn done_count(&self) -> u64 {
        self.prompt.done_count
    }

    /// How many genuine marks arrived so far.
    pub(crate) fn mark_count(&self) -> u64 {
        self.prompt.mark_count
    }

    /// How many prompts (primary or continuation) ended with a genuine `B` mark so far.
    pub(crate) fn prompt_end_count(&self) -> u64 {
        self.prompt.prompt_end_count
    }

    /// The exit status carried by the latest `D` mark.
    pub(crate) fn last_exit_code(&self) -> Option<i32> {
        self.prompt.last_exit
    }

    /// Where the exit log stands now (a result's start, for [`Screen::exits_since`]).
    pub(crate) fn exit_tally(&self) -> ExitTally {
        self.prompt.exits.tally()
    }

    /// The exit status of the newest command that finished since `from` (a prompt after an
    /// empty or comment-only line is not one); `None` when none did or it carried none.
    pub(crate) fn command_exit_since(&self, from: ExitTally) -> Option<i32> {
        self.prompt.exits.last_since(from)
    }

    /// The commands that finished since `from`, without the newest one when `own_last` (the
    /// result reports its status as its own).
    pub(crate) fn exits_since(&self, from: ExitTally, own_last: bool) -> EarlierExits {
        self.prompt.exits.since(from, own_last)
    }

    /// Whether any visible text was ever printed.
    pub(crate) fn has_output(&self) -> bool {
        self.has_output
    }

    /// Whether the history bounds ever dropped a row (sticky).
    pub(crate) fn history_dropped(&mut self) -> bool {
        self.materialize();
        self.history().dropped()
    }

    /// Retained history rows and their accounted bytes.
    #[cfg(test)]
    pub(crate) fn history_usage(&mut self) -> (usize, usize) {
        self.materialize();
        (self.history().len(), self.history().bytes())
    }

    fn history(&self) -> &History {
        &self.parser.callbacks().history
    }

    /// Starts tracking the current cursor position. On the alternate screen the anchor waits
    /// for the main screen to return and then starts at its cursor.
    pub(crate) fn anchor(&mut self) -> AnchorId {
        self.anchor_left_of_cursor(0)
    }

    /// [`Screen::anchor`], `cols` columns left of the cursor on its row (where a line the
    /// program started with blanks began).
    pub(crate) fn anchor_left_of_cursor(&mut self, cols: u16) -> AnchorId {
        let mut pos = self.cursor();
        pos.col = pos.col.saturating_sub(cols);
        let anchor = Anchor {
            pos,
            pending_main: self.alternate,
            prefix: (!self.alternate).then(|| self.row_prefix(pos)).flatten(),
            left_at_cursor: self.rows_left_at_cursor(),
            line_ends_before: (!self.alternate)
                .then(|| self.line_ends_before(pos.row))
                .flatten(),
        };
        self.add_anchor(anchor)
    }

    /// Starts tracking `pos` (clamped to the oldest retained row when older).
    pub(crate) fn anchor_at(&mut self, pos: Position) -> AnchorId {
        // Flood lines are fed first (as for a cursor anchor); it keeps no row text to render.
        self.materialize();
        let anchor = Anchor {
            pos,
            pending_main: false,
            prefix: None,
            left_at_cursor: Vec::new(),
            line_ends_before: self.line_ends_before(pos.row),
        };
        self.add_anchor(anchor)
    }

    /// Stores `anchor` in the first free slot.
    fn add_anchor(&mut self, anchor: Anchor) -> AnchorId {
        if let Some(i) = self.anchors.iter().position(Option::is_none) {
            self.anchors[i] = Some(anchor);
            AnchorId(i)
        } else {
            self.anchors.push(Some(anchor));
            AnchorId(self.anchors.len() - 1)
        }
    }

    /// The text before an anchor on its row when it was placed (`None` at column 0, or on the
    /// alternate screen).
    pub(crate) fn anchor_prefix(&self, id: AnchorId) -> Option<String> {
        match self.anchors.get(id.0) {
            Some(Some(a)) if !a.pending_main => a.prefix.clone(),
            _ => None,
        }
    }

    /// Moves an anchor to the current cursor (after its text was consumed).
    pub(crate) fn move_anchor_to_cursor(&mut self, id: AnchorId) {
        let pos = self.cursor();
        let pending_main = self.alternate;
        let prefix = (!pending_main).then(|| self.row_prefix(pos)).flatten();
        let left = self.rows_left_at_cursor();
        let line_ends_before = (!pending_main)
            .then(|| self.line_ends_before(pos.row))
            .flatten();
        if let Some(Some(anchor)) = self.anchors.get_mut(id.0) {
            if pending_main && anchor.pending_main {
                return;
            }
            anchor.line_ends_before = line_ends_before;
            anchor.pos = pos;
            anchor.pending_main = pending_main;
            anchor.prefix = prefix;
            anchor.left_at_cursor = left;
        }
    }

    /// Stops tracking an anchor.
    pub(crate) fn release_anchor(&mut self, id: AnchorId) {
        if let Some(slot) = self.anchors.get_mut(id.0) {
            *slot = None;
        }
    }

    /// The anchor's position (`None` once released, or while it waits for the main screen).
    pub(crate) fn anchor_position(&self, id: AnchorId) -> Option<Position> {
        match self.anchors.get(id.0) {
            Some(Some(a)) if !a.pending_main => Some(a.pos),
            _ => None,
        }
    }

    /// Takes the anchor's record of text left at and below its cursor out (see
    /// [`Screen::restore_anchor_left_rows`]).
    fn take_anchor_left_rows(&mut self, id: AnchorId) -> Vec<left_rows::LeftRow> {
        match self.anchors.get_mut(id.0) {
            Some(Some(a)) => std::mem::take(&mut a.left_at_cursor),
            _ => Vec::new(),
        }
    }

    /// Puts back what [`Screen::take_anchor_left_rows`] took.
    fn restore_anchor_left_rows(&mut self, id: AnchorId, left: Vec<left_rows::LeftRow>) {
        if let Some(Some(a)) = self.anchors.get_mut(id.0) {
            a.left_at_cursor = left;
        }
    }
}

#[cfg(test)]
mod tests;
