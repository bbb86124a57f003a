//! TABs in a step a send types later, once a program an earlier line of it started reads
//! (`python3 -q` then a line with a TAB in a string, `bash --norc` then a function with TAB
//! indentation): typed to that program's line editor a TAB completes (Python's REPL put
//! `id(` for `id\t`, a nested bash listed 1,494 commands), so it goes after the
//! quoted-insert key, as TABs of a send that begins at such an editor do.

use super::{PASTE_END, PASTE_START, QUOTED_INSERT};

/// `step` with every TAB that is neither inside a bracketed paste nor already after the
/// quoted-insert key put after that key.
pub(in crate::session) fn quote_tabs(step: Vec<u8>) -> Vec<u8> {
    if !step.contains(&b'\t') {
        return step;
    }
    let mut out = Vec::with_capacity(step.len() + 4);
    let mut in_paste = false;
    let mut i = 0;
    while i < step.len() {
        if step[i..].starts_with(PASTE_START) {
            in_paste = true;
        } else if step[i..].starts_with(PASTE_END) {
            in_paste = false;
        }
        let b = step[i];
        if b == b'\t' && !in_paste && out.last() != Some(&QUOTED_INSERT) {
            out.push(QUOTED_INSERT);
        }
        out.push(b);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_typed_to_a_line_editor_are_quoted_once() {
        assert_eq!(
            quote_tabs(b"h = \"a\tb\"\r".to_vec()),
            b"h = \"a\x16\tb\"\r"
        );
        assert_eq!(
            quote_tabs(b"\x16\tx".to_vec()),
            b"\x16\tx",
            "quoted already"
        );
        assert_eq!(quote_tabs(b"plain\r".to_vec()), b"plain\r");
        let paste = b"\x1b[200~a\tb\x1b[201~\t".to_vec();
        assert_eq!(quote_tabs(paste), b"\x1b[200~a\tb\x1b[201~\x16\t");
    }
}
