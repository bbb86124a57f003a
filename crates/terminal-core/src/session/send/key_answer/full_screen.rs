//! Keys to a full-screen program (the alternate screen: `less`, `man`, vim in its normal
//! mode): it takes every key as it comes, and a key command may end it (`q` in less, `ZZ` in
//! vim), after which the Enter sent with it answers whatever reads next (a
//! `read -p '… [Y/n] '` later on the command line takes its default). One line of keys sent
//! with Enter goes without the Enter, and the Enter follows only once the program read the
//! keys and still holds the terminal as it did: the same process group, on the alternate
//! screen it had not left since. Keys it reads on need their Enter and keep it (vim's `:wq`,
//! whose Enter runs the command; less's `/pattern`; `j`, whose Enter scrolls); after a key
//! command that ended it the Enter is dropped and the result says so. In vim's insert mode
//! the Enter is the text's line end and goes with it, as does the Enter of keys typed in more
//! than one step (an indented text after the keys that open a line, `o    x = 1`).

use super::super::super::shared::State;
use super::super::pacing::{Pacing, insert_paste};
use super::{AnswerCheck, KeyAnswer, RestKind, keys_and_enter};

impl AnswerCheck {
    /// Whether the full-screen program the keys went to still holds the terminal as it did,
    /// group `fg` now: the same group, on the alternate screen, not left since the keys went
    /// (a program that ended on them gave the main screen back; the same group showing a
    /// screen anew is another program of a script, `less a; less b`).
    pub(super) fn holds_screen(&self, st: &State, fg: Option<i32>) -> bool {
        self.full_screen.is_some_and(|leaves| {
            fg == self.fg
                && st.screen.alternate_screen()
                && st.screen.alternate_leave_count() == leaves
        })
    }
}

/// `keyed` (one line of printable keys and its Enter, after ESCs that end a mode first: vim's
/// `\u{1b}ZZ`, `\u{1b}:wq`) to a full-screen program in group `fg`: the keys now, the Enter
/// only while the program still holds its screen once it read them (see the module docs).
/// `None` (the text goes as sent) for other text, in an editor's insert mode with no ESC
/// first (the Enter is the text's), and for keys typed in more than one step (see
/// `Pacing::full_screen_steps`: the Enter would go before their later steps).
pub(super) fn keys(st: &mut State, fg: Option<i32>, keyed: &[u8]) -> Option<KeyAnswer> {
    let escapes = keyed.iter().take_while(|&&b| b == 0x1b).count();
    let (keys, enter) = keys_and_enter(&keyed[escapes..])?;
    let key = keys.chars().next()?;
    if Pacing::full_screen_steps(keys.as_bytes().to_vec()).len() != 1
        || (escapes == 0 && insert_paste::insert_mode(&mut st.screen).is_some())
    {
        return None;
    }
    let at = st.screen.cursor();
    let check = AnswerCheck {
        fg,
        start: at,
        at,
        cols: 0,
        key,
        kind: RestKind::Enter,
        full_screen: Some(st.screen.alternate_leave_count()),
    };
    Some(KeyAnswer {
        key: format!("{}{keys}", "\u{1b}".repeat(escapes)),
        checked: (enter.to_vec(), check),
    })
}
