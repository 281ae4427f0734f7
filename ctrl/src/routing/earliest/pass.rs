//! The backward pass of [`Dp`]: slots from the horizon down, budget layer
//! by budget layer until a fixpoint; per slot each ToR's best hop (the
//! one-hop layer, a full or incremental search over the uplinks, or
//! Opera's in-slot label setting) and then leave now or wait, and the
//! RotorNet transit values as a sliding-window minimum. The queries that
//! read its values are in `earliest.rs`.

use super::Dp;
use super::key::{INF, Key, MAX_HORIZON, NONE, best_uplink, key, leave_or_wait, plus_hop};
use crate::TorId;

impl Dp<'_> {
    pub(super) fn run(&mut self, horizon: usize) {
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

    pub(super) fn run_layer(&mut self, l: usize) {
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
    pub(super) fn hop_row(&mut self, l: usize, t: usize, slice: usize, incremental: bool) {
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
    pub(super) fn mark_changed(&mut self, l: usize, t: usize, slice: usize) {
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
    pub(super) fn fill_hop_values(&mut self, t: usize, trow: Option<usize>) {
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
    pub(super) fn best_hop(&self, slice: usize, x: usize) -> (Key, u32) {
        best_uplink(&self.adj.next, self.adj.range(slice, x), &self.hop)
    }

    /// Leave now (`go`, preferred on ties) or wait for the next slot.
    #[inline]
    pub(super) fn pick(&self, go: Key, t: usize, next_row: Option<usize>, x: usize) -> (Key, u32) {
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
    pub(super) fn same_slot(
        &mut self,
        slice: usize,
        t: usize,
        row: usize,
        next_row: Option<usize>,
    ) {
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
    pub(super) fn window(&mut self, l: usize, t: usize) {
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
}
