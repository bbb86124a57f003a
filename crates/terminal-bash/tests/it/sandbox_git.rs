//! Git directories outside a confined session's workspace: a worktree's or submodule's own
//! are writable with the workspace (not what in them git runs or follows, nor the workspace's
//! `.git` file), and a `.git` file a session writes makes nothing else writable, for any
//! later session.

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
        assert!(r.viewport.contains("\nsecond first\ndsh> "), "{r:?}");
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
        assert!(r.viewport.contains("\nsecond first\ndsh> "), "{r:?}");
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

/// A main repository with the submodules `sub` and `libs/lib` (a nested name) and the worktree
/// `feature`, its submodules checked out; returns the root holding them.
fn worktree_with_submodules(tag: &str) -> TempDir {
    let root = TempDir::new(tag);
    let git = |args: &[&str]| git(&root.0, args);
    git(&["init", "-q", "lib"]);
    git(&["-C", "lib", "commit", "-q", "--allow-empty", "-m", "lib"]);
    git(&["init", "-q", "main"]);
    git(&["-C", "main", "commit", "-q", "--allow-empty", "-m", "first"]);
    git(&["-C", "main", "submodule", "add", "-q", "../lib", "sub"]);
    let nested = [
        "submodule",
        "add",
        "-q",
        "--name",
        "libs/lib",
        "../lib",
        "lib",
    ];
    git(&[&["-C", "main"], &nested[..]].concat());
    git(&["-C", "main", "commit", "-q", "-m", "subs"]);
    git(&["-C", "main", "worktree", "add", "-q", "../feature"]);
    git(&["-C", "feature", "submodule", "update", "--init", "-q"]);
    root
}

/// In a worktree workspace, nothing in the repository's git directories that git runs or
/// follows can be changed: the submodules' config and hooks (the main repository's, nested
/// names too, and the worktree's own), `config.worktree`, the worktree's pointer files
/// (`commondir`, `gitdir`), nor by renaming a directory holding them and making a new one in
/// its place. Commits still work, in the workspace and in its submodule.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worktree_workspace_cannot_plant_commands_in_its_repository() {
    within(async {
        let root = worktree_with_submodules("worktree-plant");
        let ws = root.0.join("feature");
        let common = root.0.join("main/.git");
        let own = common.join("worktrees/feature");
        // A file that does not exist cannot be bound: these are made before the session.
        for file in [common.join("config.worktree"), own.join("config.worktree")] {
            std::fs::write(file, "").unwrap();
        }
        let files = [
            common.join("modules/sub/config"),
            common.join("modules/libs/lib/config"),
            common.join("config.worktree"),
            own.join("config.worktree"),
            own.join("commondir"),
            own.join("gitdir"),
            own.join("modules/sub/config"),
        ];
        let before: Vec<_> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        let hooks = [
            common.join("modules/sub/hooks/x"),
            common.join("modules/libs/lib/hooks/x"),
            own.join("modules/sub/hooks/x"),
        ];
        let dirs = [
            common.join("modules"),
            common.join("modules/sub"),
            common.join("modules/libs"),
            common.join("worktrees"),
            own.clone(),
            own.join("modules"),
            own.join("modules/sub"),
        ];
        let quoted = |paths: &[std::path::PathBuf]| {
            paths
                .iter()
                .map(|p| format!("'{}'", p.display()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws, false, None);
        let sh = Shell::open_on(&backend).await;
        let r = sh
            .send(&format!(
                "for f in {} {}; do echo x >> \"$f\"; done 2>/dev/null; true",
                quoted(&files),
                quoted(&hooks),
            ))
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        let mut leaks: Vec<_> = files
            .iter()
            .zip(&before)
            .filter(|(file, before)| std::fs::read(file).ok().as_ref() != Some(*before))
            .map(|(file, _)| file)
            .chain(hooks.iter().filter(|hook| hook.exists()))
            .collect();
        let r = sh
            .send(&format!(
                "for d in {}; do mv \"$d\" \"$d.x\" && mkdir \"$d\"; done 2>/dev/null; true",
                quoted(&dirs)
            ))
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        leaks.extend(dirs.iter().filter(|dir| dir.with_extension("x").exists()));
        assert!(leaks.is_empty(), "written, created or renamed: {leaks:#?}");
        let r = sh
            .send(
                "git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m two && \
                 git -C sub -c user.name=t -c user.email=t@example.com commit -q --allow-empty \
                 -m three && git log -1 --format=%s && git -C sub log -1 --format=%s",
            )
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        assert!(r.viewport.contains("\ntwo\nthree\n"), "{r:?}");
        sh.close().await;
    })
    .await;
}

/// A worktree workspace's `.git` file stays read-only: a session cannot point it at a
/// repository of its own whose config runs a command when someone on the host uses git there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worktree_workspace_cannot_repoint_its_git_file() {
    within(async {
        let root = TempDir::new("worktree-git-file");
        git(&root.0, &["init", "-q", "main"]);
        git(
            &root.0,
            &["-C", "main", "commit", "-q", "--allow-empty", "-m", "first"],
        );
        git(
            &root.0,
            &["-C", "main", "worktree", "add", "-q", "../feature"],
        );
        let ws = root.0.join("feature");
        let before = std::fs::read(ws.join(".git")).unwrap();
        let planted = root.0.join("planted");
        let backend = sandboxed(config(), SandboxMode::WorkspaceWrite, &ws, false, None);
        let sh = Shell::open_on(&backend).await;
        let r = sh
            .send(&format!(
                "git init -q --bare .evil && git --git-dir=.evil config core.bare false && \
                 git --git-dir=.evil config core.worktree \"$PWD\" && \
                 git --git-dir=.evil config core.fsmonitor 'touch {}; :' && \
                 {{ echo 'gitdir: .evil' > .git; rm -f .git; mv .git moved; }} 2>/dev/null; true",
                planted.display()
            ))
            .await;
        assert_eq!(r.exit_code, Some(0), "{r:?}");
        sh.close().await;
        assert_eq!(std::fs::read(ws.join(".git")).unwrap(), before);
        // The host's git there still uses the worktree's own git directory.
        let out = std::process::Command::new("git")
            .args(["status", "--porcelain"])
            .current_dir(&ws)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(!planted.exists(), "the session's command ran on the host");
    })
    .await;
}
