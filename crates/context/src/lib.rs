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

/// Identifies a service by its Rust type. The type name is used only in messages.
#[derive(Clone, Copy)]
pub struct ServiceKey {
    id: TypeId,
    name: &'static str,
}

impl ServiceKey {
    /// The key of service type `T` (which may be a trait object such as `dyn Foo`).
    pub fn of<T: ?Sized + 'static>() -> Self {
        Self {
            id: TypeId::of::<T>(),
            name: std::any::type_name::<T>(),
        }
    }

    /// The full Rust type name of the service.
    pub fn type_name(&self) -> &'static str {
        self.name
    }

    /// The last path segment of the type name, for short messages.
    pub fn short_name(&self) -> &'static str {
        short_type_name(self.name)
    }
}

fn short_type_name(name: &'static str) -> &'static str {
    let base = name.split('<').next().unwrap_or(name);
    match base.rfind("::") {
        Some(i) => &name[i + 2..],
        None => name,
    }
}

impl PartialEq for ServiceKey {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl Eq for ServiceKey {}
impl std::hash::Hash for ServiceKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}
impl fmt::Debug for ServiceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_name())
    }
}
impl fmt::Display for ServiceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_name())
    }
}

/// Problems found by [`ContextBuilder::apply`] or by a lookup.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContextError {
    /// A plugin requires a service that no plugin provides.
    #[error(
        "plugin `{plugin}` requires service `{service}`, which no registered plugin provides; add the plugin that provides it before calling apply()"
    )]
    MissingService {
        /// The requiring plugin.
        plugin: String,
        /// The missing service's type name.
        service: String,
    },
    /// Two plugins with the same name were added.
    #[error("plugin `{name}` was added twice; add each plugin once")]
    DuplicatePlugin {
        /// The plugin name.
        name: String,
    },
    /// Two plugins (or one plugin twice) provide the same service in one scope.
    #[error("service `{service}` is provided by both `{first}` and `{second}`; keep one provider")]
    DuplicateService {
        /// The service's type name.
        service: String,
        /// The first provider.
        first: String,
        /// The second provider.
        second: String,
    },
    /// The requires/provides graph has a cycle.
    #[error("plugins form a dependency cycle: {path}")]
    Cycle {
        /// The plugins in the cycle, joined by ` -> `.
        path: String,
    },
    /// A plugin's config failed validation.
    #[error("plugin `{plugin}` has invalid config: {message}")]
    InvalidConfig {
        /// The plugin.
        plugin: String,
        /// What is wrong, naming the field.
        message: String,
    },
    /// A plugin's build step failed.
    #[error("plugin `{plugin}` failed to build: {message}")]
    Build {
        /// The plugin.
        plugin: String,
        /// The error text.
        message: String,
    },
    /// A plugin provided a service it did not declare in [`Plugin::provides`].
    #[error("plugin `{plugin}` provided `{service}` without declaring it in provides()")]
    UndeclaredService {
        /// The plugin.
        plugin: String,
        /// The service.
        service: String,
    },
    /// A plugin declared a service in provides() but did not provide it in build().
    #[error("plugin `{plugin}` declared `{service}` in provides() but did not provide it")]
    NotProvided {
        /// The plugin.
        plugin: String,
        /// The service.
        service: String,
    },
    /// A lookup for a service that is not present in this context or its parents.
    #[error("service `{service}` is not available in this context")]
    NotAvailable {
        /// The service.
        service: String,
    },
    /// The context was already disposed.
    #[error("context is disposed")]
    Disposed,
}

/// Every problem found by one [`ContextBuilder::apply`] call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyErrors(pub Vec<ContextError>);

impl fmt::Display for ApplyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "context apply failed with {} problem(s)", self.0.len())?;
        for e in &self.0 {
            write!(f, "\n- {e}")?;
        }
        Ok(())
    }
}
impl std::error::Error for ApplyErrors {}

/// A unit of composition: declares its dependencies and builds its services and effects.
///
/// Lifecycle: `add` (no lookups) → `apply` checks declarations and config → `build` in
/// dependency order → the plugin's disposers run when the context is disposed.
pub trait Plugin: Send + Sync + 'static {
    /// Stable plugin name used in messages (defaults to the Rust type name).
    fn name(&self) -> &str {
        short_type_name(std::any::type_name::<Self>())
    }
    /// Services that must be provided by some plugin before this one builds.
    fn requires(&self) -> Vec<ServiceKey> {
        Vec::new()
    }
    /// Services this plugin uses when present; if provided, they are built first.
    fn optional(&self) -> Vec<ServiceKey> {
        Vec::new()
    }
    /// Services this plugin provides in [`Plugin::build`].
    fn provides(&self) -> Vec<ServiceKey> {
        Vec::new()
    }
    /// Validates the plugin's config; called by apply before any build. Return a message that
    /// names the bad field and the accepted range.
    fn validate_config(&self) -> Result<(), String> {
        Ok(())
    }
    /// Registers services and effects.
    ///
    /// # Errors
    /// Any error aborts apply; it is reported as [`ContextError::Build`].
    fn build(&self, registrar: &mut Registrar<'_>) -> Result<(), BoxError>;
}

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

/// What a plugin gets while building: provide services, look up dependencies, register
/// disposers.
pub struct Registrar<'a> {
    ctx: &'a Context,
    plugin: String,
    provided: Vec<ServiceKey>,
}

impl Registrar<'_> {
    /// The context being built.
    pub fn context(&self) -> &Context {
        self.ctx
    }

    /// The building plugin's name.
    pub fn plugin_name(&self) -> &str {
        &self.plugin
    }

    /// Provides service `T`. Must be declared in [`Plugin::provides`].
    pub fn provide<T: ?Sized + Send + Sync + 'static>(&mut self, value: Arc<T>) {
        let key = ServiceKey::of::<T>();
        if self.ctx.provide::<T>(&self.plugin, value).is_ok() {
            self.provided.push(key);
        }
    }

    /// Looks up a required service.
    ///
    /// # Errors
    /// [`ContextError::NotAvailable`] if `T` is absent (apply checks declared requirements
    /// before build, so this only fails for undeclared ones).
    pub fn require<T: ?Sized + Send + Sync + 'static>(&self) -> Result<Arc<T>, ContextError> {
        self.ctx.require::<T>()
    }

    /// Looks up an optional service.
    pub fn get<T: ?Sized + Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.ctx.get::<T>()
    }

    /// Registers an async disposer on the context, labelled with this plugin's name.
    pub fn on_dispose<F>(&self, f: F) -> bool
    where
        F: FnOnce() -> BoxFuture<'static, ()> + Send + 'static,
    {
        self.ctx.on_dispose(self.plugin.clone(), f)
    }
}

/// Collects plugins, then [`apply`](ContextBuilder::apply)s them.
#[derive(Default)]
pub struct ContextBuilder {
    plugins: Vec<Box<dyn Plugin>>,
}

impl ContextBuilder {
    /// Adds a plugin (no lookups happen here).
    pub fn add(&mut self, plugin: impl Plugin) -> &mut Self {
        self.plugins.push(Box::new(plugin));
        self
    }

    /// Adds a boxed plugin.
    pub fn add_boxed(&mut self, plugin: Box<dyn Plugin>) -> &mut Self {
        self.plugins.push(plugin);
        self
    }

    /// Builder-style [`ContextBuilder::add`].
    #[must_use]
    pub fn with(mut self, plugin: impl Plugin) -> Self {
        self.plugins.push(Box::new(plugin));
        self
    }

    /// Validates and builds every plugin.
    ///
    /// Order: duplicate names, duplicate providers, config validation, missing required
    /// services and cycles are all checked first and reported together; then plugins are built
    /// in dependency order (providers of required and optional services first, ties in
    /// insertion order).
    ///
    /// # Errors
    /// [`ApplyErrors`] with every problem found. On a build failure, the services built so far
    /// are disposed by the caller dropping the context (disposers of built plugins are not run).
    pub fn apply(self) -> Result<Context, ApplyErrors> {
        let ctx = Context::empty();
        self.apply_to(&ctx)?;
        Ok(ctx)
    }

    /// Like [`ContextBuilder::apply`] but builds into an existing (e.g. child) context, whose
    /// parents' services count as provided.
    ///
    /// # Errors
    /// See [`ContextBuilder::apply`].
    pub fn apply_to(self, ctx: &Context) -> Result<(), ApplyErrors> {
        let mut errors = Vec::new();
        let plugins = self.plugins;
        let mut names: HashMap<&str, usize> = HashMap::new();
        let mut providers: HashMap<ServiceKey, usize> = HashMap::new();
        for (i, p) in plugins.iter().enumerate() {
            if names.insert(p.name(), i).is_some() {
                errors.push(ContextError::DuplicatePlugin {
                    name: p.name().to_owned(),
                });
            }
            for key in p.provides() {
                if let Some(&first) = providers.get(&key) {
                    errors.push(ContextError::DuplicateService {
                        service: key.short_name().to_owned(),
                        first: plugins[first].name().to_owned(),
                        second: p.name().to_owned(),
                    });
                } else {
                    providers.insert(key, i);
                }
            }
            if let Err(message) = p.validate_config() {
                errors.push(ContextError::InvalidConfig {
                    plugin: p.name().to_owned(),
                    message,
                });
            }
        }
        let exists_in_parent = |key: &ServiceKey| -> bool {
            let mut cur = Some(ctx);
            while let Some(c) = cur {
                if c.inner.services.read().contains_key(&key.id) {
                    return true;
                }
                cur = c.inner.parent.as_ref();
            }
            false
        };
        // Edges: plugin i depends on provider j.
        let mut deps: Vec<Vec<usize>> = vec![Vec::new(); plugins.len()];
        for (i, p) in plugins.iter().enumerate() {
            for key in p.requires() {
                match providers.get(&key) {
                    Some(&j) => deps[i].push(j),
                    None if exists_in_parent(&key) => {}
                    None => errors.push(ContextError::MissingService {
                        plugin: p.name().to_owned(),
                        service: key.short_name().to_owned(),
                    }),
                }
            }
            for key in p.optional() {
                if let Some(&j) = providers.get(&key) {
                    deps[i].push(j);
                }
            }
        }
        let order = match topo_order(&deps) {
            Ok(order) => order,
            Err(cycle) => {
                let path = cycle
                    .iter()
                    .map(|&i| plugins[i].name())
                    .collect::<Vec<_>>()
                    .join(" -> ");
                errors.push(ContextError::Cycle { path });
                Vec::new()
            }
        };
        if !errors.is_empty() {
            return Err(ApplyErrors(errors));
        }
        for i in order {
            let p = &plugins[i];
            let mut reg = Registrar {
                ctx,
                plugin: p.name().to_owned(),
                provided: Vec::new(),
            };
            if let Err(e) = p.build(&mut reg) {
                errors.push(ContextError::Build {
                    plugin: p.name().to_owned(),
                    message: e.to_string(),
                });
                return Err(ApplyErrors(errors));
            }
            let declared = p.provides();
            for key in &reg.provided {
                if !declared.contains(key) {
                    errors.push(ContextError::UndeclaredService {
                        plugin: p.name().to_owned(),
                        service: key.short_name().to_owned(),
                    });
                }
            }
            for key in &declared {
                if !reg.provided.contains(key) {
                    errors.push(ContextError::NotProvided {
                        plugin: p.name().to_owned(),
                        service: key.short_name().to_owned(),
                    });
                }
            }
            if !errors.is_empty() {
                return Err(ApplyErrors(errors));
            }
        }
        Ok(())
    }
}

/// Stable topological order (Kahn, smallest index first). On a cycle returns its members.
fn topo_order(deps: &[Vec<usize>]) -> Result<Vec<usize>, Vec<usize>> {
    let n = deps.len();
    let mut remaining: Vec<usize> = deps
        .iter()
        .map(|d| {
            let mut d = d.clone();
            d.sort_unstable();
            d.dedup();
            d.len()
        })
        .collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, d) in deps.iter().enumerate() {
        let mut d = d.clone();
        d.sort_unstable();
        d.dedup();
        for j in d {
            dependents[j].push(i);
        }
    }
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let Some(next) = (0..n).find(|&i| !done[i] && remaining[i] == 0) else {
            let mut cycle: Vec<usize> = (0..n).filter(|&i| !done[i]).collect();
            if let Some(&first) = cycle.first() {
                cycle.push(first);
            }
            return Err(cycle);
        };
        done[next] = true;
        order.push(next);
        for &k in &dependents[next] {
            remaining[k] -= 1;
        }
    }
    Ok(order)
}

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

#[cfg(test)]
mod tests;
