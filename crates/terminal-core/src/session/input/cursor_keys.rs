//! Cursor keys in the form the program asked for. A model writes an arrow key as `ESC [ A`
//! (the form a terminal sends by default); a program that turned on application cursor keys
//! (DECCKM: curses programs that enable their keypad, `less`, vim) gets them from a terminal
//! as `ESC O A` and knows only that form, so the keys were ignored (a menu stayed on its
//! first item, and the Enter after them chose it).

/// The final bytes of the cursor keys whose form DECCKM changes: Up, Down, Right, Left, Home
/// and End, without modifiers (a modified key, `ESC [ 1 ; 5 A`, keeps its CSI form).
const CURSOR_FINALS: &[u8] = b"ABCDHF";

/// `bytes` with each unmodified cursor key `ESC [ X` (see [`CURSOR_FINALS`]) written as
/// `ESC O X`, as a terminal in application cursor mode sends it; other bytes unchanged.
pub(in crate::session) fn application_cursor_keys(bytes: Vec<u8>) -> Vec<u8> {
    let is_key = |w: &[u8]| w[0] == 0x1b && w[1] == b'[' && CURSOR_FINALS.contains(&w[2]);
    if !bytes.windows(3).any(is_key) {
        return bytes;
    }
    let mut out = bytes;
    let mut i = 0;
    while i + 2 < out.len() {
        if is_key(&out[i..i + 3]) {
            out[i + 1] = b'O';
            i += 3;
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrow_keys_take_the_application_form_and_other_sequences_stay() {
        for (sent, written) in [
            (&b"\x1b[B\x1b[B\r"[..], &b"\x1bOB\x1bOB\r"[..]),
            (
                b"\x1b[A\x1b[C\x1b[D\x1b[H\x1b[F",
                b"\x1bOA\x1bOC\x1bOD\x1bOH\x1bOF",
            ),
            (b"\x1b[1;5A", b"\x1b[1;5A"),
            (b"\x1b[200~x\x1b[201~", b"\x1b[200~x\x1b[201~"),
            (b"\x1b[5~jk", b"\x1b[5~jk"),
            (b"A[B", b"A[B"),
            (b"\x1b[", b"\x1b["),
        ] {
            assert_eq!(application_cursor_keys(sent.to_vec()), written, "{sent:?}");
        }
    }
}
