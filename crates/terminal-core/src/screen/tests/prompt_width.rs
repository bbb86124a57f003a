//! A prompt as wide as its row: readline's wrap after it is no text after the prompt.

use pretty_assertions::assert_eq;

use super::*;

/// A prompt as wide as its row (`dsh> ` at 5 columns, a `PS1` of 80 at 80, every prompt at 1):
/// what readline writes after it to put the cursor on the next row's start (`\r\n\r` after
/// the session's mark, ` \r` without one) is no text after the prompt, in the prompt's chunk
/// or one of its own; a key typed after it is. A space after a prompt that did not fill its
/// row is text.
#[test]
fn a_prompt_filling_its_row_is_still_a_prompt() {
    let prompts = [
        (5, "dsh> ".to_owned()),
        (80, format!("{}> ", "x".repeat(78))),
        (1, "d\r\n\rsh\rh>\r> \r ".to_owned()),
    ];
    let wraps: [(bool, &[u8]); 3] = [(false, b"\r\n\r"), (true, b"\r\n\r"), (true, b" \r")];
    for (cols, prompt) in prompts {
        for (split, wrap) in wraps {
            let mut s = Screen::new(config(24, cols), Some(nonce()));
            let mut bytes = mark("D;1");
            bytes.extend(mark("A"));
            bytes.extend(prompt.as_bytes());
            bytes.extend(mark("B"));
            if split {
                s.feed(&bytes);
                s.feed(wrap);
            } else {
                bytes.extend(wrap);
                s.feed(&bytes);
            }
            assert_eq!(s.prompt_state(), PromptState::Prompt, "{cols} {wrap:?}");
            assert_eq!(s.last_exit_code(), Some(1));
            s.feed(b"f");
            assert_eq!(s.prompt_state(), PromptState::Busy, "{cols} {wrap:?}");
        }
    }
    let mut s = screen();
    let mut bytes = mark("D;0");
    bytes.extend(mark("A"));
    bytes.extend(b"dsh> ");
    bytes.extend(mark("B"));
    bytes.extend(b" \r");
    s.feed(&bytes);
    assert_eq!(s.prompt_state(), PromptState::Busy);
}
