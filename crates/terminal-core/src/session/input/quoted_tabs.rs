//! TABs in a step a send types later, once a program an earlier line of it started reads
//! (`python3 -q` then a line with a TAB in a string, `bash --norc` then a function with TAB
//! indentation): typed to that program's line editor a TAB completes (Python's REPL put
//! `id(` for `id\t`, a nested bash listed 1,494 commands), so it goes after the
//! quoted-insert key, as TABs of a send that begins at such an editor do.

use super::{PASTE_END, PASTE_START, QUOTED_INSERT};

/// `step` with every TAB that is neither inside a bracketed paste nor already after the
/// quoted-insert key put after that key; but the TABs that end a step without a line end
/// (text sent without Enter: they ask the line editor to complete, as the send's rules have
/// it) go as keys.
pub(in crate::session) fn quote_tabs(step: Vec<u8>) -> Vec<u8> {
    let completing = step.len() - step.iter().rev().take_while(|&&b| b == b'\t').count();
    if !step[..completing].contains(&b'\t') {
        return step;
    }
    let (step, completion) = (step[..completing].to_vec(), step[completing..].to_vec());
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
    out.extend(completion);
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
        let paste = b"\x1b[200~a\tb\x1b[201~\tc".to_vec();
        assert_eq!(quote_tabs(paste), b"\x1b[200~a\tb\x1b[201~\x16\tc");
        assert_eq!(
            quote_tabs(b"json.du\t".to_vec()),
            b"json.du\t",
            "a completion"
        );
        assert_eq!(
            quote_tabs(b"a\tb = ope\t\t".to_vec()),
            b"a\x16\tb = ope\t\t"
        );
    }
}
