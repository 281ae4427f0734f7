//! A `TPACKET_V2` receive ring on the AF_PACKET socket (issue 41's first
//! candidate for native speed; docs/performance.md has the measurement).
//!
//! With `recvmmsg` the data-plane thread pays, per frame, the syscall's
//! message handling, the copy out of the skb and the skb's free, all on its
//! own CPU. With a receive ring the kernel copies each frame into a shared
//! mapping in the softirq that delivers it, which runs on the sender's CPU
//! (a host's, under `--own-cpu`), and frees the skb there; the data plane
//! only reads the ring's status words and copies the frame into its pool.
//! `TPACKET_V2`, not V3: V3 hands a block over when it is full or its
//! retire timer (milliseconds) fires, so a lone frame could wait a
//! millisecond, longer than a slice. V2 hands over each frame.
//!
//! Transmit stays `sendmmsg` on the same socket ([`RawSocket::send_batch`]).

use super::{RawSocket, RxFrame, SocketOptions, cvt};
use crate::pool::{FramePool, MAX_FRAME};
use std::io;
use std::mem::size_of;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU32, Ordering};

/// Bytes per ring frame: a `tpacket2_hdr`, the `sockaddr_ll` and the
/// frame (the kernel places it 80 bytes in for SOCK_RAW, leaving 1,968,
/// above `MAX_FRAME`).
const FRAME: usize = 2048;
/// Bytes per ring block (a multiple of the page size and of `FRAME`).
const BLOCK: usize = 1 << 20;
/// Blocks: 16 MiB, 8,192 frames (the `recvmmsg` socket's buffer is 8 MiB
/// of skbs, about 3,000 full-size frames).
const BLOCKS: usize = 16;

/// An AF_PACKET socket that receives through a `TPACKET_V2` ring and
/// sends with `sendmmsg`.
pub struct RingSocket {
    sock: RawSocket,
    /// The mapping: `BLOCKS * BLOCK` bytes, frame `k` at `k * FRAME`.
    ring: *mut u8,
    frames: usize,
    /// The next frame to look at.
    next: usize,
}

// SAFETY: `ring` is a private mapping of this socket's ring, only touched
// through `&mut self`; the mapping lives as long as the struct (unmapped in
// Drop), so moving it to another thread moves sole access with it.
unsafe impl Send for RingSocket {}

impl RingSocket {
    /// Opens the socket as [`RawSocket::open`] does and maps a receive
    /// ring on it.
    pub fn open(o: SocketOptions) -> io::Result<RingSocket> {
        let sock = RawSocket::open(o)?;
        let fd = sock.fd();
        super::setsockopt_int(
            fd,
            libc::SOL_PACKET,
            libc::PACKET_VERSION,
            libc::tpacket_versions::TPACKET_V2 as libc::c_int,
        )?;
        let req = libc::tpacket_req {
            tp_block_size: BLOCK as libc::c_uint,
            tp_block_nr: BLOCKS as libc::c_uint,
            tp_frame_size: FRAME as libc::c_uint,
            tp_frame_nr: (BLOCK / FRAME * BLOCKS) as libc::c_uint,
        };
        // SAFETY: passes a pointer to a live tpacket_req and its exact size.
        cvt(unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_PACKET,
                libc::PACKET_RX_RING,
                (&req as *const libc::tpacket_req).cast(),
                size_of::<libc::tpacket_req>() as libc::socklen_t,
            )
        })?;
        // SAFETY: maps the ring the kernel just made for this descriptor,
        // at a fresh address of its choosing; the result is checked.
        let ring = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                BLOCK * BLOCKS,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if ring == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(RingSocket {
            sock,
            ring: ring.cast(),
            frames: BLOCK / FRAME * BLOCKS,
            next: 0,
        })
    }

    /// The status word of ring frame `k`, shared with the kernel.
    fn status(&self, k: usize) -> &AtomicU32 {
        debug_assert!(k < self.frames);
        // SAFETY: frame `k` lies inside the mapping (k < frames), starts
        // FRAME-aligned (so 4-aligned), and begins with `tp_status`, a u32
        // the kernel and this thread hand back and forth; an AtomicU32 has
        // the layout of a u32, and the mapping outlives `&self`.
        unsafe { &*(self.ring.add(k * FRAME) as *const AtomicU32) }
    }

    /// Receives up to `BATCH` waiting frames into fresh pool slots, as
    /// [`RawSocket::recv_batch`] does.
    pub fn recv_batch(
        &mut self,
        pool: &mut FramePool,
        out: &mut Vec<RxFrame>,
        now: u64,
    ) -> io::Result<usize> {
        let mut stamp = 0;
        let mut kept = 0;
        for _ in 0..super::BATCH {
            let k = self.next;
            let st = self.status(k).load(Ordering::Acquire);
            if st & libc::TP_STATUS_USER == 0 {
                break;
            }
            // SAFETY: the frame is the user's (TP_STATUS_USER, read with
            // Acquire after the kernel's release), so its header and
            // address are written and stable until the status is handed
            // back; both lie inside frame `k` of the mapping, and are read
            // unaligned into plain-data copies.
            let (h, a) = unsafe {
                let base = self.ring.add(k * FRAME);
                let h: libc::tpacket2_hdr = std::ptr::read_unaligned(base.cast());
                let a: libc::sockaddr_ll = std::ptr::read_unaligned(
                    base.add(libc::TPACKET_ALIGN(size_of::<libc::tpacket2_hdr>()))
                        .cast(),
                );
                (h, a)
            };
            if a.sll_pkttype != libc::PACKET_OUTGOING {
                let Some(i) = pool.alloc() else {
                    // No slot: the frame waits in the ring.
                    break;
                };
                let len = (h.tp_snaplen as usize).min(MAX_FRAME);
                let mac = h.tp_mac as usize;
                if mac + len > FRAME {
                    pool.release(i);
                    return Err(io::Error::other(format!(
                        "ring frame at {mac} of {len} bytes overruns its {FRAME}-byte slot"
                    )));
                }
                // SAFETY: the source is `len` bytes inside frame `k` (checked
                // just above), the user's until handed back; the destination
                // is a fresh pool slot with room for MAX_FRAME >= len bytes;
                // the mapping and the pool never overlap.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        self.ring.add(k * FRAME + mac),
                        pool.rx_ptr(i),
                        len,
                    );
                }
                if stamp == 0 {
                    stamp = now.max(crate::clock::monotonic_ns());
                }
                let m = pool.meta_mut(i);
                m.len = len as u16;
                m.t = stamp;
                out.push(RxFrame {
                    idx: i,
                    ifindex: a.sll_ifindex,
                    truncated: h.tp_len as usize > len,
                    csum_not_ready: st & libc::TP_STATUS_CSUMNOTREADY != 0,
                });
                kept += 1;
            }
            self.status(k)
                .store(libc::TP_STATUS_KERNEL, Ordering::Release);
            self.next = (k + 1) % self.frames;
        }
        Ok(kept)
    }

    /// Blocks until a frame is waiting or `timeout_ns` passed.
    pub fn wait(&mut self, timeout_ns: u64) -> io::Result<()> {
        if self.status(self.next).load(Ordering::Acquire) & libc::TP_STATUS_USER != 0 {
            return Ok(());
        }
        self.sock.wait(timeout_ns)
    }

    pub fn socket(&self) -> &RawSocket {
        &self.sock
    }
}

impl Drop for RingSocket {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `open`, which nothing
        // references once `self` is dropped.
        unsafe {
            libc::munmap(self.ring.cast(), BLOCK * BLOCKS);
        }
    }
}

impl crate::port::Port for RingSocket {
    fn recv_batch(
        &mut self,
        pool: &mut FramePool,
        out: &mut Vec<RxFrame>,
        now: u64,
    ) -> io::Result<usize> {
        RingSocket::recv_batch(self, pool, out, now)
    }
    fn send_batch(&mut self, pool: &FramePool, frames: &[(u32, i32)]) -> io::Result<usize> {
        self.sock.send_batch(pool, frames)
    }
    fn take_drops(&mut self) -> u64 {
        self.sock.take_drops().unwrap_or(0)
    }
    fn wait(&mut self, timeout_ns: u64) -> bool {
        RingSocket::wait(self, timeout_ns).is_ok()
    }
}

impl AsRawFd for RingSocket {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.sock.fd()
    }
}
