//! Whether the screen holds what the shell wrote before the prompt it reads at: the marks
//! a settle by prompt goes by are the screen's newest, and the terminal's modes say the
//! shell reads now.

use std::time::{Duration, Instant};

use super::{Observation, Readiness};

/// Longest a prompt the shell reads at waits for the output before it to be on the screen
/// (`Observation::output_drained`): a background program flooding the terminal may leave it
/// undrained for good.
pub(crate) const PROMPT_DRAIN_MAX: Duration = Duration::from_secs(2);

impl Readiness {
    /// Whether a settle at the prompt the screen's marks announce may go now: the output the
    /// program wrote is all on the screen, or has not been for [`PROMPT_DRAIN_MAX`]. On a
    /// loaded machine the session's reader of the terminal can lag behind the shell: the
    /// shell already reads at its real prompt (line editing modes), while the screen's newest
    /// marks are ones a command printed (forged, with the session's nonce) before the output
    /// and prompt still unread; settled then, the result ended at the forged prompt, with a
    /// forged status.
    pub(super) fn output_in(&mut self, o: &Observation) -> bool {
        if o.output_drained {
            self.undrained_since = None;
            return true;
        }
        let since: Instant = *self.undrained_since.get_or_insert(o.now);
        o.now >= since + PROMPT_DRAIN_MAX
    }
}
