//! `opera()` (Opera, NSDI'20): two flow-size classes.
//!
//! - Class 0, low-latency flows: the fewest-hop path inside the arrival
//!   slice's graph of circuits that stay up into the next slice (every hop
//!   departs in the arrival slot; Opera's expander slices make this the
//!   common case). Opera's paths in a slice leave out the rotor that
//!   reconfigures at its end, so a packet that reaches a ToR after its
//!   slice has ended still finds its circuit up (the ToR sends it then:
//!   swtor's calendar, "late source-route hops"). When that graph cannot
//!   reach the destination in the slice, the earliest-arrival path on it
//!   instead. Both are exactly the Opera-style (`same_slice_hops`)
//!   earliest-arrival path on [`Adjacency::stable`], which this class
//!   always uses whatever `opts.same_slice_hops` says. On a schedule where
//!   some circuit lasts a single slice (RotorNet's rotors all reconfigure
//!   together) no graph of lasting circuits reaches every ToR: there the
//!   class uses every circuit, and a late packet waits for its slice.
//! - Class 1, bulk flows: the direct path (wait for the direct circuit).
//!
//! Thresholds `[0, T]`: flows of at least `T` bytes are bulk. Opera used
//! 15 MB at 10 Gb/s with a ~10 ms cycle, i.e. about one cycle's worth of
//! one uplink; `T = bytes_per_slice × S` scales the same way.
//!
//! With `routing.multipath` and `k > 1`, class 0 also lists the slice's
//! other equal paths (the Opera authors spray each flow over up to 5 paths
//! of a slice): every other first hop on a lasting circuit from which the
//! class-0 path arrives as early with as few hops, up to `k` in all, in
//! uplink order after the first. Each alternative then follows the
//! destination-rooted path, one hop shorter, so hashing or spraying at
//! every hop never loops.
//!
//! Opera uses source routing; the class-0 paths are destination-rooted, so
//! per-hop tables also work for them.

#[cfg(doc)]
use super::earliest::Adjacency;
use super::earliest::Dp;
use super::{
    ClassThresholds, Hop, Paths, RouteSet, RoutingError, RoutingOptions, Search, UNLIMITED,
    paths_per_destination_with,
};
use crate::schedule::{Endpoint, Schedule};
use crate::{PortId, SliceId, Slot, TorId};

/// Class of Opera's low-latency (multi-hop, same-slice) paths.
pub const LOW_LATENCY: u8 = 0;
/// Class of Opera's bulk (direct) paths.
pub const BULK: u8 = 1;

/// The bulk threshold in bytes: `opts.bulk_threshold` (config
/// `routing.bulk_threshold`), else one cycle of one uplink (see the module
/// docs).
pub fn bulk_threshold(s: &Schedule, opts: &RoutingOptions) -> u64 {
    opts.bulk_threshold.unwrap_or_else(|| {
        opts.bytes_per_slice
            .max(1)
            .saturating_mul(s.slices() as u64)
    })
}

pub fn opera(s: &Schedule, opts: &RoutingOptions) -> Result<RouteSet, RoutingError> {
    // Per destination: the Opera-style earliest path (class 0) and the
    // direct path (class 1), interleaved in (dst, src, ts) order, as
    // `earliest_routes(s, UNLIMITED, true)` and `earliest_routes(s, 1,
    // false)` would give them.
    let (n, slices) = (s.tors(), s.slices());
    let per_dst = 2 * n.saturating_sub(1) * slices;
    let searches = [
        Search {
            stable: circuits_outlast_a_slice(s),
            ..Search::new(UNLIMITED, true)
        },
        Search::new(1, false),
    ];
    let k = if opts.multipath { opts.k.max(1) } else { 1 } as usize;
    let stable = searches[0].stable;
    let paths = paths_per_destination_with(s, &searches, per_dst, |dp, out| {
        let d = dp[0].dst();
        let mut hops = Vec::new();
        for src in (0..n as TorId).filter(|&x| x != d) {
            for ts in 0..slices as SliceId {
                for (class, dp, budget) in [(LOW_LATENCY, &dp[0], UNLIMITED), (BULK, &dp[1], 1)] {
                    let found = out.push_with(src, d, Some(ts), Some(class), |h| {
                        dp.path_into(src, ts, budget as usize, h)
                    });
                    if !found {
                        return Err(RoutingError::NoPath {
                            src,
                            dst: d,
                            ts,
                            max_hop: budget,
                        });
                    }
                    if class == LOW_LATENCY && k > 1 {
                        let first = out.last().map(|p| p.hops[0].port);
                        equal_paths(s, dp, stable, (src, d, ts), first, k - 1, &mut hops, out);
                    }
                }
            }
        }
        Ok(())
    })?;
    Ok(RouteSet {
        paths,
        classes: Some(ClassThresholds {
            thresholds: vec![0, bulk_threshold(s, opts).max(1)],
        }),
    })
}

/// Up to `more` low-latency alternatives for `(src, dst, ts)` besides the
/// path already pushed (whose first uplink is `first`): each other first
/// hop on a circuit of slice `ts` (lasting into the next slice when
/// `stable`) whose class-0 path from the next ToR in slot `ts` arrives as
/// early as the best with as few hops in all, never through `src`.
#[allow(clippy::too_many_arguments)]
fn equal_paths(
    s: &Schedule,
    dp: &Dp<'_>,
    stable: bool,
    (src, dst, ts): (TorId, TorId, SliceId),
    first: Option<PortId>,
    more: usize,
    hops: &mut Vec<Hop>,
    out: &mut Paths,
) {
    let Some(best) = dp.value(src, ts, UNLIMITED as usize) else {
        return;
    };
    let next = ((ts as usize + 1) % s.slices()) as SliceId;
    let mut taken = 0;
    s.for_each_link(src, ts, |p, y| {
        if taken == more || Some(p) == first {
            return;
        }
        if stable && s.peer(next, Endpoint::new(src, p)).map(|e| e.tor) != Some(y) {
            return;
        }
        hops.clear();
        hops.push(Hop {
            tor: src,
            port: p,
            depart: Some(ts as Slot),
        });
        let via = if y == dst {
            Some((ts as Slot, 1))
        } else {
            dp.value(y, ts, UNLIMITED as usize).map(|(a, h)| (a, h + 1))
        };
        if via != Some(best) {
            return;
        }
        if y != dst {
            dp.path_into(y, ts, UNLIMITED as usize, hops);
            if hops[1..].iter().any(|h| h.tor == src) {
                return;
            }
        }
        out.push(super::PathRef {
            src,
            dst,
            arrival: Some(ts),
            hops,
            class: Some(LOW_LATENCY),
        });
        taken += 1;
    });
}

/// Whether every circuit is up for at least two slices in a row: then each
/// one is in [`Adjacency::stable`] in some slice, so a path on lasting
/// circuits exists wherever any path does (waits are allowed).
fn circuits_outlast_a_slice(s: &Schedule) -> bool {
    let n = s.slices();
    n > 1
        && (0..n as SliceId).all(|ts| {
            (0..s.tors() as TorId).all(|t| {
                (0..s.optical_uplinks() as PortId).all(|p| {
                    let ep = Endpoint::new(t, p);
                    s.peer(ts, ep).is_none()
                        || !(s.changed(ts, ep) && s.changed(((ts as usize + 1) % n) as SliceId, ep))
                })
            })
        })
}
