//! Slice-miss alternates of one (ToR, dst) block (paper §6.3, Fig. 5c).

use super::build::{Dims, dec};
use super::model::*;
use crate::SliceId;

/// No entry.
pub(super) const NONE: u32 = u32::MAX;

/// [`rank`] for `x`, `depart` already in `0..s`, without divisions (hot).
#[inline]
fn wait(x: usize, depart: Option<SliceId>, s: usize) -> usize {
    match depart {
        Some(d) if d as usize >= x => d as usize - x,
        Some(d) => d as usize + s - x,
        None => 0,
    }
}

/// Scratch space for one block's alternates.
pub(super) struct AltScratch {
    /// Entry index per (arrival index, class-bucket, ingress column).
    pub(super) idx: Vec<u32>,
    /// The entry's first step there ([`enc`]).
    pub(super) first: Vec<u32>,
    /// Class-buckets with an entry for some arrival slice.
    pub(super) timed: Vec<bool>,
    /// Ingress columns with an entry (source routing fills only Host).
    pub(super) cols: [bool; 3],
    /// Entries by departure slot `D = x + wait` in `0..2S` (arrival `x` in
    /// `0..S`), each bucket sorted by (arrival, ingress column):
    /// `start`/`items` CSR of `(x, column, entry)`.
    start: Vec<u32>,
    items: Vec<(u32, u8, u32)>,
    /// Per entry of the block: (entry, best alternates).
    found: Vec<(u32, [u32; MAX_ALTERNATES], usize)>,
    /// Next departure slot with items (see `alternates`).
    skip: Vec<u32>,
    /// Class-buckets whose alternates this block computed.
    done: Vec<bool>,
    /// (class-bucket, earlier class-bucket with the same actions in every
    /// cell): the first takes the second's alternates.
    copies: Vec<(usize, usize)>,
}

impl AltScratch {
    pub(super) fn new(d: &Dims) -> AltScratch {
        AltScratch {
            idx: vec![NONE; d.arrivals * d.cb() * 3],
            first: vec![0; d.arrivals * d.cb() * 3],
            timed: vec![false; d.cb()],
            cols: [false; 3],
            start: vec![0; 2 * d.slices + 1],
            items: Vec::new(),
            found: Vec::new(),
            skip: Vec::new(),
            done: vec![false; d.cb()],
            copies: Vec::new(),
        }
    }

    /// Fills `alternates` of the entries from `first` on (one block): for
    /// an entry matching arrival `a`, the actions of the entries for
    /// `a+1, a+2, ...` (same dst, class, bucket and a compatible ingress),
    /// i.e. what the packet would do had it arrived later, restricted to
    /// those whose departure is strictly later than the primary's yet
    /// within the cycle (so the rank stays unambiguous), earliest first
    /// (ties: earlier arrival, then Any, Host, Fabric), one per distinct
    /// first step (one per calendar queue), at most [`MAX_ALTERNATES`].
    ///
    /// In absolute slots from entry `a`'s cycle, an entry for arrival `x`
    /// leaving `w` slots later departs in `D = x + w` if `x > a`, or in
    /// `D + S` (next cycle) if `x < a`; entry `a` with primary departure
    /// `a + r` scans `D in a+r+1 .. a+S`.
    pub(super) fn alternates(&mut self, d: &Dims, entries: &mut [FlatEntry], first: usize) {
        let s = d.slices;
        let used = std::mem::take(&mut self.cols);
        if s < 2 || first == entries.len() {
            return;
        }
        let cb = d.cb();
        let col = |ai: usize, k: usize, c: usize| (ai * cb + k) * 3 + c;
        let mut cols = [0usize; 3];
        let mut nc = 0;
        for c in (0..3).filter(|&c| used[c]) {
            cols[nc] = c;
            nc += 1;
        }
        let cols = &cols[..nc];
        self.found.clear();
        self.copies.clear();
        self.done.fill(false);
        for k in 0..cb {
            if !std::mem::take(&mut self.timed[k]) {
                continue;
            }
            // A class-bucket whose cells hold the same actions as an
            // earlier one's (UCMP's classes that pick the same Pareto path
            // at every arrival) has the same alternates: they depend only
            // on the actions by arrival and ingress.
            let same = |k2: usize| {
                (0..s).all(|x| {
                    cols.iter().all(|&c| {
                        let (a, b) = (self.idx[col(x + 1, k, c)], self.idx[col(x + 1, k2, c)]);
                        a == b
                            || (a != NONE
                                && b != NONE
                                && entries[a as usize].action == entries[b as usize].action)
                    })
                })
            };
            if let Some(k2) = (0..k).find(|&k2| self.done[k2] && same(k2)) {
                self.copies.push((k, k2));
                continue;
            }
            self.done[k] = true;
            // Bucket entries by departure slot.
            self.start.fill(0);
            for x in 0..s {
                for &c in cols {
                    let j = self.idx[col(x + 1, k, c)];
                    if j != NONE {
                        let w = wait(x, dec(self.first[col(x + 1, k, c)]).depart, s);
                        self.start[x + w + 1] += 1;
                    }
                }
            }
            for i in 0..2 * s {
                self.start[i + 1] += self.start[i];
            }
            self.items.clear();
            self.items.resize(self.start[2 * s] as usize, (0, 0, 0));
            let mut fill = std::mem::take(&mut self.start);
            for x in 0..s {
                for &c in cols {
                    let j = self.idx[col(x + 1, k, c)];
                    if j != NONE {
                        let w = wait(x, dec(self.first[col(x + 1, k, c)]).depart, s);
                        self.items[fill[x + w] as usize] = (x as u32, c as u8, j);
                        fill[x + w] += 1;
                    }
                }
            }
            // `fill[D]` now holds where bucket D ends, i.e. where D+1 starts.
            let items = &self.items;
            let bucket = |dd: usize| {
                let lo = if dd == 0 { 0 } else { fill[dd - 1] as usize };
                &items[lo..fill[dd] as usize]
            };
            // `skip[dd]`: the first departure slot `>= dd` whose scan
            // below has any item (bucket `dd`, or `dd - S` of the next
            // cycle); `2S` if none. Empty slots are skipped at once.
            self.skip.clear();
            self.skip.resize(2 * s + 1, 2 * s as u32);
            for dd in (0..2 * s).rev() {
                let any = !bucket(dd).is_empty() || (dd >= s && !bucket(dd - s).is_empty());
                self.skip[dd] = if any { dd as u32 } else { self.skip[dd + 1] };
            }
            let skip = &self.skip;
            for a in 0..s {
                for &ce in cols {
                    let je = self.idx[col(a + 1, k, ce)];
                    if je == NONE {
                        continue;
                    }
                    let prim = self.first[col(a + 1, k, ce)];
                    let r = wait(a, dec(prim).depart, s);
                    let mut got = [NONE; MAX_ALTERNATES];
                    let mut got_steps = [prim; MAX_ALTERNATES];
                    let mut len = 0;
                    let mut dd = skip[a + r + 1] as usize;
                    'scan: while dd < a + s {
                        // Later arrivals of this cycle, then (all later in
                        // unrolled time) earlier arrivals of the next one.
                        let this = bucket(dd);
                        let this = &this[this.partition_point(|it| it.0 as usize <= a)..];
                        let next = if dd >= s { bucket(dd - s) } else { &[] };
                        let next = &next[..next.partition_point(|it| (it.0 as usize) < a)];
                        for &(x, c, j) in this.iter().chain(next) {
                            let c = c as usize;
                            if !(ce == 0 || c == 0 || c == ce) {
                                continue;
                            }
                            let st = self.first[col(x as usize + 1, k, c)];
                            if st == prim || got_steps[..len].contains(&st) {
                                continue;
                            }
                            got[len] = j;
                            got_steps[len] = st;
                            len += 1;
                            if len == MAX_ALTERNATES {
                                break 'scan;
                            }
                        }
                        dd = skip[dd + 1] as usize;
                    }
                    if len > 0 {
                        self.found.push((je, got, len));
                    }
                }
            }
            self.start = fill;
        }
        for &(je, got, len) in &self.found {
            for (i, &j) in got[..len].iter().enumerate() {
                entries[je as usize].alternates[i] = entries[j as usize].action;
            }
        }
        for &(k, k2) in &self.copies {
            for x in 0..s {
                for &c in cols {
                    let je = self.idx[col(x + 1, k, c)];
                    if je != NONE {
                        let from = self.idx[col(x + 1, k2, c)] as usize;
                        entries[je as usize].alternates = entries[from].alternates;
                    }
                }
            }
        }
    }
}
