//! The emulated optical circuit switch (paper §3): it holds its own copy of
//! the circuit schedule and does not trust the ToRs. A frame transmitted on
//! an uplink over `[tx, done)` (true time) is checked against the circuit
//! of that slice (`no_circuit`) and its dark time (`guardband`), then
//! carried on the uplink's propagation delay line to the peer uplink.
//! Native and external (veth-attached) ToRs are treated alike; where a
//! delivered frame goes next is the engine's business.

use crate::Timing;
use crate::capture::Captures;
use crate::clock::SliceClock;
use crate::counters::{Counters, DropReason};
use crate::pool::{FramePool, FrameQueue};
use lh_ctrl::schedule::{Endpoint, Schedule};
use lh_ctrl::{PortId, SliceId, TorId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Peer-table marker of an electrical port: it reaches the frame's
/// destination ToR (same port index) at any time.
const ELECTRICAL: u32 = u32::MAX - 1;
/// Peer-table marker: no circuit.
pub(crate) const NONE: u32 = u32::MAX;

/// The OCS: circuit and dark-time tables and one delay line per uplink.
pub struct Ocs {
    clock: SliceClock,
    s: usize,
    rotation: bool,
    tors: usize,
    uplinks: usize,
    dark: u64,
    propagation: u64,
    /// `[slice][tor * uplinks + port]`: (peer tor << 8 | peer port),
    /// [`NONE`] or [`ELECTRICAL`].
    peer: Vec<u32>,
    /// `[slice][tor * uplinks + port]`: circuit differs from previous slice.
    changed: Vec<bool>,
    /// Per uplink: until when its circuit is dark after a runtime
    /// reconfiguration (the OCS's clock).
    dark_until: Vec<u64>,
    /// Per uplink: frames in flight, in send order.
    line: Vec<FrameQueue>,
    /// When the head of each delay line holding frames is due, and its
    /// line: one entry per such line.
    due: BinaryHeap<Reverse<(u64, u32)>>,
    /// `[tor * tors + tor]`: the circuits between these two ToRs are failed
    /// (`link sX sY down`), symmetric.
    down: Vec<bool>,
    /// Some entry of `down` is set (the hot path skips the lookup if not).
    any_down: bool,
    /// Every circuit's delay spread (config `tors.link_jitter`, a switch
    /// link's netem `jitter`): its draws, and per uplink the latest due
    /// time given, so that frames keep their order.
    jitter: Option<(crate::netem::Shape, Vec<u64>)>,
}

impl Ocs {
    pub fn new(schedule: &Schedule, timing: &Timing, clock: SliceClock) -> Ocs {
        let (tors, uplinks, s) = (schedule.tors(), schedule.uplinks(), schedule.slices());
        let (peer, changed) = circuit_tables(schedule);
        Ocs {
            clock,
            s,
            rotation: s > 1,
            tors,
            uplinks,
            dark: timing.dark().0,
            propagation: timing.model.propagation.0,
            peer,
            changed,
            dark_until: vec![0; tors * uplinks],
            line: vec![FrameQueue::default(); tors * uplinks],
            due: BinaryHeap::with_capacity(tors * uplinks),
            down: vec![false; tors * tors],
            any_down: false,
            jitter: None,
        }
    }

    /// Spreads every circuit's delay uniformly over propagation plus or
    /// minus `jitter` ns (at least 0), frames kept in order per uplink;
    /// the draws are seeded.
    pub(crate) fn set_jitter(&mut self, jitter: u64, seed: u64) {
        self.jitter = (jitter > 0).then(|| {
            let shape = crate::netem::Shape::circuit_jitter(self.propagation, jitter, seed);
            (shape, vec![0; self.tors * self.uplinks])
        });
    }

    /// Fails (`up == false`) or restores every optical circuit between
    /// ToRs `a` and `b`, in every slice and both directions: frames the OCS
    /// would carry over them are dropped as [`DropReason::LinkDown`].
    /// Electrical ports are not ToR-to-ToR links and stay up.
    pub fn set_link(&mut self, a: TorId, b: TorId, up: bool) -> Result<(), String> {
        let (a, b) = (a as usize, b as usize);
        if a >= self.tors || b >= self.tors || a == b {
            return Err(format!(
                "no link between ToRs {a} and {b} (the fabric has ToRs 0..{})",
                self.tors
            ));
        }
        self.down[a * self.tors + b] = !up;
        self.down[b * self.tors + a] = !up;
        self.any_down = self.down.iter().any(|d| *d);
        Ok(())
    }

    /// Whether the circuits between ToRs `a` and `b` are up.
    pub fn link_up(&self, a: TorId, b: TorId) -> bool {
        !self
            .down
            .get(a as usize * self.tors + b as usize)
            .copied()
            .unwrap_or(false)
    }

    /// Swaps in a new schedule at time `now`; returns, per uplink, whether
    /// its circuit changed in any slice (those are dark for
    /// `max(guardband, reconfiguration)` from `now`).
    pub fn reconfigure(&mut self, schedule: &Schedule, now: u64) -> Vec<bool> {
        let (peer, changed) = circuit_tables(schedule);
        let n = self.tors * self.uplinks;
        let moved: Vec<bool> = (0..n)
            .map(|tu| (0..self.s).any(|ts| peer[ts * n + tu] != self.peer[ts * n + tu]))
            .collect();
        for (tu, &m) in moved.iter().enumerate() {
            if m {
                self.dark_until[tu] = now + self.dark;
            }
        }
        self.peer = peer;
        self.changed = changed;
        moved
    }

    /// The OCS's verdict on a frame sent from `(tor, port)` over
    /// `[tx, done)` (true time) towards destination ToR `dst` (only used by
    /// electrical ports): the peer uplink it reaches, or why it is lost.
    #[inline]
    pub fn check(
        &self,
        tor: TorId,
        port: PortId,
        dst: TorId,
        tx: u64,
        done: u64,
    ) -> Result<Endpoint, DropReason> {
        let tu = tor as usize * self.uplinks + port as usize;
        let slot = self.clock.slot(tx);
        let slice = (slot % self.s as u64) as usize;
        let n = self.tors * self.uplinks;
        let peer = match self.peer[slice * n + tu] {
            // The electrical switch forwards by destination, always up.
            ELECTRICAL => ((dst as u32) << 8) | port as u32,
            NONE => return Err(DropReason::NoCircuit),
            x if self.any_down && self.down[tor as usize * self.tors + (x >> 8) as usize] => {
                return Err(DropReason::LinkDown);
            }
            x => x,
        };
        let start = self.clock.start_of_slot(slot);
        let dark = if self.changed[slice * n + tu] {
            self.dark
        } else {
            0
        };
        let in_dark = tx < start + dark || tx < self.dark_until[tu];
        let next = (slice + 1) % self.s;
        // Running past the slice end is fine only onto the same circuit.
        let into_dark =
            self.rotation && done > start + self.clock.slice && self.changed[next * n + tu];
        if in_dark || into_dark {
            return Err(DropReason::Guardband);
        }
        Ok(Endpoint::new((peer >> 8) as TorId, (peer & 0xff) as PortId))
    }

    /// Takes frame `i` transmitted on uplink `(tor, port)` over
    /// `[tx, done)`: taps it, checks it and puts it on the delay line, or
    /// drops it (it leaves `queued`). `meta.tag` holds the hop count (bits
    /// 0..8) and the destination ToR (bits 8..).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn carry(
        &mut self,
        pool: &mut FramePool,
        c: &mut Counters,
        cap: &mut Captures,
        tor: usize,
        port: usize,
        i: u32,
        tx: u64,
        done: u64,
    ) {
        let tu = tor * self.uplinks + port;
        cap.tap(tu, tx, pool, i);
        let dst = (pool.meta(i).tag >> 8) as TorId;
        match self.check(tor as TorId, port as PortId, dst, tx, done) {
            Err(r) => {
                c.queued -= 1;
                c.drop_one(r);
                pool.release(i);
            }
            Ok(peer) => {
                // On the delay line: peer ToR (bits 16..32), peer port
                // (8..16) and the hop count (0..8).
                let m = pool.meta_mut(i);
                m.t = match self.jitter.as_mut() {
                    None => done + self.propagation,
                    Some((shape, last)) => {
                        let t = (done + shape.draw_delay()).max(last[tu]);
                        last[tu] = t;
                        t
                    }
                };
                m.tag = (m.tag & 0xff) | ((peer.tor as u32) << 16) | ((peer.port as u32) << 8);
                if self.line[tu].is_empty() {
                    self.due.push(Reverse((m.t, tu as u32)));
                }
                self.line[tu].push(pool, i);
            }
        }
    }

    /// When the next frame on any delay line is due; None if none is.
    pub(crate) fn next_due(&self) -> Option<u64> {
        self.due.peek().map(|r| r.0.0)
    }

    /// A delay line whose head is due at `now`, earliest first (then by
    /// line); take its due frames with [`Ocs::pop_due`], then hand it back
    /// with [`Ocs::requeue`].
    #[inline]
    pub(crate) fn due_line(&mut self, now: u64) -> Option<usize> {
        let &Reverse((t, tu)) = self.due.peek()?;
        if t > now {
            return None;
        }
        self.due.pop();
        Some(tu as usize)
    }

    /// Delay line `tu` after [`Ocs::due_line`]: due again when its new head is.
    #[inline]
    pub(crate) fn requeue(&mut self, pool: &FramePool, tu: usize) {
        if let Some(i) = self.line[tu].peek() {
            self.due.push(Reverse((pool.meta(i).t, tu as u32)));
        }
    }

    /// Pops the next frame of delay line `tu` due at `now`: (frame, peer
    /// ToR, peer port, delivery time). The frame's tag keeps its hop count.
    #[inline]
    pub(crate) fn pop_due(
        &mut self,
        pool: &mut FramePool,
        tu: usize,
        now: u64,
    ) -> Option<(u32, TorId, PortId, u64)> {
        let i = self.line[tu].peek()?;
        let m = *pool.meta(i);
        if m.t > now {
            return None;
        }
        self.line[tu].pop(pool);
        pool.meta_mut(i).tag = m.tag & 0xff;
        Some((
            i,
            (m.tag >> 16) as TorId,
            ((m.tag >> 8) & 0xff) as PortId,
            m.t,
        ))
    }

    /// The OCS's circuit for `(tor, port)` in `slice`: the peer uplink, or
    /// None (no circuit or an electrical port).
    pub fn circuit(&self, slice: SliceId, tor: TorId, port: PortId) -> Option<Endpoint> {
        let n = self.tors * self.uplinks;
        match self.peer[slice as usize * n + tor as usize * self.uplinks + port as usize] {
            NONE | ELECTRICAL => None,
            x => Some(Endpoint::new((x >> 8) as TorId, (x & 0xff) as PortId)),
        }
    }
}

/// `[slice][tor * uplinks + port]` peer (tor << 8 | port, [`NONE`],
/// [`ELECTRICAL`]) and whether the circuit changed from the previous slice
/// (never for electrical ports).
pub(crate) fn circuit_tables(schedule: &Schedule) -> (Vec<u32>, Vec<bool>) {
    let (tors, uplinks, s) = (schedule.tors(), schedule.uplinks(), schedule.slices());
    let n = tors * uplinks;
    let mut peer = vec![NONE; s * n];
    let mut changed = vec![false; s * n];
    for ts in 0..s {
        for t in 0..tors {
            for p in 0..uplinks {
                let ep = Endpoint::new(t as TorId, p as PortId);
                let k = ts * n + t * uplinks + p;
                if schedule.is_electrical(p as PortId) {
                    peer[k] = ELECTRICAL;
                } else if let Some(e) = schedule.peer(ts as SliceId, ep) {
                    peer[k] = ((e.tor as u32) << 8) | e.port as u32;
                }
                changed[k] = schedule.changed(ts as SliceId, ep);
            }
        }
    }
    (peer, changed)
}
