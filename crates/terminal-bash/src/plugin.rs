//! [`TerminalBashPlugin`]: registers the `shell` backend on the `Terminals` service.

use std::sync::Arc;

use dsh_context::{BoxError, Plugin, Registrar, ServiceKey};
use dsh_sandbox::{ResourceLimits, Sandbox, SandboxPolicies};
use dsh_terminal_core::Terminals;

use crate::backend::BashBackend;
use crate::config::BashConfig;
use crate::confine::Sandboxing;

/// Plugin `terminal-bash`: requires `Terminals`, validates its [`BashConfig`], registers a
/// [`BashBackend`] under `config.backend_type` and unregisters it on dispose. Sessions already
/// open keep working after the backend is unregistered.
///
/// Uses, when present, `SandboxPolicies`, `dyn Sandbox` and `ResourceLimits` (see
/// [`Sandboxing`]), and installs the mode fence: an owner's sandbox mode or workspace cannot
/// change while it has sessions open or being created; a change it lets through discards the
/// owner's warm sessions, which were started under the old policy.
#[derive(Clone, Debug, Default)]
pub struct TerminalBashPlugin {
    /// The backend's configuration.
    pub config: BashConfig,
}

impl Plugin for TerminalBashPlugin {
    fn name(&self) -> &str {
        "terminal-bash"
    }

    fn requires(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<Terminals>()]
    }

    fn optional(&self) -> Vec<ServiceKey> {
        vec![
            ServiceKey::of::<SandboxPolicies>(),
            ServiceKey::of::<dyn Sandbox>(),
            ServiceKey::of::<ResourceLimits>(),
        ]
    }

    fn validate_config(&self) -> Result<(), String> {
        self.config.validate().map_err(|e| e.to_string())
    }

    fn build(&self, registrar: &mut Registrar<'_>) -> Result<(), BoxError> {
        let terminals = registrar.require::<Terminals>()?;
        let sandboxing = Sandboxing {
            policies: registrar.get::<SandboxPolicies>(),
            sandbox: registrar.get::<dyn Sandbox>(),
            limits: registrar.get::<ResourceLimits>(),
        };
        if let Some(policies) = &sandboxing.policies {
            let weak = Arc::downgrade(&terminals);
            policies.add_fence(Arc::new(move |owner| {
                weak.upgrade()
                    .is_some_and(|terminals| terminals.has_owner_activity_or_discard_warm(owner))
            }));
        }
        let backend = Arc::new(BashBackend::with_sandboxing(
            self.config.clone(),
            sandboxing,
        ));
        terminals.register_backend(backend)?;
        let backend_type = self.config.backend_type.clone();
        let weak = Arc::downgrade(&terminals);
        registrar.on_dispose(move || {
            Box::pin(async move {
                if let Some(terminals) = weak.upgrade() {
                    terminals.unregister_backend(&backend_type);
                }
            })
        });
        Ok(())
    }
}
