//! The host system (paper §7): a NIC model between each host's veth and its
//! ToR, inside the data plane (the native ToR receives every host frame
//! first). It receives the ToR's push-back broadcasts ([`crate::pushback`])
//! and holds every frame towards a paused destination ToR until the pause
//! ends, in host memory (counted as `held`, apart from the ToR's buffer).
//! Frames of one host towards one destination ToR stay in order: once one
//! is held, later ones queue behind it. Held frames leave paced at the
//! host link rate.
//!
//! Flow pausing (§7): with `tor.flow_pausing` the NIC ages flows (bytes
//! per 5-tuple hash, halved every aging interval); a flow past the
//! elephant threshold is paused at its host and only released in slices
//! whose direct circuit from its ToR to the destination ToR is up (the
//! ToR's announcements of upcoming circuits: the NIC reads the ToR's
//! circuit table), inside the usable window. Mice flow on.

use crate::clock::SliceClock;
use crate::counters::Counters;
use crate::pool::{FramePool, FrameQueue};
use crate::wire::PushbackMsg;
use lh_ctrl::TorId;
use lh_ctrl::units::BitsPerSec;

/// How far a NIC's pacing clock may trail (one poll's lateness).
const NIC_SLACK_NS: u64 = 2_000;

/// Flow-aging slots (direct-mapped by flow hash) of the whole fabric.
const FLOW_SLOTS: usize = 1 << 14;

/// Flow pausing (§7): elephant detection by flow aging.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowPausing {
    /// A flow that sent at least this many (aged) bytes is an elephant.
    pub elephant_bytes: u64,
    /// Every this many ns a flow's byte count is halved (ns, > 0).
    pub aging: u64,
}

struct Elephants {
    cfg: FlowPausing,
    /// Per slot: (aged bytes, aging epoch of the count).
    flows: Vec<(u64, u64)>,
    /// `[slice * tors * tors + src * tors + dst]`: a direct circuit is up.
    direct: Vec<bool>,
    dark: u64,
    held: Vec<FrameQueue>,
    active: Vec<u32>,
    is_active: Vec<bool>,
    cursor: usize,
}

pub(crate) struct Nic {
    tors: usize,
    clock: SliceClock,
    /// Per host: its ToR.
    host_tor: Vec<TorId>,
    /// `[host * tors + dst]`: ToR time until which the host must not send
    /// to ToR `dst`.
    pause_until: Vec<u64>,
    /// `[host * tors + dst]`: frames held.
    held: Vec<FrameQueue>,
    /// Keys with held frames (each once).
    active: Vec<u32>,
    is_active: Vec<bool>,
    /// Per host: bytes held, and the limit (host memory).
    host_bytes: Vec<u64>,
    limit: u64,
    /// Per host: when its link is free again (held frames leave paced at
    /// the host link rate, as a NIC sends them).
    next_free: Vec<u64>,
    rate: BitsPerSec,
    cursor: usize,
    eleph: Option<Elephants>,
}

impl Nic {
    pub(crate) fn new(
        host_tor: Vec<TorId>,
        tors: usize,
        clock: SliceClock,
        limit: u64,
        rate: BitsPerSec,
    ) -> Nic {
        let n = host_tor.len() * tors;
        Nic {
            tors,
            clock,
            pause_until: vec![0; n],
            held: vec![FrameQueue::default(); n],
            active: Vec::with_capacity(n),
            is_active: vec![false; n],
            host_bytes: vec![0; host_tor.len()],
            next_free: vec![0; host_tor.len()],
            rate,
            host_tor,
            limit,
            cursor: 0,
            eleph: None,
        }
    }

    /// Turns flow pausing on (`dark`: the ToR's dark time at a slice start).
    pub(crate) fn enable_flow_pausing(
        &mut self,
        cfg: FlowPausing,
        schedule: &lh_ctrl::schedule::Schedule,
        dark: u64,
    ) {
        let n = self.host_tor.len() * self.tors;
        self.eleph = Some(Elephants {
            cfg,
            flows: vec![(0, 0); FLOW_SLOTS],
            direct: direct_circuits(schedule),
            dark,
            held: vec![FrameQueue::default(); n],
            active: Vec::with_capacity(n),
            is_active: vec![false; n],
            cursor: 0,
        });
    }

    /// New circuits (a reconfiguration).
    pub(crate) fn set_circuits(&mut self, schedule: &lh_ctrl::schedule::Schedule) {
        if let Some(e) = self.eleph.as_mut() {
            e.direct = direct_circuits(schedule);
        }
    }

    /// Flow pausing: counts frame `i` (host `h`, towards ToR `dst`, at
    /// ToR time `tnow`) into its flow and holds it if the flow is an
    /// elephant whose direct circuit is not usable now (or if elephants of
    /// this host towards `dst` are already held). True if held.
    pub(crate) fn pause_elephant(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        h: u16,
        dst: TorId,
        i: u32,
        tnow: u64,
    ) -> bool {
        let Some(e) = self.eleph.as_mut() else {
            return false;
        };
        let len = pool.meta(i).wire_len();
        let slot = &mut e.flows[crate::wire::flow_hash(pool.data(i)) as usize % FLOW_SLOTS];
        let epoch = tnow / e.cfg.aging;
        if slot.1 != epoch {
            slot.0 >>= (epoch.saturating_sub(slot.1)).min(63);
            slot.1 = epoch;
        }
        slot.0 += len;
        if slot.0 < e.cfg.elephant_bytes {
            return false;
        }
        c.elephant_frames += 1;
        let k = h as usize * self.tors + dst as usize;
        let src = self.host_tor[h as usize];
        if e.held[k].frames == 0 && circuit_usable(e, &self.clock, self.tors, src, dst, tnow) {
            return false;
        }
        if self.host_bytes[h as usize] + len > self.limit {
            c.hold_overflow += 1;
            return false;
        }
        e.held[k].push(pool, i);
        if !e.is_active[k] {
            e.is_active[k] = true;
            e.active.push(k as u32);
        }
        self.host_bytes[h as usize] += len;
        c.held += 1;
        c.held_bytes += len;
        c.held_total += 1;
        true
    }

    /// The next paused elephant frame whose direct circuit is usable at ToR
    /// time `tnow` (after [`Nic::begin_release`]).
    pub(crate) fn pop_elephant(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        tnow: u64,
    ) -> Option<(u16, u32)> {
        let e = self.eleph.as_mut()?;
        while e.cursor < e.active.len() {
            let k = e.active[e.cursor] as usize;
            if e.held[k].frames == 0 {
                e.is_active[k] = false;
                e.active.swap_remove(e.cursor);
                continue;
            }
            let (h, dst) = (k / self.tors, (k % self.tors) as TorId);
            let src = self.host_tor[h];
            if self.next_free[h] > tnow
                || self.pause_until[k] > tnow
                || !circuit_usable(e, &self.clock, self.tors, src, dst, tnow)
            {
                e.cursor += 1;
                continue;
            }
            let i = e.held[k].pop(pool).expect("non-empty");
            let len = pool.meta(i).wire_len();
            released(
                &mut self.next_free[h],
                &mut self.host_bytes[h],
                self.rate,
                c,
                len,
                tnow,
            );
            return Some((h as u16, i));
        }
        None
    }

    /// A push-back message arrived at ToR `m.sender_tor` at ToR time
    /// `tnow`: broadcast to its hosts. Returns how many hosts it reached.
    pub(crate) fn pushback(&mut self, m: &PushbackMsg, tnow: u64) -> u64 {
        let cur = self.clock.slot(tnow);
        // The low 32 bits of the slot, up to 2^31 slots either side of now.
        let ahead = m.slot.wrapping_sub(cur as u32) as i32 as i64;
        let slot = (cur as i64 + ahead).max(0) as u64;
        let until = self.clock.start_of_slot(slot + 1);
        let mut n = 0;
        for (h, &t) in self.host_tor.iter().enumerate() {
            if t == m.sender_tor {
                let k = h * self.tors + m.dst_tor as usize;
                self.pause_until[k] = self.pause_until[k].max(until);
                n += 1;
            }
        }
        n
    }

    /// Whether host `h`'s frame towards ToR `dst` must wait at ToR time
    /// `tnow` (paused, or earlier frames still held).
    #[inline]
    pub(crate) fn must_hold(&self, h: u16, dst: TorId, tnow: u64) -> bool {
        let k = h as usize * self.tors + dst as usize;
        self.pause_until[k] > tnow || self.held[k].frames > 0
    }

    /// Bytes host `h` can still hold.
    pub(crate) fn room(&self, h: usize) -> u64 {
        self.limit.saturating_sub(self.host_bytes[h])
    }

    /// Holds frame `i`; false (not taken) if the host's memory is full.
    pub(crate) fn hold(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        h: u16,
        dst: TorId,
        i: u32,
    ) -> bool {
        let len = pool.meta(i).wire_len();
        if self.host_bytes[h as usize] + len > self.limit {
            c.hold_overflow += 1;
            return false;
        }
        let k = h as usize * self.tors + dst as usize;
        self.held[k].push(pool, i);
        self.host_bytes[h as usize] += len;
        if !self.is_active[k] {
            self.is_active[k] = true;
            self.active.push(k as u32);
        }
        c.held += 1;
        c.held_bytes += len;
        c.held_total += 1;
        true
    }

    /// Starts a release pass ([`Nic::pop_ready`]).
    pub(crate) fn begin_release(&mut self) {
        self.cursor = 0;
        if let Some(e) = self.eleph.as_mut() {
            e.cursor = 0;
        }
    }

    /// The next held frame whose pause is over at ToR time `tnow`, with its
    /// host.
    pub(crate) fn pop_ready(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        tnow: u64,
    ) -> Option<(u16, u32)> {
        while self.cursor < self.active.len() {
            let k = self.active[self.cursor] as usize;
            if self.held[k].frames == 0 {
                self.is_active[k] = false;
                self.active.swap_remove(self.cursor);
                continue;
            }
            let h = k / self.tors;
            if self.pause_until[k] > tnow || self.next_free[h] > tnow {
                self.cursor += 1;
                continue;
            }
            let i = self.held[k].pop(pool).expect("non-empty");
            let len = pool.meta(i).wire_len();
            released(
                &mut self.next_free[h],
                &mut self.host_bytes[h],
                self.rate,
                c,
                len,
                tnow,
            );
            return Some((h as u16, i));
        }
        None
    }

    /// Frames held per host.
    pub(crate) fn held_bytes(&self, h: usize) -> u64 {
        self.host_bytes[h]
    }
}

/// `[slice * tors * tors + src * tors + dst]`: a direct circuit src→dst.
/// A held frame of `len` bytes leaves its host's NIC at ToR time `tnow`:
/// paced at the host link rate, and no longer host memory.
#[inline]
fn released(
    next_free: &mut u64,
    host_bytes: &mut u64,
    rate: BitsPerSec,
    c: &mut Counters,
    len: u64,
    tnow: u64,
) {
    *next_free = (*next_free).max(tnow.saturating_sub(NIC_SLACK_NS)) + rate.time_for(len).0;
    *host_bytes -= len;
    c.held -= 1;
    c.held_bytes -= len;
}

fn direct_circuits(schedule: &lh_ctrl::schedule::Schedule) -> Vec<bool> {
    use lh_ctrl::schedule::Endpoint;
    let (tors, s) = (schedule.tors(), schedule.slices());
    let mut d = vec![false; s * tors * tors];
    for ts in 0..s {
        for t in 0..tors {
            for p in 0..schedule.uplinks() {
                if schedule.is_electrical(p as lh_ctrl::PortId) {
                    continue;
                }
                let ep = Endpoint::new(t as TorId, p as lh_ctrl::PortId);
                if let Some(peer) = schedule.peer(ts as lh_ctrl::SliceId, ep) {
                    d[ts * tors * tors + t * tors + peer.tor as usize] = true;
                }
            }
        }
    }
    d
}

/// Whether the direct circuit src→dst is up at ToR time `tnow`, past the
/// slice's dark time.
fn circuit_usable(
    e: &Elephants,
    clock: &SliceClock,
    tors: usize,
    src: TorId,
    dst: TorId,
    tnow: u64,
) -> bool {
    let slot = clock.slot(tnow);
    let s = clock.slices.max(1);
    let slice = (slot % s) as usize;
    e.direct[slice * tors * tors + src as usize * tors + dst as usize]
        && tnow >= clock.start_of_slot(slot) + e.dark
}
