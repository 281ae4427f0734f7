//! Preallocated frame buffers and intrusive FIFO queues of frame indices.
//!
//! Every frame lives in a fixed-size slot (2 KiB unless the pool is made
//! with [`FramePool::with_slot`]) of one big buffer allocated at start;
//! queues link frames through `Meta::next`, so enqueue, dequeue and moving
//! a frame between queues never allocate.
//!
//! A frame may stand for a longer one on the wire: `Meta::pad` bytes
//! follow its stored bytes there, and every byte count and transmission
//! time uses [`Meta::wire_len`]. Virtual-time runs at 100 Gb/s store only
//! the headers (small slots) and so hold millions of full-size frames.

/// Bytes per frame slot of [`FramePool::new`].
pub const SLOT: usize = 2048;
/// Free bytes kept in front of a received frame so a source-route header can
/// be pushed without copying the payload.
pub const HEADROOM: usize = 128;
/// Largest frame a slot can receive.
pub const MAX_FRAME: usize = SLOT - HEADROOM;
/// "No frame" in links and queue ends.
pub const NIL: u32 = u32::MAX;

/// Per-frame metadata.
#[derive(Clone, Copy, Debug)]
pub struct Meta {
    /// Start of the frame inside its slot.
    pub off: u16,
    /// Stored frame length in bytes.
    pub len: u16,
    /// Bytes the frame has on the wire beyond the stored ones (0 for
    /// frames from sockets; see the module's doc).
    pub pad: u16,
    /// Next frame in whatever queue holds this one.
    pub next: u32,
    /// A time in ns: receive time, or delivery time on the OCS delay line.
    pub t: u64,
    /// Queue-specific tag (peer ToR on the delay line).
    pub tag: u32,
    /// True for frames the ToR made itself (ARP replies); they are outside
    /// the sent/delivered accounting.
    pub ctrl: bool,
    /// When the frame entered its first ToR from a host (0: unknown, e.g.
    /// from an external ToR); delivery records the fabric delay from it.
    pub born: u64,
    /// A bulk frame of RotorLB (`crate::rotorlb`): the mark Opera's ToR
    /// would carry in the header, so that a relay knows it. Frames cross
    /// the OCS inside the engine, so the metadata goes with them.
    pub bulk: Option<Bulk>,
}

/// What RotorLB knows of a bulk frame at a ToR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bulk {
    /// Its destination host (the engine's index).
    pub host: u16,
    /// This ToR relays it (second hop); false at its own hosts' ToR.
    pub relayed: bool,
}

impl Meta {
    /// The frame's length on the wire: what queues, links and counters
    /// count.
    #[inline]
    pub fn wire_len(&self) -> u64 {
        self.len as u64 + self.pad as u64
    }
}

const META0: Meta = Meta {
    off: HEADROOM as u16,
    len: 0,
    pad: 0,
    next: NIL,
    t: 0,
    tag: 0,
    ctrl: false,
    born: 0,
    bulk: None,
};

pub struct FramePool {
    buf: Vec<u8>,
    meta: Vec<Meta>,
    free: Vec<u32>,
    slot: usize,
    /// Doubles instead of running out ([`FramePool::set_growable`]).
    grows: bool,
}

impl FramePool {
    /// `frames` slots of [`SLOT`] bytes: room for any frame a socket gives.
    pub fn new(frames: usize) -> FramePool {
        FramePool::with_slot(frames, SLOT)
    }

    /// `frames` slots of `slot` bytes (at least `HEADROOM` + 64, at most
    /// [`SLOT`]): frames of up to `slot - HEADROOM` stored bytes. Socket
    /// ports need [`FramePool::new`]'s full slots.
    pub fn with_slot(frames: usize, slot: usize) -> FramePool {
        let frames = frames.clamp(1, NIL as usize - 1);
        let slot = slot.clamp(HEADROOM + 64, SLOT);
        FramePool {
            buf: vec![0u8; frames * slot],
            meta: vec![META0; frames],
            free: (0..frames as u32).rev().collect(),
            slot,
            grows: false,
        }
    }

    /// A pool that doubles when it runs out instead of refusing a frame:
    /// for virtual time, where frames stand for what hosts and ToRs hold
    /// in memory (RotorLB's relays hold a cycle of bulk) and the loop can
    /// afford an allocation now and then. Never for a live engine: socket
    /// code holds pointers into the slots, and the hot path must not
    /// allocate.
    pub fn set_growable(&mut self, on: bool) {
        self.grows = on;
    }

    #[cold]
    fn grow(&mut self) -> bool {
        let old = self.meta.len();
        let new = (old * 2).min(NIL as usize - 1);
        if !self.grows || new <= old {
            return false;
        }
        self.buf.resize(new * self.slot, 0);
        self.meta.resize(new, META0);
        self.free.extend((old as u32..new as u32).rev());
        true
    }

    /// The largest frame a slot stores.
    pub fn max_frame(&self) -> usize {
        self.slot - HEADROOM
    }

    pub fn capacity(&self) -> usize {
        self.meta.len()
    }
    pub fn available(&self) -> usize {
        self.free.len()
    }
    /// Whether [`FramePool::alloc`] can give a slot now (a growable pool
    /// can until it reaches the index limit).
    pub fn can_alloc(&self) -> bool {
        !self.free.is_empty() || (self.grows && self.meta.len() < NIL as usize - 1)
    }

    /// Takes a free slot, reset to an empty frame at `HEADROOM`.
    #[inline]
    pub fn alloc(&mut self) -> Option<u32> {
        if self.free.is_empty() && !self.grow() {
            return None;
        }
        let i = self.free.pop()?;
        self.meta[i as usize] = META0;
        Some(i)
    }

    /// Returns a slot. `free` never grows past its initial capacity because
    /// every index is handed out once.
    #[inline]
    pub fn release(&mut self, i: u32) {
        debug_assert!(self.free.len() < self.meta.len());
        self.free.push(i);
    }

    #[inline]
    pub fn meta(&self, i: u32) -> &Meta {
        &self.meta[i as usize]
    }
    #[inline]
    pub fn meta_mut(&mut self, i: u32) -> &mut Meta {
        &mut self.meta[i as usize]
    }

    /// The frame's bytes.
    #[inline]
    pub fn data(&self, i: u32) -> &[u8] {
        let m = &self.meta[i as usize];
        let s = i as usize * self.slot + m.off as usize;
        &self.buf[s..s + m.len as usize]
    }
    #[inline]
    pub fn data_mut(&mut self, i: u32) -> &mut [u8] {
        let m = self.meta[i as usize];
        let s = i as usize * self.slot + m.off as usize;
        &mut self.buf[s..s + m.len as usize]
    }

    /// The whole slot (for in-place header surgery).
    #[inline]
    pub fn slot_mut(&mut self, i: u32) -> &mut [u8] {
        let s = i as usize * self.slot;
        &mut self.buf[s..s + self.slot]
    }

    /// Pointer to where a received frame is written (slot + HEADROOM), with
    /// room for `MAX_FRAME` bytes. Only dereferenced by the socket code,
    /// which needs a pool of full slots ([`FramePool::new`]).
    #[inline]
    pub fn rx_ptr(&mut self, i: u32) -> *mut u8 {
        assert_eq!(self.slot, SLOT, "sockets receive into full slots");
        self.buf
            .as_mut_ptr()
            .wrapping_add(i as usize * SLOT + HEADROOM)
    }

    /// Pointer to the frame's first byte, valid for `len` bytes.
    #[inline]
    pub fn tx_ptr(&self, i: u32) -> *const u8 {
        let m = &self.meta[i as usize];
        self.buf
            .as_ptr()
            .wrapping_add(i as usize * self.slot + m.off as usize)
    }

    /// Copies `bytes` into a fresh frame (tests and tools; not the hot path).
    pub fn alloc_from(&mut self, bytes: &[u8]) -> Option<u32> {
        if bytes.len() > self.max_frame() {
            return None;
        }
        let i = self.alloc()?;
        let s = i as usize * self.slot + HEADROOM;
        self.buf[s..s + bytes.len()].copy_from_slice(bytes);
        self.meta[i as usize].len = bytes.len() as u16;
        Some(i)
    }

    /// Inserts `n` zero bytes at `at` inside the frame by moving the first
    /// `at` bytes into the headroom. False if the headroom is too small.
    pub fn insert(&mut self, i: u32, at: usize, n: usize) -> bool {
        let m = self.meta[i as usize];
        if (m.off as usize) < n || at > m.len as usize {
            return false;
        }
        let off = m.off as usize;
        let slot = self.slot_mut(i);
        slot.copy_within(off..off + at, off - n);
        slot[off - n + at..off + at].fill(0);
        let mm = &mut self.meta[i as usize];
        mm.off -= n as u16;
        mm.len += n as u16;
        true
    }

    /// Removes `n` bytes at `at` by moving the first `at` bytes forward.
    pub fn remove(&mut self, i: u32, at: usize, n: usize) -> bool {
        let m = self.meta[i as usize];
        if at + n > m.len as usize {
            return false;
        }
        let off = m.off as usize;
        let slot = self.slot_mut(i);
        slot.copy_within(off..off + at, off + n);
        let mm = &mut self.meta[i as usize];
        mm.off += n as u16;
        mm.len -= n as u16;
        true
    }
}

/// A FIFO of frames linked through `Meta::next`, with byte occupancy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameQueue {
    head: u32,
    tail: u32,
    pub frames: u32,
    pub bytes: u64,
}

impl Default for FrameQueue {
    fn default() -> Self {
        FrameQueue {
            head: NIL,
            tail: NIL,
            frames: 0,
            bytes: 0,
        }
    }
}

impl FrameQueue {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == NIL
    }
    #[inline]
    pub fn peek(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    #[inline]
    pub fn push(&mut self, pool: &mut FramePool, i: u32) {
        let len = pool.meta(i).wire_len();
        pool.meta_mut(i).next = NIL;
        if self.tail == NIL {
            self.head = i;
        } else {
            pool.meta_mut(self.tail).next = i;
        }
        self.tail = i;
        self.frames += 1;
        self.bytes += len;
    }

    #[inline]
    /// Puts `front`'s frames before this queue's, in their order.
    pub fn prepend(&mut self, pool: &mut FramePool, front: FrameQueue) {
        if front.is_empty() {
            return;
        }
        if !self.is_empty() {
            pool.meta_mut(front.tail).next = self.head;
            self.head = front.head;
            self.frames += front.frames;
            self.bytes += front.bytes;
        } else {
            *self = front;
        }
    }

    pub fn pop(&mut self, pool: &mut FramePool) -> Option<u32> {
        let i = self.peek()?;
        let m = pool.meta_mut(i);
        self.head = m.next;
        m.next = NIL;
        if self.head == NIL {
            self.tail = NIL;
        }
        self.frames -= 1;
        self.bytes -= pool.meta(i).wire_len();
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_growable_pool_doubles_and_keeps_its_frames() {
        let mut p = FramePool::with_slot(2, HEADROOM + 64);
        let a = p.alloc_from(b"first").unwrap();
        let b = p.alloc_from(b"second").unwrap();
        assert_eq!(p.alloc(), None, "a fixed pool runs out");
        p.set_growable(true);
        let c = p.alloc_from(b"third").unwrap();
        assert_eq!(p.capacity(), 4);
        assert_eq!(
            (p.data(a), p.data(b), p.data(c)),
            (&b"first"[..], &b"second"[..], &b"third"[..])
        );
        assert_eq!(p.available(), 1);
        p.release(a);
        assert_eq!(p.available(), 2);
    }

    #[test]
    fn queue_is_fifo_and_tracks_bytes() {
        let mut p = FramePool::new(8);
        let mut q = FrameQueue::default();
        let a = p.alloc_from(&[1; 100]).unwrap();
        let b = p.alloc_from(&[2; 60]).unwrap();
        q.push(&mut p, a);
        q.push(&mut p, b);
        assert_eq!((q.frames, q.bytes), (2, 160));
        assert_eq!(q.pop(&mut p), Some(a));
        assert_eq!(q.bytes, 60);
        assert_eq!(q.pop(&mut p), Some(b));
        assert!(q.is_empty());
        assert_eq!(q.pop(&mut p), None);
        p.release(a);
        p.release(b);
        assert_eq!(p.available(), 8);
    }

    #[test]
    fn insert_and_remove_keep_the_rest_of_the_frame() {
        let mut p = FramePool::new(1);
        let f: Vec<u8> = (0..40).collect();
        let i = p.alloc_from(&f).unwrap();
        assert!(p.insert(i, 12, 5));
        let d = p.data(i).to_vec();
        assert_eq!(d.len(), 45);
        assert_eq!(&d[..12], &f[..12]);
        assert_eq!(&d[12..17], &[0; 5]);
        assert_eq!(&d[17..], &f[12..]);
        assert!(p.remove(i, 12, 5));
        assert_eq!(p.data(i), &f[..]);
        assert!(!p.insert(i, 0, HEADROOM + 1));
    }

    #[test]
    fn queues_count_padded_frames_at_their_wire_length() {
        let mut p = FramePool::with_slot(4, HEADROOM + 64);
        assert_eq!(p.max_frame(), 64);
        assert!(p.alloc_from(&[0; 65]).is_none());
        let a = p.alloc_from(&[1; 64]).unwrap();
        p.meta_mut(a).pad = 1436;
        let b = p.alloc_from(&[2; 60]).unwrap();
        assert_eq!((p.meta(a).wire_len(), p.meta(b).wire_len()), (1500, 60));
        let mut q = FrameQueue::default();
        q.push(&mut p, a);
        q.push(&mut p, b);
        assert_eq!(q.bytes, 1560);
        assert_eq!(q.pop(&mut p), Some(a));
        assert_eq!(q.bytes, 60);
        // Slots do not overlap: the second frame's bytes are its own.
        assert_eq!(p.data(a), &[1; 64][..]);
        assert_eq!(p.data(b), &[2; 60][..]);
        // A fresh frame carries no padding of the slot's last one.
        p.release(a);
        let c = p.alloc().unwrap();
        assert_eq!((c, p.meta(c).pad), (a, 0));
    }

    #[test]
    fn pool_exhausts_without_growing() {
        let mut p = FramePool::new(2);
        assert!(p.alloc().is_some());
        assert!(p.alloc().is_some());
        assert!(p.alloc().is_none());
    }
}
