//! Sequences vt100 ignores, carried out as a terminal does (xterm, tmux).

use pretty_assertions::assert_eq;

use super::*;

fn transcript_of(rows: u16, bytes: &[u8]) -> String {
    let mut s = Screen::new(config(rows, 20), None);
    s.feed(bytes);
    s.transcript().trim_end().to_owned()
}

/// `CSI s` / `CSI u` save and restore the cursor, parameters or not, and `ESC D` / `ESC E`
/// move down a row (vt100 ignores them; they are given to it as `ESC 7` / `ESC 8`, `\n`,
/// `\r\n`).
#[test]
fn cursor_save_restore_and_index_are_carried_out() {
    for (save, restore) in [
        ("\x1b[s", "\x1b[u"),
        ("\x1b[5s", "\x1b[1u"),
        ("\x1b[2;5s", "\x1b[u"),
    ] {
        let bytes = format!("ab{save}\x1b[5;1Hbottom{restore}X\r\n");
        assert_eq!(
            transcript_of(8, bytes.as_bytes()),
            "abX\n\n\n\nbottom",
            "{save:?} {restore:?}"
        );
    }
    assert_eq!(transcript_of(8, b"x\x1bD\x1bDy\x1bEz\r\n"), "x\n\n y\nz");
}

/// With a private marker or an intermediate they are other sequences (a keyboard protocol's
/// `CSI > 1 u`, `CSI SP u`), and with left and right margins enabled `CSI Pl ; Pr s` sets them.
#[test]
fn other_sequences_ending_in_s_or_u_do_not_move_the_cursor() {
    for (save, restore) in [
        ("\x1b[s", "\x1b[>1u"),
        ("\x1b[s", "\x1b[=1;1u"),
        ("\x1b[s", "\x1b[ u"),
        ("\x1b[ s", "\x1b[ u"),
    ] {
        let bytes = format!("ab{save}\x1b[3;1Hc{restore}d\r\n");
        assert_eq!(
            transcript_of(8, bytes.as_bytes()),
            "ab\n\ncd",
            "{save:?} {restore:?}"
        );
    }
    assert_eq!(
        transcript_of(
            8,
            b"\x1b[1;1H\x1b[s\x1b[?69h\x1b[1;10sab\x1b[3;1Hc\x1b[ud\r\n"
        ),
        "db\n\nc",
        "DECSLRM saves nothing: the restore goes to the cursor saved before"
    );
}

/// Modes 1047 (the alternate screen, cleared when left) and 1048 (save and restore the
/// cursor) work as modes 47 and `ESC 7` / `ESC 8` with the clear. Neither screen switch moves
/// the cursor.
#[test]
fn modes_1047_and_1048_are_carried_out() {
    let mut s = Screen::new(config(8, 20), None);
    s.feed(b"main\r\n\x1b[?1047halt text");
    assert!(s.alternate_screen());
    s.feed(b"\x1b[?1047l\x1b[?47h");
    assert!(s.alternate_screen());
    assert_eq!(
        s.parser.screen().contents().trim_end(),
        "",
        "1047 cleared it when left"
    );
    s.feed(b"\x1b[?47lback\r\n");
    assert!(!s.alternate_screen());
    assert_eq!(s.transcript().trim_end(), "main\n        back");
    assert_eq!(
        transcript_of(8, b"ab\x1b[?1048h\x1b[5;1Hbottom\x1b[?1048lX\r\n"),
        "abX\n\n\n\nbottom"
    );
}

/// A program that took the alternate screen and never left it: the prompt gives the main
/// screen back the way it was taken. After mode 47 or 1047 no cursor was saved, so the main
/// screen's cursor stays where it was (restoring one would draw over the top rows).
#[test]
fn the_prompt_leaves_the_alternate_screen_the_way_it_was_taken() {
    let mut shown = Vec::new();
    for enter in ["\x1b[?1049h", "\x1b[?47h", "\x1b[?1047h"] {
        let mut s = screen();
        s.feed(b"old-1\r\nold-2\r\n");
        // A cursor saved long before, as a prompt redraw might.
        s.feed(b"\x1b7dsh> run\r\n");
        s.feed(enter.as_bytes());
        s.feed(b"\x1b[Hin-alt\r\n");
        s.feed(&mark("D;0"));
        s.feed(b"dsh> ");
        assert!(!s.alternate_screen(), "{enter:?}");
        shown.push(s.transcript());
    }
    assert_eq!(shown[0], "old-1\nold-2\ndsh> run\nin-alt\ndsh> ");
    assert_eq!(shown[1], shown[0]);
    assert_eq!(shown[2], shown[0]);
}

/// The program that left the alternate screen on leaves it in a later command, after the
/// prompt gave the main screen back (`printf '\033[?1049l'; echo back`): the cursor stays
/// where the new command line left it, and its output goes below the command line instead of
/// over it (the cursor the program saved is above the prompts since). Once an alternate
/// screen is entered again, its leave restores the cursor as before.
#[test]
fn a_leave_after_the_prompt_gave_the_main_screen_back_restores_no_cursor() {
    let mut s = screen();
    s.feed(b"dsh> enter\r\n\x1b[?1049h\x1b[Hin-alt\r\n");
    s.feed(&mark("D;0"));
    s.feed(b"dsh> leave\r\n\x1b[?1049lback\r\n");
    assert_eq!(
        s.transcript().trim_end(),
        "dsh> enter\nin-alt\ndsh> leave\nback"
    );
    s.feed(b"\x1b[?1049h\x1b[Hagain\x1b[?1049lX\r\n");
    assert_eq!(
        s.transcript().trim_end(),
        "dsh> enter\nin-alt\ndsh> leave\nback\nX"
    );
}

/// `CSI ? 1049 l` with no cursor saved on the main screen restores none (a stray `tput rmcup`,
/// or an alternate screen taken by mode 47 and left by 1049): the cursor stays where it is,
/// as in tmux (a stray one's output goes on below instead of over the top rows). With a saved
/// cursor it is restored, as there.
#[test]
fn leaving_mode_1049_restores_only_a_saved_cursor() {
    for (leave, shown) in [
        ("\x1b[?1049l", "one\ntwo\nafter"),
        ("\x1b[?25;1049l", "one\ntwo\nafter"),
        ("\x1b[?1047h\x1b[?1049l", "one\ntwo\nafter"),
        ("\x1b[?47h\x1b[Halt\x1b[?1049l", "oneafter\ntwo"),
        ("\x1b[?47h\x1b[Halt\x1b[?1049;25l", "oneafter\ntwo"),
    ] {
        let mut s = Screen::new(config(8, 20), None);
        s.feed(format!("one\r\ntwo\r\n{leave}after\r\n").as_bytes());
        assert!(!s.alternate_screen(), "{leave:?}");
        assert_eq!(s.transcript().trim_end(), shown, "{leave:?}");
    }
    for save in ["\x1b7", "\x1b[s", "\x1b[?1048h"] {
        let mut s = Screen::new(config(8, 20), None);
        s.feed(format!("one\r\n{save}two\r\n\x1b[?1049lX\r\n").as_bytes());
        assert_eq!(s.transcript().trim_end(), "one\nXwo", "{save:?}");
    }
}

/// DECSTBM puts the cursor home (the top left corner, not the region's top row), and a
/// reverse index on the top row above a region moves nothing, as in xterm and tmux.
#[test]
fn a_region_set_homes_the_cursor_and_ri_above_it_moves_nothing() {
    assert_eq!(
        transcript_of(8, b"a\r\nb\r\nc\r\nd\x1b[3;6rX\x1b[r\x1b[8;1H"),
        "X\nb\nc\nd"
    );
    assert_eq!(
        transcript_of(
            8,
            b"a\r\nb\r\nc\r\nd\x1b[3;6r\x1b[1;1H\x1bM\x1bMtop\x1b[r\x1b[8;1H"
        ),
        "top\nb\nc\nd"
    );
}

/// An OSC a program never ended (a log cut off inside an OSC 8 hyperlink, a stray title
/// introducer) ends at the next line end: the output after it shows, in one chunk or split
/// across chunks, instead of going into the OSC unseen up to the next ESC.
#[test]
fn an_unterminated_osc_ends_at_a_line_end() {
    for opener in [
        "\x1b]8;;http://example.com/very/long/lin",
        "\x1b]0;title",
        "\x1b]",
    ] {
        let bytes = format!("start{opener}\r\nERROR: disk full\r\nFAILED\r\n");
        assert_eq!(
            transcript_of(8, bytes.as_bytes()),
            "start\nERROR: disk full\nFAILED",
            "{opener:?}"
        );
        let mut s = Screen::new(config(8, 40), None);
        s.feed(format!("start{opener}").as_bytes());
        s.feed(b"\r\nlater chunk\r\n");
        assert_eq!(
            s.transcript().trim_end(),
            "start\nlater chunk",
            "{opener:?}"
        );
    }
    // A terminated string on one line is unchanged: nothing of it shows.
    assert_eq!(
        transcript_of(8, b"a\x1b]0;title\x07b\x1bPq#0\x1b\\c\r\n"),
        "abc"
    );
}

/// Insert mode (IRM, `CSI 4 h`) pushes the rest of the row right for each character printed
/// (wide ones by two cells), as xterm and tmux do; `CSI 4 l` ends it.
#[test]
fn insert_mode_pushes_the_row_right() {
    assert_eq!(transcript_of(4, b"abc\r\x1b[4hX\x1b[4l\r\n"), "Xabc");
    assert_eq!(transcript_of(4, b"abc\x1b[2D\x1b[4hxy\x1b[4l\r\n"), "axybc");
    assert_eq!(
        transcript_of(4, "ab\r\x1b[4h目\x1b[4lZ\r\n".as_bytes()),
        "目Zb"
    );
}
