//! Work that must happen on every way out of a run -- normal end, SIGTERM
//! (the signal watcher exits the process without unwinding the main
//! thread), or a panic: flushing and closing captures. Whoever owns a
//! resource registers a hook and unregisters it when it closes the resource
//! itself; [`run_all`] runs whatever is still registered, once.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

type Hook = Box<dyn FnOnce() + Send>;

static HOOKS: Mutex<Vec<(u64, Hook)>> = Mutex::new(Vec::new());
static NEXT: AtomicU64 = AtomicU64::new(1);

fn hooks() -> std::sync::MutexGuard<'static, Vec<(u64, Hook)>> {
    HOOKS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Register `f`; returns an id for [`unregister`].
pub fn register(f: impl FnOnce() + Send + 'static) -> u64 {
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    hooks().push((id, Box::new(f)));
    id
}

/// Remove a hook without running it; true if it was still registered.
pub fn unregister(id: u64) -> bool {
    let mut h = hooks();
    let before = h.len();
    h.retain(|(i, _)| *i != id);
    h.len() != before
}

/// Run (and remove) every registered hook, newest first. A hook that
/// panics does not stop the others.
pub fn run_all() -> usize {
    let all = std::mem::take(&mut *hooks());
    let n = all.len();
    for (_, f) in all.into_iter().rev() {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn hooks_run_once_unless_unregistered() {
        let n = Arc::new(AtomicUsize::new(0));
        let (a, b) = (n.clone(), n.clone());
        let ida = register(move || {
            a.fetch_add(1, Ordering::SeqCst);
        });
        register(move || {
            b.fetch_add(10, Ordering::SeqCst);
        });
        register(|| panic!("a failing hook"));
        assert!(unregister(ida));
        assert!(!unregister(ida));
        run_all();
        assert_eq!(n.load(Ordering::SeqCst), 10);
        run_all();
        assert_eq!(n.load(Ordering::SeqCst), 10);
    }
}
