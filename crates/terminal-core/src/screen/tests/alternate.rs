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
    assert_eq!(s.render_since(a, 100).text, "page");
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
