//! Frame ports: how frames enter and leave the engine. The AF_PACKET socket
//! in the fabric namespace is one; [`MemPort`] is the public in-memory test
//! device (frames injected with an ifindex at a time, sent frames recorded
//! with time and ifindex) for deterministic engine tests and conformance
//! runners.

use crate::pool::FramePool;
use std::collections::VecDeque;
use std::io;

/// Frames per `recv_batch`/`send_batch` (the AF_PACKET socket's
/// `recvmmsg`/`sendmmsg` calls).
pub const BATCH: usize = 64;

/// One received frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxFrame {
    pub idx: u32,
    pub ifindex: i32,
    /// The frame did not fit its slot (`MAX_FRAME`), e.g. a GSO super-frame.
    pub truncated: bool,
    /// The sender left the L4 checksum to offload (CHECKSUM_PARTIAL): it
    /// must be completed before the frame leaves on another interface.
    pub csum_not_ready: bool,
}

/// A batch-oriented frame port: the fabric namespace's AF_PACKET socket
/// (host ports and external ToRs' uplink and CPU interfaces), or an
/// in-memory device.
pub trait Port: Send {
    /// Receives frames into fresh pool slots, appending them to `out`, and
    /// stamps each `Meta::t` with its receive time (at least `now`).
    fn recv_batch(
        &mut self,
        pool: &mut FramePool,
        out: &mut Vec<RxFrame>,
        now: u64,
    ) -> io::Result<usize>;
    /// Sends (pool index, ifindex) frames; returns how many leading frames
    /// were taken. The caller keeps ownership of the slots.
    fn send_batch(&mut self, pool: &FramePool, frames: &[(u32, i32)]) -> io::Result<usize>;
    /// Frames the port lost before the engine saw them (e.g. a full kernel
    /// socket buffer) since the previous call.
    fn take_drops(&mut self) -> u64 {
        0
    }
    /// Called at the start of every engine iteration with its time, before
    /// anything is sent or received (a real socket needs no clock; an
    /// in-memory port stamps what it records with it).
    fn poll_start(&mut self, _now: u64) {}
    /// Blocks until a frame may be waiting or `timeout_ns` passed; false
    /// when the port cannot wait (it is only polled).
    fn wait(&mut self, _timeout_ns: u64) -> bool {
        false
    }
}

/// A frame [`MemPort`] sent: the engine iteration's time, the interface and
/// the bytes (the stored ones: a padded frame had `pad` more on the wire).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentFrame {
    pub t: u64,
    pub ifindex: i32,
    pub data: Vec<u8>,
    pub pad: u16,
}

/// The public in-memory test device (smoltcp style): frames are injected
/// with an ifindex and a time and received by the first engine iteration at
/// or after that time (stamped with the iteration's time); every frame the
/// engine sends is recorded with the iteration's time and its ifindex.
/// Frame buffers are recycled (up to [`MemPort::SPARE`] of them): a driver
/// that hands back what it took ([`MemPort::recycle_sent`],
/// [`MemPort::recycle`]) allocates nothing per frame once warm.
#[derive(Debug, Default)]
pub struct MemPort {
    /// (time, ifindex, stored bytes, padding on the wire).
    rx: VecDeque<(u64, i32, Vec<u8>, u16)>,
    /// Everything sent so far, in order.
    pub sent: Vec<SentFrame>,
    now: u64,
    /// Frames injected but not yet received.
    pending: usize,
    /// Buffers to reuse.
    spare: Vec<Vec<u8>>,
}

impl MemPort {
    /// Spare buffers kept at most (about 6 MB of full-size frames).
    pub const SPARE: usize = 4096;

    pub fn new() -> MemPort {
        MemPort::default()
    }

    /// Queues `frame` to arrive on interface `ifindex` at time `at` (or at
    /// the first iteration after it). Frames are received in injection
    /// order; one injected with an earlier time behind a later one waits
    /// for it.
    pub fn inject(&mut self, ifindex: i32, at: u64, frame: &[u8]) {
        self.inject_padded(ifindex, at, frame, frame.len());
    }

    /// [`MemPort::inject`] for a frame of `wire_len` bytes of which only
    /// the first `frame.len()` are stored (the headers): queues, links and
    /// counters count `wire_len`, as if the rest were there. Lets a
    /// virtual-time run hold millions of full-size frames in small slots
    /// (`EngineOptions::pool_slot`).
    pub fn inject_padded(&mut self, ifindex: i32, at: u64, frame: &[u8], wire_len: usize) {
        assert!(
            wire_len >= frame.len() && wire_len - frame.len() <= u16::MAX as usize,
            "a padded frame of {wire_len} bytes on the wire stores {}",
            frame.len()
        );
        let mut b = self.spare.pop().unwrap_or_default();
        b.clear();
        b.extend_from_slice(frame);
        self.rx
            .push_back((at, ifindex, b, (wire_len - frame.len()) as u16));
        self.pending += 1;
    }

    /// [`MemPort::inject_padded`] without a copy: `frame` holds the first
    /// bytes of a frame `pad` bytes longer on the wire.
    pub fn inject_owned(&mut self, ifindex: i32, at: u64, frame: Vec<u8>, pad: u16) {
        self.rx.push_back((at, ifindex, frame, pad));
        self.pending += 1;
    }

    /// An empty buffer to build a frame in for [`MemPort::inject_owned`]:
    /// a spare one when there is one, so a driver that recycles what it
    /// takes allocates nothing per frame.
    pub fn buffer(&mut self) -> Vec<u8> {
        let mut b = self.spare.pop().unwrap_or_default();
        b.clear();
        b
    }

    /// Frames injected but not yet taken by the engine.
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// Takes the recorded sent frames.
    pub fn take_sent(&mut self) -> Vec<SentFrame> {
        std::mem::take(&mut self.sent)
    }

    /// Forgets the recorded sent frames, keeping their buffers for reuse.
    pub fn recycle_sent(&mut self) {
        let room = Self::SPARE.saturating_sub(self.spare.len());
        self.spare
            .extend(self.sent.drain(..).take(room).map(|s| s.data));
    }

    /// Keeps `buf` (a frame taken from [`MemPort::take_sent`]) for reuse.
    pub fn recycle(&mut self, buf: Vec<u8>) {
        if self.spare.len() < Self::SPARE {
            self.spare.push(buf);
        }
    }

    /// Recorded sent frames on one interface.
    pub fn sent_on(&self, ifindex: i32) -> impl Iterator<Item = &SentFrame> {
        self.sent.iter().filter(move |s| s.ifindex == ifindex)
    }
}

impl Port for MemPort {
    fn recv_batch(
        &mut self,
        pool: &mut FramePool,
        out: &mut Vec<RxFrame>,
        now: u64,
    ) -> io::Result<usize> {
        self.now = now;
        let mut n = 0;
        while n < BATCH {
            match self.rx.front() {
                Some((at, _, _, _)) if *at <= now => {}
                _ => break,
            }
            if !pool.can_alloc() {
                break;
            }
            let (_, ifindex, f, pad) = self.rx.pop_front().expect("peeked");
            self.pending -= 1;
            let max = pool.max_frame();
            let truncated = f.len() > max;
            let i = pool
                .alloc_from(&f[..f.len().min(max)])
                .expect("a slot was free");
            self.recycle(f);
            let m = pool.meta_mut(i);
            m.t = now;
            m.pad = pad;
            out.push(RxFrame {
                idx: i,
                ifindex,
                truncated,
                csum_not_ready: false,
            });
            n += 1;
        }
        Ok(n)
    }

    fn send_batch(&mut self, pool: &FramePool, frames: &[(u32, i32)]) -> io::Result<usize> {
        for &(i, ifindex) in frames {
            let mut data = self.spare.pop().unwrap_or_default();
            data.clear();
            data.extend_from_slice(pool.data(i));
            self.sent.push(SentFrame {
                t: self.now,
                ifindex,
                data,
                pad: pool.meta(i).pad,
            });
        }
        Ok(frames.len())
    }

    fn poll_start(&mut self, now: u64) {
        self.now = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_port_releases_frames_at_their_time_and_records_sends() {
        let mut p = MemPort::new();
        let mut pool = FramePool::new(4);
        let mut out = Vec::new();
        p.inject(7, 100, &[1; 60]);
        p.inject(8, 200, &[2; 60]);
        assert_eq!(p.recv_batch(&mut pool, &mut out, 99).unwrap(), 0);
        assert_eq!(p.recv_batch(&mut pool, &mut out, 150).unwrap(), 1);
        assert_eq!((out[0].ifindex, pool.meta(out[0].idx).t), (7, 150));
        assert_eq!(p.pending(), 1);
        p.poll_start(300);
        p.send_batch(&pool, &[(out[0].idx, 3)]).unwrap();
        assert_eq!(p.sent_on(3).count(), 1);
        assert_eq!(p.sent[0].t, 300);
        assert_eq!(p.sent[0].data, vec![1; 60]);
        // A recycled buffer carries nothing of its last frame.
        p.recycle_sent();
        assert!(p.sent.is_empty());
        p.inject(9, 300, &[5; 42]);
        out.clear();
        assert_eq!(p.recv_batch(&mut pool, &mut out, 300).unwrap(), 2);
        assert_eq!(pool.data(out[0].idx), &[2; 60][..]);
        assert_eq!(pool.data(out[1].idx), &[5; 42][..]);
        p.send_batch(&pool, &[(out[1].idx, 4)]).unwrap();
        assert_eq!(
            p.sent_on(4).map(|s| &s.data[..]).collect::<Vec<_>>(),
            [&[5; 42][..]]
        );
    }

    #[test]
    fn a_padded_frame_is_stored_short_and_keeps_its_wire_length() {
        let mut p = MemPort::new();
        let mut pool = FramePool::with_slot(2, crate::pool::HEADROOM + 64);
        let mut out = Vec::new();
        p.inject_padded(3, 0, &[7; 64], 1500);
        // Too long for the small slot: stored cut, and marked so.
        p.inject(4, 0, &[8; 65]);
        assert_eq!(p.recv_batch(&mut pool, &mut out, 0).unwrap(), 2);
        let (a, b) = (out[0].idx, out[1].idx);
        assert_eq!((pool.data(a).len(), pool.meta(a).wire_len()), (64, 1500));
        assert!(!out[0].truncated && out[1].truncated);
        assert_eq!(pool.meta(b).wire_len(), 64);
        p.send_batch(&pool, &[(a, 9)]).unwrap();
        assert_eq!((p.sent[0].data.len(), p.sent[0].pad), (64, 1436));
    }
}
