//! Highlighted text a result's notice quotes ([`super::super::highlight`]): the rows a render
//! from an anchor shows, without our shell's prompt.

use pretty_assertions::assert_eq;

use super::*;

/// The rows and runs `s` finds highlighted since `anchor`.
fn highlighted(s: &mut Screen, anchor: AnchorId) -> Vec<(u16, Vec<String>)> {
    s.highlighted_since(anchor)
        .into_iter()
        .map(|row| (row.row, row.runs))
        .collect()
}

#[test]
fn a_result_quotes_the_highlighted_text_after_its_anchor_not_our_prompt() {
    let mut s = screen();
    // A prompt in reverse video before the anchor, and one that comes back after the output.
    let prompt = |s: &mut Screen| {
        s.feed(&mark("A"));
        s.feed(b"\x1b[7muser@host\x1b[m $ ");
        s.feed(&mark("B"));
    };
    prompt(&mut s);
    let a = s.anchor();
    s.feed(b"python3 menu.py\r\n");
    s.feed(&mark("C"));
    s.feed(b"Choose:\r\n  Install\r\n  \x1b[7mRemove\x1b[m\r\n");
    let menu = vec![(3, vec!["Remove".to_owned()])];
    assert_eq!(highlighted(&mut s, a), menu);
    s.feed(&mark("D;0"));
    prompt(&mut s);
    assert_eq!(highlighted(&mut s, a), menu);
    s.release_anchor(a);
    // A send at the prompt that printed nothing highlighted: nothing, the prompt included.
    let b = s.anchor();
    s.feed(b"true\r\n");
    s.feed(&mark("C"));
    s.feed(&mark("D;0"));
    prompt(&mut s);
    assert!(highlighted(&mut s, b).is_empty());
    s.release_anchor(b);
}

/// On the main screen only reverse video is a highlight: a background colour there marks a
/// kind of output (`ls`'s directories, a red ` ERROR ` label, a ` PASS ` badge), and the
/// notice called those a menu's selected item; on the alternate screen it counts.
#[test]
fn on_the_main_screen_a_background_colour_is_no_highlight() {
    let mut s = plain_screen();
    s.feed(b"dsh> ");
    let a = s.anchor();
    s.feed(b"make test\r\n\x1b[41m ERROR \x1b[m build failed\r\n\x1b[42mshared\x1b[m  src\r\n");
    assert!(highlighted(&mut s, a).is_empty());
    s.feed(b"pick: \x1b[7mtwo\x1b[m\r\n");
    assert_eq!(highlighted(&mut s, a), [(3, vec!["two".to_owned()])]);
    s.feed(b"\x1b[?1049h\x1b[H\x1b[2J\x1b[2;1Hone\r\n\x1b[44mtwo\x1b[m\r\nthree");
    assert_eq!(highlighted(&mut s, a), [(2, vec!["two".to_owned()])]);
    s.release_anchor(a);
}

#[test]
fn on_the_alternate_screen_the_whole_screen_counts() {
    let mut s = plain_screen();
    s.feed(b"dsh> ");
    let a = s.anchor();
    s.feed(b"whiptail\r\n\x1b[?1049h\x1b[H\x1b[2J\x1b[3;3H\x1b[7m<Ok>\x1b[m  <Cancel>");
    assert_eq!(highlighted(&mut s, a), [(2, vec!["<Ok>".to_owned()])]);
    s.release_anchor(a);
}

#[test]
fn a_curses_menu_on_black_names_only_its_selected_item() {
    // Python's curses on its colour pair (white on black), as it draws a menu of four items
    // on the top rows and redraws it after `j`: the first row goes back to black.
    let mut s = plain_screen();
    s.feed(b"dsh> ");
    let a = s.anchor();
    s.feed(b"python3 menu.py\r\n\x1b[?1049h\x1b[1;24r\x1b(B\x1b[m\x1b[37m\x1b[40m\x1b[H\x1b[2J");
    s.feed(b"\x1b(B\x1b[0;7m\x1b[39;49m\x1b[37m\x1b[40mapple\r\x1b[2d\x1b(B\x1b[m\x1b[39;49m");
    s.feed(b"\x1b[37m\x1b[40mbanana\r\x1b[3dcherry\r\x1b[4ddate");
    assert_eq!(highlighted(&mut s, a), [(0, vec!["apple".to_owned()])]);
    s.feed(b"\x1b[Happle\r\x1b[2d\x1b(B\x1b[0;7m\x1b[39;49m\x1b[37m\x1b[40mbanana\x1b[4d\x08\x08");
    assert_eq!(highlighted(&mut s, a), [(1, vec!["banana".to_owned()])]);
    s.release_anchor(a);
}
