//! `earliest_path(src, dst, ts, max_hop)` and the destination-rooted
//! dynamic program behind every time-expanded routing algorithm.
//!
//! # Model
//! Slots are absolute (`t`, slice `t % S`), counted from the cycle in which
//! the packet entered the network. A packet at ToR `x` in slot `t` may leave
//! on any uplink whose circuit is up in slice `t % S`, or wait at `x`.
//! - A packet that entered the network at `src` in slice `ts` may leave in
//!   any slot of `[ts, ts + S - 1]`.
//! - A packet delivered to a transit ToR by a hop in slot `a` may leave in
//!   `[a + 1, a + S - 1]` (RotorNet style, the default) or `[a, a + S - 1]`
//!   (Opera style, `same_slice_hops`).
//!
//! Waits are therefore always `< S` slots, so the calendar-queue rank
//! `(depart - arrival) mod S` identifies the departure. A path's arrival is
//! the slot of its last hop; paths are ranked by earliest arrival, then
//! fewest hops, then earliest departure from each ToR, then lowest uplink,
//! then lowest next ToR (electrical fabrics reach every ToR on every uplink).
//!
//! # Engine
//! [`Dp`] solves one destination `d` for every `(tor, slot)` at once: a
//! backward pass over slots `0..H` (`H` starts at `2S` and doubles until
//! every reachable answer fits) computes the best `(arrival, hops)` of
//!
//! - `go[t][x]`: leaving `x` exactly in slot `t` (and which uplink),
//! - `v[t][x]`: leaving `x` in slot `t` or later (source state, and the
//!   transit state in Opera style),
//! - `w[t][x]`: leaving `x` in `[t + 1, t + S - 1]` (RotorNet transit
//!   state, a sliding-window minimum over `go`).
//!
//! Optionally the values are layered by hop budget (`<= h` hops, for
//! `max_hop` and UCMP's Pareto points); layer `h` reads layer `h - 1`'s
//! transit values, and the layers stop at a fixpoint.
//!
//! Because every decision is a function of (`dst`, ToR, slot, entry kind,
//! remaining budget) only, suffixes are consistent: two unlimited-budget
//! paths to `d` through ToR `x` that reach it in the same slice by the same
//! kind of entry (from a host or from the fabric) take the same next step
//! (uplink and `depart - arrival`). The values are periodic in `S` wherever
//! they are exact, so this holds across cycles too. That is what per-hop
//! lookup tables need (`lookup: hop`). In Opera style a transit packet and
//! a packet from a local host are in the same state, so the step does not
//! even depend on the entry kind.

use super::{Hop, Path, RoutingOptions};
use crate::schedule::Schedule;
use crate::{PortId, SliceId, Slot, TorId};

/// Arrival slot in the high bits, hop count in the low [`HOP_BITS`]: `<`
/// orders by earliest arrival, then fewest hops.
type Key = u32;
const HOP_BITS: u32 = 8;
const HOP_MASK: u32 = (1 << HOP_BITS) - 1;
/// Longest path the engine represents.
pub const MAX_HOPS: u32 = HOP_MASK - 1;
const INF: Key = u32::MAX;
/// Slots a key can hold.
const MAX_HORIZON: usize = (1 << (32 - HOP_BITS)) - 2;
const NONE: u32 = u32::MAX;
/// `max_hop` value that means "no budget" (bounded by the ToR count).
pub const UNLIMITED: u8 = u8::MAX;

#[inline]
fn key(arrival: u32, hops: u32) -> Key {
    (arrival << HOP_BITS) | hops
}

#[inline]
fn plus_hop(k: Key) -> Key {
    if k == INF || (k & HOP_MASK) >= MAX_HOPS {
        INF
    } else {
        k + 1
    }
}

/// Arrival slot and hop count of a key.
#[inline]
fn unkey(k: Key) -> (Slot, u32) {
    (k >> HOP_BITS, k & HOP_MASK)
}

/// Every `(uplink, next ToR)` of every `(slice, ToR)` in CSR form, ports
/// ascending then ToRs ascending (the tie-break order).
#[derive(Clone, Debug)]
pub struct Adjacency {
    tors: usize,
    start: Vec<u32>,
    port: Vec<PortId>,
    next: Vec<TorId>,
    /// Reverse lists: ToRs with a circuit into `y` in a slice.
    rstart: Vec<u32>,
    rfrom: Vec<TorId>,
}

impl Adjacency {
    /// Every circuit of every slice.
    pub fn new(s: &Schedule) -> Self {
        Self::build(s, false)
    }

    /// Only the circuits of a slice that stay up, to the same ToR, in the
    /// next slice: Opera's low-latency paths in a slice avoid the rotor
    /// that reconfigures at its end (Opera, NSDI'20, §4: each slice's
    /// expander is the u-1 rotors that stay up), so a packet late by less
    /// than a slice still finds each of its circuits.
    pub fn stable(s: &Schedule) -> Self {
        Self::build(s, true)
    }

    fn build(s: &Schedule, stable: bool) -> Self {
        let (n, slices) = (s.tors(), s.slices());
        let mut a = Adjacency {
            tors: n,
            start: Vec::with_capacity(n * slices + 1),
            port: Vec::new(),
            next: Vec::new(),
            rstart: Vec::with_capacity(n * slices + 1),
            rfrom: Vec::new(),
        };
        a.start.push(0);
        a.rstart.push(0);
        let mut into: Vec<Vec<TorId>> = vec![Vec::new(); n];
        let mut then: Vec<(PortId, TorId)> = Vec::new();
        for ts in 0..slices {
            for x in 0..n {
                if stable {
                    then.clear();
                    s.for_each_link(x as TorId, ((ts + 1) % slices) as SliceId, |p, y| {
                        then.push((p, y))
                    });
                }
                s.for_each_link(x as TorId, ts as SliceId, |p, y| {
                    if stable && !then.contains(&(p, y)) {
                        return;
                    }
                    a.port.push(p);
                    a.next.push(y);
                    if into[y as usize].last() != Some(&(x as TorId)) {
                        into[y as usize].push(x as TorId);
                    }
                });
                a.start.push(a.port.len() as u32);
            }
            for v in &mut into {
                a.rfrom.append(v);
                a.rstart.push(a.rfrom.len() as u32);
            }
        }
        a
    }

    #[inline]
    fn rrange(&self, slice: usize, y: usize) -> std::ops::Range<usize> {
        let i = slice * self.tors + y;
        self.rstart[i] as usize..self.rstart[i + 1] as usize
    }

    #[inline]
    fn range(&self, slice: usize, x: usize) -> std::ops::Range<usize> {
        let i = slice * self.tors + x;
        self.start[i] as usize..self.start[i + 1] as usize
    }
}

/// Destination-rooted earliest-arrival solver (see the module docs). Reuse
/// one `Dp` across destinations: its buffers are kept.
#[derive(Clone, Debug)]
pub struct Dp<'a> {
    adj: &'a Adjacency,
    n: usize,
    slices: usize,
    same_slice: bool,
    /// Hop budget; `None`: one self-referencing layer (unlimited).
    cap: Option<usize>,
    /// Layers computed (budget `1..=layers`); later ones equal the last.
    layers: usize,
    /// Compute the last layer's RotorNet transit values (`transit_step`).
    keep_transit: bool,
    horizon: usize,
    dst: usize,
    go: Vec<Key>,
    go_adj: Vec<u32>,
    v: Vec<Key>,
    v_dep: Vec<u32>,
    w: Vec<Key>,
    w_dep: Vec<u32>,
    // Sliding-window deques (see `window`).
    dq: Vec<u32>,
    // Same-slot label setting (see `same_slot`).
    order: Vec<(Key, TorId)>,
    fifo: Vec<(Key, TorId)>,
    settled: Vec<bool>,
    dq_bot: Vec<u32>,
    dq_top: Vec<u32>,
    /// ToRs whose best hop a budget layer must search again.
    dirty: Vec<bool>,
    /// Key of a hop into each ToR in the slot at hand (`fill_hop_values`).
    hop: Vec<Key>,
    /// The last layer changed few transit values.
    sparse: bool,
}

impl<'a> Dp<'a> {
    /// `max_hop`: hop budget, or [`UNLIMITED`].
    pub fn new(s: &Schedule, adj: &'a Adjacency, max_hop: u8, same_slice_hops: bool) -> Self {
        let cap = if max_hop == UNLIMITED {
            None
        } else {
            Some(max_hop.max(1) as usize)
        };
        Dp {
            adj,
            n: s.tors(),
            slices: s.slices(),
            same_slice: same_slice_hops,
            cap,
            layers: 0,
            keep_transit: false,
            horizon: 0,
            dst: 0,
            go: Vec::new(),
            go_adj: Vec::new(),
            v: Vec::new(),
            v_dep: Vec::new(),
            w: Vec::new(),
            w_dep: Vec::new(),
            dq: Vec::new(),
            order: Vec::new(),
            fifo: Vec::new(),
            settled: vec![false; s.tors()],
            dq_bot: Vec::new(),
            dq_top: Vec::new(),
            dirty: Vec::new(),
            hop: Vec::new(),
            sparse: false,
        }
    }

    /// Also keep the transit values of the last budget layer, for
    /// [`Dp::transit_step`] (they cost a little and only VLB needs them).
    pub fn with_transit(mut self, on: bool) -> Self {
        self.keep_transit = on;
        self
    }

    /// Layers with distinct values (at most the budget).
    pub fn layers(&self) -> usize {
        self.layers
    }

    pub fn dst(&self) -> TorId {
        self.dst as TorId
    }

    /// Slot horizon beyond which no path needs to go for `budget` hops.
    fn bound(&self, budget: usize) -> usize {
        (budget + 1) * self.slices
    }

    #[inline]
    fn at(&self, layer: usize, t: usize, x: usize) -> usize {
        (layer * self.horizon + t) * self.n + x
    }

    /// Solve for destination `dst`.
    pub fn solve(&mut self, dst: TorId) {
        self.dst = dst as usize;
        let s = self.slices;
        let bound = self.bound(self.cap.unwrap_or(self.n)).min(MAX_HORIZON);
        // Any answer found is exact (every better path fits too); the horizon
        // grows only while some source has none. Two cycles cover every
        // schedule where each pair meets once per cycle.
        let mut h = bound.min(2 * s).max(1);
        loop {
            self.run(h);
            if h >= bound || self.complete() {
                break;
            }
            h = (2 * h).min(bound);
        }
    }

    /// True when no source answer can be missing for lack of horizon.
    fn complete(&self) -> bool {
        let budgets: Vec<usize> = match self.cap {
            Some(_) => (1..=self.layers).collect(),
            None => vec![self.n],
        };
        for (l, &b) in budgets.iter().enumerate() {
            if self.horizon >= self.bound(b) {
                continue;
            }
            for ts in 0..self.slices {
                for x in 0..self.n {
                    if x != self.dst && self.v[self.at(l, ts, x)] == INF {
                        return false;
                    }
                }
            }
        }
        // Layers past the fixpoint equal the last one; a cap beyond it can
        // still need a longer horizon only if the last layer has gaps.
        if let Some(cap) = self.cap
            && self.layers < cap
            && self.horizon < self.bound(cap)
        {
            let l = self.layers - 1;
            for ts in 0..self.slices {
                for x in 0..self.n {
                    if x != self.dst && self.v[self.at(l, ts, x)] == INF {
                        return false;
                    }
                }
            }
        }
        true
    }

    fn run(&mut self, horizon: usize) {
        debug_assert!(horizon <= MAX_HORIZON);
        self.horizon = horizon;
        let max_layers = self.cap.unwrap_or(1);
        let per = horizon * self.n;
        self.layers = 0;
        for l in 0..max_layers {
            let need = (l + 1) * per;
            for buf in [&mut self.go, &mut self.v, &mut self.w] {
                if buf.len() < need {
                    buf.resize(need, INF);
                }
            }
            for buf in [&mut self.go_adj, &mut self.v_dep, &mut self.w_dep] {
                if buf.len() < need {
                    buf.resize(need, NONE);
                }
            }
            self.run_layer(l);
            self.layers = l + 1;
            if self.cap.is_none() || l == 0 || l + 1 == max_layers {
                continue;
            }
            // Transit values this layer changed: none (and no source value
            // either) means layer l adds nothing, so no later layer would;
            // few let the next layer search only around them (`run_layer`).
            let (a, b) = ((l - 1) * per, l * per);
            let t = if self.same_slice { &self.v } else { &self.w };
            let changed = t[a..a + per]
                .iter()
                .zip(&t[b..b + per])
                .filter(|(x, y)| x != y)
                .count();
            if changed == 0 && self.v[a..a + per] == self.v[b..b + per] {
                self.layers = l;
                break;
            }
            self.sparse = changed * 64 < per;
        }
    }

    fn run_layer(&mut self, l: usize) {
        let (n, h, s, d) = (self.n, self.horizon, self.slices, self.dst);
        let unlimited = self.cap.is_none();
        // Layer whose transit values a hop continues with.
        let prev = if unlimited { Some(l) } else { l.checked_sub(1) };
        // RotorNet transit values of this layer: read by this layer
        // (unlimited), the next one, or `transit_step`.
        let with_window =
            !self.same_slice && (unlimited || self.keep_transit || l + 1 < self.cap.unwrap_or(1));
        if with_window {
            if self.dq.len() < n * h {
                self.dq.resize(n * h, 0);
            }
            self.dq_bot.clear();
            self.dq_bot.resize(n, 0);
            self.dq_top.clear();
            self.dq_top.resize(n, 0);
        }
        for t in (0..h).rev() {
            let slice = t % s;
            let row = self.at(l, t, 0);
            if with_window {
                self.window(l, t);
            }
            let next_row = if t + 1 < h {
                Some(self.at(l, t + 1, 0))
            } else {
                None
            };
            if self.same_slice && unlimited {
                self.same_slot(slice, t, row, next_row);
            } else if prev.is_none() {
                // One-hop layer: only circuits straight into `d` count.
                for x in 0..n {
                    self.go[row + x] = INF;
                    self.go_adj[row + x] = NONE;
                }
                let direct = key(t as u32, 1);
                for i in self.adj.rrange(slice, d) {
                    let x = self.adj.rfrom[i] as usize;
                    let r = self.adj.range(slice, x);
                    let a = r.start
                        + self.adj.next[r]
                            .iter()
                            .position(|&y| y as usize == d)
                            .unwrap_or(0);
                    self.go[row + x] = direct;
                    self.go_adj[row + x] = a as u32;
                }
                for x in 0..n {
                    let (nv, nd) = if x == d {
                        (INF, NONE)
                    } else {
                        self.pick(self.go[row + x], t, next_row, x)
                    };
                    self.v[row + x] = nv;
                    self.v_dep[row + x] = nd;
                }
            } else {
                let trow = prev.map(|p| self.at(p, t, 0));
                // Budget layers past the second: a ToR's best hop can
                // differ from the layer below only through a neighbour whose
                // transit value the layer below changed (values only fall
                // as the budget grows). When that layer changed under 1/64
                // of its values, only those neighbours' ToRs are searched
                // again. On opera-108 under UCMP, 4, 5 and 6 hops change
                // 16%, 0.01% and 0% of the values, so the 6-hop layer is
                // nearly free (6% fewer instructions in the search).
                let incremental = !unlimited && l >= 2 && self.sparse;
                if incremental {
                    self.mark_changed(l - 1, t, slice);
                }
                self.fill_hop_values(t, trow);
                self.hop_row(l, t, slice, incremental);
            }
        }
    }

    /// Row `t` of layer `l` from the hop keys ([`Dp::fill_hop_values`]):
    /// every ToR's best hop ([`Dp::best_hop`]; with `incremental`, the
    /// layer below's for ToRs not `dirty`), then leave now or wait
    /// ([`Dp::pick`]). On row slices, so the loop has no bounds checks.
    fn hop_row(&mut self, l: usize, t: usize, slice: usize, incremental: bool) {
        let (n, d) = (self.n, self.dst);
        let row = self.at(l, t, 0);
        let below = if incremental {
            self.at(l - 1, t, 0)
        } else {
            row
        };
        let waits = t + 1 < self.horizon;
        let starts = &self.adj.start[slice * n..=slice * n + n];
        let (nexts, hop, dirty) = (&self.adj.next, &self.hop[..n], &self.dirty[..]);
        let (go_lo, go_hi) = self.go.split_at_mut(row);
        let (ga_lo, ga_hi) = self.go_adj.split_at_mut(row);
        let (go_row, ga_row) = (&mut go_hi[..n], &mut ga_hi[..n]);
        let (v_lo, v_hi) = self.v.split_at_mut(row + n);
        let (vd_lo, vd_hi) = self.v_dep.split_at_mut(row + n);
        let (v_row, vd_row) = (&mut v_lo[row..], &mut vd_lo[row..]);
        let (v_next, vd_next) = if waits {
            (&v_hi[..n], &vd_hi[..n])
        } else {
            (&[][..], &[][..])
        };
        for x in 0..n {
            if x == d {
                (go_row[x], ga_row[x], v_row[x], vd_row[x]) = (INF, NONE, INF, NONE);
                continue;
            }
            let (best, ba) = if incremental && !dirty[x] {
                (go_lo[below + x], ga_lo[below + x])
            } else {
                best_uplink(nexts, starts[x] as usize..starts[x + 1] as usize, hop)
            };
            go_row[x] = best;
            ga_row[x] = ba;
            (v_row[x], vd_row[x]) = leave_or_wait(best, t, waits.then(|| (v_next[x], vd_next[x])));
        }
    }

    /// Sets `dirty[x]` for the ToRs with a circuit in `slice` into a ToR
    /// whose transit value in slot `t` differs between layers `l` and
    /// `l - 1` (clearing the rest).
    fn mark_changed(&mut self, l: usize, t: usize, slice: usize) {
        let (n, a, b) = (self.n, self.at(l - 1, t, 0), self.at(l, t, 0));
        self.dirty.clear();
        self.dirty.resize(n, false);
        let tv = if self.same_slice { &self.v } else { &self.w };
        for y in 0..n {
            if tv[a + y] != tv[b + y] {
                for i in self.adj.rrange(slice, y) {
                    self.dirty[self.adj.rfrom[i] as usize] = true;
                }
            }
        }
    }

    /// `hop[y]`: the key of a hop into `y` in slot `t`: `(t, 1)` into the
    /// destination, else one more hop than `y`'s transit value in row
    /// `trow` of `v` or `w` (none: [`INF`]). Filled once per slot, so the
    /// search over each ToR's uplinks only reads it.
    fn fill_hop_values(&mut self, t: usize, trow: Option<usize>) {
        let n = self.n;
        self.hop.resize(n, INF);
        match trow {
            Some(r) => {
                let tv = if self.same_slice { &self.v } else { &self.w };
                for (h, &v) in self.hop.iter_mut().zip(&tv[r..r + n]) {
                    *h = plus_hop(v);
                }
            }
            None => self.hop.fill(INF),
        }
        self.hop[self.dst] = key(t as u32, 1);
    }

    /// Best single hop from `x` in the slot of the last
    /// [`Dp::fill_hop_values`]: the first uplink with the lowest key.
    #[inline]
    fn best_hop(&self, slice: usize, x: usize) -> (Key, u32) {
        best_uplink(&self.adj.next, self.adj.range(slice, x), &self.hop)
    }

    /// Leave now (`go`, preferred on ties) or wait for the next slot.
    #[inline]
    fn pick(&self, go: Key, t: usize, next_row: Option<usize>, x: usize) -> (Key, u32) {
        leave_or_wait(go, t, next_row.map(|r| (self.v[r + x], self.v_dep[r + x])))
    }

    /// Opera style, unlimited hops: values inside slot `t`, where a hop may
    /// continue in the same slot. Label-setting from the destination:
    /// 1. ToRs that reach `d` inside slot `t` arrive in `t`, beating any
    ///    wait; a breadth-first search backwards from `d` over the slice's
    ///    circuits settles them with their hop counts.
    /// 2. The rest (slice graph not connected to `d`) start from their wait
    ///    values `v[t + 1]` and spread them backwards one hop (+1) at a time,
    ///    in ascending order: the sorted start labels merged with a FIFO of
    ///    relaxed ones (whose keys only grow), so each ToR settles once.
    ///
    /// A final pass picks each ToR's action with the usual tie-break.
    fn same_slot(&mut self, slice: usize, t: usize, row: usize, next_row: Option<usize>) {
        let (n, d) = (self.n, self.dst);
        for x in 0..n {
            self.settled[x] = x == d;
            self.v[row + x] = INF;
        }
        // Phase 1: in-slot BFS (FIFO keys grow by one hop per level).
        self.fifo.clear();
        let mut c = key(t as u32, 1);
        for i in self.adj.rrange(slice, d) {
            let x = self.adj.rfrom[i] as usize;
            if x != d && !self.settled[x] {
                self.settled[x] = true;
                self.v[row + x] = c;
                self.fifo.push((c, x as TorId));
            }
        }
        let mut j = 0;
        while j < self.fifo.len() {
            let (k, y) = self.fifo[j];
            j += 1;
            c = plus_hop(k);
            for i in self.adj.rrange(slice, y as usize) {
                let x = self.adj.rfrom[i] as usize;
                if !self.settled[x] {
                    self.settled[x] = true;
                    self.v[row + x] = c;
                    self.fifo.push((c, x as TorId));
                }
            }
        }
        // Phase 2: ToRs that must wait somewhere.
        if let Some(r) = next_row
            && self.fifo.len() + 1 < n
        {
            self.order.clear();
            for x in 0..n {
                if !self.settled[x] {
                    let lab = self.v[r + x];
                    self.v[row + x] = lab;
                    if lab != INF {
                        self.order.push((lab, x as TorId));
                    }
                }
            }
            self.order.sort_unstable();
            self.fifo.clear();
            let (mut i, mut j) = (0, 0);
            loop {
                let take_fifo = match (self.order.get(i), self.fifo.get(j)) {
                    (None, None) => break,
                    (Some(_), None) => false,
                    (None, Some(_)) => true,
                    (Some(a), Some(b)) => b.0 < a.0,
                };
                let (k, y) = if take_fifo {
                    j += 1;
                    self.fifo[j - 1]
                } else {
                    i += 1;
                    self.order[i - 1]
                };
                let y = y as usize;
                if self.settled[y] || k != self.v[row + y] {
                    continue;
                }
                self.settled[y] = true;
                let c = plus_hop(k);
                for a in self.adj.rrange(slice, y) {
                    let x = self.adj.rfrom[a] as usize;
                    if !self.settled[x] && c < self.v[row + x] {
                        self.v[row + x] = c;
                        self.fifo.push((c, x as TorId));
                    }
                }
            }
        }
        self.fill_hop_values(t, Some(row));
        for x in 0..n {
            if x == d {
                self.go[row + x] = INF;
                self.go_adj[row + x] = NONE;
                self.v[row + x] = INF;
                self.v_dep[row + x] = NONE;
                continue;
            }
            let (best, ba) = self.best_hop(slice, x);
            self.go[row + x] = best;
            self.go_adj[row + x] = ba;
            let (nv, nd) = self.pick(best, t, next_row, x);
            debug_assert_eq!(nv, self.v[row + x]);
            self.v[row + x] = nv;
            self.v_dep[row + x] = nd;
        }
    }

    /// RotorNet transit values `w[t][x] = min go[t'][x]` over
    /// `t' in [t + 1, t + S - 1]`, ties to the earliest `t'`, via one
    /// monotone deque per ToR. Slots enter in decreasing order, so each deque
    /// is a stack (`bot..top` in its own `H`-slot stretch of `dq`): the top
    /// is the earliest slot, the bottom the best value, which expires first.
    fn window(&mut self, l: usize, t: usize) {
        let (n, h, s) = (self.n, self.horizon, self.slices);
        let row = self.at(l, t, 0);
        let push = t + 1 < h && s > 1;
        let prow = if push { self.at(l, t + 1, 0) } else { 0 };
        for x in 0..n {
            let base = x * h;
            let (mut bot, mut top) = (self.dq_bot[x] as usize, self.dq_top[x] as usize);
            if push {
                let g = self.go[prow + x];
                if g != INF {
                    // Pop dominated entries (later and not better).
                    while top > bot && self.go[self.at(l, self.dq[base + top - 1] as usize, x)] >= g
                    {
                        top -= 1;
                    }
                    self.dq[base + top] = (t + 1) as u32;
                    top += 1;
                }
            }
            while top > bot && self.dq[base + bot] as usize > t + s - 1 {
                bot += 1;
            }
            if top > bot {
                let best = self.dq[base + bot];
                self.w[row + x] = self.go[self.at(l, best as usize, x)];
                self.w_dep[row + x] = best;
            } else {
                self.w[row + x] = INF;
                self.w_dep[row + x] = NONE;
            }
            self.dq_bot[x] = bot as u32;
            self.dq_top[x] = top as u32;
        }
    }

    fn layer_for(&self, budget: usize) -> usize {
        match self.cap {
            None => 0,
            Some(_) => budget.clamp(1, self.layers.max(1)) - 1,
        }
    }

    /// `(arrival slot, hops)` of the best path from `src` for a packet
    /// entering in slice `ts` with at most `budget` hops (ignored when
    /// unlimited).
    pub fn value(&self, src: TorId, ts: SliceId, budget: usize) -> Option<(Slot, u32)> {
        if self.layers == 0 || src as usize == self.dst {
            return None;
        }
        let k = self.v[self.at(self.layer_for(budget), ts as usize, src as usize)];
        (k != INF).then(|| unkey(k))
    }

    /// Departure slot and uplink a transit packet takes from `x` after a hop
    /// that delivered it in slot `a`, with at most `budget` hops left:
    /// `None` if it cannot reach the destination. Needs
    /// [`Dp::with_transit`] for the last layer in RotorNet style.
    pub fn transit_step(&self, x: TorId, a: Slot, budget: usize) -> Option<(Slot, PortId)> {
        let l = self.layer_for(budget);
        debug_assert!(
            self.same_slice || self.keep_transit || self.cap.is_none_or(|c| l + 1 < c),
            "transit values not kept"
        );
        let (x, a) = (x as usize, a as usize);
        if self.layers == 0 || a >= self.horizon || x == self.dst {
            return None;
        }
        let t = if self.same_slice {
            self.v_dep[self.at(l, a, x)]
        } else {
            self.w_dep[self.at(l, a, x)]
        };
        if t == NONE {
            return None;
        }
        let ai = self.go_adj[self.at(l, t as usize, x)];
        Some((t, self.adj.port[ai as usize]))
    }

    /// Build the best path (see [`Dp::value`]), `None` if there is none.
    pub fn path(&self, src: TorId, ts: SliceId, budget: usize) -> Option<Path> {
        let l = self.layer_for(budget);
        let (x, ts_u) = (src as usize, ts as usize);
        if self.layers == 0 || x == self.dst || ts_u >= self.horizon {
            return None;
        }
        let i = self.at(l, ts_u, x);
        if self.v[i] == INF {
            return None;
        }
        let mut hops = Vec::with_capacity((self.v[i] & HOP_MASK) as usize);
        self.walk(l, x, self.v_dep[i] as usize, &mut hops);
        Some(Path {
            src,
            dst: self.dst as TorId,
            arrival: Some(ts),
            hops,
            class: None,
        })
    }

    /// Like [`Dp::path`] but appends the hops to `out`; returns the count.
    pub fn path_into(
        &self,
        src: TorId,
        ts: SliceId,
        budget: usize,
        out: &mut Vec<Hop>,
    ) -> Option<usize> {
        self.value(src, ts, budget)?;
        let l = self.layer_for(budget);
        let x = src as usize;
        let start = out.len();
        self.walk(l, x, self.v_dep[self.at(l, ts as usize, x)] as usize, out);
        Some(out.len() - start)
    }

    /// Follows the chosen actions from `x` leaving in slot `t` (layer `l`).
    fn walk(&self, mut l: usize, mut x: usize, mut t: usize, out: &mut Vec<Hop>) {
        loop {
            let a = self.go_adj[self.at(l, t, x)] as usize;
            let (p, y) = (self.adj.port[a], self.adj.next[a] as usize);
            out.push(Hop {
                tor: x as TorId,
                port: p,
                depart: Some(t as Slot),
            });
            if y == self.dst {
                return;
            }
            if self.cap.is_some() {
                l -= 1;
            }
            let i = self.at(l, t, y);
            t = if self.same_slice {
                self.v_dep[i]
            } else {
                self.w_dep[i]
            } as usize;
            x = y;
        }
    }
}

/// The first uplink in `range` (of `nexts`) with the lowest hop key, and
/// that key; `(INF, NONE)` if none reaches.
#[inline]
fn best_uplink(nexts: &[TorId], range: std::ops::Range<usize>, hop: &[Key]) -> (Key, u32) {
    let (mut best, mut ba) = (INF, NONE);
    let first = range.start;
    for (i, &y) in nexts[range].iter().enumerate() {
        let c = hop[y as usize];
        if c < best {
            best = c;
            ba = (first + i) as u32;
        }
    }
    (best, ba)
}

/// Leave in slot `t` with key `go`, or wait for the next slot's value and
/// departure (`next`) when it is strictly better.
#[inline]
fn leave_or_wait(go: Key, t: usize, next: Option<(Key, u32)>) -> (Key, u32) {
    match next {
        Some((v, dep)) if v < go => (v, dep),
        _ if go == INF => (INF, NONE),
        _ => (go, t as u32),
    }
}

/// The earliest-arrival path from `src` to `dst` for a packet arriving in
/// slice `ts`, using at most `max_hop` hops ([`UNLIMITED`]: no budget);
/// among paths that arrive equally early, the one with fewest hops, then the
/// tie-break of the module docs. `None` when no path exists (or `src ==
/// dst`). Style (RotorNet / Opera) from `opts.same_slice_hops`.
///
/// This solves the whole destination; algorithms that need every source use
/// [`Dp`] directly.
pub fn earliest_path(
    s: &Schedule,
    src: TorId,
    dst: TorId,
    ts: SliceId,
    max_hop: u8,
    opts: &RoutingOptions,
) -> Option<Path> {
    if src == dst || src as usize >= s.tors() || dst as usize >= s.tors() || max_hop == 0 {
        return None;
    }
    let ts = ts % s.slices() as SliceId;
    let adj = Adjacency::new(s);
    let mut dp = Dp::new(s, &adj, max_hop, opts.same_slice_hops);
    dp.solve(dst);
    dp.path(src, ts, max_hop as usize)
}
