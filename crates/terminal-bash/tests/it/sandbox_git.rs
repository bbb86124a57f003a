//! Git directories outside a confined session's workspace: a worktree's or submodule's own
//! are writable with the workspace (their hooks and config not), and a `.git` file a session
//! writes makes nothing else writable, for any later session.

use std::path::Path;

use dsh_sandbox::SandboxMode;
use pretty_assertions::assert_eq;

use crate::support::{Shell, TempDir, config, sandboxed, within};

/// Runs `git args` in `dir` (with an identity for commits); panics when it fails.
fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["-c", "protocol.file.allow=always"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A workspace that is a git worktree (its `.git` a file naming a directory in the main
/// repository) can commit in `workspace-write`: the worktree's git directory and the common
/// directory are writable, except the hooks and config, which would run outside the sandbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_git_worktree_workspace_can_commit() {
    within(async {
        let root = TempDir::new("worktree");
        let git = |args: &[&str]| git(&root.0, args);
        git(&["init", "-q", "main"]);
        git(&["-C", "main", "commit", "-q", "--allow-empty", "-m", "first"]);
        git(&["-C", "main", "worktree", "add", "-q", "../feature"]);
        let ws = root.0.join("feature");
        assert!(ws.join(".git").is_file());
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws, false, None);
        let sh = Shell::open_on(&backend).await;
        let r = sh
            .send(
                "echo change > file && git add file && \
                 git -c user.name=t -c user.email=t@example.com commit -q -m second && \
                 git log --format=%s | tr '\\n' ' '",
            )
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.contains("\nsecond first dsh> "), "{r:?}");
        let r = sh
            .send("touch \"$(git rev-parse --git-common-dir)/hooks/pre-commit\"")
            .await;
        assert_eq!(r.exit_code, Some(1), "{r:?}");
        assert!(r.viewport.contains("Read-only file system"), "{r:?}");
        sh.close().await;
        // The commit is real: the main repository sees the worktree's branch move.
        let out = std::process::Command::new("git")
            .args(["-C", "main", "log", "--format=%s", "feature"])
            .current_dir(&root.0)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "second\nfirst\n");
    })
    .await;
}

/// A submodule's git directory (in the superproject's `.git/modules/`, naming the
/// submodule back as its work tree) is writable with the submodule's workspace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_git_submodule_workspace_can_commit() {
    within(async {
        let root = TempDir::new("submodule");
        git(&root.0, &["init", "-q", "lib"]);
        git(
            &root.0,
            &["-C", "lib", "commit", "-q", "--allow-empty", "-m", "first"],
        );
        git(&root.0, &["init", "-q", "super"]);
        git(
            &root.0.join("super"),
            &["submodule", "add", "-q", "../lib", "lib"],
        );
        let ws = root.0.join("super/lib");
        assert!(ws.join(".git").is_file());
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws, false, None);
        let sh = Shell::open_on(&backend).await;
        let r = sh
            .send(
                "git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m second \
                 && git log --format=%s | tr '\\n' ' '",
            )
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.contains("\nsecond first dsh> "), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A `.git` file a session writes in the workspace (`gitdir: <anything>`) makes nothing
/// outside writable for any later session: not a plain directory, not another repository,
/// not the host's root.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_git_file_written_by_a_session_widens_no_later_session() {
    within(async {
        let root = TempDir::new("forged-git");
        let ws = root.0.join("ws");
        let outside = root.0.join("outside");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        git(&root.0, &["init", "-q", "victim"]);
        let victim = root.0.join("victim/.git");
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws, false, None);
        for named in [outside.as_path(), victim.as_path(), Path::new("/")] {
            let sh = Shell::open_on(&backend).await;
            let r = sh
                .send(&format!("echo 'gitdir: {}' > .git", named.display()))
                .await;
            assert_eq!(r.exit_code, Some(0), "{r:?}");
            sh.close().await;
            // A session opened after it, on the same backend, writes none of them.
            let sh = Shell::open_on(&backend).await;
            for target in [outside.join("planted"), victim.join("planted")] {
                let r = sh.send(&format!("echo x > '{}'", target.display())).await;
                assert_eq!(r.exit_code, Some(1), "{named:?} {target:?}: {r:?}");
                assert!(!target.exists(), "{named:?}: {target:?} written");
            }
            // The host's root stays mounted read-only (its mount options start with `ro`).
            let r = sh
                .send("awk '$5 == \"/\" { print \"root:\" $6 }' /proc/self/mountinfo")
                .await;
            assert!(
                r.viewport.lines().any(|l| l.starts_with("root:ro"))
                    && !r.viewport.lines().any(|l| l.starts_with("root:rw")),
                "{named:?}: {r:?}"
            );
            sh.close().await;
        }
        // Nor does a backend started with the `.git` file already there (the next server).
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws, false, None);
        let sh = Shell::open_on(&backend).await;
        let r = sh
            .send(&format!("echo x > '{}'", outside.join("planted").display()))
            .await;
        assert_eq!(r.exit_code, Some(1), "{r:?}");
        sh.close().await;
    })
    .await;
}
