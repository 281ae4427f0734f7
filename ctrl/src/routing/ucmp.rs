//! `ucmp()` (UCMP, NSDI'24): per source, destination and arrival slice, the
//! earliest-arrival path for each hop budget `h = 1..H` gives Pareto points
//! `(h_i, l_i)` (hops, latency in slots); points whose latency is not lower
//! than every point with fewer hops are dropped. Between neighbouring
//! points, flows of at least
//! `θ = B × (l_few − l_many) / (h_many − h_few) / α` bytes prefer the
//! fewer-hop point (`B = opts.bytes_per_slice`, `α = 0.5`); the θ are made
//! monotone (running maximum). Equivalently, a flow of size `x` minimises
//! `latency + α·x·hops/B`. `H = opts.max_hop` (default
//! [`DEFAULT_MAX_HOP`]); layers stop early once more hops help no one.
//!
//! Flow-size classes are global, because the data plane classifies a flow
//! by size before it knows the pair's thresholds: with `K` the largest
//! Pareto set (at most [`MAX_CLASSES`]), class thresholds are `T_0 = 0`,
//! `T_{K-1}` = the largest per-pair θ, and in between the `c/(K-1)`
//! quantiles of all per-pair θ (duplicates dropped). Every pair gets a path
//! for every class `c`: the point a flow of exactly `T_c` bytes would pick
//! by the pair's own θ. Hence class 0 always takes the pair's lowest-latency
//! (most-hop) point and the last class its fewest-hop point. Paths depend
//! on the remaining hop budget, so use source routing (`lookup: source`).

use super::earliest::Dp;
use super::{
    ClassThresholds, Paths, RouteSet, RoutingError, RoutingOptions, Search,
    paths_per_destination_parts,
};
use crate::schedule::Schedule;
use crate::{SliceId, Slot, TorId};

/// Hop budget when `max_hop` is not set.
pub const DEFAULT_MAX_HOP: u8 = 6;
/// Most flow-size classes emitted.
pub const MAX_CLASSES: usize = 8;
/// UCMP's α: weight of bandwidth cost against latency.
pub const ALPHA: f64 = 0.5;

/// A Pareto point: hops and latency in slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    pub hops: u32,
    pub latency: Slot,
}

/// The pair's Pareto points, lowest latency (most hops) first.
pub fn pareto(dp: &Dp, src: TorId, ts: SliceId) -> Vec<Point> {
    let mut pts = Vec::new();
    pareto_into(dp, src, ts, &mut pts);
    pts
}

/// [`pareto`] into `pts` (cleared first), reusing its buffer.
fn pareto_into(dp: &Dp, src: TorId, ts: SliceId, pts: &mut Vec<Point>) {
    pts.clear();
    for h in 1..=dp.layers() {
        if let Some((arr, hops)) = dp.value(src, ts, h) {
            let latency = arr - ts as Slot;
            if pts.last().is_none_or(|p| latency < p.latency) {
                pts.push(Point { hops, latency });
            }
        }
    }
    pts.reverse();
}

/// Monotone thresholds between consecutive points of [`pareto`]:
/// `θ[i]` separates point `i` (more hops) from point `i + 1`.
pub fn thresholds(pts: &[Point], bytes_per_slice: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(pts.len().saturating_sub(1));
    thresholds_into(pts, bytes_per_slice, &mut out);
    out
}

/// [`thresholds`] appended to `out` (the running maximum starts afresh).
fn thresholds_into(pts: &[Point], bytes_per_slice: u64, out: &mut Vec<u64>) {
    let first = out.len();
    for w in pts.windows(2) {
        let (many, few) = (w[0], w[1]);
        let dl = (few.latency - many.latency) as f64;
        let dh = (many.hops - few.hops) as f64;
        let th = (bytes_per_slice.max(1) as f64 * dl / dh / ALPHA).ceil() as u64;
        let prev = out[first..].last().copied();
        out.push(prev.map_or(th, |p| p.max(th)));
    }
}

/// Index of the point a flow of `size` bytes uses.
pub fn point_for(thetas: &[u64], size: u64) -> usize {
    thetas.iter().take_while(|&&t| t <= size).count()
}

pub fn ucmp(s: &Schedule, opts: &RoutingOptions) -> Result<RouteSet, RoutingError> {
    let (n, slices) = (s.tors(), s.slices());
    let cap = opts
        .max_hop
        .unwrap_or(DEFAULT_MAX_HOP)
        .clamp(1, u8::MAX - 1);
    let b = opts.bytes_per_slice;
    // One search per destination: every pair's Pareto paths, most hops
    // first, each tagged with its point index (so a pair's run starts at
    // class 0), and, per destination, every pair's point count and
    // thresholds, to place the global classes and then pick among the
    // paths (sharing their hops) without deriving them again.
    let per_dst = n.saturating_sub(1) * slices * 3;
    let runs_of = std::sync::Mutex::new(Vec::with_capacity(n));
    let searches = [Search::new(cap, opts.same_slice_hops)];
    let parts = paths_per_destination_parts(s, &searches, per_dst, |dp, out| {
        let dp = &dp[0];
        let d = dp.dst();
        let mut runs = Runs {
            dst: d,
            len: Vec::with_capacity(n.saturating_sub(1) * slices),
            thresholds: Vec::with_capacity(n.saturating_sub(1) * slices * 2),
        };
        let mut pts = Vec::new();
        for src in (0..n as TorId).filter(|&x| x != d) {
            for ts in 0..slices as SliceId {
                pareto_into(dp, src, ts, &mut pts);
                if pts.is_empty() {
                    return Err(RoutingError::NoPath {
                        src,
                        dst: d,
                        ts,
                        max_hop: cap,
                    });
                }
                for (i, p) in pts.iter().enumerate() {
                    let found = out.push_with(src, d, Some(ts), Some(i as u8), |h| {
                        dp.path_into(src, ts, p.hops as usize, h)
                    });
                    assert!(found, "Pareto point has a path");
                }
                runs.len.push(pts.len() as u8);
                thresholds_into(&pts, b, &mut runs.thresholds);
            }
        }
        runs_of.lock().expect("not poisoned").push(runs);
        Ok(())
    })?;
    let mut runs = runs_of.into_inner().expect("not poisoned");
    runs.sort_unstable_by_key(|r| r.dst);
    let most = runs
        .iter()
        .flat_map(|r| r.len.iter())
        .map(|&l| l as usize)
        .max()
        .unwrap_or(1);
    let pooled: Vec<u64> = runs
        .iter()
        .flat_map(|r| r.thresholds.iter().copied())
        .collect();
    let classes = global_thresholds(pooled, most.min(MAX_CLASSES));
    // Per pair and class, the point the class's lower bound picks (each
    // worker's store on its own: a part holds a range of destinations, in
    // order), then the stores joined.
    let total = n * n.saturating_sub(1) * slices * classes.len();
    let classes = &classes;
    let mut picked: Vec<Paths> = std::thread::scope(|sc| {
        let mut rest = &runs[..];
        let handles: Vec<_> = parts
            .into_iter()
            .enumerate()
            .map(|(i, part)| {
                let room = if i == 0 {
                    total
                } else {
                    part.len() * classes.len()
                };
                let last = part.last().map(|p| p.dst);
                let k = rest.partition_point(|r| Some(r.dst) <= last);
                let (mine, later) = rest.split_at(k);
                rest = later;
                sc.spawn(move || pick_classes(part, mine, classes, room))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("ucmp worker panicked"))
            .collect()
    });
    let mut paths = picked.remove(0);
    for mut p in picked {
        paths.append(&mut p);
    }
    Ok(RouteSet {
        paths,
        classes: Some(ClassThresholds {
            thresholds: classes.clone(),
        }),
    })
}

/// One destination's pairs, in path order: each pair's Pareto point count
/// and its thresholds ([`thresholds`], one fewer than its points).
struct Runs {
    dst: TorId,
    len: Vec<u8>,
    thresholds: Vec<u64>,
}

/// The paths of each class from `cands` (runs of one pair's Pareto paths,
/// described by `runs`): per pair and class, the point a flow of the
/// class's lower bound picks by the pair's thresholds. `room`: records to
/// reserve.
fn pick_classes(cands: Paths, runs: &[Runs], classes: &[u64], room: usize) -> Paths {
    let picked = cands.pick_with(room, |out| {
        // Each pair's run starts where the one before it ends.
        let mut start = 0;
        for r in runs {
            let mut th = &r.thresholds[..];
            for &l in &r.len {
                let (mine, rest) = th.split_at(l as usize - 1);
                th = rest;
                for (c, &t) in classes.iter().enumerate() {
                    out.push(start + point_for(mine, t), Some(c as u8));
                }
                start += l as usize;
            }
        }
    });
    cands.keep(picked)
}

/// `k` ascending class thresholds from the pooled per-pair ones (module
/// docs); fewer when quantiles coincide.
fn global_thresholds(mut pooled: Vec<u64>, k: usize) -> Vec<u64> {
    let mut out = vec![0u64];
    if pooled.is_empty() || k <= 1 {
        return out;
    }
    // The k - 1 order statistics, each selected right of the one before
    // (everything left of a selected place is no larger): linear, where a
    // sort of opera-108's 2 million thresholds took 10 ms alone.
    let len = pooled.len();
    let mut lo = 0;
    for c in 1..k {
        let i = c * (len - 1) / (k - 1);
        let (_, x, _) = pooled[lo..].select_nth_unstable(i - lo);
        out.push(*x);
        lo = i;
    }
    out.dedup();
    out
}
