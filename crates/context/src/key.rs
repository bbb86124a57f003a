//! Service keys: services are identified by Rust type, named only in messages.

use std::any::TypeId;
use std::fmt;

/// Identifies a service by its Rust type. The type name is used only in messages.
#[derive(Clone, Copy)]
pub struct ServiceKey {
    pub(crate) id: TypeId,
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

pub(crate) fn short_type_name(name: &'static str) -> &'static str {
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
