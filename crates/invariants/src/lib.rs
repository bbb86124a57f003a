//! Registry of per-package invariant companions (the seed's §7.2).
//!
//! Every package crate ships a companion plugin ([`Companion`]) that registers its package name
//! with the [`Invariants`] service, together with either a real runtime check (for packages
//! with observable state) or a documented reason why there is nothing to check yet.
//! [`Invariants::check_all`] runs every registered check and returns every violation.
//!
//! ```
//! use dsh_context::Context;
//! use dsh_invariants::{Companion, Invariants, InvariantsPlugin};
//!
//! let ctx = Context::builder()
//!     .with(InvariantsPlugin)
//!     .with(Companion::none("dsh-example", "no runtime invariant: stateless adapter"))
//!     .apply()
//!     .unwrap();
//! let invariants = ctx.require::<Invariants>().unwrap();
//! assert_eq!(invariants.packages(), vec!["dsh-example".to_owned()]);
//! assert!(invariants.check_all(&ctx).is_empty());
//! ```

use std::sync::Arc;

use parking_lot::Mutex;

use dsh_context::{BoxError, Context, Plugin, Registrar, ServiceKey};

/// A runtime check: given the context, return `Err(message)` when the package's observable
/// state violates one of its invariants.
pub type CheckFn = Arc<dyn Fn(&Context) -> Result<(), String> + Send + Sync>;

/// What a package registers.
#[derive(Clone)]
pub enum InvariantCheck {
    /// Nothing to check; the reason says why (it starts with "no runtime invariant:").
    None {
        /// Why there is nothing to check.
        reason: &'static str,
    },
    /// A real check.
    Check(CheckFn),
}

/// Registration errors.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvariantError {
    /// Names must be non-empty and contain no whitespace.
    #[error("invariants: package name {0:?} must be non-empty and contain no whitespace")]
    InvalidName(String),
    /// One registration per package.
    #[error("invariants: package {0:?} is already registered")]
    Duplicate(String),
}

/// One failed check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invariant violated by {package:?}: {message}")]
pub struct InvariantViolation {
    /// The package whose check failed.
    pub package: String,
    /// What the check reported.
    pub message: String,
}

/// The `Invariants` service.
#[derive(Default)]
pub struct Invariants {
    entries: Mutex<Vec<(String, InvariantCheck)>>,
}

impl Invariants {
    /// Registers `package` once.
    ///
    /// # Errors
    /// [`InvariantError::InvalidName`] or [`InvariantError::Duplicate`].
    pub fn register(&self, package: &str, check: InvariantCheck) -> Result<(), InvariantError> {
        if package.is_empty() || package.chars().any(char::is_whitespace) {
            return Err(InvariantError::InvalidName(package.to_owned()));
        }
        let mut entries = self.entries.lock();
        if entries.iter().any(|(p, _)| p == package) {
            return Err(InvariantError::Duplicate(package.to_owned()));
        }
        entries.push((package.to_owned(), check));
        Ok(())
    }

    /// Removes a registration (so a reloaded companion can register again).
    pub fn unregister(&self, package: &str) {
        let mut entries = self.entries.lock();
        entries.retain(|(p, _)| p != package);
    }

    /// Registered package names, in registration order.
    pub fn packages(&self) -> Vec<String> {
        let entries = self.entries.lock();
        entries.iter().map(|(p, _)| p.clone()).collect()
    }

    /// The reason a package gave for having no check, if it registered [`InvariantCheck::None`].
    pub fn reason(&self, package: &str) -> Option<&'static str> {
        let entries = self.entries.lock();
        entries.iter().find_map(|(p, c)| match c {
            InvariantCheck::None { reason } if p == package => Some(*reason),
            _ => None,
        })
    }

    /// Runs every real check and returns every violation (empty when all hold).
    pub fn check_all(&self, ctx: &Context) -> Vec<InvariantViolation> {
        let checks: Vec<(String, CheckFn)> = {
            let entries = self.entries.lock();
            entries
                .iter()
                .filter_map(|(p, c)| match c {
                    InvariantCheck::Check(f) => Some((p.clone(), f.clone())),
                    InvariantCheck::None { .. } => None,
                })
                .collect()
        };
        checks
            .into_iter()
            .filter_map(|(package, f)| {
                f(ctx)
                    .err()
                    .map(|message| InvariantViolation { package, message })
            })
            .collect()
    }
}

/// Provides the [`Invariants`] service.
pub struct InvariantsPlugin;

impl Plugin for InvariantsPlugin {
    fn name(&self) -> &str {
        "invariants"
    }
    fn provides(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<Invariants>()]
    }
    fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
        r.provide(Arc::new(Invariants::default()));
        Ok(())
    }
}

/// A package's invariant companion plugin: registers the package with [`Invariants`] and
/// unregisters it on dispose. Its plugin name is `<package>-invariant`.
pub struct Companion {
    package: &'static str,
    plugin_name: String,
    check: InvariantCheck,
}

impl Companion {
    /// A companion with nothing to check; `reason` should start with "no runtime invariant:".
    pub fn none(package: &'static str, reason: &'static str) -> Self {
        Self {
            package,
            plugin_name: format!("{package}-invariant"),
            check: InvariantCheck::None { reason },
        }
    }

    /// A companion with a real check.
    pub fn check(
        package: &'static str,
        f: impl Fn(&Context) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            package,
            plugin_name: format!("{package}-invariant"),
            check: InvariantCheck::Check(Arc::new(f)),
        }
    }
}

impl Plugin for Companion {
    fn name(&self) -> &str {
        &self.plugin_name
    }
    fn requires(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<Invariants>()]
    }
    fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
        let invariants = r.require::<Invariants>()?;
        invariants.register(self.package, self.check.clone())?;
        let package = self.package;
        r.on_dispose(move || {
            Box::pin(async move {
                invariants.unregister(package);
            })
        });
        Ok(())
    }
}

/// This crate's own companion. No runtime invariant: the registry's only state is its entry
/// list, whose uniqueness `register` enforces on every insert.
pub fn invariant_companion() -> Companion {
    Companion::none(
        "dsh-invariants",
        "no runtime invariant: the registry's only state is its entry list, whose uniqueness register() enforces",
    )
}

/// The companion of `dsh-context`, which cannot depend on this crate (the dependency runs the
/// other way), so it ships here. No runtime invariant: a context's observable state is its
/// service map, whose uniqueness `provide` enforces, and its disposer list.
pub fn context_invariant_companion() -> Companion {
    Companion::none(
        "dsh-context",
        "no runtime invariant: the container's only observable state is its service map, whose uniqueness provide() enforces at insert",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_and_invalid_names_are_rejected() {
        let inv = Invariants::default();
        inv.register("a", InvariantCheck::None { reason: "x" })
            .unwrap();
        assert_eq!(
            inv.register("a", InvariantCheck::None { reason: "x" }),
            Err(InvariantError::Duplicate("a".into()))
        );
        assert!(matches!(
            inv.register("has space", InvariantCheck::None { reason: "x" }),
            Err(InvariantError::InvalidName(_))
        ));
        assert!(matches!(
            inv.register("", InvariantCheck::None { reason: "x" }),
            Err(InvariantError::InvalidName(_))
        ));
    }

    #[test]
    fn check_all_reports_every_violation() {
        let ctx = Context::builder()
            .with(InvariantsPlugin)
            .with(Companion::check("bad-one", |_| {
                Err("counter went backwards".into())
            }))
            .with(Companion::check("good", |_| Ok(())))
            .with(invariant_companion())
            .apply()
            .unwrap();
        let inv = ctx.require::<Invariants>().unwrap();
        let v = inv.check_all(&ctx);
        assert_eq!(v.len(), 1);
        assert_eq!(
            v[0].to_string(),
            "invariant violated by \"bad-one\": counter went backwards"
        );
        assert!(
            inv.reason("dsh-invariants")
                .unwrap()
                .starts_with("no runtime invariant:")
        );
    }

    #[tokio::test]
    async fn disposing_releases_the_name() {
        let ctx = Context::builder()
            .with(InvariantsPlugin)
            .with(Companion::none("p", "no runtime invariant: test"))
            .apply()
            .unwrap();
        let inv = ctx.require::<Invariants>().unwrap();
        ctx.dispose().await;
        assert!(inv.packages().is_empty());
    }
}
