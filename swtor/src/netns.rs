//! Entering a network namespace for one job. `setns` changes only the calling
//! thread, so the job runs on a short-lived OS thread that enters the
//! namespace, opens what it needs (a socket keeps the namespace it was opened
//! in) and exits; the caller's thread never moves.

use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// Moves the calling thread into the network namespace at `path`
/// (e.g. /run/netns/NAME). Use only on a thread you own and will discard.
pub fn enter(path: &Path) -> io::Result<()> {
    let f = std::fs::File::open(path)
        .map_err(|e| io::Error::new(e.kind(), format!("open {}: {e}", path.display())))?;
    // SAFETY: `f` is an open namespace file for the duration of the call;
    // setns only affects the calling thread.
    let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if r < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(
            e.kind(),
            format!("setns {}: {e}", path.display()),
        ));
    }
    Ok(())
}

/// Runs `f` on a fresh thread inside `netns` (None: the current namespace)
/// and returns its result.
pub fn run_in<T, F>(netns: Option<&Path>, f: F) -> io::Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> io::Result<T> + Send + 'static,
{
    let p: Option<PathBuf> = netns.map(Path::to_path_buf);
    std::thread::Builder::new()
        .name("swtor-netns".into())
        .spawn(move || {
            if let Some(p) = &p {
                enter(p)?;
            }
            f()
        })?
        .join()
        .map_err(|_| io::Error::other("namespace helper thread panicked"))?
}
