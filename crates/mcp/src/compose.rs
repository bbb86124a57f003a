//! Builds the root [`Context`] of the server from [`Options`].

use std::path::PathBuf;

use dsh_context::{ApplyErrors, Context};
use dsh_invariants::InvariantsPlugin;
use dsh_system_prompt::SystemPromptPlugin;
use dsh_terminal_bash::{BashConfig, TerminalBashPlugin};
use dsh_terminal_core::{SilenceRule, TerminalsPlugin};
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
    /// A plugin rejected its config, or the plugin graph is inconsistent.
    #[error("{0}")]
    Apply(#[from] ApplyErrors),
}

/// The bash backend's config for `options` (everything else keeps [`BashConfig::default`]).
/// The working directory is made absolute.
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
        None => std::env::current_dir().map_err(|source| ComposeError::CurrentDir { source })?,
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
        ..BashConfig::default()
    })
}

/// The terminal tools' config for `options`.
pub fn tool_terminal_config(options: &Options) -> ToolTerminalConfig {
    ToolTerminalConfig {
        enable_run_in_background: options.enable_run_in_background,
        max_result_bytes: options.max_result_bytes,
        max_input_bytes: options.max_input_bytes,
    }
}

/// Composes the root context: invariants, system prompt, tools, terminals, the bash backend and
/// the terminal tools, plus every package's invariant companion.
///
/// The result owns no sessions yet; dispose it with [`Context::dispose`] when done.
///
/// # Errors
/// [`ComposeError`] naming the bad option or plugin config (every apply problem at once).
pub fn compose(options: &Options) -> Result<Context, ComposeError> {
    let bash = bash_config(options)?;
    let ctx = Context::builder()
        .with(InvariantsPlugin)
        .with(SystemPromptPlugin)
        .with(ToolsPlugin)
        .with(TerminalsPlugin)
        .with(TerminalBashPlugin { config: bash })
        .with(ToolTerminalPlugin {
            config: tool_terminal_config(options),
        })
        .with(dsh_invariants::context_invariant_companion())
        .with(dsh_invariants::invariant_companion())
        .with(dsh_output_retention::invariant_companion())
        .with(dsh_system_prompt::invariant_companion())
        .with(dsh_tools::invariant_companion())
        .with(dsh_terminal_core::invariant_companion())
        .with(dsh_terminal_bash::invariant_companion())
        .with(dsh_tool_terminal::invariant_companion())
        .with(crate::invariant_companion())
        .apply()?;
    Ok(ctx)
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
            enable_run_in_background: true,
            poll_interval_ms: 1,
            exact_probe_after_ms: 2,
            idle_silence_ms: 3,
            idle_on_silence_alone: true,
            handoff_grace_ms: 4,
            timeout_ms: 5,
            dispose_grace_ms: 6,
            rows: 7,
            cols: 8,
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
        assert_eq!(
            tool_terminal_config(&options),
            ToolTerminalConfig {
                enable_run_in_background: true,
                max_result_bytes: 100,
                max_input_bytes: 7,
            }
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
