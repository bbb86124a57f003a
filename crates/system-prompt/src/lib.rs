//! Ordered, prefix-stable system prompt sections (the seed's §7.3).
//!
//! Plugins contribute named text sections to the [`SystemPrompt`] service with an `order`;
//! [`SystemPrompt::assemble`] sorts them by ascending order (stable: ties keep registration
//! order), drops empty ones and joins the rest with a blank line. Texts are static, so the
//! assembled prompt is byte-identical while the set of plugins is unchanged, which keeps the
//! prompt prefix stable for KV caching. [`SystemPromptPlugin`] provides the service.
//!
//! ```
//! use dsh_system_prompt::{SystemPrompt, bands};
//!
//! let prompt = SystemPrompt::new();
//! prompt.section("tool:pty", bands::TOOL_GUIDANCE + 6, "Track every terminal session id.").unwrap();
//! prompt.section("identity", bands::IDENTITY, "You are an agent.").unwrap();
//! assert_eq!(prompt.assemble(), "You are an agent.\n\nTrack every terminal session id.");
//! ```

#![forbid(unsafe_code)]

use std::sync::Arc;

use parking_lot::Mutex;

use dsh_context::{BoxError, Plugin, Registrar, ServiceKey};

/// Conventional order bands (the seed's §7.3). Lower orders come first.
pub mod bands {
    /// Harness identity.
    pub const IDENTITY: i32 = -100;
    /// Deployment persona.
    pub const PERSONA: i32 = 0;
    /// Start of the tool-guidance band (100–199; the terminal tools use 106).
    pub const TOOL_GUIDANCE: i32 = 100;
}

/// Errors from [`SystemPrompt::section`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// Section names must be non-empty.
    #[error("system prompt section name must be non-empty")]
    EmptyName,
    /// A section with this name is already registered.
    #[error(
        "system prompt section {name:?} is already registered; remove it first or pick another name"
    )]
    Duplicate {
        /// The duplicated name.
        name: String,
    },
}

#[derive(Debug, Clone)]
struct Section {
    name: String,
    order: i32,
    text: String,
}

/// The system prompt service: a set of uniquely named, ordered text sections.
#[derive(Debug, Default)]
pub struct SystemPrompt {
    // Kept in registration order; assembly sorts a copy stably.
    sections: Mutex<Vec<Section>>,
}

impl SystemPrompt {
    /// An empty prompt.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds section `name` at `order` (lower first; ties keep registration order).
    ///
    /// # Errors
    /// [`PromptError::EmptyName`] for an empty name; [`PromptError::Duplicate`] when `name` is
    /// already registered.
    pub fn section(
        &self,
        name: &str,
        order: i32,
        text: impl Into<String>,
    ) -> Result<(), PromptError> {
        if name.is_empty() {
            return Err(PromptError::EmptyName);
        }
        let mut sections = self.lock();
        if sections.iter().any(|s| s.name == name) {
            return Err(PromptError::Duplicate {
                name: name.to_owned(),
            });
        }
        sections.push(Section {
            name: name.to_owned(),
            order,
            text: text.into(),
        });
        Ok(())
    }

    /// Removes section `name`; returns whether it existed.
    pub fn remove(&self, name: &str) -> bool {
        let mut sections = self.lock();
        let before = sections.len();
        sections.retain(|s| s.name != name);
        sections.len() != before
    }

    /// The assembled prompt: sections sorted by ascending order (stable), sections whose text is
    /// empty or only whitespace dropped, the rest joined by a blank line (`"\n\n"`).
    pub fn assemble(&self) -> String {
        self.sorted()
            .iter()
            .filter(|s| !s.text.trim().is_empty())
            .map(|s| s.text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// `(name, order)` of every section, in assembly order (empty sections included).
    pub fn sections(&self) -> Vec<(String, i32)> {
        self.sorted()
            .into_iter()
            .map(|s| (s.name, s.order))
            .collect()
    }

    fn sorted(&self) -> Vec<Section> {
        let mut sections = self.lock().clone();
        // `sort_by_key` is stable: ties keep registration order.
        sections.sort_by_key(|s| s.order);
        sections
    }

    fn lock(&self) -> parking_lot::MutexGuard<'_, Vec<Section>> {
        self.sections.lock()
    }
}

/// Provides [`SystemPrompt`] (as `Arc<SystemPrompt>`) under the plugin name `system-prompt`.
pub struct SystemPromptPlugin;

impl Plugin for SystemPromptPlugin {
    fn name(&self) -> &str {
        "system-prompt"
    }
    fn provides(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<SystemPrompt>()]
    }
    fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
        r.provide(Arc::new(SystemPrompt::new()));
        Ok(())
    }
}

/// This crate's invariant companion. When a [`SystemPrompt`] is present it checks that section
/// names are unique and non-empty, that [`SystemPrompt::sections`] is in non-decreasing order,
/// and that assembly is deterministic (two assemblies are byte-identical).
pub fn invariant_companion() -> dsh_invariants::Companion {
    dsh_invariants::Companion::check("dsh-system-prompt", |ctx| {
        let Some(prompt) = ctx.get::<SystemPrompt>() else {
            return Ok(());
        };
        check_prompt(&prompt)
    })
}

fn check_prompt(prompt: &SystemPrompt) -> Result<(), String> {
    let sections = prompt.sections();
    let mut names: Vec<&str> = sections.iter().map(|(n, _)| n.as_str()).collect();
    if names.iter().any(|n| n.is_empty()) {
        return Err("a system prompt section has an empty name".to_owned());
    }
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!(
            "system prompt section {:?} is registered twice",
            w[0]
        ));
    }
    if let Some(w) = sections.windows(2).find(|w| w[0].1 > w[1].1) {
        return Err(format!(
            "system prompt sections out of order: {:?} ({}) before {:?} ({})",
            w[0].0, w[0].1, w[1].0, w[1].1
        ));
    }
    if prompt.assemble() != prompt.assemble() {
        return Err("system prompt assembly is not deterministic".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dsh_context::Context;
    use dsh_invariants::{Invariants, InvariantsPlugin};
    use pretty_assertions::assert_eq;

    fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn assembles_by_order_with_stable_ties_and_drops_empty_sections() {
        let p = SystemPrompt::new();
        ok(p.section("tool:jobs", 106, "Jobs guidance."));
        ok(p.section("tool:pty", 106, "Use a terminal session only when work needs persistent terminal state or interactive stdin; prefer shell/read/write/edit for bounded one-shot operations. Track every terminal session id and close sessions that no longer matter. An inferred_idle or timeout result does not prove the foreground command exited."));
        ok(p.section("persona", bands::PERSONA, "You help with this repository."));
        ok(p.section("empty", 50, ""));
        ok(p.section("blank", 51, "  \n "));
        ok(p.section(
            "identity",
            bands::IDENTITY,
            "You are an AI agent powered by DeepSeek Harness.",
        ));
        insta::assert_snapshot!(p.assemble());
        assert_eq!(
            p.sections(),
            vec![
                ("identity".to_owned(), -100),
                ("persona".to_owned(), 0),
                ("empty".to_owned(), 50),
                ("blank".to_owned(), 51),
                ("tool:jobs".to_owned(), 106),
                ("tool:pty".to_owned(), 106),
            ]
        );
        assert_eq!(check_prompt(&p), Ok(()));
    }

    #[test]
    fn duplicate_and_empty_names_are_rejected() {
        let p = SystemPrompt::new();
        ok(p.section("a", 1, "x"));
        let dup = p.section("a", 2, "y");
        assert_eq!(dup, Err(PromptError::Duplicate { name: "a".into() }));
        assert_eq!(
            dup.err().map(|e| e.to_string()).unwrap_or_default(),
            "system prompt section \"a\" is already registered; remove it first or pick another name"
        );
        assert_eq!(p.section("", 1, "x"), Err(PromptError::EmptyName));
        assert_eq!(p.assemble(), "x");
    }

    #[test]
    fn remove_frees_the_name() {
        let p = SystemPrompt::new();
        ok(p.section("a", 1, "x"));
        assert!(p.remove("a"));
        assert!(!p.remove("a"));
        assert_eq!(p.assemble(), "");
        ok(p.section("a", 1, "z"));
        assert_eq!(p.assemble(), "z");
    }

    #[tokio::test]
    async fn plugin_provides_the_service_and_the_companion_checks_it() {
        let ctx = ok(Context::builder()
            .with(InvariantsPlugin)
            .with(SystemPromptPlugin)
            .with(invariant_companion())
            .apply());
        let prompt = ok(ctx.require::<SystemPrompt>());
        ok(prompt.section("identity", bands::IDENTITY, "hello"));
        let inv = ok(ctx.require::<Invariants>());
        assert_eq!(inv.packages(), vec!["dsh-system-prompt".to_owned()]);
        assert!(inv.check_all(&ctx).is_empty());
        ctx.dispose().await;
        assert!(inv.packages().is_empty());
    }
}
