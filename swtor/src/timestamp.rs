//! Kernel receive timestamps on ordinary sockets (SO_TIMESTAMPNS), so a
//! receiver can tell when a datagram reached its host independently of when
//! its thread got to run. Used by tests and benchmarks to check the data
//! plane's timing from outside.

use std::io;
use std::mem::{size_of, zeroed};
use std::os::fd::AsRawFd;

/// Asks the kernel to stamp every received datagram (CLOCK_REALTIME ns).
pub fn enable(sock: &impl AsRawFd) -> io::Result<()> {
    let one: libc::c_int = 1;
    // SAFETY: pointer to a live c_int with its exact size.
    let r = unsafe {
        libc::setsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPNS,
            (&one as *const libc::c_int).cast(),
            size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Receives one datagram (honouring the socket's read timeout and blocking
/// mode): its length and the kernel's CLOCK_REALTIME receive stamp in ns.
pub fn recv(sock: &impl AsRawFd, buf: &mut [u8]) -> io::Result<(usize, Option<u64>)> {
    #[repr(C, align(8))]
    struct Ctl([u8; 128]);
    let mut ctl = Ctl([0; 128]);
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: msghdr is plain old data; the pointers set below stay valid
    // for the call (iov -> buf, control -> ctl, both live on this frame).
    let mut h: libc::msghdr = unsafe { zeroed() };
    h.msg_iov = &mut iov;
    h.msg_iovlen = 1;
    h.msg_control = ctl.0.as_mut_ptr().cast();
    h.msg_controllen = ctl.0.len();
    // SAFETY: `h` describes valid writable buffers, see above.
    let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut h, 0) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut ts = None;
    // SAFETY: walks the control buffer the kernel filled, within
    // msg_controllen; the payload is read unaligned into a POD timespec.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&h);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let t: libc::timespec = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                ts = Some(t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64);
            }
            c = libc::CMSG_NXTHDR(&h, c);
        }
    }
    Ok((n as usize, ts))
}

/// CLOCK_REALTIME minus CLOCK_MONOTONIC in ns (the smallest of a few
/// back-to-back readings, so a preemption does not skew it).
pub fn realtime_minus_monotonic() -> i64 {
    let mut best: Option<(u64, i64)> = None;
    for _ in 0..5 {
        let a = crate::clock::monotonic_ns();
        let w = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(0);
        let b = crate::clock::monotonic_ns();
        let off = w - (a / 2 + b / 2) as i64;
        if best.is_none_or(|(d, _)| b - a < d) {
            best = Some((b - a, off));
        }
    }
    best.map_or(0, |(_, o)| o)
}
