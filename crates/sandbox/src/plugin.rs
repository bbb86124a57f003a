//! [`SandboxPlugin`]: provides [`SandboxPolicies`], the [`Sandbox`] (bubblewrap) and
//! [`ResourceLimits`].

use std::path::PathBuf;
use std::sync::Arc;

use dsh_context::{BoxError, Plugin, Registrar, ServiceKey};
use dsh_system_prompt::SystemPrompt;

use crate::bwrap::{Bubblewrap, DEFAULT_BWRAP, Sandbox};
use crate::limits::{ResourceLimits, SessionLimits};
use crate::mode::SandboxMode;
use crate::policy::{PolicyDefaults, SandboxPolicies};
use crate::prompt::{PROMPT_SECTION_NAME, PROMPT_SECTION_ORDER, prompt_text};

/// The operator's sandbox settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxConfig {
    /// Mode of every owner until changed per owner.
    pub mode: SandboxMode,
    /// Workspace root of every owner until changed per owner; `None`: the current directory
    /// when the plugin builds.
    pub workspace_root: Option<PathBuf>,
    /// Whether confined sessions keep the host's network.
    pub allow_network: bool,
    /// The bubblewrap program: a path, or a bare name looked up in `PATH` (see
    /// [`Bubblewrap::locate`]).
    pub bwrap_path: PathBuf,
    /// Per-session caps.
    pub limits: SessionLimits,
}

impl Default for SandboxConfig {
    /// `workspace-write` in the current directory, no network, no caps.
    fn default() -> Self {
        Self {
            mode: SandboxMode::WorkspaceWrite,
            workspace_root: None,
            allow_network: false,
            bwrap_path: PathBuf::from(DEFAULT_BWRAP),
            limits: SessionLimits::default(),
        }
    }
}

/// Plugin `sandbox`: provides the policy service (`SandboxPolicies`), the confinement
/// (`dyn Sandbox`, bubblewrap) and the per-session limits (`ResourceLimits`). A shell backend
/// that finds them applies them at launch.
#[derive(Clone, Debug, Default)]
pub struct SandboxPlugin {
    /// The settings.
    pub config: SandboxConfig,
}

impl Plugin for SandboxPlugin {
    fn name(&self) -> &str {
        "sandbox"
    }

    fn provides(&self) -> Vec<ServiceKey> {
        vec![
            ServiceKey::of::<SandboxPolicies>(),
            ServiceKey::of::<dyn Sandbox>(),
            ServiceKey::of::<ResourceLimits>(),
        ]
    }

    fn optional(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<SystemPrompt>()]
    }

    fn validate_config(&self) -> Result<(), String> {
        if let Some(root) = &self.config.workspace_root
            && !root.is_dir()
        {
            return Err(format!(
                "sandbox: workspace root {} is not a directory; pass an existing directory",
                root.display()
            ));
        }
        for (name, value) in [
            ("max_pids", self.config.limits.max_pids),
            ("max_memory_bytes", self.config.limits.max_memory_bytes),
        ] {
            if value == Some(0) {
                return Err(format!("sandbox: {name} must be positive"));
            }
        }
        Ok(())
    }

    fn build(&self, registrar: &mut Registrar<'_>) -> Result<(), BoxError> {
        let root = match &self.config.workspace_root {
            Some(root) => std::path::absolute(root)?,
            None => std::env::current_dir()?,
        };
        // The model hears what the host's default confinement changes for its sessions.
        if let Some(prompt) = registrar.get::<SystemPrompt>()
            && let Some(text) = prompt_text(self.config.mode, self.config.allow_network)
        {
            prompt.section(PROMPT_SECTION_NAME, PROMPT_SECTION_ORDER, text)?;
            registrar.on_dispose(move || {
                Box::pin(async move {
                    prompt.remove(PROMPT_SECTION_NAME);
                })
            });
        }
        registrar.provide(Arc::new(SandboxPolicies::new(PolicyDefaults {
            mode: self.config.mode,
            workspace_root: root,
            allow_network: self.config.allow_network,
        })));
        let bubblewrap = Bubblewrap::at(self.config.bwrap_path.clone());
        // Said at start-up to the operator, who can fix it (the model hears it at each open).
        if self.config.mode.is_confined()
            && let Err(problem) = bubblewrap.locate()
        {
            tracing::warn!("{}", problem.start_up_warning());
        }
        let sandbox: Arc<dyn Sandbox> = Arc::new(bubblewrap);
        registrar.provide(sandbox);
        registrar.provide(Arc::new(ResourceLimits::new(self.config.limits)));
        Ok(())
    }
}
