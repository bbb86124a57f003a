//! What the screen notes over a send's span for its result to say ([`SpanNotes`]), taken
//! together at the span's end (and dropped at its start, as the output before it is not the
//! send's): bytes that are not UTF-8, strings a line end cut off (see
//! `scan::Step::StringAborted`: a program that began an OSC or a DCS, SOS, PM or APC string
//! and never ended it hides the text after it, as on a terminal, up to the line's end), text
//! printed in DEC line drawing, rows mixing texts written over one another, lines cut at the
//! right edge, and lines erased before a result showed them.

use super::Screen;
use super::clears::Erased;
pub(crate) use super::scan::UnendedString;

/// What [`Screen::take_span_notes`] takes; each part is documented at its own take.
#[derive(Debug, Default)]
pub(crate) struct SpanNotes {
    /// See [`Screen::take_undecodable`].
    pub(crate) undecodable: bool,
    /// The first string a line end (or another sequence) cut off, and how many were;
    /// strings with nothing but blanks in their body are not counted (nothing was hidden).
    pub(crate) unended_string: Option<(UnendedString, u64)>,
    /// See [`Screen::take_line_drawn_text`].
    pub(crate) line_drawn_text: Option<(String, u64)>,
    /// See [`Screen::take_mixed_row`].
    pub(crate) mixed_row: Option<(String, u64)>,
    /// See [`Screen::take_cut_at_edge`].
    pub(crate) cut_at_edge: bool,
    /// See [`Screen::take_erased`].
    pub(crate) erased: Option<Erased>,
    /// See [`Screen::take_invisible`].
    pub(crate) invisible: Option<(char, u64)>,
    /// See [`Screen::take_concealed`].
    pub(crate) concealed: u64,
}

impl SpanNotes {
    /// Adds `later`, noted after these (a send's reads took notes before its end): flags
    /// or-ed, counts added, the first quoted kept, the erased rows `later`'s (only the span's
    /// end takes them).
    pub(crate) fn absorb(&mut self, later: SpanNotes) {
        /// The first of two quoted notes, with both counts.
        fn first<T>(a: Option<(T, u64)>, b: Option<(T, u64)>) -> Option<(T, u64)> {
            match (a, b) {
                (Some((quoted, n)), Some((_, m))) => Some((quoted, n + m)),
                (a, b) => a.or(b),
            }
        }
        self.undecodable |= later.undecodable;
        self.unended_string = first(self.unended_string.take(), later.unended_string);
        self.line_drawn_text = first(self.line_drawn_text.take(), later.line_drawn_text);
        self.mixed_row = first(self.mixed_row.take(), later.mixed_row);
        self.cut_at_edge |= later.cut_at_edge;
        if later.erased.is_some() {
            self.erased = later.erased;
        }
        self.invisible = first(self.invisible.take(), later.invisible);
        self.concealed += later.concealed;
    }
}

impl Screen {
    /// What the screen noted for a read of a send still running (a background job's): as
    /// [`Screen::take_span_notes`], but the erased rows stay for the span's end, which needs
    /// them all to tell a display redrawn in place from lines lost.
    pub(crate) fn take_read_notes(&mut self) -> SpanNotes {
        SpanNotes {
            undecodable: self.take_undecodable(),
            unended_string: self.scanner.take_unended(),
            line_drawn_text: self.take_line_drawn_text(),
            mixed_row: self.take_mixed_row(),
            cut_at_edge: self.take_cut_at_edge(),
            erased: None,
            invisible: self.take_invisible(),
            concealed: self.take_concealed(),
        }
    }

    /// Everything the screen noted for a result since the last call; clears it.
    pub(crate) fn take_span_notes(&mut self) -> SpanNotes {
        // The erased rows last, once the rows written over are noted (`take_mixed_row`).
        let mut notes = self.take_read_notes();
        notes.erased = self.take_erased();
        notes
    }
}
