//! [`SandboxPolicies`]: the effective sandbox policy of each owner, and the mode fence.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard};

use dsh_context::Agent;

use crate::error::SandboxError;
use crate::git::GitDirs;
use crate::mode::SandboxMode;

/// What one session's confinement is built from (the seed's `{mode, workspaceRoot,
/// sessionId}`, plus the operator's network switch).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// How far the session is confined.
    pub mode: SandboxMode,
    /// The owner's workspace: writable in `workspace-write`, read-only in `read-only`, and
    /// the default working directory of new sessions.
    pub workspace_root: PathBuf,
    /// The owning agent's id.
    pub owner_id: String,
    /// Whether confined sessions keep the host's network (`false`: a private network
    /// namespace with only a loopback device).
    pub allow_network: bool,
    /// Git directories outside the workspace that `workspace-write` makes writable with it
    /// (a worktree's or submodule's), and what in them stays read-only. Found when the
    /// workspace root was set ([`SandboxPolicies::new`],
    /// [`SandboxPolicies::set_workspace_root`]), never from files a session changed since;
    /// see [`git_dirs_of`].
    pub git_dirs: GitDirs,
}

/// The git directories outside `workspace` that a session there needs writable to commit:
/// those named by `workspace/.git` when it is a file, and only when they are that worktree's
/// or submodule's own (they lie in a repository's `worktrees/` or `modules/` and name this
/// workspace back); empty otherwise. With them what stays read-only: see [`GitDirs`]. For
/// [`SandboxPolicy::git_dirs`].
#[must_use]
pub fn git_dirs_of(workspace: &Path) -> GitDirs {
    crate::git::git_dirs_of(workspace)
}

/// The operator's defaults, used for every owner that has no override.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyDefaults {
    /// Mode of owners without an override.
    pub mode: SandboxMode,
    /// Workspace root of owners without an override (absolute).
    pub workspace_root: PathBuf,
    /// Whether confined sessions keep the network.
    pub allow_network: bool,
}

/// Answers "does this owner have sessions open or being created?" (installed by the shell
/// backend; see [`SandboxPolicies::add_fence`]).
pub type OwnerActivity = Arc<dyn Fn(&Agent) -> bool + Send + Sync>;

#[derive(Clone, Debug, Default)]
struct Override {
    mode: Option<SandboxMode>,
    /// The root and its git directories ([`git_dirs_of`], found as it was set).
    workspace_root: Option<(PathBuf, GitDirs)>,
}

#[derive(Default)]
struct State {
    /// Keyed by owner id (what a backend knows at spawn time); dropped when the owner is
    /// disposed, so the map is bounded by the live owners.
    overrides: HashMap<String, Override>,
    fences: Vec<OwnerActivity>,
}

/// The sandbox-policy service (seed `ctx.sandboxPolicy`): resolves each owner's effective
/// policy and refuses to change an owner's mode or workspace while it has terminal sessions
/// (the mode fence). Changes and resolution are serialised, so a session being created sees
/// either the old policy (and then fences the change) or the new one.
pub struct SandboxPolicies {
    defaults: PolicyDefaults,
    /// The default workspace root's git directories, found at construction.
    default_git_dirs: GitDirs,
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for SandboxPolicies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxPolicies")
            .field("defaults", &self.defaults)
            .finish_non_exhaustive()
    }
}

impl SandboxPolicies {
    /// A service applying `defaults` to every owner until [`set_mode`](Self::set_mode) or
    /// [`set_workspace_root`](Self::set_workspace_root) overrides them.
    #[must_use]
    pub fn new(defaults: PolicyDefaults) -> Self {
        Self {
            default_git_dirs: git_dirs_of(&defaults.workspace_root),
            defaults,
            state: Arc::new(Mutex::new(State::default())),
        }
    }

    /// The operator's defaults.
    #[must_use]
    pub fn defaults(&self) -> &PolicyDefaults {
        &self.defaults
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock()
    }

    /// Installs a fence: while `activity(owner)` is true, that owner's mode and workspace
    /// cannot change.
    pub fn add_fence(&self, activity: OwnerActivity) {
        self.lock().fences.push(activity);
    }

    /// The effective policy of the owner with id `owner_id` (seed `resolve({session})`).
    #[must_use]
    pub fn resolve(&self, owner_id: &str) -> SandboxPolicy {
        self.resolve_in(&self.lock(), owner_id)
    }

    fn resolve_in(&self, state: &State, owner_id: &str) -> SandboxPolicy {
        let o = state.overrides.get(owner_id).cloned().unwrap_or_default();
        let (workspace_root, git_dirs) = o.workspace_root.unwrap_or_else(|| {
            (
                self.defaults.workspace_root.clone(),
                self.default_git_dirs.clone(),
            )
        });
        SandboxPolicy {
            mode: o.mode.unwrap_or(self.defaults.mode),
            workspace_root,
            owner_id: owner_id.to_owned(),
            allow_network: self.defaults.allow_network,
            git_dirs,
        }
    }

    /// Sets `owner`'s mode. Writing the current mode always succeeds.
    ///
    /// # Errors
    /// [`SandboxError::Fenced`] when the mode would change while the owner has terminal
    /// sessions open or being created; nothing changes.
    pub fn set_mode(&self, owner: &Agent, mode: SandboxMode) -> Result<(), SandboxError> {
        self.change(owner, |current, o| {
            (current.mode != mode).then(|| {
                o.mode = Some(mode);
                format!("mode from {} to {mode}", current.mode)
            })
        })
    }

    /// Sets `owner`'s workspace root (made absolute).
    ///
    /// # Errors
    /// [`SandboxError::NotADirectory`] when `root` is not a directory;
    /// [`SandboxError::Fenced`] when it would change while the owner has sessions.
    pub fn set_workspace_root(&self, owner: &Agent, root: PathBuf) -> Result<(), SandboxError> {
        if !root.is_dir() {
            return Err(SandboxError::NotADirectory(root));
        }
        let root = std::path::absolute(&root).map_err(|_| SandboxError::NotADirectory(root))?;
        self.change(owner, |current, o| {
            (current.workspace_root != root).then(|| {
                let what = format!(
                    "workspace root from {} to {}",
                    current.workspace_root.display(),
                    root.display()
                );
                o.workspace_root = Some((root.clone(), git_dirs_of(&root)));
                what
            })
        })
    }

    /// Applies `edit` to a copy of the owner's override; `edit` returns a description when it
    /// changed the effective policy. A change is refused while any fence reports activity.
    fn change(
        &self,
        owner: &Agent,
        edit: impl FnOnce(&SandboxPolicy, &mut Override) -> Option<String>,
    ) -> Result<(), SandboxError> {
        let mut state = self.lock();
        let current = self.resolve_in(&state, owner.id());
        let mut next = state.overrides.get(owner.id()).cloned().unwrap_or_default();
        let Some(what) = edit(&current, &mut next) else {
            return Ok(());
        };
        if state.fences.iter().any(|active| active(owner)) {
            return Err(SandboxError::Fenced { what });
        }
        let first = !state.overrides.contains_key(owner.id());
        state.overrides.insert(owner.id().to_owned(), next);
        drop(state);
        if first {
            self.forget_on_dispose(owner);
        }
        Ok(())
    }

    fn forget_on_dispose(&self, owner: &Agent) {
        // Never keep the service alive for an owner.
        let weak = Arc::downgrade(&self.state);
        let id = owner.id().to_owned();
        owner.on_dispose("sandbox policy override", move || {
            Box::pin(async move {
                if let Some(state) = weak.upgrade() {
                    state.lock().overrides.remove(&id);
                }
            })
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use dsh_context::Context;

    use super::*;

    fn service() -> SandboxPolicies {
        SandboxPolicies::new(PolicyDefaults {
            mode: SandboxMode::ReadOnly,
            workspace_root: PathBuf::from("/"),
            allow_network: false,
        })
    }

    #[tokio::test]
    async fn the_mode_fence_holds_while_the_owner_has_sessions() {
        let ctx = Context::empty();
        let (a, b) = (Agent::new(&ctx, "a"), Agent::new(&ctx, "b"));
        let policies = service();
        let busy = Arc::new(AtomicBool::new(true));
        let a_for_fence = a.clone();
        let flag = Arc::clone(&busy);
        policies.add_fence(Arc::new(move |owner| {
            *owner == a_for_fence && flag.load(Ordering::SeqCst)
        }));
        // Same mode passes; a change is refused and nothing changes.
        policies.set_mode(&a, SandboxMode::ReadOnly).unwrap();
        let e = policies
            .set_mode(&a, SandboxMode::WorkspaceWrite)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot change the sandbox mode from read-only to workspace-write while persistent terminal sessions are open or being created; wait for creation to settle and close them first"
        );
        assert_eq!(policies.resolve("a").mode, SandboxMode::ReadOnly);
        // An unrelated owner is unaffected.
        policies
            .set_mode(&b, SandboxMode::DangerFullAccess)
            .unwrap();
        assert_eq!(policies.resolve("b").mode, SandboxMode::DangerFullAccess);
        // Once the sessions are closed the change goes through.
        busy.store(false, Ordering::SeqCst);
        policies.set_mode(&a, SandboxMode::WorkspaceWrite).unwrap();
        let p = policies.resolve("a");
        assert_eq!(
            (p.mode, p.owner_id.as_str()),
            (SandboxMode::WorkspaceWrite, "a")
        );
        // Disposing the owner forgets its override.
        a.dispose().await;
        assert_eq!(policies.resolve("a").mode, SandboxMode::ReadOnly);
    }

    #[test]
    fn workspace_roots_must_be_directories() {
        let ctx = Context::empty();
        let a = Agent::new(&ctx, "a");
        let policies = service();
        let e = policies
            .set_workspace_root(&a, PathBuf::from("/nonexistent/ws"))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "workspace root /nonexistent/ws is not a directory; pass an existing directory"
        );
        policies
            .set_workspace_root(&a, std::env::temp_dir())
            .unwrap();
        assert_eq!(policies.resolve("a").workspace_root, std::env::temp_dir());
    }
}
