//! Named network namespaces made the way `ip netns add` makes them: an empty
//! file under /run/netns, a fresh thread that `unshare(CLONE_NEWNET)`s, and a
//! bind mount of that thread's namespace onto the file. We never fork
//! (rtnetlink's `NetworkNamespace::add` forks in a multithreaded process).
//! Entering a namespace is lh_netns's, which only ever does it on
//! short-lived threads of its own or in a child before exec, never on the
//! caller or a tokio worker: a thread that entered a namespace stays there.
//!
//! All other `unsafe` for namespaces lives here.

use std::ffi::CString;
use std::fs;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
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
    #[error("{0}: {1}, left alone")]
    NotOurs(String, &'static str),
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

/// What a path under /run/netns is, looked at without following links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NsFile {
    Missing,
    /// A symbolic link: never ours (we make plain files), never touched.
    Symlink,
    /// A mounted namespace (nsfs): its (device, inode) identity.
    Mounted((u64, u64)),
    /// A plain file with no namespace mounted on it (a half-made one).
    Plain,
    /// Anything else (a directory, a device...): not touched.
    Other,
}

const NSFS_MAGIC: libc::c_long = 0x6e73_6673;

/// Classify `path` through an `O_PATH|O_NOFOLLOW` descriptor, so a symlink
/// planted in its place is seen as one and nothing it points at is looked at.
pub fn inspect(path: &Path) -> io::Result<NsFile> {
    let c = cstr(path);
    // SAFETY: valid NUL-terminated path; the fd is owned below.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        let e = last_err();
        return if e.kind() == io::ErrorKind::NotFound {
            Ok(NsFile::Missing)
        } else {
            Err(e)
        };
    }
    // SAFETY: fd is a fresh descriptor we own.
    let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
    // SAFETY: stat/statfs are plain data filled by the kernel.
    let (st, sfs) = unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        let mut sfs: libc::statfs = std::mem::zeroed();
        if libc::fstat(fd.as_raw_fd(), &mut st) != 0 {
            return Err(last_err());
        }
        if libc::fstatfs(fd.as_raw_fd(), &mut sfs) != 0 {
            return Err(last_err());
        }
        (st, sfs)
    };
    let kind = st.st_mode & libc::S_IFMT;
    Ok(if kind == libc::S_IFLNK {
        NsFile::Symlink
    } else if sfs.f_type as libc::c_long == NSFS_MAGIC {
        NsFile::Mounted((st.st_dev, st.st_ino))
    } else if kind == libc::S_IFREG {
        NsFile::Plain
    } else {
        NsFile::Other
    })
}

/// Unmount and remove a namespace file. The namespace itself dies when the
/// last process and socket in it are gone. Only a real nsfs mount is
/// unmounted and only a plain file removed: a symlink (which could point at
/// someone else's namespace) or anything else is refused and left alone.
pub fn delete_path(path: &Path) -> Result<(), NsError> {
    match inspect(path).map_err(io_err("inspect", path))? {
        NsFile::Missing => return Ok(()),
        NsFile::Mounted(_) | NsFile::Plain => {}
        NsFile::Symlink => {
            return Err(NsError::NotOurs(
                path.display().to_string(),
                "a symbolic link",
            ));
        }
        NsFile::Other => {
            return Err(NsError::NotOurs(
                path.display().to_string(),
                "not a namespace file",
            ));
        }
    }
    let c = cstr(path);
    // SAFETY: valid NUL-terminated path.
    let r = unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH | libc::UMOUNT_NOFOLLOW) };
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

/// Identity of a namespace: (device, inode) of its nsfs file. Follows
/// links (it is used on /proc/PID/ns/net); for /run/netns entries use
/// [`inspect`], which does not.
pub fn ns_id(path: &Path) -> io::Result<(u64, u64)> {
    let m = fs::metadata(path)?;
    Ok((m.dev(), m.ino()))
}

/// Run `f` on a fresh thread inside the namespace at `ns` (the caller's own
/// namespace when `None`). Sockets `f` opens stay in that namespace after it
/// returns, so this is how to get a netlink, raw or TCP socket "over there".
pub fn run_in<T: Send, F: FnOnce() -> T + Send>(ns: Option<&Path>, f: F) -> Result<T, NsError> {
    lh_netns::run_in(ns, f).map_err(|e| match e {
        lh_netns::Error::Open { path, source } => io_err("open", &path)(source),
        lh_netns::Error::Enter { path, source } => io_err("enter", &path)(source),
        lh_netns::Error::Spawn(source) => {
            io_err("spawn a thread for", ns.unwrap_or(Path::new("?")))(source)
        }
        lh_netns::Error::Panicked => NsError::Panicked,
    })
}

/// Spawn `cmd` with its network namespace switched to `ns` between fork and
/// exec (no shell-out to `ip netns exec`), in a process group of its own:
/// Ctrl-C on the terminal reaches only lighthouse, which decides what to
/// interrupt (a ping killed by it would count as lost).
pub fn spawn_in(ns: &Path, cmd: &mut Command) -> io::Result<Child> {
    use std::os::unix::process::CommandExt as _;
    cmd.process_group(0);
    spawn_setns(ns, cmd)
}

/// [`spawn_in`], but in a session of its own (no controlling terminal, so
/// reading the CLI's terminal never stops it with SIGTTIN): a node's shell.
pub fn spawn_in_session(ns: &Path, cmd: &mut Command) -> io::Result<Child> {
    // SAFETY: the closure runs in the forked child before exec and only
    // makes the async-signal-safe setsid syscall.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    spawn_setns(ns, cmd)
}

/// Spawns `cmd` entering `ns` in the child after the hooks already set.
/// `cmd` keeps the namespace file open (close-on-exec) until it is dropped.
fn spawn_setns(ns: &Path, cmd: &mut Command) -> io::Result<Child> {
    lh_netns::enter_on_exec(cmd, lh_netns::Netns::open(ns)?);
    cmd.spawn()
}
