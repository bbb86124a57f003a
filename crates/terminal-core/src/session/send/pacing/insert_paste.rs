//! Text lines to a full-screen editor in its insert mode go as one bracketed paste, as a user
//! pastes them: typed, each Enter would make the editor indent the next line (vim's
//! `autoindent` and indent plugins), and the text's own indentation would come on top of it
//! (a staircase, and Python code that no longer parses); typed keys would also trigger the
//! editor's insert-mode mappings (`jj` for ESC). A paste needs the program to have enabled
//! bracketed paste (DECSET 2004) and its insert mode on screen, for in its normal mode a
//! paste would be inserted as text rather than run as commands (`:wq`, `dd`, `o`). Keys to
//! such a program go in steps with each line end apart (see `Pacing::for_reader`): after
//! `ifirst line`, vim shows `-- INSERT --`, and the line end with the lines after it goes as
//! one paste, up to the first key that is not text (ESC, which then leaves insert mode).

use super::super::super::input::{PASTE_END, PASTE_START};
use super::Pacing;

/// Whether `bottom_row` (the alternate screen's last row) shows an editor's insert mode:
/// vim's and neovim's `-- INSERT --` (also `-- INSERT --recording @q`, and `-- (insert) --`
/// after Ctrl-O), shown with `showmode`, their default.
fn insert_mode_shown(bottom_row: &str) -> bool {
    let row = bottom_row.trim_start();
    row.starts_with("-- INSERT") || row.starts_with("-- (insert)")
}

/// Whether a full-screen program that enabled bracketed paste shows its insert mode on
/// `screen`, and then whether only blanks precede the cursor on its row (an indent the
/// editor gave the line, see [`replaces_indent`]).
pub(in crate::session::send) fn insert_mode(screen: &mut crate::screen::Screen) -> Option<bool> {
    let shown = screen.bracketed_paste()
        && screen
            .alternate_bottom_row()
            .is_some_and(|row| insert_mode_shown(&row));
    shown.then(|| {
        screen
            .cursor_row_prefix()
            .is_some_and(|p| p.trim().is_empty())
    })
}

/// The length of the leading run of `bytes` a paste delivers as the text typed would be:
/// up to the first control character other than TAB and the line ends (ESC is a key).
fn text_run(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f)
        .unwrap_or(bytes.len())
}

/// vim's insert-mode keys that delete all indent in the current line (`0 CTRL-D`).
const DELETE_INDENT: &[u8] = b"0\x04";

/// Whether a paste of `step` at a cursor with only blanks before it on its row
/// (`blank_before_cursor`: the indent the editor gave a line it opened, `o` with
/// `autoindent`) first deletes that indent: the text brings its own (it starts indented).
pub(in crate::session::send) fn replaces_indent(step: &[u8], blank_before_cursor: bool) -> bool {
    blank_before_cursor && step.first().is_some_and(|&b| b == b' ' || b == b'\t')
}

/// `step` with the steps `pacing` holds after it, when they start with text: that text as
/// one bracketed paste (line ends as carriage returns, as terminals paste), after the keys
/// that delete the current line's indent when `replace_indent` (see [`replaces_indent`]),
/// and the keys after it left to `pacing` in the steps it makes for a full-screen program.
/// `None` when they start with a key.
pub(in crate::session::send) fn paste_text(
    step: &[u8],
    pacing: &mut Pacing,
    replace_indent: bool,
) -> Option<Vec<u8>> {
    let rest = [step, &pacing.pending_bytes()].concat();
    let run = text_run(&rest);
    if run == 0 {
        return None;
    }
    let mut paste = Vec::with_capacity(run + PASTE_START.len() + PASTE_END.len() + 2);
    if replace_indent {
        paste.extend_from_slice(DELETE_INDENT);
    }
    paste.extend_from_slice(PASTE_START);
    paste.extend(
        rest[..run]
            .iter()
            .map(|&b| if b == b'\n' { b'\r' } else { b }),
    );
    paste.extend_from_slice(PASTE_END);
    let keys = rest[run..].to_vec();
    pacing.replace_pending(if keys.is_empty() {
        Vec::new()
    } else {
        Pacing::full_screen_steps(keys)
    });
    Some(paste)
}

#[cfg(test)]
mod tests {
    use super::super::Typing;
    use super::*;

    /// Keys to vim with bracketed paste on, split as `Pacing::for_reader` does.
    fn paced(input: &[u8]) -> (Vec<u8>, Pacing) {
        Pacing::for_reader(
            input.to_vec(),
            &Typing {
                canonical: Some(false),
                program: true,
                line_ends_apart: true,
                ..Typing::default()
            },
        )
    }

    #[test]
    fn the_lines_after_insert_mode_begins_go_as_one_paste_and_the_keys_after_them_as_keys() {
        let (first, mut pacing) = paced(b"idef f(x):\r    if x:\r        return 1\r\x1b:wq\r");
        assert_eq!(first, b"idef f(x):");
        let next = pacing.take_next().unwrap_or_default();
        assert_eq!(next, b"\r");
        let paste = paste_text(&next, &mut pacing, false).unwrap_or_default();
        assert_eq!(
            paste,
            b"\x1b[200~\r    if x:\r        return 1\r\x1b[201~".to_vec()
        );
        assert_eq!(pacing.take_next().unwrap_or_default(), b"\x1b:wq");
        assert_eq!(pacing.take_next().unwrap_or_default(), b"\r");
        assert!(!pacing.is_pending());
    }

    #[test]
    fn text_without_keys_is_pasted_whole_and_a_key_first_is_not_pasted() {
        let (first, mut pacing) = paced(b"    return 2\n\tx = 1\n");
        let paste = paste_text(&first, &mut pacing, false).unwrap_or_default();
        assert_eq!(paste, b"\x1b[200~    return 2\r\tx = 1\r\x1b[201~".to_vec());
        assert!(!pacing.is_pending());
        let (first, mut pacing) = paced(b"\x1b:wq\n");
        assert_eq!(paste_text(&first, &mut pacing, false), None);
        assert!(pacing.is_pending());
    }

    #[test]
    fn a_line_end_kept_apart_goes_once_the_text_before_it_was_read_but_not_after_a_key() {
        let (_, pacing) = paced(b"ione\rtwo\r");
        assert!(pacing.releases_on_read());
        let (_, mut pacing) = paced(b"ione\x03\rtwo\r");
        assert_eq!(pacing.take_next().unwrap_or_default(), b"\x03");
        assert!(pacing.next_starts_line());
        assert!(!pacing.releases_on_read());
    }

    #[test]
    fn indented_text_after_the_keys_that_open_a_line_goes_apart_and_replaces_its_indent() {
        let (first, mut pacing) = paced(b"Go    y = 2\r\tz\x1b:wq\r");
        assert_eq!(first, b"Go");
        let next = pacing.take_next().unwrap_or_default();
        assert_eq!(next, b"    y = 2");
        assert!(replaces_indent(&next, true) && !replaces_indent(&next, false));
        let paste = paste_text(&next, &mut pacing, true).unwrap_or_default();
        assert_eq!(paste, b"0\x04\x1b[200~    y = 2\r\tz\x1b[201~".to_vec());
        assert_eq!(pacing.take_next().unwrap_or_default(), b"\x1b:wq");
        // Text that starts unindented keeps the indent the editor gave the line.
        assert!(!replaces_indent(b"y = 2", true));
        // A space between keys is no indentation.
        let (first, _) = paced(b":s/a b/c/\r");
        assert_eq!(first, b":s/a b/c/");
    }

    #[test]
    fn insert_mode_is_read_from_the_mode_line() {
        for row in [
            "-- INSERT --",
            "-- INSERT --recording @q     1,1  All",
            "-- (insert) --",
        ] {
            assert!(insert_mode_shown(row), "{row}");
        }
        for row in [
            "",
            ":wq",
            "-- VISUAL --",
            "\"p.py\" 3L, 40B written",
            "-- REPLACE --",
        ] {
            assert!(!insert_mode_shown(row), "{row}");
        }
    }
}
