//! Finding the bubblewrap program the way a shell finds a command: a name with a `/` in it is
//! a path (relative ones from the current directory), a bare name is looked up in each `PATH`
//! directory in turn. [`crate::Bubblewrap::locate`] applies it, and both the start-up check
//! and every confinement go through that, so they never disagree about what is usable.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The search path a shell uses when `PATH` is unset (glibc's `execvp` default).
const DEFAULT_SEARCH_PATH: &str = "/bin:/usr/bin";

/// Why the configured bubblewrap cannot be run. The display says what is wrong, in words for
/// both the model and the operator; [`BwrapProblem::start_up_warning`] adds what the operator
/// can do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BwrapProblem {
    /// Nothing exists at the path given.
    #[error("bubblewrap is not installed at {} on this host", .0.display())]
    NotFound(PathBuf),
    /// A component of the path before its last is a file, not a directory (a trailing `/`
    /// after the program's name, say).
    #[error("the bubblewrap path {} on this host goes through a file as if it were a directory", .0.display())]
    ThroughAFile(PathBuf),
    /// The path names a directory (or another kind of non-file), not a program.
    #[error("the bubblewrap path {} on this host is a directory or another non-file, not a program", .0.display())]
    NotAFile(PathBuf),
    /// The file exists but its permissions do not let the server execute it.
    #[error("bubblewrap at {} on this host is not executable", .0.display())]
    NotExecutable(PathBuf),
    /// The path could not be examined (a parent directory the server may not search, say).
    #[error("bubblewrap at {} on this host cannot be examined ({error})", path.display())]
    Inaccessible {
        /// The path given.
        path: PathBuf,
        /// The operating system's reason.
        error: String,
    },
    /// A bare name that no `PATH` directory holds as an executable file.
    #[error("bubblewrap ({}) is not installed in any directory of this host's PATH", name.to_string_lossy())]
    NotOnPath {
        /// The name looked up.
        name: OsString,
        /// The `PATH` searched.
        search_path: OsString,
    },
}

impl BwrapProblem {
    /// The operator's start-up warning: what is wrong, that confined sessions will fail, and
    /// what to change (naming `dsh-mcp`'s options).
    #[must_use]
    pub fn start_up_warning(&self) -> String {
        const INSTALL: &str = "install it (Debian: apt-get install bubblewrap)";
        const POINT: &str = "point to it (dsh-mcp: --bwrap PATH)";
        let fixes = match self {
            Self::NotFound(_) => vec![INSTALL.to_owned(), POINT.to_owned()],
            Self::NotAFile(_) | Self::ThroughAFile(_) => {
                vec!["point to the bwrap program itself (dsh-mcp: --bwrap PATH)".to_owned()]
            }
            Self::NotExecutable(path) => vec![
                format!("make it executable (chmod +x {})", path.display()),
                "point to a working bwrap (dsh-mcp: --bwrap PATH)".to_owned(),
            ],
            Self::Inaccessible { .. } => vec![
                "let the server's user reach it".to_owned(),
                "point to another bwrap (dsh-mcp: --bwrap PATH)".to_owned(),
            ],
            Self::NotOnPath { search_path, .. } => vec![
                INSTALL.to_owned(),
                format!(
                    "add its directory to the server's PATH (now {:?})",
                    search_path.to_string_lossy()
                ),
                "give its full path (dsh-mcp: --bwrap /usr/bin/bwrap)".to_owned(),
            ],
        };
        format!(
            "{self}, so every sandboxed terminal_open will fail; {}, or run unconfined (dsh-mcp: --sandbox danger-full-access)",
            fixes.join(", ")
        )
    }
}

impl BwrapProblem {
    /// What the operator can do about it, for the model to pass on to the user: the fix
    /// this problem needs, then the way around it.
    #[must_use]
    pub fn operator_fix(&self) -> String {
        let fix = match self {
            Self::NotFound(_) | Self::NotOnPath { .. } => {
                "install bubblewrap (Debian: apt-get install bubblewrap)".to_owned()
            }
            Self::NotAFile(_) | Self::ThroughAFile(_) => {
                "point the server to the bwrap program itself (dsh-mcp: --bwrap PATH)".to_owned()
            }
            Self::NotExecutable(path) => format!(
                "make {} executable (chmod +x) or point the server to a working bwrap (dsh-mcp: --bwrap PATH)",
                path.display()
            ),
            Self::Inaccessible { path, .. } => format!(
                "let the server's user reach {} or point the server to another bwrap (dsh-mcp: --bwrap PATH)",
                path.display()
            ),
        };
        format!(
            "{fix} or restart the server without a sandbox (dsh-mcp: --sandbox danger-full-access)"
        )
    }
}

/// The absolute path of the program a shell would run for `program`, with `search_path` as
/// its `PATH` (`None`: unset). A bare name takes the first `PATH` directory holding an
/// executable file of that name (an empty entry is the current directory); when none does
/// but one holds a file that is not executable, that file is the problem, as in a shell.
pub(crate) fn locate(program: &Path, search_path: Option<&OsStr>) -> Result<PathBuf, BwrapProblem> {
    if program.as_os_str().as_bytes().contains(&b'/') {
        check(program)?;
        return Ok(absolute(program));
    }
    let search_path = search_path.unwrap_or(OsStr::new(DEFAULT_SEARCH_PATH));
    let mut not_executable = None;
    for dir in std::env::split_paths(search_path) {
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        let candidate = dir.join(program);
        match check(&candidate) {
            Ok(()) => return Ok(absolute(&candidate)),
            Err(BwrapProblem::NotExecutable(path)) => {
                not_executable.get_or_insert(path);
            }
            Err(_) => {}
        }
    }
    Err(not_executable.map_or_else(
        || BwrapProblem::NotOnPath {
            name: program.as_os_str().to_owned(),
            search_path: search_path.to_owned(),
        },
        BwrapProblem::NotExecutable,
    ))
}

/// Whether `path` is an executable file (by the server's permissions, as `execve` decides).
fn check(path: &Path) -> Result<(), BwrapProblem> {
    use rustix::fs::{Access, access};
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(BwrapProblem::NotFound(path.to_owned()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            Err(BwrapProblem::ThroughAFile(path.to_owned()))
        }
        Err(e) => Err(BwrapProblem::Inaccessible {
            path: path.to_owned(),
            error: e.to_string(),
        }),
        Ok(meta) if !meta.is_file() => Err(BwrapProblem::NotAFile(path.to_owned())),
        Ok(_) if access(path, Access::EXEC_OK).is_err() => {
            Err(BwrapProblem::NotExecutable(path.to_owned()))
        }
        Ok(_) => Ok(()),
    }
}

/// `path` made absolute from the current directory (unchanged when that cannot be read), so
/// the confined argv runs the same program whatever directory a session starts in.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    /// A private directory with a program `bwrap` (executable or not), removed on drop.
    struct Dir(PathBuf);

    impl Dir {
        fn new(tag: &str) -> Self {
            let path = std::env::temp_dir()
                .join(format!("dsh-sandbox-locate-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            Self(path)
        }

        fn with_bwrap(self, mode: u32) -> Self {
            let file = self.0.join("bwrap");
            std::fs::write(&file, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
            self
        }

        fn bwrap(&self) -> PathBuf {
            self.0.join("bwrap")
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_path_is_checked_as_given() {
        let exec = Dir::new("path-exec").with_bwrap(0o755);
        let plain = Dir::new("path-plain").with_bwrap(0o644);
        assert_eq!(locate(&exec.bwrap(), None), Ok(exec.bwrap()));
        assert_eq!(
            locate(&plain.bwrap(), None),
            Err(BwrapProblem::NotExecutable(plain.bwrap()))
        );
        assert_eq!(
            locate(&exec.0, None),
            Err(BwrapProblem::NotAFile(exec.0.clone()))
        );
        let missing = exec.0.join("missing/bwrap");
        assert_eq!(
            locate(&missing, None),
            Err(BwrapProblem::NotFound(missing.clone()))
        );
        // Under a file, not a directory, or the program's name with a trailing `/`: said so.
        let under_file = exec.bwrap().join("bwrap");
        assert_eq!(
            locate(&under_file, None),
            Err(BwrapProblem::ThroughAFile(under_file.clone()))
        );
        let slash = PathBuf::from(format!("{}/", exec.bwrap().display()));
        assert_eq!(
            locate(&slash, None),
            Err(BwrapProblem::ThroughAFile(slash.clone()))
        );
        assert!(
            BwrapProblem::ThroughAFile(slash)
                .start_up_warning()
                .contains("point to the bwrap program itself")
        );
    }

    /// The fix passed on to the user is the one the problem needs.
    #[test]
    fn the_fix_for_the_user_fits_the_problem() {
        let path = PathBuf::from("/opt/bwrap");
        let fixes = [
            (BwrapProblem::NotFound(path.clone()), "install bubblewrap"),
            (
                BwrapProblem::NotExecutable(path.clone()),
                "make /opt/bwrap executable",
            ),
            (
                BwrapProblem::NotAFile(path.clone()),
                "the bwrap program itself",
            ),
            (BwrapProblem::ThroughAFile(path), "the bwrap program itself"),
        ];
        for (problem, fix) in fixes {
            let text = crate::SandboxError::BwrapUnusable(problem.clone()).to_string();
            assert!(text.contains(fix), "{problem:?}: {text}");
            assert!(
                text.ends_with("(dsh-mcp: --sandbox danger-full-access)"),
                "{text}"
            );
        }
    }

    #[test]
    fn a_bare_name_is_looked_up_in_path_like_a_shell() {
        let exec = Dir::new("name-exec").with_bwrap(0o755);
        let plain = Dir::new("name-plain").with_bwrap(0o644);
        let empty = Dir::new("name-empty");
        let path = |dirs: &[&Dir]| std::env::join_paths(dirs.iter().map(|d| &d.0)).unwrap();
        let name = Path::new("bwrap");
        // A non-executable file earlier in PATH is skipped, as a shell skips it.
        let search = path(&[&empty, &plain, &exec]);
        assert_eq!(locate(name, Some(&search)), Ok(exec.bwrap()));
        // Only a non-executable one: that file is what to fix.
        let search = path(&[&empty, &plain]);
        assert_eq!(
            locate(name, Some(&search)),
            Err(BwrapProblem::NotExecutable(plain.bwrap()))
        );
        let search = path(&[&empty]);
        assert_eq!(
            locate(name, Some(&search)),
            Err(BwrapProblem::NotOnPath {
                name: name.into(),
                search_path: search.clone(),
            })
        );
    }

    #[test]
    fn warnings_say_what_to_fix() {
        let not_found = BwrapProblem::NotFound("/opt/bwrap".into()).start_up_warning();
        let not_file = BwrapProblem::NotAFile("/opt".into()).start_up_warning();
        let not_exec = BwrapProblem::NotExecutable("/opt/bwrap".into()).start_up_warning();
        let not_on_path = BwrapProblem::NotOnPath {
            name: "bwrap".into(),
            search_path: "/a:/b".into(),
        }
        .start_up_warning();
        let inaccessible = BwrapProblem::Inaccessible {
            path: "/root/bwrap".into(),
            error: "Permission denied (os error 13)".into(),
        }
        .start_up_warning();
        let warnings = [not_found, not_file, not_exec, not_on_path, inaccessible];
        insta::assert_snapshot!(warnings.join("\n"));
    }
}
