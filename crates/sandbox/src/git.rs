//! The git directories a workspace needs writable that lie outside it: a git worktree's or
//! submodule's `.git` is a file (`gitdir: <path>`) naming a directory elsewhere, and a
//! worktree's directory names the repository's common directory (`commondir`).
//!
//! A session can write the workspace, and with it that `.git` file, so what it names is
//! trusted only when it has a git directory's shape and belongs to this workspace: a
//! worktree's directory sits in its repository's `worktrees/` and names this workspace's
//! `.git` back (its `gitdir` file), and a submodule's sits in a repository's `modules/` and
//! names this workspace as its work tree (`core.worktree`). The directories are
//! found once, when the workspace root is set (see `SandboxPolicies`), never again from
//! files a session may have changed since.
//!
//! What in them git runs or follows stays read-only ([`GitDirs`]): the hooks, config files
//! and pointer files of every git directory in them, submodules' and worktrees' too, each
//! directory on the way to them pinned so it cannot be moved aside. Only what exists when
//! the directories are found can be kept so: a hooks directory, `config.worktree` or
//! submodule directory made later is the session's.

use std::fs;
use std::path::{Path, PathBuf};

/// Directories that `git commit` in `workspace` writes and that are not inside it: the
/// gitdir named by `workspace/.git` when that is a file, and its common directory, when they
/// pass the checks in the module docs. Empty for a plain repository, a non-repository,
/// anything unreadable, and a `.git` file naming anything else (`/`, a directory that is no
/// git directory, one holding the workspace). Existing directories only, canonical, without
/// one that another contains.
pub(crate) fn git_dirs_outside(workspace: &Path) -> Vec<PathBuf> {
    let Ok(workspace) = fs::canonicalize(workspace) else {
        return Vec::new();
    };
    let dot_git = workspace.join(".git");
    if !fs::symlink_metadata(&dot_git).is_ok_and(|m| m.is_file()) {
        return Vec::new();
    }
    let Ok(text) = fs::read_to_string(&dot_git) else {
        return Vec::new();
    };
    let Some(named) = text
        .lines()
        .find_map(|l| l.strip_prefix("gitdir:"))
        .map(str::trim)
        .filter(|p| !p.is_empty())
    else {
        return Vec::new();
    };
    let Ok(gitdir) = fs::canonicalize(workspace.join(named)) else {
        return Vec::new();
    };
    let mut dirs = if gitdir.join("commondir").is_file() {
        worktree_dirs(&gitdir, &dot_git)
    } else if is_submodule_dir(&gitdir) && names_worktree(&gitdir, &workspace) {
        vec![gitdir]
    } else {
        Vec::new()
    };
    // Never the workspace's own tree, nor anything holding it (`/`).
    dirs.retain(|d| !d.starts_with(&workspace) && !workspace.starts_with(d));
    dirs.sort();
    dirs.dedup();
    let all = dirs.clone();
    dirs.retain(|d| !all.iter().any(|o| o != d && d.starts_with(o)));
    dirs
}

/// A worktree's git directory `gitdir` and its repository's common directory, when
/// `gitdir` lies in the common directory's `worktrees/` and its `gitdir` file names
/// `dot_git` (this workspace's `.git`) back; empty otherwise.
fn worktree_dirs(gitdir: &Path, dot_git: &Path) -> Vec<PathBuf> {
    let Ok(common) = fs::read_to_string(gitdir.join("commondir")) else {
        return Vec::new();
    };
    let Ok(common) = fs::canonicalize(gitdir.join(common.trim())) else {
        return Vec::new();
    };
    let in_worktrees = gitdir.parent() == Some(common.join("worktrees").as_path());
    let names_back = fs::read_to_string(gitdir.join("gitdir"))
        .ok()
        .and_then(|back| fs::canonicalize(back.trim()).ok())
        .is_some_and(|back| back == dot_git);
    if in_worktrees && names_back && is_repository_dir(&common) && gitdir.join("HEAD").is_file() {
        vec![gitdir.to_path_buf(), common]
    } else {
        Vec::new()
    }
}

/// Whether `dir` is a submodule's git directory: a repository's own files, in a `modules/`
/// directory of another repository's (`<super>/.git/modules/<name>`, nested names too).
fn is_submodule_dir(dir: &Path) -> bool {
    is_repository_dir(dir)
        && dir.ancestors().skip(1).any(|a| {
            a.file_name().is_some_and(|n| n == "modules")
                && a.parent().is_some_and(is_repository_dir)
        })
}

/// Whether the `core.worktree` of the git directory `gitdir`'s `config` (relative to
/// `gitdir`, as git writes it for a submodule) is `workspace`.
fn names_worktree(gitdir: &Path, workspace: &Path) -> bool {
    let Ok(config) = fs::read_to_string(gitdir.join("config")) else {
        return false;
    };
    let mut in_core = false;
    config.lines().map(str::trim).any(|line| {
        if line.starts_with('[') {
            in_core = line
                .trim_start_matches('[')
                .trim_start()
                .starts_with("core");
            return false;
        }
        let Some((key, value)) = line.split_once('=') else {
            return false;
        };
        in_core
            && key.trim().eq_ignore_ascii_case("worktree")
            && fs::canonicalize(gitdir.join(value.trim().trim_matches('"')))
                .is_ok_and(|tree| tree == workspace)
    })
}

/// Whether `dir` holds a repository's git files: `HEAD`, `objects/` and `refs/`.
fn is_repository_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
}

/// Files of a git directory that stay read-only even when the directory is writable: what
/// would run or change behaviour outside the sandbox the next time someone uses the
/// repository. Hooks; the config and a worktree's own config (`config.worktree`), which can
/// name commands; and a worktree's pointer files, `commondir` (where its repository, config
/// and all, lies) and `gitdir` (its work tree's `.git`). Applied to every git directory in a
/// writable one: a worktree's in `worktrees/`, a submodule's in `modules/`.
pub(crate) const GIT_READ_ONLY: &[&str] =
    &["hooks", "config", "config.worktree", "commondir", "gitdir"];

/// The most directories and files [`GitDirs::pinned`] and [`GitDirs::read_only`] hold
/// together; past it nothing is made writable (a session could fill a git directory with
/// thousands of submodule directories to make the list, and the bubblewrap command, huge).
const MAX_GIT_BINDS: usize = 2048;

/// The git directories outside a workspace that `workspace-write` makes writable with it, and
/// what in and around them stays read-only. Empty for a workspace that is no worktree or
/// submodule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitDirs {
    /// Directories bound writable: the worktree's or submodule's own git directory and its
    /// repository's common directory, without one that another holds.
    pub writable: Vec<PathBuf>,
    /// Directories inside those bound writable again, each onto itself, a parent before its
    /// children: every directory between a writable one and a read-only path in it. A mount
    /// point can be neither renamed nor removed, so a session cannot move a directory holding
    /// a read-only file aside and make a new one, with files of its own, in its place.
    pub pinned: Vec<PathBuf>,
    /// Bound read-only after those: the hooks, config files and pointer files that exist in
    /// a writable directory and in each git directory in it (its worktrees' in `worktrees/`,
    /// its submodules' in `modules/`, nested names and the submodules' own too), and the
    /// workspace's `.git` file.
    pub read_only: Vec<PathBuf>,
}

/// [`GitDirs`] of `workspace`: its git directories outside it, what to pin in them and what
/// to keep read-only. Found once, from the files as they are now.
pub(crate) fn git_dirs_of(workspace: &Path) -> GitDirs {
    let writable = git_dirs_outside(workspace);
    let Some(workspace_git_file) = fs::canonicalize(workspace)
        .ok()
        .map(|w| w.join(".git"))
        .filter(|_| !writable.is_empty())
    else {
        return GitDirs::default();
    };
    let mut found = Found::default();
    for dir in &writable {
        found.git_dir(dir, 0);
    }
    if found.too_many {
        return GitDirs::default();
    }
    let Found {
        mut pinned,
        mut read_only,
        ..
    } = found;
    // The workspace's `.git` file names the git directory; git does not rewrite it in normal
    // work, and a session that could would point it at a repository of its own.
    read_only.push(workspace_git_file);
    pinned.sort();
    pinned.dedup();
    read_only.sort();
    read_only.dedup();
    GitDirs {
        writable,
        pinned,
        read_only,
    }
}

/// How deep git directories and the directories of nested submodule names lie in each other
/// (a submodule's submodule's …); past it nothing is made writable, as past
/// [`MAX_GIT_BINDS`].
const MAX_GIT_DEPTH: usize = 8;

/// What the search through writable git directories found so far; `too_many` when it
/// passed [`MAX_GIT_BINDS`] or [`MAX_GIT_DEPTH`].
#[derive(Default)]
struct Found {
    pinned: Vec<PathBuf>,
    read_only: Vec<PathBuf>,
    too_many: bool,
}

impl Found {
    /// Records the read-only paths of the git directory `dir` and searches its worktrees'
    /// and submodules' directories, `depth` git directories deep.
    fn git_dir(&mut self, dir: &Path, depth: usize) {
        for name in GIT_READ_ONLY {
            let path = dir.join(name);
            if fs::symlink_metadata(&path).is_ok() {
                self.read_only.push(path);
            }
        }
        if depth >= MAX_GIT_DEPTH {
            self.too_many = true;
            return;
        }
        let worktrees = dir.join("worktrees");
        if self.pin(&worktrees) {
            for gitdir in real_subdirs(&worktrees) {
                if self.pin(&gitdir) {
                    self.git_dir(&gitdir, depth + 1);
                }
            }
        }
        let modules = dir.join("modules");
        if self.pin(&modules) {
            self.modules(&modules, depth + 1);
        }
    }

    /// Searches `dir`, in a `modules/` directory, for submodules' git directories: each
    /// repository in it, and in the directories of nested names (`modules/libs/lib`).
    fn modules(&mut self, dir: &Path, depth: usize) {
        if depth > MAX_GIT_DEPTH {
            self.too_many = true;
            return;
        }
        for sub in real_subdirs(dir) {
            if !self.pin(&sub) {
                continue;
            }
            if is_repository_dir(&sub) {
                self.git_dir(&sub, depth);
            } else {
                self.modules(&sub, depth + 1);
            }
        }
    }

    /// Pins `dir` when it is a directory (not a link to one) and the list has room; whether
    /// it did.
    fn pin(&mut self, dir: &Path) -> bool {
        if self.too_many || !fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
            return false;
        }
        if self.pinned.len() + self.read_only.len() >= MAX_GIT_BINDS {
            self.too_many = true;
            return false;
        }
        self.pinned.push(dir.to_path_buf());
        true
    }
}

/// The directories in `dir` (not links to them), by name.
fn real_subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<_> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Scratch(PathBuf);
    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("dsh-git-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        Scratch(fs::canonicalize(&dir).unwrap_or_else(|e| panic!("{e}")))
    }

    fn write(path: &Path, text: &str) {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }

    /// A repository's git files (`HEAD`, `objects/`, `refs/`) in `dir`.
    fn repository(dir: &Path) {
        write(&dir.join("HEAD"), "ref: refs/heads/main\n");
        for sub in ["objects", "refs"] {
            fs::create_dir_all(dir.join(sub)).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    /// `main/.git` with the worktree `feature` (`git worktree add ../feature`).
    fn worktree(s: &Scratch) -> (PathBuf, PathBuf) {
        let common = s.0.join("main/.git");
        repository(&common);
        let gitdir = common.join("worktrees/feature");
        write(&gitdir.join("HEAD"), "ref: refs/heads/feature\n");
        write(&gitdir.join("commondir"), "../..\n");
        write(
            &gitdir.join("gitdir"),
            &format!("{}\n", s.0.join("feature/.git").display()),
        );
        write(
            &s.0.join("feature/.git"),
            &format!("gitdir: {}\n", gitdir.display()),
        );
        (common, gitdir)
    }

    #[test]
    fn a_worktree_needs_its_gitdir_and_the_common_dir() {
        let s = scratch("wt");
        let (common, _) = worktree(&s);
        // The worktree's own directory lies inside the common one: one bind covers both.
        assert_eq!(git_dirs_outside(&s.0.join("feature")), vec![common]);
    }

    #[test]
    fn a_submodule_needs_its_gitdir_and_plain_repositories_nothing() {
        let s = scratch("sub");
        repository(&s.0.join("super/.git"));
        let modules = s.0.join("super/.git/modules/lib");
        repository(&modules);
        write(
            &modules.join("config"),
            "[core]\n\tbare = false\n\tworktree = ../../../lib\n",
        );
        write(&s.0.join("super/lib/.git"), "gitdir: ../.git/modules/lib\n");
        assert_eq!(
            git_dirs_outside(&s.0.join("super/lib")),
            vec![modules.clone()]
        );
        assert_eq!(
            git_dirs_of(&s.0.join("super/lib")).read_only,
            vec![modules.join("config"), s.0.join("super/lib/.git")]
        );
        // The superproject holds its submodules' directories itself.
        fs::create_dir_all(s.0.join("plain/.git")).unwrap_or_else(|e| panic!("{e}"));
        assert!(git_dirs_outside(&s.0.join("plain")).is_empty());
        assert!(git_dirs_outside(&s.0.join("super")).is_empty());
        assert!(git_dirs_outside(&s.0.join("missing")).is_empty());
    }

    /// A `.git` file a session wrote names nothing it may make writable: the host's root, a
    /// directory that is no git directory, another repository, another worktree's or
    /// submodule's git directory (it names another work tree back), a directory holding the
    /// workspace.
    #[test]
    fn a_git_file_naming_anything_else_makes_nothing_writable() {
        let s = scratch("forged");
        let (_, other_worktree) = worktree(&s);
        let victim = s.0.join("victim/.git");
        repository(&victim);
        let modules = victim.join("modules/lib");
        repository(&modules);
        write(
            &modules.join("config"),
            "[core]\n\tworktree = ../../../lib\n",
        );
        fs::create_dir_all(s.0.join("outside")).unwrap_or_else(|e| panic!("{e}"));
        let ws = s.0.join("ws");
        for named in [
            "/".to_owned(),
            s.0.join("outside").display().to_string(),
            victim.display().to_string(),
            other_worktree.display().to_string(),
            modules.display().to_string(),
            s.0.display().to_string(),
        ] {
            write(&ws.join(".git"), &format!("gitdir: {named}\n"));
            assert!(git_dirs_outside(&ws).is_empty(), "{named}");
        }
    }

    /// In a worktree's repository, every hook, config and pointer file of each git directory
    /// in the writable one stays read-only (the worktrees', the submodules' under nested
    /// names and in a submodule's own `modules/`), with every directory on the way pinned;
    /// a link is never followed, nor a path that does not exist bound.
    #[test]
    fn a_worktree_keeps_hooks_configs_and_pointers_read_only() {
        let s = scratch("ro");
        let (common, own) = worktree(&s);
        for file in ["config", "config.worktree", "hooks/pre-commit.sample"] {
            write(&common.join(file), "");
        }
        write(&own.join("config.worktree"), "");
        let modules = common.join("modules");
        for repo in ["sub", "libs/lib", "sub/modules/inner"] {
            repository(&modules.join(repo));
            write(&modules.join(repo).join("config"), "");
        }
        fs::create_dir_all(modules.join("sub/hooks")).unwrap_or_else(|e| panic!("{e}"));
        repository(&own.join("modules/sub"));
        write(&own.join("modules/sub/config"), "");
        std::os::unix::fs::symlink(&s.0, modules.join("link")).unwrap_or_else(|e| panic!("{e}"));
        let ws = s.0.join("feature");
        let paths = |list: &[&str]| list.iter().map(|p| common.join(p)).collect::<Vec<_>>();
        let mut read_only = paths(&[
            "config",
            "config.worktree",
            "hooks",
            "modules/libs/lib/config",
            "modules/sub/config",
            "modules/sub/hooks",
            "modules/sub/modules/inner/config",
            "worktrees/feature/commondir",
            "worktrees/feature/config.worktree",
            "worktrees/feature/gitdir",
            "worktrees/feature/modules/sub/config",
        ]);
        read_only.push(ws.join(".git"));
        read_only.sort();
        assert_eq!(
            git_dirs_of(&ws),
            GitDirs {
                writable: vec![common.clone()],
                pinned: paths(&[
                    "modules",
                    "modules/libs",
                    "modules/libs/lib",
                    "modules/sub",
                    "modules/sub/modules",
                    "modules/sub/modules/inner",
                    "worktrees",
                    "worktrees/feature",
                    "worktrees/feature/modules",
                    "worktrees/feature/modules/sub",
                ]),
                read_only,
            }
        );
    }

    /// A git directory too full of directories to list, or nested too deep, makes nothing
    /// writable; nor does a workspace that is no worktree or submodule.
    #[test]
    fn too_many_git_directories_make_nothing_writable() {
        let s = scratch("many");
        let (common, _) = worktree(&s);
        let ws = s.0.join("feature");
        let mut deep = common.join("modules");
        for _ in 0..=MAX_GIT_DEPTH {
            deep = deep.join("d");
        }
        fs::create_dir_all(&deep).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(git_dirs_of(&ws), GitDirs::default());
        fs::remove_dir_all(common.join("modules")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(git_dirs_of(&ws).writable, vec![common.clone()]);
        for n in 0..MAX_GIT_BINDS {
            fs::create_dir_all(common.join(format!("modules/m{n}")))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(git_dirs_of(&ws), GitDirs::default());
        fs::create_dir_all(s.0.join("plain/.git")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(git_dirs_of(&s.0.join("plain")), GitDirs::default());
    }
}
