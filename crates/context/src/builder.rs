//! Composition: the builder that orders and applies plugins, and the registrar they build with.

use std::collections::HashMap;
use std::sync::Arc;

use crate::{ApplyErrors, BoxFuture, Context, ContextError, Plugin, ServiceKey};

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
