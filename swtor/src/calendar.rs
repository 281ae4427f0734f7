//! Calendar queues and queue rotation (paper §6.1): one FIFO per
//! `(ToR, uplink, departure slice)`; in each slice only that slice's queue
//! of an uplink may send, inside the usable window, paced at the link rate.
//! Also the admission test of §6.2 (buffer capacity and what the circuit
//! can still carry in the departure slice), on the ToR's own view of the
//! schedule. Native and external ToRs' uplinks share this module.

use crate::Timing;
use crate::active::ActiveSet;
use crate::capture::Captures;
use crate::circuits::CircuitRuns;
use crate::clock::{SliceClock, offset};
use crate::counters::Counters;
use crate::estimator::{Estimator, Occupancy};
use crate::lookup::Step;
use crate::ocs::Ocs;
use crate::pool::FramePool;
use crate::pool::FrameQueue;
use lh_ctrl::schedule::Schedule;
use lh_ctrl::units::{BitsPerSec, Nanos};
use lh_ctrl::{PortId, SliceId, TorId};

mod bulk;
mod late;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How far a paced link's virtual clock may trail real time, so a late loop
/// iteration can catch up with a short burst instead of losing capacity.
pub const PACE_SLACK_NS: u64 = 200_000;

/// Offloading: how long before it can leave a frame the hosts return
/// reaches the ToR, the paper's "marginally earlier" (§9.3), covering its
/// hosts' RTT variance (0.75 us, Fig. 14).
pub const RETURN_LEAD_NS: u64 = 1_000;

/// Why a calendar queue refused a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Over the queue's byte capacity.
    Full,
    /// The frame fits the buffer but not what the circuit can still carry
    /// in that slice (slice miss); carries the queue it would have gone to.
    Miss(usize),
    /// The uplink does not exist.
    NoPort,
}

pub(crate) struct Calendar {
    clock: SliceClock,
    s: usize,
    rotation: bool,
    tors: usize,
    uplinks: usize,
    dark: u64,
    capacity: u64,
    /// Bytes a ToR's calendar queues share (`u64::MAX`: no shared limit),
    /// and what each ToR's queues hold now (frames offloaded to hosts are
    /// not in the ToR's buffer).
    buffer: u64,
    tor_bytes: Vec<u64>,
    tor_clock_offset: i64,
    /// Per uplink index: its serialisation rate (electrical ports of a
    /// hybrid fabric run at `Timing::electrical_rate`).
    rate: Vec<BitsPerSec>,
    /// Per uplink index: electrical (a hybrid fabric's packet switch). Such
    /// a port is one FIFO that sends at any time: its frames all go to
    /// calendar queue 0 of the uplink, whatever their departure slice,
    /// and are never held for a slice, checked for slice misses or
    /// offloaded.
    elec: Vec<bool>,
    /// `[slice][tor * uplinks + port]`: circuit differs from previous slice
    /// (the ToRs' view of the schedule).
    changed: Vec<bool>,
    /// `[slice][tor * uplinks + port]`: the slices before and after it in
    /// which the uplink's circuit is the same one ([`CircuitRuns`]).
    runs: CircuitRuns,
    /// Per uplink: until when it is dark after a runtime reconfiguration
    /// (compared with the ToR's clock).
    dark_until: Vec<u64>,
    /// `[(tor * uplinks + port) * S + slice]`.
    cal: Vec<FrameQueue>,
    /// Frames queued per uplink over all its calendar queues.
    pending: Vec<u32>,
    /// Frames queued per ToR over all its uplinks.
    tor_pending: Vec<u32>,
    /// The ToRs with frames queued: rotation visits only these.
    active: ActiveSet,
    /// The last slot whose offloaded queue the hosts returned.
    returned_slot: u64,
    /// The slot rotation last scheduled the uplinks for (`u64::MAX`: none,
    /// or a reconfiguration since).
    cur_slot: u64,
    /// Per uplink: the ToR time rotation looks at it next in `cur_slot`
    /// (`u64::MAX`: not before the next slot), and those times in a heap;
    /// an entry whose time is not `due`'s is stale and skipped.
    due: Vec<u64>,
    due_heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// Per uplink: ToR-time when the link is free again (pacing).
    next_free: Vec<u64>,
    /// Per ToR: the last slot whose end was accounted (carried_over).
    last_slot: Vec<u64>,
    /// Slice-miss detection (§6.2); off, only the buffer limit is checked
    /// (paper Table 3, first column).
    detection: bool,
    /// `tor.on_slice_miss: drop`.
    drop_on_miss: bool,
    /// The occupancy estimator (§6.2), when admission uses it.
    est: Option<Estimator>,
    /// Buffer offloading (§7): the ToR keeps this many calendar queues per
    /// uplink (ranks `0..N`); frames for later slices wait at its hosts.
    offload: Option<usize>,
    /// Host-resident calendar queues (indexed like `cal`), and their bytes
    /// count against their slice like the ToR's own.
    off: Vec<FrameQueue>,
    /// Per uplink: bytes put on the link so far (telemetry: `bw_usage`).
    tx_bytes: Vec<u64>,
    /// RotorLB's bulk below each calendar queue (indexed like `cal`; empty
    /// without RotorLB): `calendar::bulk`.
    low: Vec<FrameQueue>,
}

impl Calendar {
    pub(crate) fn new(schedule: &Schedule, timing: &Timing, clock: SliceClock) -> Calendar {
        let (tors, uplinks, s) = (schedule.tors(), schedule.uplinks(), schedule.slices());
        let n = tors * uplinks;
        let (peer, changed) = crate::ocs::circuit_tables(schedule);
        let runs = CircuitRuns::new(&peer, s, n);
        Calendar {
            clock,
            s,
            rotation: s > 1,
            tors,
            uplinks,
            dark: timing.dark().0,
            capacity: timing.model.queue_capacity,
            buffer: timing.model.buffer_capacity,
            tor_bytes: vec![0; tors],
            tor_clock_offset: timing.tor_clock_offset,
            rate: timing.model.port_rates(schedule),
            elec: electrical_ports(schedule),
            changed,
            runs,
            dark_until: vec![0; n],
            cal: vec![FrameQueue::default(); n * s],
            pending: vec![0; n],
            tor_pending: vec![0; tors],
            active: ActiveSet::new(tors),
            returned_slot: u64::MAX,
            cur_slot: u64::MAX,
            due: vec![u64::MAX; n],
            due_heap: BinaryHeap::with_capacity(n),
            next_free: vec![0; n],
            last_slot: vec![u64::MAX; tors],
            detection: true,
            drop_on_miss: false,
            est: None,
            offload: None,
            off: Vec::new(),
            tx_bytes: vec![0; n],
            low: Vec::new(),
        }
    }

    /// Buffer offloading (§7): keep `n` calendar queues per uplink on the
    /// ToR, the rest at the hosts.
    pub(crate) fn set_offload(&mut self, n: Option<usize>) {
        self.offload = n.filter(|&n| n >= 1 && n < self.s);
        if self.offload.is_some() {
            self.off = vec![FrameQueue::default(); self.cal.len()];
        }
    }

    /// Turns slice-miss detection on or off and picks how admission learns
    /// occupancy (exact, or the §6.2 estimator).
    pub(crate) fn set_drop_on_miss(&mut self, on: bool) {
        self.drop_on_miss = on;
    }

    /// A frame that fits no slice is dropped rather than deferred a cycle.
    #[inline]
    pub(crate) fn drop_on_miss(&self) -> bool {
        self.drop_on_miss
    }

    pub(crate) fn set_admission(&mut self, detection: bool, occupancy: Occupancy) {
        self.detection = detection;
        self.est = match occupancy {
            Occupancy::Exact => None,
            Occupancy::Estimated { update_interval } => {
                Some(Estimator::new(update_interval, self.cal.len()))
            }
        };
    }

    /// Whether slice-miss detection is on.
    #[inline]
    pub(crate) fn detection(&self) -> bool {
        self.detection
    }

    /// Applies the estimator's ticks up to ToR time `tnow`.
    pub(crate) fn advance_estimator(&mut self, tnow: u64) {
        let Some(e) = self.est.as_mut() else {
            return;
        };
        let (clock, s, rotation, dark) = (self.clock, self.s, self.rotation, self.dark);
        let (changed, dark_until, rate) = (&self.changed, &self.dark_until, &self.rate);
        let (tors, uplinks) = (self.tors, self.uplinks);
        e.advance(
            tnow,
            clock.epoch,
            clock.slice,
            s,
            tors * uplinks,
            |slot, tu| {
                let start = clock.start_of_slot(slot);
                let sl = (slot % s as u64) as usize;
                let d = if rotation && changed[sl * tors * uplinks + tu] {
                    dark
                } else {
                    0
                };
                ((start + d).max(dark_until[tu]), start + clock.slice)
            },
            |tu| rate[tu % uplinks],
        );
    }

    /// New schedule: uplinks in `moved` are dark from `now` for the dark time.
    pub(crate) fn reconfigure(
        &mut self,
        schedule: &Schedule,
        timing: &Timing,
        moved: &[bool],
        now: u64,
    ) {
        for (tu, &m) in moved.iter().enumerate() {
            if m {
                self.dark_until[tu] = now + self.dark;
            }
        }
        let (peer, changed) = crate::ocs::circuit_tables(schedule);
        self.runs = CircuitRuns::new(&peer, self.s, self.tors * self.uplinks);
        self.changed = changed;
        // Dark times and rates changed: schedule every uplink anew.
        self.cur_slot = u64::MAX;
        self.rate = timing.model.port_rates(schedule);
        self.elec = electrical_ports(schedule);
    }

    /// Bytes per `[uplink][calendar queue]` of a ToR.
    pub(crate) fn queues(&self, tor: TorId) -> Vec<Vec<u64>> {
        if tor as usize >= self.tors {
            return Vec::new();
        }
        (0..self.uplinks)
            .map(|p| {
                let tu = tor as usize * self.uplinks + p;
                (tu * self.s..(tu + 1) * self.s)
                    .map(|q| self.cal[q].bytes + self.low_bytes(q))
                    .collect()
            })
            .collect()
    }

    #[inline]
    fn dark_of(&self, slice: usize, tu: usize) -> u64 {
        if self.changed[slice * self.tors * self.uplinks + tu] {
            self.dark
        } else {
            0
        }
    }

    /// Admission (§6.2): the calendar queue index for `step`, or why the
    /// frame does not fit (byte capacity, or what the circuit can still carry
    /// in the departure slice after the bytes already queued for it).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn admit(
        &self,
        tor: TorId,
        step: Step,
        arrival: SliceId,
        slot: u64,
        tnow: u64,
        len: u64,
    ) -> Result<usize, Refusal> {
        self.admit_above(tor, step, arrival, slot, tnow, len, false)
    }

    /// [`Calendar::admit`]; `bulk`: for RotorLB's queue below (it counts
    /// both), else for the calendar queue (RotorLB's bulk yields to it).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn admit_above(
        &self,
        tor: TorId,
        step: Step,
        arrival: SliceId,
        slot: u64,
        tnow: u64,
        len: u64,
        bulk: bool,
    ) -> Result<usize, Refusal> {
        if step.port as usize >= self.uplinks {
            return Err(Refusal::NoPort);
        }
        let s = self.s as u64;
        let tu = tor as usize * self.uplinks + step.port as usize;
        let elec = self.elec[step.port as usize];
        let d = match step.depart {
            _ if elec => 0,
            None => arrival as u64,
            Some(d) => d as u64 % s,
        };
        let rank = (d + s - arrival as u64) % s;
        let q = tu * self.s + d as usize;
        let off = if self.offload.is_some() {
            self.off[q].bytes
        } else {
            0
        } + if bulk { self.low_bytes(q) } else { 0 };
        // A frame for a queue the hosts hold (offloading) is not in the
        // ToR's buffer until it returns.
        let at_hosts = !elec && self.offload.is_some_and(|n| rank >= n as u64);
        if self.cal[q].bytes + off + len > self.capacity
            || (!at_hosts && self.tor_bytes[tor as usize] + len > self.buffer)
        {
            return Err(Refusal::Full);
        }
        let queued = match &self.est {
            None => self.cal[q].bytes + off,
            Some(e) => e.get(q),
        };
        if self.rotation && self.detection && !elec {
            let start = self.clock.start_of_slot(slot + rank);
            let end = start + self.clock.slice;
            let ws = (start + self.dark_of(d as usize, tu)).max(self.dark_until[tu]);
            let from = if rank == 0 {
                ws.max(tnow).max(self.next_free[tu])
            } else {
                ws
            };
            let avail = self.rate[step.port as usize].bytes_in(Nanos(end.saturating_sub(from)));
            if queued + len > avail {
                return Err(Refusal::Miss(q));
            }
        }
        Ok(q)
    }

    /// The calendar queue of `(tor, port)` for departure slice `depart`, if
    /// its buffer can take `len` more bytes (no slice-miss test: the
    /// admission of an external ToR was done by its own pipeline).
    #[inline]
    pub(crate) fn admit_buffer(
        &self,
        tor: TorId,
        port: PortId,
        depart: SliceId,
        len: u64,
    ) -> Result<usize, Refusal> {
        if port as usize >= self.uplinks || depart as usize >= self.s {
            return Err(Refusal::NoPort);
        }
        let d = if self.elec[port as usize] {
            0
        } else {
            depart as usize
        };
        let q = (tor as usize * self.uplinks + port as usize) * self.s + d;
        // (No shared-buffer test: BMv2 ToRs refuse `tors.buffer_capacity`.)
        if self.cal[q].bytes + len > self.capacity {
            return Err(Refusal::Full);
        }
        Ok(q)
    }

    /// Puts frame `i` into calendar queue `q` (from [`Calendar::admit`]) of
    /// `(tor, port)`, arrived at ToR time `tnow`, towards ToR `dst`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn enqueue(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        tor: TorId,
        dst: TorId,
        port: PortId,
        q: usize,
        i: u32,
        tnow: u64,
    ) {
        stamp(pool, i, dst, tnow);
        if let Some(e) = self.est.as_mut() {
            e.add(q, pool.meta(i).wire_len());
        }
        if let Some(n) = self.offload.filter(|_| !self.elec[port as usize]) {
            let slice = self.clock.slot(tnow) % self.s as u64;
            let rank = ((q % self.s) as u64 + self.s as u64 - slice) % self.s as u64;
            if rank >= n as u64 {
                // Sent down to a host, which returns it in its slice, just
                // before it can leave (`return_offloaded`).
                let len = pool.meta(i).wire_len();
                self.off[q].push(pool, i);
                c.held += 1;
                c.held_bytes += len;
                c.offloaded += 1;
                c.offloaded_bytes += len;
                return;
            }
        }
        self.cal[q].push(pool, i);
        self.queued(pool, c, tor, port, i, tnow);
    }

    /// Frame `i` was put in a queue of `(tor, port)` at ToR time `tnow`:
    /// the ToR's buffer and pending counts, and rotation's schedule.
    #[inline]
    fn queued(
        &mut self,
        pool: &FramePool,
        c: &mut Counters,
        tor: TorId,
        port: PortId,
        i: u32,
        tnow: u64,
    ) {
        let tu = tor as usize * self.uplinks + port as usize;
        self.tor_bytes[tor as usize] += pool.meta(i).wire_len();
        self.pending[tu] += 1;
        self.wake(tor as usize, tnow);
        c.queued += 1;
        let n = self.at_tor(tnow);
        if n.slot == self.cur_slot {
            // Otherwise the next rotation starts a slot and schedules it.
            self.schedule(pool, tu, &n, tnow);
        }
    }

    /// Uplink `tu`'s ToR has one more frame queued (at ToR time `tnow`).
    /// A ToR with nothing queued was not visited by rotation: every slot
    /// before this one ended with its queues empty, so there is nothing
    /// to carry over from them.
    #[inline]
    fn wake(&mut self, tor: usize, tnow: u64) {
        if self.tor_pending[tor] == 0 {
            self.active.insert(tor);
            self.last_slot[tor] = self.clock.slot(tnow);
        }
        self.tor_pending[tor] += 1;
    }

    /// Where engine time `now` is in the ToRs' clock.
    fn at(&self, now: u64) -> Now {
        self.at_tor(offset(now, self.tor_clock_offset))
    }

    /// [`Calendar::at`] of ToR time `tnow`.
    fn at_tor(&self, tnow: u64) -> Now {
        let slot = self.clock.slot(tnow);
        let start = self.clock.start_of_slot(slot);
        Now {
            tnow,
            slot,
            slice: (slot % self.s as u64) as usize,
            start,
            end: start + self.clock.slice,
        }
    }

    /// Queue rotation at true time `now`: in each slice only that slice's
    /// calendar queue of an uplink may send, inside the usable window, paced
    /// at the link rate; what leaves goes to the OCS. Only the uplinks due
    /// by now are visited (and every busy one once a slot).
    pub(crate) fn rotate(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        ocs: &mut Ocs,
        cap: &mut Captures,
        now: u64,
    ) -> bool {
        let n = self.at(now);
        self.advance_estimator(n.tnow);
        if self.offload.is_some() && self.returned_slot != n.slot {
            // The hosts start returning this slice's queues; `send` keeps
            // them coming.
            self.returned_slot = n.slot;
            for tu in 0..self.tors * self.uplinks {
                if !self.elec[tu % self.uplinks] {
                    self.return_offloaded(pool, c, tu, n.slice, n.tnow);
                }
            }
        }
        if self.cur_slot != n.slot {
            self.new_slot(pool, c, &n);
        }
        let mut busy = false;
        while let Some(&Reverse((due, tu))) = self.due_heap.peek() {
            if due > n.tnow {
                break;
            }
            self.due_heap.pop();
            let tu = tu as usize;
            if self.due[tu] != due {
                continue; // superseded by an earlier time
            }
            self.due[tu] = u64::MAX;
            busy |= self.send(pool, c, ocs, cap, tu, &n);
            self.schedule(pool, tu, &n, n.tnow);
        }
        if self.est.is_some() {
            // The estimator's error is sampled on every uplink, busy or not.
            for tu in 0..self.tors * self.uplinks {
                self.sample_estimate(c, tu, n.slice, n.tnow);
            }
        }
        busy
    }

    /// A new slot (or a reconfiguration): frames left in the queues of
    /// slots that ended wait a cycle (`carried_over`), and every uplink
    /// with frames is scheduled anew for this slot's queue.
    fn new_slot(&mut self, pool: &FramePool, c: &mut Counters, n: &Now) {
        self.cur_slot = n.slot;
        self.due_heap.clear();
        let mut next = self.active.next_from(0);
        while let Some(tor) = next {
            next = self.active.next_from(tor + 1);
            let last = self.last_slot[tor];
            if self.rotation && last != n.slot {
                // One slot ended, or several if the thread was descheduled.
                if last != u64::MAX && last < n.slot {
                    for k in last..n.slot.min(last + self.s as u64) {
                        let prev = (k % self.s as u64) as usize;
                        for p in (0..self.uplinks).filter(|&p| !self.elec[p]) {
                            let tu = tor * self.uplinks + p;
                            c.carried_over += self.cal[tu * self.s + prev].frames as u64;
                        }
                    }
                }
                self.last_slot[tor] = n.slot;
            }
            for tu in tor * self.uplinks..(tor + 1) * self.uplinks {
                self.due[tu] = u64::MAX;
                if self.pending[tu] != 0 {
                    self.schedule(pool, tu, n, n.tnow);
                }
            }
        }
    }

    /// When uplink `tu`'s next frame in slot `n` may start, no earlier
    /// than `floor - PACE_SLACK_NS` (the pacing's catch-up), and when it
    /// ends: None if this slot's queue is empty or its head no longer fits
    /// the window.
    #[inline]
    fn head(&self, pool: &FramePool, tu: usize, n: &Now, floor: u64) -> Option<(u32, u64, u64)> {
        let p = tu % self.uplinks;
        let elec = self.elec[p];
        let q = tu * self.s + if elec { 0 } else { n.slice };
        let i = match self.cal[q].peek() {
            Some(i) => i,
            // RotorLB's bulk only when nothing else waits.
            None => self.low.get(q)?.peek()?,
        };
        let ws = (n.start + self.dark_of(n.slice, tu)).max(self.dark_until[tu]);
        let tx = self.next_free[tu]
            .max(floor.saturating_sub(PACE_SLACK_NS))
            .max(ws)
            .max(pool.meta(i).t);
        let done = tx + self.rate[p].time_for(pool.meta(i).wire_len()).0;
        // docs/time-model.md: a frame crosses only if its whole
        // serialisation fits the window, else it waits (an electrical port
        // has no windows).
        (!(self.rotation && !elec && done > n.end)).then_some((i, tx, done))
    }

    /// Uplink `tu` is looked at again when its head may leave (as of ToR
    /// time `floor`); a head that waits for a later slot is the next
    /// slot's business.
    #[inline]
    fn schedule(&mut self, pool: &FramePool, tu: usize, n: &Now, floor: u64) {
        if let Some((_, tx, _)) = self.head(pool, tu, n, floor)
            && tx < self.due[tu]
        {
            self.due[tu] = tx;
            self.due_heap.push(Reverse((tx, tu as u32)));
        }
    }

    /// Uplink `tu` sends what it can of this slot's queue at ToR time
    /// `n.tnow`, paced at its rate; what leaves goes to the OCS.
    fn send(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        ocs: &mut Ocs,
        cap: &mut Captures,
        tu: usize,
        n: &Now,
    ) -> bool {
        let off = self.tor_clock_offset;
        let (tor, p) = (tu / self.uplinks, tu % self.uplinks);
        let mut busy = false;
        while let Some((i, tx, done)) = self.head(pool, tu, n, n.tnow) {
            if tx > n.tnow {
                break;
            }
            let q = tu * self.s + if self.elec[p] { 0 } else { n.slice };
            if self.cal[q].peek() == Some(i) {
                self.cal[q].pop(pool);
            } else {
                self.low[q].pop(pool);
            }
            debug_assert!(self.tor_bytes[tor] >= pool.meta(i).wire_len());
            self.tor_bytes[tor] -= pool.meta(i).wire_len();
            self.pending[tu] -= 1;
            self.tor_pending[tor] -= 1;
            self.next_free[tu] = done;
            self.tx_bytes[tu] += pool.meta(i).wire_len();
            c.uplink_tx += 1;
            if self.offload.is_some() && !self.elec[p] {
                self.return_offloaded(pool, c, tu, n.slice, n.tnow);
            }
            ocs.carry(
                pool,
                c,
                cap,
                tor,
                p,
                i,
                offset(tx, -off),
                offset(done, -off),
            );
            busy = true;
        }
        if self.tor_pending[tor] == 0 {
            self.active.remove(tor);
        }
        busy
    }

    /// The earliest time (engine time) at which [`Calendar::rotate`] can
    /// send a frame, as of `now`; None with every queue empty. A queue of
    /// a later slice wakes the loop at the next slot boundary (early, never
    /// late: a poll that finds nothing to do is harmless).
    pub(crate) fn next_at(&self, now: u64) -> Option<u64> {
        let n = self.at(now);
        let head = self.due_heap.peek().map(|r| r.0.0);
        let boundary = self.active.next_from(0).map(|_| n.end);
        let best = head.into_iter().chain(boundary).min()?;
        Some(offset(best, -self.tor_clock_offset))
    }

    /// Offloading: the hosts return the frames of uplink `tu`'s calendar
    /// queue `d` during its slice, paced, each shortly before it can leave
    /// (paper §9.3: "Packets arriving marginally earlier are buffered on the
    /// ToR consuming minimal memory"): the ToR's queue is topped up to what
    /// the uplink sends in [`RETURN_LEAD_NS`], and to one frame at least.
    /// Frames its slice cannot carry stay at the hosts for the next cycle.
    fn return_offloaded(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        tu: usize,
        d: usize,
        tnow: u64,
    ) {
        let q = tu * self.s + d;
        let lead = self.rate[tu % self.uplinks].bytes_in(Nanos(RETURN_LEAD_NS));
        while self.cal[q].bytes < lead.max(1) {
            let Some(i) = self.off[q].pop(pool) else {
                break;
            };
            let len = pool.meta(i).wire_len();
            c.held -= 1;
            c.held_bytes -= len;
            c.offloaded -= 1;
            c.offloaded_bytes -= len;
            c.offload_returned += 1;
            // Returned whatever the shared buffer holds (the hosts
            // cannot keep it past its slice).
            self.cal[q].push(pool, i);
            self.tor_bytes[tu / self.uplinks] += len;
            self.pending[tu] += 1;
            self.wake(tu / self.uplinks, tnow);
            c.queued += 1;
        }
    }

    /// Telemetry of every uplink of every ToR: `[tor][uplink]`.
    pub(crate) fn usage(&self) -> Vec<Vec<crate::PortUsage>> {
        (0..self.tors)
            .map(|t| {
                (0..self.uplinks)
                    .map(|p| {
                        let tu = t * self.uplinks + p;
                        let r = tu * self.s..(tu + 1) * self.s;
                        crate::PortUsage {
                            buffer_bytes: r
                                .clone()
                                .map(|q| self.cal[q].bytes + self.low_bytes(q))
                                .sum(),
                            offloaded_bytes: if self.offload.is_some() {
                                self.off[r].iter().map(|q| q.bytes).sum()
                            } else {
                                0
                            },
                            tx_bytes: self.tx_bytes[tu],
                            rate_bps: self.rate[p].0,
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// Bytes of every `[uplink][calendar queue]` of a ToR held at its hosts
    /// (offloading).
    pub(crate) fn offloaded(&self, tor: TorId) -> Vec<Vec<u64>> {
        if self.offload.is_none() || tor as usize >= self.tors {
            return Vec::new();
        }
        (0..self.uplinks)
            .map(|p| {
                let tu = tor as usize * self.uplinks + p;
                self.off[tu * self.s..(tu + 1) * self.s]
                    .iter()
                    .map(|q| q.bytes)
                    .collect()
            })
            .collect()
    }

    /// Records the estimator's error on uplink `tu`'s active queue: the
    /// truth is the bytes not yet serialised (queued, plus what is left of
    /// the frame on the wire).
    #[inline]
    fn sample_estimate(&self, c: &mut Counters, tu: usize, slice: usize, tnow: u64) {
        let Some(e) = &self.est else {
            return;
        };
        let q = tu * self.s + slice;
        let on_wire = self.next_free[tu].saturating_sub(tnow);
        let truth = self.cal[q].bytes + self.rate[tu % self.uplinks].bytes_in(Nanos(on_wire));
        let est = e.get(q);
        if truth == 0 && est == 0 {
            return;
        }
        c.estimator_error.record(truth.abs_diff(est));
    }
}

/// Per uplink index: whether it is electrical on `schedule`.
fn electrical_ports(schedule: &Schedule) -> Vec<bool> {
    (0..schedule.uplinks())
        .map(|p| schedule.is_electrical(p as PortId))
        .collect()
}

/// Frame `i`, queued at ToR time `tnow` towards ToR `dst`: it cannot leave
/// before it arrived (pacing may trail real time), and the electrical
/// fabric needs the destination when it leaves.
#[inline]
fn stamp(pool: &mut FramePool, i: u32, dst: TorId, tnow: u64) {
    pool.meta_mut(i).t = tnow;
    let hops = pool.meta(i).tag & 0xff;
    pool.meta_mut(i).tag = hops | ((dst as u32) << 8);
}

/// [`Calendar::at`]: ToR time, its slot and slice, the slot's bounds.
struct Now {
    tnow: u64,
    slot: u64,
    slice: usize,
    start: u64,
    end: u64,
}
