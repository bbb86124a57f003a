//! [`PtySessionConfig`]: the engine's knobs and the one home of their defaults.
//!
//! Every layer above reuses these values: the bash backend's config starts from
//! [`PtySessionConfig::DEFAULT`], and `dsh-mcp` derives its `--help` defaults from the backend's.

use std::time::Duration;

use crate::readiness::{ReadinessTiming, SilenceRule};

/// Engine configuration (the backend maps its own config onto this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtySessionConfig {
    /// Terminal rows.
    pub rows: u16,
    /// Terminal columns.
    pub cols: u16,
    /// Most history rows retained.
    pub scrollback_lines: usize,
    /// Most history bytes retained.
    pub scrollback_max_bytes: usize,
    /// Cap of one page, one viewport and one `read_output` delta, in bytes.
    pub max_read_bytes: usize,
    /// Longest pause between `/proc` checks while a send is pending. Checks are event-driven:
    /// the foreground is probed as soon as output goes quiet (or a prompt mark arrives), then
    /// with a doubling backoff capped at this period.
    pub poll_interval: Duration,
    /// Earliest time after a send started that a stdin wait may settle it.
    pub exact_probe_after: Duration,
    /// Output silence that settles a send as `inferred_idle`.
    pub idle_silence: Duration,
    /// What output silence alone may settle (default: only a foreground job the kernel does
    /// not report busy).
    pub silence_rule: SilenceRule,
    /// Extra output silence `inferred_idle` needs once a prompt mark was seen during the send
    /// (the shell handing the terminal back).
    pub handoff_grace: Duration,
    /// Absolute bound of one send, and of startup.
    pub timeout: Duration,
    /// Grace of each teardown tier (TERM → KILL).
    pub dispose_grace: Duration,
}

impl PtySessionConfig {
    /// The seed's defaults (its §3.1) except where noted: 40×160, 10 000 history lines /
    /// 4 MiB, 256 KiB reads, 50 ms longest probe pause, no exact-probe delay (the seed waits
    /// 150 ms; here the evidence rules alone decide), 3 s idle silence that needs a foreground
    /// job the kernel does not report busy (the seed: silence alone), 500 ms handoff grace,
    /// 30 s timeout, 3 s dispose grace.
    pub const DEFAULT: Self = Self {
        rows: 40,
        cols: 160,
        scrollback_lines: 10_000,
        scrollback_max_bytes: 4 * 1024 * 1024,
        max_read_bytes: 256 * 1024,
        poll_interval: Duration::from_millis(50),
        exact_probe_after: Duration::ZERO,
        idle_silence: Duration::from_millis(3000),
        silence_rule: SilenceRule::KernelIdle,
        handoff_grace: Duration::from_millis(500),
        timeout: Duration::from_millis(30_000),
        dispose_grace: Duration::from_millis(3000),
    };

    /// The readiness timing of one send; `timeout` (the send's own deadline, when it asked
    /// for one) replaces the configured [`Self::timeout`].
    pub(crate) fn timing(&self, timeout: Option<Duration>) -> ReadinessTiming {
        ReadinessTiming {
            exact_probe_after: self.exact_probe_after,
            idle_silence: self.idle_silence,
            handoff_grace: self.handoff_grace,
            timeout: timeout.unwrap_or(self.timeout),
            silence_rule: self.silence_rule,
            waits_out_timed_waits: timeout.is_some(),
        }
    }
}

impl Default for PtySessionConfig {
    /// [`PtySessionConfig::DEFAULT`].
    fn default() -> Self {
        Self::DEFAULT
    }
}
