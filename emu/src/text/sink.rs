//! A writer its owner can read back: give a clone to
//! [`crate::net::Network::set_output`] (or a [`crate::cli::Cli`]) and
//! read what the network printed, as graders, tests and scripts do.

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

/// Shared, growable text output; clones write to the same buffer.
#[derive(Clone, Default)]
pub struct TextSink(Arc<Mutex<Vec<u8>>>);

impl TextSink {
    pub fn new() -> TextSink {
        TextSink::default()
    }
    /// Everything written since the last `take`, as text (invalid UTF-8
    /// replaced), leaving the buffer empty.
    pub fn take(&self) -> String {
        let bytes = std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner));
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Write for TextSink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_and_take_empties() {
        let s = TextSink::new();
        let mut w = s.clone();
        write!(w, "a{}", 1).unwrap();
        w.write_all(&[0xff, b'b']).unwrap();
        assert_eq!(s.take(), "a1\u{fffd}b");
        assert_eq!(s.take(), "");
    }
}
