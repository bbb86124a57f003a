//! Whether the screen holds what the shell wrote before the prompt it reads at: the marks
//! a settle by prompt goes by are the screen's newest, and the terminal's modes say the
//! shell reads now.

use std::time::Duration;

use super::{Observation, Readiness, Settle};

/// Longest a prompt the shell reads at waits for the output before it to be on the screen
/// (`Observation::output_drained`): a background program flooding the terminal may leave it
/// undrained for good.
pub(crate) const PROMPT_DRAIN_MAX: Duration = Duration::from_secs(2);

impl Readiness {
    /// The settle at the prompt the screen's marks announce (`at_prompt`, the shell reading
    /// there) once the output the program wrote is all on the screen. On a loaded machine the
    /// session's reader of the terminal can lag behind the shell: the shell already reads at
    /// its real prompt (line editing modes), while the screen's newest marks are ones a
    /// command printed (forged, with the session's nonce) before output and a prompt still
    /// unread; settled then, the result ended at the forged prompt, with a forged status.
    /// Output that keeps the terminal undrained (a background program flooding it, over the
    /// prompt) delays the settle by [`PROMPT_DRAIN_MAX`] at most, counted from the first such
    /// look, while the shell still reads (`reading`).
    pub(super) fn prompt_settles(
        &mut self,
        at_prompt: Option<Settle>,
        reading: bool,
        o: &Observation,
    ) -> Option<Settle> {
        if o.output_drained {
            self.undrained_since = None;
            return at_prompt;
        }
        if let Some(settle) = at_prompt {
            self.undrained_since.get_or_insert((o.now, settle));
        }
        let (since, settle) = self.undrained_since?;
        if !reading {
            self.undrained_since = None;
            return None;
        }
        (o.now >= since + PROMPT_DRAIN_MAX).then_some(settle)
    }
}
