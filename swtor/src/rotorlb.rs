//! RotorLB (RotorNet, SIGCOMM'17 §4.2; Opera, NSDI'20 §3.4): how Opera's
//! ToRs send bulk (config `routing.bulk: rotorlb`).
//!
//! Each ToR keeps its bulk frames in a queue per destination ToR: `local`
//! for its own hosts' frames, `relay` for frames another ToR sent it to
//! pass on (second hop). At the start of every slot, each uplink whose
//! circuit is up gives its capacity in the slot, after what the calendar
//! already holds for it (low-latency traffic goes first), to, in order:
//!
//! 1. relayed frames for the peer (they have waited a hop already);
//! 2. local frames for the peer (direct, one hop);
//! 3. local frames for another ToR `k`, sent to the peer to relay, as far
//!    as the peer has room for `k`: what its direct circuits to `k` carry
//!    in one cycle, less what it already holds for `k` (local, relayed and
//!    on its way). A frame is relayed at most once.
//!
//! RotorNet's ToRs learn each other's queue sizes by exchanging them at
//! each matching; every native ToR runs in one engine here, so the offer
//! reads the peer's counts directly (the exchange's result, without its
//! message delay, as the Opera authors' simulator computes it centrally).
//!
//! Between slot starts a bulk frame whose queue is empty leaves at once if
//! a circuit to its destination is up now and can carry it in this slot.
//! Frames in the queues count as `queued`; RotorLB never drops.

use crate::calendar::Calendar;
use crate::counters::Counters;
use crate::lookup::Step;
use crate::pool::{FramePool, FrameQueue};
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::units::Nanos;
use lh_ctrl::{PortId, SliceId, TorId};

/// No circuit (or an electrical port) on an uplink in a slice.
const NO_PEER: u32 = u32::MAX;

pub(crate) struct RotorLb {
    tors: usize,
    uplinks: usize,
    s: usize,
    /// `[slice * tors * uplinks + tor * uplinks + port]`: the peer ToR.
    peer: Vec<u32>,
    /// `[src * tors + dst]`: bytes `src`'s direct circuits to `dst` carry
    /// in one cycle.
    cycle_cap: Vec<u64>,
    /// `[tor * tors + dst]`: bulk from `tor`'s hosts.
    local: Vec<FrameQueue>,
    /// `[tor * tors + dst]`: bulk `tor` relays to `dst`.
    relay: Vec<FrameQueue>,
    /// `[relay * tors + dst]`: bytes sent to `relay` for `dst` that have
    /// not reached it yet.
    inflight: Vec<u64>,
    /// Per ToR: destinations whose `local` queue may hold frames (a queue
    /// found empty is removed when visited).
    dsts: Vec<Vec<TorId>>,
    /// Frames held per ToR (both kinds).
    held: Vec<u32>,
    /// Frames held in all.
    total: u64,
    /// The last slot dispatched.
    slot: u64,
}

impl RotorLb {
    pub(crate) fn new(schedule: &Schedule, timing: &crate::Timing) -> RotorLb {
        let n = schedule.tors();
        let mut r = RotorLb {
            tors: n,
            uplinks: schedule.uplinks(),
            s: schedule.slices(),
            peer: Vec::new(),
            cycle_cap: Vec::new(),
            local: vec![FrameQueue::default(); n * n],
            relay: vec![FrameQueue::default(); n * n],
            inflight: vec![0; n * n],
            dsts: vec![Vec::new(); n],
            held: vec![0; n],
            total: 0,
            slot: u64::MAX,
        };
        r.set_schedule(schedule, timing);
        r
    }

    /// The circuits of a new schedule (same shape); queued frames stay.
    pub(crate) fn set_schedule(&mut self, schedule: &Schedule, timing: &crate::Timing) {
        let (n, u, s) = (self.tors, self.uplinks, self.s);
        let rates = timing.model.port_rates(schedule);
        let slice = timing.model.slice.0;
        let dark = timing.dark().0;
        self.peer = vec![NO_PEER; s * n * u];
        self.cycle_cap = vec![0; n * n];
        for ts in 0..s {
            for t in 0..n {
                for (p, rate) in rates.iter().enumerate() {
                    if schedule.is_electrical(p as PortId) {
                        continue;
                    }
                    let ep = Endpoint::new(t as TorId, p as PortId);
                    let Some(e) = schedule.peer(ts as SliceId, ep) else {
                        continue;
                    };
                    self.peer[(ts * n + t) * u + p] = e.tor as u32;
                    let window = if schedule.changed(ts as SliceId, ep) {
                        slice.saturating_sub(dark)
                    } else {
                        slice
                    };
                    self.cycle_cap[t * n + e.tor as usize] += rate.bytes_in(Nanos(window));
                }
            }
        }
    }

    /// Frames held in the queues.
    pub(crate) fn held(&self) -> u64 {
        self.total
    }

    /// Bytes ToR `tor` holds of its own hosts' bulk for ToR `dst`.
    pub(crate) fn backlog(&self, tor: TorId, dst: TorId) -> u64 {
        self.local[tor as usize * self.tors + dst as usize].bytes
    }

    #[inline]
    fn peer_of(&self, slice: usize, tor: usize, p: usize) -> Option<usize> {
        let v = self.peer[(slice * self.tors + tor) * self.uplinks + p];
        (v != NO_PEER).then_some(v as usize)
    }

    /// Bulk frame `i` at ToR `tor` towards ToR `dst` (not `tor`), from a
    /// host, or from the fabric (`relayed`: a first hop's end) at ToR time
    /// `tnow` in `slot`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn take(
        &mut self,
        cal: &mut Calendar,
        pool: &mut FramePool,
        c: &mut Counters,
        tor: TorId,
        dst: TorId,
        relayed: bool,
        i: u32,
        slot: u64,
        tnow: u64,
    ) {
        let (t, d) = (tor as usize, dst as usize);
        let len = pool.meta(i).wire_len();
        let k = t * self.tors + d;
        if relayed {
            self.inflight[k] = self.inflight[k].saturating_sub(len);
        }
        let waiting = if relayed {
            &self.relay[k]
        } else {
            &self.local[k]
        };
        // Behind frames already waiting for `dst` it would jump the queue.
        if waiting.is_empty() && self.direct_now(cal, pool, c, tor, dst, i, slot, tnow) {
            return;
        }
        if relayed {
            self.relay[k].push(pool, i);
        } else {
            if self.local[k].is_empty() && !self.dsts[t].contains(&dst) {
                self.dsts[t].push(dst);
            }
            self.local[k].push(pool, i);
        }
        self.held[t] += 1;
        self.total += 1;
        c.queued += 1;
    }

    /// Frame `i` onto an uplink of `tor` whose circuit goes to `dst` in
    /// `slot`, if one can still carry it in the slot.
    #[allow(clippy::too_many_arguments)]
    fn direct_now(
        &self,
        cal: &mut Calendar,
        pool: &mut FramePool,
        c: &mut Counters,
        tor: TorId,
        dst: TorId,
        i: u32,
        slot: u64,
        tnow: u64,
    ) -> bool {
        let slice = (slot % self.s as u64) as usize;
        let len = pool.meta(i).wire_len();
        for p in 0..self.uplinks {
            if self.peer_of(slice, tor as usize, p) != Some(dst as usize) {
                continue;
            }
            let step = Step {
                port: p as PortId,
                depart: None,
            };
            if let Ok(q) = cal.admit(tor, step, slice as SliceId, slot, tnow, len) {
                c.bulk_direct += 1;
                cal.enqueue(pool, c, tor, dst, p as PortId, q, i, tnow);
                return true;
            }
        }
        false
    }

    /// The start of a slot (ToR time `tnow` in `slot`): each up circuit
    /// takes what it can carry in the slot, relayed frames first, then
    /// direct ones, then indirect ones. Once per slot.
    pub(crate) fn dispatch(
        &mut self,
        cal: &mut Calendar,
        pool: &mut FramePool,
        c: &mut Counters,
        slot: u64,
        tnow: u64,
    ) {
        if self.slot == slot {
            return;
        }
        self.slot = slot;
        if self.total == 0 {
            return;
        }
        let (n, s) = (self.tors, self.s);
        let slice = (slot % s as u64) as usize;
        // A different ToR and destination go first each slot, so that no
        // one always takes a relay's room.
        let first = (slot % n as u64) as usize;
        for t in (0..n).map(|x| (x + first) % n) {
            if self.held[t] == 0 {
                continue;
            }
            for p in 0..self.uplinks {
                let Some(peer) = self.peer_of(slice, t, p) else {
                    continue;
                };
                let k = t * n + peer;
                let open = self.drain(cal, pool, c, t, p, Queue::Relay(k), slot, tnow, u64::MAX)
                    && self.drain(cal, pool, c, t, p, Queue::Local(k), slot, tnow, u64::MAX);
                if !open {
                    continue;
                }
                // Indirect: this ToR's bulk for others, within the peer's room.
                let m = self.dsts[t].len();
                for j in 0..m {
                    let dst = self.dsts[t][(j + slot as usize) % m] as usize;
                    if dst == peer || self.local[t * n + dst].is_empty() {
                        continue;
                    }
                    let pk = peer * n + dst;
                    let has = self.local[pk].bytes + self.relay[pk].bytes + self.inflight[pk];
                    let room = self.cycle_cap[pk].saturating_sub(has);
                    if room == 0 {
                        continue;
                    }
                    let q = Queue::Indirect(t * n + dst, pk);
                    if !self.drain(cal, pool, c, t, p, q, slot, tnow, room) {
                        break;
                    }
                }
            }
            let local = &self.local;
            self.dsts[t].retain(|&d| !local[t * n + d as usize].is_empty());
        }
    }

    /// Moves frames from `q` to uplink `p` of ToR `t` while the circuit
    /// can carry them in `slot` (and, relaying, within `room` bytes).
    /// False once the uplink is full.
    #[allow(clippy::too_many_arguments)]
    fn drain(
        &mut self,
        cal: &mut Calendar,
        pool: &mut FramePool,
        c: &mut Counters,
        t: usize,
        p: usize,
        q: Queue,
        slot: u64,
        tnow: u64,
        mut room: u64,
    ) -> bool {
        let slice = (slot % self.s as u64) as SliceId;
        let step = Step {
            port: p as PortId,
            depart: None,
        };
        let (k, dst) = match q {
            Queue::Relay(k) | Queue::Local(k) | Queue::Indirect(k, _) => (k, k % self.tors),
        };
        loop {
            let from = match q {
                Queue::Relay(_) => &mut self.relay[k],
                _ => &mut self.local[k],
            };
            let Some(i) = from.peek() else {
                return true;
            };
            let len = pool.meta(i).wire_len();
            if len > room {
                return true;
            }
            let Ok(cq) = cal.admit(t as TorId, step, slice, slot, tnow, len) else {
                return false;
            };
            from.pop(pool);
            self.held[t] -= 1;
            self.total -= 1;
            c.queued -= 1;
            room -= len;
            match q {
                Queue::Indirect(_, pk) => {
                    self.inflight[pk] += len;
                    c.bulk_indirect += 1;
                }
                _ => c.bulk_direct += 1,
            }
            cal.enqueue(pool, c, t as TorId, dst as TorId, p as PortId, cq, i, tnow);
        }
    }
}

/// Which queue [`RotorLb::drain`] takes from (indices `tor * tors + dst`).
#[derive(Clone, Copy)]
enum Queue {
    Relay(usize),
    Local(usize),
    /// A local queue sent to a relay: (local queue, relay's `[relay *
    /// tors + dst]`).
    Indirect(usize, usize),
}
