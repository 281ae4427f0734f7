//! What a Mininet host may have beyond its network namespace, made between
//! fork and exec: a cgroup (`CPULimitedHost`) and a mount namespace with
//! private directories (`Host(privateDirs=...)`). The logic (which cgroup,
//! which mounts, when) lives in `lh_emu::host::confine`; this module only
//! holds the system calls, so the crate stays the one place with `setns`.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// A mount made in a host's new mount namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrivateMount {
    /// A fresh tmpfs on `target` (Mininet's plain `'/var/mn'`).
    Tmpfs { target: CString },
    /// `source` bound on `target` (Mininet's `('/var/log',
    /// '/tmp/%(name)s/var/log')`).
    Bind { source: CString, target: CString },
}

/// Makes the child of `cmd` join the cgroup whose `cgroup.procs` is open
/// as `procs` (writing `0` moves the writer, in cgroup v1 and v2), before
/// the hooks registered later. Its children inherit the cgroup.
pub fn join_cgroup_on_exec(cmd: &mut Command, procs: File) {
    // SAFETY: the hook runs in the forked child before exec: one write(2)
    // of a static byte on a descriptor the closure owns; the error is
    // built from errno without allocating.
    unsafe {
        cmd.pre_exec(move || {
            if libc::write(procs.as_raw_fd(), c"0".as_ptr().cast(), 1) != 1 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Makes the child of `cmd` leave the parent's mount namespace for a new
/// one (`/` recursively a slave, so nothing it mounts reaches the machine)
/// and make `mounts` there, in order. The targets (and bind sources) must
/// exist. The namespace lives as long as a process in it.
pub fn private_mounts_on_exec(cmd: &mut Command, mounts: Vec<PrivateMount>) {
    // SAFETY: the hook runs in the forked child before exec: unshare(2)
    // and mount(2) on C strings the closure owns (allocated before the
    // fork), static strings and null pointers where mount(2) allows them;
    // errors from errno without allocating. It changes only the child's
    // own new mount namespace.
    unsafe {
        cmd.pre_exec(move || {
            let none = std::ptr::null::<libc::c_char>();
            if libc::unshare(libc::CLONE_NEWNS) != 0 {
                return Err(io::Error::last_os_error());
            }
            let rec_slave = libc::MS_SLAVE | libc::MS_REC;
            if libc::mount(none, c"/".as_ptr(), none, rec_slave, std::ptr::null()) != 0 {
                return Err(io::Error::last_os_error());
            }
            for m in &mounts {
                let r = match m {
                    PrivateMount::Tmpfs { target } => libc::mount(
                        c"tmpfs".as_ptr(),
                        target.as_ptr(),
                        c"tmpfs".as_ptr(),
                        libc::MS_NOSUID | libc::MS_NODEV,
                        std::ptr::null(),
                    ),
                    PrivateMount::Bind { source, target } => libc::mount(
                        source.as_ptr(),
                        target.as_ptr(),
                        none,
                        libc::MS_BIND,
                        std::ptr::null(),
                    ),
                };
                if r != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}

/// Makes the child of `cmd` enter the mount namespace open as `mnt` (a
/// host's, `/proc/PID/ns/mnt` of a process in it) and then change to
/// `cwd`: entering a mount namespace moves a process to its root, and a
/// host's command should start where the caller is, as Mininet's do.
pub fn enter_mount_ns_on_exec(cmd: &mut Command, mnt: File, cwd: CString) {
    // SAFETY: the hook runs in the forked (single-threaded) child before
    // exec: setns(2) on a descriptor the closure owns and chdir(2) on a C
    // string it owns; errors from errno without allocating. A cwd missing
    // in the namespace leaves the child at its root, as a shell would.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setns(mnt.as_raw_fd(), libc::CLONE_NEWNS) != 0 {
                return Err(io::Error::last_os_error());
            }
            libc::chdir(cwd.as_ptr());
            Ok(())
        });
    }
}
