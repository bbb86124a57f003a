//! Unit tests of key answers: the hold a key answer's rest does not wait, and the rest of a
//! yes/no word as keys typed one at a time.

use std::time::Duration;

use super::super::pacing::Pacing;
use super::raw_line::first_key_and_rest;
use super::{AnswerCheck, RestKind, word_rest};
use crate::readiness::Settle;
use crate::screen::Position;

/// The rest of a key answer waits on its check, not on the shell's prompt: once the
/// reader that took the key ended and the shell reads (a `read -p` next on the command
/// line), the check drops the rest at once (it waited the 3 s the lines after an ended
/// reader give the prompt); the send's lines after it still wait for the prompt.
#[test]
fn a_key_answers_rest_does_not_wait_for_the_shells_prompt() {
    let (_, mut pacing) = Pacing::split(b"y\necho after\n".to_vec(), true, false);
    let check = AnswerCheck {
        fg: Some(7),
        start: Position::default(),
        at: Position::default(),
        cols: 1,
        key: 'y',
        kind: RestKind::Enter,
        full_screen: None,
    };
    pacing.check_answer_rest(b"\r".to_vec(), check);
    let soon = Duration::from_millis(10);
    assert_eq!(
        pacing.holds_for_prompt(Settle::StdinWait, true, soon, true),
        None
    );
    assert_eq!(pacing.take_answer_check(), Some(check));
    assert_eq!(pacing.drop_next(), Some(b"\r".to_vec()));
    assert!(
        pacing
            .holds_for_prompt(Settle::StdinWait, true, soon, true)
            .is_some()
    );
}

/// The rest of a yes/no word whose first key the reader took goes on key by key, with its
/// Enter when the word was sent with one.
#[test]
fn a_yes_no_words_rest_is_keys() {
    assert_eq!(word_rest(b"es\r"), Some(("es", &b"\r"[..])));
    assert_eq!(word_rest(b"O\r\n"), Some(("O", &b"\r\n"[..])));
    assert_eq!(word_rest(b"es"), Some(("es", &b""[..])));
    assert_eq!(word_rest(b"\r"), None);
    assert_eq!(word_rest(b""), None);
}

/// A line to a raw-mode reader at a prompt that neither asks nor is a REPL's goes as its
/// first key and the rest: the Enter alone after one key, more of the line otherwise; a key
/// alone, several lines, or a line starting with a space or a control key go as they are.
#[test]
fn a_raw_readers_line_splits_at_its_first_key() {
    assert_eq!(
        first_key_and_rest(b"yes\r"),
        Some(("y", &b"es\r"[..], RestKind::Line))
    );
    assert_eq!(
        first_key_and_rest(b"zecho LEAKED\r"),
        Some(("z", &b"echo LEAKED\r"[..], RestKind::Line))
    );
    assert_eq!(
        first_key_and_rest(b"a\r\n"),
        Some(("a", &b"\r\n"[..], RestKind::Enter))
    );
    assert_eq!(
        first_key_and_rest("éa".as_bytes()),
        Some(("é", &b"a"[..], RestKind::Line))
    );
    assert_eq!(first_key_and_rest(b"q"), None);
    assert_eq!(first_key_and_rest(b"a\nb\r"), None);
    assert_eq!(first_key_and_rest(b" x\r"), None);
    assert_eq!(first_key_and_rest(b"\x1b[A\r"), None);
}
