//! Progress of long operations (a bring-up, a pingall), for a front end to
//! draw. The library only reports steps; the `lighthouse` binary draws them
//! as a bar (indicatif) when stderr is a terminal, and nothing otherwise.

use std::sync::Arc;

/// `done` of `total` steps of `what` ("bring-up", "pingall"). An
/// operation's last report has `done == total`, also when it ends early
/// (Ctrl-C), so that a front end can take its bar away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step<'a> {
    pub what: &'a str,
    pub done: u64,
    pub total: u64,
}

type Hook = Arc<dyn Fn(Step<'_>) + Send + Sync>;

/// Where steps are reported; the default reports nowhere.
#[derive(Clone, Default)]
pub struct Progress(Option<Hook>);

impl Progress {
    pub fn new(f: impl Fn(Step<'_>) + Send + Sync + 'static) -> Progress {
        Progress(Some(Arc::new(f)))
    }

    pub fn report(&self, what: &str, done: u64, total: u64) {
        if let Some(f) = &self.0 {
            f(Step { what, done, total });
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(hook)"
        } else {
            "Progress(none)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn a_hook_sees_every_step_and_the_default_reports_nowhere() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = Arc::clone(&seen);
        let p = Progress::new(move |st| {
            s.lock()
                .unwrap()
                .push((st.what.to_owned(), st.done, st.total))
        });
        p.report("pingall", 1, 2);
        p.clone().report("pingall", 2, 2);
        assert_eq!(
            *seen.lock().unwrap(),
            vec![("pingall".to_owned(), 1, 2), ("pingall".to_owned(), 2, 2)]
        );
        Progress::default().report("x", 1, 1);
        assert_eq!(format!("{:?}", Progress::default()), "Progress(none)");
        assert_eq!(format!("{p:?}"), "Progress(hook)");
    }
}
