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
    ClassThresholds, PathRef, Paths, RouteSet, RoutingError, RoutingOptions, UNLIMITED,
    earliest_routes,
};
use crate::schedule::Schedule;

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
    let fast = earliest_routes(s, UNLIMITED, true)?;
    let bulk = earliest_routes(s, 1, false)?;
    debug_assert_eq!(fast.len(), bulk.len());
    // Both lists are ordered (dst, src, ts): interleave class 0 and 1.
    let mut paths = Paths::with_capacity(fast.len() * 2, fast.total_hops() + bulk.total_hops());
    for (f, b) in fast.iter().zip(&bulk) {
        paths.push(PathRef {
            class: Some(LOW_LATENCY),
            ..f
        });
        paths.push(PathRef {
            class: Some(BULK),
            ..b
        });
    }
    Ok(RouteSet {
        paths,
        classes: Some(ClassThresholds {
            thresholds: vec![0, bulk_threshold(s, opts).max(1)],
        }),
    })
}
