//! `opera()` (Opera, NSDI'20): two flow-size classes.
//!
//! - Class 0, low-latency flows: the fewest-hop path inside the arrival
//!   slice's graph (every hop departs in the arrival slot; Opera's expander
//!   slices make this the common case). When the slice graph cannot reach
//!   the destination, the earliest-arrival path instead. Both are exactly
//!   the Opera-style (`same_slice_hops`) earliest-arrival path, which this
//!   class always uses whatever `opts.same_slice_hops` says.
//! - Class 1, bulk flows: the direct path (wait for the direct circuit).
//!
//! Thresholds `[0, T]`: flows of at least `T` bytes are bulk. Opera used
//! 15 MB at 10 Gb/s with a ~10 ms cycle, i.e. about one cycle's worth of
//! one uplink; `T = bytes_per_slice × S` scales the same way.
//!
//! Opera uses source routing; the class-0 paths are destination-rooted, so
//! per-hop tables also work for them.

use super::{
    ClassThresholds, RouteSet, RoutingError, RoutingOptions, UNLIMITED, paths_per_destination_with,
};
use crate::schedule::Schedule;
use crate::{SliceId, TorId};

/// Class of Opera's low-latency (multi-hop, same-slice) paths.
pub const LOW_LATENCY: u8 = 0;
/// Class of Opera's bulk (direct) paths.
pub const BULK: u8 = 1;

/// The bulk threshold in bytes (see the module docs).
pub fn bulk_threshold(s: &Schedule, opts: &RoutingOptions) -> u64 {
    opts.bytes_per_slice
        .max(1)
        .saturating_mul(s.slices() as u64)
}

pub fn opera(s: &Schedule, opts: &RoutingOptions) -> Result<RouteSet, RoutingError> {
    // Per destination: the Opera-style earliest path (class 0) and the
    // direct path (class 1), interleaved in (dst, src, ts) order, as
    // `earliest_routes(s, UNLIMITED, true)` and `earliest_routes(s, 1,
    // false)` would give them.
    let (n, slices) = (s.tors(), s.slices());
    let per_dst = 2 * n.saturating_sub(1) * slices;
    let searches = [(UNLIMITED, true, false), (1, false, false)];
    let paths = paths_per_destination_with(s, &searches, per_dst, |dp, out| {
        let d = dp[0].dst();
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
