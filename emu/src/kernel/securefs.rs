//! Opening files that root writes (state, pcaps, compile output) without
//! being tricked into writing somewhere else.
//!
//! * The last path component is opened with `openat(O_NOFOLLOW)` relative to
//!   a directory fd, so a planted symlink fails with ELOOP instead of being
//!   followed; a FIFO or device is refused instead of blocking or written to.
//! * A directory that other users can write is refused, unless it is sticky
//!   (like /tmp) and the file is new (`O_EXCL`): in a sticky directory nobody
//!   else can rename or replace a file root just created.
//! * Modes are explicit (`fchmod` after open, so the umask does not matter).
//!
//! All `unsafe` for this lives here.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Mode of state directories (`/run/lighthouse/<prefix>`).
pub const DIR_MODE: u32 = 0o700;
/// Mode of files root writes unless asked otherwise.
pub const FILE_MODE: u32 = 0o600;
/// Mode of a pcap the user asked to be readable by everyone.
pub const READABLE_MODE: u32 = 0o644;

#[derive(Debug, thiserror::Error)]
pub enum SecureFsError {
    #[error("{path}: refusing to follow a symbolic link")]
    Symlink { path: PathBuf },
    #[error("{path}: not a regular file")]
    NotRegular { path: PathBuf },
    #[error(
        "{path}: refusing to write into {dir}: other users can write there (use a directory only root can write, or a new file in a sticky directory such as /tmp)"
    )]
    UnsafeDir { path: PathBuf, dir: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> SecureFsError + '_ {
    move |source| SecureFsError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn cstring(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains NUL"))
}

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

/// Can a user other than us write into a directory with this metadata?
pub fn writable_by_others(m: &std::fs::Metadata) -> bool {
    let mode = m.mode();
    mode & 0o022 != 0 || (m.uid() != euid() && mode & 0o200 != 0)
}

fn is_sticky(m: &std::fs::Metadata) -> bool {
    m.mode() & 0o1000 != 0
}

/// Split `path` into its directory and last component.
fn split(path: &Path) -> Result<(PathBuf, CString), SecureFsError> {
    let name = path.file_name().ok_or_else(|| SecureFsError::Io {
        path: path.to_path_buf(),
        source: io::Error::new(io::ErrorKind::InvalidInput, "not a file name"),
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = CString::new(name.as_bytes()).map_err(|e| SecureFsError::Io {
        path: path.to_path_buf(),
        source: io::Error::new(io::ErrorKind::InvalidInput, e),
    })?;
    Ok((dir, name))
}

fn open_dir(dir: &Path) -> io::Result<OwnedFd> {
    let c = cstring(dir)?;
    // SAFETY: valid NUL-terminated path; the fd returned is owned below.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh descriptor we own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Create (or truncate) `path` for writing with `mode`, never following a
/// symlink in its last component, and refusing directories other users can
/// write (except a new file in a sticky directory).
pub fn create_file(path: &Path, mode: u32) -> Result<File, SecureFsError> {
    let (dir, name) = split(path)?;
    let dfd = open_dir(&dir).map_err(io_at(&dir))?;
    let dm = File::from(dfd.try_clone().map_err(io_at(&dir))?)
        .metadata()
        .map_err(io_at(&dir))?;
    let shared = writable_by_others(&dm);
    if shared && !is_sticky(&dm) {
        return Err(SecureFsError::UnsafeDir {
            path: path.to_path_buf(),
            dir,
        });
    }
    // O_NONBLOCK: opening a planted FIFO must not hang (cleared below).
    let mut flags = libc::O_WRONLY
        | libc::O_CREAT
        | libc::O_NOFOLLOW
        | libc::O_CLOEXEC
        | libc::O_NOCTTY
        | libc::O_NONBLOCK;
    flags |= if shared { libc::O_EXCL } else { 0 };
    // SAFETY: dfd is an open directory, name is NUL-terminated; the mode is
    // passed as the variadic argument O_CREAT expects.
    let fd = unsafe { libc::openat(dfd.as_raw_fd(), name.as_ptr(), flags, mode as libc::c_uint) };
    if fd < 0 {
        let e = io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::ELOOP) => SecureFsError::Symlink {
                path: path.to_path_buf(),
            },
            Some(libc::EEXIST) if shared => {
                if is_symlink_at(&dfd, &name) {
                    SecureFsError::Symlink {
                        path: path.to_path_buf(),
                    }
                } else {
                    SecureFsError::UnsafeDir {
                        path: path.to_path_buf(),
                        dir,
                    }
                }
            }
            Some(libc::ENXIO) => SecureFsError::NotRegular {
                path: path.to_path_buf(),
            },
            _ => SecureFsError::Io {
                path: path.to_path_buf(),
                source: e,
            },
        });
    }
    // SAFETY: fd is a fresh descriptor we own.
    let f = unsafe { File::from_raw_fd(fd) };
    let m = f.metadata().map_err(io_at(path))?;
    if !m.file_type().is_file() {
        return Err(SecureFsError::NotRegular {
            path: path.to_path_buf(),
        });
    }
    // SAFETY: fcntl on our own fd; clears O_NONBLOCK again.
    unsafe {
        let fl = libc::fcntl(f.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(f.as_raw_fd(), libc::F_SETFL, fl & !libc::O_NONBLOCK);
    }
    f.set_len(0).map_err(io_at(path))?;
    f.set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(io_at(path))?;
    Ok(f)
}

fn is_symlink_at(dfd: &OwnedFd, name: &CString) -> bool {
    // SAFETY: stat is plain data; dfd and name are valid.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        libc::fstatat(
            dfd.as_raw_fd(),
            name.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        ) == 0
            && st.st_mode & libc::S_IFMT == libc::S_IFLNK
    }
}

/// Make a directory (one level, parent must exist) with exactly `mode`; an
/// existing directory is accepted only if it is a real directory (not a
/// symlink) owned by us, and its mode is then set to `mode`.
pub fn ensure_dir(path: &Path, mode: u32) -> Result<(), SecureFsError> {
    match std::fs::DirBuilder::new().mode(mode).create(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io_at(path)(e)),
    }
    check_own_dir(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(io_at(path))
}

/// `path` is a directory (not a symlink) owned by us.
pub fn check_own_dir(path: &Path) -> Result<(), SecureFsError> {
    let m = std::fs::symlink_metadata(path).map_err(io_at(path))?;
    if m.file_type().is_symlink() {
        return Err(SecureFsError::Symlink {
            path: path.to_path_buf(),
        });
    }
    if !m.is_dir() || m.uid() != euid() {
        return Err(SecureFsError::Io {
            path: path.to_path_buf(),
            source: io::Error::new(
                io::ErrorKind::PermissionDenied,
                "not a directory owned by this user",
            ),
        });
    }
    Ok(())
}

/// A path through which another component can reopen `f` (the very inode
/// opened, whatever happens to its name): `/proc/self/fd/N`. Used to hand a
/// securely opened file to an API that takes a path.
pub fn fd_path(f: &File) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}", f.as_raw_fd()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn symlink_is_refused_and_target_untouched() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("target");
        std::fs::write(&target, "keep").unwrap();
        let link = d.path().join("link");
        symlink(&target, &link).unwrap();
        let e = create_file(&link, FILE_MODE).unwrap_err();
        assert!(matches!(e, SecureFsError::Symlink { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    }

    #[test]
    fn modes_are_explicit_and_fifo_refused() {
        let d = tempfile::tempdir().unwrap();
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let p = d.path().join("f");
        // SAFETY: umask only changes this process's creation mask.
        let old = unsafe { libc::umask(0) };
        let f = create_file(&p, FILE_MODE);
        // SAFETY: as above.
        unsafe { libc::umask(old) };
        drop(f.unwrap());
        assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o7777, 0o600);
        let fifo = d.path().join("fifo");
        let c = cstring(&fifo).unwrap();
        // SAFETY: valid path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(create_file(&fifo, FILE_MODE).is_err());
    }

    #[test]
    fn world_writable_dirs_need_sticky_and_new_files() {
        let d = tempfile::tempdir().unwrap();
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = create_file(&d.path().join("x"), FILE_MODE).unwrap_err();
        assert!(matches!(e, SecureFsError::UnsafeDir { .. }), "{e}");
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        create_file(&d.path().join("x"), FILE_MODE).unwrap();
        let e = create_file(&d.path().join("x"), FILE_MODE).unwrap_err();
        assert!(matches!(e, SecureFsError::UnsafeDir { .. }), "{e}");
    }
}
