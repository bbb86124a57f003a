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

/// Grey text after the cursor is a line editor's suggestion only after keys typed at its
/// prompt (IPython's, node's, fish's, zsh-autosuggestions': Enter leaves it out). With nothing
/// typed on the line it is the default the program's own prompt shows (`read` after a grey
/// `printf`, node's `prompts` as create-vite draws it), which Enter takes: it is shown.
#[test]
fn grey_text_after_the_cursor_is_left_out_only_after_typed_keys() {
    use super::super::Position;
    let text = |bytes: &[u8], from: Position| {
        let mut s = plain_screen();
        s.feed(bytes);
        s.snapshot_from(from, 100_000).render(100_000).text
    };
    // A command's prompts with a grey default, the cursor moved back onto it.
    let port = text(
        b"dsh> cmd\r\nPort: \x1b[90m8080\x1b[0m\x1b[4D",
        Position { row: 0, col: 5 },
    );
    assert_eq!(port, "cmd\nPort: 8080");
    let vite = text(
        "dsh> npm create vite\r\n\x1b[36m?\x1b[39m \x1b[1mProject name:\x1b[22m \x1b[90m›\x1b[39m \x1b[90mvite-project\x1b[39m\x1b[12D"
            .as_bytes(),
        Position { row: 0, col: 5 },
    );
    assert_eq!(vite, "npm create vite\n? Project name: › vite-project");
    // Keys typed at a REPL's prompt, its suggestions after them and below them.
    let ipython = text(
        b"In [2]: print(1\x1b[0;38;5;241m2345)\x1b[5D",
        Position { row: 0, col: 8 },
    );
    assert_eq!(ipython, "print(1");
    let node = text(
        b"> Math.ma\x1b[90mx\x1b[39m\r\n\x1b[90m[Function: max]\x1b[39m\x1b[10G\x1b[1A",
        Position { row: 0, col: 2 },
    );
    assert_eq!(node, "Math.ma");
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

/// A REPL's line editor redrawing its input line is no lost line: jline (jshell's) re-indents
/// a closing brace as it is typed (up to its row, erase after the continuation prompt, the
/// brace written back further left), and a redraw of whole rows may change their indent too.
/// A line erased from its middle and written over with other words still is one.
#[test]
fn a_line_editors_redraw_of_its_input_line_is_no_lost_line() {
    use super::super::Position;
    let lost = |bytes: &[u8]| {
        let mut s = screen();
        s.feed(&mark("C"));
        s.feed(b"jshell> ");
        let start = Position { row: 0, col: 8 };
        s.set_erased_floor(start);
        s.feed(bytes);
        let rendered = s.snapshot_from(start, 100_000).render(100_000).text;
        let notes = s.take_span_notes();
        notes
            .erased
            .as_ref()
            .and_then(|e| e.not_redrawn(&rendered))
            .map(|lines| lines.first)
    };
    // jshell's echo of `int sq(int x) {`, `    return x * x;`, `}`, `sq(7)`.
    let jline = b"int sq(int x)\x1b[7D\x1b[7C {\r\r\n   ...>         return x * x;\r\r\n   ...>     }\x1b[2A\x1b[9C\r\r\n\r\n\x1b[8C\x1b[K}\r\r\n\x1b[?1l\x1b>\x1b[?2004l\x1b[?1h\x1b=\x1b[?2004hjshell> sq(7)\r\r\n\x1b[?1l\x1b>\x1b[?2004l$2 ==> 49\r\n\x1b[?1h\x1b=\x1b[?2004hjshell> ";
    assert_eq!(lost(jline), None);
    // Text typed after the redraw (`};`) makes the line longer, not another.
    assert_eq!(
        lost(b"int[] a = {\r\r\n   ...>     }\x1b[1A\r\r\n\x1b[8C\x1b[K};\r\r\njshell> "),
        None
    );
    // Whole rows erased below and written back with another indent.
    assert_eq!(
        lost(b"\r\nIn: {\r\n   ...>     }\x1b[1A\r\x1b[JIn: {\r\n   ...> }\r\njshell> "),
        None
    );
    // Erased from the middle of a row and written over with other words: named.
    assert_eq!(
        lost(b"\r\nstatus: ERROR linking\r\n\x1b[1A\x1b[8C\x1b[Kok\r\n"),
        Some("ERROR linking".to_owned())
    );
}

/// Blank rows an erase of the whole screen left above the cursor (`ESC [ 2 J` alone), which
/// the output after it scrolled into history, stay no lines of the output when a later clear
/// comes (field case: `seq 1 50; printf '\e[2J'; seq 1001 1050; clear; echo end` on a 40-row
/// screen showed 39 empty lines between `50` and `1001`; without the `clear`, none).
#[test]
fn blank_rows_of_an_earlier_erase_stay_no_lines_after_a_later_clear() {
    let mut s = Screen::new(config(10, 40), None);
    s.feed(b"$ ");
    let a = s.anchor();
    let mut out = b"run\r\n".to_vec();
    let mut want = "run\n".to_owned();
    for i in (1..=20).chain(1001..=1020) {
        if i == 1001 {
            out.extend_from_slice(b"\x1b[2J");
        }
        out.extend_from_slice(format!("{i}\r\n").as_bytes());
        want.push_str(&i.to_string());
        want.push('\n');
    }
    out.extend_from_slice(b"\x1b[H\x1b[2J\x1b[3Jend\r\n$ ");
    want.push_str("end\n$ ");
    s.feed(&out);
    assert_eq!(s.render_since(a, 100_000).text, want);
}
