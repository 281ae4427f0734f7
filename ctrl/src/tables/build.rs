//! `entries()`: paths → time-flow tables, built straight into the flat form.

use super::alternates::{AltScratch, NONE};
use super::dims::{Dims, dec, enc};
use super::model::*;
use super::walk::check_path;
use crate::config::{Lookup, Multipath};
use crate::routing::{Hop, PathRef, Paths, RouteSet};
use crate::schedule::Schedule;
use crate::{SliceId, TorId};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Source routing without multipath on paths in the routing order (strictly
/// ascending `(dst, src, arrival, class)`, so every path is the first of
/// its group and is used): each (ToR, dst) block is one run of paths
/// already in `Match` order, so the tables are built straight from the
/// store, with no group keys or per-block records. `None` when the paths
/// are in another order (then [`build`]'s general way applies). The same
/// tables as the general way: same entries in the same order, same checks.
fn build_sorted_source(
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

/// Without multipath: the first path of each group (in path order, bucket
/// `None`), and the indices of the other paths.
fn choose_first(keys: &[u64], dims: &Dims) -> (Vec<(u32, Option<u8>)>, Vec<u32>) {
    let n = dims.tors;
    let space = n * n * dims.arrivals * dims.classes.len();
    let dense = space <= (keys.len() * 64).max(1 << 25);
    let mut bits = if dense {
        vec![0u64; space.div_ceil(64)]
    } else {
        Vec::new()
    };
    let mut sparse: HashSet<u64> = HashSet::new();
    let mut chosen = Vec::with_capacity(keys.len());
    let mut repeats = Vec::new();
    for (i, &k) in keys.iter().enumerate() {
        let new = if dense {
            let c = dims.class_idx[(k % 257) as usize] as usize;
            let g = (k / 257) as usize * dims.classes.len() + c;
            let (w, b) = (g / 64, 1u64 << (g % 64));
            let new = bits[w] & b == 0;
            bits[w] |= b;
            new
        } else {
            sparse.insert(k)
        };
        if new {
            chosen.push((i as u32, None));
        } else {
            repeats.push(i as u32);
        }
    }
    (chosen, repeats)
}

/// Adds `by` (wrapping: `u32::MAX` subtracts one) to the per-block
/// insertion counts (`counts[block + 1]`) of path `p`.
fn count(counts: &mut [u32], n: usize, p: PathRef<'_>, lookup: Lookup, by: u32) {
    match lookup {
        Lookup::Hop => {
            for h in p.hops {
                let c = &mut counts[h.tor as usize * n + p.dst as usize + 1];
                *c = c.wrapping_add(by);
            }
        }
        Lookup::Source => {
            let c = &mut counts[p.src as usize * n + p.dst as usize + 1];
            *c = c.wrapping_add(by);
        }
    }
}

/// With multipath: the paths tables are built from, in the order the
/// definition applies them: `(path index, bucket)`.
/// `keys[i]`: path `i`'s group (src, dst, arrival, class) as
/// `((src * n + dst) * arrivals + arrival index) * 257 + class key` (0 for
/// no class, else `1 + class`).
fn choose(keys: &[u64], dims: &Dims, buckets: u8) -> Vec<(u32, Option<u8>)> {
    // Groups numbered in first-seen order.
    let n = dims.tors;
    let space = n * n * dims.arrivals * dims.classes.len();
    let dense = space <= (keys.len() * 8).max(1 << 22);
    let mut ids = if dense {
        vec![u32::MAX; space]
    } else {
        Vec::new()
    };
    let mut sparse: HashMap<u64, u32> = HashMap::new();
    let mut groups = 0u32;
    let gid: Vec<u32> = keys
        .iter()
        .map(|&k| {
            let slot = if dense {
                let c = dims.class_idx[(k % 257) as usize] as usize;
                &mut ids[(k / 257) as usize * dims.classes.len() + c]
            } else {
                sparse.entry(k).or_insert(u32::MAX)
            };
            if *slot == u32::MAX {
                *slot = groups;
                groups += 1;
            }
            *slot
        })
        .collect();
    drop(ids);
    // Members of each group in path order (CSR).
    let mut start = vec![0u32; groups as usize + 1];
    for &g in &gid {
        start[g as usize + 1] += 1;
    }
    for g in 0..groups as usize {
        start[g + 1] += start[g];
    }
    let mut fill = start.clone();
    let mut members = vec![0u32; keys.len()];
    for (i, &g) in gid.iter().enumerate() {
        members[fill[g as usize] as usize] = i as u32;
        fill[g as usize] += 1;
    }
    let mut chosen = Vec::with_capacity(groups as usize * buckets as usize);
    for g in 0..groups as usize {
        let alts = &members[start[g] as usize..start[g + 1] as usize];
        chosen.extend((0..buckets).map(|b| (alts[b as usize % alts.len()], Some(b))));
    }
    chosen
}

/// One insertion of the definition: `val` into `cell` of a (ToR, dst)
/// block; `ord` is its position in the definition's order.
#[derive(Clone, Copy, Default)]
struct Rec {
    cell: u32,
    /// Per hop: [`enc`] of the step; source: 1 + path index.
    val: u32,
    ord: u32,
}

/// Insertions grouped by (ToR, dst) block, in definition order: the
/// parts hold consecutive runs of chosen paths (built in parallel), and a
/// block's insertions are its ranges in part 0, part 1, ... in turn.
struct Records {
    parts: Vec<Part>,
}

struct Part {
    /// `start[tor * n + dst]..start[tor * n + dst + 1]` index `recs`.
    start: Vec<u32>,
    recs: Vec<Rec>,
}

impl Part {
    /// `counts`: the insertions per block (`[block + 1]`) if known.
    fn build(
        paths: &Paths,
        chosen: &[(u32, Option<u8>)],
        dims: &Dims,
        lookup: Lookup,
        counts: Option<Vec<u32>>,
    ) -> Part {
        let n = dims.tors;
        let mut start = counts.unwrap_or_else(|| {
            let mut c = vec![0u32; n * n + 1];
            for &(pi, _) in chosen {
                count(&mut c, n, paths.get(pi as usize), lookup, 1);
            }
            c
        });
        for k in 0..n * n {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut recs = vec![Rec::default(); start[n * n] as usize];
        let mut ord = 0u32;
        let mut put = |tor: TorId, dst: TorId, cell: u32, val: u32| {
            let f = &mut fill[tor as usize * n + dst as usize];
            recs[*f as usize] = Rec { cell, val, ord };
            *f += 1;
            ord += 1;
        };
        for &(pi, bucket) in chosen {
            let p = paths.get(pi as usize);
            let class = dims.class(p.class);
            match lookup {
                Lookup::Hop => {
                    let mut arrival = p.arrival;
                    for (i, h) in p.hops.iter().enumerate() {
                        let st = dims.step(h);
                        let cell = dims.cell(arrival, class, bucket, usize::from(i > 0));
                        put(h.tor, p.dst, cell, enc(st));
                        // The next ToR sees the packet within the slice it
                        // was sent in.
                        if st.depart.is_some() {
                            arrival = st.depart;
                        }
                    }
                }
                Lookup::Source => {
                    put(p.src, p.dst, dims.cell(p.arrival, class, bucket, 0), pi + 1);
                }
            }
        }
        Part { start, recs }
    }

    fn block(&self, k: usize) -> &[Rec] {
        &self.recs[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

/// Where [`par_chunks`] splits `0..len`: chunk `i` is `b[i]..b[i + 1]`.
fn par_bounds(len: usize, t: usize) -> Vec<usize> {
    let t = t.clamp(1, len.max(1));
    (0..=t).map(|i| len * i / t).collect()
}

/// Runs `f` on `t` consecutive near-equal chunks of `0..len` in parallel;
/// results in chunk order.
fn par_chunks<R: Send>(len: usize, t: usize, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    let t = t.clamp(1, len.max(1));
    let chunk = |i: usize| len * i / t..len * (i + 1) / t;
    if t == 1 {
        return vec![f(0..len)];
    }
    std::thread::scope(|sc| {
        let f = &f;
        let handles: Vec<_> = (1..t).map(|i| sc.spawn(move || f(chunk(i)))).collect();
        let mut v = vec![f(chunk(0))];
        v.extend(
            handles
                .into_iter()
                .map(|h| h.join().expect("tables worker")),
        );
        v
    })
}

/// [`par_chunks`] over a slice that each chunk fills (`f(first index, chunk)`).
fn par_chunks_mut<T: Send, R: Send>(
    v: &mut [T],
    t: usize,
    f: impl Fn(usize, &mut [T]) -> R + Sync,
) -> Vec<R> {
    let t = t.clamp(1, v.len().max(1));
    if t == 1 {
        return vec![f(0, v)];
    }
    let size = v.len().div_ceil(t);
    std::thread::scope(|sc| {
        let f = &f;
        let mut chunks = v.chunks_mut(size).enumerate();
        let first = chunks.next();
        let handles: Vec<_> = chunks
            .map(|(i, c)| sc.spawn(move || f(i * size, c)))
            .collect();
        let mut out: Vec<R> = first.into_iter().map(|(_, c)| f(0, c)).collect();
        out.extend(
            handles
                .into_iter()
                .map(|h| h.join().expect("tables worker")),
        );
        out
    })
}

/// The first clash in one worker's share: `prev` was in `cell` when `val`
/// (insertion number `ord`) came.
struct Clash {
    part: usize,
    ord: u32,
    tor: TorId,
    dst: TorId,
    cell: u32,
    prev: u32,
    val: u32,
}

struct WorkerOut {
    tables: Vec<(usize, FlatTable)>,
    conflict: Option<Clash>,
}

/// What every worker shares.
struct Ctx<'a> {
    dims: &'a Dims,
    recs: &'a Records,
    paths: &'a Paths,
    lookup: Lookup,
    failed: &'a AtomicBool,
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

    fn conflict_error(&self, c: &Clash) -> TableError {
        TableError::Conflict {
            tor: c.tor,
            m: self.dims.match_of(c.dst, c.cell),
            a: self.action(c.prev),
            b: self.action(c.val),
        }
    }

    /// Builds the tables of ToRs `w, w + of, ...` (ToRs cost about the
    /// same, and a fixed split keeps runs reproducible).
    fn work(&self, w: usize, of: usize) -> WorkerOut {
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
    fn push_source(
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

pub(super) fn ingress_col(i: Ingress) -> usize {
    match i {
        Ingress::Any => 0,
        Ingress::Host => 1,
        Ingress::Fabric => 2,
    }
}
