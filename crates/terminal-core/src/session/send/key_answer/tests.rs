//! Unit tests of key answers: the questions a cbreak key reader's key goes alone at, and
//! the hold a key answer's rest does not wait.

use std::time::Duration;

use super::super::pacing::Pacing;
use super::{AnswerCheck, RestKind, asks_for_a_key};
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
        echo_required: false,
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

/// Questions whose key a cbreak reader takes alone whatever follows; a question that
/// only ends in `?` may read several keys or a line.
#[test]
fn key_questions() {
    for row in [
        "Continue? [y/N]",
        "Delete all? (Y/n)",
        "Quit anyway? (y or n)",
        "Press any key to continue",
        "(1/1) Stage this hunk [y,n,q,a,d,e,?]?",
    ] {
        assert!(asks_for_a_key(row), "{row}");
    }
    for row in [
        "Overwrite file?",
        "How many copies?",
        "/7",
        "PID to signal/kill [default pid = 1]",
        "PIN (3 digits, Enter):",
        "Name:",
    ] {
        assert!(!asks_for_a_key(row), "{row}");
    }
}
