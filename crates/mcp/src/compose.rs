//! Builds the root [`Context`] of the server from [`Options`].

use std::path::PathBuf;

use dsh_command_policy::{CommandPolicyConfig, CommandPolicyPlugin};
use dsh_context::{Agent, ApplyErrors, Context};
use dsh_invariants::InvariantsPlugin;
use dsh_jobs::{JobsConfig, JobsPlugin};
use dsh_sandbox::{SandboxConfig, SandboxPlugin, SessionLimits};
use dsh_system_prompt::SystemPromptPlugin;
use dsh_terminal_bash::{BashConfig, EnvPolicy, TerminalBashPlugin};
use dsh_terminal_core::{SilenceRule, SpawnRequest, TerminalsPlugin};
use dsh_tool_jobs::{ToolJobsConfig, ToolJobsPlugin};
use dsh_tool_terminal::{ToolTerminalConfig, ToolTerminalPlugin};
use dsh_tools::ToolsPlugin;

use crate::options::Options;

/// Why the root context could not be composed. Every variant is a configuration problem: the
/// binary reports it on stderr and exits with status 2.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ComposeError {
    /// The server's current directory could not be read (it is the default `--cwd`).
    #[error("cannot read the server's current directory ({source}); pass --cwd <DIR>")]
    CurrentDir {
        /// The I/O error.
        source: std::io::Error,
    },
    /// `--cwd` does not name a directory.
    #[error("--cwd {}: not a directory; pass an existing directory", path.display())]
    CwdNotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// `--cwd` lies outside `--workspace`.
    #[error(
        "--cwd {} lies outside --workspace {}: sessions start in --cwd, which must be in the workspace; pass a --cwd inside it, or only one of the two",
        cwd.display(),
        workspace.display()
    )]
    CwdOutsideWorkspace {
        /// The `--cwd` given (absolute).
        cwd: PathBuf,
        /// The `--workspace` given (absolute).
        workspace: PathBuf,
    },
    /// `--workspace` does not name a directory.
    #[error("--workspace {}: not a directory; pass an existing directory", path.display())]
    WorkspaceNotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// `--shell` cannot be the sessions' shell (see [`dsh_terminal_bash::shell_check`]):
    /// every `terminal_open` would fail.
    #[error("--shell {} {reason}, so every terminal_open would fail; pass the path of bash (such as /bin/bash)", path.display())]
    Shell {
        /// The path given.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// `--max-message-bytes` is below [`crate::MIN_MAX_MESSAGE_BYTES`].
    #[error("--max-message-bytes must be at least {min} (got {bytes})")]
    MessageLimit {
        /// The value given.
        bytes: usize,
        /// The minimum.
        min: usize,
    },
    /// A plugin rejected its config, or the plugin graph is inconsistent.
    #[error("{0}")]
    Apply(#[from] ApplyErrors),
}

/// The bash backend's config for `options` (everything else keeps [`BashConfig::default`]).
/// The working directory (`--cwd`, else `--workspace`, else the current directory) is made
/// absolute.
///
/// # Errors
/// [`ComposeError::CurrentDir`] when no `--cwd` is given and the current directory cannot be
/// read; [`ComposeError::CwdNotADirectory`] when `--cwd` is not a directory.
pub fn bash_config(options: &Options) -> Result<BashConfig, ComposeError> {
    let cwd = match &options.cwd {
        Some(path) => {
            if !path.is_dir() {
                return Err(ComposeError::CwdNotADirectory { path: path.clone() });
            }
            // Absolute, so sessions do not depend on where a relative path was resolved.
            std::path::absolute(path).map_err(|source| ComposeError::CurrentDir { source })?
        }
        // Sessions start in the workspace (the sandbox checks it is a directory).
        None => match &options.workspace {
            Some(workspace) if workspace.is_dir() => std::path::absolute(workspace)
                .map_err(|source| ComposeError::CurrentDir { source })?,
            _ => std::env::current_dir().map_err(|source| ComposeError::CurrentDir { source })?,
        },
    };
    Ok(BashConfig {
        shell_path: options.shell.clone(),
        rows: options.rows,
        cols: options.cols,
        poll_interval_ms: options.poll_interval_ms,
        exact_probe_after_ms: options.exact_probe_after_ms,
        idle_silence_ms: options.idle_silence_ms,
        silence_rule: if options.idle_on_silence_alone {
            SilenceRule::PureSilence
        } else {
            SilenceRule::KernelIdle
        },
        handoff_grace_ms: options.handoff_grace_ms,
        timeout_ms: options.timeout_ms,
        dispose_grace_ms: options.dispose_grace_ms,
        default_cwd: Some(cwd),
        env: EnvPolicy {
            inherit_host: options.inherit_env,
            pass: options.env.clone(),
        },
        ..BashConfig::default()
    })
}

/// The sandbox settings for `options`: the workspace defaults to `cwd` (the bash backend's
/// resolved working directory); a cap of 0 means no cap.
///
/// # Errors
/// [`ComposeError::WorkspaceNotADirectory`] when `--workspace` is not a directory.
pub fn sandbox_config(
    options: &Options,
    cwd: Option<&std::path::Path>,
) -> Result<SandboxConfig, ComposeError> {
    let workspace_root = match &options.workspace {
        Some(path) => {
            if !path.is_dir() {
                return Err(ComposeError::WorkspaceNotADirectory { path: path.clone() });
            }
            Some(std::path::absolute(path).map_err(|source| ComposeError::CurrentDir { source })?)
        }
        None => cwd.map(std::path::Path::to_path_buf),
    };
    let nonzero = |n: u64| (n > 0).then_some(n);
    Ok(SandboxConfig {
        mode: options.sandbox,
        workspace_root,
        allow_network: options.allow_network,
        bwrap_path: options.bwrap.clone(),
        limits: SessionLimits {
            max_pids: nonzero(options.max_session_pids),
            max_memory_bytes: nonzero(options.max_session_memory_mib)
                .map(|mib| mib.saturating_mul(1024 * 1024)),
        },
    })
}

/// The terminal tools' config for `options`.
pub fn tool_terminal_config(options: &Options) -> ToolTerminalConfig {
    ToolTerminalConfig {
        enable_run_in_background: !options.disable_run_in_background,
        max_result_bytes: options.max_result_bytes,
        max_input_bytes: options.max_input_bytes,
        max_send_timeout_ms: options.max_send_timeout_ms,
        // dsh-mcp serves no one-shot shell or file tools for the seed's wording to point at.
        prompt_text: dsh_tool_terminal::STANDALONE_PROMPT_TEXT,
    }
}

/// Composes the root context: invariants, system prompt, tools, terminals, the bash backend,
/// the terminal tools, the jobs service and the job tools (unless background sends are disabled:
/// they are the only jobs), plus every package's invariant companion.
///
/// The result owns no sessions yet; dispose it with [`Context::dispose`] when done.
///
/// # Errors
/// [`ComposeError`] naming the bad option or plugin config (every apply problem at once).
pub fn compose(options: &Options) -> Result<Context, ComposeError> {
    if options.max_message_bytes < crate::MIN_MAX_MESSAGE_BYTES {
        return Err(ComposeError::MessageLimit {
            bytes: options.max_message_bytes,
            min: crate::MIN_MAX_MESSAGE_BYTES,
        });
    }
    let bash = bash_config(options)?;
    if let Some(reason) = dsh_terminal_bash::shell_check::startup_problem(&bash.shell_path) {
        return Err(ComposeError::Shell {
            path: bash.shell_path,
            reason,
        });
    }
    let sandbox = sandbox_config(options, bash.default_cwd.as_deref())?;
    // Judged where the directories really are: a `..` or a symlink may lead out.
    let real = |path: &PathBuf| std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
    if options.cwd.is_some()
        && options.workspace.is_some()
        && let (Some(cwd), Some(workspace)) = (&bash.default_cwd, &sandbox.workspace_root)
        && !real(cwd).starts_with(real(workspace))
    {
        return Err(ComposeError::CwdOutsideWorkspace {
            cwd: cwd.clone(),
            workspace: workspace.clone(),
        });
    }
    let mut builder = Context::builder()
        .with(InvariantsPlugin)
        .with(SandboxPlugin { config: sandbox })
        .with(SystemPromptPlugin)
        .with(ToolsPlugin)
        .with(TerminalsPlugin)
        .with(TerminalBashPlugin { config: bash })
        .with(ToolTerminalPlugin {
            config: tool_terminal_config(options),
        })
        .with(CommandPolicyPlugin {
            config: CommandPolicyConfig {
                allow: options.allow_command.clone(),
                deny: options.deny_command.clone(),
                ask: options.ask_command.clone(),
            },
        })
        .with(dsh_invariants::context_invariant_companion())
        .with(dsh_invariants::invariant_companion())
        .with(dsh_output_retention::invariant_companion())
        .with(dsh_system_prompt::invariant_companion())
        .with(dsh_tools::invariant_companion())
        .with(dsh_terminal_core::invariant_companion())
        .with(dsh_sandbox::invariant_companion())
        .with(dsh_command_policy::invariant_companion())
        .with(dsh_terminal_bash::invariant_companion())
        .with(dsh_tool_terminal::invariant_companion())
        .with(dsh_jobs::invariant_companion())
        .with(dsh_tool_jobs::invariant_companion())
        .with(crate::invariant_companion());
    // Background sends are this server's only jobs: without them the job tools and their
    // guidance would only mislead the model.
    if !options.disable_run_in_background {
        builder = builder
            .with(JobsPlugin {
                config: JobsConfig {
                    max_concurrent_jobs_per_owner: options.max_concurrent_jobs_per_owner,
                },
            })
            .with(ToolJobsPlugin {
                config: ToolJobsConfig {
                    max_list_bytes: Some(options.max_result_bytes),
                    // Notices fill what a result left of the same cap (JobNotices::take).
                    max_result_bytes: Some(options.max_result_bytes),
                    ..ToolJobsConfig::default()
                },
            });
    }
    let ctx = builder.apply()?;
    if let Some(terminals) = ctx.get::<dsh_terminal_core::Terminals>() {
        let max = options.max_terminals_per_agent;
        terminals.set_max_sessions_per_owner((max > 0).then_some(max));
        terminals.set_warm_sessions(options.warm_sessions);
    }
    Ok(ctx)
}

/// Starts `agent`'s warm shell as it connects (when `--warm-sessions` is above 0), so its
/// first `terminal_open {"type":"shell"}` without a `cwd` is served by a shell already at its
/// prompt instead of waiting for one to start. The warm shell is never listed, not counted
/// against `--max-terminals-per-agent`, and closed with the agent.
pub(crate) fn prewarm_shell(ctx: &Context, agent: &Agent) {
    if let Some(terminals) = ctx.get::<dsh_terminal_core::Terminals>() {
        terminals.prewarm(
            agent,
            &SpawnRequest {
                backend_type: dsh_terminal_bash::DEFAULT_BACKEND_TYPE.to_owned(),
                ..SpawnRequest::default()
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_reach_the_plugin_configs() {
        let options = Options {
            shell: PathBuf::from("/bin/sh"),
            cwd: Some(PathBuf::from(".")),
            max_result_bytes: 100,
            max_input_bytes: 7,
            max_send_timeout_ms: 9,
            disable_run_in_background: false,
            max_concurrent_jobs_per_owner: 3,
            poll_interval_ms: 1,
            exact_probe_after_ms: 2,
            idle_silence_ms: 3,
            idle_on_silence_alone: true,
            handoff_grace_ms: 4,
            timeout_ms: 5,
            dispose_grace_ms: 6,
            rows: 7,
            cols: 8,
            max_message_bytes: 4096,
            env: vec!["A=1".parse().unwrap()],
            inherit_env: true,
            ..Options::default()
        };
        let bash = bash_config(&options).unwrap();
        assert_eq!(bash.shell_path, PathBuf::from("/bin/sh"));
        assert!(bash.default_cwd.as_ref().is_some_and(|p| p.is_absolute()));
        assert_eq!(
            (
                bash.poll_interval_ms,
                bash.exact_probe_after_ms,
                bash.idle_silence_ms
            ),
            (1, 2, 3)
        );
        assert_eq!(bash.silence_rule, SilenceRule::PureSilence);
        assert_eq!(
            (
                bash.handoff_grace_ms,
                bash.timeout_ms,
                bash.dispose_grace_ms
            ),
            (4, 5, 6)
        );
        assert_eq!((bash.rows, bash.cols), (7, 8));
        assert_eq!(bash.backend_type, "shell");
        assert!(bash.env.inherit_host);
        assert_eq!(bash.env.pass, options.env);
        assert_eq!(
            tool_terminal_config(&options),
            ToolTerminalConfig {
                enable_run_in_background: true,
                max_result_bytes: 100,
                max_input_bytes: 7,
                max_send_timeout_ms: 9,
                prompt_text: dsh_tool_terminal::STANDALONE_PROMPT_TEXT,
            }
        );
    }

    #[test]
    fn sandbox_options_reach_the_sandbox_config() {
        let cwd = std::env::temp_dir();
        let defaults = sandbox_config(&Options::default(), Some(&cwd)).unwrap();
        assert_eq!(defaults.mode, dsh_sandbox::SandboxMode::WorkspaceWrite);
        assert_eq!(defaults.workspace_root.as_deref(), Some(cwd.as_path()));
        assert!(!defaults.allow_network);
        assert_eq!(
            defaults.limits,
            SessionLimits {
                max_pids: Some(1024),
                max_memory_bytes: Some(4096 * 1024 * 1024),
            }
        );
        let options = Options {
            sandbox: dsh_sandbox::SandboxMode::ReadOnly,
            workspace: Some(PathBuf::from("/")),
            allow_network: true,
            max_session_pids: 0,
            max_session_memory_mib: 0,
            ..Options::default()
        };
        let c = sandbox_config(&options, Some(&cwd)).unwrap();
        assert_eq!(c.workspace_root.as_deref(), Some(std::path::Path::new("/")));
        assert!(c.allow_network);
        assert_eq!(c.limits, SessionLimits::default());
    }

    /// Sessions start in `--cwd` inside `--workspace`, else in the workspace; a `--cwd`
    /// outside it is refused.
    #[test]
    fn cwd_and_workspace_together() {
        let workspace = std::env::temp_dir();
        let inside = workspace.join(format!("dsh-compose-{}", std::process::id()));
        std::fs::create_dir_all(&inside).unwrap();
        let both = Options {
            workspace: Some(workspace.clone()),
            cwd: Some(inside.clone()),
            ..Options::default()
        };
        assert_eq!(
            bash_config(&both).unwrap().default_cwd,
            Some(inside.clone())
        );
        let workspace_only = Options {
            workspace: Some(inside.clone()),
            ..Options::default()
        };
        assert_eq!(
            bash_config(&workspace_only).unwrap().default_cwd,
            Some(inside.clone())
        );
        let outside = Options {
            workspace: Some(inside.clone()),
            cwd: Some(workspace.clone()),
            ..Options::default()
        };
        let e = compose(&outside).err().map(|e| e.to_string());
        // Out through `..`, or a symlink in the workspace to a directory outside it.
        let link = inside.join("out");
        std::os::unix::fs::symlink(&workspace, &link).unwrap();
        for cwd in [inside.join(".."), link.clone()] {
            let options = Options {
                workspace: Some(inside.clone()),
                cwd: Some(cwd.clone()),
                ..Options::default()
            };
            let refused = compose(&options).err().map(|e| e.to_string());
            assert!(
                refused.is_some_and(|e| e.contains("lies outside --workspace")),
                "{}",
                cwd.display()
            );
        }
        std::fs::remove_file(&link).unwrap();
        std::fs::remove_dir(&inside).unwrap();
        assert_eq!(
            e,
            Some(format!(
                "--cwd {} lies outside --workspace {}: sessions start in --cwd, which must be in the workspace; pass a --cwd inside it, or only one of the two",
                workspace.display(),
                inside.display()
            ))
        );
    }

    #[test]
    fn a_missing_cwd_is_a_config_error() {
        let options = Options {
            cwd: Some(PathBuf::from("/nonexistent/dsh-mcp")),
            ..Options::default()
        };
        let e = bash_config(&options).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--cwd /nonexistent/dsh-mcp: not a directory; pass an existing directory"
        );
    }
}
