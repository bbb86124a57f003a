//! The notices about output text a result's viewport (or a background job's read) shows
//! differently from what the program printed ([`OutputNotes`]): bytes that are not UTF-8,
//! strings a line end cut off, line-drawing text, rows written over one another, lines cut at
//! the right edge, invisible and concealed characters, lines erased before they were shown,
//! text shown highlighted.

use crate::screen::clears::ErasedLines;
use crate::screen::highlight::HighlightedRow;
use crate::screen::notes::{SpanNotes, UnendedString};

/// What a result (or a background job's read of a send still running) says about its text
/// (`text`) where it shows differently from what the program printed, from the screen's notes
/// over its span ([`SpanNotes`]).
#[derive(Clone, Debug, Default)]
pub(in crate::session) struct OutputNotes {
    /// Output bytes that are not UTF-8 reached the screen (shown as U+FFFD): text in Latin-1
    /// or another 8-bit encoding, or bytes a binary run did not take; not when the text shows
    /// a suppressed binary run's line (the bytes around it are no text in another encoding).
    pub(in crate::session) undecodable: bool,
    /// The first escape string a line end cut off (its text did not show), and how many were.
    pub(in crate::session) unended_string: Option<(UnendedString, u64)>,
    /// The first line of text printed while DEC line drawing was designated (it shows as box
    /// parts), as printed, and how many such lines there were.
    pub(in crate::session) line_drawn_text: Option<(String, u64)>,
    /// The first row a shorter text was written over a longer one on after carriage returns,
    /// and how many such rows there were.
    pub(in crate::session) mixed_row: Option<(String, u64)>,
    /// Text printed with auto-wrap off (`ESC [ ? 7 l`) passed the terminal's last column:
    /// lines are cut there, as a terminal shows them.
    pub(in crate::session) cut_at_edge: bool,
    /// The first invisible character printed (a byte-order mark, a zero-width space), and how
    /// many there were.
    pub(in crate::session) invisible: Option<(char, u64)>,
    /// Characters (spaces aside) printed concealed (SGR 8): they show as blanks.
    pub(in crate::session) concealed: u64,
    /// The program erased (or wrote over) rows of text from the middle of the screen before `text` showed
    /// them: how many, the texts of the first and the last, and a problem between.
    pub(in crate::session) erased: Option<ErasedLines>,
    /// The rows of the screen the text shows with highlighted text on them (reverse video, a
    /// background colour of its own), which the text cannot mark: a menu's selected item, a
    /// search match. Not from the span's notes: the screen's state as the result is rendered.
    pub(in crate::session) highlighted: Vec<HighlightedRow>,
}

impl OutputNotes {
    /// The notes of `notes` that `text` (the text shown) leaves standing.
    pub(in crate::session) fn of(notes: &SpanNotes, text: &str) -> Self {
        Self {
            undecodable: notes.undecodable && !crate::screen::shows_suppressed_run(text),
            unended_string: notes.unended_string.clone(),
            line_drawn_text: notes.line_drawn_text.clone(),
            mixed_row: notes.mixed_row.clone(),
            cut_at_edge: notes.cut_at_edge,
            invisible: notes.invisible,
            concealed: notes.concealed,
            // A row redrawn with the same text or more (a REPL's line editor), or rewritten
            // in place with a newer version (a progress display: the same text before its
            // figures), lost nothing.
            erased: notes.erased.as_ref().and_then(|e| e.not_redrawn(text)),
            highlighted: Vec::new(),
        }
    }

    /// The notices, in the order a result gives them.
    pub(in crate::session) fn notices(&self) -> Vec<String> {
        [
            self.undecodable.then(|| UNDECODABLE_NOTICE.to_owned()),
            self.unended_string
                .as_ref()
                .map(|(string, count)| unended_string_notice(string, *count)),
            self.line_drawn_text
                .as_ref()
                .map(|(text, count)| line_drawn_text_notice(text, *count)),
            self.mixed_row
                .as_ref()
                .map(|(row, rows)| mixed_row_notice(row, *rows)),
            self.cut_at_edge.then(|| CUT_AT_EDGE_NOTICE.to_owned()),
            self.invisible.map(|(c, count)| invisible_notice(c, count)),
            (self.concealed > 0).then(|| concealed_notice(self.concealed)),
            self.erased.as_ref().map(erased_notice),
            (!self.highlighted.is_empty()).then(|| highlighted_notice(&self.highlighted)),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// `; N more <what>` for the `count - 1` cases a notice quoting the first of `count` leaves
/// unquoted (`one` and `many`: the words after the number); empty for one case.
fn more_like_it(count: u64, one: &str, many: &str) -> String {
    match count.saturating_sub(1) {
        0 => String::new(),
        1 => format!("; 1 more {one}"),
        n => format!("; {n} more {many}"),
    }
}

/// The notice for [`OutputNotes::unended_string`]: the first `string` a line end cut off,
/// quoting its body, and how many were (`count`).
fn unended_string_notice(string: &crate::screen::notes::UnendedString, count: u64) -> String {
    let kind = match string.introducer {
        b']' => "`ESC ]`, an OSC",
        b'P' => "`ESC P`, a DCS",
        b'X' => "`ESC X`, an SOS",
        b'^' => "`ESC ^`, a PM",
        _ => "`ESC _`, an APC",
    };
    let more = more_like_it(
        count,
        "such string was cut off as well",
        "such strings were cut off as well",
    );
    format!(
        "[screen: the output began an escape string ({kind}) and did not end it before its \
         line did: as on a terminal, nothing of the string shows, so the text it took in up to \
         the line's end is missing from the output: {}{more}]",
        super::quoted_line(&String::from_utf8_lossy(&string.body))
    )
}

/// The notice for [`OutputNotes::line_drawn_text`]: the first line of `text` printed in DEC
/// line drawing, and how many were (`count`).
fn line_drawn_text_notice(text: &str, count: u64) -> String {
    let more = more_like_it(
        count,
        "line came out so as well",
        "lines came out so as well",
    );
    format!(
        "[screen: the output switched the terminal to its line-drawing character set (`ESC ( \
         0`) and printed text in it: as on a terminal, its letters show as box parts and \
         symbols; the first such line was printed as {}{more}. `ESC ( B` (`printf '\\e(B'`, or \
         `tput sgr0`) switches back; the prompt does so by itself]",
        super::quoted_line(text)
    )
}

/// The notice for [`OutputNotes::mixed_row`]: the first such `row`, and how many such rows
/// there were (`rows`).
fn mixed_row_notice(row: &str, rows: u64) -> String {
    let more = more_like_it(rows, "row like it", "rows like it");
    format!(
        "[screen: texts were written on one row, each over the one before, after \
         carriage returns (`\\r` with no `\\n`: a file with CR line ends, or a status line \
         redrawn shorter without an erase), and the row shows the newest with the end of a \
         longer, earlier one after it, which may read as a line no program wrote: {}; the \
         texts written over show nowhere{more}. `cat -v` shows the carriage returns as ^M, and \
         `tr '\\r' '\\n' < FILE` each text on its own line]",
        super::quoted_line(row)
    )
}

/// The notice for [`OutputNotes::concealed`]: `count` characters printed concealed.
fn concealed_notice(count: u64) -> String {
    let which = if count == 1 {
        "1 character".to_owned()
    } else {
        format!("{count} characters")
    };
    format!(
        "[screen: the output printed {which} concealed (the hidden attribute, SGR 8 `ESC [ 8 \
         m`): a terminal shows them as blanks, and so does this text; the command piped \
         through cat -v shows them, with the escape sequences. The shell's prompt turns the \
         attribute off]"
    )
}

/// Most rows [`highlighted_notice`] quotes.
const HIGHLIGHTED_ROWS: usize = 4;
/// Most highlighted runs of one row [`highlighted_notice`] quotes.
const HIGHLIGHTED_RUNS: usize = 3;
/// Most characters [`highlighted_notice`] quotes of a highlighted run.
const HIGHLIGHTED_RUN_CHARS: usize = 40;
/// Most characters [`highlighted_notice`] quotes of the row a run is part of.
const HIGHLIGHTED_ROW_CHARS: usize = 80;

/// `text` quoted, cut after `chars` characters.
fn quoted_cut(text: &str, chars: usize) -> String {
    let mut quoted: String = text.chars().take(chars).collect();
    if quoted.len() < text.len() {
        quoted.push('…');
    }
    format!("{quoted:?}")
}

/// The notice for [`OutputNotes::highlighted`]: the first [`HIGHLIGHTED_ROWS`] rows, each with
/// its first [`HIGHLIGHTED_RUNS`] runs and, when they are not all of it, the row's text.
fn highlighted_notice(rows: &[HighlightedRow]) -> String {
    let quoted: Vec<String> = rows
        .iter()
        .take(HIGHLIGHTED_ROWS)
        .map(|row| {
            let mut runs = row
                .runs
                .iter()
                .take(HIGHLIGHTED_RUNS)
                .map(|run| quoted_cut(run, HIGHLIGHTED_RUN_CHARS))
                .collect::<Vec<_>>()
                .join(", ");
            if row.runs.len() > HIGHLIGHTED_RUNS {
                let more = row.runs.len() - HIGHLIGHTED_RUNS;
                runs.push_str(&format!(" and {more} more"));
            }
            let whole =
                row.runs.len() == 1 && row.runs.first().is_some_and(|run| *run == row.text.trim());
            let around = if whole {
                String::new()
            } else {
                format!(" in {}", quoted_cut(row.text.trim(), HIGHLIGHTED_ROW_CHARS))
            };
            format!("row {} {runs}{around}", u32::from(row.row) + 1)
        })
        .collect();
    let more = match rows.len().saturating_sub(HIGHLIGHTED_ROWS) {
        0 => String::new(),
        1 => "; 1 more row".to_owned(),
        n => format!("; {n} more rows"),
    };
    format!(
        "[screen: text shown highlighted (reverse video, or a background colour apart from \
         what surrounds it: a menu's selected item, the focused button, a search match, a \
         selection, a status line), which this text cannot mark: {}{more} (rows count from 1 \
         at the top of the terminal's screen)]",
        quoted.join("; ")
    )
}

/// The notice for [`OutputNotes::invisible`]: `count` invisible characters, the first `c`.
fn invisible_notice(c: char, count: u64) -> String {
    let name = crate::screen::invisible::invisible_name(c);
    let which = if count == 1 {
        format!("1 invisible character ({name}, U+{:04X})", u32::from(c))
    } else {
        format!(
            "{count} invisible characters (the first {name}, U+{:04X})",
            u32::from(c)
        )
    };
    format!(
        "[screen: the output holds {which}: a terminal shows nothing for them, and this text \
         leaves out those that start a line, so a line may differ from what the program \
         printed (a byte-order mark before a script's #! makes it fail to run); od -c FILE or \
         cat -A FILE shows them]"
    )
}

/// The notice for [`OutputNotes::undecodable`].
const UNDECODABLE_NOTICE: &str = "[encoding: some output was not UTF-8 and shows as \
     \u{FFFD}: a program writing Latin-1 or another 8-bit encoding reads right through iconv \
     (cmd | iconv -f latin1 -t utf-8, or its own encoding), and od -c or xxd shows the bytes]";

/// The notice for [`OutputNotes::cut_at_edge`].
const CUT_AT_EDGE_NOTICE: &str = "[screen: the program turned auto-wrap off \
     (ESC [ ? 7 l), so lines wider than the terminal were cut at its right edge, each ending in \
     the last character printed there, as a terminal shows them: the rest is not on screen; \
     write the output to a file and read that to see it whole (the shell's prompt turns \
     auto-wrap on again)]";

/// The notice for [`OutputNotes::erased`]: how many rows, the first, the last and a problem
/// line between them.
fn erased_notice(lines: &crate::screen::clears::ErasedLines) -> String {
    let (rows, first, last) = (lines.rows, &lines.first, &lines.last);
    let (what, them, mut which, they) = if rows == 1 {
        (
            "a line it printed".to_owned(),
            "it",
            format!("it was `{last}`"),
            "it is",
        )
    } else if first == last {
        (
            format!("{rows} lines it printed"),
            "them",
            format!("the last was `{last}`"),
            "they are",
        )
    } else {
        (
            format!("{rows} lines it printed"),
            "them",
            format!("the first was `{first}`, the last `{last}`"),
            "they are",
        )
    };
    if let Some(problem) = &lines.problem {
        which.push_str(&format!(", and among them `{problem}`"));
    }
    // Rows a display redrew in place are left out of the count and the names.
    let what = match lines.frames {
        0 => what,
        1 => format!("{what} (besides 1 row of a display it redrew in place)"),
        n => format!("{what} (besides {n} rows of a display it redrew in place)"),
    };
    format!(
        "[screen: the program erased or wrote over {what} before this result showed {them} (as a progress \
         display does when it redraws, or a status line written over an error): {which}; \
         {they} not in scrollback either: run it again with its output to a file (cmd > log \
         2>&1) to see every line]"
    )
}
