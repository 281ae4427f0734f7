//! Waiting for a child process the CLI started, so that Ctrl-C (the
//! [`crate::kernel::signals`] interrupt flag) stops it instead of being ignored
//! until it ends on its own.

use crate::kernel::signals;
use std::io::{self, Read};
use std::process::{Child, Output};
use std::time::Duration;

/// What an interrupted wait reports (the CLI prints it as Mininet does).
pub const MESSAGE: &str = "Interrupt";

/// Like [`Child::wait_with_output`], but on Ctrl-C (or a terminating
/// signal) the child is killed and reaped, and the error is
/// [`io::ErrorKind::Interrupted`] with [`MESSAGE`].
pub fn output(mut child: Child) -> io::Result<Output> {
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            v
        })
    };
    let out = drain(child.stdout.take().map(|s| Box::new(s) as _));
    let err = drain(child.stderr.take().map(|s| Box::new(s) as _));
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if signals::take_interrupt() || signals::terminating() {
            let _ = child.kill();
            let _ = child.wait();
            let _ = (out.join(), err.join());
            return Err(io::Error::new(io::ErrorKind::Interrupted, MESSAGE));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Ok(Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}
