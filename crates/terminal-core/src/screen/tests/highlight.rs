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

#[test]
fn on_the_alternate_screen_the_whole_screen_counts() {
    let mut s = plain_screen();
    s.feed(b"dsh> ");
    let a = s.anchor();
    s.feed(b"whiptail\r\n\x1b[?1049h\x1b[H\x1b[2J\x1b[3;3H\x1b[7m<Ok>\x1b[m  <Cancel>");
    assert_eq!(highlighted(&mut s, a), [(2, vec!["<Ok>".to_owned()])]);
    s.release_anchor(a);
}
