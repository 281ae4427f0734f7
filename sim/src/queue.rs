//! The loop's queue of host events (frames leaving and reaching hosts,
//! timers): ordered by time, then by insertion, so ties resolve the same
//! way every run.
//!
//! Two things keep it small and cheap, neither changing the order:
//! - The heap holds 24-byte keys; the events wait in a slab whose slots
//!   are reused, so a sift moves keys, not frames, and a warm queue
//!   allocates nothing.
//! - Events that come in time order anyway (a host NIC's frames, one after
//!   another) wait in a FIFO lane of their own, and only each lane's first
//!   is in the heap: with TCP windows in flight most events are a NIC's,
//!   so the heap holds about one per host rather than every frame queued.
//!   A lane's events carry their insertion numbers, so the merge gives the
//!   order one heap would.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A heap key's slot with this bit set names a lane, not a slab slot.
const LANE: u32 = 1 << 31;

pub(crate) struct Queue<E> {
    /// (time, insertion number, slot in `slab` or `LANE | lane`).
    heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
    slab: Vec<Option<E>>,
    free: Vec<u32>,
    /// Per lane, its events in order: (time, insertion number, event).
    lanes: Vec<VecDeque<(u64, u64, E)>>,
    seq: u64,
}

impl<E> Default for Queue<E> {
    fn default() -> Self {
        Queue {
            heap: BinaryHeap::new(),
            slab: Vec::new(),
            free: Vec::new(),
            lanes: Vec::new(),
            seq: 0,
        }
    }
}

impl<E> Queue<E> {
    /// Queues `ev` at `at`, after everything already queued at `at`.
    pub(crate) fn push(&mut self, at: u64, ev: E) {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slab[s as usize] = Some(ev);
                s
            }
            None => {
                self.slab.push(Some(ev));
                let s = u32::try_from(self.slab.len() - 1).expect("fewer than 2^31 events wait");
                assert!(s < LANE, "fewer than 2^31 events wait");
                s
            }
        };
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, slot)));
    }

    /// [`Queue::push`] for an event of lane `lane`, whose events come no
    /// earlier than the lane's last.
    pub(crate) fn push_lane(&mut self, lane: usize, at: u64, ev: E) {
        if lane >= self.lanes.len() {
            assert!(lane < LANE as usize, "fewer than 2^31 lanes");
            self.lanes.resize_with(lane + 1, VecDeque::new);
        }
        self.seq += 1;
        let q = &mut self.lanes[lane];
        assert!(
            q.back().is_none_or(|&(last, _, _)| last <= at),
            "a lane's events come in time order"
        );
        if q.is_empty() {
            self.heap.push(Reverse((at, self.seq, LANE | lane as u32)));
        }
        q.push_back((at, self.seq, ev));
    }

    /// The time of the first event.
    pub(crate) fn next_at(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse((at, _, _))| *at)
    }

    /// The first event if it is due by `now`, with its time.
    pub(crate) fn pop_due(&mut self, now: u64) -> Option<(u64, E)> {
        if self.next_at()? > now {
            return None;
        }
        let Reverse((at, _, slot)) = self.heap.pop().expect("peeked");
        if slot & LANE != 0 {
            let q = &mut self.lanes[(slot & !LANE) as usize];
            let (_, _, ev) = q.pop_front().expect("a lane in the heap holds an event");
            if let Some(&(next, seq, _)) = q.front() {
                self.heap.push(Reverse((next, seq, slot)));
            }
            return Some((at, ev));
        }
        self.free.push(slot);
        let ev = self.slab[slot as usize]
            .take()
            .expect("a queued slot holds its event");
        Some((at, ev))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_out_by_time_then_insertion_and_slots_are_reused() {
        let mut q = Queue::default();
        q.push(20, "b");
        q.push(10, "a");
        q.push(20, "c");
        assert_eq!(q.next_at(), Some(10));
        assert_eq!(q.pop_due(9), None);
        assert_eq!(q.pop_due(10), Some((10, "a")));
        q.push(20, "d");
        assert_eq!(q.slab.len(), 3, "the freed slot is reused");
        let out: Vec<_> = std::iter::from_fn(|| q.pop_due(100)).collect();
        assert_eq!(out, [(20, "b"), (20, "c"), (20, "d")]);
        assert_eq!(q.next_at(), None);
    }

    #[test]
    fn lanes_merge_in_the_order_one_heap_gives() {
        // The same pushes into lanes and into the heap alone come out the
        // same: by time, ties by insertion, across lanes and the heap.
        let pushes = [
            (Some(0), 10, 1),
            (None, 10, 2),
            (Some(1), 5, 3),
            (Some(0), 10, 4),
            (Some(1), 12, 5),
            (None, 12, 6),
            (Some(0), 30, 7),
            (None, 7, 8),
        ];
        let mut lanes = Queue::default();
        let mut one = Queue::default();
        for &(lane, at, ev) in &pushes {
            match lane {
                Some(l) => lanes.push_lane(l, at, ev),
                None => lanes.push(at, ev),
            }
            one.push(at, ev);
        }
        let a: Vec<_> = std::iter::from_fn(|| lanes.pop_due(u64::MAX)).collect();
        let b: Vec<_> = std::iter::from_fn(|| one.pop_due(u64::MAX)).collect();
        assert_eq!(a, b);
        assert_eq!(
            a.iter().map(|p| p.1).collect::<Vec<_>>(),
            [3, 8, 1, 2, 4, 5, 6, 7]
        );
        assert_eq!(lanes.heap.len(), 0);
    }

    #[test]
    #[should_panic(expected = "time order")]
    fn a_lane_refuses_an_event_earlier_than_its_last() {
        let mut q = Queue::default();
        q.push_lane(0, 10, ());
        q.push_lane(0, 9, ());
    }
}
