//! Telling the marks the shell prints with its prompts from the same prompt strings expanded
//! again by a command (`echo "${PS1@P}"`, `printf %s "${PS0@P}"`): those carry the nonce too,
//! as the shell itself expands them.
//!
//! Each mark carries bash's command number (`n=\#`): the number of the command the shell is
//! reading, which its `PS0` (`C`, the command starts) shows once, and which a command running
//! under it sees as its own. The shell's next prompt shows a higher number (an empty line, a
//! line it cannot parse, or an interrupt at the prompt runs no command and repeats it). So a
//! `C` mark whose number started before, and a prompt mark (`A`, `B`, `D`, either prompt)
//! whose number has started or is below the newest prompt's, were printed by a command:
//! they are output, not marks. A mark without a number (another shell integration's rc) is
//! taken as it is.

use super::MarkKind;

/// The command numbers seen so far (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MarkOrder {
    /// The newest number a prompt mark showed.
    prompt: Option<u64>,
    /// The newest number a `C` mark (a command starts) showed.
    started: Option<u64>,
}

impl MarkOrder {
    /// Whether `mark`, showing command number `number`, is the shell's own: a number that
    /// has not started and is not below the newest prompt's. Notes it when it is.
    pub(crate) fn admits(&mut self, mark: MarkKind, number: Option<u64>) -> bool {
        let Some(n) = number else {
            return true;
        };
        let fresh =
            self.started.is_none_or(|started| n > started) && self.prompt.is_none_or(|p| n >= p);
        if fresh {
            if mark == MarkKind::CommandStart {
                self.started = Some(n);
            } else {
                self.prompt = Some(n);
            }
        }
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DONE: MarkKind = MarkKind::CommandDone {
        exit_code: Some(0),
        modes_restored: false,
        errexit: false,
        number: None,
    };

    #[test]
    fn a_commands_own_number_is_output_once_it_started() {
        let mut order = MarkOrder::default();
        // The first prompt, a continuation prompt, the command's start.
        for mark in [
            DONE,
            MarkKind::PromptStart,
            MarkKind::PromptEnd,
            MarkKind::ContinuationStart,
            MarkKind::ContinuationEnd,
        ] {
            assert!(order.admits(mark, Some(1)), "{mark:?}");
        }
        assert!(order.admits(MarkKind::CommandStart, Some(1)));
        // `echo "${PS1@P}"` and `${PS0@P}` while command 1 runs.
        for mark in [
            DONE,
            MarkKind::PromptStart,
            MarkKind::PromptEnd,
            MarkKind::CommandStart,
        ] {
            assert!(!order.admits(mark, Some(1)), "{mark:?}");
        }
        // The next prompt, again after an empty line (no command started), and redrawn.
        for _ in 0..3 {
            for mark in [DONE, MarkKind::PromptStart, MarkKind::PromptEnd] {
                assert!(order.admits(mark, Some(2)), "{mark:?}");
            }
        }
        // A background job expanding the prompt of an earlier command later.
        assert!(!order.admits(DONE, Some(1)));
        assert!(order.admits(MarkKind::CommandStart, Some(2)));
        assert!(!order.admits(MarkKind::PromptEnd, Some(2)));
        // Numbers may jump (a prompt command that runs commands).
        assert!(order.admits(DONE, Some(5)));
        // Marks without a number are taken as they are.
        assert!(order.admits(DONE, None));
        assert!(order.admits(MarkKind::CommandStart, None));
    }
}
