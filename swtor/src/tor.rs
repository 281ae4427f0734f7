//! The native ToR pipeline (paper §4, §6.2, §6.3): for a frame from a host
//! or delivered by the OCS, local delivery or the time-flow table lookup
//! (arrival slice, ingress, UCMP class, multipath bucket), admission to a
//! calendar queue with slice-miss detection, and recirculation-free choice
//! among the entry's alternates; source-route push/pop.

use crate::calendar::{Calendar, Refusal};
use crate::clock::{SliceClock, offset};
use crate::counters::{Counters, DelayHist, DropReason};
use crate::host::Hosts;
use crate::lookup::{LookupIndex, Step};
use crate::pool::FramePool;
use crate::pushback::Pushback;
use crate::rotorlb::RotorLb;
use crate::wire;
use lh_ctrl::config::Multipath;
use lh_ctrl::tables::FlatTables;
use lh_ctrl::{SliceId, TorId};

/// Frames may cross at most this many ToRs (guards against table loops).
pub const MAX_HOPS: u8 = 16;
/// Alternates are taken only by frames that crossed at most this many ToRs.
pub const REROUTE_HOPS: u32 = MAX_HOPS as u32 / 2;
/// Flow byte counters for UCMP classes (direct-mapped by flow hash).
const FLOW_SLOTS: usize = 1 << 16;

/// The forwarding state of every native ToR.
pub(crate) struct Pipeline {
    ix: LookupIndex,
    clock: SliceClock,
    s: usize,
    tor_clock_offset: i64,
    multipath: Multipath,
    thresholds: Vec<u64>,
    pkt_seq: Vec<u32>,
    flow_bytes: Vec<u64>,
    /// `[src * tors + dst]`: bytes hosts of ToR `src` sent towards ToR
    /// `dst` (the live traffic matrix of TA updates, §8).
    tm: Vec<u64>,
    tors: usize,
    /// RotorLB for the bulk class (`routing.bulk: rotorlb`), when on.
    pub(crate) rlb: Option<RotorLb>,
}

/// Everything a frame at a ToR may touch besides the pipeline itself.
pub(crate) struct Ctx<'a> {
    pub pool: &'a mut FramePool,
    pub c: &'a mut Counters,
    pub hosts: &'a mut Hosts,
    pub cal: &'a mut Calendar,
    /// Traffic push-back (§7), when enabled.
    pub pb: &'a mut Option<Pushback>,
    /// Fabric delay (host to ToR to host) of delivered frames.
    pub delay: &'a mut DelayHist,
}

impl<'a> Ctx<'a> {
    #[inline]
    fn drop_frame(&mut self, i: u32, r: DropReason) {
        self.c.drop_one(r);
        self.pool.release(i);
    }
}

impl Pipeline {
    pub(crate) fn new(
        tables: &std::sync::Arc<FlatTables>,
        tors: usize,
        clock: SliceClock,
        slices: usize,
        tor_clock_offset: i64,
    ) -> Result<Pipeline, crate::FabricError> {
        let mut p = Pipeline {
            ix: LookupIndex::build(tables.clone(), tors)?,
            clock,
            s: slices,
            tor_clock_offset,
            multipath: tables.multipath,
            thresholds: Vec::new(),
            pkt_seq: vec![0; tors],
            flow_bytes: Vec::new(),
            tm: vec![0; tors * tors],
            tors,
            rlb: None,
        };
        p.set_classes(tables);
        Ok(p)
    }

    fn set_classes(&mut self, tables: &FlatTables) {
        self.thresholds = tables
            .classes
            .as_ref()
            .map(|c| c.thresholds.clone())
            .unwrap_or_default();
        if self.thresholds.len() > 1 && self.flow_bytes.is_empty() {
            self.flow_bytes = vec![0; FLOW_SLOTS];
        }
    }

    /// New tables (built before anything is swapped, so an error changes
    /// nothing).
    pub(crate) fn reconfigure(&mut self, ix: LookupIndex, tables: &FlatTables) {
        self.ix = ix;
        self.multipath = tables.multipath;
        self.set_classes(tables);
    }

    /// A frame at native ToR `tor` (from a host, or delivered by the OCS
    /// when `fabric`), at true time `now`.
    pub(crate) fn forward(&mut self, x: &mut Ctx<'_>, tor: TorId, fabric: bool, i: u32, now: u64) {
        if wire::ipv4_dst(x.pool.data(i)).is_none() {
            let r = if fabric {
                DropReason::BadHeader
            } else {
                DropReason::NotIpv4
            };
            return x.drop_frame(i, r);
        }
        let Some(dh) = x.hosts.dest(x.pool.data(i)) else {
            return x.drop_frame(i, DropReason::UnknownHost);
        };
        let dst = x.hosts.tor(dh);
        if dst == tor {
            return x.hosts.arrive(x.pool, x.c, x.delay, dh, i, now);
        }
        let m = x.pool.meta_mut(i);
        m.tag += 1;
        if m.tag > MAX_HOPS as u32 {
            return x.drop_frame(i, DropReason::HopLimit);
        }
        let tnow = offset(now, self.tor_clock_offset);
        let slot = self.clock.slot(tnow);
        let arrival = (slot % self.s as u64) as SliceId;
        let len = x.pool.meta(i).wire_len();
        if !fabric {
            self.tm[tor as usize * self.tors + dst as usize] += len;
        }

        if fabric
            && x.pool.meta(i).bulk.is_some()
            && let Some(r) = self.rlb.as_mut()
        {
            // The end of a RotorLB first hop: relay it to `dst`.
            return r.take(x.cal, x.pool, x.c, x.hosts, tor, dh, true, i, slot, tnow);
        }

        if fabric && wire::srh_count(x.pool.data(i)).is_some() {
            let Some((port, depart)) = wire::srh_pop(x.pool, i) else {
                return x.drop_frame(i, DropReason::BadHeader);
            };
            let depart = match (depart != wire::SRH_NOW).then_some(depart) {
                // Late, on a circuit that is still up: it leaves now.
                Some(d) if x.cal.still_up(tor, port, d, arrival) => {
                    x.c.late_hops += 1;
                    None
                }
                d => d,
            };
            let step = Step { port, depart };
            let len = x.pool.meta(i).wire_len();
            return match x.cal.admit(tor, step, arrival, slot, tnow, len) {
                Ok(q) => x.cal.enqueue(x.pool, x.c, tor, dst, step.port, q, i, tnow),
                Err(Refusal::Miss(q)) => {
                    // A full slice: a later one while the same circuit is
                    // up, or (like a calendar queue without push-back) the
                    // full queue, a cycle later.
                    let q = match x.cal.admit_while_up(tor, step, arrival, slot, tnow, len) {
                        Some(later) => {
                            x.c.rerouted += 1;
                            later
                        }
                        None if x.cal.drop_on_miss() => {
                            return x.drop_frame(i, DropReason::SliceMiss);
                        }
                        None => {
                            x.c.deferred += 1;
                            q
                        }
                    };
                    x.cal.enqueue(x.pool, x.c, tor, dst, step.port, q, i, tnow)
                }
                Err(r) => x.drop_frame(i, refusal_reason(r)),
            };
        }

        let (mut class, bucket) = self.class_and_bucket(x.pool, tor, i, len);
        if let Some(r) = self.rlb.as_mut() {
            // Opera's hosts say which flows are bulk (they know their
            // sizes); with RotorLB the ToR's byte count, which aliases
            // flows that share a counter, does not.
            if !fabric && wire::ipv4_dscp(x.pool.data(i)) == Some(wire::DSCP_BULK) {
                return r.take(x.cal, x.pool, x.c, x.hosts, tor, dh, false, i, slot, tnow);
            }
            class = 0;
        }
        let Some(entry) = self.ix.lookup(tor, dst, arrival, fabric, class, bucket) else {
            return x.drop_frame(i, DropReason::NoRoute);
        };
        let mut first_refusal = None;
        // Without slice-miss detection the primary queue is the only one;
        // past REROUTE_HOPS hops a frame no longer takes alternates (it
        // waits in its primary queue), so rerouting cannot loop.
        let n_actions = if x.cal.detection() && x.pool.meta(i).tag <= REROUTE_HOPS {
            self.ix.actions(entry).len()
        } else {
            1
        };
        for k in 0..n_actions {
            let a = self.ix.actions(entry)[k];
            let (step, nsteps) = {
                let steps = self.ix.steps(&a);
                (steps[0], steps.len())
            };
            let push = a.source && nsteps > 1;
            let extra = if push {
                (wire::SRH_FIXED + (nsteps - 1) * wire::SRH_STEP) as u64
            } else {
                0
            };
            match x.cal.admit(tor, step, arrival, slot, tnow, len + extra) {
                Ok(q) => {
                    if push {
                        let rest = self.ix.steps(&a)[1..]
                            .iter()
                            .map(|s| (s.port, s.depart.unwrap_or(wire::SRH_NOW)));
                        if !wire::srh_push(x.pool, i, rest) {
                            return x.drop_frame(i, DropReason::TooBig);
                        }
                    }
                    if k > 0 {
                        x.c.rerouted += 1;
                    }
                    return x.cal.enqueue(x.pool, x.c, tor, dst, step.port, q, i, tnow);
                }
                Err(r) => {
                    if k == 0 && x.pb.is_some() {
                        let rank = step.depart.map_or(0, |d| {
                            (d as u64 + self.s as u64 - arrival as u64) % self.s as u64
                        });
                        // Hosts pause until the full queue's slice is over.
                        self.push_back(x, tor, fabric, dst, i, slot + rank, r, now);
                    }
                    first_refusal.get_or_insert(r);
                }
            }
        }
        // No action fits its slice. Like a calendar queue without push-back
        // (paper Table 3), the primary queue still takes the frame while its
        // buffer lasts; what its slice cannot carry waits a cycle. (With
        // `tor.on_slice_miss: drop`, Opera's, it is dropped below.)
        if let Some(Refusal::Miss(q)) = first_refusal.filter(|_| !x.cal.drop_on_miss()) {
            let a = self.ix.actions(entry)[0];
            let steps = self.ix.steps(&a);
            let port = steps[0].port;
            if a.source && steps.len() > 1 {
                let rest = steps[1..]
                    .iter()
                    .map(|s| (s.port, s.depart.unwrap_or(wire::SRH_NOW)));
                if !wire::srh_push(x.pool, i, rest) {
                    return x.drop_frame(i, DropReason::TooBig);
                }
            }
            x.c.deferred += 1;
            return x.cal.enqueue(x.pool, x.c, tor, dst, port, q, i, tnow);
        }
        let r = first_refusal.map_or(DropReason::NoRoute, refusal_reason);
        x.drop_frame(i, r)
    }

    /// The primary queue (departing in slot `until`) refused frame `i`
    /// towards ToR `dst`: tell the push-back state, which decides whether
    /// a message goes out.
    #[allow(clippy::too_many_arguments)]
    #[cold]
    fn push_back(
        &self,
        x: &mut Ctx<'_>,
        tor: TorId,
        fabric: bool,
        dst: TorId,
        i: u32,
        until: u64,
        r: Refusal,
        now: u64,
    ) {
        let sender = if fabric {
            match wire::ipv4_src(x.pool.data(i)).and_then(|ip| x.hosts.by_ip(&ip)) {
                Some(h) => x.hosts.tor(h),
                None => return,
            }
        } else {
            tor
        };
        let Some(pb) = x.pb.as_mut() else { return };
        let slice = (until % self.s as u64) as SliceId;
        if pb.on_rejection(tor, sender, dst, until, slice, r == Refusal::Full, now) {
            x.c.pushbacks += 1;
        }
    }

    /// RotorLB's slot start, at true time `now` (nothing without it).
    pub(crate) fn dispatch_bulk(
        &mut self,
        cal: &mut Calendar,
        pool: &mut FramePool,
        c: &mut Counters,
        hosts: &Hosts,
        now: u64,
    ) {
        if let Some(r) = self.rlb.as_mut() {
            let tnow = offset(now, self.tor_clock_offset);
            r.dispatch(cal, pool, c, hosts, self.clock.slot(tnow), tnow);
        }
    }

    /// When RotorLB next needs a poll (true time): the next slot start
    /// while it holds frames.
    pub(crate) fn bulk_next_at(&self, now: u64) -> Option<u64> {
        self.rlb.as_ref().filter(|r| r.held() > 0)?;
        let tnow = offset(now, self.tor_clock_offset);
        let next = self.clock.start_of_slot(self.clock.slot(tnow) + 1);
        Some(offset(next, -self.tor_clock_offset))
    }

    /// The live traffic matrix (bytes since the start), `[src][dst]`.
    pub(crate) fn traffic_matrix(&self) -> Vec<Vec<u64>> {
        self.tm.chunks(self.tors).map(|r| r.to_vec()).collect()
    }

    /// The frame's flow-size class and multipath bucket. Each ToR counts
    /// the bytes of a flow it forwards itself, as the P4 program's
    /// per-switch `flow_bytes` register does: the one table of every native
    /// ToR is keyed by ToR and flow hash, so per-hop lookup does not add a
    /// frame's bytes once per ToR it crosses to one count.
    fn class_and_bucket(&mut self, pool: &FramePool, tor: TorId, i: u32, len: u64) -> (u8, u8) {
        let needs_hash = self.multipath == Multipath::Flow || !self.flow_bytes.is_empty();
        let h = if needs_hash {
            wire::flow_hash(pool.data(i))
        } else {
            0
        };
        let buckets = self.ix.buckets() as u32;
        let bucket = match self.multipath {
            Multipath::None => 0,
            Multipath::Flow => (h % buckets) as u8,
            Multipath::Packet => {
                let s = &mut self.pkt_seq[tor as usize];
                *s = s.wrapping_add(1);
                (*s % buckets) as u8
            }
        };
        let class = if self.flow_bytes.is_empty() {
            0
        } else {
            let b = &mut self.flow_bytes[flow_slot(tor, h)];
            *b += len;
            let seen = *b;
            self.thresholds
                .iter()
                .rposition(|&t| t <= seen)
                .unwrap_or(0) as u8
        };
        (class, bucket)
    }
}

/// ToR `tor`'s slot for flow hash `h` in the flow byte counters: the P4
/// register's index (`h` mod [`FLOW_SLOTS`]) moved by a per-ToR constant,
/// so each ToR's counts are its own (a bijection on the slots for each ToR).
#[inline]
fn flow_slot(tor: TorId, h: u32) -> usize {
    (h as usize ^ (tor as usize).wrapping_mul(0x9E37_79B9)) & (FLOW_SLOTS - 1)
}

pub(crate) fn refusal_reason(r: Refusal) -> DropReason {
    match r {
        Refusal::Full => DropReason::QueueFull,
        Refusal::Miss(_) => DropReason::SliceMiss,
        Refusal::NoPort => DropReason::NoRoute,
    }
}
