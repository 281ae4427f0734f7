//! `entries()`: paths → time-flow tables, built straight into the flat form.
//!
//! This file is the general way: check the paths and key their groups,
//! choose the paths (`choose`), turn them into insertions per (ToR, dst)
//! block (`records`), and let the workers (`worker`) fill and write each
//! ToR's table, in parallel (`par`). Source routing on paths already in
//! routing order takes a shorter way (`source`).

mod choose;
mod par;
mod records;
mod source;
mod worker;

use super::dims::Dims;
use super::model::*;
use super::walk::check_path;
use crate::TorId;
use crate::config::{Lookup, Multipath};
use crate::routing::{PathRef, RouteSet};
use crate::schedule::Schedule;
use choose::{choose, choose_first};
use par::{par_chunks, par_chunks_mut};
use records::{Part, Records, count};
use source::build_sorted_source;
use std::sync::atomic::AtomicBool;
use worker::{Ctx, WorkerOut};

/// The paper's `entries([path], LOOKUP, MULTIPATH)`.
///
/// Paths sharing `(src, dst, arrival, class)` are alternatives in their
/// order in `routes`. With `multipath` off only the first is used; else hash
/// bucket `b` in `0..buckets` takes alternative `b % n` and every entry of
/// that path carries `bucket: b` (the bucket is fixed at the source and the
/// same at every hop). See docs/tables.md for the full semantics.
///
/// Per-hop tables widen Host/Fabric entries of one key into a single `Any`
/// entry unless their actions differ: every action in a per-hop table is a
/// valid continuation to `dst` from this ToR and slice, whoever sent the
/// packet, so widening never misroutes and turns would-be misses into
/// forwarding. Alternates: see [`MAX_ALTERNATES`] and docs/tables.md.
///
/// Implementation: every match field has a small known range, so each
/// (ToR, dst) pair gets a dense block of cells indexed by (arrival, class,
/// bucket, ingress) instead of a map; ToRs are filled in parallel. Paths
/// are applied in the same order as the one-map-per-ToR definition, so the
/// first conflict reported is the same one.
///
/// Returns the expanded form; [`entries_flat`] is the same in flat form.
pub fn entries(
    s: &Schedule,
    routes: &RouteSet,
    lookup: Lookup,
    multipath: Multipath,
    buckets: u8,
) -> Result<Tables, TableError> {
    entries_with_threads(s, routes, lookup, multipath, buckets, None)
}

/// [`entries`] on exactly `threads` worker threads (`None`: one for small
/// inputs, else the available cores). For tests of the parallel path.
#[doc(hidden)]
pub fn entries_with_threads(
    s: &Schedule,
    routes: &RouteSet,
    lookup: Lookup,
    multipath: Multipath,
    buckets: u8,
    threads: Option<usize>,
) -> Result<Tables, TableError> {
    build(s, routes, lookup, multipath, buckets, threads).map(|t| t.to_tables())
}

/// [`entries`] in flat form (what compiling uses).
pub fn entries_flat(
    s: &Schedule,
    routes: &RouteSet,
    lookup: Lookup,
    multipath: Multipath,
    buckets: u8,
) -> Result<FlatTables, TableError> {
    build(s, routes, lookup, multipath, buckets, None)
}

fn build(
    s: &Schedule,
    routes: &RouteSet,
    lookup: Lookup,
    multipath: Multipath,
    buckets: u8,
    threads: Option<usize>,
) -> Result<FlatTables, TableError> {
    let slices = s.slices();
    if multipath != Multipath::None && buckets == 0 {
        return Err(TableError::Invalid(
            "multipath needs at least one hash bucket".into(),
        ));
    }
    let paths = &routes.paths;
    let n = s.tors();
    let threads = match threads {
        Some(t) => t.max(1),
        None if paths.len() < 20_000 => 1,
        None => std::thread::available_parallelism()
            .map_or(1, |p| p.get())
            .clamp(1, 8)
            .min(n.max(1)),
    };
    if lookup == Lookup::Source
        && multipath == Multipath::None
        && let Some(t) = build_sorted_source(s, routes, threads)?
    {
        return Ok(t);
    }
    // Check paths and compute their group keys, in parallel chunks; the
    // first chunk with an invalid path has the first one.
    let arrivals = s.slices() + 1;
    // Without multipath every path is used unless it repeats a group, so
    // the chunks also count their insertions per block on the way.
    let single = multipath == Multipath::None;
    let mut keys = vec![0u64; paths.len()];
    let checked = par_chunks_mut(&mut keys, threads, |from, keys| {
        let mut class_seen = [false; 257];
        let mut counts = if single {
            vec![0u32; n * n + 1]
        } else {
            Vec::new()
        };
        let mut prev: Option<PathRef<'_>> = None;
        for (i, k) in keys.iter_mut().enumerate() {
            let p = paths.get(from + i);
            // A path sharing the previous one's hops (UCMP's classes) and
            // endpoints was checked with it.
            let checked = prev.is_some_and(|q| {
                (q.src, q.dst, q.arrival) == (p.src, p.dst, p.arrival)
                    && std::ptr::eq(q.hops, p.hops)
            });
            if !checked {
                check_path(s, p)?;
            }
            prev = Some(p);
            let c = p.class.map_or(0, |c| c as usize + 1);
            class_seen[c] = true;
            let triple = (p.src as u64 * n as u64 + p.dst as u64) * arrivals as u64
                + Dims::arrival(p.arrival) as u64;
            *k = triple * 257 + c as u64;
            if single {
                count(&mut counts, n, p, lookup, 1);
            }
        }
        Ok((class_seen, from..from + keys.len(), counts))
    });
    let mut class_seen = [false; 257];
    let mut chunks = Vec::with_capacity(checked.len());
    for c in checked {
        let (seen, range, counts) = c?;
        for (all, this) in class_seen.iter_mut().zip(seen) {
            *all |= this;
        }
        chunks.push((range, Some(counts)));
    }
    let dims = Dims::new(s, lookup, multipath, buckets, &class_seen);
    let chosen = if single {
        let (chosen, repeats) = choose_first(&keys, &dims);
        for i in repeats {
            let (_, counts) = chunks
                .iter_mut()
                .find(|(r, _)| r.contains(&(i as usize)))
                .expect("a chunk holds every path");
            if let Some(counts) = counts {
                count(counts, n, paths.get(i as usize), lookup, u32::MAX);
            }
        }
        chosen
    } else {
        choose(&keys, &dims, buckets)
    };
    drop(keys);
    let parts = if single {
        // Chosen paths are in path order: each chunk takes its own.
        par_chunks_mut(&mut chunks, threads, |_, cs| {
            let (r, counts) = &mut cs[0];
            let lo = chosen.partition_point(|c| (c.0 as usize) < r.start);
            let hi = chosen.partition_point(|c| (c.0 as usize) < r.end);
            Part::build(paths, &chosen[lo..hi], &dims, lookup, counts.take())
        })
    } else {
        par_chunks(chosen.len(), threads, |r| {
            Part::build(paths, &chosen[r], &dims, lookup, None)
        })
    };
    let recs = Records { parts };

    let failed = AtomicBool::new(false);
    let ctx = Ctx {
        dims: &dims,
        recs: &recs,
        paths,
        lookup,
        failed: &failed,
    };
    let mut outs: Vec<WorkerOut> = if threads <= 1 {
        vec![ctx.work(0, 1)]
    } else {
        std::thread::scope(|sc| {
            let ctx = &ctx;
            let handles: Vec<_> = (1..threads)
                .map(|w| sc.spawn(move || ctx.work(w, threads)))
                .collect();
            let mut v = vec![ctx.work(0, threads)];
            v.extend(
                handles
                    .into_iter()
                    .map(|h| h.join().expect("tables worker")),
            );
            v
        })
    };
    if let Some(c) = outs
        .iter_mut()
        .filter_map(|o| o.conflict.take())
        .min_by_key(|c| (c.part, c.ord))
    {
        return Err(ctx.conflict_error(&c));
    }
    let mut tors: Vec<FlatTable> = (0..n)
        .map(|t| FlatTable::with_capacity(t as TorId, 0, 0))
        .collect();
    for o in outs {
        for (tor, t) in o.tables {
            tors[tor] = t;
        }
    }
    // Every chosen path leaves an entry with its own arrival at its source.
    let timed = chosen
        .iter()
        .any(|&(p, _)| paths.get(p as usize).arrival.is_some());
    Ok(FlatTables {
        slices: if timed { slices } else { 1 },
        lookup,
        multipath,
        buckets: if multipath == Multipath::None {
            1
        } else {
            buckets
        },
        classes: routes.classes.clone(),
        tors,
    })
}
