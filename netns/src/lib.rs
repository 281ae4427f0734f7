//! Entering a Linux network namespace: the one place in Lighthouse that
//! calls `setns(2)`.
//!
//! `setns(fd, CLONE_NEWNET)` moves only the calling thread, and a thread that
//! entered a namespace stays there. So nothing here moves a caller's thread:
//!
//! - [`run_in`] (and [`try_run_in`]) runs a closure on a fresh thread that
//!   enters the namespace and ends when the closure returns. Sockets the
//!   closure opens keep that namespace, which is how to get a packet, netlink
//!   or TCP socket "over there".
//! - [`enter_on_exec`] makes a [`Command`]'s child enter the namespace
//!   between fork and exec; [`enter_on_exec_with_sysfs`] also gives the
//!   child a mount namespace of its own with `/sys` remounted, so that
//!   `/sys/class/net` lists the namespace's interfaces (as `ip netns exec`
//!   does).
//! - [`enter`] / [`Netns::enter`] move the calling thread, for a thread that
//!   was made for it and is discarded afterwards.
//!
//! Namespaces are named by the path of their nsfs file, e.g.
//! `/run/netns/NAME` (what `ip netns add NAME` makes) or `/proc/PID/ns/net`.
#![warn(clippy::undocumented_unsafe_blocks)]

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why entering a namespace failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The namespace file could not be opened.
    #[error("open {}: {source}", path.display())]
    Open { path: PathBuf, source: io::Error },
    /// `setns` refused it (EINVAL: not a network namespace; EPERM: not
    /// privileged).
    #[error("setns {}: {source}", path.display())]
    Enter { path: PathBuf, source: io::Error },
    /// The helper thread could not be started.
    #[error("spawning a namespace thread: {0}")]
    Spawn(io::Error),
    /// The closure given to [`run_in`] panicked.
    #[error("the namespace thread panicked")]
    Panicked,
}

impl From<Error> for io::Error {
    /// Keeps the underlying error's kind (NotFound, PermissionDenied, ...)
    /// and the message with the path.
    fn from(e: Error) -> io::Error {
        let kind = match &e {
            Error::Open { source, .. } | Error::Enter { source, .. } | Error::Spawn(source) => {
                source.kind()
            }
            Error::Panicked => io::ErrorKind::Other,
        };
        io::Error::new(kind, e.to_string())
    }
}

/// An open network namespace file.
#[derive(Debug)]
pub struct Netns {
    file: File,
    path: PathBuf,
}

impl Netns {
    /// Opens the namespace file at `path` (close-on-exec). Nothing checks
    /// yet that it is a network namespace: entering it does.
    pub fn open(path: impl AsRef<Path>) -> Result<Netns, Error> {
        let path = path.as_ref().to_path_buf();
        match File::open(&path) {
            Ok(file) => Ok(Netns { file, path }),
            Err(source) => Err(Error::Open { path, source }),
        }
    }

    /// The path it was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Moves the calling thread into this namespace. Use only on a thread
    /// that is discarded afterwards (see [`run_in`]).
    pub fn enter(&self) -> Result<(), Error> {
        setns(self.file.as_fd()).map_err(|source| Error::Enter {
            path: self.path.clone(),
            source,
        })
    }
}

impl AsFd for Netns {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.file.as_fd()
    }
}

/// `setns(fd, CLONE_NEWNET)`. Async-signal-safe: one system call, and
/// `io::Error::last_os_error` does not allocate.
fn setns(fd: BorrowedFd<'_>) -> io::Result<()> {
    // SAFETY: `fd` is an open descriptor for the whole call (BorrowedFd);
    // setns reads no memory of ours and changes only the calling thread's
    // network namespace.
    if unsafe { libc::setns(fd.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Moves the calling thread into the network namespace at `path`. Use only
/// on a thread that is discarded afterwards (see [`run_in`]).
pub fn enter(path: impl AsRef<Path>) -> Result<(), Error> {
    Netns::open(path)?.enter()
}

/// Runs `f` on a fresh thread inside the namespace at `ns` (None: the
/// caller's namespace) and returns its result; the caller's thread never
/// moves. The namespace file is opened before the thread starts. `f` may
/// borrow from the caller.
pub fn run_in<T, F>(ns: Option<&Path>, f: F) -> Result<T, Error>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    let ns = ns.map(Netns::open).transpose()?;
    std::thread::scope(|s| {
        let h = std::thread::Builder::new()
            .name("lh-netns".into())
            .spawn_scoped(s, || {
                if let Some(ns) = &ns {
                    ns.enter()?;
                }
                Ok(f())
            })
            .map_err(Error::Spawn)?;
        h.join().unwrap_or(Err(Error::Panicked))
    })
}

/// [`run_in`] for a closure that can fail with an I/O error: one
/// `io::Result` for both (a namespace error keeps its kind, see
/// [`Error`]'s conversion).
pub fn try_run_in<T, F>(ns: Option<&Path>, f: F) -> io::Result<T>
where
    T: Send,
    F: FnOnce() -> io::Result<T> + Send,
{
    run_in(ns, f)?
}

/// Makes the child of `cmd` enter `ns` between fork and exec, after the
/// `pre_exec` hooks registered before this call. `cmd` keeps the namespace
/// file open (close-on-exec, so the program does not inherit it) until it
/// is dropped; if entering fails, `spawn` returns that error.
pub fn enter_on_exec(cmd: &mut Command, ns: Netns) {
    let file = ns.file;
    // SAFETY: the hook runs in the forked child before exec, where only
    // async-signal-safe calls are allowed: it makes one setns system call on
    // a descriptor the closure owns (so it is open in the child too) and
    // builds its error from errno without allocating.
    unsafe {
        cmd.pre_exec(move || setns(file.as_fd()));
    }
}

/// [`enter_on_exec`], and then, still between fork and exec, the child
/// leaves the parent's mount namespace (`unshare(CLONE_NEWNS)`), stops
/// mount events from propagating back (`/` recursively a slave), and
/// replaces `/sys` with a fresh read-only sysfs. A sysfs instance shows the
/// network devices of the namespace of the process that mounted it, so
/// without this a program in `ns` reads the *root* namespace's
/// `/sys/class/net` (simple_switch's port monitor reads
/// `/sys/class/net/<if>/operstate` every second and logs `open: No such
/// file or directory` for every port it cannot find there). The parent's
/// mounts are never touched.
pub fn enter_on_exec_with_sysfs(cmd: &mut Command, ns: Netns) {
    enter_on_exec(cmd, ns);
    // SAFETY: the hook runs in the forked child before exec (after the
    // setns hook above): only raw system calls on static C strings, and an
    // error built from errno without allocating.
    unsafe {
        cmd.pre_exec(|| private_sysfs(libc::MS_RDONLY));
    }
}

/// [`enter_on_exec_with_sysfs`] with a writable sysfs, for a program that
/// sets a device's attributes (a veth's `rps_cpus`).
pub fn enter_on_exec_with_writable_sysfs(cmd: &mut Command, ns: Netns) {
    enter_on_exec(cmd, ns);
    // SAFETY: as in enter_on_exec_with_sysfs.
    unsafe {
        cmd.pre_exec(|| private_sysfs(0));
    }
}

/// In the calling (child) process: a private mount namespace with a sysfs
/// of the current network namespace on `/sys`, mounted with `ro` (0 or
/// MS_RDONLY). Async-signal-safe.
fn private_sysfs(ro: libc::c_ulong) -> io::Result<()> {
    let none = std::ptr::null::<libc::c_char>();
    // SAFETY: unshare takes flags only and changes only this process.
    if unsafe { libc::unshare(libc::CLONE_NEWNS) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: static NUL-terminated strings, null source/type/data as
    // mount(2) allows for a propagation change; affects only the mount
    // namespace this process just made.
    if unsafe {
        libc::mount(
            none,
            c"/".as_ptr(),
            none,
            libc::MS_SLAVE | libc::MS_REC,
            std::ptr::null(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a static path; MNT_DETACH in this process's own mount
    // namespace. EINVAL (nothing mounted on /sys) is fine.
    if unsafe { libc::umount2(c"/sys".as_ptr(), libc::MNT_DETACH) } != 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINVAL) {
            return Err(e);
        }
    }
    // SAFETY: static NUL-terminated strings and null data; a new sysfs
    // mount in this process's own mount namespace.
    if unsafe {
        libc::mount(
            c"sysfs".as_ptr(),
            c"/sys".as_ptr(),
            c"sysfs".as_ptr(),
            ro | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

pub mod host;

#[cfg(test)]
mod tests;
