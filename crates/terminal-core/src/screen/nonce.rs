//! The per-session token that tells the shell's genuine prompt marks from look-alikes a
//! program prints.

use crate::error::{TerminalError, TerminalErrorCode};

/// A per-session random token carried by every genuine prompt mark (16+ hex characters).
#[derive(Clone, PartialEq, Eq)]
pub struct PromptNonce(String);

impl std::fmt::Debug for PromptNonce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not a secret from the model (it can read PS1), but no reason to spread it in logs.
        f.write_str("PromptNonce(..)")
    }
}

impl PromptNonce {
    /// Least number of hex characters a nonce must have.
    pub const MIN_HEX_CHARS: usize = 16;

    /// 128 random bits from the OS, as 32 lowercase hex characters.
    ///
    /// # Errors
    /// `Spawn` when the OS random source is unavailable.
    pub fn generate() -> Result<Self, TerminalError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| {
            TerminalError::new(
                TerminalErrorCode::Spawn,
                format!("cannot generate a prompt nonce: {e}"),
            )
        })?;
        Ok(Self(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// Wraps an existing nonce; `None` unless it is at least [`Self::MIN_HEX_CHARS`] hex
    /// characters.
    pub fn from_hex(hex: impl Into<String>) -> Option<Self> {
        let hex = hex.into();
        (hex.len() >= Self::MIN_HEX_CHARS && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .then_some(Self(hex))
    }

    /// The hex text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}
