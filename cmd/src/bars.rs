//! The library's progress steps (`lh_emu::progress`: a bring-up, a
//! pingall) drawn as a bar on stderr when it is a terminal, nothing
//! otherwise; the network's own output (Mininet's lines, a pingall's rows)
//! is written above the bar, never through it.

use lh_experiments::Progress;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

/// The bar of the operation under way, if any, by its name.
type Current = Arc<Mutex<Option<(String, Progress)>>>;

#[derive(Clone, Default)]
pub struct StepBars {
    current: Current,
}

impl StepBars {
    /// The hook to hand the library (`NetOptions::progress`): a bar per
    /// operation, gone when its last step is done; none off a terminal.
    pub fn hook(&self) -> lh_emu::progress::Progress {
        if !std::io::stderr().is_terminal() {
            return lh_emu::progress::Progress::default();
        }
        let current = Arc::clone(&self.current);
        lh_emu::progress::Progress::new(move |s| {
            let mut c = current.lock().unwrap_or_else(|e| e.into_inner());
            if c.as_ref().is_some_and(|(what, _)| what != s.what)
                && let Some((_, bar)) = c.take()
            {
                bar.finish();
            }
            let (_, bar) =
                c.get_or_insert_with(|| (s.what.to_owned(), Progress::new(s.total, s.what)));
            bar.set_position(s.done);
            if s.done >= s.total {
                bar.finish();
                *c = None;
            }
        })
    }

    /// `inner`, written with the bar cleared and drawn again after. While a
    /// bar is shown only whole lines go out (a pingall's `h1 -> ` waits
    /// for its row): a bar drawn after half a line would be cleared with it.
    pub fn writer(&self, inner: Box<dyn Write + Send>) -> Box<dyn Write + Send> {
        Box::new(Above {
            current: Arc::clone(&self.current),
            inner,
            pending: Vec::new(),
        })
    }
}

struct Above {
    current: Current,
    inner: Box<dyn Write + Send>,
    /// Part of a line, held while a bar is shown.
    pending: Vec<u8>,
}

impl Write for Above {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(b);
        let c = self.current.lock().unwrap_or_else(|e| e.into_inner());
        let (inner, pending) = (&mut self.inner, &mut self.pending);
        match c.as_ref() {
            Some((_, bar)) => {
                if let Some(end) = pending.iter().rposition(|&x| x == b'\n') {
                    bar.suspend(|| inner.write_all(&pending[..=end]))?;
                    pending.drain(..=end);
                }
            }
            None => {
                inner.write_all(pending)?;
                pending.clear();
            }
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        let shown = self
            .current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some();
        if !shown {
            self.inner.write_all(&self.pending)?;
            self.pending.clear();
        }
        self.inner.flush()
    }
}

impl Drop for Above {
    fn drop(&mut self) {
        let _ = self.inner.write_all(&self.pending);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose bytes the test reads back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn while_a_bar_is_shown_only_whole_lines_go_out_and_nothing_is_lost() {
        let bars = StepBars::default();
        let got = Shared::default();
        let mut w = bars.writer(Box::new(got.clone()));
        let text = || String::from_utf8(got.0.lock().unwrap().clone()).unwrap();
        // No bar: everything goes out at once, half lines too.
        write!(w, "mininet> ").unwrap();
        assert_eq!(text(), "mininet> ");
        *bars.current.lock().unwrap() = Some(("pingall".into(), Progress::hidden()));
        write!(w, "h1 -> ").unwrap();
        w.flush().unwrap();
        assert_eq!(text(), "mininet> ", "half a row waits under a bar");
        write!(w, "h2 h3\nh2 -> ").unwrap();
        assert_eq!(text(), "mininet> h1 -> h2 h3\n");
        *bars.current.lock().unwrap() = None;
        w.flush().unwrap();
        assert_eq!(text(), "mininet> h1 -> h2 h3\nh2 -> ");
        write!(w, "X").unwrap();
        *bars.current.lock().unwrap() = Some(("pingall".into(), Progress::hidden()));
        write!(w, "Y").unwrap();
        drop(w);
        assert_eq!(
            text(),
            "mininet> h1 -> h2 h3\nh2 -> XY",
            "dropped, the rest goes out"
        );
    }
}
