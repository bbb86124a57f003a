//! The alternate screen: rendered as a snapshot, and anchors made on it start at the main
//! screen's cursor when that returns.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn alternate_screen_renders_visible_screen() {
    let mut s = screen();
    s.feed(b"main line\r\n");
    let a = s.anchor();
    let out = s.feed(b"\x1b[?1049h\x1b[H\x1b[2JALT TITLE\r\n  body");
    assert!(out.events.contains(&ScreenEvent::AlternateScreen(true)));
    assert!(s.alternate_screen());
    assert_eq!(s.render_since(a, 1000).text, "ALT TITLE\n  body");
    let out = s.feed(b"\x1b[?1049lDONE\r\n");
    assert!(out.events.contains(&ScreenEvent::AlternateScreen(false)));
    assert_eq!(s.render_since(a, 1000).text, "DONE\n");
    assert_eq!(s.transcript(), "main line\nDONE\n");
}

#[test]
fn anchor_created_on_alternate_screen_starts_when_main_returns() {
    let mut s = screen();
    s.feed(b"dsh> less f\r\n\x1b[?1049hpage");
    let a = s.anchor();
    // Mode 1049 clears the alternate screen and leaves the cursor on its row.
    assert_eq!(s.render_since(a, 100).text, "\npage");
    s.feed(b"\x1b[?1049ldsh> ");
    assert_eq!(s.render_since(a, 100).text, "dsh> ");
}

/// An anchor made on the alternate screen starts at the main screen's cursor when it returns;
/// a line the program before it left unfinished there and rewrites shows whole (git's editor
/// hint replaced by the commit summary once the editor exits).
#[test]
fn a_row_rewritten_after_the_alternate_screen_is_shown_whole() {
    let mut s = screen();
    s.feed(b"$ git commit\r\nhint: Waiting for your editor to close the file... \x1b[?1049h~\r\n~");
    let a = s.anchor();
    s.feed(b"\x1b[?1049l\r\x1b[K[master 050e51b] Add the greeting file\r\n 1 file changed\r\n$ ");
    assert_eq!(
        s.render_since(a, 100_000).text,
        "[master 050e51b] Add the greeting file\n 1 file changed\n$ "
    );
    // Text only appended after the unfinished line: only the new text.
    let mut s = screen();
    s.feed(b"$ x\r\nAAAA\x1b[?1049hfull");
    let a = s.anchor();
    s.feed(b"\x1b[?1049lBB\r\n$ ");
    assert_eq!(s.render_since(a, 100_000).text, "BB\n$ ");
}

/// The rows of the screen a program is on, and its cursor (row, column).
fn shown_with_cursor(bytes: &str) -> (bool, String, (u16, u16)) {
    let mut s = Screen::new(config(8, 20), None);
    s.feed(bytes.as_bytes());
    let screen = s.parser.screen();
    let rows: Vec<String> = screen.rows(0, 20).collect();
    let text = rows.join("\n").trim_end().to_owned();
    (s.alternate_screen(), text, screen.cursor_position())
}

/// xterm has one cursor for both screens: modes 47 and 1047 switch screens and leave it where
/// it is, so the alternate screen starts at the main screen's cursor and the main screen goes
/// on where the alternate screen left it. Only mode 1049 (and 1048) saves and restores it;
/// 1049 leaves it in place when it switches too. Every mode of one DECSET or DECRST counts,
/// wherever it stands among the others.
#[test]
fn entering_the_alternate_screen_keeps_the_cursor_where_it_is() {
    for enter in [
        "\x1b[?47h",
        "\x1b[?1047h",
        "\x1b[?25;47h",
        "\x1b[?1;25;1047h",
        "\x1b[?1049h",
    ] {
        let (alternate, text, cursor) = shown_with_cursor(&format!("one\r\ntwo{enter}X"));
        assert!(alternate, "{enter:?}");
        assert_eq!((text.as_str(), cursor), ("\n   X", (1, 4)), "{enter:?}");
    }
}

/// See [`entering_the_alternate_screen_keeps_the_cursor_where_it_is`].
#[test]
fn leaving_by_mode_47_or_1047_keeps_the_cursor_where_it_is() {
    for (enter, leave) in [
        ("\x1b[?47h", "\x1b[?47l"),
        ("\x1b[?1047h", "\x1b[?1047l"),
        ("\x1b[?47h", "\x1b[?25;47l"),
        ("\x1b[?1047h", "\x1b[?25;1047l"),
        ("\x1b[?1047h", "\x1b[?1047;25l"),
        ("\x1b[?1047h", "\x1b[?1;25;1047l"),
    ] {
        let bytes = format!("one\r\ntwo{enter}\x1b[5;3Halt{leave}Z");
        let (alternate, text, cursor) = shown_with_cursor(&bytes);
        assert!(!alternate, "{bytes:?}");
        assert_eq!(text, "one\ntwo\n\n\n     Z", "{bytes:?}");
        assert_eq!(cursor, (4, 6), "{bytes:?}");
    }
}

/// Mode 1049 restores the cursor it saved, in any position among the modes.
#[test]
fn leaving_by_mode_1049_restores_the_cursor() {
    for (enter, leave) in [
        ("\x1b[?1049h", "\x1b[?1049l"),
        ("\x1b[?25;1049h", "\x1b[?25;1049l"),
        ("\x1b[?1049;25h", "\x1b[?1049;25l"),
    ] {
        let bytes = format!("one\r\ntwo{enter}\x1b[5;3Halt{leave}Z");
        let (alternate, text, cursor) = shown_with_cursor(&bytes);
        assert!(!alternate, "{bytes:?}");
        assert_eq!((text.as_str(), cursor), ("one\ntwoZ", (1, 4)), "{bytes:?}");
    }
}

/// A look at a full-screen program's screen that shows it to no one (a background job's
/// progress report) does not count it as shown: the job's next read hands it out (it took the
/// screen as handed out already, and never showed it). A render does count it.
#[test]
fn a_peek_at_the_alternate_screen_does_not_count_as_showing_it() {
    let mut s = plain_screen();
    s.feed(b"$ less f\r\n");
    let anchor = s.anchor();
    s.feed(b"\x1b[?1049hone\r\ntwo\r\n(END)");
    s.peek_since(anchor, 1024);
    assert!(!s.alternate_unchanged_since_shown());
    s.snapshot_since(anchor, 1024);
    assert!(s.alternate_unchanged_since_shown());
}

/// A page read while a full-screen program is up: the newest history row, the middle of a
/// line that goes on on the main screen the program covers, is not joined to the program's
/// first row (a 10,000-character line before `vim` made its `one` row 4,000 `A`s long).
#[test]
fn a_page_does_not_join_a_line_wrapped_under_the_alternate_screen_to_its_first_row() {
    let mut s = Screen::new(config(4, 10), None);
    s.feed(b"$ x\r\n");
    s.feed(&[b'A'; 75]);
    s.feed(b"\r\n$ vim\r\n\x1b[?1049h\x1b[H\x1b[2Jone\r\ntwo\r\n~\r\n~");
    let page = s
        .page(None, Some(6), 100_000)
        .unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = page.text.split('\n').collect();
    assert_eq!(
        lines[lines.len() - 4..],
        ["one", "two", "~", "~"],
        "{page:?}"
    );
    assert!(
        lines[..lines.len() - 4].iter().all(|l| !l.contains("one")),
        "{page:?}"
    );
}
