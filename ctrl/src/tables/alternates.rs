//! Slice-miss alternates of one (ToR, dst) block (paper §6.3, Fig. 5c).

use super::dims::{Dims, dec};
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
    /// Per (arrival `x`, used column) of the class-bucket at hand: the
    /// departure slot `x + wait` of its entry's first step, the step and
    /// the entry's action ([`NONE`] for both slot and action when there is
    /// none).
    cells: Vec<(u32, u32, u32)>,
    /// Per arrival, with one column: how many arrivals after it share its
    /// first step.
    same: Vec<u32>,
    /// Class-buckets whose alternates this block computed.
    done: Vec<bool>,
    /// (class-bucket, earlier class-bucket with the same actions in every
    /// cell): the first takes the second's alternates.
    copies: Vec<(usize, usize)>,
}

/// [`scan`] for a block with one ingress column (source routing): the
/// arrivals come in key order, so a later one wins only with an earlier
/// departure.
#[inline]
fn scan_one(
    cells: &[(u32, u32, u32)],
    from: usize,
    a: usize,
    s: usize,
    p: u32,
    prim: u32,
) -> ([u32; MAX_ALTERNATES], usize) {
    const _: () = assert!(MAX_ALTERNATES == 2);
    let end = (a + s) as u32;
    // (departure, step, action) of the best and the second best.
    let mut best = (u32::MAX, prim, NONE);
    let mut second = (u32::MAX, prim, NONE);
    let mut len = 0;
    // Arrivals `a + 1 ..= from` share the primary's step.
    let mut xu = from + 1;
    let (mut x, mut wrap) = if xu < s { (xu, 0) } else { (xu - s, s as u32) };
    while xu < a + s {
        if x == s {
            x = 0;
            wrap = s as u32;
        }
        if len == 2 && xu as u32 > second.0 {
            break;
        }
        let (dx, st, j) = cells[x];
        xu += 1;
        x += 1;
        if dx == NONE {
            continue;
        }
        let dd = dx + wrap;
        if dd <= p || dd >= end || st == prim || st == best.1 || st == second.1 {
            continue;
        }
        if dd < best.0 {
            second = best;
            best = (dd, st, j);
        } else if dd < second.0 {
            second = (dd, st, j);
        } else {
            continue;
        }
        len = (len + 1).min(2);
    }
    ([best.2, second.2], len)
}

/// The alternates of the entry for arrival `a` in column `cols[ce]` of
/// one class-bucket's `cells` (see [`AltScratch::alternates`]), whose
/// primary departs in slot `p` with first step `prim`: their actions and
/// how many.
#[inline]
fn scan(
    cells: &[(u32, u32, u32)],
    cols: &[usize],
    ce: usize,
    a: usize,
    s: usize,
    p: u32,
    prim: u32,
) -> ([u32; MAX_ALTERNATES], usize) {
    let nc = cols.len();
    let end = (a + s) as u32;
    // Held alternates, best first: (departure, unrolled arrival, column
    // position) as the order key, first step, action.
    let mut got = [((0u32, 0u32, 0usize), 0u32, NONE); MAX_ALTERNATES];
    let mut len = 0;
    for xu in a + 1..a + s {
        if len == MAX_ALTERNATES && xu as u32 > got[len - 1].0.0 {
            break;
        }
        let (x, wrap) = if xu < s { (xu, 0) } else { (xu - s, s as u32) };
        let row = &cells[x * nc..x * nc + nc];
        for (ci, &(dx, st, j)) in row.iter().enumerate() {
            if dx == NONE || !(cols[ce] == 0 || cols[ci] == 0 || ci == ce) {
                continue;
            }
            let dd = dx + wrap;
            if dd <= p || dd >= end || st == prim || got[..len].iter().any(|g| g.1 == st) {
                continue;
            }
            let key = (dd, xu as u32, ci);
            // Insert in key order, dropping the worst.
            let mut i = len.min(MAX_ALTERNATES - 1);
            if len == MAX_ALTERNATES && key >= got[i].0 {
                continue;
            }
            got[i] = (key, st, j);
            while i > 0 && got[i].0 < got[i - 1].0 {
                got.swap(i, i - 1);
                i -= 1;
            }
            len = (len + 1).min(MAX_ALTERNATES);
        }
    }
    let mut ids = [NONE; MAX_ALTERNATES];
    for (id, g) in ids.iter_mut().zip(&got[..len]) {
        *id = g.2;
    }
    (ids, len)
}

impl AltScratch {
    pub(super) fn new(d: &Dims) -> AltScratch {
        AltScratch {
            idx: vec![NONE; d.arrivals * d.cb() * 3],
            first: vec![0; d.arrivals * d.cb() * 3],
            timed: vec![false; d.cb()],
            cols: [false; 3],
            cells: Vec::with_capacity(d.slices * 3),
            same: Vec::with_capacity(d.slices),
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
    /// `P = a + r` takes those with `P < D < a + S`. The arrivals are
    /// scanned in that unrolled order, which ends early: an entry never
    /// departs before it arrives, so once two alternates are held, none
    /// arriving after the later one's departure can displace it (on
    /// opera-108 under UCMP the scan stops about 17 slots on). Entries
    /// with one first step all depart in one slot of the window, so the
    /// first of them seen is that step's best.
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
            // This class-bucket's cells as (departure slot, first step,
            // action) by (arrival, used column).
            self.cells.clear();
            for x in 0..s {
                for &c in cols {
                    let at = col(x + 1, k, c);
                    let j = self.idx[at];
                    self.cells.push(if j == NONE {
                        (NONE, 0, NONE)
                    } else {
                        let st = self.first[at];
                        let action = entries[j as usize].action;
                        ((x + wait(x, dec(st).depart, s)) as u32, st, action)
                    });
                }
            }
            if nc == 1 {
                // `same[x]`: how many arrivals after `x` (cyclically) have
                // its first step; a scan from `x` skips them.
                self.same.clear();
                self.same.resize(s, 0);
                // Two rounds backwards, so runs carry across the cycle end.
                for xu in (0..2 * s - 1).rev() {
                    let x = if xu < s { xu } else { xu - s };
                    let y = if x + 1 < s { x + 1 } else { 0 };
                    let (cx, cy) = (self.cells[x], self.cells[y]);
                    self.same[x] = if cx.2 != NONE && cy.2 != NONE && cx.1 == cy.1 {
                        (self.same[y] + 1).min(s as u32 - 1)
                    } else {
                        0
                    };
                }
            }
            // With one column, the last scan's run end, primary departure
            // and result: the arrivals of one run with one departure (a
            // run can outlast its step's slot, and the rest leave a cycle
            // later) scan the same arrivals, the later ones with a window
            // that ends later. What a later window adds departs after the
            // earlier window's end, so two alternates found in the earlier
            // window are the later arrivals' too.
            let mut last: Option<(usize, u32, [u32; MAX_ALTERNATES])> = None;
            for a in 0..s {
                for ci in 0..nc {
                    let (p, prim, _) = self.cells[a * nc + ci];
                    let je = self.idx[col(a + 1, k, cols[ci])];
                    if je == NONE {
                        continue;
                    }
                    let (ids, len) = if nc == 1 {
                        let from = a + self.same[a] as usize;
                        match last {
                            Some((f, q, ids)) if (f, q) == (from, p) => (ids, MAX_ALTERNATES),
                            _ => {
                                let (ids, len) = scan_one(&self.cells, from, a, s, p, prim);
                                last = (len == MAX_ALTERNATES).then_some((from, p, ids));
                                (ids, len)
                            }
                        }
                    } else {
                        scan(&self.cells, cols, ci, a, s, p, prim)
                    };
                    if len > 0 {
                        entries[je as usize].alternates = ids;
                    }
                }
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
