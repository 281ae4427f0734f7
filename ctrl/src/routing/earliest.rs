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
//!
//! # Modules
//! The keys and the choices on them are in `key`, the circuits searched in
//! `adjacency`, the backward pass in `pass`; this file holds [`Dp`], what
//! it is asked (values, transit steps, paths) and [`earliest_path`].

mod adjacency;
mod key;
mod pass;

pub use adjacency::Adjacency;
pub use key::{MAX_HOPS, UNLIMITED};

use super::{Hop, Path, RoutingOptions};
use crate::schedule::Schedule;
use crate::{PortId, SliceId, Slot, TorId};
use key::{HOP_MASK, INF, Key, MAX_HORIZON, NONE, unkey};

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
