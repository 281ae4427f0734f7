//! Source routing without multipath on paths already in routing order:
//! the tables straight from the path store, one run of paths per
//! (ToR, dst) block, with no group keys or records; paths sharing their
//! hops share one action. The general way (`build`) is the fallback.

use super::par::{par_bounds, par_chunks};
use super::records::Records;
use super::worker::Ctx;
use crate::TorId;
use crate::config::{Lookup, Multipath};
use crate::routing::{Hop, PathRef, RouteSet};
use crate::schedule::Schedule;
use crate::tables::alternates::{AltScratch, NONE};
use crate::tables::dims::Dims;
use crate::tables::model::*;
use crate::tables::walk::check_path;
use std::ops::Range;
use std::sync::atomic::AtomicBool;

/// Source routing without multipath on paths in the routing order (strictly
/// ascending `(dst, src, arrival, class)`, so every path is the first of
/// its group and is used): each (ToR, dst) block is one run of paths
/// already in `Match` order, so the tables are built straight from the
/// store, with no group keys or per-block records. `None` when the paths
/// are in another order (then [`build`](super::build)'s general way applies). The same
/// tables as the general way: same entries in the same order, same checks.
pub(super) fn build_sorted_source(
    s: &Schedule,
    routes: &RouteSet,
    threads: usize,
) -> Result<Option<FlatTables>, TableError> {
    let paths = &routes.paths;
    let n = s.tors();
    let arrivals = (s.slices() + 1) as u64;
    let order = |p: PathRef<'_>| {
        ((p.dst as u64 * n as u64 + p.src as u64) * arrivals + Dims::arrival(p.arrival) as u64)
            * 257
            + p.class.map_or(0, |c| c as u64 + 1)
    };
    let checked = par_chunks(paths.len(), threads, |r| {
        let mut class_seen = [false; 257];
        let (mut sorted, mut timed) = (true, false);
        // Paths per (dst, src) block, for the blocks' runs below, and
        // steps to reserve (paths sharing the hops before them share
        // their action's steps).
        let mut counts = vec![0u32; n * n];
        let mut steps = vec![0u32; n * n];
        let mut prev: Option<PathRef<'_>> = None;
        let mut prev_key: Option<u64> = None;
        for i in r {
            let p = paths.get(i);
            let shared = prev.is_some_and(|q| {
                (q.src, q.dst, q.arrival) == (p.src, p.dst, p.arrival)
                    && std::ptr::eq(q.hops, p.hops)
            });
            let block = p.dst as usize * n + p.src as usize;
            if !shared {
                check_path(s, p)?;
                steps[block] += p.hops.len() as u32;
            }
            let key = order(p);
            sorted &= prev_key.is_none_or(|k| k < key);
            prev_key = Some(key);
            class_seen[p.class.map_or(0, |c| c as usize + 1)] = true;
            timed |= p.arrival.is_some();
            counts[block] += 1;
            prev = Some(p);
        }
        Ok((class_seen, sorted, timed, counts, steps))
    });
    let mut class_seen = [false; 257];
    let (mut sorted, mut timed) = (true, false);
    // `start[dst * n + src]`: where block (src, dst)'s run starts.
    let mut start = vec![0u32; n * n + 1];
    let mut steps = vec![0u32; n * n];
    for c in checked {
        let (seen, sorted_here, timed_here, counts, steps_here) = c?;
        for (all, this) in steps.iter_mut().zip(steps_here) {
            *all += this;
        }
        for (all, this) in class_seen.iter_mut().zip(seen) {
            *all |= this;
        }
        sorted &= sorted_here;
        timed |= timed_here;
        for (s, c) in start[1..].iter_mut().zip(counts) {
            *s += c;
        }
    }
    for k in 0..n * n {
        start[k + 1] += start[k];
    }
    // Across chunk boundaries.
    for w in par_bounds(paths.len(), threads).windows(2) {
        if w[0] > 0 && w[0] < paths.len() {
            sorted &= order(paths.get(w[0] - 1)) < order(paths.get(w[0]));
        }
    }
    if !sorted {
        return Ok(None);
    }
    let dims = Dims::new(s, Lookup::Source, Multipath::None, 1, &class_seen);
    let recs = Records { parts: Vec::new() };
    let failed = AtomicBool::new(false);
    let ctx = Ctx {
        dims: &dims,
        recs: &recs,
        paths,
        lookup: Lookup::Source,
        failed: &failed,
    };
    // The run of paths of block (tor, dst) (the paths are sorted).
    let block = |tor: usize, dst: usize| {
        let k = dst * n + tor;
        start[k] as usize..start[k + 1] as usize
    };
    let work = |w: usize| {
        let mut out = Vec::new();
        let mut scratch = AltScratch::new(&dims);
        let mut last_of: Vec<Option<(&[Hop], u32)>> = vec![None; dims.cb()];
        for tor in (w..n).step_by(threads) {
            let runs: Vec<Range<usize>> = (0..n).map(|d| block(tor, d)).collect();
            let entries = runs.iter().map(|r| r.len()).sum();
            // At most (see `shared` below).
            let steps = (0..n).map(|d| steps[d * n + tor] as usize).sum();
            let mut table = FlatTable::with_capacity(tor as TorId, entries, steps);
            for (dst, r) in runs.into_iter().enumerate() {
                if r.is_empty() {
                    continue;
                }
                scratch.idx.fill(NONE);
                let first = table.len();
                // A path with the same hops as the one before it (UCMP's
                // classes picking the same Pareto path) or as the last one
                // of its class (the next arrival waiting for the same
                // circuit) shares that one's action.
                let mut shared: Option<(&[Hop], u32)> = None;
                last_of.fill(None);
                for i in r {
                    let p = paths.get(i);
                    let (ai, k) = (Dims::arrival(p.arrival), dims.class(p.class));
                    let same = shared
                        .filter(|(q, _)| same_hops(q, p.hops))
                        .or_else(|| last_of[k].filter(|(q, _)| same_hops(q, p.hops)));
                    let action = ctx.push_source(
                        dst as TorId,
                        ai,
                        k,
                        p.hops,
                        same.map(|(_, a)| a),
                        &mut table,
                        &mut scratch,
                    );
                    shared = Some((p.hops, action));
                    last_of[k] = shared;
                }
                scratch.alternates(&dims, table.entries_mut(), first);
            }
            table.index(n);
            out.push((tor, table));
        }
        out
    };
    let mut tors: Vec<FlatTable> = (0..n)
        .map(|t| FlatTable::with_capacity(t as TorId, 0, 0))
        .collect();
    let outs = if threads <= 1 {
        vec![work(0)]
    } else {
        std::thread::scope(|sc| {
            let work = &work;
            let handles: Vec<_> = (1..threads).map(|w| sc.spawn(move || work(w))).collect();
            let mut v = vec![work(0)];
            v.extend(
                handles
                    .into_iter()
                    .map(|h| h.join().expect("tables worker")),
            );
            v
        })
    };
    for (tor, t) in outs.into_iter().flatten() {
        tors[tor] = t;
    }
    Ok(Some(FlatTables {
        slices: if timed { s.slices() } else { 1 },
        lookup: Lookup::Source,
        multipath: Multipath::None,
        buckets: 1,
        classes: routes.classes.clone(),
        tors,
    }))
}

/// Whether two paths have the same hops (the same store range, or equal).
fn same_hops(q: &[Hop], p: &[Hop]) -> bool {
    std::ptr::eq(q, p) || q == p
}
