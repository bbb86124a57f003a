//! Unit tests for the context, plugins, scopes, disposers and agents.

use super::*;
use parking_lot::Mutex as StdMutex;

struct A(u32);
struct B(u32);
trait Speak: Send + Sync {
    fn say(&self) -> String;
}
struct Dog;
impl Speak for Dog {
    fn say(&self) -> String {
        "woof".into()
    }
}

struct ProvideA;
impl Plugin for ProvideA {
    fn name(&self) -> &str {
        "provide-a"
    }
    fn provides(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<A>()]
    }
    fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
        r.provide(Arc::new(A(1)));
        Ok(())
    }
}

struct NeedsAProvidesB;
impl Plugin for NeedsAProvidesB {
    fn name(&self) -> &str {
        "needs-a"
    }
    fn requires(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<A>()]
    }
    fn provides(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<B>()]
    }
    fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
        let a = r.require::<A>()?;
        r.provide(Arc::new(B(a.0 + 1)));
        Ok(())
    }
}

struct NeedsB;
impl Plugin for NeedsB {
    fn name(&self) -> &str {
        "needs-b"
    }
    fn requires(&self) -> Vec<ServiceKey> {
        vec![ServiceKey::of::<B>()]
    }
    fn build(&self, _r: &mut Registrar<'_>) -> Result<(), BoxError> {
        Ok(())
    }
}

#[test]
fn builds_in_dependency_order_regardless_of_insertion() {
    let ctx = Context::builder()
        .with(NeedsB)
        .with(NeedsAProvidesB)
        .with(ProvideA)
        .apply()
        .unwrap();
    assert_eq!(ctx.require::<B>().unwrap().0, 2);
}

#[test]
fn apply_reports_every_problem_naming_plugin_and_service() {
    struct BadConfig;
    impl Plugin for BadConfig {
        fn name(&self) -> &str {
            "bad-config"
        }
        fn validate_config(&self) -> Result<(), String> {
            Err("rows must be a positive integer".into())
        }
        fn build(&self, _r: &mut Registrar<'_>) -> Result<(), BoxError> {
            Ok(())
        }
    }
    let err = Context::builder()
        .with(NeedsB)
        .with(NeedsAProvidesB)
        .with(BadConfig)
        .apply()
        .unwrap_err();
    let text = err.to_string();
    assert_eq!(err.0.len(), 2, "{text}");
    assert!(
        text.contains("plugin `needs-a` requires service `A`"),
        "{text}"
    );
    assert!(text.contains("plugin `bad-config` has invalid config: rows must be"));
}

#[test]
fn duplicate_plugins_and_services_are_rejected() {
    let err = Context::builder()
        .with(ProvideA)
        .with(ProvideA)
        .apply()
        .unwrap_err();
    assert!(matches!(err.0[0], ContextError::DuplicatePlugin { .. }));
    assert!(matches!(err.0[1], ContextError::DuplicateService { .. }));
}

#[test]
fn cycles_are_reported() {
    struct X;
    struct Y;
    struct PX;
    struct PY;
    impl Plugin for PX {
        fn name(&self) -> &str {
            "px"
        }
        fn requires(&self) -> Vec<ServiceKey> {
            vec![ServiceKey::of::<Y>()]
        }
        fn provides(&self) -> Vec<ServiceKey> {
            vec![ServiceKey::of::<X>()]
        }
        fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
            r.provide(Arc::new(X));
            Ok(())
        }
    }
    impl Plugin for PY {
        fn name(&self) -> &str {
            "py"
        }
        fn requires(&self) -> Vec<ServiceKey> {
            vec![ServiceKey::of::<X>()]
        }
        fn provides(&self) -> Vec<ServiceKey> {
            vec![ServiceKey::of::<Y>()]
        }
        fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
            r.provide(Arc::new(Y));
            Ok(())
        }
    }
    let err = Context::builder().with(PX).with(PY).apply().unwrap_err();
    assert_eq!(
        err.0,
        vec![ContextError::Cycle {
            path: "px -> py -> px".into()
        }]
    );
}

#[test]
fn trait_object_services_and_optional_lookup() {
    let ctx = Context::empty();
    ctx.provide::<dyn Speak>("test", Arc::new(Dog)).unwrap();
    assert_eq!(ctx.require::<dyn Speak>().unwrap().say(), "woof");
    assert!(ctx.get::<A>().is_none());
    let err = ctx.require::<A>().err().unwrap();
    assert_eq!(
        err.to_string(),
        "service `A` is not available in this context"
    );
}

#[test]
fn child_scopes_see_parent_services_and_can_shadow() {
    let root = Context::empty();
    root.provide("root", Arc::new(A(1))).unwrap();
    let child = root.child("agent:x");
    assert_eq!(child.require::<A>().unwrap().0, 1);
    child.provide("child", Arc::new(A(2))).unwrap();
    assert_eq!(child.require::<A>().unwrap().0, 2);
    assert_eq!(root.require::<A>().unwrap().0, 1);
    assert_eq!(child.scope(), Some("agent:x"));
}

#[tokio::test]
async fn disposers_run_in_reverse_order_and_await_async_work() {
    let log = Arc::new(StdMutex::new(Vec::new()));
    let root = Context::empty();
    for i in 0..3 {
        let log = log.clone();
        root.on_dispose(format!("d{i}"), move || {
            Box::pin(async move {
                tokio::task::yield_now().await;
                log.lock().push(i);
            })
        });
    }
    let child = root.child("c");
    let l2 = log.clone();
    child.on_dispose("child", move || {
        Box::pin(async move {
            l2.lock().push(99);
        })
    });
    root.dispose().await;
    assert_eq!(*log.lock(), vec![99, 2, 1, 0]);
    assert!(child.is_disposed());
    // Idempotent, and late registrations are refused so the caller keeps ownership.
    root.dispose().await;
    assert!(!root.on_dispose("late", || Box::pin(async {})));
}

#[tokio::test]
async fn agent_identity_is_the_exact_instance_and_disposal_tears_down() {
    let root = Context::empty();
    let a1 = Agent::new(&root, "same");
    let a2 = Agent::new(&root, "same");
    assert_eq!(a1, a1.clone());
    assert_ne!(a1, a2, "same id, different owners");
    let flag = Arc::new(AtomicBool::new(false));
    let f2 = flag.clone();
    assert!(a1.on_dispose("owned", move || Box::pin(async move {
        f2.store(true, Ordering::SeqCst);
    })));
    assert!(a1.is_live());
    a1.dispose().await;
    assert!(!a1.is_live());
    assert!(flag.load(Ordering::SeqCst));
    assert!(a2.is_live());
}

#[test]
fn undeclared_and_unprovided_services_are_errors() {
    struct Sneaky;
    impl Plugin for Sneaky {
        fn name(&self) -> &str {
            "sneaky"
        }
        fn provides(&self) -> Vec<ServiceKey> {
            vec![ServiceKey::of::<B>()]
        }
        fn build(&self, r: &mut Registrar<'_>) -> Result<(), BoxError> {
            r.provide(Arc::new(A(0)));
            Ok(())
        }
    }
    let err = Context::builder().with(Sneaky).apply().unwrap_err();
    assert_eq!(err.0.len(), 2);
}
