//! Pacing what the OCS hands an external ToR to what that ToR takes in
//! (issue 41; docs/p4.md, "Pacing").
//!
//! A BMv2 switch reads its ports into one input buffer of 1,024 frames and
//! drops, uncounted, what does not fit (as its packet sockets do). So the
//! OCS does not write a frame onto an external ToR's uplink veth while
//! [`WINDOW`] frames it sent that ToR (uplinks and CPU port) are not yet
//! taken in, as the ToR's own counter says ([`TakenIn`], read by its
//! control plane from outside the engine). The others wait here, in the
//! order the OCS delivered them, counted as queued; a full backlog drops
//! the frame as [`DropReason::TorBacklog`](crate::DropReason::TorBacklog).
//!
//! The count can stall without the frames being lost in flight (a reader
//! that stopped), or frames can be lost before the ToR counts them: after
//! [`STALL_NS`] with the window full while frames wait, the frames in
//! flight are written off, so a stalled count slows the ToR down but never
//! stops it.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Frames sent to an external ToR and not yet taken in, at most. Measured
/// (docs/benchmarks.md, "Pacing"): a stock `simple_switch` lost exactly
/// `window - 32` frames of the first burst on an uplink at windows of 64
/// and 256, none at 32 or 16, and none after that first burst.
pub const WINDOW: u64 = 32;
/// Frames waiting for one external ToR, at most.
pub const BACKLOG: usize = 1024;
/// Without progress of the ToR's count for this long while frames wait,
/// the frames in flight are written off.
pub const STALL_NS: u64 = 20_000_000;

/// How many frames an external ToR has taken in from swtor, as its own
/// counter says (the P4 program's `fabric_rx`); written by whoever reads
/// that counter, read by the engine. The reader stops once it holds the
/// last reference ([`TakenIn::orphaned`]).
#[derive(Clone, Debug, Default)]
pub struct TakenIn(Arc<AtomicU64>);

impl TakenIn {
    pub fn new() -> TakenIn {
        TakenIn::default()
    }
    /// The ToR's counter now reads `n`.
    pub fn set(&self, n: u64) {
        self.0.store(n, Ordering::Release);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Acquire)
    }
    /// No engine holds it any more: its reader may stop.
    pub fn orphaned(&self) -> bool {
        Arc::strong_count(&self.0) == 1
    }
}

impl PartialEq for TakenIn {
    fn eq(&self, other: &TakenIn) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for TakenIn {}

/// One paced external ToR.
#[derive(Debug)]
struct Paced {
    taken: TakenIn,
    /// Frames sent to it (uplinks and CPU port) since the engine started.
    sent: u64,
    /// Its count when the engine started, plus what was written off.
    base: u64,
    /// The count last seen.
    last: u64,
    /// Since when the window has been full (no frame could go).
    full_since: Option<u64>,
    /// (frame, uplink ifindex) in delivery order.
    q: VecDeque<(u32, i32)>,
}

/// The external ToRs' backlogs (one per ToR with a [`TakenIn`]).
#[derive(Debug, Default)]
pub struct Pacer {
    /// By ToR id: index into `tors`, or `u16::MAX` (not paced).
    of_tor: Vec<u16>,
    tors: Vec<Paced>,
    /// Frames waiting in all backlogs.
    waiting: usize,
    /// [`WINDOW`], or `SWTOR_PACE_WINDOW` (for benchmarks).
    window: u64,
}

impl Pacer {
    /// `paced`: (ToR, its count) for each paced external ToR of a fabric of
    /// `tors` ToRs.
    pub fn new(tors: usize, paced: &[(usize, TakenIn)]) -> Pacer {
        let mut of_tor = vec![u16::MAX; tors];
        let mut v = Vec::with_capacity(paced.len());
        for (t, taken) in paced {
            of_tor[*t] = v.len() as u16;
            let now = taken.get();
            v.push(Paced {
                taken: taken.clone(),
                sent: 0,
                base: now,
                last: now,
                full_since: None,
                q: VecDeque::with_capacity(BACKLOG),
            });
        }
        let window = std::env::var("SWTOR_PACE_WINDOW")
            .ok()
            .and_then(|w| w.parse().ok())
            .filter(|&w| w > 0)
            .unwrap_or(WINDOW);
        Pacer {
            of_tor,
            tors: v,
            waiting: 0,
            window,
        }
    }

    pub fn is_paced(&self, tor: usize) -> bool {
        self.of_tor.get(tor).is_some_and(|&k| k != u16::MAX)
    }

    /// Frames waiting in all backlogs.
    pub fn waiting(&self) -> usize {
        self.waiting
    }

    /// Queues frame `i` for uplink `ifx` of paced ToR `tor`; false when its
    /// backlog is full (the caller drops it).
    pub fn push(&mut self, tor: usize, i: u32, ifx: i32) -> bool {
        let p = &mut self.tors[self.of_tor[tor] as usize];
        if p.q.len() >= BACKLOG {
            return false;
        }
        p.q.push_back((i, ifx));
        self.waiting += 1;
        true
    }

    /// `n` frames (rotation frames) went to `tor` outside the backlog.
    pub fn sent_outside(&mut self, tor: usize, n: u64) {
        if let Some(&k) = self.of_tor.get(tor).filter(|&&k| k != u16::MAX) {
            self.tors[k as usize].sent += n;
        }
    }

    /// Moves into `out` the frames paced ToR number `k` (0-based, in the
    /// order given to [`Pacer::new`]) may take now: what keeps its frames
    /// in flight within [`WINDOW`], `max` at most. The caller sends them
    /// and reports how many went with [`Pacer::sent`].
    pub fn release(&mut self, k: usize, now: u64, max: usize, out: &mut Vec<(u32, i32)>) {
        let window = self.window;
        let p = &mut self.tors[k];
        if p.q.is_empty() {
            return;
        }
        let taken = p.taken.get();
        if taken < p.last {
            // The counter was reset: start over from what it says.
            p.base = taken;
            p.sent = 0;
        }
        p.last = taken;
        let mut in_flight = p.sent.saturating_sub(taken.saturating_sub(p.base));
        if in_flight < window {
            p.full_since = None;
        } else {
            // Full: a count that moves with the rotation frames only is no
            // progress, so this waits for the window itself to open.
            let since = *p.full_since.get_or_insert(now);
            if now.saturating_sub(since) >= STALL_NS {
                // Write the frames in flight off.
                p.base = taken;
                p.sent = 0;
                p.full_since = None;
                in_flight = 0;
            }
        }
        let n = (window.saturating_sub(in_flight) as usize)
            .min(p.q.len())
            .min(max);
        out.extend(p.q.drain(..n));
        self.waiting -= n;
    }

    /// `n` of the frames [`Pacer::release`] gave for ToR number `k` were
    /// sent.
    pub fn sent(&mut self, k: usize, n: usize) {
        self.tors[k].sent += n as u64;
    }

    /// Frames [`Pacer::release`] gave for ToR number `k` that the port did
    /// not take (its socket was full): back to the front, in order.
    pub fn put_back(&mut self, k: usize, frames: &[(u32, i32)]) {
        let p = &mut self.tors[k];
        for &f in frames.iter().rev() {
            p.q.push_front(f);
        }
        self.waiting += frames.len();
    }

    /// Paced ToRs.
    pub fn len(&self) -> usize {
        self.tors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tors.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pacer(taken: &TakenIn) -> Pacer {
        Pacer::new(3, &[(1, taken.clone())])
    }

    #[test]
    fn a_tor_gets_at_most_a_window_of_frames_beyond_what_it_took_in() {
        let t = TakenIn::new();
        t.set(500); // what the counter said before the engine started
        let mut p = pacer(&t);
        assert!(p.is_paced(1) && !p.is_paced(0) && !p.is_paced(2));
        for i in 0..100 {
            assert!(p.push(1, i, 7));
        }
        assert_eq!(p.waiting(), 100);
        let mut out = Vec::new();
        p.release(0, 1, usize::MAX, &mut out);
        assert_eq!(out.len(), WINDOW as usize);
        assert_eq!(out[0], (0, 7), "in delivery order");
        p.sent(0, out.len());
        out.clear();
        p.release(0, 2, usize::MAX, &mut out);
        assert!(out.is_empty(), "window full");
        t.set(510);
        p.release(0, 3, usize::MAX, &mut out);
        assert_eq!(out.len(), 10, "ten taken in, ten more go");
        assert_eq!(out[0], (WINDOW as u32, 7));
        p.sent(0, out.len());
        assert_eq!(p.waiting(), 100 - WINDOW as usize - 10);
    }

    #[test]
    fn rotation_frames_take_room_in_the_window() {
        let t = TakenIn::new();
        let mut p = pacer(&t);
        p.sent_outside(1, 4);
        p.sent_outside(0, 9); // not paced: ignored
        for i in 0..WINDOW as u32 {
            p.push(1, i, 1);
        }
        let mut out = Vec::new();
        p.release(0, 1, usize::MAX, &mut out);
        assert_eq!(out.len(), WINDOW as usize - 4);
    }

    #[test]
    fn a_full_backlog_refuses_and_a_stalled_count_is_written_off() {
        let taken = TakenIn::new();
        let mut p = pacer(&taken);
        for i in 0..BACKLOG as u32 {
            assert!(p.push(1, i, 1));
        }
        assert!(!p.push(1, 0, 1), "backlog full");
        let mut out = Vec::new();
        p.release(0, 1_000, usize::MAX, &mut out);
        p.sent(0, out.len());
        out.clear();
        // Full from 2_000 on; rotation frames go and are taken in
        // meanwhile: the count moves, the window does not open.
        p.release(0, 2_000, usize::MAX, &mut out);
        for (k, t) in [(1, 3_000), (2, 2_000 + STALL_NS - 1)] {
            p.sent_outside(1, 1);
            taken.set(k);
            p.release(0, t, usize::MAX, &mut out);
            assert!(out.is_empty(), "not stalled yet at {t}");
        }
        p.release(0, 2_000 + STALL_NS, usize::MAX, &mut out);
        assert_eq!(out.len(), WINDOW as usize, "written off after STALL_NS");
    }

    #[test]
    fn a_reset_counter_starts_the_window_over() {
        let t = TakenIn::new();
        t.set(1_000);
        let mut p = pacer(&t);
        for i in 0..200 {
            p.push(1, i, 1);
        }
        let mut out = Vec::new();
        p.release(0, 1, usize::MAX, &mut out);
        p.sent(0, out.len());
        out.clear();
        t.set(3); // reset, and three taken in since
        p.release(0, 2, usize::MAX, &mut out);
        assert_eq!(out.len(), WINDOW as usize);
    }

    #[test]
    fn frames_the_port_did_not_take_go_first_next_time() {
        let t = TakenIn::new();
        let mut p = pacer(&t);
        for i in 0..10 {
            p.push(1, i, 1);
        }
        let mut out = Vec::new();
        p.release(0, 1, 4, &mut out);
        assert_eq!(out.len(), 4);
        p.sent(0, 1);
        p.put_back(0, &out[1..]);
        assert_eq!(p.waiting(), 9);
        out.clear();
        p.release(0, 2, 3, &mut out);
        assert_eq!(out, vec![(1, 1), (2, 1), (3, 1)]);
    }

    #[test]
    fn the_reader_may_stop_once_the_engine_dropped_its_count() {
        let t = TakenIn::new();
        let p = pacer(&t);
        assert!(!t.orphaned());
        drop(p);
        assert!(t.orphaned());
    }
}
