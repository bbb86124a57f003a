//! The git directories a workspace needs writable that lie outside it: a git worktree's or
//! submodule's `.git` is a file (`gitdir: <path>`) naming a directory elsewhere, and a
//! worktree's directory names the repository's common directory (`commondir`).

use std::fs;
use std::path::{Path, PathBuf};

/// Directories that `git commit` in `workspace` writes and that are not inside it: the
/// gitdir named by `workspace/.git` when that is a file, and its common directory. Empty for
/// a plain repository, a non-repository, or anything unreadable. Existing directories only,
/// canonical, without one that another contains.
pub(crate) fn git_dirs_outside(workspace: &Path) -> Vec<PathBuf> {
    let Ok(text) = fs::read_to_string(workspace.join(".git")) else {
        return Vec::new();
    };
    let Some(gitdir) = text
        .lines()
        .find_map(|l| l.strip_prefix("gitdir:"))
        .map(str::trim)
        .filter(|p| !p.is_empty())
    else {
        return Vec::new();
    };
    let gitdir = workspace.join(gitdir);
    let mut dirs = vec![gitdir.clone()];
    if let Ok(common) = fs::read_to_string(gitdir.join("commondir")) {
        let common = common.trim();
        if !common.is_empty() {
            dirs.push(gitdir.join(common));
        }
    }
    let workspace = fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let mut dirs: Vec<PathBuf> = dirs
        .iter()
        .filter_map(|d| fs::canonicalize(d).ok())
        .filter(|d| d.is_dir() && !d.starts_with(&workspace))
        .collect();
    dirs.sort();
    dirs.dedup();
    let all = dirs.clone();
    dirs.retain(|d| !all.iter().any(|o| o != d && d.starts_with(o)));
    dirs
}

/// Files of a git directory that stay read-only even when the directory is writable: what
/// would run or change behaviour outside the sandbox the next time someone uses the
/// repository (hooks, and the config that can name commands).
pub(crate) const GIT_READ_ONLY: &[&str] = &["hooks", "config"];

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

    #[test]
    fn a_worktree_needs_its_gitdir_and_the_common_dir() {
        let s = scratch("wt");
        let common = s.0.join("main/.git");
        let gitdir = common.join("worktrees/feature");
        write(&gitdir.join("commondir"), "../..\n");
        write(
            &s.0.join("feature/.git"),
            &format!("gitdir: {}\n", gitdir.display()),
        );
        // The worktree's own directory lies inside the common one: one bind covers both.
        assert_eq!(git_dirs_outside(&s.0.join("feature")), vec![common]);
    }

    #[test]
    fn a_submodule_needs_its_gitdir_and_plain_repositories_nothing() {
        let s = scratch("sub");
        let modules = s.0.join("super/.git/modules/lib");
        fs::create_dir_all(&modules).unwrap_or_else(|e| panic!("{e}"));
        write(&s.0.join("super/lib/.git"), "gitdir: ../.git/modules/lib\n");
        assert_eq!(git_dirs_outside(&s.0.join("super/lib")), vec![modules]);
        // The superproject holds its submodules' directories itself.
        fs::create_dir_all(s.0.join("plain/.git")).unwrap_or_else(|e| panic!("{e}"));
        assert!(git_dirs_outside(&s.0.join("plain")).is_empty());
        assert!(git_dirs_outside(&s.0.join("super")).is_empty());
        assert!(git_dirs_outside(&s.0.join("missing")).is_empty());
    }
}
