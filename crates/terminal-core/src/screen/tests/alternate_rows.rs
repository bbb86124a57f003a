//! The alternate screen renders one line per screen row: a row whose text once went past its
//! edge is never joined with the row below it, whatever the program draws there later.

use pretty_assertions::assert_eq;

use super::*;

/// vim's draw of a 25-character line on a screen 10 wide: each row ends by writing the next
/// row's first character (the terminal marks the row wrapped), then the next row is drawn
/// from its start; `~` rows below it, the cursor position on the last row, the cursor home.
const VIM_LONG_LINE: &[u8] = b"\x1b[?1049h\x1b[H\x1b[2J\x1b[1;1HLLLLLLLLLLL\x1b[2;1HLLLLLLLLLLL\
\x1b[3;1HLLLLL\x1b[3;6H\x1b[K\x1b[4;1H~         \x1b[5;1H~         \x1b[6;1H1,1\x1b[1;1H";

/// The rows the line wrapped onto come back as the screen shows them, and after `:set
/// nowrap` (vim redraws the rows below the first with `~` by moving the cursor, and erases
/// nothing that reaches the first row's last cell) the first row is not joined with the `~`
/// now under it, nor that `~` row with the next.
#[test]
fn rows_vim_wrapped_and_redrew_apart_are_lines_of_their_own() {
    let mut s = Screen::new(config(6, 10), None);
    s.feed(b"$ vim long.txt\r\n");
    let a = s.anchor();
    s.feed(VIM_LONG_LINE);
    assert_eq!(
        s.render_since(a, 1000).text,
        "LLLLLLLLLL\nLLLLLLLLLL\nLLLLL\n~\n~\n1,1"
    );
    s.feed(b"\x1b[2;1H~         \x1b[3;1H~         \x1b[6;1H:set\x1b[K\x1b[1;1H");
    assert_eq!(s.render_since(a, 1000).text, "LLLLLLLLLL\n~\n~\n~\n~\n:set");
    // `$`: the view scrolled sideways, the first row erased past its new text.
    s.feed(b"\x1b[6;1H1,25\x1b[K\x1b[1;1HLLLLL\x1b[K\x1b[1;5H");
    assert_eq!(s.render_since(a, 1000).text, "LLLLL\n~\n~\n~\n~\n1,25");
}

/// Windows split side by side over rows that were one wrapped line: each row is its two
/// panes, not the left pane's row run on into the next row's.
#[test]
fn a_split_over_wrapped_rows_keeps_each_row_apart() {
    let mut s = Screen::new(config(6, 10), None);
    s.feed(b"$ vim long.txt\r\n");
    let a = s.anchor();
    s.feed(VIM_LONG_LINE);
    s.feed(
        b"\x1b[1;1HLLLL|LLLLL\x1b[2;1Hab  |ab   \x1b[3;1H~   |~    \
\x1b[4;1H~   |~    \x1b[5;1H~   |~    \x1b[6;1H:vsplit\x1b[K\x1b[1;1H",
    );
    assert_eq!(
        s.render_since(a, 1000).text,
        "LLLL|LLLLL\nab  |ab\n~   |~\n~   |~\n~   |~\n:vsplit"
    );
}

/// A pager's text printed through the right edge comes back as the rows it fills; back on
/// the main screen, shell output wrapped at the edge is one line again.
#[test]
fn text_through_the_edge_of_the_alternate_screen_comes_back_as_its_rows() {
    let mut s = Screen::new(config(6, 10), None);
    s.feed(b"$ less f\r\n");
    let a = s.anchor();
    s.feed(b"\x1b[?1049h\x1b[H\x1b[2Jabcdefghijklmnopqrstuvwxyz\r\n(END)");
    assert_eq!(
        s.render_since(a, 1000).text,
        "abcdefghij\nklmnopqrst\nuvwxyz\n(END)"
    );
    s.feed(b"\x1b[?1049l");
    let b = s.anchor();
    s.feed(b"$ echo\r\nabcdefghijklmnopqrstuvwxyz\r\n$ ");
    assert_eq!(
        s.render_since(b, 1000).text,
        "$ echo\nabcdefghijklmnopqrstuvwxyz\n$ "
    );
}
