//! [`SandboxMode`]: what a confined session may touch.

use std::fmt;
use std::str::FromStr;

/// How far a session's shell is confined (the seed's three sandbox modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SandboxMode {
    /// The whole filesystem is read-only except a private, empty `/tmp`; the workspace root is
    /// visible read-only; no network unless the operator allows it.
    ReadOnly,
    /// As [`ReadOnly`](Self::ReadOnly), but the workspace root is writable.
    WorkspaceWrite,
    /// No confinement: the shell runs with every right the server has.
    DangerFullAccess,
}

impl SandboxMode {
    /// Every mode, most confined first.
    pub const ALL: [Self; 3] = [Self::ReadOnly, Self::WorkspaceWrite, Self::DangerFullAccess];

    /// The mode's name on the command line and in messages (`read-only`, `workspace-write`,
    /// `danger-full-access`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::WorkspaceWrite => "workspace-write",
            Self::DangerFullAccess => "danger-full-access",
        }
    }

    /// Whether sessions in this mode must be wrapped by a confinement provider.
    #[must_use]
    pub fn is_confined(self) -> bool {
        self != Self::DangerFullAccess
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown mode name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown sandbox mode {0:?}; use read-only, workspace-write or danger-full-access")]
pub struct UnknownSandboxMode(pub String);

impl FromStr for SandboxMode {
    type Err = UnknownSandboxMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownSandboxMode(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for mode in SandboxMode::ALL {
            assert_eq!(mode.as_str().parse::<SandboxMode>(), Ok(mode));
        }
        assert_eq!(
            "rw".parse::<SandboxMode>().map_err(|e| e.to_string()),
            Err(
                "unknown sandbox mode \"rw\"; use read-only, workspace-write or danger-full-access"
                    .to_owned()
            )
        );
        assert!(!SandboxMode::DangerFullAccess.is_confined());
        assert!(SandboxMode::ReadOnly.is_confined());
    }
}
