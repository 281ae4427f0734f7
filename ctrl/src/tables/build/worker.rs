//! What each worker thread does for its ToRs: fill each (ToR, dst)
//! block's cells from the records, keep the first clash (a conflict), and
//! write the block's entries and actions into the ToR's `FlatTable` in
//! `Match` order (per hop: Host and Fabric widened into Any unless they
//! differ), noting where each landed for the alternates. The entry writer
//! (`push_source`) also serves the sorted source-routing way.

use super::records::Records;
use crate::config::Lookup;
use crate::routing::{Hop, Paths};
use crate::tables::alternates::{AltScratch, NONE};
use crate::tables::dims::{Dims, dec, enc};
use crate::tables::model::*;
use crate::{SliceId, TorId};
use std::sync::atomic::{AtomicBool, Ordering};

/// The first clash in one worker's share: `prev` was in `cell` when `val`
/// (insertion number `ord`) came.
pub(super) struct Clash {
    pub(super) part: usize,
    pub(super) ord: u32,
    pub(super) tor: TorId,
    pub(super) dst: TorId,
    pub(super) cell: u32,
    pub(super) prev: u32,
    pub(super) val: u32,
}

pub(super) struct WorkerOut {
    pub(super) tables: Vec<(usize, FlatTable)>,
    pub(super) conflict: Option<Clash>,
}

/// What every worker shares.
pub(super) struct Ctx<'a> {
    pub(super) dims: &'a Dims,
    pub(super) recs: &'a Records,
    pub(super) paths: &'a Paths,
    pub(super) lookup: Lookup,
    pub(super) failed: &'a AtomicBool,
}

impl Ctx<'_> {
    fn source(&self, val: u32) -> Vec<Step> {
        let p = self.paths.get(val as usize - 1);
        p.hops.iter().map(|h| self.dims.step(h)).collect()
    }

    /// Appends the action of cell value `val` to `t`; returns its index.
    fn push_action(&self, val: u32, t: &mut FlatTable) -> u32 {
        match self.lookup {
            Lookup::Hop => t.push_action(ActionRef {
                source: false,
                steps: &[dec(val)],
            }),
            Lookup::Source => self.push_route(self.paths.get(val as usize - 1).hops, t),
        }
    }

    /// Appends a source-route action over `hops` to `t`; returns its index.
    #[inline]
    fn push_route(&self, hops: &[Hop], t: &mut FlatTable) -> u32 {
        let steps = t.steps_mut();
        let start = steps.len();
        steps.extend(hops.iter().map(|h| self.dims.step(h)));
        t.push_span(start as u32, hops.len(), true)
    }

    fn action(&self, val: u32) -> Action {
        match self.lookup {
            Lookup::Hop => Action::Hop(dec(val)),
            Lookup::Source => Action::Source(self.source(val)),
        }
    }

    fn same(&self, a: u32, b: u32) -> bool {
        a == b
            || (self.lookup == Lookup::Source && {
                let (p, q) = (
                    self.paths.get(a as usize - 1),
                    self.paths.get(b as usize - 1),
                );
                p.hops.len() == q.hops.len()
                    && p.hops
                        .iter()
                        .zip(q.hops)
                        .all(|(x, y)| self.dims.step(x) == self.dims.step(y))
            })
    }

    pub(super) fn conflict_error(&self, c: &Clash) -> TableError {
        TableError::Conflict {
            tor: c.tor,
            m: self.dims.match_of(c.dst, c.cell),
            a: self.action(c.prev),
            b: self.action(c.val),
        }
    }

    /// Builds the tables of ToRs `w, w + of, ...` (ToRs cost about the
    /// same, and a fixed split keeps runs reproducible).
    pub(super) fn work(&self, w: usize, of: usize) -> WorkerOut {
        let d = self.dims;
        let n = d.tors;
        let mut out = WorkerOut {
            tables: Vec::new(),
            conflict: None,
        };
        let mut cells = vec![0u32; d.block_cells()];
        let mut scratch = AltScratch::new(d);
        for tor in (w..n).step_by(of) {
            let parts = &self.recs.parts;
            let cap = parts
                .iter()
                .map(|p| (p.start[(tor + 1) * n] - p.start[tor * n]) as usize)
                .sum();
            let steps = match self.lookup {
                Lookup::Hop => cap,
                Lookup::Source => cap * 2,
            };
            let mut table = FlatTable::with_capacity(tor as TorId, cap, steps);
            for dst in 0..n {
                let k = tor * n + dst;
                if parts.iter().all(|p| p.block(k).is_empty()) {
                    continue;
                }
                cells.fill(0);
                let mut clash = None;
                'fill: for (part, p) in parts.iter().enumerate() {
                    for r in p.block(k) {
                        let c = &mut cells[r.cell as usize];
                        if *c == 0 {
                            *c = r.val;
                        } else if !self.same(*c, r.val) {
                            clash = Some(Clash {
                                part,
                                ord: r.ord,
                                tor: tor as TorId,
                                dst: dst as TorId,
                                cell: r.cell,
                                prev: *c,
                                val: r.val,
                            });
                            break 'fill;
                        }
                    }
                }
                if let Some(c) = clash {
                    self.failed.store(true, Ordering::Relaxed);
                    if out
                        .conflict
                        .as_ref()
                        .is_none_or(|o| (c.part, c.ord) < (o.part, o.ord))
                    {
                        out.conflict = Some(c);
                    }
                }
                if self.failed.load(Ordering::Relaxed) {
                    continue;
                }
                let first = table.len();
                self.emit(dst as TorId, &cells, &mut table, &mut scratch);
                scratch.alternates(d, table.entries_mut(), first);
            }
            table.index(n);
            out.tables.push((tor, table));
        }
        out
    }

    /// Appends the entry of cell value `val` for arrival index `ai`,
    /// class-bucket `k` and `ingress`, with a new action.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &self,
        dst: TorId,
        ai: usize,
        k: usize,
        ingress: Ingress,
        val: u32,
        entries: &mut FlatTable,
        scratch: &mut AltScratch,
    ) {
        let first = match self.lookup {
            Lookup::Hop => val,
            Lookup::Source => enc(self.dims.step(&self.paths.get(val as usize - 1).hops[0])),
        };
        let action = self.push_action(val, entries);
        self.place(dst, ai, k, ingress, first, action, entries, scratch);
    }

    /// [`Ctx::push`] of a source route given by its hops, from the Host
    /// column, with action `action` if given (one already in the table
    /// with the same steps); returns the entry's action.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push_source(
        &self,
        dst: TorId,
        ai: usize,
        k: usize,
        hops: &[Hop],
        action: Option<u32>,
        entries: &mut FlatTable,
        scratch: &mut AltScratch,
    ) -> u32 {
        let first = enc(self.dims.step(&hops[0]));
        let action = action.unwrap_or_else(|| self.push_route(hops, entries));
        self.place(dst, ai, k, Ingress::Host, first, action, entries, scratch);
        action
    }

    /// Appends the entry with action `action` whose first step is `first`
    /// ([`enc`]), and records where it landed in `scratch`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn place(
        &self,
        dst: TorId,
        ai: usize,
        k: usize,
        ingress: Ingress,
        first: u32,
        action: u32,
        entries: &mut FlatTable,
        scratch: &mut AltScratch,
    ) {
        let d = self.dims;
        let col = ingress_col(ingress);
        let at = (ai * d.cb() + k) * 3 + col;
        scratch.idx[at] = entries.len() as u32;
        scratch.first[at] = first;
        scratch.timed[k] |= ai > 0;
        scratch.cols[col] = true;
        let m = Match {
            dst,
            arrival: ai.checked_sub(1).map(|a| a as SliceId),
            ingress,
            class: d.keys[k].0,
            bucket: d.keys[k].1,
        };
        entries.push_entry(m, action);
    }

    /// Appends one block's entries in `Match` order (arrival, ingress,
    /// class, bucket) and records where each landed in `scratch.idx`.
    fn emit(&self, dst: TorId, cells: &[u32], entries: &mut FlatTable, scratch: &mut AltScratch) {
        let d = self.dims;
        let cb = d.cb();
        scratch.idx.fill(NONE);
        let mut push = |ai: usize, k: usize, ingress: Ingress, val: u32, t: &mut FlatTable| {
            self.push(dst, ai, k, ingress, val, t, scratch);
        };
        for ai in 0..d.arrivals {
            let row = &cells[ai * cb * d.ingress..(ai + 1) * cb * d.ingress];
            if row.iter().all(|&v| v == 0) {
                continue;
            }
            match self.lookup {
                Lookup::Source => {
                    for (k, &v) in row.iter().enumerate().filter(|(_, v)| **v != 0) {
                        push(ai, k, Ingress::Host, v, entries);
                    }
                }
                Lookup::Hop => {
                    let split = |k: usize| {
                        let (h, f) = (row[2 * k], row[2 * k + 1]);
                        h != 0 && f != 0 && h != f
                    };
                    for k in 0..cb {
                        let v = if row[2 * k] != 0 {
                            row[2 * k]
                        } else {
                            row[2 * k + 1]
                        };
                        if v != 0 && !split(k) {
                            push(ai, k, Ingress::Any, v, entries);
                        }
                    }
                    for (ing, ingress) in [(0, Ingress::Host), (1, Ingress::Fabric)] {
                        for k in (0..cb).filter(|&k| split(k)) {
                            push(ai, k, ingress, row[2 * k + ing], entries);
                        }
                    }
                }
            }
        }
    }
}

fn ingress_col(i: Ingress) -> usize {
    match i {
        Ingress::Any => 0,
        Ingress::Host => 1,
        Ingress::Fabric => 2,
    }
}
