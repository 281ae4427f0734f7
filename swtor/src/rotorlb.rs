//! RotorLB (RotorNet, SIGCOMM'17 §4.2; Opera, NSDI'20 §3.4): how Opera's
//! ToRs send bulk (config `routing.bulk: rotorlb`).
//!
//! Each ToR keeps its bulk frames in a queue per destination host: `local`
//! for its own hosts' frames, `relay` for frames another ToR sent it to
//! pass on (second hop). At the start of every slot, each uplink whose
//! circuit is up gives its capacity in the slot, after what the calendar
//! already holds for it (low-latency traffic goes first), to, in order:
//!
//! 1. relayed frames for the peer's hosts (they have waited a hop already);
//! 2. local frames for the peer's hosts (direct, one hop);
//! 3. local frames for the hosts of another ToR `k`, sent to the peer to
//!    relay, as far as the peer has room for `k`: what its direct circuits
//!    to `k` carry in one cycle, less what it already holds for `k`
//!    (local, relayed and on its way). A frame is relayed at most once.
//!
//! A destination host takes at most what its link carries in a slot from
//! all direct hops of the slot together, less the bulk its port still
//! holds (the receiver's share, as the Opera authors' RotorLB limits each
//! receiving host to its link rate and a ToR accepts only what it has room
//! for): without it six circuits could pour 60 Gb/s into one 10 Gb/s host
//! port.
//! Queues per host, not per ToR, so that a host whose share is spent does
//! not block its neighbours' frames.
//!
//! RotorNet's ToRs learn each other's queue sizes by exchanging them at
//! each matching; every native ToR runs in one engine here, so the offer
//! reads the peer's counts directly (the exchange's result without its
//! message delay, as the Opera authors' simulator computes it centrally).
//!
//! Between slot starts a bulk frame whose queue is empty leaves at once if
//! a circuit to its destination is up now and can carry it in this slot.
//! Frames in the queues count as `queued`; RotorLB never drops.

use crate::calendar::Calendar;
use crate::counters::Counters;
use crate::host::Hosts;
use crate::pool::{Bulk, FramePool, FrameQueue};
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
    /// Per ToR: its hosts (indices of the engine's hosts).
    hosts_of: Vec<Vec<u16>>,
    /// Per host: its ToR.
    host_tor: Vec<TorId>,
    /// Bytes a host link carries in one slot.
    host_slot_bytes: u64,
    /// Per host: what direct hops sent it in the current slot.
    rx: Vec<u64>,
    /// `[tor][host]`: bulk from `tor`'s hosts (empty until `tor` has some).
    local: Vec<Vec<FrameQueue>>,
    /// `[tor][host]`: bulk `tor` relays (empty until it relays some).
    relay: Vec<Vec<FrameQueue>>,
    /// `[tor * tors + dst]`: bytes `tor` holds for `dst`'s hosts, local and
    /// relayed.
    holds: Vec<u64>,
    /// `[relay * tors + dst]`: bytes sent to `relay` for `dst`'s hosts
    /// that have not reached it yet.
    inflight: Vec<u64>,
    /// Per ToR: ToRs whose hosts it may hold local frames for (one found
    /// with none is removed when visited).
    dsts: Vec<Vec<TorId>>,
    /// Frames held per ToR (both kinds).
    held: Vec<u32>,
    /// Frames held in all.
    total: u64,
    /// The last slot dispatched.
    slot: u64,
    /// The slot `rx` counts.
    rx_slot: u64,
    /// Uplinks (`tor * uplinks + port`) given bulk, with the slot, and per
    /// uplink the last slot it was listed for.
    used: Vec<(u32, u64)>,
    used_in: Vec<u64>,
    /// Frames a slot left, grouped by queue on their way back (reused).
    back: Vec<(bool, u16, FrameQueue)>,
}

impl RotorLb {
    /// `host_tor`: each host's ToR (the engine's host indices).
    pub(crate) fn new(
        schedule: &Schedule,
        timing: &crate::Timing,
        host_tor: Vec<TorId>,
    ) -> RotorLb {
        let n = schedule.tors();
        let mut hosts_of = vec![Vec::new(); n];
        for (h, &t) in host_tor.iter().enumerate() {
            if (t as usize) < n {
                hosts_of[t as usize].push(h as u16);
            }
        }
        let mut r = RotorLb {
            tors: n,
            uplinks: schedule.uplinks(),
            s: schedule.slices(),
            peer: Vec::new(),
            cycle_cap: Vec::new(),
            hosts_of,
            rx: vec![0; host_tor.len()],
            host_tor,
            host_slot_bytes: timing.model.host_rate.bytes_in(timing.model.slice),
            local: vec![Vec::new(); n],
            relay: vec![Vec::new(); n],
            holds: vec![0; n * n],
            inflight: vec![0; n * n],
            dsts: vec![Vec::new(); n],
            held: vec![0; n],
            total: 0,
            slot: u64::MAX,
            rx_slot: u64::MAX,
            used: Vec::new(),
            used_in: vec![u64::MAX; n * schedule.uplinks()],
            back: Vec::new(),
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

    /// Bytes ToR `tor` holds of its own hosts' bulk for host `h`.
    pub(crate) fn backlog(&self, tor: TorId, h: u16) -> u64 {
        self.local
            .get(tor as usize)
            .and_then(|q| q.get(h as usize))
            .map_or(0, |q| q.bytes)
    }

    /// The hosts' shares start anew in each slot, less what each host's
    /// port still holds of bulk: a ToR accepts bulk for a host only as far
    /// as the host's queue has room (RotorLB's accepts; without this the
    /// port, where bulk waits below other frames, overflows and RotorLB's
    /// bulk is never sent again).
    fn new_shares(&mut self, slot: u64, hosts: &Hosts) {
        if self.rx_slot != slot {
            self.rx_slot = slot;
            for (h, b) in self.rx.iter_mut().enumerate() {
                *b = hosts.bulk_bytes(h as u16);
            }
        }
    }

    #[inline]
    fn peer_of(&self, slice: usize, tor: usize, p: usize) -> Option<usize> {
        let v = self.peer[(slice * self.tors + tor) * self.uplinks + p];
        (v != NO_PEER).then_some(v as usize)
    }

    fn queue(&mut self, relayed: bool, t: usize, h: u16) -> &mut FrameQueue {
        let hosts = self.host_tor.len();
        let v = if relayed {
            &mut self.relay[t]
        } else {
            &mut self.local[t]
        };
        if v.is_empty() {
            v.resize(hosts, FrameQueue::default());
        }
        &mut v[h as usize]
    }

    fn is_waiting(&self, relayed: bool, t: usize, h: u16) -> bool {
        let v = if relayed {
            &self.relay[t]
        } else {
            &self.local[t]
        };
        v.get(h as usize).is_some_and(|q| !q.is_empty())
    }

    /// Bulk frame `i` at ToR `tor` towards host `h` (of another ToR), from
    /// one of `tor`'s hosts, or from the fabric (`relayed`: a first hop's
    /// end) at ToR time `tnow` in `slot`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn take(
        &mut self,
        cal: &mut Calendar,
        pool: &mut FramePool,
        c: &mut Counters,
        hosts: &Hosts,
        tor: TorId,
        h: u16,
        relayed: bool,
        i: u32,
        slot: u64,
        tnow: u64,
    ) {
        let t = tor as usize;
        let dst = self.host_tor[h as usize] as usize;
        let len = pool.meta(i).wire_len();
        pool.meta_mut(i).bulk = Some(Bulk { host: h, relayed });
        if relayed {
            let k = t * self.tors + dst;
            self.inflight[k] = self.inflight[k].saturating_sub(len);
        }
        self.new_shares(slot, hosts);
        // Behind frames already waiting for `h` it would jump the queue.
        if !self.is_waiting(relayed, t, h) && self.direct_now(cal, pool, c, tor, h, i, slot, tnow) {
            return;
        }
        if !relayed && !self.dsts[t].contains(&(dst as TorId)) {
            self.dsts[t].push(dst as TorId);
        }
        self.queue(relayed, t, h).push(pool, i);
        self.holds[t * self.tors + dst] += len;
        self.held[t] += 1;
        self.total += 1;
        c.queued += 1;
    }

    /// Frame `i` onto an uplink of `tor` whose circuit goes to host `h`'s
    /// ToR in `slot`, if one can still carry it in the slot and `h` has a
    /// share left.
    #[allow(clippy::too_many_arguments)]
    fn direct_now(
        &mut self,
        cal: &mut Calendar,
        pool: &mut FramePool,
        c: &mut Counters,
        tor: TorId,
        h: u16,
        i: u32,
        slot: u64,
        tnow: u64,
    ) -> bool {
        let slice = (slot % self.s as u64) as usize;
        let len = pool.meta(i).wire_len();
        let dst = self.host_tor[h as usize];
        if self.rx[h as usize] != 0 && self.rx[h as usize] + len > self.host_slot_bytes {
            return false;
        }
        for p in 0..self.uplinks {
            if self.peer_of(slice, tor as usize, p) != Some(dst as usize) {
                continue;
            }
            if let Ok(q) = cal.admit_bulk(tor, p as PortId, slice as SliceId, slot, tnow, len) {
                self.rx[h as usize] += len;
                c.bulk_direct += 1;
                self.mark_used(tor as usize * self.uplinks + p, slot);
                cal.enqueue_bulk(pool, c, tor, dst, p as PortId, q, i, tnow);
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
        hosts: &Hosts,
        slot: u64,
        tnow: u64,
    ) {
        if self.slot == slot {
            return;
        }
        self.reclaim(cal, pool, c, slot);
        self.slot = slot;
        self.new_shares(slot, hosts);
        if self.total == 0 {
            return;
        }
        let (n, s) = (self.tors, self.s);
        let slice = (slot % s as u64) as usize;
        // A different ToR and destination go first each slot, so that no
        // one always takes a relay's room or a host's share.
        let first = (slot % n as u64) as usize;
        for t in (0..n).map(|x| (x + first) % n) {
            if self.held[t] == 0 {
                continue;
            }
            for p in 0..self.uplinks {
                let Some(peer) = self.peer_of(slice, t, p) else {
                    continue;
                };
                let mut open = true;
                for relayed in [true, false] {
                    for j in 0..self.hosts_of[peer].len() {
                        let h = self.hosts_of[peer][j];
                        open = open && self.drain(cal, pool, c, t, p, relayed, h, None, slot, tnow);
                    }
                }
                if !open {
                    continue;
                }
                // Indirect: this ToR's bulk for others, within the peer's room.
                let m = self.dsts[t].len();
                'dsts: for j in 0..m {
                    let dst = self.dsts[t][(j + slot as usize) % m] as usize;
                    if dst == peer {
                        continue;
                    }
                    for x in 0..self.hosts_of[dst].len() {
                        let h = self.hosts_of[dst][x];
                        let via = Some(peer * n + dst);
                        if !self.drain(cal, pool, c, t, p, false, h, via, slot, tnow) {
                            break 'dsts;
                        }
                    }
                }
            }
            let holds = &self.holds;
            self.dsts[t].retain(|&d| holds[t * n + d as usize] > 0);
        }
    }

    fn mark_used(&mut self, tu: usize, slot: u64) {
        if self.used_in[tu] != slot {
            self.used_in[tu] = slot;
            self.used.push((tu as u32, slot));
        }
    }

    /// What the uplinks given bulk in the last slot did not send comes back
    /// to the front of its queues, to be offered again (the Opera authors'
    /// RotorLB returns a slot's unsent commitment to its queues too).
    /// Uplinks given bulk in `now` (frames that arrived before this slot's
    /// dispatch) keep it.
    fn reclaim(&mut self, cal: &mut Calendar, pool: &mut FramePool, c: &mut Counters, now: u64) {
        let n = self.tors;
        let mut used = std::mem::take(&mut self.used);
        for &(tu, slot) in &used {
            if slot == now {
                self.used.push((tu, slot));
                continue;
            }
            let slice = (slot % self.s as u64) as usize;
            let (t, p) = (tu as usize / self.uplinks, tu as usize % self.uplinks);
            let mut fq = cal.take_bulk(t as TorId, p as PortId, slice as SliceId);
            if fq.is_empty() {
                continue;
            }
            let peer = self.peer_of(slice, t, p);
            while let Some(i) = fq.pop(pool) {
                let len = pool.meta(i).wire_len();
                let b = pool.meta(i).bulk.expect("a bulk frame");
                let dst = self.host_tor[b.host as usize] as usize;
                if peer.is_some_and(|x| x != dst) {
                    let pk = peer.unwrap_or(0) * n + dst;
                    self.inflight[pk] = self.inflight[pk].saturating_sub(len);
                    c.bulk_indirect -= 1;
                } else {
                    c.bulk_direct -= 1;
                }
                self.holds[t * n + dst] += len;
                self.held[t] += 1;
                self.total += 1;
                if !b.relayed && !self.dsts[t].contains(&(dst as TorId)) {
                    self.dsts[t].push(dst as TorId);
                }
                match self
                    .back
                    .iter_mut()
                    .find(|(r, h, _)| *r == b.relayed && *h == b.host)
                {
                    Some((_, _, q)) => q.push(pool, i),
                    None => {
                        let mut q = FrameQueue::default();
                        q.push(pool, i);
                        self.back.push((b.relayed, b.host, q));
                    }
                }
            }
            while let Some((relayed, h, q)) = self.back.pop() {
                self.queue(relayed, t, h).prepend(pool, q);
            }
        }
        // Keep the allocation for the next slot.
        used.clear();
        used.append(&mut self.used);
        self.used = used;
    }

    /// Moves frames for host `h` from ToR `t`'s queue (`relayed` or local)
    /// to its uplink `p` while the circuit can carry them in `slot`: to
    /// `h`'s ToR within `h`'s share, or (`via`: the relay's index
    /// `relay * tors + dst`) to the relay within its room. False once the
    /// uplink is full.
    #[allow(clippy::too_many_arguments)]
    fn drain(
        &mut self,
        cal: &mut Calendar,
        pool: &mut FramePool,
        c: &mut Counters,
        t: usize,
        p: usize,
        relayed: bool,
        h: u16,
        via: Option<usize>,
        slot: u64,
        tnow: u64,
    ) -> bool {
        if !self.is_waiting(relayed, t, h) {
            return true;
        }
        let n = self.tors;
        let slice = (slot % self.s as u64) as SliceId;
        let dst = self.host_tor[h as usize] as usize;
        loop {
            let Some(i) = self.queue(relayed, t, h).peek() else {
                return true;
            };
            let len = pool.meta(i).wire_len();
            let fits = match via {
                Some(pk) => {
                    let has = self.holds[pk] + self.inflight[pk];
                    has + len <= self.cycle_cap[pk]
                }
                // At least a frame a slot, however short the slot.
                None => {
                    self.rx[h as usize] == 0 || self.rx[h as usize] + len <= self.host_slot_bytes
                }
            };
            if !fits {
                return true;
            }
            let Ok(cq) = cal.admit_bulk(t as TorId, p as PortId, slice, slot, tnow, len) else {
                return false;
            };
            self.mark_used(t * self.uplinks + p, slot);
            self.queue(relayed, t, h).pop(pool);
            self.holds[t * n + dst] -= len;
            self.held[t] -= 1;
            self.total -= 1;
            c.queued -= 1;
            match via {
                Some(pk) => {
                    self.inflight[pk] += len;
                    c.bulk_indirect += 1;
                }
                None => {
                    self.rx[h as usize] += len;
                    c.bulk_direct += 1;
                }
            }
            cal.enqueue_bulk(pool, c, t as TorId, dst as TorId, p as PortId, cq, i, tnow);
        }
    }
}
