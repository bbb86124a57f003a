//! A small typed dependency-injection `Context` for composing dsh plugins.
//!
//! Services are keyed by **type** ([`ServiceKey`]), never by string. A [`Plugin`] declares the
//! services it requires, may use and provides; [`ContextBuilder::apply`] orders the plugins by
//! those declarations, reports **every** problem at once (each [`ContextError`] names the plugin
//! and the service), validates each plugin's config, then calls [`Plugin::build`] in dependency
//! order. After a successful apply no lookup of a declared service can fail.
//!
//! Contexts form scopes: [`Context::child`] creates a child that sees its parent's services and
//! owns its own disposers. Disposers run in reverse registration order and may be async
//! ([`Context::dispose`]).
//!
//! An [`Agent`] is an owner identity: equality is the exact instance (two agents with the same
//! id are different owners, the seed's §2.9), and disposing it tears down what it owns.
//!
//! ```
//! use std::sync::Arc;
//! use dsh_context::{Context, Plugin, Registrar, ServiceKey, BoxError};
//!
//! struct Greeter(String);
//! struct GreeterPlugin;
//! impl Plugin for GreeterPlugin {
//!     fn name(&self) -> &str { "greeter" }
//!     fn provides(&self) -> Vec<ServiceKey> { vec![ServiceKey::of::<Greeter>()] }
//!     fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
//!         r.provide(Arc::new(Greeter("hello".into())));
//!         Ok(())
//!     }
//! }
//! let ctx = Context::builder().with(GreeterPlugin).apply().unwrap();
//! assert_eq!(ctx.require::<Greeter>().unwrap().0, "hello");
//! ```

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::{Mutex, RwLock};

/// Boxed error type used at plugin boundaries.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A boxed, sendable future, as returned by async disposers.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

type Disposer = Box<dyn FnOnce() -> BoxFuture<'static, ()> + Send>;

mod agent;
mod builder;
mod error;
mod key;
mod plugin;

pub use agent::Agent;
pub use builder::{ContextBuilder, Registrar};
pub use error::{ApplyErrors, ContextError};
pub use key::ServiceKey;
pub(crate) use key::short_type_name;
pub use plugin::Plugin;

struct ServiceEntry {
    value: Box<dyn Any + Send + Sync>,
    provider: String,
}

struct ContextInner {
    parent: Option<Context>,
    scope: Option<String>,
    services: RwLock<HashMap<TypeId, ServiceEntry>>,
    disposers: Mutex<Vec<(String, Disposer)>>,
    disposed: AtomicBool,
}

/// A scope of services and disposers. Cheap to clone (shared handle).
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("scope", &self.inner.scope)
            .field("disposed", &self.is_disposed())
            .finish()
    }
}

impl Context {
    /// Starts composing a root context.
    pub fn builder() -> ContextBuilder {
        ContextBuilder::default()
    }

    /// An empty root context (no services).
    pub fn empty() -> Self {
        Self::new_inner(None, None)
    }

    fn new_inner(parent: Option<Context>, scope: Option<String>) -> Self {
        Self {
            inner: Arc::new(ContextInner {
                parent,
                scope,
                services: RwLock::new(HashMap::new()),
                disposers: Mutex::new(Vec::new()),
                disposed: AtomicBool::new(false),
            }),
        }
    }

    /// Creates a child scope that sees this context's services. The child is disposed when the
    /// parent is (children first, in reverse creation order), unless disposed earlier.
    pub fn child(&self, scope: impl Into<String>) -> Context {
        let child = Self::new_inner(Some(self.clone()), Some(scope.into()));
        let weak = Arc::downgrade(&child.inner);
        let _ = self.on_dispose("child scope", move || {
            Box::pin(async move {
                if let Some(inner) = weak.upgrade() {
                    Context { inner }.dispose().await;
                }
            })
        });
        child
    }

    /// The scope key of this context (`None` for the root).
    pub fn scope(&self) -> Option<&str> {
        self.inner.scope.as_deref()
    }

    /// Looks up an optional service in this scope, then its parents.
    pub fn get<T: ?Sized + Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let mut cur = Some(self);
        while let Some(ctx) = cur {
            let found = ctx
                .inner
                .services
                .read()
                .get(&TypeId::of::<T>())
                .and_then(|entry| entry.value.downcast_ref::<Arc<T>>().cloned());
            if found.is_some() {
                return found;
            }
            cur = ctx.inner.parent.as_ref();
        }
        None
    }

    /// Looks up a required service.
    ///
    /// # Errors
    /// [`ContextError::NotAvailable`] when no scope in the chain provides `T`.
    pub fn require<T: ?Sized + Send + Sync + 'static>(&self) -> Result<Arc<T>, ContextError> {
        self.get::<T>().ok_or_else(|| ContextError::NotAvailable {
            service: ServiceKey::of::<T>().short_name().to_owned(),
        })
    }

    /// Provides a service directly in this scope (used for scoped services; plugins use
    /// [`Registrar::provide`]).
    ///
    /// # Errors
    /// [`ContextError::DuplicateService`] if this scope already has one.
    pub fn provide<T: ?Sized + Send + Sync + 'static>(
        &self,
        provider: &str,
        value: Arc<T>,
    ) -> Result<(), ContextError> {
        let mut map = self.inner.services.write();
        let key = ServiceKey::of::<T>();
        if let Some(existing) = map.get(&key.id) {
            return Err(ContextError::DuplicateService {
                service: key.short_name().to_owned(),
                first: existing.provider.clone(),
                second: provider.to_owned(),
            });
        }
        map.insert(
            key.id,
            ServiceEntry {
                value: Box::new(value),
                provider: provider.to_owned(),
            },
        );
        Ok(())
    }

    /// Registers an async disposer. Disposers run in reverse registration order when this
    /// context is disposed.
    ///
    /// Returns `false` (and drops `f` unrun) when the context is already disposed: the caller
    /// then owns the cleanup it wanted to defer.
    pub fn on_dispose<F>(&self, label: impl Into<String>, f: F) -> bool
    where
        F: FnOnce() -> BoxFuture<'static, ()> + Send + 'static,
    {
        let label = label.into();
        // Checked under the lock so a concurrent dispose cannot miss this disposer.
        let mut disposers = self.inner.disposers.lock();
        if self.is_disposed() {
            tracing::debug!(%label, "disposer not registered: context already disposed");
            return false;
        }
        disposers.push((label, Box::new(f)));
        true
    }

    /// Whether [`Context::dispose`] has started.
    pub fn is_disposed(&self) -> bool {
        self.inner.disposed.load(Ordering::SeqCst)
    }

    /// Runs every disposer in reverse registration order, awaiting each. Idempotent: a second
    /// call returns at once.
    ///
    /// # Cancel safety
    /// Not cancel safe: dropping the future part-way leaves later disposers un-run.
    pub async fn dispose(&self) {
        {
            // Set under the disposer lock so on_dispose either lands before or sees `disposed`.
            let _guard = self.inner.disposers.lock();
            if self.inner.disposed.swap(true, Ordering::SeqCst) {
                return;
            }
        }
        loop {
            let next = self.inner.disposers.lock().pop();
            let Some((label, f)) = next else { break };
            tracing::trace!(%label, scope = ?self.inner.scope, "running disposer");
            f().await;
        }
        self.inner.services.write().clear();
    }
}

#[cfg(test)]
mod tests;
