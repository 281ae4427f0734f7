//! Named network namespaces made the way `ip netns add` makes them: an empty
//! file under /run/netns, a fresh thread that `unshare(CLONE_NEWNET)`s, and a
//! bind mount of that thread's namespace onto the file. We never fork
//! (rtnetlink's `NetworkNamespace::add` forks in a multithreaded process), and
//! `setns` only ever runs on short-lived threads we own, never on the caller
//! or a tokio worker: a thread that entered a namespace stays there.
//!
//! All `unsafe` for namespaces lives here.

use std::ffi::CString;
use std::fs::{self, File};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

pub const NETNS_DIR: &str = "/run/netns";

#[derive(Debug, thiserror::Error)]
pub enum NsError {
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: String,
        source: io::Error,
    },
    #[error("network namespace {0} already exists")]
    Exists(String),
    #[error("a namespace worker thread panicked")]
    Panicked,
}

fn io_err(what: &'static str, path: &Path) -> impl FnOnce(io::Error) -> NsError {
    let path = path.display().to_string();
    move |source| NsError::Io { what, path, source }
}

pub fn ns_path(name: &str) -> PathBuf {
    Path::new(NETNS_DIR).join(name)
}

fn cstr(p: &Path) -> CString {
    CString::new(p.as_os_str().as_bytes()).expect("path without NUL")
}

fn last_err() -> io::Error {
    io::Error::last_os_error()
}

/// Make /run/netns exist and be a shared mount point, as iproute2 does, so a
/// namespace mounted here is visible in other mount namespaces too.
fn ensure_netns_dir() -> Result<(), NsError> {
    let dir = Path::new(NETNS_DIR);
    fs::create_dir_all(dir).map_err(io_err("create", dir))?;
    let c = cstr(dir);
    let none = c"none";
    let mut bound = false;
    loop {
        // SAFETY: valid NUL-terminated strings; a null data pointer is allowed.
        let r = unsafe {
            libc::mount(
                c"".as_ptr(),
                c.as_ptr(),
                none.as_ptr(),
                libc::MS_SHARED | libc::MS_REC,
                std::ptr::null(),
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = last_err();
        if e.raw_os_error() != Some(libc::EINVAL) || bound {
            return Err(io_err("make shared", dir)(e));
        }
        // Not a mount point yet: bind it onto itself, then retry.
        // SAFETY: as above.
        let r = unsafe {
            libc::mount(
                c.as_ptr(),
                c.as_ptr(),
                none.as_ptr(),
                libc::MS_BIND | libc::MS_REC,
                std::ptr::null(),
            )
        };
        if r != 0 {
            return Err(io_err("bind mount", dir)(last_err()));
        }
        bound = true;
    }
}

/// Create the named namespace `/run/netns/<name>`. Fails if it exists.
pub fn create(name: &str) -> Result<PathBuf, NsError> {
    ensure_netns_dir()?;
    let path = ns_path(name);
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            return Err(NsError::Exists(name.to_string()));
        }
        Err(e) => return Err(io_err("create", &path)(e)),
    }
    let target = cstr(&path);
    let res = std::thread::scope(|s| {
        s.spawn(|| {
            // SAFETY: unshare only affects this short-lived thread.
            if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
                return Err(io_err("unshare for", &path)(last_err()));
            }
            // SAFETY: valid NUL-terminated strings, null data.
            let r = unsafe {
                libc::mount(
                    c"/proc/thread-self/ns/net".as_ptr(),
                    target.as_ptr(),
                    c"none".as_ptr(),
                    libc::MS_BIND,
                    std::ptr::null(),
                )
            };
            if r != 0 {
                return Err(io_err("bind mount", &path)(last_err()));
            }
            Ok(())
        })
        .join()
        .unwrap_or(Err(NsError::Panicked))
    });
    if res.is_err() {
        let _ = fs::remove_file(&path);
    }
    res.map(|()| path)
}

/// Unmount and remove a namespace file. The namespace itself dies when the
/// last process and socket in it are gone.
pub fn delete_path(path: &Path) -> Result<(), NsError> {
    let c = cstr(path);
    // SAFETY: valid NUL-terminated path.
    let r = unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
    if r != 0 {
        let e = last_err();
        // EINVAL: not a mount point (half-made); ENOENT: already gone.
        if !matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOENT)) {
            return Err(io_err("unmount", path)(e));
        }
    }
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err("remove", path)(e)),
    }
}

pub fn delete(name: &str) -> Result<(), NsError> {
    delete_path(&ns_path(name))
}

/// Names under /run/netns.
pub fn list() -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(NETNS_DIR)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    v.sort();
    v
}

/// Identity of a namespace: (device, inode) of its nsfs file.
pub fn ns_id(path: &Path) -> io::Result<(u64, u64)> {
    let m = fs::metadata(path)?;
    Ok((m.dev(), m.ino()))
}

/// Run `f` on a fresh thread inside the namespace at `ns` (the caller's own
/// namespace when `None`). Sockets `f` opens stay in that namespace after it
/// returns, so this is how to get a netlink, raw or TCP socket "over there".
pub fn run_in<T: Send, F: FnOnce() -> T + Send>(ns: Option<&Path>, f: F) -> Result<T, NsError> {
    let file = match ns {
        Some(p) => Some(File::open(p).map_err(io_err("open", p))?),
        None => None,
    };
    std::thread::scope(|s| {
        s.spawn(|| {
            if let Some(file) = &file {
                // SAFETY: setns on a valid nsfs fd changes only this thread,
                // which ends when `f` returns.
                if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                    return Err(io_err("enter", ns.unwrap_or(Path::new("?")))(last_err()));
                }
            }
            Ok(f())
        })
        .join()
        .unwrap_or(Err(NsError::Panicked))
    })
}

/// Spawn `cmd` with its network namespace switched to `ns` between fork and
/// exec (no shell-out to `ip netns exec`).
pub fn spawn_in(ns: &Path, cmd: &mut Command) -> io::Result<Child> {
    let file = File::open(ns)?;
    let fd = file.as_raw_fd();
    // SAFETY: the closure runs in the forked child before exec and only makes
    // the async-signal-safe setns syscall on an fd that stays open until
    // spawn returns (it is O_CLOEXEC, so the program does not inherit it).
    unsafe {
        cmd.pre_exec(move || {
            if libc::setns(fd, libc::CLONE_NEWNET) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd.spawn();
    drop(file);
    child
}
