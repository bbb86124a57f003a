//! Whether the keys sent to vim may have left it in a mode that types text (insert or
//! replace mode), as far as the keys themselves tell. vim with `noshowmode` (set by status-line
//! plugins, and by `-u NONE`'s vi-compatible defaults) shows no `-- INSERT --`, so after an
//! `i` sent without Enter its last row looks as in the normal mode: the keys are then the one
//! sign that text sent next is the file's, not commands.
//!
//! The keys are followed as vim reads them: in the normal mode a key that begins an insert
//! (`i`, `a`, `o`, `I`, `A`, `O`, `s`, `S`, `C`, `R`, `c` with its motion, `gi`, `gI`) enters
//! it, keys that take a character after them (`r`, `f`, `t`, `m`, `"`, `@`, `[`, `z`, …) take
//! it whatever it is (`ra` replaces one character and stays), and an operator's `i` or `a`
//! picks a text object (`diw`, `ya(`); `:`, `/`, `?` and `!` open the command line, which an
//! Enter or ESC ends; visual mode enters an insert with `c`, `s`, `I`, `A`, … and picks text
//! objects with `i` and `a`. ESC (or Ctrl-C) ends an insert; an ESC that makes a key with the
//! bytes after it (an arrow, `ESC [ A`) is that key.

use super::super::pacing::lone_escape;

/// Where vim is among its modes as the keys leave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Normal,
    /// A key that takes the next key as its argument (`r`, `f`, `m`, `"`, …); then normal.
    Argument,
    /// An operator (`d`, `y`, `<`, `>`, `=`) whose `i` or `a` picks a text object.
    Operator,
    /// After `g`: `i` and `I` begin an insert, any other key is the command's.
    G,
    Visual,
    /// An `i` or `a` in visual mode (`visual`) or after an operator: the object's key comes
    /// next, then back to visual mode, or to the normal mode.
    Object {
        visual: bool,
    },
    Insert,
    /// The command line (`:`, `/`, `?`), until Enter or ESC.
    Line,
    /// Ctrl-V (or Ctrl-Q) in insert mode or on the command line: the next key is typed as it
    /// is, then back to `in_line`'s mode.
    Literal {
        in_line: bool,
    },
}

/// Whether vim is in a mode that types text once it read `text` (and an Enter after it when
/// `submit`), having been in one before (`inserting`, an earlier send's keys left it so) or in
/// its normal mode (see the module docs).
pub(in crate::session::send) fn inserting_after(inserting: bool, text: &str, submit: bool) -> bool {
    let mut mode = if inserting {
        Mode::Insert
    } else {
        Mode::Normal
    };
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        at += 1;
        // An ESC that makes a key with what follows (`ESC [ A`, `ESC O B` at the end): that
        // key moves the cursor, in whichever mode.
        if b == 0x1b && matches!(bytes.get(at), Some(b'[' | b'O')) && !lone_escape(&bytes[at..]) {
            at += key_length(&bytes[at..]);
            continue;
        }
        mode = step(mode, b);
    }
    if submit {
        mode = step(mode, b'\r');
    }
    matches!(mode, Mode::Insert | Mode::Literal { in_line: false })
}

/// The bytes after an ESC that make one key with it (`[` or `O`, parameters, a final byte).
fn key_length(rest: &[u8]) -> usize {
    let params = rest
        .iter()
        .skip(1)
        .take_while(|b| b.is_ascii_digit() || **b == b';')
        .count();
    (2 + params).min(rest.len())
}

/// The mode after vim reads the key (byte) `b` in `mode`.
fn step(mode: Mode, b: u8) -> Mode {
    const ESC: u8 = 0x1b;
    const CTRL_C: u8 = 0x03;
    const CTRL_V: u8 = 0x16;
    const CTRL_Q: u8 = 0x11;
    const CTRL_W: u8 = 0x17;
    match mode {
        Mode::Insert => match b {
            ESC | CTRL_C => Mode::Normal,
            CTRL_V | CTRL_Q => Mode::Literal { in_line: false },
            _ => Mode::Insert,
        },
        Mode::Literal { in_line: false } => Mode::Insert,
        Mode::Literal { in_line: true } => Mode::Line,
        Mode::Line => match b {
            ESC | CTRL_C | b'\r' | b'\n' => Mode::Normal,
            CTRL_V | CTRL_Q => Mode::Literal { in_line: true },
            _ => Mode::Line,
        },
        Mode::Argument => Mode::Normal,
        Mode::Object { visual: true } => Mode::Visual,
        Mode::Object { visual: false } => Mode::Normal,
        Mode::G => match b {
            b'i' | b'I' => Mode::Insert,
            _ => Mode::Normal,
        },
        // A doubled operator (`dd`, `yy`, `>>`) acts on lines; any other key is its motion.
        Mode::Operator => match b {
            b'i' | b'a' => Mode::Object { visual: false },
            b'd' | b'y' | b'<' | b'>' | b'=' => Mode::Normal,
            _ => step(Mode::Normal, b),
        },
        Mode::Visual => match b {
            ESC | CTRL_C | b'v' | b'V' | CTRL_V => Mode::Normal,
            b'i' | b'a' => Mode::Object { visual: true },
            b'c' | b's' | b'C' | b'S' | b'R' | b'I' | b'A' => Mode::Insert,
            b':' => Mode::Line,
            b'r' => Mode::Argument,
            b'd' | b'x' | b'y' | b'D' | b'X' | b'Y' | b'J' | b'p' | b'P' | b'u' | b'U' | b'~'
            | b'>' | b'<' | b'=' => Mode::Normal,
            _ => Mode::Visual,
        },
        Mode::Normal => match b {
            b'i' | b'a' | b'o' | b'I' | b'A' | b'O' | b's' | b'S' | b'C' | b'R' | b'c' => {
                Mode::Insert
            }
            b':' | b'/' | b'?' | b'!' => Mode::Line,
            b'v' | b'V' | CTRL_V => Mode::Visual,
            b'g' => Mode::G,
            b'd' | b'y' | b'<' | b'>' | b'=' => Mode::Operator,
            b'r' | b'f' | b'F' | b't' | b'T' | b'm' | b'\'' | b'`' | b'"' | b'@' | b'q' | b'Z'
            | b'z' | b'[' | b']' | CTRL_W => Mode::Argument,
            _ => Mode::Normal,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::inserting_after;

    #[test]
    fn keys_that_begin_an_insert_leave_vim_typing_text() {
        let keys = "i a o O I A s S C R cw ciw 3o gi Go ddO ddi yyp0a ra\u{1b}A vjc";
        for keys in keys.split_whitespace() {
            assert!(inserting_after(false, keys, false), "{keys:?}");
        }
        // Text typed after them, with Enter or not, is still the insert's.
        assert!(inserting_after(false, "ifirst line\nsecond", true));
        assert!(inserting_after(true, "first line\nsecond line", true));
        assert!(inserting_after(true, "", true));
        // An arrow key moves the cursor and keeps the insert.
        assert!(inserting_after(true, "\u{1b}[A", false));
        assert!(inserting_after(true, "x\u{1b}OB", false));
        // A literal ESC typed after Ctrl-V is text.
        assert!(inserting_after(true, "\u{16}\u{1b}", false));
        // ESC then `O` and text: the ESC ends the insert, `O` opens a line above.
        assert!(inserting_after(true, "\u{1b}Otwo", false));
    }

    #[test]
    fn keys_that_stay_in_the_normal_mode_or_end_the_insert_do_not() {
        let keys = "j dd x u G gg ra fa ta diw yaw da( ma \"ayy @a ZZ zo ]s viwy Vd \u{1b} \
                    ihello\u{1b} ohello\u{3} :wq /is";
        for keys in keys.split_whitespace().chain(["", ":set ai\n"]) {
            assert!(!inserting_after(false, keys, false), "{keys:?}");
        }
        assert!(!inserting_after(true, "two\u{1b}", false));
        // A `:` command line ends with the Enter of a send.
        assert!(!inserting_after(false, ":s/a/b/", true));
        assert!(!inserting_after(true, "\u{1b}:w", true));
    }
}
