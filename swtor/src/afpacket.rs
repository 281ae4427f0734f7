//! Raw AF_PACKET sockets with batched `recvmmsg`/`sendmmsg` (REFERENCE:
//! ~400 kpps on this machine class, against ~250 kpps for one syscall per
//! frame). All unsafe socket code of the crate lives here.
//!
//! One socket that is not bound to an interface sees every interface of the
//! namespace it was opened in; each received frame carries its `sll_ifindex`,
//! and each sent frame names its interface in a per-frame `sockaddr_ll`.

mod ring;
pub use ring::RingSocket;

use crate::pool::{FramePool, MAX_FRAME};
use std::ffi::CString;
use std::io;
use std::mem::{size_of, zeroed};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

// A port's vocabulary (crate::port), here too where it always was.
pub use crate::port::{BATCH, RxFrame};

/// Options for [`RawSocket::open`].
#[derive(Clone, Copy, Debug)]
pub struct SocketOptions {
    /// Bind to this interface (capture); `None`: every interface.
    pub ifindex: Option<i32>,
    /// Do not receive frames this host sends (our own transmissions).
    pub ignore_outgoing: bool,
    /// Skip the qdisc layer on transmit.
    pub qdisc_bypass: bool,
    /// SO_RCVBUF / SO_SNDBUF in bytes (forced as root).
    pub buffer: usize,
}

impl Default for SocketOptions {
    fn default() -> Self {
        SocketOptions {
            ifindex: None,
            ignore_outgoing: true,
            qdisc_bypass: true,
            buffer: 8 << 20,
        }
    }
}

#[repr(C, align(8))]
#[derive(Clone, Copy)]
struct CmsgBuf([u8; 64]);

pub struct RawSocket {
    fd: OwnedFd,
    msgs: Vec<libc::mmsghdr>,
    iovs: Vec<libc::iovec>,
    addrs: Vec<libc::sockaddr_ll>,
    cmsgs: Vec<CmsgBuf>,
    held: Vec<u32>,
}

// SAFETY: the raw pointers inside `msgs`/`iovs` only ever point into this
// struct's own heap buffers or into the caller's pool during one call; they
// are rewritten before every syscall, so moving the socket to another thread
// cannot leave a dangling pointer that is later dereferenced.
unsafe impl Send for RawSocket {}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn setsockopt_int(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    v: libc::c_int,
) -> io::Result<()> {
    // SAFETY: passes a pointer to a live c_int and its exact size.
    cvt(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&v as *const libc::c_int).cast(),
            size_of::<libc::c_int>() as libc::socklen_t,
        )
    })
    .map(|_| ())
}

/// Interface index of `name` in the calling thread's network namespace.
pub fn if_nametoindex(name: &str) -> io::Result<i32> {
    let c = CString::new(name).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: `c` is a valid NUL-terminated string for the whole call.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "no interface named {name:?}: {}",
                io::Error::last_os_error()
            ),
        ))
    } else {
        Ok(i as i32)
    }
}

impl RawSocket {
    /// Opens a non-blocking `AF_PACKET`/`SOCK_RAW` socket for every
    /// EtherType in the calling thread's network namespace.
    pub fn open(o: SocketOptions) -> io::Result<RawSocket> {
        let proto = (libc::ETH_P_ALL as u16).to_be() as libc::c_int;
        // SAFETY: plain socket(2) call; the result is checked before use.
        let raw = cvt(unsafe {
            libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                proto,
            )
        })?;
        // SAFETY: `raw` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let f = fd.as_raw_fd();
        if o.ignore_outgoing {
            setsockopt_int(f, libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, 1)?;
        }
        if o.qdisc_bypass {
            setsockopt_int(f, libc::SOL_PACKET, libc::PACKET_QDISC_BYPASS, 1)?;
        }
        setsockopt_int(f, libc::SOL_PACKET, libc::PACKET_AUXDATA, 1)?;
        let b = o.buffer.min(i32::MAX as usize) as libc::c_int;
        // Root may exceed net.core.[rw]mem_max; fall back silently otherwise.
        if setsockopt_int(f, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, b).is_err() {
            setsockopt_int(f, libc::SOL_SOCKET, libc::SO_RCVBUF, b)?;
        }
        if setsockopt_int(f, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, b).is_err() {
            setsockopt_int(f, libc::SOL_SOCKET, libc::SO_SNDBUF, b)?;
        }
        if let Some(ifindex) = o.ifindex {
            // SAFETY: sockaddr_ll is plain old data; all-zero is valid.
            let mut sa: libc::sockaddr_ll = unsafe { zeroed() };
            sa.sll_family = libc::AF_PACKET as u16;
            sa.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
            sa.sll_ifindex = ifindex;
            // SAFETY: `sa` is a valid sockaddr_ll and its size is passed.
            cvt(unsafe {
                libc::bind(
                    f,
                    (&sa as *const libc::sockaddr_ll).cast(),
                    size_of::<libc::sockaddr_ll>() as libc::socklen_t,
                )
            })?;
        }
        // SAFETY: these are plain C structs; zero is a valid initial value and
        // every pointer field is set before each syscall.
        let (msgs, iovs, addrs) = unsafe {
            (
                vec![zeroed::<libc::mmsghdr>(); BATCH],
                vec![zeroed::<libc::iovec>(); BATCH],
                vec![zeroed::<libc::sockaddr_ll>(); BATCH],
            )
        };
        Ok(RawSocket {
            fd,
            msgs,
            iovs,
            addrs,
            cmsgs: vec![CmsgBuf([0; 64]); BATCH],
            held: Vec::with_capacity(BATCH),
        })
    }

    /// Makes interface `ifindex` pass this socket frames for every MAC (a
    /// NIC's promiscuous mode, `PACKET_MR_PROMISC`): the kernel undoes it
    /// when the socket closes, so nothing is left set on the interface.
    pub fn add_promiscuous(&self, ifindex: i32) -> io::Result<()> {
        let mr = libc::packet_mreq {
            mr_ifindex: ifindex,
            mr_type: libc::PACKET_MR_PROMISC as libc::c_ushort,
            mr_alen: 0,
            mr_address: [0; 8],
        };
        // SAFETY: passes a pointer to a live packet_mreq and its exact size.
        cvt(unsafe {
            libc::setsockopt(
                self.fd(),
                libc::SOL_PACKET,
                libc::PACKET_ADD_MEMBERSHIP,
                (&mr as *const libc::packet_mreq).cast(),
                size_of::<libc::packet_mreq>() as libc::socklen_t,
            )
        })
        .map(|_| ())
    }

    /// Frames the kernel dropped because this socket's receive buffer was
    /// full, since the previous call (PACKET_STATISTICS resets on read).
    pub fn take_drops(&self) -> io::Result<u64> {
        // SAFETY: tpacket_stats is plain old data.
        let mut st: libc::tpacket_stats = unsafe { zeroed() };
        let mut len = size_of::<libc::tpacket_stats>() as libc::socklen_t;
        // SAFETY: `st` is writable for `len` bytes, and `len` is passed by pointer.
        cvt(unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                (&mut st as *mut libc::tpacket_stats).cast(),
                &mut len,
            )
        })?;
        Ok(st.tp_drops as u64)
    }

    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Blocks until a frame is waiting or `timeout_ns` passed (whichever
    /// first; a signal also ends it). The idle data plane's sleep.
    pub fn wait(&mut self, timeout_ns: u64) -> io::Result<()> {
        let mut pfd = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ts = libc::timespec {
            tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: one live pollfd and a live timespec, both owned here for
        // the call; no signal mask is passed.
        let r = unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Receives up to `BATCH` frames into fresh pool slots, appending them to
    /// `out` (stamped in `Meta::t` with the clock read after the syscall). Returns how many arrived; 0
    /// when nothing is waiting or the pool is empty. Outgoing copies
    /// (PACKET_OUTGOING) are discarded.
    pub fn recv_batch(
        &mut self,
        pool: &mut FramePool,
        out: &mut Vec<RxFrame>,
        now: u64,
    ) -> io::Result<usize> {
        self.held.clear();
        while self.held.len() < BATCH {
            match pool.alloc() {
                Some(i) => self.held.push(i),
                None => break,
            }
        }
        let n = self.held.len();
        if n == 0 {
            return Ok(0);
        }
        for k in 0..n {
            self.iovs[k] = libc::iovec {
                iov_base: pool.rx_ptr(self.held[k]).cast(),
                iov_len: MAX_FRAME,
            };
            let h = &mut self.msgs[k].msg_hdr;
            h.msg_name = (&mut self.addrs[k] as *mut libc::sockaddr_ll).cast();
            h.msg_namelen = size_of::<libc::sockaddr_ll>() as libc::socklen_t;
            h.msg_iov = &mut self.iovs[k];
            h.msg_iovlen = 1;
            h.msg_control = self.cmsgs[k].0.as_mut_ptr().cast();
            h.msg_controllen = self.cmsgs[k].0.len();
            h.msg_flags = 0;
            self.msgs[k].msg_len = 0;
        }
        // SAFETY: the first `n` headers point at `n` distinct pool slots of
        // MAX_FRAME writable bytes each (disjoint slots, alive for the call),
        // at sockaddr_ll and control buffers owned by `self`.
        let r = unsafe {
            libc::recvmmsg(
                self.fd.as_raw_fd(),
                self.msgs.as_mut_ptr(),
                n as libc::c_uint,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        let got = if r < 0 {
            let e = io::Error::last_os_error();
            for &i in &self.held {
                pool.release(i);
            }
            if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::Interrupted {
                return Ok(0);
            }
            return Err(e);
        } else {
            r as usize
        };
        // Stamp with the time the frames were actually taken: the caller's
        // `now` may be stale if the thread was preempted before the call.
        let stamp = now.max(crate::clock::monotonic_ns());
        let mut kept = 0;
        for k in 0..n {
            let i = self.held[k];
            if k >= got || self.addrs[k].sll_pkttype == libc::PACKET_OUTGOING {
                pool.release(i);
                continue;
            }
            let h = &self.msgs[k].msg_hdr;
            let truncated = h.msg_flags & libc::MSG_TRUNC != 0;
            let len = (self.msgs[k].msg_len as usize).min(MAX_FRAME);
            let m = pool.meta_mut(i);
            m.len = len as u16;
            m.t = stamp;
            out.push(RxFrame {
                idx: i,
                ifindex: self.addrs[k].sll_ifindex,
                truncated,
                csum_not_ready: auxdata_status(h) & libc::TP_STATUS_CSUMNOTREADY != 0,
            });
            kept += 1;
        }
        Ok(kept)
    }

    /// Sends `frames` as (pool index, ifindex) in `BATCH`-sized calls.
    /// Returns how many leading frames the kernel took; the rest stay with
    /// the caller (socket buffer full). A frame the kernel refuses outright
    /// (e.g. interface down) is reported as an error after the prefix.
    pub fn send_batch(&mut self, pool: &FramePool, frames: &[(u32, i32)]) -> io::Result<usize> {
        let mut done = 0;
        while done < frames.len() {
            let n = (frames.len() - done).min(BATCH);
            for k in 0..n {
                let (i, ifindex) = frames[done + k];
                self.iovs[k] = libc::iovec {
                    iov_base: pool.tx_ptr(i) as *mut libc::c_void,
                    iov_len: pool.meta(i).len as usize,
                };
                let a = &mut self.addrs[k];
                a.sll_family = libc::AF_PACKET as u16;
                a.sll_protocol = 0;
                a.sll_ifindex = ifindex;
                a.sll_halen = 0;
                let h = &mut self.msgs[k].msg_hdr;
                h.msg_name = (a as *mut libc::sockaddr_ll).cast();
                h.msg_namelen = size_of::<libc::sockaddr_ll>() as libc::socklen_t;
                h.msg_iov = &mut self.iovs[k];
                h.msg_iovlen = 1;
                h.msg_control = std::ptr::null_mut();
                h.msg_controllen = 0;
                h.msg_flags = 0;
            }
            // SAFETY: the first `n` headers point at live frames of the pool
            // (read-only for sendmmsg) and at addresses owned by `self`.
            let r = unsafe {
                libc::sendmmsg(
                    self.fd.as_raw_fd(),
                    self.msgs.as_mut_ptr(),
                    n as libc::c_uint,
                    libc::MSG_DONTWAIT,
                )
            };
            if r < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::Interrupted {
                    return Ok(done);
                }
                if done == 0 {
                    return Err(e);
                }
                return Ok(done);
            }
            done += r as usize;
            if (r as usize) < n {
                break;
            }
        }
        Ok(done)
    }

    /// Receives one frame into `buf`, waiting up to `timeout_ms`. Returns
    /// (captured length, original length, ifindex, outgoing?). For capture.
    pub fn recv_one(
        &mut self,
        buf: &mut [u8],
        timeout_ms: i32,
    ) -> io::Result<Option<(usize, usize, i32, bool)>> {
        let mut p = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let r = unsafe { libc::poll(&mut p, 1, timeout_ms) };
        if r <= 0 {
            return Ok(None);
        }
        // SAFETY: sockaddr_ll is plain old data.
        let mut sa: libc::sockaddr_ll = unsafe { zeroed() };
        let mut sl = size_of::<libc::sockaddr_ll>() as libc::socklen_t;
        // SAFETY: `buf` is writable for its length; MSG_TRUNC makes the call
        // return the frame's real length without writing past `buf`.
        let n = unsafe {
            libc::recvfrom(
                self.fd.as_raw_fd(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                libc::MSG_DONTWAIT | libc::MSG_TRUNC,
                (&mut sa as *mut libc::sockaddr_ll).cast(),
                &mut sl,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::Interrupted {
                return Ok(None);
            }
            return Err(e);
        }
        let orig = n as usize;
        Ok(Some((
            orig.min(buf.len()),
            orig,
            sa.sll_ifindex,
            sa.sll_pkttype == libc::PACKET_OUTGOING,
        )))
    }
}

/// `tp_status` from a PACKET_AUXDATA control message (0 if absent).
fn auxdata_status(h: &libc::msghdr) -> u32 {
    // SAFETY: `h` was filled by recvmmsg with msg_control pointing at our own
    // aligned buffer and msg_controllen set by the kernel; CMSG_* walk only
    // inside it, and the payload is read unaligned into a POD struct.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(h);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_PACKET && (*c).cmsg_type == libc::PACKET_AUXDATA {
                let a: libc::tpacket_auxdata = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                return a.tp_status;
            }
            c = libc::CMSG_NXTHDR(h, c);
        }
    }
    0
}

impl crate::port::Port for RawSocket {
    fn recv_batch(
        &mut self,
        pool: &mut FramePool,
        out: &mut Vec<RxFrame>,
        now: u64,
    ) -> io::Result<usize> {
        RawSocket::recv_batch(self, pool, out, now)
    }
    fn send_batch(&mut self, pool: &FramePool, frames: &[(u32, i32)]) -> io::Result<usize> {
        RawSocket::send_batch(self, pool, frames)
    }
    fn take_drops(&mut self) -> u64 {
        RawSocket::take_drops(self).unwrap_or(0)
    }
    fn wait(&mut self, timeout_ns: u64) -> bool {
        RawSocket::wait(self, timeout_ns).is_ok()
    }
}
