//! The problems `apply` and lookups report.

use std::fmt;

/// Problems found by [`ContextBuilder::apply`](crate::ContextBuilder::apply) or by a lookup.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContextError {
    /// A plugin requires a service that no plugin provides.
    #[error(
        "plugin `{plugin}` requires service `{service}`, which no registered plugin provides; add the plugin that provides it before calling apply()"
    )]
    MissingService {
        /// The requiring plugin.
        plugin: String,
        /// The missing service's type name.
        service: String,
    },
    /// Two plugins with the same name were added.
    #[error("plugin `{name}` was added twice; add each plugin once")]
    DuplicatePlugin {
        /// The plugin name.
        name: String,
    },
    /// Two plugins (or one plugin twice) provide the same service in one scope.
    #[error("service `{service}` is provided by both `{first}` and `{second}`; keep one provider")]
    DuplicateService {
        /// The service's type name.
        service: String,
        /// The first provider.
        first: String,
        /// The second provider.
        second: String,
    },
    /// The requires/provides graph has a cycle.
    #[error("plugins form a dependency cycle: {path}")]
    Cycle {
        /// The plugins in the cycle, joined by ` -> `.
        path: String,
    },
    /// A plugin's config failed validation.
    #[error("plugin `{plugin}` has invalid config: {message}")]
    InvalidConfig {
        /// The plugin.
        plugin: String,
        /// What is wrong, naming the field.
        message: String,
    },
    /// A plugin's build step failed.
    #[error("plugin `{plugin}` failed to build: {message}")]
    Build {
        /// The plugin.
        plugin: String,
        /// The error text.
        message: String,
    },
    /// A plugin provided a service it did not declare in [`Plugin::provides`](crate::Plugin::provides).
    #[error("plugin `{plugin}` provided `{service}` without declaring it in provides()")]
    UndeclaredService {
        /// The plugin.
        plugin: String,
        /// The service.
        service: String,
    },
    /// A plugin declared a service in provides() but did not provide it in build().
    #[error("plugin `{plugin}` declared `{service}` in provides() but did not provide it")]
    NotProvided {
        /// The plugin.
        plugin: String,
        /// The service.
        service: String,
    },
    /// A lookup for a service that is not present in this context or its parents.
    #[error("service `{service}` is not available in this context")]
    NotAvailable {
        /// The service.
        service: String,
    },
    /// The context was already disposed.
    #[error("context is disposed")]
    Disposed,
}

/// Every problem found by one [`ContextBuilder::apply`](crate::ContextBuilder::apply) call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyErrors(pub Vec<ContextError>);

impl fmt::Display for ApplyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "context apply failed with {} problem(s)", self.0.len())?;
        for e in &self.0 {
            write!(f, "\n- {e}")?;
        }
        Ok(())
    }
}
impl std::error::Error for ApplyErrors {}
