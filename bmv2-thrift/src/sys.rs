//! The crate's only `unsafe`: the parent-death signal and nice value of
//! simple_switch (in the forked child before exec), and bringing `lo` up.
//! Entering a network namespace is lh_netns's (`try_run_in` on a thread of
//! its own, `enter_on_exec` in the child); callers never move their own
//! thread.

use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// Sets `lo` up in the calling thread's namespace (a fresh namespace has it
/// down, and simple_switch's Thrift server is reached over 127.0.0.1).
pub(crate) fn loopback_up() -> io::Result<()> {
    // SAFETY: a plain datagram socket; the fd is owned by `sock` below.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by socket() and is owned by nobody else.
    let sock = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    // SAFETY: ifreq is plain old data; all-zero is a valid value.
    let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in ifr.ifr_name.iter_mut().zip(b"lo\0") {
        *d = *s as libc::c_char;
    }
    // SAFETY: SIOCGIFFLAGS reads into the ifreq we own; fd is valid.
    if unsafe { libc::ioctl(sock.as_raw_fd(), libc::SIOCGIFFLAGS, &mut ifr) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: after SIOCGIFFLAGS the union holds ifru_flags.
    let flags = unsafe { ifr.ifr_ifru.ifru_flags };
    if flags & libc::IFF_UP as libc::c_short != 0 {
        return Ok(());
    }
    ifr.ifr_ifru.ifru_flags = flags | libc::IFF_UP as libc::c_short;
    // SAFETY: SIOCSIFFLAGS reads the ifreq we own; fd is valid.
    if unsafe { libc::ioctl(sock.as_raw_fd(), libc::SIOCSIFFLAGS, &ifr) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Arranges for the child of `cmd` to run at nice value `nice` (if any; its
/// threads inherit it) and to get SIGKILL when the thread that spawned it
/// exits.
pub fn child_setup(cmd: &mut Command, nice: Option<i32>) {
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    let hook = move || -> io::Result<()> {
        // Only async-signal-safe calls here (raw syscalls, no allocation).
        // SAFETY: prctl(PR_SET_PDEATHSIG) takes a signal number and changes
        // only this (child) process.
        if unsafe {
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            )
        } < 0
        {
            return Err(io::Error::last_os_error());
        }
        // The parent may have died before prctl: then nobody would kill us.
        // SAFETY: getppid has no preconditions.
        if unsafe { libc::getppid() } != parent {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        if let Some(n) = nice {
            // SAFETY: setpriority on this (child) process only; a plain
            // system call.
            if unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, n) } < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    };
    // SAFETY: the hook only makes async-signal-safe system calls and touches
    // no locks or heap memory (io::Error::last_os_error/from_raw_os_error
    // do not allocate).
    unsafe {
        cmd.pre_exec(hook);
    }
}

/// Sends `sig` to `pid`.
pub(crate) fn kill(pid: u32, sig: libc::c_int) -> io::Result<()> {
    // SAFETY: kill has no memory-safety preconditions.
    if unsafe { libc::kill(pid as libc::pid_t, sig) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
