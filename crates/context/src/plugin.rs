//! The plugin trait: what a unit of composition declares and builds.

use crate::{BoxError, Registrar, ServiceKey, short_type_name};

/// A unit of composition: declares its dependencies and builds its services and effects.
///
/// Lifecycle: `add` (no lookups) → `apply` checks declarations and config → `build` in
/// dependency order → the plugin's disposers run when the context is disposed.
pub trait Plugin: Send + Sync + 'static {
    /// Stable plugin name used in messages (defaults to the Rust type name).
    fn name(&self) -> &str {
        short_type_name(std::any::type_name::<Self>())
    }
    /// Services that must be provided by some plugin before this one builds.
    fn requires(&self) -> Vec<ServiceKey> {
        Vec::new()
    }
    /// Services this plugin uses when present; if provided, they are built first.
    fn optional(&self) -> Vec<ServiceKey> {
        Vec::new()
    }
    /// Services this plugin provides in [`Plugin::build`].
    fn provides(&self) -> Vec<ServiceKey> {
        Vec::new()
    }
    /// Validates the plugin's config; called by apply before any build. Return a message that
    /// names the bad field and the accepted range.
    fn validate_config(&self) -> Result<(), String> {
        Ok(())
    }
    /// Registers services and effects.
    ///
    /// # Errors
    /// Any error aborts apply; it is reported as [`ContextError::Build`](crate::ContextError::Build).
    fn build(&self, registrar: &mut Registrar<'_>) -> Result<(), BoxError>;
}
