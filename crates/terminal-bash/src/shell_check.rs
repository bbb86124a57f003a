//! Whether the configured shell can be this backend's shell: an executable file that is bash.
//! A session's start checks both (running the shell once when it fails to start, to tell a
//! shell that is not bash from other failures); a server checks at start-up what it can
//! without running the shell (see [`startup_problem`]). The wording of both lives here.

use std::path::Path;

/// Why a shell that is not an executable file cannot be used, after its path.
pub const NOT_EXECUTABLE: &str = "is not an executable file on this host";

/// Why a shell that is not bash cannot be used, after its path.
pub const NOT_BASH: &str = "is not bash (this backend needs bash's line editor and prompt hooks)";

/// Shells known not to be bash, by the name of the file a shell's path resolves to (`/bin/sh`
/// is often `dash`).
const NOT_BASH_NAMES: &[&str] = &[
    "ash", "busybox", "csh", "dash", "elvish", "fish", "ksh", "ksh93", "mksh", "nu", "oksh",
    "pdksh", "posh", "pwsh", "tcsh", "xonsh", "yash", "zsh",
];

/// Whether `path` is a file with an execute permission bit set.
pub(crate) fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether the program at `shell` is bash: run with `-c`, it has a `BASH_VERSION` (blocking).
/// A program that cannot be run counts as bash (its own error then stands).
pub(crate) fn runs_bash(shell: &Path) -> bool {
    std::process::Command::new(shell)
        .args(["-c", "printf %s \"$BASH_VERSION\""])
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .map_or(true, |out| !out.stdout.is_empty())
}

/// Why `shell` cannot be the backend's shell, as far as is known without running it (a
/// server's start-up): it is not an executable file ([`NOT_EXECUTABLE`]), or the file it
/// resolves to is a shell known not to be bash ([`NOT_BASH`], naming that file when it is
/// another path). `None` when it may be bash: whether it is shows when a session starts.
#[must_use]
pub fn startup_problem(shell: &Path) -> Option<String> {
    if !is_executable_file(shell) {
        return Some(NOT_EXECUTABLE.to_owned());
    }
    let real = std::fs::canonicalize(shell).ok()?;
    let name = real.file_name()?.to_str()?;
    if !NOT_BASH_NAMES.contains(&name) {
        return None;
    }
    Some(if real == shell {
        NOT_BASH.to_owned()
    } else {
        format!("{NOT_BASH}: it is {}", real.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A missing path and a file without execute bits are not executable; `/bin/sh` is
    /// refused only where it is a shell known not to be bash; bash passes.
    #[test]
    fn startup_problems_are_named() {
        let missing = Path::new("/nonexistent/dsh-shell");
        assert_eq!(startup_problem(missing).as_deref(), Some(NOT_EXECUTABLE));
        let dir = std::env::temp_dir().join(format!("dsh-shell-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let plain = dir.join("plain");
        std::fs::write(&plain, "#!/bin/sh\n").unwrap();
        assert_eq!(startup_problem(&plain).as_deref(), Some(NOT_EXECUTABLE));
        // A wrapper script of any name may start bash: known only when a session starts.
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(startup_problem(&plain), None);
        let dash = dir.join("dash");
        std::fs::copy(&plain, &dash).unwrap();
        let problem = startup_problem(&dash).unwrap_or_default();
        assert!(problem.starts_with(NOT_BASH), "{problem}");
        let sh = dir.join("sh");
        std::os::unix::fs::symlink(&dash, &sh).unwrap();
        let problem = startup_problem(&sh).unwrap_or_default();
        assert!(
            problem.starts_with(NOT_BASH) && problem.ends_with("/dash"),
            "{problem}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        let bash = Path::new(crate::DEFAULT_SHELL);
        if bash.exists() {
            assert_eq!(startup_problem(bash), None);
        }
    }
}
