//! Several lines typed to the shell's own line editor, one at a time: each line after the
//! first is written once the previous one was taken up and its reader is ready for more (the
//! prompt came back, a continuation prompt, or a program waits for input), as a user types
//! line after line.
//!
//! Written all at once they would be typed ahead, and a line that starts a program switches
//! the terminal to canonical mode with the later lines already queued: the kernel then hands
//! them over as one line, and a program that reads in blocks (`read` in bash, `head -n1`)
//! takes them all, so the commands after it never run (`read a` + its answer + `echo $a`).

use std::collections::VecDeque;

use crate::readiness::Settle;

/// The lines of a send still to be typed.
#[derive(Debug, Default)]
pub(super) struct Pacing {
    pending: VecDeque<Vec<u8>>,
}

impl Pacing {
    /// Splits `input` (shaped for the shell's line editor when `shell_line_editor`) into its
    /// first line, written at once, and the lines paced after it. Input to any other reader
    /// is written whole.
    pub(super) fn split(input: Vec<u8>, shell_line_editor: bool) -> (Vec<u8>, Self) {
        if !shell_line_editor {
            return (input, Self::default());
        }
        let mut lines: VecDeque<Vec<u8>> = input
            .split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        let first = lines.pop_front().unwrap_or_default();
        (first, Self { pending: lines })
    }

    /// Whether lines are still to be typed.
    pub(super) fn is_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// What to write instead of settling for `reason`: the next line when the reader is ready
    /// for it; every line left (typed ahead, as before pacing) when the send settles anyway
    /// (silence or its deadline); nothing on an exit.
    pub(super) fn on_settle(&mut self, reason: Settle) -> Option<Vec<u8>> {
        match reason {
            Settle::Prompt | Settle::Continuation | Settle::StdinWait => self.pending.pop_front(),
            Settle::Idle | Settle::Timeout => {
                let rest: Vec<u8> = self.pending.drain(..).flatten().collect();
                (!rest.is_empty()).then_some(rest)
            }
            Settle::Exit => {
                self.pending.clear();
                None
            }
        }
    }

    /// Drops the lines not yet typed (the send was cancelled or interrupted: like input typed
    /// ahead, they are discarded).
    pub(super) fn discard(&mut self) {
        self.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_to_the_line_editor_are_typed_one_at_a_time() {
        let (first, mut pacing) = Pacing::split(b"read a\nAAA\necho $a\n".to_vec(), true);
        assert_eq!(first, b"read a\n");
        assert_eq!(pacing.on_settle(Settle::StdinWait), Some(b"AAA\n".to_vec()));
        assert_eq!(
            pacing.on_settle(Settle::Prompt),
            Some(b"echo $a\n".to_vec())
        );
        assert!(!pacing.is_pending());
        assert_eq!(pacing.on_settle(Settle::Prompt), None);
    }

    #[test]
    fn silence_or_the_deadline_types_the_rest_ahead_and_an_exit_drops_it() {
        let (_, mut pacing) = Pacing::split(b"serve\necho a\nls".to_vec(), true);
        assert_eq!(pacing.on_settle(Settle::Idle), Some(b"echo a\nls".to_vec()));
        assert!(!pacing.is_pending());
        let (_, mut pacing) = Pacing::split(b"exit\necho a\n".to_vec(), true);
        assert_eq!(pacing.on_settle(Settle::Exit), None);
        assert!(!pacing.is_pending());
    }

    #[test]
    fn other_readers_get_the_input_whole() {
        let (first, pacing) = Pacing::split(b"a\nb\n".to_vec(), false);
        assert_eq!(first, b"a\nb\n");
        assert!(!pacing.is_pending());
    }
}
