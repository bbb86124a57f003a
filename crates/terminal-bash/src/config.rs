//! [`BashConfig`]: the backend's configuration (the seed's §3.1) and its validation.

use std::path::PathBuf;
use std::time::Duration;

use dsh_terminal_core::{PtySessionConfig, SilenceRule};

use crate::env::EnvPolicy;

/// Placeholder in [`BashConfig::shell_args`] replaced by the path of the generated rc file.
pub const RC_PLACEHOLDER: &str = "{rc}";

/// Configuration of the `shell` backend. The engine knobs default to
/// [`PtySessionConfig::DEFAULT`] (the seed's §3.1 values, given in brackets below); this type
/// adds the backend's own (type, shell, arguments, working directory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BashConfig {
    /// Backend type models pass to `terminal_open` (default `shell`).
    pub backend_type: String,
    /// The shell binary (default `/bin/bash`).
    pub shell_path: PathBuf,
    /// Shell arguments; empty means the default `--noprofile --rcfile {rc} -i`. Any argument
    /// equal to `{rc}` is replaced by the path of the rc file this backend generates (prompt
    /// marks need it; without it readiness falls back to stdin probes and silence).
    pub shell_args: Vec<String>,
    /// Terminal rows (default 40).
    pub rows: u16,
    /// Terminal columns (default 160).
    pub cols: u16,
    /// Most history lines retained per session (default 10000).
    pub scrollback_lines: usize,
    /// Most history bytes retained per session (default 4 MiB).
    pub scrollback_max_bytes: usize,
    /// Cap of one read page, one send's viewport and one output delta, in bytes (default
    /// 256 KiB).
    pub max_read_bytes: usize,
    /// Period of `/proc` checks while a send is pending, in ms (default 50).
    pub poll_interval_ms: u64,
    /// Earliest time after a send started that a stdin wait may settle it, in ms (default 0).
    pub exact_probe_after_ms: u64,
    /// Output silence that settles a send as `inferred_idle`, in ms (default 3000).
    pub idle_silence_ms: u64,
    /// What output silence alone may settle (default [`SilenceRule::KernelIdle`]: only a
    /// foreground job the kernel does not report busy; the seed: silence alone).
    pub silence_rule: SilenceRule,
    /// Extra output silence `inferred_idle` needs once a prompt mark was seen during the send
    /// (the shell handing the terminal back), in ms (default 500).
    pub handoff_grace_ms: u64,
    /// Absolute bound of one send and of startup, in ms (default 30000).
    pub timeout_ms: u64,
    /// Grace of each teardown tier (TERM → KILL) at close, in ms (default 3000).
    pub dispose_grace_ms: u64,
    /// Working directory of new sessions when the request names none (`None`: the host
    /// process's current directory).
    pub default_cwd: Option<PathBuf>,
    /// Which host variables reach sessions (default: the allowlist, nothing passed).
    pub env: EnvPolicy,
}

/// Default [`BashConfig::backend_type`].
pub const DEFAULT_BACKEND_TYPE: &str = "shell";
/// Default [`BashConfig::shell_path`].
pub const DEFAULT_SHELL: &str = "/bin/bash";

/// Most rows or columns a session's terminal may have: the screen and every scrollback row
/// are held cell by cell, so a terminal of 65535 × 65535 took gigabytes before its first
/// prompt.
pub const MAX_TERMINAL_SIDE: u16 = 1000;

impl Default for BashConfig {
    fn default() -> Self {
        let engine = PtySessionConfig::DEFAULT;
        Self {
            backend_type: DEFAULT_BACKEND_TYPE.to_owned(),
            shell_path: PathBuf::from(DEFAULT_SHELL),
            shell_args: Vec::new(),
            rows: engine.rows,
            cols: engine.cols,
            scrollback_lines: engine.scrollback_lines,
            scrollback_max_bytes: engine.scrollback_max_bytes,
            max_read_bytes: engine.max_read_bytes,
            poll_interval_ms: millis(engine.poll_interval),
            exact_probe_after_ms: millis(engine.exact_probe_after),
            idle_silence_ms: millis(engine.idle_silence),
            silence_rule: engine.silence_rule,
            handoff_grace_ms: millis(engine.handoff_grace),
            timeout_ms: millis(engine.timeout),
            dispose_grace_ms: millis(engine.dispose_grace),
            default_cwd: None,
            env: EnvPolicy::default(),
        }
    }
}

/// Whole milliseconds of `d`, saturating.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// An invalid [`BashConfig`]. Messages start with `terminal-bash: ` and name the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BashConfigError {
    /// A text field is empty.
    #[error("terminal-bash: {field} must be non-empty")]
    Empty {
        /// The field.
        field: &'static str,
    },
    /// A numeric field is zero.
    #[error("terminal-bash: {field} must be a positive integer (got 0)")]
    NotPositive {
        /// The field.
        field: &'static str,
    },
    /// `max_read_bytes` exceeds `scrollback_max_bytes`.
    #[error(
        "terminal-bash: max_read_bytes ({max_read_bytes}) must not exceed scrollback_max_bytes ({scrollback_max_bytes})"
    )]
    ReadExceedsScrollback {
        /// The configured page cap.
        max_read_bytes: usize,
        /// The configured history cap.
        scrollback_max_bytes: usize,
    },
    /// `rows` or `cols` is over [`MAX_TERMINAL_SIDE`].
    #[error("terminal-bash: {field} must be at most {MAX_TERMINAL_SIDE} (got {value})")]
    TooLarge {
        /// The field.
        field: &'static str,
        /// The configured value.
        value: u16,
    },
    /// `handoff_grace_ms` is shorter than one poll.
    #[error(
        "terminal-bash: handoff_grace_ms ({handoff_grace_ms}) must be at least poll_interval_ms ({poll_interval_ms})"
    )]
    GraceBelowPoll {
        /// The configured grace.
        handoff_grace_ms: u64,
        /// The configured poll interval.
        poll_interval_ms: u64,
    },
}

impl BashConfig {
    /// Checks the seed's rules: non-empty type and shell path, every number positive (but
    /// `exact_probe_after_ms`, which may be 0), `rows` and `cols` at most
    /// [`MAX_TERMINAL_SIDE`],
    /// `max_read_bytes <= scrollback_max_bytes`, `handoff_grace_ms >= poll_interval_ms`.
    ///
    /// # Errors
    /// The first violated rule.
    pub fn validate(&self) -> Result<(), BashConfigError> {
        if self.backend_type.is_empty() {
            return Err(BashConfigError::Empty {
                field: "backend_type",
            });
        }
        if self.shell_path.as_os_str().is_empty() {
            return Err(BashConfigError::Empty {
                field: "shell_path",
            });
        }
        // `exact_probe_after_ms` may be 0 (the default): the evidence rules alone decide.
        let numbers: [(&'static str, u64); 10] = [
            ("rows", u64::from(self.rows)),
            ("cols", u64::from(self.cols)),
            ("scrollback_lines", self.scrollback_lines as u64),
            ("scrollback_max_bytes", self.scrollback_max_bytes as u64),
            ("max_read_bytes", self.max_read_bytes as u64),
            ("poll_interval_ms", self.poll_interval_ms),
            ("idle_silence_ms", self.idle_silence_ms),
            ("handoff_grace_ms", self.handoff_grace_ms),
            ("timeout_ms", self.timeout_ms),
            ("dispose_grace_ms", self.dispose_grace_ms),
        ];
        if let Some((field, _)) = numbers.iter().find(|(_, v)| *v == 0) {
            return Err(BashConfigError::NotPositive { field });
        }
        if let Some((field, value)) = [("rows", self.rows), ("cols", self.cols)]
            .into_iter()
            .find(|&(_, v)| v > MAX_TERMINAL_SIDE)
        {
            return Err(BashConfigError::TooLarge { field, value });
        }
        if self.max_read_bytes > self.scrollback_max_bytes {
            return Err(BashConfigError::ReadExceedsScrollback {
                max_read_bytes: self.max_read_bytes,
                scrollback_max_bytes: self.scrollback_max_bytes,
            });
        }
        if self.handoff_grace_ms < self.poll_interval_ms {
            return Err(BashConfigError::GraceBelowPoll {
                handoff_grace_ms: self.handoff_grace_ms,
                poll_interval_ms: self.poll_interval_ms,
            });
        }
        Ok(())
    }

    /// The shell arguments with `{rc}` replaced by `rc_path` (the default when empty).
    pub fn effective_args(&self, rc_path: &std::path::Path) -> Vec<std::ffi::OsString> {
        let default = ["--noprofile", "--rcfile", RC_PLACEHOLDER, "-i"];
        let args: Vec<&str> = if self.shell_args.is_empty() {
            default.to_vec()
        } else {
            self.shell_args.iter().map(String::as_str).collect()
        };
        args.into_iter()
            .map(|a| {
                if a == RC_PLACEHOLDER {
                    rc_path.as_os_str().to_owned()
                } else {
                    a.into()
                }
            })
            .collect()
    }

    /// The engine configuration these settings map to.
    pub fn session_config(&self) -> PtySessionConfig {
        PtySessionConfig {
            rows: self.rows,
            cols: self.cols,
            scrollback_lines: self.scrollback_lines,
            scrollback_max_bytes: self.scrollback_max_bytes,
            max_read_bytes: self.max_read_bytes,
            poll_interval: Duration::from_millis(self.poll_interval_ms),
            exact_probe_after: Duration::from_millis(self.exact_probe_after_ms),
            idle_silence: Duration::from_millis(self.idle_silence_ms),
            silence_rule: self.silence_rule,
            handoff_grace: Duration::from_millis(self.handoff_grace_ms),
            timeout: Duration::from_millis(self.timeout_ms),
            dispose_grace: Duration::from_millis(self.dispose_grace_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn defaults_are_the_seeds_and_valid() {
        let c = BashConfig::default();
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(
            (
                c.rows,
                c.cols,
                c.scrollback_lines,
                c.scrollback_max_bytes,
                c.max_read_bytes
            ),
            (40, 160, 10_000, 4_194_304, 262_144)
        );
        assert_eq!(
            (
                c.poll_interval_ms,
                c.exact_probe_after_ms,
                c.idle_silence_ms,
                c.handoff_grace_ms,
                c.timeout_ms,
                c.dispose_grace_ms
            ),
            (50, 0, 3000, 500, 30_000, 3000)
        );
        assert_eq!(c.backend_type, "shell");
        assert_eq!(c.shell_path, PathBuf::from("/bin/bash"));
    }

    #[test]
    fn tiny_positive_bounds_are_accepted() {
        let c = BashConfig {
            rows: 1,
            cols: 1,
            scrollback_lines: 1,
            scrollback_max_bytes: 1,
            max_read_bytes: 1,
            poll_interval_ms: 10,
            exact_probe_after_ms: 1,
            idle_silence_ms: 1,
            handoff_grace_ms: 10,
            timeout_ms: 1,
            dispose_grace_ms: 1,
            ..BashConfig::default()
        };
        assert_eq!(c.validate(), Ok(()));
    }

    #[test]
    fn a_terminal_side_over_the_cap_is_rejected_by_name() {
        for (field, c) in [
            (
                "rows",
                BashConfig {
                    rows: MAX_TERMINAL_SIDE + 1,
                    ..BashConfig::default()
                },
            ),
            (
                "cols",
                BashConfig {
                    cols: u16::MAX,
                    ..BashConfig::default()
                },
            ),
        ] {
            let e = c.validate().unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("terminal-bash: {field} must be at most 1000")),
                "{e}"
            );
        }
        let c = BashConfig {
            rows: MAX_TERMINAL_SIDE,
            cols: MAX_TERMINAL_SIDE,
            ..BashConfig::default()
        };
        assert_eq!(c.validate(), Ok(()));
    }

    #[test]
    fn empty_fields_are_rejected() {
        let c = BashConfig {
            backend_type: String::new(),
            ..BashConfig::default()
        };
        assert_eq!(
            c.validate().map_err(|e| e.to_string()),
            Err("terminal-bash: backend_type must be non-empty".to_owned())
        );
        let c = BashConfig {
            shell_path: PathBuf::new(),
            ..BashConfig::default()
        };
        assert_eq!(
            c.validate().map_err(|e| e.to_string()),
            Err("terminal-bash: shell_path must be non-empty".to_owned())
        );
    }

    #[test]
    fn zero_numbers_are_rejected_by_name() {
        let cases: Vec<(&str, BashConfig)> = vec![
            (
                "rows",
                BashConfig {
                    rows: 0,
                    ..BashConfig::default()
                },
            ),
            (
                "cols",
                BashConfig {
                    cols: 0,
                    ..BashConfig::default()
                },
            ),
            (
                "scrollback_lines",
                BashConfig {
                    scrollback_lines: 0,
                    ..BashConfig::default()
                },
            ),
            (
                "max_read_bytes",
                BashConfig {
                    max_read_bytes: 0,
                    ..BashConfig::default()
                },
            ),
            (
                "timeout_ms",
                BashConfig {
                    timeout_ms: 0,
                    ..BashConfig::default()
                },
            ),
            (
                "dispose_grace_ms",
                BashConfig {
                    dispose_grace_ms: 0,
                    ..BashConfig::default()
                },
            ),
        ];
        for (field, c) in cases {
            assert_eq!(
                c.validate().map_err(|e| e.to_string()),
                Err(format!(
                    "terminal-bash: {field} must be a positive integer (got 0)"
                ))
            );
        }
    }

    #[test]
    fn cross_field_rules() {
        let c = BashConfig {
            max_read_bytes: 11,
            scrollback_max_bytes: 10,
            ..BashConfig::default()
        };
        assert_eq!(
            c.validate().map_err(|e| e.to_string()),
            Err(
                "terminal-bash: max_read_bytes (11) must not exceed scrollback_max_bytes (10)"
                    .to_owned()
            )
        );
        let c = BashConfig {
            handoff_grace_ms: 9,
            poll_interval_ms: 10,
            ..BashConfig::default()
        };
        assert!(matches!(
            c.validate(),
            Err(BashConfigError::GraceBelowPoll { .. })
        ));
        let c = BashConfig {
            handoff_grace_ms: 10,
            poll_interval_ms: 10,
            ..BashConfig::default()
        };
        assert_eq!(c.validate(), Ok(()));
    }

    #[test]
    fn args_default_and_rc_placeholder() {
        let rc = std::path::Path::new("/tmp/x.rc");
        let c = BashConfig::default();
        assert_eq!(
            c.effective_args(rc),
            vec!["--noprofile", "--rcfile", "/tmp/x.rc", "-i"]
        );
        let c = BashConfig {
            shell_args: vec!["--norc".into(), "-i".into()],
            ..BashConfig::default()
        };
        assert_eq!(c.effective_args(rc), vec!["--norc", "-i"]);
    }
}
