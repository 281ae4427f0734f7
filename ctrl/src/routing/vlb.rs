//! `vlb()` (RotorNet / Sirius Valiant load balancing): a packet whose
//! direct circuit is up in its arrival slice goes direct. Otherwise it
//! leaves at once on an uplink that is up, to an intermediate ToR drawn by a
//! seeded RNG keyed on `(seed, src, dst, ts)`; the intermediate then waits
//! for its own direct circuit to the destination (next slot or later in
//! RotorNet style, same slot allowed with `same_slice_hops`).
//!
//! Candidates are the distinct neighbours of `src` in slice `ts` whose
//! direct circuit to `dst` comes within the wait limit (`< S` slots); if
//! there are none the packet waits at the source for the direct circuit.
//! With `opts.multipath` and `opts.k > 1` up to `k` intermediates are
//! emitted as multipath alternatives (RNG order).
//!
//! The intermediate's step depends only on `(mid, dst, slot)` and it arrived
//! from the fabric, so per-hop tables stay consistent: fabric arrivals at a
//! ToR always take the direct circuit, host arrivals follow the random draw.

use super::{Hop, PathRef, RouteSet, RoutingError, RoutingOptions, paths_per_destination};
use crate::schedule::Schedule;
use crate::{PortId, SliceId, Slot, TorId};

/// SplitMix64: a tiny seeded generator whose output never changes with
/// crate versions, so routes are reproducible from the seed.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn rng_for(seed: u64, src: TorId, dst: TorId, ts: SliceId) -> u64 {
    let mut st = seed;
    let mut h = splitmix(&mut st);
    h ^= (src as u64) << 32 | (dst as u64) << 16 | ts as u64;
    let mut st = h;
    splitmix(&mut st)
}

pub fn vlb(s: &Schedule, opts: &RoutingOptions) -> Result<RouteSet, RoutingError> {
    let (n, slices) = (s.tors(), s.slices());
    let alternatives = if opts.multipath {
        opts.k.max(1) as usize
    } else {
        1
    };
    let per_dst = n.saturating_sub(1) * slices;
    let paths = paths_per_destination(s, 1, opts.same_slice_hops, true, per_dst, |dp, out| {
        let d = dp.dst();
        let mut cands: Vec<(PortId, TorId, Slot, PortId)> = Vec::new();
        for src in (0..n as TorId).filter(|&x| x != d) {
            for ts in 0..slices as SliceId {
                let no_path = || RoutingError::NoPath {
                    src,
                    dst: d,
                    ts,
                    max_hop: 2,
                };
                let direct_now = dp.value(src, ts, 1).is_some_and(|(a, _)| a == ts as Slot);
                let mut take = 0;
                if !direct_now {
                    // Lazy Fisher-Yates over the distinct neighbours: the
                    // first `alternatives` that can relay, in RNG order
                    // (uniform over the valid ones), checking only as many
                    // as needed.
                    neighbours(s, d, src, ts, &mut cands);
                    let mut st = rng_for(opts.seed, src, d, ts);
                    let mut i = 0;
                    while i < cands.len() && take < alternatives {
                        let j = i + (splitmix(&mut st) % (cands.len() - i) as u64) as usize;
                        cands.swap(i, j);
                        if let Some((t2, p2)) = dp.transit_step(cands[i].1, ts as Slot, 1) {
                            cands[i].2 = t2;
                            cands[i].3 = p2;
                            cands.swap(take, i);
                            take += 1;
                        }
                        i += 1;
                    }
                }
                if take == 0 {
                    if !out.push_with(src, d, Some(ts), None, |h| dp.path_into(src, ts, 1, h)) {
                        return Err(no_path());
                    }
                    continue;
                }
                for &(p1, mid, t2, p2) in &cands[..take] {
                    out.push(PathRef {
                        src,
                        dst: d,
                        arrival: Some(ts),
                        hops: &[
                            Hop {
                                tor: src,
                                port: p1,
                                depart: Some(ts as Slot),
                            },
                            Hop {
                                tor: mid,
                                port: p2,
                                depart: Some(t2),
                            },
                        ],
                        class: None,
                    });
                }
            }
        }
        Ok(())
    })?;
    Ok(RouteSet {
        paths,
        classes: None,
    })
}

/// Distinct neighbours of `src` in slice `ts` other than `dst` (lowest
/// uplink per ToR), relay step not filled in yet.
fn neighbours(
    s: &Schedule,
    dst: TorId,
    src: TorId,
    ts: SliceId,
    out: &mut Vec<(PortId, TorId, Slot, PortId)>,
) {
    out.clear();
    s.for_each_link(src, ts, |p, mid| {
        if mid != dst && !out.iter().any(|c| c.1 == mid) {
            out.push((p, mid, 0, 0));
        }
    });
}
