//! Rows a running command erased before a result showed them: which are lost lines the
//! result names, and which the reader saw or never were lines of the output.

use pretty_assertions::assert_eq;

use super::*;

/// A line editor's grey preview below its line (node's), erased as the line is cleared
/// (Ctrl-U): no text the program printed was lost.
#[test]
fn an_erased_suggestion_is_no_lost_line() {
    let mut s = screen();
    s.feed(&mark("C"));
    s.feed(b"> ");
    // Each send's span starts at the cursor: what is before it was shown.
    s.set_erased_floor(super::super::Position { row: 0, col: 2 });
    s.feed(b"Math.ma\x1b[90mx\x1b[39m\x1b[10G\r\n\x1b[90m[Function: max]\x1b[39m\x1b[10G\x1b[1A");
    s.take_span_notes();
    s.set_erased_floor(super::super::Position { row: 0, col: 9 });
    s.feed(b"\x1b[1B\x1b[2K\x1b[1A\x1b[0K\x1b[1G\x1b[0J> \x1b[3G");
    let notes = s.take_span_notes();
    assert!(notes.erased.is_none(), "{:?}", notes.erased);
}

/// A status line a result showed, erased and drawn again below the line that took its place,
/// then erased again before the next result (a build's `Building...` under each finished
/// step): the reader saw its text, so no line was lost (the notice told the model to run the
/// build again to see it).
#[test]
fn a_status_line_shown_then_redrawn_and_erased_is_no_lost_line() {
    let mut s = screen();
    s.feed(&mark("C"));
    s.feed(b"Building...\r\n");
    s.take_span_notes();
    // The next result's span starts where this one ended.
    s.set_erased_floor(super::super::Position { row: 1, col: 0 });
    s.feed(b"\x1b[1A\x1b[2KStep 1 ok\r\nBuilding...\r\n");
    s.feed(b"\x1b[1A\x1b[2KStep 2 ok\r\n");
    let notes = s.take_span_notes();
    let lost = notes
        .erased
        .as_ref()
        .and_then(|e| e.not_redrawn("Step 1 ok\nStep 2 ok\n"));
    assert_eq!(lost, None);
    // A line the reader never saw, erased once, is still named.
    s.set_erased_floor(super::super::Position { row: 2, col: 0 });
    s.feed(b"error: disk full\r\n\x1b[1A\x1b[2Kdone\r\n");
    let notes = s.take_span_notes();
    let lost = notes
        .erased
        .as_ref()
        .and_then(|e| e.not_redrawn("done\n"))
        .map(|lines| lines.first);
    assert_eq!(lost.as_deref(), Some("error: disk full"));
}
