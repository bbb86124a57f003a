//! Owner identity: an agent owns a child scope and is equal only to itself.

use std::fmt;
use std::sync::Arc;

use crate::{BoxFuture, Context};

struct AgentInner {
    id: String,
    scope: Context,
}

/// An owner identity (one model conversation, e.g. one MCP connection).
///
/// Equality is the exact instance: two agents created with the same id are different owners
/// (the seed's §2.9). Each agent owns a child [`Context`] scope; services attach owner
/// cleanup to it with [`Agent::on_dispose`], and [`Agent::dispose`] awaits that teardown.
#[derive(Clone)]
pub struct Agent {
    inner: Arc<AgentInner>,
}

impl Agent {
    /// Creates an agent whose scope is a child of `parent`.
    pub fn new(parent: &Context, id: impl Into<String>) -> Self {
        let id = id.into();
        let scope = parent.child(format!("agent:{id}"));
        Self {
            inner: Arc::new(AgentInner { id, scope }),
        }
    }

    /// The agent's id (display and environment only; never used for authorization).
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The agent's scope.
    pub fn scope(&self) -> &Context {
        &self.inner.scope
    }

    /// Whether the agent is live (not yet disposed).
    pub fn is_live(&self) -> bool {
        !self.inner.scope.is_disposed()
    }

    /// Registers owner cleanup that runs when the agent is disposed.
    /// Returns `false` if the agent is already disposed (nothing registered).
    pub fn on_dispose<F>(&self, label: impl Into<String>, f: F) -> bool
    where
        F: FnOnce() -> BoxFuture<'static, ()> + Send + 'static,
    {
        self.inner.scope.on_dispose(label, f)
    }

    /// Disposes the agent: runs its owner cleanups in reverse order and awaits them.
    pub async fn dispose(&self) {
        self.inner.scope.dispose().await;
    }

    /// A stable per-instance key, usable in maps (not an authorization token).
    pub fn instance_key(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }
}

impl PartialEq for Agent {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
impl Eq for Agent {}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("id", &self.inner.id)
            .field("instance", &format_args!("{:#x}", self.instance_key()))
            .finish()
    }
}
